"""Hand-crafted backgammon inputs beside the raw board: contact features and race features.

The names and ideas follow the input descriptions published with GNU Backgammon (pip loss from
hits, hit probabilities, back escapes, containment, mobility, moment, timing, anchors, backbone,
break contact, free pips, entering); the exact definitions below are this module's own, written
from those descriptions and documented here so each can be checked by hand (the tests do).

Frame. Every function reads one afterstate ``s`` (int64[STATE_LEN], kernels/backgammon/board.py),
the mover's view: "me" is the player who just moved, its checkers on its points 1..24 (it moves
24 -> 1, home 1..6), the bar as point 25. The opponent's checkers are read in the same numbering:
an opponent checker on my point q moves towards 24 (q -> q + d) and its bar is point 0 for it.
The features of the other side are the same functions on the board turned round
(board.flip_into), so each rule of thumb is written once and serves both sides
(``contact_features`` writes mine, then the opponent's). A "made point" has >= 2 checkers; a blot
has exactly 1.

Per side (``N_SIDE`` values, the side "me" against the blockers and hitters of the other side):
    F_PIPLOSS   sum over the 36 rolls of the other side of the largest pip loss it can inflict
                with that roll by hitting one of my blots (a blot on my point p loses 25 - p pips),
                / (36 * 12)
    F_P1        rolls (of 36) that hit at least one of my blots / 36
    F_P2        rolls for which two or more different blots of mine are within reach (each by
                the hit rule below) / 36
    F_BACKESC   escapes(my rearmost checker's point) / 36 (0 when my rearmost checker is home)
    F_ACONTAIN  1 - min escapes(n) / 36 over n from my rearmost point down to 15 (0 if the
                rearmost checker is below 15)
    F_ACONTAIN2 F_ACONTAIN squared
    F_CONTAIN   1 - min escapes(n) / 36 over n = 15..24 (whatever my checkers are)
    F_CONTAIN2  F_CONTAIN squared
    F_MOBILITY  sum over my checkers on points 7..25 of escapes(point) / (36 * 15)
    F_MOMENT2   mean over my checkers not yet off of (point - mean point)^2 for the checkers above
                the mean, / 100 (spread of the rear stragglers)
    F_TIMING    sum over my checkers on points 7..25 of (point - 6) / 100: pips to play before
                the home structure has to break
    F_BACKANCH  highest point of mine with >= 2 checkers / 24 (0 without one)
    F_FWDANCH   lowest point 13..24 of mine with >= 2 checkers, (25 - point) / 12 (0 without)
    F_BACKBONE  my made points among the 12 points in front of the other side's rearmost checker
                / 12 (its rearmost checker on my point q, its bar = q 0: points q + 1 .. q + 12)
    F_PRIME     longest run of consecutive made points of mine / 6
    F_BREAK     pips my checkers must travel to pass the other side's rearmost checker
                (sum over my checkers on p > q of p - q + 1) / 152
    F_FREEPIP   pips of my checkers already past the other side's rearmost checker and outside
                home (sum over p < q, p > 6 of p - 6) / 100
    F_ENTER     my checkers on the bar x (the other side's made points on my 19..24) / (6 * 2)
    F_ENTER2    (made points on my 19..24 / 6)^2 when I have a checker on the bar, else 0 (the
                chance a bar checker of mine stays out with one roll)
    F_PIPS      my pip count / 167

escapes(n): the rolls (of 36) with which a checker on my point n gets past the blockade in front
of it: let L be the lowest point among n - 12 .. n - 1 (and >= 1) that the other side has made;
with no such point every roll escapes (36); else a roll escapes when the checker can reach a point
below L, moving with one die, or with both dice in either order through an open intermediate
point, or (a double) one to four steps of the die each landing on an open point; bearing off (a
point <= 0) is below L.

Hits (F_PIPLOSS, F_P1, F_P2): a hitter of the other side on my point q (its bar q = 0) hits my blot
on p > q with a roll when p - q is one die, or both dice with an open intermediate point (either
order), or for a double 2..4 steps of the die each landing on an open point (open: not a made
point of mine). When the other side has a checker on the bar only its bar checker is counted as a
hitter (a simplification of the entering rules E.1-E.2: a feature, not a rule).

Race features (``race_features``, both sides, ``N_RACE`` values): per side pip count / 167,
checkers not yet home / 15, "crossovers" (the home boards between each checker and home:
sum over checkers of ceil((p - 6) / 6) for p > 6) / 30, checkers on my points 1, 2, 3 (gaps and
wastage in the bear-off) / 15 each.

Contact (``is_contact``): true while some checker of mine is on a point above the other side's
rearmost checker (or either side has a checker on the bar).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.kernels.backgammon.board import (
    BAR_ME,
    BAR_OPP,
    BB_ME2,
    BB_OPP,
    BB_OPP2,
    ME,
    OPP,
    STATE_LEN,
    flip_into,
)
from boardgym.kernels.bits import lsb, msb, popcount

(
    F_PIPLOSS,
    F_P1,
    F_P2,
    F_BACKESC,
    F_ACONTAIN,
    F_ACONTAIN2,
    F_CONTAIN,
    F_CONTAIN2,
    F_MOBILITY,
    F_MOMENT2,
    F_TIMING,
    F_BACKANCH,
    F_FWDANCH,
    F_BACKBONE,
    F_PRIME,
    F_BREAK,
    F_FREEPIP,
    F_ENTER,
    F_ENTER2,
    F_PIPS,
) = range(20)
N_SIDE = 20
N_CONTACT = 2 * N_SIDE  # mine, then the opponent's
N_RACE_SIDE = 6
N_RACE = 2 * N_RACE_SIDE
SIDE_WORK = 3 * 15  # side_features' scratch: my blots and, for each, its two distance masks
SCRATCH_LEN = STATE_LEN + SIDE_WORK  # contact_features' and race_features' scratch


@njit(cache=True, inline="always")
def _made_me(s, p):
    """Is my point p (1..24) made (>= 2 of my checkers)? Points outside 1..24 are open."""
    if p < 1 or p > 24:
        return False
    return s[ME + p - 1] >= 2


@njit(cache=True)
def _escapes_of_pattern(pat):
    """escapes(n) when the other side's made points in front of the checker are the bits of pat
    (bit 12 - j set: the point j pips in front, j = 1..12, is made)."""
    low = 0  # distance of the farthest made point in front (L = n - low)
    for j in range(12, 0, -1):
        if (pat >> (12 - j)) & 1:
            low = j
            break
    if low == 0:
        return 36
    count = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            ok = False
            if d1 == d2:
                t = 0
                for _ in range(4):
                    t += d1
                    if t <= 12 and (pat >> (12 - t)) & 1:
                        break
                    if t > low:
                        ok = True
                        break
            elif d1 > low or d2 > low:
                ok = True  # one die passes L (the points beyond L in reach are open)
            elif d1 + d2 > low and (not (pat >> (12 - d1)) & 1 or not (pat >> (12 - d2)) & 1):
                ok = True
            if ok:
                count += 1 if d1 == d2 else 2
    return count


@njit(cache=True)
def _escape_table():
    out = np.empty(1 << 12, dtype=np.int64)
    for pat in range(1 << 12):
        out[pat] = _escapes_of_pattern(pat)
    return out


ESCAPES = _escape_table()


@njit(cache=True, inline="always")
def escapes(s, n):
    """Rolls (0..36) with which a checker of mine on point n (1..25) gets past the other side's
    blockade in front of it (the module docstring's escapes(n)); from the 12 points in front."""
    if n >= 13:
        pat = (s[BB_OPP2] >> (n - 13)) & 0xFFF
    else:
        pat = (s[BB_OPP2] << (13 - n)) & 0xFFF
    return ESCAPES[pat]


@njit(cache=True, inline="always")
def _hitter(s, q, bar):
    """Is there a hitter of the other side on my point q (its bar: q 0)? With a checker on its
    bar (bar True) only the bar checker counts."""
    if bar:
        return q == 0
    return q >= 1 and s[OPP + q - 1] > 0


@njit(cache=True)
def hits_blot(s, p, d1, d2, bar):
    """Can the other side hit my blot on point p with the roll d1-d2 (the module's hit rule)?"""
    if d1 == d2:
        for k in range(1, 5):
            q = p - k * d1
            if q < 0:
                return False
            if _hitter(s, q, bar):
                return True
            if q >= 1 and s[ME + q - 1] >= 2:
                return False  # a made point of mine stops the longer moves
        return False
    if _hitter(s, p - d1, bar) or _hitter(s, p - d2, bar):
        return True
    q = p - d1 - d2
    if q >= 0 and _hitter(s, q, bar):
        return not _made_me(s, p - d1) or not _made_me(s, p - d2)
    return False


@njit(cache=True)
def _reverse_table():
    out = np.empty(1 << 12, dtype=np.int64)
    for x in range(1 << 12):
        r = 0
        for i in range(12):
            if (x >> i) & 1:
                r |= 1 << (11 - i)
        out[x] = r
    return out


REVERSE12 = _reverse_table()


@njit(cache=True, inline="always")
def _reverse24(x):
    """The 24 point bits of x in reverse order (bit i -> bit 23 - i)."""
    return (REVERSE12[x & 0xFFF] << 12) | REVERSE12[(x >> 12) & 0xFFF]


@njit(cache=True, inline="always")
def _hits(near, made, d1, d2):
    """hits_blot for one blot from its distance masks: bit j of near set when a hitter stands j
    pips behind it, of made when a made point of mine does."""
    if d1 == d2:
        for m in range(1, 5):
            j = m * d1
            if (near >> j) & 1:
                return True
            if (made >> j) & 1:
                return False  # a made point of mine stops the longer moves
        return False
    if (near >> d1) & 1 or (near >> d2) & 1:
        return True
    if (near >> (d1 + d2)) & 1:
        return not (made >> d1) & 1 or not (made >> d2) & 1
    return False


@njit(cache=True)
def side_features(s, out, k, work):
    """Write the N_SIDE features of "me" in afterstate s (mover's view) into out[k:k + N_SIDE]
    (work: int64[>= SIDE_WORK] scratch)."""
    for i in range(N_SIDE):
        out[k + i] = 0.0
    bar = s[BAR_ME]
    made2 = s[BB_ME2]  # bit p - 1: my point p is made
    # my checkers (rearmost point, pips, count) and blots, highest first
    blots = work[0:15]
    nblots = 0
    rear = 25 if bar > 0 else 0
    pips = 25 * bar
    cnt = bar
    for p in range(24, 0, -1):
        c = s[ME + p - 1]
        if c > 0:
            if rear == 0:
                rear = p
            pips += c * p
            cnt += c
            if c == 1:
                blots[nblots] = p  # highest pip loss first
                nblots += 1
    out[k + F_PIPS] = pips / 167.0
    # the other side's rearmost checker (its bar = my point 0); 25 when it has none on the board
    orear = 25
    if s[BAR_OPP] > 0:
        orear = 0
    else:
        if s[BB_OPP] != 0:
            orear = lsb(s[BB_OPP]) + 1
    # hits by the other side's roll
    if nblots > 0:
        # hits_blot by masks: bit j of near[b] / made[b]: a hitter / a made point of mine j pips
        # behind blot b (with a checker on the other side's bar, that checker only, at point 0)
        near = work[15:30]
        made = work[30:45]
        hitters = _reverse24(s[BB_OPP])
        blocks = _reverse24(made2)
        for b in range(nblots):
            p = blots[b]
            near[b] = (np.int64(1) << p) if s[BAR_OPP] > 0 else hitters >> (24 - p)
            made[b] = blocks >> (24 - p)
        loss = 0.0
        n1 = 0
        n2 = 0
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                w = 1 if d1 == d2 else 2
                nh = 0
                for b in range(nblots):
                    if _hits(near[b], made[b], d1, d2):
                        if nh == 0:
                            loss += w * (25 - blots[b])
                        nh += 1
                        if nh >= 2:
                            break
                if nh >= 1:
                    n1 += w
                if nh >= 2:
                    n2 += w
        out[k + F_PIPLOSS] = loss / (36.0 * 12.0)
        out[k + F_P1] = n1 / 36.0
        out[k + F_P2] = n2 / 36.0
    # escapes of points 7..25: containment, mobility and timing in one pass
    mob = 0.0
    timing = 0.0
    contain = 36  # min escapes over 15..24
    acontain = 36  # min escapes over 15..min(rear, 24)
    back = 0
    for n in range(7, 26):
        e = escapes(s, n)
        if n == rear:
            back = e
        if 15 <= n <= 24:
            if e < contain:
                contain = e
            if n <= rear and e < acontain:
                acontain = e
        c = bar if n == 25 else s[ME + n - 1]
        if c > 0:
            mob += c * e
            timing += c * (n - 6)
    if rear > 6:
        out[k + F_BACKESC] = back / 36.0
    if rear >= 15:
        out[k + F_ACONTAIN] = 1.0 - acontain / 36.0
        out[k + F_ACONTAIN2] = out[k + F_ACONTAIN] ** 2
    out[k + F_CONTAIN] = 1.0 - contain / 36.0
    out[k + F_CONTAIN2] = out[k + F_CONTAIN] ** 2
    out[k + F_MOBILITY] = mob / (36.0 * 15.0)
    out[k + F_TIMING] = timing / 100.0
    # spread, and the pips to break contact or already free (one pass over 1..25)
    mean = pips / cnt if cnt > 0 else 0.0
    acc = 0.0
    brk = 0
    free = 0
    for p in range(1, 26):
        c = bar if p == 25 else s[ME + p - 1]
        if c > 0:
            if p > mean:
                acc += c * (p - mean) ** 2
            if p > orear:
                brk += c * (p - orear + 1)
            elif p > 6:
                free += c * (p - 6)
    if cnt > 0:
        out[k + F_MOMENT2] = acc / cnt / 100.0
    out[k + F_BREAK] = brk / 152.0
    out[k + F_FREEPIP] = free / 100.0
    # anchors, backbone, prime: from the made points' bits
    if made2 != 0:
        out[k + F_BACKANCH] = (msb(made2) + 1) / 24.0
        front = made2 >> 12  # points 13..24
        if front != 0:
            out[k + F_FWDANCH] = (12 - lsb(front)) / 12.0
        longest = 0
        x = made2
        while x != 0:  # each step keeps the points that end a run one longer
            x &= x << 1
            longest += 1
        out[k + F_PRIME] = longest / 6.0
    if orear < 25:  # my points orear + 1 .. orear + 12 (bits orear ..)
        out[k + F_BACKBONE] = popcount(made2 & (np.int64(0xFFF) << orear)) / 12.0
    # entering from the bar
    if bar > 0:
        closed = 0
        for p in range(19, 25):
            if s[OPP + p - 1] >= 2:
                closed += 1
        out[k + F_ENTER] = bar * closed / 12.0
        out[k + F_ENTER2] = (closed / 6.0) ** 2


@njit(cache=True)
def contact_features(s, out, scratch):
    """The N_CONTACT features of afterstate s (int64[STATE_LEN], mover's view) into out
    (float64[>= N_CONTACT]): the mover's N_SIDE, then the opponent's (scratch: int64[>=
    SCRATCH_LEN])."""
    flipped = scratch[:STATE_LEN]
    work = scratch[STATE_LEN:]
    side_features(s, out, np.int64(0), work)
    flip_into(s, flipped)
    side_features(flipped, out, np.int64(N_SIDE), work)


@njit(cache=True)
def _race_side(s, out, k):
    pips = 0
    outside = 0
    cross = 0
    for p in range(1, 26):
        c = s[BAR_ME] if p == 25 else s[ME + p - 1]
        if c > 0:
            pips += c * p
            if p > 6:
                outside += c
                cross += c * ((p - 6 + 5) // 6)
    out[k] = pips / 167.0
    out[k + 1] = outside / 15.0
    out[k + 2] = cross / 30.0
    out[k + 3] = s[ME] / 15.0
    out[k + 4] = s[ME + 1] / 15.0
    out[k + 5] = s[ME + 2] / 15.0


@njit(cache=True)
def race_features(s, out, scratch):
    """The N_RACE race features of afterstate s (mover's view) into out: the mover's, then the
    opponent's (scratch: int64[>= STATE_LEN])."""
    _race_side(s, out, np.int64(0))
    flip_into(s, scratch)
    _race_side(scratch, out, np.int64(N_RACE_SIDE))


@njit(cache=True)
def is_contact(s):
    """True while the two sides can still hit each other (the module docstring's contact)."""
    if s[BAR_ME] > 0 or s[BAR_OPP] > 0:
        return True
    rear = 0
    for p in range(24, 0, -1):
        if s[ME + p - 1] > 0:
            rear = p
            break
    for q in range(1, 25):
        if s[OPP + q - 1] > 0:
            return rear > q
    return False


@njit(cache=True)
def in_bearoff(s):
    """True when both sides have all their checkers in their home boards or off (no contact)."""
    for p in range(7, 25):
        if s[ME + p - 1] > 0:
            return False
    for p in range(1, 19):
        if s[OPP + p - 1] > 0:
            return False
    return s[BAR_ME] == 0 and s[BAR_OPP] == 0


def _check(s):
    s = np.asarray(s)
    if s.dtype != np.int64 or s.shape != (STATE_LEN,):
        raise ValueError(f"a backgammon state is int64[{STATE_LEN}], got {s.dtype}{list(s.shape)}")
    return np.ascontiguousarray(s)


def features_of(state: np.ndarray) -> npt.NDArray[np.float64]:
    """Contact features (float64[N_CONTACT]) of a kernel state (int64[STATE_LEN], mover's view)."""
    s = _check(state)
    out = np.zeros(N_CONTACT)
    contact_features(s, out, np.empty(SCRATCH_LEN, dtype=np.int64))
    return out
