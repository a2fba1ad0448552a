"""Perft for Russian draughts: leaf count of the legal-move tree, one move per distinct outcome.

Bulk counting: at the last ply the moves are counted, not made (quiet moves by shifts and
popcounts; captures are generated, since distinct outcomes must be told apart).
``perft_parallel`` splits the tree over threads with ``prange``: over the root moves'
replies (the positions two plies deep), which balances the work better than root moves alone.
"""

import numpy as np
from numba import njit, prange

from boardgym.kernels.draughts.board import (
    M_CAPTURED,
    M_FROM,
    M_PROMOTE,
    M_TO,
    MAX_MOVES,
    ROW_LEN,
    S_BK,
    S_BM,
    S_SIDE,
    S_WK,
    S_WM,
)
from boardgym.kernels.draughts.move import apply_bb
from boardgym.kernels.draughts.movegen import WORK_LEN, count_moves_bb, gen_moves_bb


@njit(cache=True)
def _perft(wm, wk, bm, bk, side, depth, bufs, work):
    if depth == 1:
        return np.int64(count_moves_bb(wm, wk, bm, bk, side, work, bufs[0]))
    buf = bufs[depth]
    n = gen_moves_bb(wm, wk, bm, bk, side, work, buf)
    total = np.int64(0)
    if depth == 2:
        scratch = bufs[0]
        for i in range(n):
            a, b, c, d = apply_bb(
                wm,
                wk,
                bm,
                bk,
                side,
                buf[i, M_FROM],
                buf[i, M_TO],
                buf[i, M_CAPTURED],
                buf[i, M_PROMOTE],
            )
            total += count_moves_bb(a, b, c, d, 1 - side, work, scratch)
        return total
    for i in range(n):
        a, b, c, d = apply_bb(
            wm,
            wk,
            bm,
            bk,
            side,
            buf[i, M_FROM],
            buf[i, M_TO],
            buf[i, M_CAPTURED],
            buf[i, M_PROMOTE],
        )
        total += _perft(a, b, c, d, 1 - side, depth - 1, bufs, work)
    return total


@njit(cache=True)
def perft_bb(wm, wk, bm, bk, side, depth):
    """Leaf count at `depth` plies from the given bitboards and side to move."""
    if depth <= 0:
        return np.int64(1)
    bufs = np.empty((depth + 1, MAX_MOVES, ROW_LEN), dtype=np.int64)
    work = np.empty(WORK_LEN, dtype=np.int64)
    return _perft(wm, wk, bm, bk, side, depth, bufs, work)


@njit(cache=True)
def perft(state, depth):
    """Leaf count at `depth` plies from a whole-move position vector (int64[STATE_LEN])."""
    return perft_bb(state[S_WM], state[S_WK], state[S_BM], state[S_BK], state[S_SIDE], depth)


@njit(parallel=True, cache=True)
def perft_parallel(state, depth):
    """perft with the subtrees two plies deep counted in parallel (prange)."""
    wm, wk, bm, bk, side = state[S_WM], state[S_WK], state[S_BM], state[S_BK], state[S_SIDE]
    if depth <= 1:
        return perft_bb(wm, wk, bm, bk, side, depth)
    moves = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    work = np.empty(WORK_LEN, dtype=np.int64)
    n = gen_moves_bb(wm, wk, bm, bk, side, work, moves)
    # Split two plies deep so that the threads get balanced work.
    buf = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    total_kids = 0
    for i in range(n):
        a, b, c, d = apply_bb(
            wm,
            wk,
            bm,
            bk,
            side,
            moves[i, M_FROM],
            moves[i, M_TO],
            moves[i, M_CAPTURED],
            moves[i, M_PROMOTE],
        )
        total_kids += gen_moves_bb(a, b, c, d, 1 - side, work, buf)
    seeds = np.zeros((total_kids, 5), dtype=np.int64)
    m = 0
    for i in range(n):
        a, b, c, d = apply_bb(
            wm,
            wk,
            bm,
            bk,
            side,
            moves[i, M_FROM],
            moves[i, M_TO],
            moves[i, M_CAPTURED],
            moves[i, M_PROMOTE],
        )
        k = gen_moves_bb(a, b, c, d, 1 - side, work, buf)
        for j in range(k):
            e, f, g, h = apply_bb(
                a,
                b,
                c,
                d,
                1 - side,
                buf[j, M_FROM],
                buf[j, M_TO],
                buf[j, M_CAPTURED],
                buf[j, M_PROMOTE],
            )
            seeds[m, 0], seeds[m, 1], seeds[m, 2], seeds[m, 3], seeds[m, 4] = e, f, g, h, side
            m += 1
    counts = np.zeros(m, dtype=np.int64)
    for t in prange(m):
        counts[t] = perft_bb(
            seeds[t, 0], seeds[t, 1], seeds[t, 2], seeds[t, 3], seeds[t, 4], depth - 2
        )
    return counts.sum()
