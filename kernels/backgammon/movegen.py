"""Backgammon play generation: single checker moves and whole-turn afterstates.

A checker move is (source point sp, die d), sp in 1..24 or ``BAR_POINT`` = 25, landing on
sp - d; a landing point <= 0 bears the checker off. One generator serves both players: the
state is always seen from the mover's side (board.py).

Rules implemented (../shared/RULES.md):
    B.1/B.2  a die moves one checker d points onto a point without two or more opponent checkers.
    B.3      landing on a single opponent checker (a blot) sends it to the opponent's bar.
    B.4      a double is four moves of that value.
    B.5      a play uses as many dice as any sequence allows; when only one die of a non-double can
             be used, the higher one if it can be (scored as 8 * dice_used + higher die).
    B.6      plays are deduplicated by resulting checker placement.
    E.1-E.7  while the mover has a checker on the bar the only legal source is the bar; the die d
             enters on point 25 - d (opponent's home point d) unless it is blocked; whatever
             cannot be used is lost; an entered checker may continue with the other die.
    O.1/O.2  bearing off only with every checker in points 1..6 and none on the bar; exact die
             from point d, or a higher die from the highest occupied point.

Search: depth-first over the dice with in-place move / undo on one scratch copy. Non-doubles try
both die orders; doubles only generate moves whose sources never increase (every multiset of
moves of one die value has a legal ordering of that kind), which cuts permutations. Leaves are
kept when their score equals the best score so far and their placement is new (additive hash,
confirmed by comparing boards), all written into a caller-owned buffer.
"""
import numpy as np
from numba import njit

from boardgym.kernels.bits import lsb, msb
from boardgym.kernels.backgammon.board import (
    BAR_ME, BAR_OPP, BAR_POINT, BB_ALL, BB_HOME, BB_ME, BB_OPP2, BOARD_LEN, DICE, KEY_HIT,
    KEY_ME, ME, OFF_ME, OPP, STATE_LEN, same_board, set_me_bits, set_opp_bits,
)

# Safe output buffer size for gen_afterstates: GNU Backgammon sizes its move list at 3060 plays
# (the most any position/roll allows); 4096 leaves room.
MAX_AFTERSTATES = 4096


@njit(cache=True, inline="always")
def source_mask(s, d):
    """Sources that can move die d now, as bits sp - 1 (bit 24 = the bar): int64."""
    if s[BAR_ME] > 0:  # E.1: nothing moves while a checker is on the bar
        if (s[BB_OPP2] >> (24 - d)) & 1:  # E.2: enters on point 25 - d unless blocked
            return np.int64(0)
        return np.int64(1) << 24
    me = s[BB_ME]
    free = ~s[BB_OPP2] & BB_ALL
    m = me & (free << d) & BB_ALL  # B.1/B.2: landing point sp - d >= 1 not blocked
    if (me & ~BB_HOME) == 0 and me != 0:  # O.1: all checkers home
        m |= me & (np.int64(1) << (d - 1))  # O.2: exact die from point d
        h = msb(me)
        if h < d - 1:  # O.2: higher die from the highest occupied point
            m |= np.int64(1) << h
    return m


@njit(cache=True, inline="always")
def do_move(s, sp, d):
    """Move one checker from sp (1..25) by d in place; return 1 when it hit a blot (B.3), else 0."""
    if sp == BAR_POINT:
        s[BAR_ME] -= 1
    else:
        s[ME + sp - 1] -= 1
        set_me_bits(s, sp - 1)
    t = sp - d
    if t <= 0:
        s[OFF_ME] += 1
        return 0
    hit = 0
    if s[OPP + t - 1] == 1:
        s[OPP + t - 1] = 0
        s[BAR_OPP] += 1
        set_opp_bits(s, t - 1)
        hit = 1
    s[ME + t - 1] += 1
    set_me_bits(s, t - 1)
    return hit


@njit(cache=True, inline="always")
def undo_move(s, sp, d, hit):
    """Undo do_move(s, sp, d) that returned hit."""
    t = sp - d
    if t <= 0:
        s[OFF_ME] -= 1
    else:
        s[ME + t - 1] -= 1
        set_me_bits(s, t - 1)
        if hit:
            s[OPP + t - 1] = 1
            s[BAR_OPP] -= 1
            set_opp_bits(s, t - 1)
    if sp == BAR_POINT:
        s[BAR_ME] += 1
    else:
        s[ME + sp - 1] += 1
        set_me_bits(s, sp - 1)


# Scratch layout for one generation call (one int64 allocation, no zeroing needed):
# [0:3] n / best score / overflow flag, [3:8] untried sources per depth, [8:13] source moved,
# [13:18] hit flag, [18:23] placement key per depth, [24:24+STATE_LEN] the work position,
# then per output row its key and hash slot, then the hash table (a "sparse set": a slot is live
# only when it points at a kept row that points back at it, so it never has to be cleared).
_SC_N, _SC_BEST, _SC_OVER = 0, 1, 2
_SC_SRCS, _SC_SPS, _SC_HITS, _SC_KEYS = 3, 8, 13, 18
_SC_W = 24
_SC_ROWS = _SC_W + STATE_LEN


def scratch_size(cap):
    """int64 entries gen_afterstates_scratch needs for an output buffer of cap rows."""
    t = 1
    while t < 2 * cap:
        t *= 2
    return _SC_ROWS + 2 * cap + t


@njit(cache=True, inline="always")
def _probe(sc, out, key, cap, tmask, sp, d):
    """Hash slot where a leaf with key belongs, or -1 when an equal placement is already kept.

    The leaf is the work position after moving sp by d (sp == 0: the work position itself)."""
    n = sc[_SC_N]
    rowkey = _SC_ROWS
    rowslot = _SC_ROWS + cap
    table = _SC_ROWS + 2 * cap
    slot = key & tmask
    while True:
        j = sc[table + slot]
        if j < 0 or j >= n or sc[rowslot + j] != slot:
            return slot
        if sc[rowkey + j] == key:
            w = sc[_SC_W:_SC_W + STATE_LEN]
            if sp == 0:
                if same_board(out[j], w):
                    return -1
            else:
                hit = do_move(w, sp, d)
                eq = same_board(out[j], w)
                undo_move(w, sp, d, hit)
                if eq:
                    return -1
        slot = (slot + 1) & tmask


@njit(cache=True, inline="always")
def _keep(sc, out, key, slot, cap):
    """Copy the work position into the next output row, registered under key at slot."""
    n = sc[_SC_N]
    if n >= cap:
        sc[_SC_OVER] = 1
        return
    for k in range(STATE_LEN):
        out[n, k] = sc[_SC_W + k]
    for v in range(6):
        out[n, DICE + v] = 0
    sc[_SC_ROWS + n] = key
    sc[_SC_ROWS + cap + n] = slot
    sc[_SC_ROWS + 2 * cap + slot] = n
    sc[_SC_N] = n + 1


@njit(cache=True, inline="always")
def _rescore(sc, score):
    """Apply score to the kept set: False if the leaf is worse; a better score empties the set."""
    if score < sc[_SC_BEST]:
        return False
    if score > sc[_SC_BEST]:
        sc[_SC_BEST] = score
        sc[_SC_N] = 0
    return True


@njit(cache=True)
def _search(sc, a, b, nd, out, cap, tmask):
    """Depth-first over the dice (a first, then b; nd moves at most) keeping maximal leaves.

    Iterative with a 4-deep stack in sc (Numba's cache cannot link self-recursive functions);
    the work position sc[_SC_W:] is modified in place and restored on return. The last move of a
    play is not made on the board unless its leaf is new.
    """
    w = sc[_SC_W:_SC_W + STATE_LEN]
    depth = 0
    sc[_SC_KEYS] = 0
    sc[_SC_SRCS] = source_mask(w, a)
    if sc[_SC_SRCS] == 0:
        if _rescore(sc, 0):
            slot = _probe(sc, out, np.int64(0), cap, tmask, 0, 0)
            if slot >= 0:
                _keep(sc, out, np.int64(0), slot, cap)
        return
    while True:
        srcs = sc[_SC_SRCS + depth]
        if srcs == 0:
            if depth == 0:
                return
            depth -= 1
            undo_move(w, sc[_SC_SPS + depth], a if depth == 0 else b, sc[_SC_HITS + depth])
            continue
        d = a if depth == 0 else b
        i = lsb(srcs)
        sc[_SC_SRCS + depth] = srcs & (srcs - 1)
        sp = i + 1
        t = sp - d
        key = sc[_SC_KEYS + depth] - KEY_ME[sp]
        if t > 0:
            key += KEY_ME[t]
            if w[OPP + t - 1] == 1:
                key += KEY_HIT[t]
        else:
            key += KEY_ME[0]
        if depth == nd - 1:  # last die: a full play, made on the board only if new
            if _rescore(sc, 8 * nd):
                slot = _probe(sc, out, key, cap, tmask, sp, d)
                if slot >= 0:
                    hit = do_move(w, sp, d)
                    _keep(sc, out, key, slot, cap)
                    undo_move(w, sp, d, hit)
            continue
        hit = do_move(w, sp, d)
        sc[_SC_SPS + depth] = sp
        sc[_SC_HITS + depth] = hit
        depth += 1
        sc[_SC_KEYS + depth] = key
        full = source_mask(w, b)
        if full == 0:  # nothing more can move: a shorter play
            score = 8 * depth
            if depth == 1 and a != b:  # B.5: only one die usable -> prefer the higher
                score += a
            if _rescore(sc, score):
                slot = _probe(sc, out, key, cap, tmask, 0, 0)
                if slot >= 0:
                    _keep(sc, out, key, slot, cap)
            depth -= 1
            undo_move(w, sp, d, hit)
            continue
        if a == b:  # doubles: sources never increase along a play
            full &= (np.int64(1) << sp) - 1
        sc[_SC_SRCS + depth] = full


@njit(cache=True)
def gen_afterstates_scratch(state, d1, d2, out, sc):
    """gen_afterstates with caller-owned scratch sc (int64[scratch_size(len(out))])."""
    cap = out.shape[0]
    t = sc.shape[0] - _SC_ROWS - 2 * cap
    for k in range(STATE_LEN):
        sc[_SC_W + k] = state[k]
    sc[_SC_N] = 0
    sc[_SC_BEST] = -1
    sc[_SC_OVER] = 0
    if d1 == d2:
        _search(sc, d1, d1, 4, out, cap, t - 1)
    else:
        _search(sc, d1, d2, 2, out, cap, t - 1)
        _search(sc, d2, d1, 2, out, cap, t - 1)
    if sc[_SC_OVER] != 0:
        return -1
    return sc[_SC_N]


@njit(cache=True)
def gen_afterstates(state, d1, d2, out):
    """Distinct legal whole-turn afterstates of roll d1-d2 into out (int64[N, STATE_LEN]) -> count.

    state's own dice are ignored. Each row is the position right after the play, still from the
    mover's view (before the turn passes), dice cleared. With no legal move the single row is the
    unchanged position (the pass). Returns -1 if out is too small (N >= MAX_AFTERSTATES is safe).
    """
    cap = out.shape[0]
    t = 1
    while t < 2 * cap:
        t *= 2
    sc = np.empty(_SC_ROWS + 2 * cap + t, dtype=np.int64)
    return gen_afterstates_scratch(state, d1, d2, out, sc)


@njit(cache=True)
def _max_dice(w, a, b, nd):
    """Most dice usable from w playing a first then b (nd moves at most) -> int; w restored."""
    if nd == 0:
        return 0
    srcs = np.zeros(5, dtype=np.int64)
    sps = np.zeros(5, dtype=np.int64)
    hits = np.zeros(5, dtype=np.int64)
    depth = 0
    best = 0
    srcs[0] = source_mask(w, a)
    while True:
        if srcs[depth] == 0 or best == nd:
            if depth == 0:
                return best
            depth -= 1
            undo_move(w, sps[depth], a if depth == 0 else b, hits[depth])
            continue
        d = a if depth == 0 else b
        i = lsb(srcs[depth])
        srcs[depth] &= srcs[depth] - 1
        sp = i + 1
        sps[depth] = sp
        hits[depth] = do_move(w, sp, d)
        depth += 1
        if depth > best:
            best = depth
        full = np.int64(0)
        if depth < nd:
            full = source_mask(w, b)
            if a == b:
                full &= (np.int64(1) << sp) - 1
        srcs[depth] = full


@njit(cache=True)
def remaining_dice(s):
    """The dice s still has to play as (a, b, n): n moves, first die a, the rest b (a == b for doubles)."""
    a = 0
    b = 0
    n = 0
    for v in range(6, 0, -1):
        c = s[DICE + v - 1]
        if c > 0:
            if n == 0:
                a = v
                b = v
            else:
                b = v
            n += c
    return a, b, n


@njit(cache=True)
def max_dice_usable(s):
    """Most of s's remaining dice one legal sequence can use (B.5) -> int (work copy inside)."""
    a, b, n = remaining_dice(s)
    if n == 0:
        return 0
    w = s.copy()
    if a == b:
        return _max_dice(w, a, a, n)
    r = _max_dice(w, a, b, 2)
    if r < 2:
        r2 = _max_dice(w, b, a, 2)
        if r2 > r:
            r = r2
    return r
