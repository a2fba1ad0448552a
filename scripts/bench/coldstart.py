"""First use with an empty Numba cache: import -> the first finished game of each game, in seconds.

    boardgym bench coldstart                # one fresh process, then one with the cache it left
    boardgym bench coldstart --repeats 3    # BENCHMARKS.md (also: --full): the median of 3
    boardgym bench coldstart --kernels 15   # also the 15 costliest compiles

Each run is a fresh Python process with ``NUMBA_CACHE_DIR`` set to a new empty directory. It
imports boardgym and the two PettingZoo envs, then plays one seeded random game of each to the
end through the wrapped ``env()`` (``agent_iter`` / ``last`` / ``step``, as README.md shows);
per-phase seconds are measured inside it (``total`` also counts the interpreter's start;
``total cpu`` is the process's CPU time, steadier than the wall clock on a shared machine). A second
process reruns the same with the cache the first one left ("cached"). The compile notice
(boardgym/kernels/compile_notice.py) is switched on, and the seconds at which its lines reached
stderr are printed (the first one ends the wait at a silent prompt). ``--kernels N``
lists the N Numba compiles that took longest (own time: callees compiled inside are not counted).
No peer: the figure is boardgym's own.
"""

import dataclasses
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Literal

from boardgym.scripts import cli

#: optional peers (name, module, how to install, game): none
PEERS = ()

GAMES = ("draughts", "backgammon")

#: the child process: prints one JSON line
#: {"phases": [[name, s], ...], "compiles": [[name, s], ...]}
CHILD = r"""
import time
t0 = time.perf_counter()
import json, sys
games = sys.argv[1].split(",")
compiles = {}
if sys.argv[2] == "1":
    from numba.core import event

    class Own(event.Listener):
        def __init__(self):
            self.stack = []

        def on_start(self, ev):
            self.stack.append([time.perf_counter(), 0.0])

        def on_end(self, ev):
            start, inner = self.stack.pop()
            took = time.perf_counter() - start
            if self.stack:
                self.stack[-1][1] += took
            f = ev.data["dispatcher"].py_func
            name = f.__module__.replace("boardgym.kernels.", "") + "." + f.__qualname__
            compiles[name] = compiles.get(name, 0.0) + took - inner

    event.register("numba:compile", Own())
import numpy as np
import boardgym
from boardgym.envs import backgammon_v0, russian_draughts_v0
phases = [["import", time.perf_counter() - t0]]
for game in games:
    t = time.perf_counter()
    env = {"draughts": russian_draughts_v0, "backgammon": backgammon_v0}[game].env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated
                 else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    phases.append([game, time.perf_counter() - t])
print(json.dumps({"phases": phases, "compiles": sorted(compiles.items(), key=lambda kv: -kv[1])}))
"""


@dataclasses.dataclass
class Settings:
    """Settings of the cold-start benchmark (defaults: the quick budget; --full:
    BENCHMARKS.md's)."""

    game: Literal["all", "draughts", "backgammon"] = "all"
    """the games whose first game is played (all: draughts, then backgammon)"""
    repeats: int = 1
    """fresh processes with an empty cache (the median of each phase is printed)"""
    kernels: int = 0
    """also list the N costliest Numba compiles of the first cold run"""
    full: bool = False
    """the budget BENCHMARKS.md reports (3 repeats); not with --repeats"""

    def check(self):
        cli.require(1 <= self.repeats <= 20, f"--repeats must be in 1..20, got {self.repeats}")
        cli.require(self.kernels >= 0, f"--kernels must be at least 0, got {self.kernels}")
        if self.full:
            given = [f"--{k}" for k in FULL if getattr(self, k) != getattr(Settings, k)]
            cli.require(not given, f"--full sets {', '.join(given)}; give one or the other")


#: the budget of BENCHMARKS.md (``--full``)
FULL = dict(repeats=3)


def run_child(games, cache_dir, own_compiles=False):
    """One fresh process -> (phases {name: s} with "total", [(notice seconds, line)], compiles)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, BOARDGYM_COMPILE_NOTICE="1")
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, ",".join(games), "1" if own_compiles else "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    notices, errors = [], []

    def read_stderr():
        for line in proc.stderr:
            (notices if line.startswith("boardgym: compil") else errors).append(
                (time.perf_counter() - t0, line.rstrip())
            )

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    out = proc.stdout.read()
    proc.wait()
    total = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    reader.join()
    if proc.returncode != 0:
        raise RuntimeError(
            "the cold-start process failed:\n" + "\n".join(line for _, line in errors[-20:])
        )
    result = json.loads(out.strip().splitlines()[-1])
    phases = dict(result["phases"])
    phases["total"] = total
    phases["total cpu"] = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    return phases, notices, result["compiles"]


def main(args=None):
    """Run with Settings or a list of command-line strings; return {"cold": {phase: s}, "cached":
    ..., ...}."""
    cfg = cli.settings(Settings, args, prog="boardgym bench coldstart", description=__doc__)
    if cfg.full:
        cfg = dataclasses.replace(cfg, **FULL)
    games = GAMES if cfg.game == "all" else (cfg.game,)
    colds, cacheds, notices, compiles = [], [], [], []
    for i in range(cfg.repeats):
        with tempfile.TemporaryDirectory(prefix="boardgym-numba-cache-") as cache:
            phases, said, own = run_child(games, cache, own_compiles=(i == 0 and cfg.kernels > 0))
            colds.append(phases)
            if i == 0:
                notices, compiles = said, own
            cacheds.append(run_child(games, cache)[0])
    cold = {k: statistics.median(p[k] for p in colds) for k in colds[0]}
    cached = {k: statistics.median(p[k] for p in cacheds) for k in cacheds[0]}
    print(
        f"bench coldstart: import -> first finished game of {' and '.join(games)}, "
        "a fresh process each, "
        f"median of {cfg.repeats} (python {sys.version.split()[0]}, {os.cpu_count()} cpus)"
    )
    print(f"{'phase':<16}{'empty cache s':>14}{'cached s':>10}")
    for name in cold:
        label = name if name in ("import", "total", "total cpu") else f"{name} game"
        print(f"{label:<16}{cold[name]:>14.2f}{cached[name]:>10.2f}")
    first = notices[0][0] if notices else None
    print(
        f"compile notices on stderr (first cold run): {len(notices)}"
        + (f"; the first {first:.1f} s after the start" if notices else "")
    )
    for t, line in notices:
        print(f"  at {t:5.1f} s  {line}")
    if cfg.kernels:
        print(
            f"costliest compiles (own seconds; {len(compiles)} functions, "
            f"{sum(s for _, s in compiles):.2f} s in all):"
        )
        for name, s in compiles[: cfg.kernels]:
            print(f"  {s:6.2f}  {name}")
    return {
        "cold": cold,
        "cached": cached,
        "notices": notices,
        "first_notice": first,
        "compiles": compiles[: cfg.kernels],
        "repeats": cfg.repeats,
    }


if __name__ == "__main__":
    cli.script_main(main)
