"""Russian draughts endgame tables: indexing, retrograde solving and probing, in Numba.

What a table holds
------------------
One table per *material signature* ``(a, b, c, d)`` = (White men, White kings, Black men, Black
kings), each side at least one piece, for the positions with **White to move** between moves
(no capture chain in progress). A position with Black to move is looked up after turning the
board 180 degrees and swapping the colours (``flip_bb``: Black's pieces become White's; the rules
are the same for both colours), so signature ``(a, b, c, d)`` with Black to move is table
``(c, d, a, b)``. Men never stand on their promotion row (M.3, 25.5).

Each entry is one byte, the value for the side to move **with every draw counter at zero**
(``S_MATERIAL = S_KINGS_ONLY = 0``; ``S_LONG_DIAG`` as the layer says):

- ``0``: a draw (also every unused index, see "Index");
- odd ``2t - 1``: the side to move wins, ``t`` >= 1;
- even ``2t + 2``: the side to move loses, ``t`` >= 0 (``t = 0``: it has no legal move, G.1).

(A ``t`` too large for a byte, possible only in signatures without a ply limit where any ``t``
is within the budget, is stored as the largest that fits: 128 for a win, 126 for a loss.)

``t`` is the distance to *conversion* in plies under best play (the winner hurries, the loser
delays): the number of plies until the move that ends this phase of the ending: a capture or a
crowning (the material changes; both draw counters restart) after which the game is won for the
same side, or a position where the loser has no legal move (G.1). It is not the distance to the
end of the game: after a conversion the next table takes over with its own ``t``.

With respect to the draw rules (boardgym/RULES.md G.2, all on: ``RULES_ALL``):

- **G.2b, G.2d** (plies since the last capture or crowning) and **G.2c** in endings of kings only
  (plies since the last man move or capture; there, both counters restart exactly at the
  conversions) are *solved exactly*: a signature's limit ``L`` (``sig_limit``: 30 for G.2b and
  for kings only, 60 for G.2d with 4-5 pieces, 120 with 6-7, unlimited otherwise) caps ``t``;
  a win or loss needing more than ``L`` plies is stored as a draw. A position found with
  counters ``m`` (S_MATERIAL) and ``k`` (S_KINGS_ONLY) is decided iff ``t <= budget``, where
  ``budget`` is the least of ``limit - counter`` over the rules that apply (``probe_state``).
  This is exact because within a phase every applicable counter goes up by one each ply, and a
  conversion restarts them all.
- **G.2e** (lone king on a1-h8 against 3K, 2K+M or K+2M: at most 10 plies while the balance
  holds) is *solved exactly* too: its 4-piece signatures have ``LD_LAYERS`` = 10 layers, layer
  ``l`` = the value with ``S_LONG_DIAG = l`` (positions where the balance does not hold use
  layer 0 only). A conversion enters the next table at layer 0 (the counter restarts).
- **G.2c in endings with men and kings** is *not modelled* in the tables: they assume the
  winner never needs 30 plies in a row without a man move or a capture. ``probe_state`` makes
  up for it for the phase at hand: it answers a win or loss only when ``t <= 30 - k`` as well,
  since then the conversion (a capture or a crowning, both of which restart the G.2c count)
  comes before G.2c can end the game; otherwise UNKNOWN (search on). What remains assumed is
  that the ending after that conversion keeps its table value under G.2c.
- **G.2a** (third repetition) needs no modelling for the tables' own lines: under best play
  ``t`` falls by one every ply, so no position of the line recurs within a phase, and phases
  never recur (material only falls, men only advance). The game's earlier history is not seen.

Hence, with all rules on: a table draw is a draw; a win or loss that ``probe_state`` reports is
exact up to the G.2c-after-the-conversion and earlier-history caveats above. With other rule
masks the tables do not apply (``probe_state`` answers ``UNKNOWN``).

How the engine uses them: at a whole-move node with at most ``max_pieces`` pieces and both sides
on the board, ``probe_state`` gives (WIN / DRAW / LOSS / UNKNOWN, t); score a WIN as a decided
game (e.g. ``WIN_SCORE - ply - t``), a LOSS likewise negative, a DRAW as 0, and do not search
below it; UNKNOWN: search on.

Index
-----
For ``(a, b, c, d)``: White men as a combination (colex rank) of the 28 squares sq32 0..27 (not
row 8), Black men of the 28 squares sq32 4..31 (not row 1), White kings of the ``32 - a - c``
squares the men leave free, Black kings of the ``32 - a - c - b`` squares left then:
``index = ((i_wm * C(28, c) + i_bm) * C(32 - a - c, b) + i_wk) * C(32 - a - c - b, d) + i_bk``.
The index is perfect except where White and Black men would share a square (unused entries,
stored as 0). Squares are sq32 (board.py).

Solving
-------
Signatures are solved in order of pieces, then men, so that every conversion leads into tables
already solved; a signature and its colour mirror are solved together (a quiet move of White in
``(a, b, c, d)`` leads to a position of ``(c, d, a, b)`` after the flip). ``solve_init`` looks at
every position once with the game core's ``gen_moves_bb``: terminal positions (G.1), conversions
(looked up in the finished tables) and the number of quiet, non-crowning moves;
``solve_level`` then goes back from the positions decided at distance ``t`` to their
predecessors at ``t + 1`` (a win as soon as one child is a loss; a loss when the last child is a
win and no conversion draws). Predecessors are found by playing quiet moves backwards with the
same generator (``gen_quiet_bb``: a king's slides are their own reverse, a man's step back is a
step of the opposite colour's man), and kept only when the mover had no capture there (25.1).
``verify_table`` checks a finished table against its children by forward generation only.

The functions compiled with ``_nrt=False`` allocate nothing and so skip Numba's reference
counting: the draughts search calls them at every node (agents/draughts/search.py).
"""

import numpy as np
from numba import njit

from boardgym.kernels.bits import lsb, pop_lsb, popcount
from boardgym.kernels.draughts.board import (
    BB_SQUARES,
    GHOST_TO_SQ32,
    M_CAPTURED,
    M_FROM,
    M_PROMOTE,
    M_TO,
    MAX_MOVES,
    ROW_LEN,
    S_BK,
    S_BM,
    S_CAP_SQ,
    S_KINGS_ONLY,
    S_LONG_DIAG,
    S_MATERIAL,
    S_RULES,
    S_SIDE,
    S_WK,
    S_WM,
    SQ32_TO_GHOST,
)
from boardgym.kernels.draughts.game import gen_moves, play_move
from boardgym.kernels.draughts.move import apply_bb
from boardgym.kernels.draughts.movegen import (
    WORK_LEN,
    gen_moves_bb,
    gen_quiet_bb,
    has_capture_bb,
    mover_view,
)
from boardgym.kernels.draughts.outcome import (
    BALANCE_PLIES_4_5,
    BALANCE_PLIES_6_7,
    KINGS_ONLY_PLIES,
    LONG_DIAG_PLIES,
    RULES_ALL,
    THREE_KINGS_PLIES,
    has_legal_move,
    long_diag_balance,
)

ONE = np.int64(1)
MAX_SIDE = 7  # pieces of one kind in a signature id (ids are base 8)
N_SIGS = 8**4
NO_LIMIT = 1 << 30
LD_LAYERS = LONG_DIAG_PLIES  # G.2e: S_LONG_DIAG = 0..9 (10 is a draw)
N_MEN_SQ = 28  # squares a man may stand on (not its promotion row)
# probe results (the side to move's view)
WIN, DRAW, LOSS, UNKNOWN = 1, 0, -1, -2
# solver work codes (int16 ``dist``): UNSOLVED, INVALID, or the distance t >= 0
UNSOLVED = -1
INVALID = -2
# solve error codes
ERR_OK, ERR_MISSING_TABLE = 0, 1
T_MAX_WIN = 128  # largest t a byte holds: win 2t - 1 <= 255, loss 2t + 2 <= 254
T_MAX_LOSS = 126

BINOM = np.zeros((33, 8), dtype=np.int64)
for _n in range(33):
    BINOM[_n, 0] = 1
    for _k in range(1, min(_n, 7) + 1):
        BINOM[_n, _k] = BINOM[_n - 1, _k - 1] + (BINOM[_n - 1, _k] if _k <= _n - 1 else 0)


@njit(cache=True)
def sig_id(a, b, c, d):
    """Signature id of (White men, White kings, Black men, Black kings), each 0..7."""
    return ((a * 8 + b) * 8 + c) * 8 + d


@njit(cache=True)
def sig_size(a, b, c, d):
    """Number of index entries of signature (a, b, c, d) (one layer)."""
    return BINOM[N_MEN_SQ, a] * BINOM[N_MEN_SQ, c] * BINOM[32 - a - c, b] * BINOM[32 - a - c - b, d]


@njit(cache=True)
def sig_layers(a, b, c, d):
    """LD_LAYERS when the G.2e balance can hold in signature (a, b, c, d), else 1."""
    for s in range(2):
        lm, lk, sm, sk = (c, d, a, b) if s == 0 else (a, b, c, d)
        if (
            lm == 0
            and lk == 1
            and ((sk == 3 and sm == 0) or (sk == 2 and sm == 1) or (sk == 1 and sm == 2))
        ):
            return LD_LAYERS
    return 1


@njit(cache=True)
def sig_limit(a, b, c, d):
    """Most plies a phase of signature (a, b, c, d) may last from counters at zero (G.2b-G.2d)."""
    lim = NO_LIMIT
    total = a + b + c + d
    if a == 0 and c == 0:
        lim = min(lim, KINGS_ONLY_PLIES)  # G.2c, kings only
    if (a == 0 and b == 1 and d >= 3) or (c == 0 and d == 1 and b >= 3):
        lim = min(lim, THREE_KINGS_PLIES)  # G.2b
    if b >= 1 and d >= 1:
        if 4 <= total <= 5:
            lim = min(lim, BALANCE_PLIES_4_5)  # G.2d
        elif 6 <= total <= 7:
            lim = min(lim, BALANCE_PLIES_6_7)
    return lim


# ---- squares and the index --------------------------------------------------------------------
@njit(cache=True)
def _sq32_mask(bb):
    m = np.int64(0)
    while bb != 0:
        m |= ONE << GHOST_TO_SQ32[lsb(bb)]
        bb = pop_lsb(bb)
    return m


@njit(cache=True)
def _ghost_bb(m):
    bb = np.int64(0)
    while m != 0:
        bb |= ONE << SQ32_TO_GHOST[lsb(m)]
        m = pop_lsb(m)
    return bb


@njit(cache=True)
def _rank(mask, occ):
    """Colex rank of the squares of mask counted among the squares not in occ."""
    r = np.int64(0)
    j = 1
    while mask != 0:
        p = lsb(mask)
        mask = pop_lsb(mask)
        r += BINOM[p - popcount(occ & ((ONE << p) - ONE)), j]
        j += 1
    return r


@njit(cache=True)
def _unrank(r, k, occ):
    """The k squares (sq32 mask) of colex rank r among the squares not in occ."""
    rel = np.int64(0)
    p = 31
    for j in range(k, 0, -1):
        while BINOM[p, j] > r:
            p -= 1
        rel |= ONE << p
        r -= BINOM[p, j]
        p -= 1
    m = np.int64(0)
    i = 0
    for s in range(32):
        if (occ >> s) & ONE:
            continue
        if (rel >> i) & ONE:
            m |= ONE << s
        i += 1
    return m


@njit(cache=True)
def index_bb(wm, wk, bm, bk):
    """Index of the position (ghost bitboards, White to move) in its signature's table."""
    a, b, c, d = popcount(wm), popcount(wk), popcount(bm), popcount(bk)
    wm32, wk32, bm32, bk32 = _sq32_mask(wm), _sq32_mask(wk), _sq32_mask(bm), _sq32_mask(bk)
    i_wm = _rank(wm32, np.int64(0))
    i_bm = _rank(bm32 >> 4, np.int64(0))
    occ = wm32 | bm32
    i_wk = _rank(wk32, occ)
    i_bk = _rank(bk32, occ | wk32)
    return ((i_wm * BINOM[N_MEN_SQ, c] + i_bm) * BINOM[32 - a - c, b] + i_wk) * BINOM[
        32 - a - c - b, d
    ] + i_bk


@njit(cache=True)
def unindex_bb(a, b, c, d, idx):
    """(wm, wk, bm, bk, ok): the ghost bitboards of entry idx of signature (a, b, c, d); ok is
    False for an unused entry (White and Black men on one square)."""
    n = BINOM[32 - a - c - b, d]
    i_bk = idx % n
    idx //= n
    n = BINOM[32 - a - c, b]
    i_wk = idx % n
    idx //= n
    n = BINOM[N_MEN_SQ, c]
    i_bm = idx % n
    i_wm = idx // n
    zero = np.int64(0)
    wm32 = _unrank(i_wm, a, zero)
    bm32 = _unrank(i_bm, c, zero) << 4
    if wm32 & bm32:
        return zero, zero, zero, zero, False
    occ = wm32 | bm32
    wk32 = _unrank(i_wk, b, occ)
    bk32 = _unrank(i_bk, d, occ | wk32)
    return _ghost_bb(wm32), _ghost_bb(wk32), _ghost_bb(bm32), _ghost_bb(bk32), True


@njit(cache=True)
def _rot(bb):
    """The bitboard turned 180 degrees (ghost bit i -> 35 - i)."""
    r = np.int64(0)
    while bb != 0:
        r |= ONE << (35 - lsb(bb))
        bb = pop_lsb(bb)
    return r


@njit(cache=True)
def flip_bb(wm, wk, bm, bk):
    """The colour mirror: the board turned 180 degrees with the colours swapped."""
    return _rot(bm), _rot(bk), _rot(wm), _rot(wk)


# ---- looking values up -----------------------------------------------------------------------
@njit(cache=True)
def decode(code):
    """(WIN / DRAW / LOSS, t) of a table byte."""
    if code == 0:
        return DRAW, -1
    if code & 1:
        return WIN, (code + 1) >> 1
    return LOSS, (code - 2) >> 1


@njit(cache=True, inline="always")
def _code(win, t):
    """Table byte of a win / loss in t plies; t beyond a byte (only in signatures without a
    ply limit, where any t is within the budget) is stored as the largest t that fits."""
    if win:
        return 2 * min(t, T_MAX_WIN) - 1
    return 2 * min(t, T_MAX_LOSS) + 2


@njit(cache=True, _nrt=False)
def lookup_bb(data, offsets, layers, wm, wk, bm, bk, side, layer):
    """Table byte of a whole-move position (any side to move) at G.2e layer ``layer`` (0 if the
    signature has one layer), or -1 when its signature is not in the tables. A side without
    pieces: the side to move loses at once (byte 2) or wins with its next move (byte 1; byte 2 if
    it has none, G.1)."""
    if side == 1:  # the mover's counts first; the board is turned only for a table present
        a, b, c, d = popcount(bm), popcount(bk), popcount(wm), popcount(wk)
    else:
        a, b, c, d = popcount(wm), popcount(wk), popcount(bm), popcount(bk)
    if a + b == 0:
        return 2
    if c + d == 0:
        return 1 if has_legal_move(wm, wk, bm, bk, side) else 2
    if a > MAX_SIDE or b > MAX_SIDE or c > MAX_SIDE or d > MAX_SIDE:
        return -1
    s = sig_id(a, b, c, d)
    off = offsets[s]
    if off < 0:
        return -1
    if layers[s] == 1:
        layer = 0
    if side == 1:
        wm, wk, bm, bk = flip_bb(wm, wk, bm, bk)
    return np.int64(data[off + layer * sig_size(a, b, c, d) + index_bb(wm, wk, bm, bk)])


@njit(cache=True, _nrt=False)
def probe_state(data, offsets, layers, state):
    """(WIN / DRAW / LOSS / UNKNOWN, t) for the side to move of a position vector, with its draw
    counters applied (module docstring). UNKNOWN: not in the tables, mid-capture, or a draw-rule
    mask other than RULES_ALL. t: plies to the conversion (-1 for a draw)."""
    if state[S_CAP_SQ] >= 0 or state[S_RULES] != RULES_ALL:
        return UNKNOWN, -1
    wm, wk, bm, bk, side = state[S_WM], state[S_WK], state[S_BM], state[S_BK], state[S_SIDE]
    layer = state[S_LONG_DIAG]
    if layer < 0:
        layer = 0
    if layer >= LD_LAYERS:
        return DRAW, -1
    code = lookup_bb(data, offsets, layers, wm, wk, bm, bk, side, layer)
    if code < 0:
        return UNKNOWN, -1
    res, t = decode(code)
    if res == DRAW:
        return DRAW, -1
    a, b, c, d = popcount(wm), popcount(wk), popcount(bm), popcount(bk)
    total = a + b + c + d
    budget = NO_LIMIT
    if a == 0 and c == 0:
        budget = min(budget, KINGS_ONLY_PLIES - state[S_KINGS_ONLY])
    if (a == 0 and b == 1 and d >= 3) or (c == 0 and d == 1 and b >= 3):
        budget = min(budget, THREE_KINGS_PLIES - state[S_MATERIAL])
    if b >= 1 and d >= 1:
        if 4 <= total <= 5:
            budget = min(budget, BALANCE_PLIES_4_5 - state[S_MATERIAL])
        elif 6 <= total <= 7:
            budget = min(budget, BALANCE_PLIES_6_7 - state[S_MATERIAL])
    if t > budget:
        return DRAW, -1
    if a + c > 0 and b + d > 0 and t > KINGS_ONLY_PLIES - state[S_KINGS_ONLY]:
        return UNKNOWN, -1  # G.2c with men is not in the tables: only a phase inside its window
    return res, t


# ---- solving ----------------------------------------------------------------------------------
@njit(cache=True)
def _child_layer(nl, bal_p, layer, cwm, cwk, cbm, cbk):
    """G.2e layer of a quiet move's child (LD_LAYERS: the child is drawn by G.2e)."""
    if nl == 1:
        return 0
    if long_diag_balance(cwm, cwk, cbm, cbk):
        return layer + 1 if bal_p else 0
    return 0


@njit(cache=True)
def solve_init(sigs, nt, data, offsets, layers, dist, win, cnt, esc):
    """First look at every entry of a signature and its mirror (sigs int64[2, 4]; nt 1 if the
    signature is its own mirror, else 2). Work arrays, one entry per (table, layer, index) in
    that order: dist int16 (t, UNSOLVED or INVALID), win int8, cnt int16 (quiet non-crowning
    moves still undecided), esc int8 (a move reaches a draw). Returns an ERR_* code."""
    work = np.empty(WORK_LEN, dtype=np.int64)
    mv = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    base = 0
    for t in range(nt):
        a, b, c, d = sigs[t, 0], sigs[t, 1], sigs[t, 2], sigs[t, 3]
        size = sig_size(a, b, c, d)
        nl = sig_layers(a, b, c, d)
        lim = sig_limit(a, b, c, d)
        for idx in range(size):
            wm, wk, bm, bk, ok = unindex_bb(a, b, c, d, idx)
            if not ok:
                for layer in range(nl):
                    dist[base + layer * size + idx] = INVALID
                continue
            n = gen_moves_bb(wm, wk, bm, bk, 0, work, mv)
            bal = nl > 1 and long_diag_balance(wm, wk, bm, bk)
            for layer in range(nl):
                e = base + layer * size + idx
                if layer > 0 and not bal:
                    dist[e] = INVALID
                    continue
                win[e] = 0
                esc[e] = 0
                cnt[e] = 0
                dist[e] = UNSOLVED
                if n == 0:
                    dist[e] = 0  # G.1: no legal move, a loss
                    continue
                win1 = False
                count = 0
                for i in range(n):
                    cwm, cwk, cbm, cbk = apply_bb(
                        wm,
                        wk,
                        bm,
                        bk,
                        0,
                        mv[i, M_FROM],
                        mv[i, M_TO],
                        mv[i, M_CAPTURED],
                        mv[i, M_PROMOTE],
                    )
                    if mv[i, M_CAPTURED] != 0 or mv[i, M_PROMOTE] != 0:
                        code = lookup_bb(data, offsets, layers, cwm, cwk, cbm, cbk, 1, 0)
                        if code < 0:
                            return ERR_MISSING_TABLE
                        if code == 0:
                            esc[e] = 1
                        elif (code & 1) == 0:
                            win1 = True  # the opponent loses after the conversion
                        continue
                    cl = _child_layer(nl, bal, layer, cwm, cwk, cbm, cbk)
                    if cl >= LD_LAYERS:  # G.2e draw, unless the opponent cannot move (G.1)
                        if has_legal_move(cwm, cwk, cbm, cbk, 1):
                            esc[e] = 1
                        else:
                            win1 = True
                        continue
                    count += 1
                if win1 and lim >= 1:
                    dist[e] = 1
                    win[e] = 1
                elif count == 0 and esc[e] == 0 and lim >= 1:
                    dist[e] = 1  # every move converts into a win of the opponent
                cnt[e] = count
        base += nl * size
    return ERR_OK


@njit(cache=True)
def solve_level(sigs, nt, level, dist, win, cnt, esc):
    """Decide the predecessors (distance level + 1) of the entries decided at distance level.
    Returns how many entries were decided."""
    mv = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    bases = np.zeros(2, dtype=np.int64)
    sizes = np.zeros(2, dtype=np.int64)
    nls = np.zeros(2, dtype=np.int64)
    for t in range(nt):
        sizes[t] = sig_size(sigs[t, 0], sigs[t, 1], sigs[t, 2], sigs[t, 3])
        nls[t] = sig_layers(sigs[t, 0], sigs[t, 1], sigs[t, 2], sigs[t, 3])
    if nt == 2:
        bases[1] = nls[0] * sizes[0]
    decided = 0
    for t in range(nt):
        o = 1 - t if nt == 2 else 0  # the table of the predecessors (the mirror)
        a, b, c, d = sigs[t, 0], sigs[t, 1], sigs[t, 2], sigs[t, 3]
        size, nl = sizes[t], nls[t]
        for e0 in range(nl * size):
            e = bases[t] + e0
            if dist[e] != level:
                continue
            layer = e0 // size
            idx = e0 % size
            wm, wk, bm, bk, ok = unindex_bb(a, b, c, d, idx)
            # the child as the predecessor's table sees it: Black to move, White just moved
            pwm, pwk, pbm, pbk = flip_bb(wm, wk, bm, bk)
            bal_c = nl > 1 and long_diag_balance(pwm, pwk, pbm, pbk)
            empty = BB_SQUARES & ~(pwm | pwk | pbm | pbk)
            child_win = win[e] != 0
            for kind in range(2):
                if kind == 0:  # a king slid back along its ray
                    n = gen_quiet_bb(np.int64(0), pwk, empty, np.int64(0), mv)
                else:  # a man stepped back (a step of the other colour's man)
                    n = gen_quiet_bb(pwm, np.int64(0), empty, np.int64(1), mv)
                for i in range(n):
                    fr = ONE << mv[i, M_FROM]
                    to = ONE << mv[i, M_TO]
                    qwm, qwk = pwm, pwk
                    if kind == 0:
                        qwk = (pwk & ~fr) | to
                    else:
                        qwm = (pwm & ~fr) | to
                    us_m, us_k, them, emp = mover_view(qwm, qwk, pbm, pbk, 0)
                    if has_capture_bb(us_m, us_k, them, emp):
                        continue  # 25.1: that position had to capture
                    pidx = index_bb(qwm, qwk, pbm, pbk)
                    psize = sizes[o]
                    lo, hi = 0, 1
                    if nls[o] > 1:
                        bal_p = long_diag_balance(qwm, qwk, pbm, pbk)
                        if bal_c:
                            if layer == 0:
                                if bal_p:
                                    continue
                            else:
                                if not bal_p:
                                    continue
                                lo, hi = layer - 1, layer
                        elif bal_p:
                            lo, hi = 0, nls[o]
                    for pl in range(lo, hi):
                        pe = bases[o] + pl * psize + pidx
                        if dist[pe] != UNSOLVED:
                            continue
                        if not child_win:
                            dist[pe] = level + 1
                            win[pe] = 1
                            decided += 1
                        else:
                            cnt[pe] -= 1
                            if cnt[pe] == 0 and esc[pe] == 0:
                                dist[pe] = level + 1
                                decided += 1
    return decided


@njit(cache=True)
def solve_codes(sigs, nt, dist, win, out):
    """Table bytes (module docstring) of the solved work arrays into out (uint8, same layout):
    entries beyond the signature's limit and undecided ones are draws."""
    base = 0
    for t in range(nt):
        a, b, c, d = sigs[t, 0], sigs[t, 1], sigs[t, 2], sigs[t, 3]
        n = sig_layers(a, b, c, d) * sig_size(a, b, c, d)
        lim = sig_limit(a, b, c, d)
        for e in range(base, base + n):
            td = np.int64(dist[e])
            if td < 0 or td > lim:
                out[e] = 0
            else:
                out[e] = _code(win[e] != 0, td)
        base += n


@njit(cache=True)
def verify_table(a, b, c, d, data, offsets, layers, bad):
    """Check every entry of a finished table against its children (forward generation only):
    the entry must be what its moves give. Writes the first mismatching entries' (layer * size
    + index) into bad (int64[k]) and returns the number of mismatches."""
    work = np.empty(WORK_LEN, dtype=np.int64)
    mv = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    size = sig_size(a, b, c, d)
    nl = sig_layers(a, b, c, d)
    lim = sig_limit(a, b, c, d)
    off = offsets[sig_id(a, b, c, d)]
    nbad = 0
    for idx in range(size):
        wm, wk, bm, bk, ok = unindex_bb(a, b, c, d, idx)
        if not ok:
            continue
        bal = nl > 1 and long_diag_balance(wm, wk, bm, bk)
        n = gen_moves_bb(wm, wk, bm, bk, 0, work, mv)
        for layer in range(nl if bal else 1):
            best_win = NO_LIMIT  # least t of a move that wins
            worst_loss = -1  # most t of the moves, when all lose
            all_lose = True
            sat = False  # a child's t was saturated (_code): only a lower bound is known
            for i in range(n):
                cwm, cwk, cbm, cbk = apply_bb(
                    wm,
                    wk,
                    bm,
                    bk,
                    0,
                    mv[i, M_FROM],
                    mv[i, M_TO],
                    mv[i, M_CAPTURED],
                    mv[i, M_PROMOTE],
                )
                if mv[i, M_CAPTURED] != 0 or mv[i, M_PROMOTE] != 0:
                    code = lookup_bb(data, offsets, layers, cwm, cwk, cbm, cbk, 1, 0)
                    ct = 0
                else:
                    cl = _child_layer(nl, bal, layer, cwm, cwk, cbm, cbk)
                    if cl >= LD_LAYERS:
                        code = 0 if has_legal_move(cwm, cwk, cbm, cbk, 1) else 2
                        ct = 0
                    else:
                        code = lookup_bb(data, offsets, layers, cwm, cwk, cbm, cbk, 1, cl)
                        ct = -1
                        if code >= 2 * T_MAX_LOSS + 2:
                            sat = True
                res, tt = decode(code)
                if ct < 0:
                    ct = tt
                if res == LOSS:
                    best_win = min(best_win, ct)
                    all_lose = False
                elif res == WIN:
                    worst_loss = max(worst_loss, ct)
                else:
                    all_lose = False
            if n == 0:
                want = _code(False, 0)
            elif best_win < NO_LIMIT and best_win + 1 <= lim:
                want = _code(True, best_win + 1)
            elif all_lose and worst_loss + 1 <= lim:
                want = _code(False, worst_loss + 1)
            else:
                want = 0
            got = data[off + layer * size + idx]
            if got != want and sat:
                gr, gt = decode(got)
                wr, wt = decode(want)
                if gr == wr and gt >= wt:
                    continue
            if got != want:
                if nbad < bad.shape[0]:
                    bad[nbad] = layer * size + idx
                nbad += 1
    return nbad


@njit(cache=True, _nrt=False)
def search_score(data, offsets, layers, state, ply, win_score):
    """(hit, score) for a search node: hit False when the tables do not decide the position
    (probe_state UNKNOWN); else the side to move's score: 0 for a draw, ``win_score - 200 - ply
    - t`` for a win (so that a real mate, ``win_score - ply``, ranks above it) and its negative
    for a loss."""
    res, t = probe_state(data, offsets, layers, state)
    if res == UNKNOWN:
        return False, np.int64(0)
    if res == DRAW:
        return True, np.int64(0)
    v = np.int64(win_score - 200 - ply - t)
    return True, v if res == WIN else -v


@njit(cache=True)
def probe_moves(data, offsets, layers, state, rows, children, out_res, out_t):
    """The legal moves of a whole-move position into rows (int64[MAX_MOVES, ROW_LEN]), the
    positions after them into children (int64[MAX_MOVES, STATE_LEN]) and probe_state of each
    (the opponent's view) into out_res / out_t (int64[MAX_MOVES]). Returns the number of moves."""
    n = gen_moves(state, rows)
    for i in range(n):
        children[i] = play_move(state, rows[i])
        out_res[i], out_t[i] = probe_state(data, offsets, layers, children[i])
    return n
