"""Speed of the draughts alpha-beta search: nodes/s at fixed depth over seeded midgame positions.

    boardgym bench search                          # quick budget: depth 8, 20 positions
    boardgym bench search --depth 8 --positions 50  # BENCHMARKS.md (also: --full)
    boardgym bench search --depth 8 --positions 50 --no-tt

Positions come from seeded random playouts (10..40 plies, game not over). Each is searched by a
fresh AlphaBetaAgent (material evaluation, iterative deepening to --depth); nodes include the
quiescence nodes. The JIT is warmed up before timing; only the searches are timed. No peer: the
figure is boardgym's own (BENCHMARKS.md compares it across versions).
"""
import dataclasses
import time

import numpy as np

from boardgym.agents.draughts_agents import AlphaBetaAgent
from boardgym.agents.draughts_search import MAX_PLY
from boardgym.envs import draughts as api
from boardgym.kernels.draughts.game import ONGOING
from boardgym.scripts import cli

#: optional peers (name, module, how to install, game): none, the search is compared with itself
PEERS = ()


@dataclasses.dataclass
class Settings:
    """Settings of one search benchmark (defaults: the quick budget; --full: BENCHMARKS.md's)."""

    depth: int = 8
    """search depth in plies"""
    positions: int = 20
    """number of positions"""
    seed: int = 0
    """seed of the random playouts"""
    tt_bits: int = 18
    """log2 of the transposition-table entries"""
    no_tt: bool = False
    """search without the transposition table"""
    full: bool = False
    """the budget BENCHMARKS.md reports (50 positions at depth 8); not with --depth or --positions"""

    def check(self):
        cli.require(1 <= self.depth <= MAX_PLY - 2, f"--depth must be in 1..{MAX_PLY - 2}, got {self.depth}")
        cli.require(self.positions >= 1, f"--positions must be at least 1, got {self.positions}")
        cli.require(4 <= self.tt_bits <= 28, f"--tt-bits must be in 4..28, got {self.tt_bits}")
        cli.require(self.seed >= 0, f"--seed must be at least 0, got {self.seed}")
        if self.full:
            given = [f"--{k}" for k in FULL if getattr(self, k) != getattr(Settings, k)]
            cli.require(not given, f"--full sets {', '.join(given)}; give one or the other")


#: the budget of BENCHMARKS.md (``--full``)
FULL = dict(depth=8, positions=50)


def positions(n, seed):
    """n seeded random-playout positions (game not over)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        s = api.initial_state()
        for _ in range(int(rng.integers(10, 41))):
            if api.game_status(s) != ONGOING:
                break
            s = api.apply(s, str(rng.choice(api.legal_moves(s))))
        if api.game_status(s) == ONGOING:
            out.append(s)
    return out


def main(args=None):
    """Run with Settings or a list of command-line strings; return a dict of totals."""
    cfg = cli.settings(Settings, args, prog="boardgym bench search", description=__doc__)
    if cfg.full:
        cfg = dataclasses.replace(cfg, **FULL)
    pos = positions(cfg.positions, cfg.seed)
    AlphaBetaAgent(depth=2, tt_bits=8).search(pos[0], depth=2)  # warm the JIT up
    nodes = qnodes = 0
    depth_sum = 0.0
    dt = 0.0
    with cli.Progress(len(pos), label="search", unit="positions") as bar:
        for s in pos:
            agent = AlphaBetaAgent(depth=cfg.depth, tt_bits=cfg.tt_bits, use_tt=not cfg.no_tt, seed=0)
            t0 = time.perf_counter()  # the search only, not the allocation of a fresh table
            agent.search(s, depth=cfg.depth)
            dt += time.perf_counter() - t0
            info = agent.last_info
            nodes += info["nodes"]
            qnodes += info["qnodes"]
            depth_sum += info["seldepth"]
            bar.update(1)
    res = {"positions": len(pos), "depth": cfg.depth, "nodes": nodes, "qnodes": qnodes,
           "time": dt, "nps": nodes / dt if dt > 0 else 0.0}
    print(f"bench search: depth {cfg.depth}, {len(pos)} positions, TT {'off' if cfg.no_tt else 2**cfg.tt_bits}")
    print(f"nodes {nodes} ({qnodes} quiescence), mean selective depth {depth_sum / len(pos):.1f}")
    print(f"time  {dt:.2f} s ({dt / len(pos) * 1000:.1f} ms per position)")
    print(f"speed {res['nps'] / 1e6:.2f} M nodes/s (1 thread)")
    return res


if __name__ == "__main__":
    cli.script_main(main)
