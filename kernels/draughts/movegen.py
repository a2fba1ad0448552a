"""Russian draughts move generation (M.1-M.3, 25.1-25.7), one generator for both colours.

Moves are whole moves: a quiet move (M.1 man one square forward, M.2 king any distance) or a
whole capture chain (25.1-25.5). Capture is compulsory (25.1); men capture backwards too (25.2);
the chain goes on while the piece can capture, and the capturer picks any chain (no majority
rule, 25.2, 25.7). Jumped pieces stay on the board until the move ends and may not be jumped
twice (Turkish strike, 25.2/25.4): they are in the ``jumped`` set and block rays. The square the
piece started from is empty during its own chain. A flying king (25.3) may land on any empty
square behind the captured piece, but when some of those squares allow a further capture it must
land on one of them (25.4). A man reaching the far row during a capture is crowned at once and
continues as a king (25.5); a man crowned by a quiet move is a king only from its next move (25.6,
M.3: nothing more happens in this move).

Distinct outcomes: two chains with the same start, end and captured set give the same position and
are ONE move. The generator keeps one row per (start, end, captured set), with the
lexicographically smallest path (sequence of landing squares; ghost order == sq32 order).
Only chains of two or more captures can collide, so only those are compared.

Square indices in rows are ghost indices (board.py). Row layout: board.M_*. Buffers need
MAX_MOVES rows (rows beyond the buffer are dropped, never written out of bounds).

Numba note: ``_chain`` is recursive. Call it only through the cached wrappers here
(``gen_captures_bb``, ``gen_moves_bb``, ``gen_moves``...): a new function that calls a cached
recursive function directly can fail to link it ("Symbol not found: .numba.unresolved$...").

The functions compiled with ``_nrt=False`` allocate nothing and so skip Numba's reference
counting: the draughts search calls them at every node (agents/draughts/search.py).
"""

import numpy as np
from numba import njit

from boardgym.kernels.bits import lsb, pop_lsb, popcount
from boardgym.kernels.draughts.board import (
    BB_PROMO,
    BB_SQUARES,
    M_CAPTURED,
    M_FROM,
    M_NHOPS,
    M_PATH,
    M_PROMOTE,
    M_TO,
    MAX_HOPS,
    MAX_MOVES,
    ROW_LEN,
    S_BK,
    S_BM,
    S_CAP_JUMPED,
    S_CAP_MAN,
    S_CAP_SQ,
    S_CAP_START,
    S_SIDE,
    S_WK,
    S_WM,
    STEP,
)

ONE = np.int64(1)
ZERO = np.int64(0)
# Scratch layout of ``work``: the chain's landing squares, then per chain level 64 landing
# squares and 64 jumped squares of the next hops.
WORK_PATH = 0
WORK_HOPS = MAX_HOPS
WORK_LEN = WORK_HOPS + (MAX_HOPS + 1) * 128


@njit(cache=True, inline="always")
def mover_first(wm, wk, bm, bk, side):
    """The four bitboards with side's (0 White, 1 Black) men and kings first: (men, kings, other
    men, other kings). Its own inverse: mover_first(*mover_first(b, side), side) == b."""
    if side == 0:
        return wm, wk, bm, bk
    return bm, bk, wm, wk


@njit(cache=True, inline="always")
def mover_view(wm, wk, bm, bk, side):
    """(men, kings, enemy pieces, empty squares) of the board as side sees it."""
    us_m, us_k, th_m, th_k = mover_first(wm, wk, bm, bk, side)
    return us_m, us_k, th_m | th_k, BB_SQUARES & ~(wm | wk | bm | bk)


@njit(cache=True, inline="always")
def shift(x, off):
    """Shift bitboard x by a signed square offset (+ = towards row 7)."""
    if off > 0:
        return x << off
    return x >> (-off)


@njit(cache=True, inline="always")
def can_capture_from(sq, king, jumped, them, empty):
    """True if a piece on ghost square sq (king or man) has a capture hop available."""
    live = them & ~jumped
    for d in range(4):
        n = STEP[d, sq]
        if king:
            while n >= 0 and (empty >> n) & ONE:
                n = STEP[d, n]
        if n >= 0 and (live >> n) & ONE:
            land = STEP[d, n]
            if land >= 0 and (empty >> land) & ONE:
                return True
    return False


@njit(cache=True, inline="always")
def gen_hops(sq, king, jumped, them, empty, work, base):
    """Legal next capture hops (25.1-25.4) of the piece on sq, written into the int64 array work.

    work[base + i] is the i-th landing square and work[base + 64 + i] the piece it jumps.
    them: all enemy pieces (jumped ones included: they still block, Turkish strike);
    empty: the empty squares, the moving piece's own square included. A king's landings are
    restricted to those that continue the capture when any do (25.4). Returns the count.
    """
    live = them & ~jumped
    n_out = 0
    for d in range(4):
        n = STEP[d, sq]
        if king:
            while n >= 0 and (empty >> n) & ONE:
                n = STEP[d, n]
        if n < 0 or not (live >> n) & ONE:
            continue
        land = STEP[d, n]
        if land < 0 or not (empty >> land) & ONE:
            continue
        if not king:
            work[base + n_out] = land
            work[base + 64 + n_out] = n
            n_out += 1
            continue
        jumped2 = jumped | (ONE << n)
        n_cont = 0
        while land >= 0 and (empty >> land) & ONE:
            if can_capture_from(land, True, jumped2, them, empty):
                work[base + n_out] = land
                work[base + 64 + n_out] = n
                n_out += 1
                n_cont += 1
            land = STEP[d, land]
        if n_cont == 0:
            land = STEP[d, n]
            while land >= 0 and (empty >> land) & ONE:
                work[base + n_out] = land
                work[base + 64 + n_out] = n
                n_out += 1
                land = STEP[d, land]
    return n_out


@njit(cache=True, _nrt=False)
def _emit(origin, sq, promote, jumped, nh, path, out, n0, n):
    """Append a finished chain to out[n], merging it with an equal-outcome row in out[n0:n].

    path: the landing squares at path[WORK_PATH:WORK_PATH + nh].
    """
    if nh >= 2:
        for i in range(n0, n):
            if out[i, M_TO] == sq and out[i, M_CAPTURED] == jumped and out[i, M_FROM] == origin:
                # Same outcome: keep the lexicographically smallest path.
                for k in range(nh):
                    if path[WORK_PATH + k] != out[i, M_PATH + k]:
                        if path[WORK_PATH + k] < out[i, M_PATH + k]:
                            for j in range(nh):
                                out[i, M_PATH + j] = path[WORK_PATH + j]
                        break
                return n
    if n >= out.shape[0]:
        return n
    out[n, M_FROM] = origin
    out[n, M_TO] = sq
    out[n, M_CAPTURED] = jumped
    out[n, M_NHOPS] = nh
    out[n, M_PROMOTE] = promote
    for k in range(nh):
        out[n, M_PATH + k] = path[WORK_PATH + k]
    return n + 1


@njit(cache=True, _nrt=False)
def _chain(origin, sq, king, was_man, jumped, them, empty, side, nh, work, out, n0, n):
    """Depth-first extension of a capture chain by gen_hops; finished chains are emitted into out.

    king, was_man: int64 0/1 (one type signature for the recursion). work: scratch
    int64[WORK_LEN] holding the path so far (WORK_PATH) and each level's next hops (WORK_HOPS);
    one flat array keeps the recursive calls cheap.
    """
    base = WORK_HOPS + nh * 128
    k = gen_hops(sq, king, jumped, them, empty, work, base)
    if k == 0:
        if nh > 0:
            n = _emit(origin, sq, was_man & king, jumped, nh, work, out, n0, n)
        return n
    promo = BB_PROMO[side]
    for i in range(k):
        land = work[base + i]
        work[WORK_PATH + nh] = land
        crowned = king | ((promo >> land) & ONE)  # 25.5: crowned mid-capture, goes on as a king
        n = _chain(
            origin,
            land,
            crowned,
            was_man,
            jumped | (ONE << work[base + 64 + i]),
            them,
            empty,
            side,
            nh + 1,
            work,
            out,
            n0,
            n,
        )
    return n


@njit(cache=True)
def men_with_capture(men, them, empty):
    """Bitboard of the men that have a capture hop (any of the four directions, 25.1/25.2)."""
    c = np.int64(0)
    c |= shift(shift(empty, -4) & them, -4) & men
    c |= shift(shift(empty, -5) & them, -5) & men
    c |= shift(shift(empty, 5) & them, 5) & men
    c |= shift(shift(empty, 4) & them, 4) & men
    return c


@njit(cache=True, inline="always")
def _gen_captures(us_m, us_k, them, empty, side, work, out, merge):
    n = ZERO  # typed, not a literal 0: one compiled _chain (see _search in backgammon.movegen)
    men = men_with_capture(us_m, them, empty)
    pieces = men | us_k
    while pieces != 0:
        p = lsb(pieces)
        pieces = pop_lsb(pieces)
        king = (us_k >> p) & ONE
        n0 = n if merge else np.int64(out.shape[0])  # an empty merge window keeps every route
        n = _chain(
            p, p, king, ONE - king, ZERO, them, empty | (ONE << p), side, ZERO, work, out, n0, n
        )
    return n


@njit(cache=True, _nrt=False)
def gen_captures_bb(us_m, us_k, them, empty, side, work, out):
    """All capture moves (distinct outcomes) of the side with men us_m and kings us_k into out.

    work: scratch int64[WORK_LEN].
    """
    return _gen_captures(us_m, us_k, them, empty, side, work, out, True)


@njit(cache=True, _nrt=False)
def gen_capture_routes_bb(us_m, us_k, them, empty, side, work, out):
    """Like gen_captures_bb but one row per route, equal outcomes not merged (diagnostics)."""
    return _gen_captures(us_m, us_k, them, empty, side, work, out, False)


@njit(cache=True, _nrt=False)
def _write_quiet(out, n, fr, to, promote):
    if n >= out.shape[0]:
        return n
    out[n, M_FROM] = fr
    out[n, M_TO] = to
    out[n, M_CAPTURED] = 0
    out[n, M_NHOPS] = 1
    out[n, M_PROMOTE] = promote
    out[n, M_PATH] = to
    return n + 1


@njit(cache=True, _nrt=False)
def gen_quiet_bb(us_m, us_k, empty, side, out):
    """All quiet moves (M.1 men forward, M.2 kings sliding, M.3 crowning) into out."""
    n = np.int64(0)  # int64 constants, not literals: one compiled _write_quiet, not four
    promo = BB_PROMO[side]
    if side == 0:
        o1, o2 = 4, 5
    else:
        o1, o2 = -5, -4
    for off in (o1, o2):
        t = shift(us_m, off) & empty
        while t != 0:
            to = lsb(t)
            t = pop_lsb(t)
            n = _write_quiet(out, n, to - off, to, (promo >> to) & ONE)
    kings = us_k
    while kings != 0:
        p = lsb(kings)
        kings = pop_lsb(kings)
        for d in range(4):
            q = STEP[d, p]
            while q >= 0 and (empty >> q) & ONE:
                n = _write_quiet(out, n, p, q, np.int64(0))
                q = STEP[d, q]
    return n


@njit(cache=True, _nrt=False)
def gen_moves_bb(wm, wk, bm, bk, side, work, out):
    """All legal moves of the side to move (captures if any, else quiet moves) into out."""
    us_m, us_k, them, empty = mover_view(wm, wk, bm, bk, side)
    n = gen_captures_bb(us_m, us_k, them, empty, side, work, out)
    if n > 0:
        return n
    return gen_quiet_bb(us_m, us_k, empty, side, out)


@njit(cache=True)
def count_quiet_bb(us_m, us_k, empty, side):
    """Number of quiet moves, counted with shifts and popcounts (bulk counting)."""
    if side == 0:
        c = popcount((us_m << 4) & empty) + popcount((us_m << 5) & empty)
    else:
        c = popcount((us_m >> 4) & empty) + popcount((us_m >> 5) & empty)
    if us_k != 0:
        for off in (4, 5, -4, -5):
            x = shift(us_k, off) & empty
            while x != 0:
                c += popcount(x)
                x = shift(x, off) & empty
    return c


@njit(cache=True)
def has_capture_bb(us_m, us_k, them, empty):
    """True if the side with men us_m and kings us_k must capture (25.1)."""
    if men_with_capture(us_m, them, empty) != 0:
        return True
    kings = us_k
    while kings != 0:
        p = lsb(kings)
        kings = pop_lsb(kings)
        if can_capture_from(p, True, np.int64(0), them, empty):
            return True
    return False


@njit(cache=True, inline="always")
def _count_single_man_captures(us_m, them, empty, promo):
    """Number of man captures when every one is a single hop without crowning, else -1.

    Bulk counting for the common case: c4/c5/cm4/cm5 mark the squares from which a piece could
    jump in direction +4/+5/-4/-5; a landing square continues only in the three directions
    other than back over the jumped piece (where the vacated start square plays no part).
    """
    c4 = (them >> 4) & (empty >> 8)
    c5 = (them >> 5) & (empty >> 10)
    cm4 = (them << 4) & (empty << 8)
    cm5 = (them << 5) & (empty << 10)
    j4, j5, jm4, jm5 = us_m & c4, us_m & c5, us_m & cm4, us_m & cm5
    if (j4 | j5 | jm4 | jm5) == 0:
        return 0
    l4, l5, lm4, lm5 = j4 << 8, j5 << 10, jm4 >> 8, jm5 >> 10
    if (l4 | l5 | lm4 | lm5) & promo:
        return -1
    if (
        (l4 & (c4 | c5 | cm5))
        | (l5 & (c4 | c5 | cm4))
        | (lm4 & (c5 | cm4 | cm5))
        | (lm5 & (c4 | cm4 | cm5))
    ):
        return -1
    return popcount(j4) + popcount(j5) + popcount(jm4) + popcount(jm5)


@njit(cache=True, _nrt=False)
def count_moves_bb(wm, wk, bm, bk, side, work, scratch):
    """Number of legal moves (distinct outcomes); capture chains are generated into scratch."""
    us_m, us_k, them, empty = mover_view(wm, wk, bm, bk, side)
    if us_k == 0:
        c = _count_single_man_captures(us_m, them, empty, BB_PROMO[side])
        if c == 0:
            return count_quiet_bb(us_m, us_k, empty, side)
        if c > 0:
            return c
    n = gen_captures_bb(us_m, us_k, them, empty, side, work, scratch)
    if n > 0:
        return n
    return count_quiet_bb(us_m, us_k, empty, side)


@njit(cache=True)
def gen_moves(state, out):
    """Legal moves of a position vector into out (int64[MAX_MOVES, ROW_LEN]); returns the count.

    Mid-capture (state[S_CAP_SQ] >= 0) it lists the ways to finish the chain: M_FROM is the
    chain's start, M_CAPTURED the whole captured set, the path only the remaining landings.
    """
    work = np.empty(WORK_LEN, dtype=np.int64)
    wm, wk, bm, bk, side = state[S_WM], state[S_WK], state[S_BM], state[S_BK], state[S_SIDE]
    sq = state[S_CAP_SQ]
    if sq < 0:
        return gen_moves_bb(wm, wk, bm, bk, side, work, out)
    _, kings, them, empty = mover_view(wm, wk, bm, bk, side)
    king = (kings >> sq) & ONE
    return _chain(
        state[S_CAP_START],
        sq,
        king,
        state[S_CAP_MAN],
        state[S_CAP_JUMPED],
        them,
        empty | (ONE << sq),
        side,
        ZERO,
        work,
        out,
        ZERO,
        ZERO,
    )  # sq: left next hop


def new_move_buffer():
    """A caller-owned move buffer, int64[MAX_MOVES, ROW_LEN]."""
    return np.zeros((MAX_MOVES, ROW_LEN), dtype=np.int64)
