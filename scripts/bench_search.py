"""Speed of the draughts alpha-beta search: nodes/s at fixed depth over seeded midgame positions.

    python scripts/bench_search.py --depth 8 --positions 50

Positions come from seeded random playouts (10..40 plies, game not over). Each is searched by a
fresh AlphaBetaAgent (material evaluation, iterative deepening to --depth); nodes include the
quiescence nodes. The JIT is warmed up before timing; only the searches are timed.
"""
import argparse
import dataclasses
import sys
import time

import numpy as np

from boardgym.agents.draughts_agents import AlphaBetaAgent
from boardgym.envs import draughts as api
from boardgym.kernels.draughts.game import ONGOING


@dataclasses.dataclass
class Settings:
    """Settings of one search benchmark."""

    depth: int = 8
    """search depth in plies"""
    positions: int = 50
    """number of positions"""
    seed: int = 0
    """seed of the random playouts"""
    tt_bits: int = 18
    """log2 of the transposition-table entries"""
    no_tt: bool = False
    """search without the transposition table"""


def parse_args(argv=None):
    """Settings from a command line (list of strings; sys.argv[1:] when None)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in dataclasses.fields(Settings):
        flag = "--" + f.name.replace("_", "-")
        if f.type is bool or f.type == "bool":
            p.add_argument(flag, action="store_true")
        else:
            p.add_argument(flag, type=type(f.default), default=f.default)
    return Settings(**vars(p.parse_args(argv)))


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
    cfg = args if isinstance(args, Settings) else parse_args(args)
    if cfg.depth < 1 or cfg.positions < 1:
        raise ValueError("depth and positions must be positive")
    pos = positions(cfg.positions, cfg.seed)
    AlphaBetaAgent(depth=2, tt_bits=8).search(pos[0], depth=2)  # warm the JIT up
    nodes = qnodes = 0
    depth_sum = 0.0
    dt = 0.0
    for s in pos:
        agent = AlphaBetaAgent(depth=cfg.depth, tt_bits=cfg.tt_bits, use_tt=not cfg.no_tt, seed=0)
        t0 = time.perf_counter()  # the search only, not the allocation of a fresh table
        agent.search(s, depth=cfg.depth)
        dt += time.perf_counter() - t0
        info = agent.last_info
        nodes += info["nodes"]
        qnodes += info["qnodes"]
        depth_sum += info["seldepth"]
    res = {"positions": len(pos), "depth": cfg.depth, "nodes": nodes, "qnodes": qnodes,
           "time": dt, "nps": nodes / dt if dt > 0 else 0.0}
    print(f"depth {cfg.depth}, {len(pos)} positions, TT {'off' if cfg.no_tt else 2**cfg.tt_bits}")
    print(f"nodes {nodes} ({qnodes} quiescence), mean selective depth {depth_sum / len(pos):.1f}")
    print(f"time  {dt:.2f} s ({dt / len(pos) * 1000:.1f} ms per position)")
    print(f"speed {res['nps'] / 1e6:.2f} M nodes/s (1 thread)")
    return res


if __name__ == "__main__":
    main(sys.argv[1:])
