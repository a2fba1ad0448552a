"""Speed of the draughts alpha-beta search: nodes/s at fixed depth over seeded midgame positions.

    boardgym bench search                          # quick budget: depth 8, 20 positions
    boardgym bench search --depth 8 --positions 50  # BENCHMARKS.md (also: --full)
    boardgym bench search --depth 8 --positions 50 --no-tt
    boardgym bench search --agent draughts-alphabeta --time 0.1 --positions 50   # depth in 100 ms

Positions come from seeded random playouts (10..40 plies, game not over). Each is searched by a
fresh agent (``--agent``, a registry spec: by default material alpha-beta), iterating to
--depth, or for --time seconds when given (then the mean depth reached is the figure, over
positions with at least two legal moves); nodes include the quiescence nodes. The JIT is warmed
up before timing; only the searches are timed.
No peer: the figure is boardgym's own (BENCHMARKS.md compares it across versions).
"""

import dataclasses
import time

from boardgym.agents.arena.playouts import draughts_positions
from boardgym.agents.draughts.search import MAX_PLY
from boardgym.agents.registry import load, parse_spec
from boardgym.scripts import cli

#: optional peers (name, module, how to install, game): none, the search is compared with itself
PEERS = ()
#: the registry names of the alpha-beta searchers
SEARCHERS = (
    "draughts-alphabeta",
    "draughts-alphabeta-2026",
    "draughts-alphabeta-material",
    "draughts-alphabeta-td",
)


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
    """the budget BENCHMARKS.md reports (50 positions at depth 8); not with --depth or
    --positions"""
    agent: str = "draughts-alphabeta-material"
    """the searcher, a registry spec name:key=value,... (draughts-alphabeta: the learned
    evaluation)"""
    time: float = 0.0
    """seconds per position (0: search to --depth); with a time, the mean depth reached is
    reported"""

    def check(self):
        cli.require(
            self.time >= 0, f"--time must be 0 or a positive number of seconds, got {self.time}"
        )
        try:
            name, opts = parse_spec(self.agent)
        except ValueError as e:
            raise cli.UsageError(f"--agent: {e}") from None
        cli.require(
            name in SEARCHERS,
            f"--agent must be an alpha-beta searcher ({', '.join(SEARCHERS)}), got {name!r}",
        )
        fixed = {"depth", "time_limit", "tt_bits", "use_tt", "seed"} & set(opts)
        cli.require(
            not fixed,
            f"--agent: set {', '.join(sorted(fixed))} with the bench's own "
            f"options (--depth, --time, --tt-bits, --no-tt)",
        )
        cli.require(
            1 <= self.depth <= MAX_PLY - 2, f"--depth must be in 1..{MAX_PLY - 2}, got {self.depth}"
        )
        cli.require(self.positions >= 1, f"--positions must be at least 1, got {self.positions}")
        cli.require(4 <= self.tt_bits <= 28, f"--tt-bits must be in 4..28, got {self.tt_bits}")
        cli.require(self.seed >= 0, f"--seed must be at least 0, got {self.seed}")
        if self.full:
            given = [f"--{k}" for k in FULL if getattr(self, k) != getattr(Settings, k)]
            cli.require(not given, f"--full sets {', '.join(given)}; give one or the other")


#: the budget of BENCHMARKS.md (``--full``)
FULL = dict(depth=8, positions=50)


#: the seeded positions: 10..40 random whole moves from the start (drawn from the sorted PDN
#: strings), the game going on
PLAYOUTS = dict(plies=(10, 40), order="pdn")


def main(args=None):
    """Run with Settings or a list of command-line strings; return a dict of totals."""
    cfg = cli.settings(Settings, args, prog="boardgym bench search", description=__doc__)
    if cfg.full:
        cfg = dataclasses.replace(cfg, **FULL)
    name, opts = parse_spec(cfg.agent)
    timed = cfg.time > 0
    # a timed search of a forced move returns at once: those positions are left out
    pos = draughts_positions(cfg.positions, cfg.seed, min_moves=2 if timed else 1, **PLAYOUTS)

    def make():
        return load(
            name,
            game="draughts",
            depth=None if timed else cfg.depth,
            time_limit=cfg.time if timed else None,
            tt_bits=cfg.tt_bits,
            use_tt=not cfg.no_tt,
            seed=0,
            **opts,
        )

    warm = make()
    warm.search(pos[0], depth=2)  # warm the JIT up (and the time control's clock)
    if timed:
        warm.search(pos[0])
    nodes = qnodes = helper_nodes = 0
    depth_sum = sel_sum = 0.0
    dt = 0.0
    with cli.Progress(len(pos), label="search", unit="positions") as bar:
        for s in pos:
            agent = make()
            t0 = time.perf_counter()  # the search only, not the allocation of a fresh table
            agent.search(s, depth=None if timed else cfg.depth)
            dt += time.perf_counter() - t0
            info = agent.last_info
            nodes += info["nodes"]
            qnodes += info["qnodes"]
            helper_nodes += info.get("helper_nodes", 0)
            depth_sum += info["depth"]
            sel_sum += info["seldepth"]
            bar.update(1)
    res = {
        "positions": len(pos),
        "depth": cfg.depth,
        "nodes": nodes,
        "qnodes": qnodes,
        "time": dt,
        "nps": nodes / dt if dt > 0 else 0.0,
        "mean_depth": depth_sum / len(pos),
        "helper_nodes": helper_nodes,
        "threads": getattr(warm, "threads", 1),
    }
    limit = f"{cfg.time:g} s per position" if timed else f"depth {cfg.depth}"
    print(
        f"bench search: {cfg.agent}, {limit}, {len(pos)} positions, "
        f"TT {'off' if cfg.no_tt else 2**cfg.tt_bits}"
    )
    print(
        f"nodes {nodes} ({qnodes} quiescence), mean depth {depth_sum / len(pos):.2f}, "
        f"mean selective depth {sel_sum / len(pos):.1f}"
    )
    print(f"time  {dt:.2f} s ({dt / len(pos) * 1000:.1f} ms per position)")
    if res["threads"] > 1:
        total = (nodes + helper_nodes) / dt if dt > 0 else 0.0
        print(
            f"speed {res['nps'] / 1e6:.2f} M nodes/s (the main thread), {total / 1e6:.2f} M "
            f"nodes/s (all {res['threads']} threads)"
        )
    else:
        print(f"speed {res['nps'] / 1e6:.2f} M nodes/s (1 thread)")
    return res


if __name__ == "__main__":
    cli.script_main(main)
