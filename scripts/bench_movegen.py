"""Move-generation benchmark: boardgym against independent references, side by side in one run.

    python scripts/bench_movegen.py --game all
    python scripts/bench_movegen.py --game draughts --start-depth 10 --mid-depth 7
    python scripts/bench_movegen.py --game backgammon --bg-cases 20000

Draughts (Russian): perft leaves/s from the initial position and from a fixed set of middlegame
positions with kings (boardgym 1 thread and all cores; py-draughts 1.10.1 through its public API
Board.legal_moves/push/pop and through its core generator ``CORE_RUSSIAN.gen_moves`` driven by a
small ghost-bitboard apply written here), and legal-move generation over a capture-heavy
middlegame set (positions/s; boardgym's kernel ``gen_moves`` in a jitted loop and the Python
``legal_moves``, against py-draughts' ``Board.legal_moves`` and its core).
Backgammon: distinct-afterstate generation ((position, roll) cases/s) on cases from seeded random
games driven by gnubg-nn: boardgym's kernel ``gen_afterstates_scratch`` in a jitted loop on one
thread and in a prange loop over all cores, the game core's ``plays_of_roll`` with a route per
afterstate (one thread), against ``gnubg_nn.moves`` and, when it imports,
gym-backgammon's ``Backgammon.get_valid_plays``.

Single-thread rates use CPU time (time.process_time); multi-thread rates use wall time. Every
JIT is warmed up before timing. gnubg-nn is GPL-3: used here (a benchmark) only, never by library code.
"""

import argparse
import dataclasses
import importlib.util
import os
import random
import sys
import time
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange

from boardgym.kernels.backgammon.game import plays_of_roll
from boardgym.kernels.backgammon.movegen import gen_afterstates_scratch
from boardgym.kernels.draughts.game import gen_moves

ROOT = Path(__file__).resolve().parents[1]
POSITIONS_FILE = ROOT / "tests" / "data" / "draughts_oracle_positions.tsv"
START_FEN = "W:W21-32:B1-12"


@dataclasses.dataclass
class Settings:
    """Settings of one benchmark run."""

    game: str = "all"
    """draughts, backgammon or all"""
    start_depth: int = 10
    """boardgym perft depth from the initial position"""
    mid_depth: int = 8
    """boardgym perft depth from each middlegame position"""
    ref_start_depth: int = 7
    """py-draughts perft depth from the initial position (public API and core)"""
    ref_mid_depth: int = 5
    """py-draughts perft depth from each middlegame position"""
    n_mid: int = 8
    """number of middlegame positions with kings for perft"""
    n_gen: int = 500
    """number of capture-heavy middlegame positions for the legal-move generation rate"""
    gen_reps: int = 2000
    """passes over the generation set for boardgym's kernel loop (references do fewer, see ref_reps)"""
    ref_reps: int = 10
    """passes over the generation set for py-draughts and boardgym's legal_moves"""
    bg_cases: int = 20000
    """(position, roll) cases from random games for backgammon"""
    bg_reps: int = 20
    """passes over the cases for boardgym's kernel loops (gnubg-nn does a quarter of them)"""
    gym_cases: int = 2000
    """cases for gym-backgammon (it is slow)"""
    seed: int = 20261130
    """seed of the random backgammon games"""
    threads: int = 0
    """threads for the multi-core runs (0 = all cores numba sees)"""
    repeats: int = 5
    """timed runs per measurement; the least time is reported"""


def parse_args(argv=None) -> Settings:
    """Settings from a command line (list of strings; sys.argv[1:] when None)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in dataclasses.fields(Settings):
        p.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    return Settings(**vars(p.parse_args(argv)))


class Table:
    """Rows of (game, task, implementation, threads, work, unit, seconds, rate) printed as a table."""

    def __init__(self):
        self.rows: list[dict] = []

    def add(self, game, task, impl, threads, work, unit, seconds, clock):
        rate = work / seconds if seconds > 0 else float("inf")
        row = dict(game=game, task=task, impl=impl, threads=threads, work=work, unit=unit,
                   seconds=seconds, rate=rate, clock=clock)
        self.rows.append(row)
        print(f"  {task:<22} {impl:<34} {threads:>3}  {work:>12,} {unit:<9} {seconds:8.3f}s {clock:<4}"
              f" {rate:>14,.0f} {unit}/s", flush=True)
        return rate

    def rate(self, task, impl):
        return next(r["rate"] for r in self.rows if r["task"] == task and r["impl"] == impl)


def _ratio_line(label, num, den):
    print(f"  ratio {label:<58} {num / den:8.1f}x" if den > 0 else f"  ratio {label}: n/a")
    return num / den if den > 0 else float("nan")


REPEATS = 5  # set from Settings.repeats by main


def _best(fn, clock):
    """Run fn REPEATS times; return its result and the least time on clock (noise only adds time)."""
    best = float("inf")
    for _ in range(max(REPEATS, 1)):
        t = clock()
        out = fn()
        best = min(best, clock() - t)
    return out, best


def _cpu(fn):
    return _best(fn, time.process_time)


def _wall(fn):
    return _best(fn, time.perf_counter)


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
        moves = [(bit[p[0]], bit[p[-1]], c, pr) for p, c, pr in caps] if caps else \
            [(bit[f], bit[t], (), False) for f, t in quiets]
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
    """Fixed middlegame positions with kings (perft) and capture-heavy middlegames (generation),
    taken in file order from tests/data/draughts_oracle_positions.tsv (py-draughts playouts)."""
    mid, gen = [], []
    for line in POSITIONS_FILE.read_text().splitlines():
        fen, tags = line.split("\t")[:2]
        n_pieces = fen.count(",") + 2
        tags = set(tags.split(","))
        if "kings" in tags and "nomove" not in tags and n_pieces >= 12 and len(mid) < n_mid:
            mid.append(fen)
        if "cap" in tags and n_pieces >= 10 and len(gen) < n_gen:
            gen.append(fen)
    return mid, gen


@njit
def _bg_gen_loop(states, reps, out):
    """Sum of legal-move counts of every state, reps times (boardgym draughts kernel gen_moves)."""
    total = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            total += gen_moves(states[i], out)
    return total


def bench_draughts(cfg: Settings, table: Table, threads: int) -> dict:
    from draughts.boards.russian import Board
    from draughts.models import Color

    from boardgym.envs import draughts as dr

    print(f"\nRussian draughts (boardgym vs py-draughts), {threads} threads for multi-core")
    mid, gen = _draughts_sets(cfg.n_mid, cfg.n_gen)
    core_perft, from_board, core = _make_core_perft()
    ratios = {}

    # --- perft from the initial position
    s0 = dr.initial_state()
    dr.perft(s0, 4), dr.perft(s0, 4, threads=threads)  # warm up both kernels
    n, t = _cpu(lambda: dr.perft(s0, cfg.start_depth))
    table.add("draughts", "perft start", f"boardgym d{cfg.start_depth}", 1, n, "leaves", t, "cpu")
    n, t = _wall(lambda: dr.perft(s0, cfg.start_depth, threads=threads))
    table.add("draughts", "perft start", f"boardgym d{cfg.start_depth} parallel", threads, n, "leaves", t, "wall")
    b0 = Board.from_fen(START_FEN)
    n, t = _cpu(lambda: _pyd_perft(b0, cfg.ref_start_depth))
    table.add("draughts", "perft start", f"py-draughts API d{cfg.ref_start_depth}", 1, n, "leaves", t, "cpu")
    g0 = from_board(b0)
    n, t = _cpu(lambda: core_perft(*g0, True, cfg.ref_start_depth))
    table.add("draughts", "perft start", f"py-draughts core d{cfg.ref_start_depth}", 1, n, "leaves", t, "cpu")

    # --- perft from middlegames with kings
    states = [dr.from_fen(f) for f in mid]
    boards = [Board.from_fen(f) for f in mid]
    n, t = _cpu(lambda: sum(dr.perft(s, cfg.mid_depth) for s in states))
    table.add("draughts", "perft middlegame", f"boardgym d{cfg.mid_depth} x{len(mid)}", 1, n, "leaves", t, "cpu")
    n, t = _wall(lambda: sum(dr.perft(s, cfg.mid_depth, threads=threads) for s in states))
    table.add("draughts", "perft middlegame", f"boardgym d{cfg.mid_depth} x{len(mid)} parallel", threads, n,
              "leaves", t, "wall")
    n, t = _cpu(lambda: sum(_pyd_perft(b, cfg.ref_mid_depth) for b in boards))
    table.add("draughts", "perft middlegame", f"py-draughts API d{cfg.ref_mid_depth} x{len(mid)}", 1, n,
              "leaves", t, "cpu")
    gs = [(from_board(b), b.turn == Color.WHITE) for b in boards]
    n, t = _cpu(lambda: sum(core_perft(*g, w, cfg.ref_mid_depth) for g, w in gs))
    table.add("draughts", "perft middlegame", f"py-draughts core d{cfg.ref_mid_depth} x{len(mid)}", 1, n,
              "leaves", t, "cpu")

    # --- legal-move generation over capture-heavy middlegames
    gstates = np.ascontiguousarray(np.stack([dr.from_fen(f) for f in gen]))
    gboards = [Board.from_fen(f) for f in gen]
    from boardgym.kernels.draughts.movegen import new_move_buffer

    out = new_move_buffer()
    _bg_gen_loop(gstates[:2], 1, out)  # warm up
    for s in gstates[:2]:
        dr.legal_moves(s)
    reps = cfg.gen_reps
    n, t = _cpu(lambda: _bg_gen_loop(gstates, reps, out))
    table.add("draughts", "legal moves", "boardgym kernel gen_moves (jit loop)", 1, len(gen) * reps,
              "positions", t, "cpu")
    rr = cfg.ref_reps
    n, t = _cpu(lambda: [dr.legal_moves(s) for _ in range(rr) for s in gstates])
    table.add("draughts", "legal moves", "boardgym legal_moves (Python API)", 1, len(gen) * rr,
              "positions", t, "cpu")
    n, t = _cpu(lambda: [b.legal_moves for _ in range(rr) for b in gboards])
    table.add("draughts", "legal moves", "py-draughts Board.legal_moves", 1, len(gen) * rr, "positions", t, "cpu")
    ggs = [(from_board(b), b.turn == Color.WHITE) for b in gboards]
    n, t = _cpu(lambda: [core.gen_moves(*g, w, False) for _ in range(rr) for g, w in ggs])
    table.add("draughts", "legal moves", "py-draughts core gen_moves", 1, len(gen) * rr, "positions", t, "cpu")

    r = table.rate
    print()
    ratios["perft_start_vs_api"] = _ratio_line("perft start: boardgym 1 thread / py-draughts API",
                                               r("perft start", f"boardgym d{cfg.start_depth}"),
                                               r("perft start", f"py-draughts API d{cfg.ref_start_depth}"))
    ratios["perft_start_vs_core"] = _ratio_line("perft start: boardgym 1 thread / py-draughts core",
                                                r("perft start", f"boardgym d{cfg.start_depth}"),
                                                r("perft start", f"py-draughts core d{cfg.ref_start_depth}"))
    ratios["perft_start_par_vs_api"] = _ratio_line(
        f"perft start: boardgym {threads} threads / py-draughts API",
        r("perft start", f"boardgym d{cfg.start_depth} parallel"),
        r("perft start", f"py-draughts API d{cfg.ref_start_depth}"))
    ratios["perft_mid_vs_api"] = _ratio_line(
        "perft middlegame: boardgym 1 thread / py-draughts API",
        r("perft middlegame", f"boardgym d{cfg.mid_depth} x{len(mid)}"),
        r("perft middlegame", f"py-draughts API d{cfg.ref_mid_depth} x{len(mid)}"))
    ratios["perft_mid_vs_core"] = _ratio_line(
        "perft middlegame: boardgym 1 thread / py-draughts core",
        r("perft middlegame", f"boardgym d{cfg.mid_depth} x{len(mid)}"),
        r("perft middlegame", f"py-draughts core d{cfg.ref_mid_depth} x{len(mid)}"))
    ratios["gen_kernel_vs_api"] = _ratio_line(
        "legal moves: boardgym kernel / py-draughts Board.legal_moves",
        r("legal moves", "boardgym kernel gen_moves (jit loop)"),
        r("legal moves", "py-draughts Board.legal_moves"))
    ratios["gen_kernel_vs_core"] = _ratio_line(
        "legal moves: boardgym kernel / py-draughts core",
        r("legal moves", "boardgym kernel gen_moves (jit loop)"),
        r("legal moves", "py-draughts core gen_moves"))
    ratios["gen_api_vs_api"] = _ratio_line(
        "legal moves: boardgym legal_moves / py-draughts Board.legal_moves",
        r("legal moves", "boardgym legal_moves (Python API)"),
        r("legal moves", "py-draughts Board.legal_moves"))
    return ratios


# ============================================================================ backgammon


def _bg_random_cases(n, seed):
    """n (board, d1, d2) cases from seeded random games played with gnubg_nn.moves (gnubg layout)."""
    import gnubg_nn

    rng = random.Random(seed)
    start = [list(x) for x in gnubg_nn.board_from_position_id("4HPwATDgc/ABMA")]
    cases, board = [], start
    while len(cases) < n:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        cases.append(([list(board[0]), list(board[1])], d1, d2))
        keys = gnubg_nn.moves(board, d1, d2)
        if keys:
            opp, me = gnubg_nn.board_from_position_key(rng.choice(keys))
            board = [list(opp), list(me)]
            if sum(board[1]) == 0:
                board = start
                continue
        board = [board[1], board[0]]
    return cases


@njit
def _bg_afterstate_loop(states, dice, reps, out, sc):
    """Sum of afterstate counts over all cases, reps times, one thread (boardgym kernel)."""
    total = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            total += gen_afterstates_scratch(states[i], dice[i, 0], dice[i, 1], out, sc)
    return total


@njit
def _bg_plays_loop(states, dice, reps, out, routes):
    """The same with a route per afterstate (the game core's plays_of_roll, what notation and
    the agents use), one thread."""
    total = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            total += plays_of_roll(states[i], dice[i, 0], dice[i, 1], out, routes)
    return total


@njit(parallel=True)
def _bg_afterstate_prange(states, dice, reps, outs, scs):
    """The same over all cores: the cases split into one contiguous chunk per thread buffer."""
    nchunk = outs.shape[0]
    n = states.shape[0]
    counts = np.zeros(nchunk, dtype=np.int64)
    for c in prange(nchunk):
        lo, hi = c * n // nchunk, (c + 1) * n // nchunk
        t = 0
        for _ in range(reps):
            for i in range(lo, hi):
                t += gen_afterstates_scratch(states[i], dice[i, 0], dice[i, 1], outs[c], scs[c])
        counts[c] = t
    return counts.sum()


def _load_gym_backgammon():
    """gym-backgammon's rules class, loaded from its file (its package __init__ needs pyglet/gym)."""
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
    """gnubg board (opponent, mover) -> gym-backgammon state with the mover as WHITE."""
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


def bench_backgammon(cfg: Settings, table: Table, threads: int) -> dict:
    import gnubg_nn

    from boardgym.envs import backgammon_notation as bgenv
    from boardgym.kernels.backgammon.board import STATE_LEN
    from boardgym.kernels.backgammon.movegen import MAX_AFTERSTATES, MAX_MOVES, MV_FIELDS, scratch_size

    print(f"\nBackgammon (boardgym vs gnubg-nn, gym-backgammon), {threads} threads for multi-core")
    cases = _bg_random_cases(cfg.bg_cases, cfg.seed)
    states = np.ascontiguousarray(np.stack([bgenv.position_from_id(gnubg_nn.position_id(b)) for b, _, _ in cases]))
    dice = np.array([[d1, d2] for _, d1, d2 in cases], dtype=np.int64)
    n_bar = sum(b[1][24] > 0 for b, _, _ in cases)
    n_home = sum(sum(b[1][6:25]) == 0 for b, _, _ in cases)
    print(f"  {len(cases)} cases from random gnubg games (seed {cfg.seed}): {n_bar} on the bar, {n_home} bearing off")
    out = np.empty((MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    sc = np.empty(scratch_size(MAX_AFTERSTATES), dtype=np.int64)
    nchunk = max(threads, 1) * 4
    outs = np.empty((nchunk, MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    scs = np.empty((nchunk, scratch_size(MAX_AFTERSTATES)), dtype=np.int64)
    _bg_afterstate_loop(states[:4], dice[:4], 1, out, sc)  # warm up
    numba.set_num_threads(threads)
    _bg_afterstate_prange(states[:8], dice[:8], 1, outs, scs)
    reps = cfg.bg_reps
    _, t = _cpu(lambda: _bg_afterstate_loop(states, dice, reps, out, sc))
    table.add("backgammon", "afterstates", "boardgym kernel (jit loop)", 1, len(cases) * reps, "cases", t, "cpu")
    routes = np.empty((MAX_AFTERSTATES, MAX_MOVES, MV_FIELDS), dtype=np.int64)
    _bg_plays_loop(states[:4], dice[:4], 1, out, routes)  # warm up
    _, t = _cpu(lambda: _bg_plays_loop(states, dice, reps, out, routes))
    table.add("backgammon", "afterstates", "boardgym plays+routes (jit loop)", 1,
              len(cases) * reps, "cases", t, "cpu")
    _, t = _wall(lambda: _bg_afterstate_prange(states, dice, reps, outs, scs))
    table.add("backgammon", "afterstates", "boardgym kernel (prange loop)", threads, len(cases) * reps,
              "cases", t, "wall")
    pids = [gnubg_nn.position_id(b) for b, _, _ in cases[:2000]]
    bgenv.legal_plays(pids[0], 3, 1)  # warm up
    _, t = _cpu(lambda: [bgenv.legal_plays(p, d1, d2) for p, (_, d1, d2) in zip(pids, cases)])
    table.add("backgammon", "afterstates", "boardgym legal_plays (Python API)", 1, len(pids), "cases", t, "cpu")
    moves = gnubg_nn.moves
    greps = max(reps // 4, 1)

    def run_gnubg():
        for _ in range(greps):
            for b, d1, d2 in cases:
                moves(b, d1, d2)

    _, t = _cpu(run_gnubg)
    table.add("backgammon", "afterstates", "gnubg_nn.moves", 1, len(cases) * greps, "cases", t, "cpu")
    ratios = {}
    print()
    ratios["bg_kernel_vs_gnubg"] = _ratio_line("afterstates: boardgym kernel 1 thread / gnubg_nn.moves",
                                               table.rate("afterstates", "boardgym kernel (jit loop)"),
                                               table.rate("afterstates", "gnubg_nn.moves"))
    ratios["bg_par_vs_gnubg"] = _ratio_line(f"afterstates: boardgym kernel {threads} threads / gnubg_nn.moves",
                                            table.rate("afterstates", "boardgym kernel (prange loop)"),
                                            table.rate("afterstates", "gnubg_nn.moves"))
    try:
        mod = _load_gym_backgammon()
    except Exception as e:  # noqa: BLE001  (report any import failure, keep benchmarking)
        mod, why = None, f"{type(e).__name__}: {e}"
    else:
        why = "package not found"
    if mod is None:
        print(f"  gym-backgammon: not installed ({why})")
        return ratios
    gcases = cases[: cfg.gym_cases]
    gstates = [_gym_state(mod, b) for b, _, _ in gcases]
    g = mod.Backgammon()

    def run_gym():
        for st, (_, d1, d2) in zip(gstates, gcases):
            g.restore_state(st)
            g.get_valid_plays(mod.WHITE, (d1, d2))

    _, t = _cpu(run_gym)
    table.add("backgammon", "afterstates", "gym-backgammon get_valid_plays", 1, len(gcases), "cases", t, "cpu")
    ratios["bg_kernel_vs_gym"] = _ratio_line("afterstates: boardgym kernel 1 thread / gym-backgammon",
                                             table.rate("afterstates", "boardgym kernel (jit loop)"),
                                             table.rate("afterstates", "gym-backgammon get_valid_plays"))
    return ratios


# ============================================================================ main


def main(args=None) -> dict:
    """Run the benchmark with Settings or a list of command-line strings; return rows and ratios."""
    global REPEATS
    cfg = args if isinstance(args, Settings) else parse_args(args)
    REPEATS = cfg.repeats
    if cfg.game not in ("draughts", "backgammon", "all"):
        raise ValueError(f"--game must be draughts, backgammon or all, not {cfg.game!r}")
    threads = cfg.threads or numba.config.NUMBA_NUM_THREADS
    print(f"bench_movegen: cpus={os.cpu_count()} numba threads={threads} numba {numba.__version__}"
          f" python {sys.version.split()[0]}; best of {cfg.repeats} runs per row")
    print(f"  {'task':<22} {'implementation':<34} {'thr':>3}  {'work':>12} {'':<9} {'time':>9} {'clk':<4}"
          f" {'rate':>14}")
    table = Table()
    ratios = {}
    if cfg.game in ("draughts", "all"):
        ratios.update(bench_draughts(cfg, table, threads))
    if cfg.game in ("backgammon", "all"):
        ratios.update(bench_backgammon(cfg, table, threads))
    return {"rows": table.rows, "ratios": ratios}


if __name__ == "__main__":
    main(sys.argv[1:])
