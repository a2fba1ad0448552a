"""PDN FEN text of Russian draughts positions, read in a kernel.

``parse_fen`` reads the plain form of the FEN that ``boardgym.envs.draughts.from_fen`` documents:
``W:W21,22,K5:B1,K30`` (standard Russian numbering 1 = b8 .. 32 = g1), ``W:Wa1,c1,Kh2:Bb8,Kd8``
(algebraic, either case), mixed freely, numeric ranges ``W:W21-32:B1-12`` (a ``K`` before a range
crowns all of it), lower-case side letters, an empty piece list, one trailing ``.``. It gives up
(an empty array) on anything else: whitespace, brackets or quotes around the FEN, any character
outside that form, and every error (unknown or light square, a square given twice, a man on its
own promotion row, more than 12 pieces a side, a colour missing or given twice). from_fen then
reads the text in Python, which accepts those extra forms and words the error; on the plain form
both give the same position.

Characters are ASCII codes (bytes or uint8).
"""

import numpy as np
from numba import njit

from boardgym.kernels.draughts.board import BB_PROMO, SQ32_TO_GHOST
from boardgym.kernels.draughts.move import set_position

_BIG = 1000  # a number at least this large is no square (digits beyond it are not added up)


@njit(cache=True, inline="always")
def _none():
    """The empty array parse_fen gives up with (made here: a global array would be read-only
    and make every result read-only)."""
    return np.empty(0, dtype=np.int64)


@njit(cache=True, inline="always")
def _pdn_sq32(n):
    """sq32 square of the standard PDN number n (1..32)."""
    return 4 * (7 - (n - 1) // 4) + (n - 1) % 4


@njit(cache=True, inline="always")
def _number(chars, i, end):
    """(value capped at _BIG, index after the digits) of the decimal digits from chars[i]."""
    v = 0
    while i < end and 48 <= chars[i] <= 57:
        if v < _BIG:
            v = 10 * v + (chars[i] - 48)
        i += 1
    return v, i


@njit(cache=True)
def _piece_list(chars, i, end, ci, bbs, seen):
    """Add the pieces of chars[i:end] (one colour's list, ci 0 = White, 1 = Black) to bbs
    (int64[4]: wm, wk, bm, bk) and seen (int64[1], sq32 bits) -> True, or False to give up."""
    count = 0
    promo = BB_PROMO[ci]
    while i < end:
        king = chars[i] == 75 or chars[i] == 107  # K or k
        if king:
            i += 1
        if i >= end:
            return False
        c = chars[i]
        lo = -1
        hi = -1
        if 48 <= c <= 57:
            lo, i = _number(chars, i, end)
            hi = lo
            if i < end and chars[i] == 45:  # '-': a range
                if i + 1 >= end or not 48 <= chars[i + 1] <= 57:
                    return False
                hi, i = _number(chars, i + 1, end)
            if not 1 <= lo <= hi <= 32:
                return False
        else:
            if c >= 65 and c <= 72:  # A..H: parse_square reads squares in either case
                c += 32
            if not 97 <= c <= 104 or i + 1 >= end or not 49 <= chars[i + 1] <= 56:
                return False
            f = c - 97
            r = chars[i + 1] - 49
            if (r + f) % 2 != 0:  # a light square
                return False
            i += 2
        if i < end:  # the next item, or the end of the list
            if chars[i] != 44:
                return False
            i += 1
            if i >= end:  # a trailing comma leaves an empty entry
                return False
        if lo < 0:
            sqs_lo = 4 * r + f // 2
            n_sqs = 1
        else:
            sqs_lo = lo
            n_sqs = hi - lo + 1
        for k in range(n_sqs):
            sq = sqs_lo if lo < 0 else _pdn_sq32(lo + k)
            bit = np.int64(1) << sq
            if seen[0] & bit:
                return False
            seen[0] |= bit
            g = np.int64(1) << SQ32_TO_GHOST[sq]
            if not king and (promo & g) != 0:
                return False
            bbs[2 * ci + (1 if king else 0)] |= g
            count += 1
            if count > 12:
                return False
    return True


@njit(cache=True)
def parse_fen(chars, rules):
    """The position (int64[STATE_LEN], draw rules ``rules``) of the plain-form FEN chars (module
    docstring), or an empty array when the text is not in that form or not a position."""
    end = len(chars)
    if end > 0 and chars[end - 1] == 46:  # one trailing '.'
        end -= 1
    if end < 5 or chars[1] != 58:  # 'S:' then two lists
        return _none()
    c = chars[0]
    if c == 87 or c == 119:
        side = 0
    elif c == 66 or c == 98:
        side = 1
    else:
        return _none()
    bbs = np.zeros(4, dtype=np.int64)
    seen = np.zeros(1, dtype=np.int64)
    done = 0  # colours read: bit 0 White, bit 1 Black
    i = 2
    for _ in range(2):
        if i >= end:
            return _none()
        c = chars[i]
        if c == 87 or c == 119:
            ci = 0
        elif c == 66 or c == 98:
            ci = 1
        else:
            return _none()
        if done & (1 << ci):
            return _none()
        done |= 1 << ci
        j = i + 1
        while j < end and chars[j] != 58:
            j += 1
        if not _piece_list(chars, i + 1, j, ci, bbs, seen):
            return _none()
        i = j + 1
    if i != end + 1:  # a third ':' or text after the second list
        return _none()
    return set_position(bbs[0], bbs[1], bbs[2], bbs[3], side, rules)
