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


@njit(cache=True)
def _record(w, score, key, out, keys, acc):
    """Keep leaf w if its score is the best so far and its placement is new."""
    if score < acc[1]:
        return
    if score > acc[1]:
        acc[1] = score
        acc[0] = 0
    n = acc[0]
    for j in range(n):
        if keys[j] == key and same_board(out[j], w):
            return
    if n >= out.shape[0]:
        acc[2] = 1
        return
    for k in range(STATE_LEN):
        out[n, k] = w[k]
    for v in range(6):
        out[n, DICE + v] = 0
    keys[n] = key
    acc[0] = n + 1


@njit(cache=True)
def _search(w, a, b, nd, depth, maxsrc, key, out, keys, acc):
    """Depth-first over the dice (a first, then b; nd moves at most) recording maximal leaves."""
    if depth < nd:
        d = a if depth == 0 else b
        full = source_mask(w, d)
        if full != 0:
            srcs = full
            if a == b:  # doubles: sources never increase along a play
                srcs &= (np.int64(1) << maxsrc) - 1
            while srcs != 0:
                i = lsb(srcs)
                srcs &= srcs - 1
                sp = i + 1
                t = sp - d
                hit = do_move(w, sp, d)
                nkey = key - KEY_ME[sp] + KEY_ME[t if t > 0 else 0]
                if hit:
                    nkey += KEY_HIT[t]
                _search(w, a, b, nd, depth + 1, sp, nkey, out, keys, acc)
                undo_move(w, sp, d, hit)
            return
    score = 8 * depth
    if depth == 1 and a != b:  # B.5: only one die usable -> prefer the higher
        score += a
    _record(w, score, key, out, keys, acc)


@njit(cache=True)
def gen_afterstates_keys(state, d1, d2, out, keys):
    """gen_afterstates with a caller-owned key buffer keys (int64[len(out)])."""
    w = state.copy()
    acc = np.zeros(3, dtype=np.int64)
    acc[1] = -1
    if d1 == d2:
        _search(w, d1, d1, 4, 0, BAR_POINT, np.int64(0), out, keys, acc)
    else:
        _search(w, d1, d2, 2, 0, BAR_POINT, np.int64(0), out, keys, acc)
        _search(w, d2, d1, 2, 0, BAR_POINT, np.int64(0), out, keys, acc)
    if acc[2] != 0:
        return -1
    return acc[0]


@njit(cache=True)
def gen_afterstates(state, d1, d2, out):
    """Distinct legal whole-turn afterstates of roll d1-d2 into out (int64[N, STATE_LEN]) -> count.

    state's own dice are ignored. Each row is the position right after the play, still from the
    mover's view (before the turn passes), dice cleared. With no legal move the single row is the
    unchanged position (the pass). Returns -1 if out is too small (N >= MAX_AFTERSTATES is safe).
    """
    keys = np.empty(out.shape[0], dtype=np.int64)
    return gen_afterstates_keys(state, d1, d2, out, keys)


@njit(cache=True)
def _max_dice(w, a, b, nd, depth, maxsrc):
    """Most dice usable from w playing a first then b (nd moves at most) -> int."""
    if depth == nd:
        return depth
    d = a if depth == 0 else b
    srcs = source_mask(w, d)
    if a == b:
        srcs &= (np.int64(1) << maxsrc) - 1
    best = depth
    while srcs != 0:
        i = lsb(srcs)
        srcs &= srcs - 1
        sp = i + 1
        hit = do_move(w, sp, d)
        r = _max_dice(w, a, b, nd, depth + 1, sp)
        undo_move(w, sp, d, hit)
        if r > best:
            best = r
            if best == nd:
                break
    return best


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
        return _max_dice(w, a, a, n, 0, BAR_POINT)
    r = _max_dice(w, a, b, 2, 0, BAR_POINT)
    if r < 2:
        r2 = _max_dice(w, b, a, 2, 0, BAR_POINT)
        if r2 > r:
            r = r2
    return r
