"""Russian draughts perft: leaf count, optional per-root-move divide, time and leaves/s.

    boardgym perft --depth 10
    boardgym perft --fen "W:W21-32:B1-12" --depth 8 --divide --threads 2

Counts one move per distinct (start, end, captured set), bulk counting at the last ply.
The JIT is warmed up (depth 3) before timing. On a terminal, a progress bar over the root moves
is drawn for ``--divide`` and for any perft of depth 10 or more (then counted as one perft per
root move: the same total); otherwise nothing goes to stderr.
"""

import dataclasses
import time

from boardgym.envs import draughts
from boardgym.scripts import cli

START_FEN = "W:W21-32:B1-12"
BAR_DEPTH = 10  # from this depth on, a terminal shows a progress bar over the root moves


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

    def check(self):
        cli.require(
            0 <= self.depth <= draughts.MAX_PERFT_DEPTH,
            f"--depth must be in 0..{draughts.MAX_PERFT_DEPTH}, got {self.depth}",
        )
        cli.require(self.threads >= 1, f"--threads must be at least 1, got {self.threads}")
        try:
            draughts.from_fen(self.fen)
        except (ValueError, TypeError) as e:
            raise cli.UsageError(f"--fen: {e}") from None


def main(args=None):
    """Run perft with Settings or a list of command-line strings; return the leaf count."""
    cfg = cli.settings(Settings, args, prog="boardgym perft", description=__doc__)
    state = draughts.from_fen(cfg.fen)
    draughts.perft(state, min(cfg.depth, 3), threads=cfg.threads)  # warm the JIT up
    print(f"fen    {draughts.to_fen(state)}")
    t0 = time.perf_counter()
    if cfg.divide and cfg.depth >= 1:
        total = 0
        moves = draughts.legal_moves(state)
        with cli.Progress(len(moves), label="root moves") as bar:
            for move in moves:
                n = draughts.perft(draughts.apply(state, move), cfg.depth - 1, threads=cfg.threads)
                bar.clear()
                print(f"{move:<24} {n}", flush=True)
                total += n
                bar.update(1)
    else:
        moves = draughts.legal_moves(state) if cfg.depth >= BAR_DEPTH else []
        bar = cli.Progress(len(moves), label="root moves")
        if bar.enabled and moves:  # on a terminal: one perft per root move, the bar moving on
            total = 0
            with bar:
                for move in moves:
                    total += draughts.perft(
                        draughts.apply(state, move), cfg.depth - 1, threads=cfg.threads
                    )
                    bar.update(1)
        else:
            total = draughts.perft(state, cfg.depth, threads=cfg.threads)
    dt = time.perf_counter() - t0
    print(f"depth  {cfg.depth}")
    print(f"nodes  {total}")
    print(f"time   {dt:.3f} s")
    print(
        f"speed  {total / dt / 1e6 if dt > 0 else float('inf'):.2f} M leaves/s "
        f"({cfg.threads} thread{'s' if cfg.threads != 1 else ''})"
    )
    return total


if __name__ == "__main__":
    cli.script_main(main)
