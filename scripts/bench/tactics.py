"""Tactics of the draughts alpha-beta engines: the share of fixed tactics suites solved in a time.

    boardgym bench tactics                          # 0.1 s a position: the frozen engine, today's
    boardgym bench tactics --full                   # 0.01 s, 0.1 s and 1 s a position
    boardgym bench tactics --times 0.01
    boardgym bench tactics --agents draughts-alphabeta:threads=1 draughts-alphabeta

Each engine (``--agents``, registry specs; by default the frozen ``draughts-alphabeta-2026`` and
today's ``draughts-alphabeta``, one thread each, and today's default with two threads) gets
each of ``--times`` seconds (``time_limit``, no depth cap) on every position of every suite
(``--suites``: files of FEN<TAB>best move<TAB>proof, by default the two of
agents/arena/data: ``draughts_tactics.tsv``, shots a 3-ply search misses, proved by material
search at depth 10, and ``draughts_tactics_deep.tsv``, shots a 6-ply search misses, proved at
depth 14; both built by ``python -m boardgym.scripts.draughts_strength --make-tactics``, whose
docstring says how, and never used to fit an evaluation). Every position starts afresh (empty
transposition table, no time banked); it is solved when the engine plays the suite's move.
The table gives, per time, suite and engine, solved / total with a 95% Wilson interval. The JIT is
warmed up before timing.
No peer: the figures are boardgym's own.
"""

import dataclasses
from dataclasses import field
from pathlib import Path

from boardgym.agents.arena.openings import TACTICS_DEEP_FILE, TACTICS_FILE, read_tactics
from boardgym.agents.arena.stats import wilson
from boardgym.agents.registry import load_spec
from boardgym.scripts import cli
from boardgym.scripts.bench.timeuse import check_searchers

#: optional peers (name, module, how to install, game): none, the engines are compared
PEERS = ()

#: the frozen engine and today's, one thread each, and today's default (two threads)
AGENTS = [
    "draughts-alphabeta-2026:threads=1",
    "draughts-alphabeta:threads=1",
    "draughts-alphabeta",
]
#: the tactics suites (shots a 3-ply search misses; shots a 6-ply search misses)
SUITES = [str(TACTICS_FILE), str(TACTICS_DEEP_FILE)]


@dataclasses.dataclass
class Settings:
    """Settings of one tactics benchmark."""

    agents: list[str] = field(default_factory=lambda: list(AGENTS))
    """the engines, registry specs name:key=value,... (alpha-beta searchers)"""
    times: tuple[float, ...] = (0.1,)
    """seconds per position measured"""
    suites: list[str] = field(default_factory=lambda: list(SUITES))
    """the tactics files (FEN<TAB>best move<TAB>proof a line, # comments)"""
    seed: int = 0
    """seed of the engines (the order of their first root moves)"""
    full: bool = False
    """the times BENCHMARKS.md reports (0.01, 0.1 and 1 s a position); not with --times"""

    def check(self):
        check_searchers(self.agents, "--times, --seed")
        cli.require(len(self.times) >= 1, "give at least one time with --times")
        cli.require(
            all(0 < t <= 60 for t in self.times),
            f"--times must be in (0, 60] seconds, got {self.times}",
        )
        cli.require(len(self.suites) >= 1, "give at least one tactics file with --suites")
        for path in self.suites:
            cli.require(Path(path).is_file(), f"--suites: no such file {path!r}")
        cli.require(self.seed >= 0, f"--seed must be at least 0, got {self.seed}")
        if self.full:
            cli.require(
                self.times == DEFAULTS["times"], "--full sets --times; give one or the other"
            )


#: the times of BENCHMARKS.md (``--full``)
FULL = dict(times=(0.01, 0.1, 1.0))
DEFAULTS = {k: getattr(Settings, k) for k in FULL}


def solved(spec, suite, seconds, seed):
    """[bool] per position of suite ([(FEN, best move, proof)]): spec played the best move with
    ``seconds`` a position, each position from an empty table and an empty time bank."""
    agent = load_spec(spec, "draughts", seed=seed, depth=None, time_limit=seconds)
    agent.best_move("W:W21-32:B1-12")  # warm-up (JIT)
    out = []
    for fen, best, _ in suite:
        agent.buffers.clear()
        agent.reset()
        out.append(agent.best_move(fen) == best)
    return out


def main(args=None):
    """Run with Settings or a list of command-line strings; return {(spec, suite, seconds):
    [bool]}."""
    cfg = cli.settings(Settings, args, prog="boardgym bench tactics", description=__doc__)
    if cfg.full:
        cfg = dataclasses.replace(cfg, **FULL)
    suites = {path: read_tactics(path) for path in cfg.suites}
    for path, suite in suites.items():
        cli.require(len(suite) >= 1, f"--suites: {path!r} holds no position")
    times = ", ".join(f"{t:g}" for t in cfg.times)
    print(
        f"bench tactics: {len(cfg.agents)} engines, {times} s a position, "
        f"suites {', '.join(Path(p).name for p in cfg.suites)}, seed {cfg.seed}",
        flush=True,
    )
    print(
        f"{'T s':>6s} {'suite':28s} {'engine':38s} {'solved':>9s} {'share':>7s} "
        f"{'95% interval':>15s}"
    )
    out = {}
    for seconds in cfg.times:
        for path, suite in suites.items():
            for spec in cfg.agents:
                hits = solved(spec, suite, seconds, cfg.seed)
                out[(spec, path, seconds)] = hits
                k, n = sum(hits), len(hits)
                lo, hi = wilson(k, n)
                print(
                    f"{seconds:6g} {Path(path).name:28s} {spec:38s} {f'{k}/{n}':>9s} "
                    f"{k / n:7.1%} {f'[{100 * lo:.0f}, {100 * hi:.0f}]%':>15s}",
                    flush=True,
                )
    return out


if __name__ == "__main__":
    cli.script_main(main)
