"""Backgammon play generation: single checker moves and whole-turn afterstates.

A checker move is (source point sp, die d), sp in 1..24 or ``BAR_POINT`` = 25, landing on
sp - d; a landing point <= 0 bears the checker off. One generator serves both players: the
state is always seen from the mover's side (board.py).

Rules implemented (boardgym/RULES.md):
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
both die orders (the second order skips second moves the first order already made); doubles
only generate moves whose sources never increase (every multiset of moves of one die value has
a legal ordering of that kind), which cuts permutations. Leaves are kept when their score equals
the best score so far and their placement is new, all written into a caller-owned buffer.
Newness is decided without comparing boards: doubles and most non-doubles cannot repeat a
position (proofs in ``_search``'s docstring); otherwise an exact two-word placement key goes into
a small hash set. ``gen_plays`` also writes each kept play's route (the moves reaching it, in the
form notation writes); with ``routes=None`` the route code is not even compiled in
(``gen_afterstates``), so afterstates alone cost what they did before routes.
"""

import numpy as np
from numba import njit, types
from numba.extending import overload

from boardgym.kernels.backgammon.board import (
    BAR_ME,
    BAR_OPP,
    BAR_POINT,
    BB_ALL,
    BB_HOME,
    BB_ME,
    BB_ME2,
    BB_OPP,
    BB_OPP2,
    DICE,
    ME,
    OFF_ME,
    OPP,
    STATE_LEN,
    copy_state_to_row,
    set_me_bits,
    set_opp_bits,
)
from boardgym.kernels.bits import lsb, msb, popcount

# Safe output buffer size for gen_afterstates: GNU Backgammon bounds a move list by
# MAX_MOVES = 3060 complete plays (eval.h); 4096 leaves room. Non-doubles never exceed 512.
MAX_AFTERSTATES = 4096

# Routes (gen_plays): one move sequence per afterstate, int64[N, MAX_MOVES, MV_FIELDS]; move k of
# play r is routes[r, k] = (from 1..25 with 25 = the bar, to 0..24 with 0 = off, die, hit 0/1);
# unused moves are all zero (from == 0 ends the route). The route is the one play notation
# writes: a checker moved on is one chain (P/I then I/Q, never I/Q then P/I), and when two
# checkers land on one blot the one from the lower point moves first and hits.
MAX_MOVES = 4
MV_FROM, MV_TO, MV_DIE, MV_HIT = 0, 1, 2, 3
MV_FIELDS = 4


# source_mask, do_move and undo_move (and board.set_me_bits / set_opp_bits) are called, not
# inlined in Numba's IR: each is compiled once, where inline="always" retyped and recompiled
# it at every call site (a third of a cold backgammon game's compile time); LLVM still inlines
# the calls, so the generated code runs as fast.
@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


def _wrap(v):
    """A Python int as the int64 with the same low 64 bits."""
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


# Exact placement key of an afterstate, two int64 words updated incrementally along a play:
# word 0 holds the mover's counts on points 1..15 (4 bits each), word 1 the counts on 16..24,
# the mover's bar (bits 36..39) and the opponent's occupancy BB_OPP (bits 40..63). Within one
# generation call the opponent only loses blots, so BB_OPP fixes its placement, and the mover's
# borne-off count is 15 minus the rest: equal words <=> equal positions (B.6), no hash collisions.
# PLACE_K0/1[x]: what one mover checker on place x (0 = off, 1..24, 25 = bar) adds to each word;
# HIT_K1[t]: what hitting the blot on point t adds to word 1.
PLACE_K0 = np.zeros(26, dtype=np.int64)
PLACE_K1 = np.zeros(26, dtype=np.int64)
HIT_K1 = np.zeros(26, dtype=np.int64)
for _x in range(1, 16):
    PLACE_K0[_x] = 1 << (4 * (_x - 1))
for _x in range(16, 25):
    PLACE_K1[_x] = 1 << (4 * (_x - 16))
PLACE_K1[BAR_POINT] = 1 << 36
for _x in range(1, 25):
    HIT_K1[_x] = _wrap(-(1 << (40 + _x - 1)))
for _t in (PLACE_K0, PLACE_K1, HIT_K1):
    _t.setflags(write=False)


@njit(cache=True)
def placement_key(s):
    """The exact two-word placement key (k0, k1) of s (see PLACE_K0)."""
    k0 = np.int64(0)
    k1 = np.int64(0)
    for p in range(1, 25):
        c = s[ME + p - 1]
        k0 += c * PLACE_K0[p]
        k1 += c * PLACE_K1[p]
    k1 += s[BAR_ME] * PLACE_K1[BAR_POINT]
    k1 += s[BB_OPP] << 40
    return k0, k1


# Scratch layout for one generation call (one int64 allocation, never needs clearing):
# [0:3] n / best score / overflow flag, then per depth 0..4: untried sources, source moved, hit
# flag, key word 0, key word 1; the work position; per output row its key words and hash slot;
# then the hash table, a "sparse set": a slot is live only when it points at a kept row that
# points back at it, so stale entries from earlier calls or discarded rows are simply dead.
_SC_N, _SC_BEST, _SC_OVER = 0, 1, 2
_SC_SRCS, _SC_SPS, _SC_HITS, _SC_K0, _SC_K1 = 3, 8, 13, 18, 23
_SC_W = 32
_SC_ROWS = _SC_W + STATE_LEN
NONDOUBLE_MAX_PLAYS = 512  # <= 2 orders x 16 sources x 16 sources

# How _search deduplicates (see its docstring). Callers pass modes, flags and counts to _search
# and _gen as np.int64(...) / np.bool_(...): a bare constant is typed as a literal, and Numba
# then compiles one specialisation per distinct constant (14 of _search at about 8 s each, on
# every cold start), with no measured gain in speed.
_MODE_PLAIN = 0
_MODE_HASH = 1
_MODE_FIRST = 2
_MODE_CHAIN = 3


def _table_size(cap):
    t = 1
    while t < 2 * cap:
        t *= 2
    return t


def scratch_size(cap):
    """int64 entries gen_afterstates_scratch needs for an output buffer of cap rows."""
    return _SC_ROWS + 3 * cap + _table_size(cap)


@njit(cache=True, inline="always")
def _probe(sc, k0, k1, cap, tmask):
    """Hash slot where a leaf with key (k0, k1) belongs, or -1 when it is already kept."""
    n = sc[_SC_N]
    h = (k0 ^ (k1 * np.int64(-7046029254386353131))) * np.int64(-4658895280553007687)
    slot = (h >> 32) & tmask
    while True:
        j = sc[_SC_ROWS + 3 * cap + slot]
        if j < 0 or j >= n or sc[_SC_ROWS + 2 * cap + j] != slot:
            return slot
        if sc[_SC_ROWS + j] == k0 and sc[_SC_ROWS + cap + j] == k1:
            return -1
        slot = (slot + 1) & tmask


@njit(cache=True, inline="always")
def _set_move(routes, n, k, sp, d, hit):
    routes[n, k, MV_FROM] = sp
    routes[n, k, MV_TO] = sp - d if sp > d else 0
    routes[n, k, MV_DIE] = d
    routes[n, k, MV_HIT] = hit


@njit(cache=True)
def _write_route(routes, n, sc, nmade, a, b, sp, d, hit):
    """Route of output row n: the nmade moves on the work position, then sp by d (if sp > 0)."""
    for k in range(nmade):
        _set_move(routes, n, k, sc[_SC_SPS + k], a if k == 0 else b, sc[_SC_HITS + k])
    m = nmade
    if sp > 0:
        _set_move(routes, n, m, sp, d, hit)
        m += 1
    for k in range(m, MAX_MOVES):
        for f in range(MV_FIELDS):
            routes[n, k, f] = 0
    if a == b or m != 2:
        return
    f0, t0, d0, h0 = routes[n, 0, 0], routes[n, 0, 1], routes[n, 0, 2], routes[n, 0, 3]
    f1, t1, d1 = routes[n, 1, 0], routes[n, 1, 1], routes[n, 1, 2]
    if t1 == f0:
        # I/Q then P/I is the chain P/I/Q: legal in that order too (I held a checker of the
        # mover, and a bear-off from I was exact, since P > I stood higher), no hit on I
        _set_move(routes, n, 0, f1, d1, 0)
        _set_move(routes, n, 1, f0, d0, h0)
    elif t0 == t1 and t0 > 0 and h0 == 1 and f0 > f1 and f0 != BAR_POINT:
        # two checkers onto one blot: the lower one hits first (either order is legal off the bar)
        _set_move(routes, n, 0, f1, d1, 1)
        _set_move(routes, n, 1, f0, d0, 0)


def _route_room(routes, n):
    """True when routes (None: no routes wanted) has a row n."""
    return routes is None or n < routes.shape[0]


@overload(_route_room, inline="always")
def _route_room_impl(routes, n):
    if isinstance(routes, types.NoneType):
        return lambda routes, n: True
    return lambda routes, n: n < routes.shape[0]


def _record_route(routes, n, sc, nmade, a, b, sp, d, hit):
    """_write_route when routes is an array; nothing at all (compiled away) when it is None."""
    if routes is not None:
        _write_route(routes, n, sc, nmade, a, b, sp, d, hit)


@overload(_record_route, inline="always")
def _record_route_impl(routes, n, sc, nmade, a, b, sp, d, hit):
    if isinstance(routes, types.NoneType):
        return lambda routes, n, sc, nmade, a, b, sp, d, hit: None

    def impl(routes, n, sc, nmade, a, b, sp, d, hit):
        _write_route(routes, n, sc, nmade, a, b, sp, d, hit)

    return impl


@njit(cache=True, inline="always")
def _keep(sc, out, k0, k1, slot, cap, sp, d, routes, nmade, da, db):
    """Write the work position, plus the move sp by d when sp > 0, as the next output row
    (registered in the hash set under (k0, k1) at slot when slot >= 0); with routes (an array,
    not None) also its route: the nmade moves made on the work position (die da, then db), then
    sp by d.

    Written with 2-D indexing on out: taking a row view here would cost two atomic reference
    count updates per kept play."""
    n = sc[_SC_N]
    if n >= cap or n >= out.shape[0] or not _route_room(routes, n):
        sc[_SC_OVER] = 1
        return
    copy_state_to_row(out, n, sc, _SC_W)  # the work position's dice are already cleared
    hit = 0
    if sp > 0:  # the play's last move, made on the row (the work position never sees it)
        if sp == BAR_POINT:
            out[n, BAR_ME] -= 1
        else:
            c = out[n, ME + sp - 1] - 1
            out[n, ME + sp - 1] = c
            b = np.int64(1) << (sp - 1)
            if c == 0:
                out[n, BB_ME] &= ~b
            elif c == 1:
                out[n, BB_ME2] &= ~b
        t = sp - d
        if t <= 0:
            out[n, OFF_ME] += 1
        else:
            b = np.int64(1) << (t - 1)
            if out[n, OPP + t - 1] == 1:  # B.3: hit the blot
                out[n, OPP + t - 1] = 0
                out[n, BAR_OPP] += 1
                out[n, BB_OPP] &= ~b
                hit = 1
            c = out[n, ME + t - 1] + 1
            out[n, ME + t - 1] = c
            out[n, BB_ME] |= b
            if c == 2:
                out[n, BB_ME2] |= b
    _record_route(routes, n, sc, nmade, da, db, sp, d, hit)
    if slot >= 0:
        sc[_SC_ROWS + n] = k0
        sc[_SC_ROWS + cap + n] = k1
        sc[_SC_ROWS + 2 * cap + n] = slot
        sc[_SC_ROWS + 3 * cap + slot] = n
    sc[_SC_N] = n + 1


@njit(cache=True, inline="always")
def _leaf(sc, out, score, k0, k1, cap, tmask, sp, d, dedupe, routes, nmade, a, b):
    """Keep a leaf of this score if it is the best so far and new (a better score resets)."""
    if score < sc[_SC_BEST]:
        return
    if score > sc[_SC_BEST]:  # a longer play: the plays kept so far are not legal
        sc[_SC_BEST] = score
        sc[_SC_N] = 0
        sc[_SC_OVER] = 0
    if dedupe:
        slot = _probe(sc, k0, k1, cap, tmask)
        if slot >= 0:
            _keep(sc, out, k0, k1, slot, cap, sp, d, routes, nmade, a, b)
    else:
        _keep(sc, out, k0, k1, -1, cap, sp, d, routes, nmade, a, b)


@njit(cache=True)
def _search(sc, a, b, nd, out, cap, tmask, mode, prune, routes):
    """Depth-first over the dice (a first, then b; nd moves at most) keeping maximal leaves.

    Iterative with a 4-deep stack in sc (Numba's cache cannot link self-recursive functions);
    the work position sc[_SC_W:] is modified in place and restored on return. The last move of a
    play is never made on the work position: its key is updated arithmetically and the move is
    made on the output row only when the leaf is new.

    Doubles need no deduplication: with sources never increasing each multiset of moves is
    generated once, and a multiset m of sources is recovered from the position it leads to
    (the net change at point x is m(x + d) - m(x), solved downwards from the bar), so distinct
    leaves are distinct positions.

    Non-doubles (dice d1 first, then d2; then the other order): a pair of moves X/X-d1, Z/Z-d2
    is fixed by its net change (-X, +(X-d1), -Z, +(Z-d2)) unless the two cancel, which leaves one
    checker's worth of travel P -> Q with P - Q = d1 + d2, through I1 = P - d1 or I2 = P - d2.
    Its results: a hit on I1 (only the chain P/I1/Q, first order), a hit on I2 (only the chain
    P/I2/Q, second order), or no hit on the way (chain through a blot-free open I1; chain through
    a blot-free I2; or the first order's I2/Q then P/I2 when a checker stood on I2). Besides,
    after a first move X/X-d2 that is not a bear-off, any second move other than from X-d2 or a
    bear-off was legal before X moved too (points are blocked by the opponent alone, whose made
    points a move never changes), so the first order made it already.

    mode (_MODE_*) picks the deduplication: _MODE_PLAIN keeps every leaf (doubles); _MODE_HASH
    uses the hash set (bar or bear-off possible; the second order then tries only X-d2 and
    bear-offs when nobody is on the bar: prune); with nobody on the bar and two or more
    checkers outside the home board (no bear-off this turn) the cases above are resolved by
    hand: _MODE_FIRST (first order) drops I2/Q, P/I2 when I1 is open and blot-free, and
    _MODE_CHAIN (second order, only chains) drops a blot-free P/I2/Q when I1 is open and blot-free
    or a checker stood on I2.
    """
    w = sc[_SC_W : _SC_W + STATE_LEN]
    hashed = mode == _MODE_HASH
    depth = 0
    sc[_SC_SRCS] = source_mask(w, a)
    if sc[_SC_SRCS] == 0:  # the pass (the first order already kept it)
        if mode != _MODE_CHAIN:
            _leaf(sc, out, 0, sc[_SC_K0], sc[_SC_K1], cap, tmask, 0, 0, hashed, routes, 0, a, b)
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
        k0 = np.int64(0)
        k1 = np.int64(0)
        if hashed:  # placement key, only needed by the hash set
            k0 = sc[_SC_K0 + depth] - PLACE_K0[sp]
            k1 = sc[_SC_K1 + depth] - PLACE_K1[sp]
            if t > 0:
                k0 += PLACE_K0[t]
                k1 += PLACE_K1[t]
                if w[OPP + t - 1] == 1:
                    k1 += HIT_K1[t]
        if depth == nd - 1:  # last die: a full play
            if mode == _MODE_FIRST:
                x = sc[_SC_SPS]
                if sp == x + b:  # I2/Q then P/I2 with P = sp, I2 = x
                    i1 = sp - a
                    if i1 > 0 and ((w[BB_OPP2] >> (i1 - 1)) & 1) == 0 and w[OPP + i1 - 1] != 1:
                        continue  # the chain P/I1/Q gives the same position
            elif mode == _MODE_CHAIN:  # P/I2/Q with P = x, I2 = sp (this order's first die is a)
                if sc[_SC_HITS] == 0:
                    i1 = sc[_SC_SPS] - b
                    if w[ME + sp - 1] >= 2 or (
                        i1 > 0 and ((w[BB_OPP2] >> (i1 - 1)) & 1) == 0 and w[OPP + i1 - 1] != 1
                    ):
                        continue  # the first order has this position
            _leaf(sc, out, 8 * nd, k0, k1, cap, tmask, sp, d, hashed, routes, depth, a, b)
            continue
        hit = do_move(w, sp, d)
        sc[_SC_SPS + depth] = sp
        sc[_SC_HITS + depth] = hit
        depth += 1
        sc[_SC_K0 + depth] = k0
        sc[_SC_K1 + depth] = k1
        full = source_mask(w, b)
        if full == 0:  # nothing more can move: a shorter play
            score = 8 * depth
            if depth == 1 and a != b:  # B.5: only one die usable -> prefer the higher
                score += a
            _leaf(sc, out, score, k0, k1, cap, tmask, 0, 0, hashed, routes, depth, a, b)
            depth -= 1
            undo_move(w, sp, d, hit)
            continue
        if a == b:  # doubles: sources never increase along a play
            full &= (np.int64(1) << sp) - 1
        elif mode == _MODE_CHAIN:
            full &= np.int64(1) << (t - 1)  # no bear-off this turn, so t > 0
        elif mode == _MODE_HASH and prune and t > 0:
            full &= (np.int64(1) << (t - 1)) | ((np.int64(1) << b) - 1)
        sc[_SC_SRCS + depth] = full


@njit(cache=True)
def _gen(state, d1, d2, nd, out, sc, cap, t, routes):
    """Core of the generators: at most cap plays, hash table of t (power of two > cap) slots;
    nd moves of a double (d1 == d2), else both dice."""
    for k in range(STATE_LEN):
        sc[_SC_W + k] = state[k]
    for v in range(6):
        sc[_SC_W + DICE + v] = 0
    sc[_SC_N] = 0
    sc[_SC_BEST] = -1
    sc[_SC_OVER] = 0
    if d1 == d2:
        _search(sc, d1, d1, nd, out, cap, t - 1, np.int64(_MODE_PLAIN), np.bool_(False), routes)
    elif state[BAR_ME] == 0 and (
        (state[BB_ME2] & ~BB_HOME) != 0 or popcount(state[BB_ME] & ~BB_HOME) >= 2
    ):
        # nobody on the bar and two or more checkers outside home: no bear-off this turn
        _search(
            sc, d1, d2, np.int64(2), out, cap, t - 1, np.int64(_MODE_FIRST), np.bool_(False), routes
        )
        _search(
            sc, d2, d1, np.int64(2), out, cap, t - 1, np.int64(_MODE_CHAIN), np.bool_(False), routes
        )
    else:
        k0, k1 = placement_key(state)
        sc[_SC_K0] = k0
        sc[_SC_K1] = k1
        _search(
            sc, d1, d2, np.int64(2), out, cap, t - 1, np.int64(_MODE_HASH), np.bool_(False), routes
        )
        _search(
            sc,
            d2,
            d1,
            np.int64(2),
            out,
            cap,
            t - 1,
            np.int64(_MODE_HASH),
            state[BAR_ME] == 0,
            routes,
        )
    if sc[_SC_OVER] != 0:
        return -1
    return sc[_SC_N]


@njit(cache=True)
def gen_afterstates_scratch(state, d1, d2, out, sc):
    """gen_afterstates with caller-owned scratch sc (int64[>= scratch_size(len(out))]): no
    allocation."""
    cap = out.shape[0]
    t = 1
    while t < 2 * cap:
        t *= 2
    if sc.shape[0] < _SC_ROWS + 3 * cap + t:
        return -1
    if d1 != d2 and cap > NONDOUBLE_MAX_PLAYS:  # a smaller hash set stays in L1
        cap = NONDOUBLE_MAX_PLAYS
        t = 2 * NONDOUBLE_MAX_PLAYS
    return _gen(state, d1, d2, np.int64(4), out, sc, cap, t, None)


@njit(cache=True)
def gen_plays(state, d1, d2, nd, out, routes):
    """Distinct afterstates of dice d1-d2 into out (int64[N, STATE_LEN]), with one route each into
    routes (int64[N, MAX_MOVES, MV_FIELDS]; None for none: then no route code is compiled in)
    -> count.

    d1 != d2: both dice (B.5); d1 == d2: nd (1..4) moves of that die (4 for a double; fewer
    finish a turn already under way). state's own dice are ignored. Each row is the position right
    after the play, still from the mover's view (before the turn passes), dice cleared. With no
    legal move the single row is the unchanged position (the pass, an empty route). Returns -1
    if out or routes is too small (N >= MAX_AFTERSTATES is safe).
    """
    cap = out.shape[0]
    if d1 == d2:  # no hash set needed (see _search)
        sc = np.empty(_SC_ROWS, dtype=np.int64)
        return _gen(state, d1, d2, nd, out, sc, cap, np.int64(1), routes)
    if cap > NONDOUBLE_MAX_PLAYS:
        cap = NONDOUBLE_MAX_PLAYS
    t = 1
    while t < 2 * cap:
        t *= 2
    sc = np.empty(_SC_ROWS + 3 * cap + t, dtype=np.int64)
    return _gen(state, d1, d2, np.int64(2), out, sc, cap, t, routes)


@njit(cache=True)
def gen_afterstates(state, d1, d2, out):
    """Distinct legal whole-turn afterstates of roll d1-d2 into out (int64[N, STATE_LEN]) -> count.

    state's own dice are ignored. Each row is the position right after the play, still from the
    mover's view (before the turn passes), dice cleared. With no legal move the single row is the
    unchanged position (the pass). Returns -1 if out is too small (N >= MAX_AFTERSTATES is safe).
    """
    return gen_plays(state, d1, d2, np.int64(4), out, None)


@njit(cache=True)
def _max_dice(w, a, b, nd, stk):
    """Most dice usable from w playing a first then b (nd moves at most) -> int; w restored.

    stk: int64[15] scratch (untried sources, sources moved and hit flags per depth)."""
    if nd == 0:
        return 0
    depth = 0
    best = 0
    stk[0] = source_mask(w, a)
    while True:
        if stk[depth] == 0 or best == nd:
            if depth == 0:
                return best
            depth -= 1
            undo_move(w, stk[5 + depth], a if depth == 0 else b, stk[10 + depth])
            continue
        d = a if depth == 0 else b
        srcs = stk[depth]
        i = lsb(srcs)
        stk[depth] = srcs & (srcs - 1)
        sp = i + 1
        stk[5 + depth] = sp
        stk[10 + depth] = do_move(w, sp, d)
        depth += 1
        if depth > best:
            best = depth
        full = np.int64(0)
        if depth < nd:
            full = source_mask(w, b)
            if a == b:  # doubles: sources never increase (see _search)
                full &= (np.int64(1) << sp) - 1
        stk[depth] = full


@njit(cache=True)
def remaining_dice(s):
    """The dice s still has to play as (a, b, n): n moves, first die a, the rest b (a == b for
    doubles)."""
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
def max_dice_work(w, stk):
    """max_dice_usable on w itself (restored on return) with stk (int64[15]) as scratch."""
    a, b, n = remaining_dice(w)
    if n == 0:
        return 0
    if a == b:
        return _max_dice(w, a, a, n, stk)
    r = _max_dice(w, a, b, np.int64(2), stk)  # int64, not a literal: one compile
    if r < 2:
        r2 = _max_dice(w, b, a, np.int64(2), stk)
        if r2 > r:
            r = r2
    return r


@njit(cache=True)
def max_dice_usable(s):
    """Most of s's remaining dice one legal sequence can use (B.5) -> int."""
    w = s.copy()
    stk = np.empty(15, dtype=np.int64)
    return max_dice_work(w, stk)
