"""Russian draughts endgame tables: build them, probe a position, list what is there.

    boardgym egdb build
    boardgym egdb build --pieces 4 --dir /data/egdb
    boardgym egdb probe W:WK1,K2,K3:BK30
    boardgym egdb info

``build`` solves every material signature of 2..PIECES pieces by retrograde analysis and writes
one file per signature into the directory (``--dir``, else ``$BOARDGYM_EGDB``, else
``~/.local/share/boardgym/egdb``); signatures whose files exist are loaded, not solved again,
so an interrupted build resumes. ``probe`` prints the value of a FEN for the side to move (win /
draw / loss and the plies to the next capture or crowning, draw counters at zero) and the value of
each legal move for the side to move. The values honour the draw rules (the king-move counts,
``boardgym rules --clause G.2``); what exactly they mean is in the docstring of
``boardgym.kernels.draughts.egdb``.
"""

import dataclasses
import os
import time
from typing import Literal

import numpy as np

from boardgym.agents.draughts import egdb as draughts_egdb
from boardgym.envs import draughts as api
from boardgym.kernels.draughts import egdb as K
from boardgym.scripts import cli


@dataclasses.dataclass
class Settings:
    """What to do with the endgame tables."""

    action: Literal["build", "probe", "info"] = dataclasses.field(metadata={"positional": True})
    """build the tables, probe a FEN, or list the tables in the directory"""
    fen: str | None = dataclasses.field(default=None, metadata={"positional": True})
    """probe: the position, a FEN such as W:WK1,K2,K3:BK30"""
    pieces: int = 5
    """build: every ending of 2 up to this many pieces (6: ~43 min of CPU on one core, ~3.7 GB
    of memory, 393 MB on disk, and 2.7 GB in the memory of each engine that loads them; 5: ~1.5
    min of CPU, ~420 MB of memory, 25 MB on disk; 4: seconds)"""
    dir: str | None = None
    """the tables' directory (none: $BOARDGYM_EGDB, else ~/.local/share/boardgym/egdb)"""
    verify: bool = False
    """build: check every table against its children after solving (6 pieces: ~29 min of CPU
    more)"""

    def check(self):
        cli.require(2 <= self.pieces <= 6, f"--pieces must be in 2..6, got {self.pieces}")
        cli.require(
            self.action == "probe" or self.fen is None,
            f"a FEN is only given to probe, not to {self.action}",
        )
        cli.require(
            self.action != "probe" or self.fen is not None,
            "probe needs a FEN, e.g. boardgym egdb probe W:WK1,K2,K3:BK30",
        )


def _describe(res, t):
    if res in ("win", "loss"):
        return f"{res} in {t} plies to the next capture, crowning or the end"
    return res


def _build(cfg):
    directory = cfg.dir or draughts_egdb.default_dir()
    groups = draughts_egdb.signatures(cfg.pieces)
    total = sum(int(K.sig_layers(*s)) * int(K.sig_size(*s)) for g in groups for s in g)
    print(
        f"building endgame tables of 2..{cfg.pieces} pieces in {directory} "
        f"({len(groups)} signature groups, {total} entries)"
    )
    t0 = time.perf_counter()
    with cli.Progress(total, label="egdb", unit="entries") as bar:
        tables = draughts_egdb.build(
            cfg.pieces, directory, progress=lambda d, n: bar.set(d), log=bar.print
        )
    seconds = time.perf_counter() - t0
    bad = 0
    if cfg.verify:
        buf = np.zeros(8, dtype=np.int64)
        t1 = time.perf_counter()
        for g in groups:
            for s in g:
                t2 = time.perf_counter()
                k = K.verify_table(*s, tables.data, tables.offsets, tables.layers, buf)
                name = "{}{}{}{}".format(*s)
                if k:
                    print(f"{name}: {k} entries disagree with their children", flush=True)
                elif sum(s) == cfg.pieces:
                    print(f"{name}: verified in {time.perf_counter() - t2:.1f} s", flush=True)
                bad += k
        print(f"verified: {bad} mismatches in {time.perf_counter() - t1:.1f} s")
    size = sum(os.path.getsize(draughts_egdb.table_path(directory, s)) for g in groups for s in g)
    print(f"done in {seconds:.1f} s; {size / 1e6:.1f} MB in {directory}")
    return {
        "directory": directory,
        "seconds": seconds,
        "entries": total,
        "bytes": size,
        "mismatches": bad,
    }


def _probe(cfg):
    state = api.from_fen(cfg.fen)
    n_pieces = sum(bin(int(x)).count("1") for x in state[:4])
    tables = draughts_egdb.load(cfg.dir)
    if n_pieces > tables.max_pieces:
        raise ValueError(
            f"the position has {n_pieces} pieces; the tables in "
            f"{cfg.dir or draughts_egdb.default_dir()} go up to "
            f"{tables.max_pieces} (boardgym egdb build --pieces {n_pieces})"
        )
    res, t = draughts_egdb.probe_state(tables, state)
    side = "White" if state[4] == 0 else "Black"
    print(f"{api.to_fen(state)}: {side} to move: {_describe(res, t)}")
    moves = draughts_egdb.probe_moves(tables, state)
    mover = {"win": "loss", "loss": "win"}  # probe_moves gives the opponent's view
    for move, (r, mt) in moves.items():
        value = mover.get(r, r)
        then = f" (then {mt} plies to the next capture, crowning or the end)" if r in mover else ""
        print(f"  {move}: {value} for {side}{then}")
    return {"result": res, "t": t, "moves": moves}


def _info(cfg):
    directory = cfg.dir or draughts_egdb.default_dir()
    rows = []
    for p in range(2, 7):
        for g in draughts_egdb.signatures(p):
            for s in g:
                path = draughts_egdb.table_path(directory, s)
                if os.path.exists(path) and sum(s) == p:
                    rows.append(("{}{}{}{}".format(*s), os.path.getsize(path)))
    print(f"{directory}: {len(rows)} tables, {sum(b for _, b in rows) / 1e6:.1f} MB")
    try:
        print(f"complete up to {draughts_egdb.load(directory).max_pieces} pieces")
    except FileNotFoundError:
        print("no complete set (boardgym egdb build)")
    return rows


def main(args=None):
    """Run one egdb action; returns what it printed, as data."""
    cfg = cli.settings(Settings, args, prog="boardgym egdb", description=__doc__)
    if cfg.action == "build":
        return _build(cfg)
    if cfg.action == "probe":
        return _probe(cfg)
    return _info(cfg)


if __name__ == "__main__":
    cli.script_main(main)
