"""The paths users call, each beside its peer and its goal, in one run.

    boardgym bench paths                    # quick budget: a few minutes with the cold start
    boardgym bench paths --no-coldstart     # the timed rows only (about a minute)
    boardgym bench paths --full             # BENCHMARKS.md: 5 s per row, 10,000 cases

Rows (every figure of a row and of its peer is measured in this run, so the ratios hold on a
shared machine; the load average is printed with them):
  legal_plays     ``backgammon.legal_plays(position_id, d1, d2)`` (Position IDs in and out) on
                  rolls of seeded random games, cases/s, CPU time, beside gnubg-nn's ``moves()``
                  plus the IDs of its plays (``pip install gnubg-nn``); goal >= 2x gnubg-nn.
  make_vec        ``gym.make_vec(id, num_envs=1024, vectorization_mode="vector_entry_point")``
                  ``step()`` against the in-kernel random opponent, steps/s, wall time on all
                  cores, beside its batched core (random play in both seats, timed in alternating
                  slices; see ``boardgym bench envs --vector``); goals: draughts >= 2M steps/s,
                  backgammon >= 1.4M.
  AEC env         the wrapped PettingZoo ``env()`` in random legal play (``agent_iter`` /
                  ``last`` / ``step``), turns/s, CPU time, one thread, beside PettingZoo's
                  ``connect_four_v3`` (``pip install pygame``); goal >= 3.3x connect four.
  cold start      import -> the first finished game of each game with an empty Numba cache, one
                  fresh process (``boardgym bench coldstart``); goal <= 5 s, or a progress message
                  while it compiles (the seconds until the first one are printed).
A peer that is not installed is named with how to install it; its row then has no ratio.
"""

import dataclasses
import importlib.util
import os
import tempfile
import time
from dataclasses import dataclass

from boardgym.scripts import cli

#: optional peers: (name, module to import, how to install, game)
from boardgym.scripts.bench import coldstart as bench_coldstart
from boardgym.scripts.bench import env as bench_env
from boardgym.scripts.bench import movegen as bench_movegen

PEERS = (
    ("gnubg-nn", "gnubg_nn", "pip install gnubg-nn", "backgammon"),
    ("PettingZoo connect four", "pygame", "pip install pygame", "all"),
)

#: goals of the rows: (kind, number); "ratio" rows compare with the peer, "rate" rows are absolute
GOALS = {
    "legal_plays": ("ratio", 2.0),
    "make_vec draughts": ("rate", 2_000_000),
    "make_vec backgammon": ("rate", 1_400_000),
    "AEC draughts": ("ratio", 3.3),
    "AEC backgammon": ("ratio", 3.3),
    "cold start": ("seconds", 5.0),
}


@dataclass
class Settings:
    """Settings of the paths benchmark (defaults: the quick budget; --full: BENCHMARKS.md's)."""

    seconds: float = 1.0
    """seconds of each timed row (CPU seconds for legal_plays and the AEC envs, wall for
    make_vec)"""
    cases: int = 2000
    """(position, roll) cases of legal_plays, from seeded random games"""
    coldstart: bool = True
    """also time the cold start (a fresh process compiling every kernel: tens of seconds)"""
    seed: int = 0
    """seed of the cases, the envs and the action choices"""
    full: bool = False
    """the budget BENCHMARKS.md reports (5 s per row, 10,000 cases); not with --seconds or
    --cases"""

    def check(self):
        cli.require(0 < self.seconds <= 3600, f"--seconds must be in (0, 3600], got {self.seconds}")
        cli.require(
            10 <= self.cases <= 1_000_000, f"--cases must be in 10..1000000, got {self.cases}"
        )
        cli.require(self.seed >= 0, f"--seed must be at least 0, got {self.seed}")
        if self.full:
            given = [f"--{k}" for k in FULL if getattr(self, k) != getattr(Settings, k)]
            cli.require(not given, f"--full sets {', '.join(given)}; give one or the other")


#: the budget of BENCHMARKS.md (``--full``)
FULL = dict(seconds=5.0, cases=10_000)


def _cpu_rate(fn, work, seconds):
    """work units per CPU second of fn(), repeated for at least seconds (after one warm-up call)."""
    fn()
    done, start = 0, time.process_time()
    while True:
        fn()
        done += work
        spent = time.process_time() - start
        if spent >= seconds:
            return done / spent


def legal_plays_rates(cases, seconds, seed):
    """(boardgym legal_plays, gnubg-nn moves + IDs or None) in cases/s, CPU time."""
    from boardgym.agents.arena.playouts import backgammon_rolls
    from boardgym.envs import backgammon_notation as bgenv

    states, dice = backgammon_rolls(cases, seed)
    pids = [bgenv.position_id(x) for x in states]
    rolls = dice.tolist()
    ours = _cpu_rate(
        lambda: [bgenv.legal_plays(p, d1, d2) for p, (d1, d2) in zip(pids, rolls)],
        len(pids),
        seconds,
    )
    if importlib.util.find_spec("gnubg_nn") is None:
        return ours, None
    import gnubg_nn

    boards = [gnubg_nn.board_from_position_id(p) for p in pids]
    moves, ids = gnubg_nn.moves, bench_movegen._gnubg_play_ids
    for b, p, (d1, d2) in list(zip(boards, pids, rolls))[:200]:  # the same plays, as sets
        if (sorted(ids(moves, b, d1, d2)) or [p]) != bgenv.legal_plays(p, d1, d2):
            raise AssertionError(f"plays by ID differ from gnubg-nn on {p} {d1}-{d2}")
    theirs = _cpu_rate(
        lambda: [ids(moves, b, d1, d2) for b, (d1, d2) in zip(boards, rolls)], len(boards), seconds
    )
    return ours, theirs


def aec_rates(seconds, seed):
    """{env name: turns/s (None when not installed)} of the wrapped AEC envs and connect four."""
    makers, rates = bench_env._makers(), {}
    for name in ("boardgym-draughts", "boardgym-backgammon", "pz-connect-four"):
        try:
            bench_env._aec_rate(makers[name], min(0.5, seconds), seed)  # warm up (JIT, imports)
            rates[name] = bench_env._aec_rate(makers[name], seconds, seed)
        except ImportError:
            rates[name] = None
    return rates


def coldstart_seconds():
    """(seconds to the first finished game of each game with an empty cache, seconds to the first
    compile notice or None) in one fresh process."""
    with tempfile.TemporaryDirectory(prefix="boardgym-numba-cache-") as cache:
        phases, notices, _ = bench_coldstart.run_child(bench_coldstart.GAMES, cache)
    return phases["total"], (notices[0][0] if notices else None)


def _verdict(row, value, peer):
    kind, goal = GOALS[row]
    if kind == "ratio":
        return "-" if peer is None else ("met" if value / peer >= goal else "not met")
    if kind == "rate":
        return "met" if value >= goal else "not met"
    return "met" if value <= goal else ("message" if peer is not None else "not met")


def main(args=None):
    """Run with Settings or a list of command-line strings -> {row: {"value", "peer", "goal",
    "verdict"}} (peer None when not installed or not a ratio row)."""
    s = cli.settings(Settings, args, prog="boardgym bench paths", description=__doc__)
    if s.full:
        s = dataclasses.replace(s, **FULL)
    load0 = os.getloadavg()[0]
    rows = {}
    with cli.Progress(5 + s.coldstart, label="paths", unit="rows") as bar:
        ours, gnubg = legal_plays_rates(s.cases, s.seconds, s.seed)
        rows["legal_plays"] = (ours, gnubg, "cases/s", "gnubg-nn moves + IDs")
        bar.update(1)
        for game in ("draughts", "backgammon"):
            core, vec = bench_env._vector_rates(game, s.seconds, s.seed)
            rows[f"make_vec {game}"] = (vec, core, "steps/s", "its batched core")
            bar.update(1)
        aec = aec_rates(s.seconds, s.seed)
        for game in ("draughts", "backgammon"):
            rows[f"AEC {game}"] = (
                aec[f"boardgym-{game}"],
                aec["pz-connect-four"],
                "turns/s",
                "PettingZoo connect_four_v3",
            )
        bar.update(2)
        if s.coldstart:
            total, first = coldstart_seconds()
            rows["cold start"] = (total, first, "s", "first compile notice at (s)")
            bar.update(1)
    load1 = os.getloadavg()[0]
    print(
        f"bench paths: {os.cpu_count()} cpus, load average {load0:.2f} at the start, "
        f"{load1:.2f} at the end; {s.seconds:g} s per timed row"
    )
    print(
        f"{'path':<20} {'boardgym':>12} {'peer':>12} {'ratio':>7}  {'goal':<14} {'':<8} peer / unit"
    )
    out = {}
    for row, (value, peer, unit, peer_name) in rows.items():
        kind, goal = GOALS[row]
        verdict = _verdict(row, value, peer)
        goal_txt = {
            "ratio": f">= {goal:g}x peer",
            "rate": f">= {goal / 1e6:g}M/s",
            "seconds": f"<= {goal:g} s",
        }[kind]
        ratio = f"{value / peer:6.2f}x" if (peer and kind != "seconds") else f"{'-':>7}"
        if peer is None and kind == "ratio":
            how = {"legal_plays": "pip install gnubg-nn"}.get(row, "pip install pygame")
            peer_txt, peer_name = f"{'-':>12}", f"{peer_name}: not installed ({how})"
        elif kind == "seconds":
            peer_txt = f"{peer:12.1f}" if peer is not None else f"{'none':>12}"
        else:
            peer_txt = f"{peer:12,.0f}"
        value_txt = f"{value:12.1f}" if kind == "seconds" else f"{value:12,.0f}"
        print(
            f"{row:<20} {value_txt} {peer_txt} {ratio}  {goal_txt:<14} {verdict:<8}"
            f" {peer_name}, {unit}"
        )
        out[row] = {"value": value, "peer": peer, "goal": goal, "verdict": verdict}
    out["load"] = (load0, load1)
    return out


if __name__ == "__main__":
    cli.script_main(main)
