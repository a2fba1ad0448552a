"""Applying whole moves to Russian draughts positions, and setting positions up (M.1-M.3, 25.2,
25.5).

``apply_bb`` is the bare bitboard update used by perft; ``apply_move`` also advances the side,
the ply and draw counters, the Zobrist hash and the repetition history (outcome.py documents
each counter). A move row (board.M_*) comes from movegen; captured pieces are removed only
now, at the end of the move (25.2), and a man that ends its move as a king is crowned
(M.3 / 25.5 via the row's M_PROMOTE flag).

The functions compiled with ``_nrt=False`` allocate nothing and so skip Numba's reference
counting: the draughts search calls them at every node (agents/draughts/search.py).
"""

import numpy as np
from numba import njit

from boardgym.kernels.bits import lsb, pop_lsb
from boardgym.kernels.draughts.board import (
    HIST_LEN,
    M_CAPTURED,
    M_FROM,
    M_PROMOTE,
    M_TO,
    S_BK,
    S_BM,
    S_CAP_JUMPED,
    S_CAP_MAN,
    S_CAP_SQ,
    S_CAP_START,
    S_HASH,
    S_HIST,
    S_HIST_N,
    S_KINGS_ONLY,
    S_LONG_DIAG,
    S_MATERIAL,
    S_PLY,
    S_RULES,
    S_SIDE,
    S_WK,
    S_WM,
    STATE_LEN,
)
from boardgym.kernels.draughts.movegen import mover_first
from boardgym.kernels.draughts.outcome import (
    ZOBRIST,
    ZOBRIST_BLACK,
    hash_bb,
    long_diag_balance,
)

ONE = np.int64(1)


@njit(cache=True, inline="always")
def apply_bb(wm, wk, bm, bk, side, fr, to, captured, promote):
    """Bitboards after the move fr->to capturing `captured`; returns (wm, wk, bm, bk)."""
    bf = ONE << fr
    bt = ONE << to
    us_m, us_k, th_m, th_k = mover_first(wm, wk, bm, bk, side)
    if us_m & bf:
        us_m &= ~bf
        if promote:
            us_k |= bt
        else:
            us_m |= bt
    else:
        us_k = (us_k & ~bf) | bt
    return mover_first(us_m, us_k, th_m & ~captured, th_k & ~captured, side)


@njit(cache=True)
def set_position(wm, wk, bm, bk, side, rules):
    """A fresh position vector (int64[STATE_LEN]) with zeroed counters and a one-entry history."""
    s = np.zeros(STATE_LEN, dtype=np.int64)
    s[S_WM], s[S_WK], s[S_BM], s[S_BK], s[S_SIDE] = wm, wk, bm, bk, side
    s[S_CAP_SQ] = -1
    s[S_CAP_START] = -1
    s[S_LONG_DIAG] = 0 if long_diag_balance(wm, wk, bm, bk) else -1
    s[S_RULES] = rules
    h = hash_bb(wm, wk, bm, bk, side)
    s[S_HASH] = h
    s[S_HIST] = h
    s[S_HIST_N] = 1
    return s


@njit(cache=True)
def apply_move_parts(state, fr, to, captured, promote):
    """New position vector after the whole move fr->to capturing `captured` (from a whole-move
    state)."""
    s = state.copy()
    apply_move_parts_inplace(s, fr, to, captured, promote)
    return s


@njit(cache=True, _nrt=False)
def apply_move_parts_inplace(s, fr, to, captured, promote):
    """apply_move_parts on the position vector s itself (the batch cores' copy-free path)."""
    wm, wk, bm, bk, side = s[S_WM], s[S_WK], s[S_BM], s[S_BK], s[S_SIDE]
    man = (((wm | bm) >> fr) & ONE) == 1
    nwm, nwk, nbm, nbk = apply_bb(wm, wk, bm, bk, side, fr, to, captured, promote)
    s[S_WM], s[S_WK], s[S_BM], s[S_BK] = nwm, nwk, nbm, nbk
    s[S_SIDE] = 1 - side
    s[S_CAP_SQ] = -1
    s[S_CAP_JUMPED] = 0
    s[S_CAP_START] = -1
    s[S_CAP_MAN] = 0
    s[S_PLY] += 1
    capture = captured != 0
    crowned = man and promote != 0
    # Zobrist: the mover, the captured pieces, the side.
    k_from = 2 * side + (0 if man else 1)
    k_to = 2 * side + (0 if (man and not crowned) else 1)
    h = s[S_HASH] ^ ZOBRIST[k_from, fr] ^ ZOBRIST[k_to, to] ^ ZOBRIST_BLACK
    if capture:
        om, ok = (bm, bk) if side == 0 else (wm, wk)
        x = captured
        while x != 0:
            q = lsb(x)
            x = pop_lsb(x)
            h ^= ZOBRIST[2 * (1 - side) + (0 if (om >> q) & ONE else 1), q]
    s[S_HASH] = h
    # Draw counters (outcome.py).
    irreversible = man or capture
    s[S_KINGS_ONLY] = 0 if irreversible else s[S_KINGS_ONLY] + 1
    s[S_MATERIAL] = 0 if (capture or crowned) else s[S_MATERIAL] + 1
    if long_diag_balance(nwm, nwk, nbm, nbk):
        if capture or crowned or s[S_LONG_DIAG] < 0:
            s[S_LONG_DIAG] = 0
        else:
            s[S_LONG_DIAG] = s[S_LONG_DIAG] + 1
    else:
        s[S_LONG_DIAG] = -1
    n = 0 if irreversible else s[S_HIST_N]
    s[S_HIST + n % HIST_LEN] = h
    s[S_HIST_N] = n + 1


@njit(cache=True)
def apply_move(state, move):
    """New position vector after a whole move row (int64[ROW_LEN] from gen_moves)."""
    return apply_move_parts(state, move[M_FROM], move[M_TO], move[M_CAPTURED], move[M_PROMOTE])


@njit(cache=True, inline="always")
def apply_move_live_into(state, move, out):
    """apply_move's new position written into the caller's out (int64[STATE_LEN]; not state
    itself), no new array, copying only the words the game reads: the position's fields and the
    live part of its history (the last min(S_HIST_N, HIST_LEN) entries, which repetition_count
    reads and the next moves extend); out's other history slots keep whatever they held. For a
    caller that reads its positions only through the game's functions (the search's per-ply
    rows): a man's move or a capture empties the history, so most positions copy one entry of
    64. Element loops, not slice assignments: no reference counting needed."""
    for k in range(S_HIST):
        out[k] = state[k]
    n = state[S_HIST_N]
    m = n if n < HIST_LEN else HIST_LEN
    for k in range(n - m, n):
        out[S_HIST + k % HIST_LEN] = state[S_HIST + k % HIST_LEN]
    apply_move_parts_inplace(out, move[M_FROM], move[M_TO], move[M_CAPTURED], move[M_PROMOTE])
