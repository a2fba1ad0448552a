"""Russian draughts perft: leaf count, optional per-root-move divide, time and leaves/s.

    python scripts/perft.py --depth 10
    python scripts/perft.py --fen "W:W21-32:B1-12" --depth 8 --divide --threads 2

Counts one move per distinct (start, end, captured set), bulk counting at the last ply.
The JIT is warmed up (depth 3) before timing.
"""
import argparse
import dataclasses
import sys
import time

from boardgym.envs import draughts

START_FEN = "W:W21-32:B1-12"


@dataclasses.dataclass
class Settings:
    """Settings of one perft run."""

    fen: str = START_FEN
    """position as a PDN FEN (numeric or algebraic squares)"""
    depth: int = 6
    """plies to search"""
    divide: bool = False
    """also print the count below each root move"""
    threads: int = 1
    """threads for the parallel perft (1 = single-threaded)"""


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


def main(args=None):
    """Run perft with Settings or a list of command-line strings; return the leaf count."""
    cfg = args if isinstance(args, Settings) else parse_args(args)
    state = draughts.from_fen(cfg.fen)
    draughts.perft(state, min(cfg.depth, 3), threads=cfg.threads)  # warm the JIT up
    print(f"fen    {draughts.to_fen(state)}")
    t0 = time.perf_counter()
    if cfg.divide and cfg.depth >= 1:
        total = 0
        for move in draughts.legal_moves(state):
            n = draughts.perft(draughts.apply(state, move), cfg.depth - 1, threads=cfg.threads)
            print(f"{move:<24} {n}")
            total += n
    else:
        total = draughts.perft(state, cfg.depth, threads=cfg.threads)
    dt = time.perf_counter() - t0
    print(f"depth  {cfg.depth}")
    print(f"nodes  {total}")
    print(f"time   {dt:.3f} s")
    print(f"speed  {total / dt / 1e6 if dt > 0 else float('inf'):.2f} M leaves/s "
          f"({cfg.threads} thread{'s' if cfg.threads != 1 else ''})")
    return total


if __name__ == "__main__":
    main(sys.argv[1:])
