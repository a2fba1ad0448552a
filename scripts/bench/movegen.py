"""Move-generation benchmark: boardgym against independent references, side by side in one run.

    boardgym bench movegen                       # quick budget, both games
    boardgym bench movegen --full                # the budget BENCHMARKS.md reports
    boardgym bench movegen --game draughts --start-depth 10 --mid-depth 7

Draughts (Russian, boardgym/RULES.md clauses M.*): perft leaves/s from the initial position and from
fixed middlegame positions with kings (boardgym 1 thread and all cores; py-draughts through its
public API Board.legal_moves/push/pop and through its core generator ``CORE_RUSSIAN.gen_moves``
driven by a small ghost-bitboard apply written here), and legal-move generation over
capture-heavy middlegames (positions/s; boardgym's kernel ``gen_moves`` in a jitted loop and the
Python ``legal_moves``, against py-draughts' ``Board.legal_moves`` and its core). The positions
ship with the command (``data/bench_draughts_positions.tsv`` beside this file).
Backgammon: distinct-afterstate generation ((position, roll) cases/s) on the rolls of seeded
random games played through the game core (uniformly random distinct afterstate each turn):
boardgym's kernel ``gen_afterstates_scratch`` in a jitted loop on one thread and in a prange loop
over all cores, the game core's ``plays_of_roll`` with a route per afterstate (one thread),
against ``gnubg_nn.moves`` and, when it imports, gym-backgammon's ``Backgammon.get_valid_plays``.

Peers are optional: a missing one is named with how to install it, and boardgym's own rows are
still measured. Single-thread rates use CPU time (time.process_time); multi-thread rates use wall
time. Every JIT is warmed up before timing. gnubg-nn is GPL-3: used here (a benchmark) only,
never by library code.
"""

import base64
import dataclasses
import importlib.util
import os
import sys
import time
from pathlib import Path
from typing import Literal

import numba
import numpy as np

from boardgym.agents.arena.playouts import backgammon_rolls
from boardgym.kernels.backgammon.loops import (
    count_afterstates,
    count_afterstates_parallel,
    count_plays,
)
from boardgym.kernels.draughts.loops import count_moves
from boardgym.scripts import cli

POSITIONS_FILE = Path(__file__).resolve().parent / "data" / "bench_draughts_positions.tsv"
START_FEN = "W:W21-32:B1-12"

#: optional peers: (name, module to import, how to install, game);
#: `boardgym bench` reports the missing
PEERS = (
    ("py-draughts", "draughts", "pip install py-draughts", "draughts"),
    ("gnubg-nn", "gnubg_nn", "pip install gnubg-nn", "backgammon"),
    ("gym-backgammon", "gym_backgammon", "pip install gym-backgammon", "backgammon"),
)


@dataclasses.dataclass
class Settings:
    """Settings of one benchmark run (defaults: the quick budget; --full: BENCHMARKS.md's)."""

    game: Literal["all", "draughts", "backgammon"] = "all"
    """which game to benchmark"""
    start_depth: int = 9
    """boardgym perft depth from the initial position"""
    mid_depth: int = 7
    """boardgym perft depth from each middlegame position"""
    ref_start_depth: int = 6
    """py-draughts perft depth from the initial position (public API and core)"""
    ref_mid_depth: int = 4
    """py-draughts perft depth from each middlegame position"""
    n_mid: int = 8
    """number of middlegame positions with kings for perft (at most 32)"""
    n_gen: int = 500
    """number of capture-heavy middlegame positions for the legal-move generation rate (at most
    500)"""
    gen_reps: int = 200
    """passes over the generation set for boardgym's kernel loop (references do ref-reps)"""
    ref_reps: int = 2
    """passes over the generation set for py-draughts and boardgym's legal_moves"""
    bg_cases: int = 10000
    """(position, roll) cases from random games for backgammon"""
    bg_reps: int = 8
    """passes over the cases for boardgym's kernel loops (gnubg-nn does a quarter of them, at least
    1)"""
    gym_cases: int = 500
    """cases for gym-backgammon (it is slow)"""
    seed: int = 20261130
    """seed of the random backgammon games"""
    threads: int = 0
    """threads for the multi-core runs (0 = all cores numba sees)"""
    repeats: int = 1
    """timed runs per measurement; the least time is reported"""
    full: bool = False
    """the budget BENCHMARKS.md reports (see FULL in this module); not with other budget flags"""

    def check(self):
        for name in (
            "start_depth",
            "mid_depth",
            "ref_start_depth",
            "ref_mid_depth",
            "n_mid",
            "n_gen",
            "gen_reps",
            "ref_reps",
            "bg_cases",
            "bg_reps",
            "gym_cases",
            "repeats",
        ):
            cli.require(
                getattr(self, name) >= 1,
                f"{cli.flag_name(name)} must be at least 1, got {getattr(self, name)}",
            )
        from boardgym.envs.draughts import MAX_PERFT_DEPTH

        for name in ("start_depth", "mid_depth", "ref_start_depth", "ref_mid_depth"):
            cli.require(
                getattr(self, name) <= MAX_PERFT_DEPTH,
                f"{cli.flag_name(name)} must be at most {MAX_PERFT_DEPTH}, "
                f"got {getattr(self, name)}",
            )
        cli.require(
            self.n_mid <= 32, f"--n-mid must be at most 32 (positions shipped), got {self.n_mid}"
        )
        cli.require(
            self.n_gen <= 500, f"--n-gen must be at most 500 (positions shipped), got {self.n_gen}"
        )
        cli.require(
            0 <= self.threads <= numba.config.NUMBA_NUM_THREADS,
            f"--threads must be in 0..{numba.config.NUMBA_NUM_THREADS}, got {self.threads}",
        )
        if self.full:
            quick = Settings()
            given = [cli.flag_name(k) for k in FULL if getattr(self, k) != getattr(quick, k)]
            cli.require(not given, f"--full sets {', '.join(given)}; give one or the other")


#: the budget of BENCHMARKS.md (``--full``)
FULL = dict(
    start_depth=10,
    mid_depth=8,
    ref_start_depth=7,
    ref_mid_depth=5,
    n_mid=8,
    n_gen=500,
    gen_reps=2000,
    ref_reps=10,
    bg_cases=20000,
    bg_reps=20,
    gym_cases=2000,
    repeats=5,
)


class Table:
    """Rows of (game, task, implementation, threads, work, unit, seconds, rate) printed as a table;
    ``measure`` times a function (best of ``repeats`` runs) and moves the progress bar on."""

    def __init__(self, repeats: int = 1, bar: cli.Progress | None = None):
        self.rows: list[dict] = []
        self.repeats = max(int(repeats), 1)
        self.bar = bar

    def add(self, game, task, impl, threads, work, unit, seconds, clock):
        rate = work / seconds if seconds > 0 else float("inf")
        row = dict(
            game=game,
            task=task,
            impl=impl,
            threads=threads,
            work=work,
            unit=unit,
            seconds=seconds,
            rate=rate,
            clock=clock,
        )
        self.rows.append(row)
        self.say(
            f"  {task:<22} {impl:<36} {threads:>3}  {work:>12,} {unit:<9}"
            f" {seconds:8.3f}s {clock:<4} {rate:>14,.0f} {unit}/s"
        )
        if self.bar is not None:
            self.bar.update(1)
        return rate

    def say(self, line=""):
        """Print a line of the report (clearing the progress bar's line first)."""
        if self.bar is not None and self.bar.enabled:
            self.bar.clear()
        print(line, flush=True)

    def rate(self, task, impl):
        return next(r["rate"] for r in self.rows if r["task"] == task and r["impl"] == impl)

    def ratio(self, label, num, den):
        """Print and return the ratio of two rates (nan when den is 0)."""
        self.say(f"  ratio {label:<58} {num / den:8.1f}x" if den > 0 else f"  ratio {label}: n/a")
        return num / den if den > 0 else float("nan")

    def best(self, fn, clock):
        """Run fn ``repeats`` times; its result and the least time on clock (noise only adds
        time)."""
        best = float("inf")
        for _ in range(self.repeats):
            t = clock()
            out = fn()
            best = min(best, clock() - t)
        return out, best

    def cpu(self, fn):
        return self.best(fn, time.process_time)

    def wall(self, fn):
        return self.best(fn, time.perf_counter)


def _peer(module):
    """The peer's module, or None when it is not installed (``boardgym bench`` says how to
    install)."""
    if importlib.util.find_spec(module) is None:
        return None
    return importlib.import_module(module)


# ============================================================================ draughts


def _pyd_perft(b, depth):
    """Bulk perft through py-draughts' public API."""
    moves = b.legal_moves
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        b.push(m)
        total += _pyd_perft(b, depth - 1)
        b.pop()
    return total


def _make_core_perft():
    """Bulk perft through py-draughts' core generator CORE_RUSSIAN.gen_moves on ghost bitboards."""
    from draughts.boards._core import CORE_RUSSIAN as core

    gen, bit, pw, pb = core.gen_moves, core.geo.BIT, core.geo.PROMO_WHITE, core.geo.PROMO_BLACK

    def perft(wm, wk, bm, bk, white, depth):
        caps, quiets = gen(wm, wk, bm, bk, white, False)
        if depth == 1:
            return len(caps) if caps else len(quiets)
        total = 0
        moves = (
            [(bit[p[0]], bit[p[-1]], c, pr) for p, c, pr in caps]
            if caps
            else [(bit[f], bit[t], (), False) for f, t in quiets]
        )
        for frm, to, cap, promo in moves:
            cm = 0
            for c in cap:
                cm |= bit[c]
            if white:
                if frm & wm:
                    a, b = wm & ~frm, wk
                    if promo or to & pw:
                        b |= to
                    else:
                        a |= to
                else:
                    a, b = wm, (wk & ~frm) | to
                total += perft(a, b, bm & ~cm, bk & ~cm, False, depth - 1)
            else:
                if frm & bm:
                    c_, d_ = bm & ~frm, bk
                    if promo or to & pb:
                        d_ |= to
                    else:
                        c_ |= to
                else:
                    c_, d_ = bm, (bk & ~frm) | to
                total += perft(wm & ~cm, wk & ~cm, c_, d_, True, depth - 1)
        return total

    def from_board(b):
        g = core.to_ghost
        return g(b.white_men), g(b.white_kings), g(b.black_men), g(b.black_kings)

    return perft, from_board, core


def _draughts_sets(n_mid, n_gen):
    """The first n_mid middlegame positions with kings (perft) and the first n_gen capture-heavy
    middlegames (generation) of the shipped position file (py-draughts playouts)."""
    mid, gen = [], []
    for line in POSITIONS_FILE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        kind, fen = line.split("\t")
        if kind == "mid" and len(mid) < n_mid:
            mid.append(fen)
        elif kind == "gen" and len(gen) < n_gen:
            gen.append(fen)
    return mid, gen


def bench_draughts(cfg: Settings, table: Table, threads: int) -> dict:
    """Draughts rows (boardgym always, py-draughts when installed) and their ratios."""
    from boardgym.envs import draughts as dr
    from boardgym.kernels.draughts.movegen import new_move_buffer

    pyd = _peer("draughts")
    peer = "py-draughts" if pyd else "py-draughts not installed: pip install py-draughts"
    table.say(f"\nRussian draughts (boardgym vs {peer}), {threads} threads for multi-core")
    mid, gen = _draughts_sets(cfg.n_mid, cfg.n_gen)
    if pyd:
        from draughts.boards.russian import Board
        from draughts.models import Color

        core_perft, from_board, core = _make_core_perft()
    cpu, wall, r = table.cpu, table.wall, table.rate

    # --- perft from the initial position
    s0 = dr.initial_state()
    dr.perft(s0, 4), dr.perft(s0, 4, threads=threads)  # warm up both kernels
    n, t = cpu(lambda: dr.perft(s0, cfg.start_depth))
    table.add("draughts", "perft start", f"boardgym d{cfg.start_depth}", 1, n, "leaves", t, "cpu")
    n, t = wall(lambda: dr.perft(s0, cfg.start_depth, threads=threads))
    table.add(
        "draughts",
        "perft start",
        f"boardgym d{cfg.start_depth} parallel",
        threads,
        n,
        "leaves",
        t,
        "wall",
    )
    if pyd:
        b0 = Board.from_fen(START_FEN)
        n, t = cpu(lambda: _pyd_perft(b0, cfg.ref_start_depth))
        table.add(
            "draughts",
            "perft start",
            f"py-draughts API d{cfg.ref_start_depth}",
            1,
            n,
            "leaves",
            t,
            "cpu",
        )
        g0 = from_board(b0)
        n, t = cpu(lambda: core_perft(*g0, True, cfg.ref_start_depth))
        table.add(
            "draughts",
            "perft start",
            f"py-draughts core d{cfg.ref_start_depth}",
            1,
            n,
            "leaves",
            t,
            "cpu",
        )

    # --- perft from middlegames with kings
    states = [dr.from_fen(f) for f in mid]
    n, t = cpu(lambda: sum(dr.perft(s, cfg.mid_depth) for s in states))
    table.add(
        "draughts",
        "perft middlegame",
        f"boardgym d{cfg.mid_depth} x{len(mid)}",
        1,
        n,
        "leaves",
        t,
        "cpu",
    )
    n, t = wall(lambda: sum(dr.perft(s, cfg.mid_depth, threads=threads) for s in states))
    table.add(
        "draughts",
        "perft middlegame",
        f"boardgym d{cfg.mid_depth} x{len(mid)} parallel",
        threads,
        n,
        "leaves",
        t,
        "wall",
    )
    if pyd:
        boards = [Board.from_fen(f) for f in mid]
        n, t = cpu(lambda: sum(_pyd_perft(b, cfg.ref_mid_depth) for b in boards))
        table.add(
            "draughts",
            "perft middlegame",
            f"py-draughts API d{cfg.ref_mid_depth} x{len(mid)}",
            1,
            n,
            "leaves",
            t,
            "cpu",
        )
        gs = [(from_board(b), b.turn == Color.WHITE) for b in boards]
        n, t = cpu(lambda: sum(core_perft(*g, w, cfg.ref_mid_depth) for g, w in gs))
        table.add(
            "draughts",
            "perft middlegame",
            f"py-draughts core d{cfg.ref_mid_depth} x{len(mid)}",
            1,
            n,
            "leaves",
            t,
            "cpu",
        )

    # --- legal-move generation over capture-heavy middlegames
    gstates = np.ascontiguousarray(np.stack([dr.from_fen(f) for f in gen]))
    out = new_move_buffer()
    count_moves(gstates[:2], 1, out)  # warm up
    for s in gstates[:2]:
        dr.legal_moves(s)
    reps, rr = cfg.gen_reps, cfg.ref_reps
    n, t = cpu(lambda: count_moves(gstates, reps, out))
    table.add(
        "draughts",
        "legal moves",
        "boardgym kernel gen_moves (jit loop)",
        1,
        len(gen) * reps,
        "positions",
        t,
        "cpu",
    )
    n, t = cpu(lambda: [dr.legal_moves(s) for _ in range(rr) for s in gstates])
    table.add(
        "draughts",
        "legal moves",
        "boardgym legal_moves (state in)",
        1,
        len(gen) * rr,
        "positions",
        t,
        "cpu",
    )
    for f in gen:  # warm up the FEN path (one untimed pass)
        dr.legal_moves(f)
    n, t = cpu(lambda: [dr.legal_moves(f) for _ in range(rr) for f in gen])
    table.add(
        "draughts",
        "legal moves",
        "boardgym legal_moves (FEN in)",
        1,
        len(gen) * rr,
        "positions",
        t,
        "cpu",
    )
    if not pyd:
        return {}
    gboards = [Board.from_fen(f) for f in gen]
    n, t = cpu(lambda: [b.legal_moves for _ in range(rr) for b in gboards])
    table.add(
        "draughts",
        "legal moves",
        "py-draughts Board.legal_moves",
        1,
        len(gen) * rr,
        "positions",
        t,
        "cpu",
    )
    n, t = cpu(lambda: [Board.from_fen(f).legal_moves for _ in range(rr) for f in gen])
    table.add(
        "draughts",
        "legal moves",
        "py-draughts from_fen + legal_moves",
        1,
        len(gen) * rr,
        "positions",
        t,
        "cpu",
    )
    ggs = [(from_board(b), b.turn == Color.WHITE) for b in gboards]
    n, t = cpu(lambda: [core.gen_moves(*g, w, False) for _ in range(rr) for g, w in ggs])
    table.add(
        "draughts",
        "legal moves",
        "py-draughts core gen_moves",
        1,
        len(gen) * rr,
        "positions",
        t,
        "cpu",
    )

    ds, dm, rs, rm, k = (
        cfg.start_depth,
        cfg.mid_depth,
        cfg.ref_start_depth,
        cfg.ref_mid_depth,
        len(mid),
    )
    table.say()
    return {
        "perft_start_vs_api": table.ratio(
            "perft start: boardgym 1 thread / py-draughts API",
            r("perft start", f"boardgym d{ds}"),
            r("perft start", f"py-draughts API d{rs}"),
        ),
        "perft_start_vs_core": table.ratio(
            "perft start: boardgym 1 thread / py-draughts core",
            r("perft start", f"boardgym d{ds}"),
            r("perft start", f"py-draughts core d{rs}"),
        ),
        "perft_start_par_vs_api": table.ratio(
            f"perft start: boardgym {threads} threads / py-draughts API",
            r("perft start", f"boardgym d{ds} parallel"),
            r("perft start", f"py-draughts API d{rs}"),
        ),
        "perft_mid_vs_api": table.ratio(
            "perft middlegame: boardgym 1 thread / py-draughts API",
            r("perft middlegame", f"boardgym d{dm} x{k}"),
            r("perft middlegame", f"py-draughts API d{rm} x{k}"),
        ),
        "perft_mid_vs_core": table.ratio(
            "perft middlegame: boardgym 1 thread / py-draughts core",
            r("perft middlegame", f"boardgym d{dm} x{k}"),
            r("perft middlegame", f"py-draughts core d{rm} x{k}"),
        ),
        "gen_kernel_vs_api": table.ratio(
            "legal moves: boardgym kernel / py-draughts Board.legal_moves",
            r("legal moves", "boardgym kernel gen_moves (jit loop)"),
            r("legal moves", "py-draughts Board.legal_moves"),
        ),
        "gen_kernel_vs_core": table.ratio(
            "legal moves: boardgym kernel / py-draughts core",
            r("legal moves", "boardgym kernel gen_moves (jit loop)"),
            r("legal moves", "py-draughts core gen_moves"),
        ),
        "gen_api_vs_api": table.ratio(
            "legal moves: boardgym legal_moves / py-draughts Board.legal_moves",
            r("legal moves", "boardgym legal_moves (state in)"),
            r("legal moves", "py-draughts Board.legal_moves"),
        ),
        "gen_fen_vs_api": table.ratio(
            "legal moves from a FEN: boardgym / py-draughts from_fen + legal_moves",
            r("legal moves", "boardgym legal_moves (FEN in)"),
            r("legal moves", "py-draughts from_fen + legal_moves"),
        ),
    }


# ============================================================================ backgammon


def _load_gym_backgammon():
    """gym-backgammon's rules class, loaded from its file (its package __init__ needs
    pyglet/gym)."""
    spec = importlib.util.find_spec("gym_backgammon")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "envs" / "backgammon.py"
    if not path.exists():
        return None
    s = importlib.util.spec_from_file_location("_gym_backgammon_rules", path)
    mod = importlib.util.module_from_spec(s)
    s.loader.exec_module(mod)
    return mod


def _gym_state(mod, board):
    """gnubg-style board (opponent, mover) -> gym-backgammon state with the mover as WHITE."""
    opp, me = board
    pts = [(0, None)] * 24
    for i in range(24):  # WHITE moves 23 -> 0, home 0..5: mover's point i + 1 is index i
        if me[i]:
            pts[i] = (me[i], mod.WHITE)
        if opp[i]:
            pts[23 - i] = (opp[i], mod.BLACK)
    g = mod.Backgammon()
    g.board = pts
    g.bar = [me[24], opp[24]]
    g.off = [15 - sum(me), 15 - sum(opp)]
    g.players_positions = g.get_players_positions()
    return g.save_state()


_KEY_TO_HEX = str.maketrans(
    "ABCDEFGHIJKLMNOP", "0123456789abcdef"
)  # gnubg key: a letter per nibble


def _gnubg_play_ids(moves, board, d1, d2):
    """gnubg-nn's plays of a roll as Position IDs: moves() keys turned into IDs by string ops."""
    return [
        base64.b64encode(bytes.fromhex(k.translate(_KEY_TO_HEX))).decode()[:14]
        for k in moves(board, d1, d2)
    ]


def _bench_plays_by_id(gnubg_nn, bgenv, pids, dice, table: Table) -> str:
    """The user's path, Position ID in and IDs of the plays out: boardgym legal_plays against
    gnubg-nn moves() plus the IDs of its plays (checked equal as sets before timing)."""
    cases = [
        (gnubg_nn.board_from_position_id(p), d1, d2) for p, (d1, d2) in zip(pids, dice.tolist())
    ]
    for p, (b, d1, d2) in zip(pids[:200], cases):
        if (sorted(_gnubg_play_ids(gnubg_nn.moves, b, d1, d2)) or [p]) != bgenv.legal_plays(
            p, d1, d2
        ):
            raise AssertionError(f"plays by ID differ from gnubg-nn on {p} {d1}-{d2}")
    moves = gnubg_nn.moves
    _, t = table.cpu(lambda: [_gnubg_play_ids(moves, b, d1, d2) for b, d1, d2 in cases])
    table.add(
        "backgammon",
        "afterstates",
        "gnubg_nn.moves + IDs of the plays",
        1,
        len(cases),
        "cases",
        t,
        "cpu",
    )
    table.say()
    return table.ratio(
        "plays by ID: boardgym legal_plays / gnubg_nn.moves + IDs",
        table.rate("afterstates", "boardgym legal_plays (IDs in and out)"),
        table.rate("afterstates", "gnubg_nn.moves + IDs of the plays"),
    )


def bench_backgammon(cfg: Settings, table: Table, threads: int) -> dict:
    """Backgammon rows (boardgym always, gnubg-nn and gym-backgammon when installed), ratios."""
    from boardgym.envs import backgammon_notation as bgenv
    from boardgym.kernels.backgammon.board import BAR_ME, ME, STATE_LEN
    from boardgym.kernels.backgammon.movegen import (
        MAX_AFTERSTATES,
        MAX_MOVES,
        MV_FIELDS,
        scratch_size,
    )

    gnubg_nn = _peer("gnubg_nn")
    try:
        gym = _load_gym_backgammon()
    except Exception as e:  # noqa: BLE001  (report any import failure, keep benchmarking)
        gym, why = None, f"{type(e).__name__}: {e}"
    else:
        why = "not installed: pip install gym-backgammon"
    peers = [
        "gnubg-nn" if gnubg_nn else "gnubg-nn not installed: pip install gnubg-nn",
        "gym-backgammon" if gym else f"gym-backgammon {why}",
    ]
    table.say(f"\nBackgammon (boardgym vs {', '.join(peers)}), {threads} threads for multi-core")
    states, dice = backgammon_rolls(cfg.bg_cases, cfg.seed)
    n_cases = len(states)
    n_bar = int((states[:, BAR_ME] > 0).sum())
    n_home = int((states[:, ME + 6 : ME + 24].sum(axis=1) + states[:, BAR_ME] == 0).sum())
    table.say(
        f"  {n_cases} rolls of random games (seed {cfg.seed}): {n_bar} on the bar, "
        f"{n_home} bearing off"
    )
    out = np.empty((MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    sc = np.empty(scratch_size(MAX_AFTERSTATES), dtype=np.int64)
    nchunk = max(threads, 1) * 4
    outs = np.empty((nchunk, MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    scs = np.empty((nchunk, scratch_size(MAX_AFTERSTATES)), dtype=np.int64)
    count_afterstates(states[:4], dice[:4], 1, out, sc)  # warm up
    numba.set_num_threads(threads)
    count_afterstates_parallel(states[:8], dice[:8], 1, outs, scs)
    reps, cpu, wall = cfg.bg_reps, table.cpu, table.wall
    _, t = cpu(lambda: count_afterstates(states, dice, reps, out, sc))
    table.add(
        "backgammon",
        "afterstates",
        "boardgym kernel (jit loop)",
        1,
        n_cases * reps,
        "cases",
        t,
        "cpu",
    )
    routes = np.empty((MAX_AFTERSTATES, MAX_MOVES, MV_FIELDS), dtype=np.int64)
    count_plays(states[:4], dice[:4], 1, out, routes)  # warm up
    _, t = cpu(lambda: count_plays(states, dice, reps, out, routes))
    table.add(
        "backgammon",
        "afterstates",
        "boardgym plays+routes (jit loop)",
        1,
        n_cases * reps,
        "cases",
        t,
        "cpu",
    )
    _, t = wall(lambda: count_afterstates_parallel(states, dice, reps, outs, scs))
    table.add(
        "backgammon",
        "afterstates",
        "boardgym kernel (prange loop)",
        threads,
        n_cases * reps,
        "cases",
        t,
        "wall",
    )
    pids = [bgenv.position_id(x) for x in states[:2000]]
    for p, (d1, d2) in zip(pids, dice.tolist()):  # warm up: one untimed pass over the cases
        bgenv.legal_plays(p, d1, d2)
    _, t = cpu(lambda: [bgenv.legal_plays(p, d1, d2) for p, (d1, d2) in zip(pids, dice.tolist())])
    table.add(
        "backgammon",
        "afterstates",
        "boardgym legal_plays (IDs in and out)",
        1,
        len(pids),
        "cases",
        t,
        "cpu",
    )
    ratios = {}
    rate = table.rate
    boards = [bgenv.board_from_state(x) for x in states]
    cases = [(b, d1, d2) for b, (d1, d2) in zip(boards, dice.tolist())]
    if gnubg_nn:
        moves = gnubg_nn.moves
        greps = max(reps // 4, 1)

        def run_gnubg():
            for _ in range(greps):
                for b, d1, d2 in cases:
                    moves(b, d1, d2)

        _, t = cpu(run_gnubg)
        table.add(
            "backgammon", "afterstates", "gnubg_nn.moves", 1, n_cases * greps, "cases", t, "cpu"
        )
        table.say()
        ratios["bg_kernel_vs_gnubg"] = table.ratio(
            "afterstates: boardgym kernel 1 thread / gnubg_nn.moves",
            rate("afterstates", "boardgym kernel (jit loop)"),
            rate("afterstates", "gnubg_nn.moves"),
        )
        ratios["bg_par_vs_gnubg"] = table.ratio(
            f"afterstates: boardgym kernel {threads} threads / gnubg_nn.moves",
            rate("afterstates", "boardgym kernel (prange loop)"),
            rate("afterstates", "gnubg_nn.moves"),
        )
        ratios["bg_legal_plays_vs_gnubg_ids"] = _bench_plays_by_id(
            gnubg_nn, bgenv, pids, dice, table
        )
    if gym is None:
        return ratios
    gcases = cases[: cfg.gym_cases]
    gstates = [_gym_state(gym, b) for b, _, _ in gcases]
    g = gym.Backgammon()

    def run_gym():
        for st, (_, d1, d2) in zip(gstates, gcases):
            g.restore_state(st)
            g.get_valid_plays(gym.WHITE, (d1, d2))

    _, t = cpu(run_gym)
    table.add(
        "backgammon",
        "afterstates",
        "gym-backgammon get_valid_plays",
        1,
        len(gcases),
        "cases",
        t,
        "cpu",
    )
    ratios["bg_kernel_vs_gym"] = table.ratio(
        "afterstates: boardgym kernel 1 thread / gym-backgammon",
        rate("afterstates", "boardgym kernel (jit loop)"),
        rate("afterstates", "gym-backgammon get_valid_plays"),
    )
    return ratios


# ============================================================================ main


def main(args=None) -> dict:
    """Run the benchmark with Settings or a list of command-line strings; return rows and ratios."""
    cfg = cli.settings(Settings, args, prog="boardgym bench movegen", description=__doc__)
    if cfg.full:
        cfg = dataclasses.replace(cfg, **FULL)
    threads = cfg.threads or numba.config.NUMBA_NUM_THREADS
    games = ("draughts", "backgammon") if cfg.game == "all" else (cfg.game,)
    have = {name: importlib.util.find_spec(mod) is not None for name, mod, _, _ in PEERS}
    rows = {
        "draughts": 6 + 6 * have["py-draughts"],
        "backgammon": 4 + have["gnubg-nn"] + have["gym-backgammon"],
    }
    with cli.Progress(sum(rows[g] for g in games), label="movegen", unit="rows") as bar:
        table = Table(cfg.repeats, bar)
        table.say(
            f"bench movegen: cpus={os.cpu_count()} numba threads={threads}"
            f" numba {numba.__version__} python {sys.version.split()[0]};"
            f" best of {cfg.repeats} run(s) per row"
        )
        table.say(
            f"  {'task':<22} {'implementation':<36} {'thr':>3}  {'work':>12} {'':<9}"
            f" {'time':>9} {'clk':<4} {'rate':>14}"
        )
        ratios = {}
        if "draughts" in games:
            ratios.update(bench_draughts(cfg, table, threads))
        if "backgammon" in games:
            ratios.update(bench_backgammon(cfg, table, threads))
    return {"rows": table.rows, "ratios": ratios}


if __name__ == "__main__":
    cli.script_main(main)
