"""gnubg Position IDs in kernels: the 80-bit key, its 14 base64 characters, decoding, and the
legal plays of a roll from one ID to the sorted IDs of its afterstates.

Key layout (gnubg manual, "A technical description of the Position ID"): the opponent's block
then the player on roll's, each 25 runs (its own points 1..24, then the bar) of one 1 per checker
followed by a 0; bits fill bytes least significant bit first. The 10 bytes are base64-encoded
without padding: 14 ASCII characters, the last one's low 4 bits zero. Decoding accepts exactly
the IDs ``boardgym.envs.backgammon_notation.position_from_id`` accepts (that function words the
errors): base64 characters, zero padding bits, two blocks of 25 runs with at most 15 checkers
each, no set bit after them, no point held by both sides, not both sides borne off. A decoded
state has TURN 0, no dice, cube 1 centred; checkers missing from a side's 15 are borne off.

Characters are ASCII codes in uint8 arrays (or bytes); the caller turns them into ``str``.
Encoding needs validated states (counts 0..15: the runs loop over them).
"""

import numpy as np
from numba import njit

from boardgym.kernels.backgammon.board import (
    BAR_ME,
    BAR_OPP,
    CUBE_LIMIT,
    CUBE_OWNER,
    CUBE_VALUE,
    ERR_NONE,
    MAX_CUBE_VALUE,
    ME,
    N_CHECKERS,
    OFF_ME,
    OFF_OPP,
    OPP,
    STATE_LEN,
    refresh_masks,
    state_error,
)
from boardgym.kernels.backgammon.game import MAX_AFTERSTATES, plays_of_roll
from boardgym.kernels.bits import msb

ID_LEN = 14  # characters of a Position ID
KEY_BYTES = 10  # bytes of the key
SEP = 32  # ASCII space: what follows each ID in encode_ids' and legal_play_ids' output

# decode_id results besides ERR_NONE (the Python side words the message)
ID_BAD_CHAR = 1  # a character outside base64, or non-zero padding bits
ID_SHORT = 2  # fewer than 25 runs for a side: too many checkers in the bits
ID_TOO_MANY = 3  # more than 15 checkers for a side
ID_TRAILING = 4  # set bits after the two blocks
ID_BAD_STATE = 5  # both sides on a point, or both sides borne off

_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
B64_CHARS = np.frombuffer(_ALPHABET, dtype=np.uint8).astype(np.int64)
B64_VALUES = np.full(256, -1, dtype=np.int64)
B64_VALUES[B64_CHARS] = np.arange(64)
B64_RANKS = np.empty(64, dtype=np.int64)  # rank of each value's character in ASCII order
B64_RANKS[np.argsort(B64_CHARS)] = np.arange(64)
B64_CHARS.setflags(write=False)
B64_RANKS.setflags(write=False)
B64_VALUES.setflags(write=False)

# buffer sizes and the work buffer layout of legal_play_ids
_W_KEYS = 0  # per afterstate: key words w0, w1, sort keys hi, lo
_W_PACKED = 4 * MAX_AFTERSTATES  # sort keys packed with the index
_W_ORDER = 5 * MAX_AFTERSTATES  # the sorted order
_W_STATE = 6 * MAX_AFTERSTATES  # the decoded position
_WORK_WORDS = _W_STATE + STATE_LEN
_ROWS_WORDS = MAX_AFTERSTATES * STATE_LEN
BUF_WORDS = _ROWS_WORDS + _WORK_WORDS
CHARS_LEN = MAX_AFTERSTATES * (ID_LEN + 1)


_MASK40 = (1 << 40) - 1


@njit(cache=True, inline="always")
def _block(state, base, bar, flip):
    """One side's block of the key: 25 runs (points 1..24 from its own view, then the bar) ->
    (bits, length). At most 15 ones and 25 zeros: it fits one word."""
    w = np.int64(0)
    n = 0
    for i in range(24):
        c = state[base + (23 - i if flip else i)] & 15
        w |= ((np.int64(1) << c) - 1) << n
        n += c + 1
    c = state[bar] & 15
    w |= ((np.int64(1) << c) - 1) << n
    return w, n + c + 1


@njit(cache=True, inline="always")
def _join(opp, a, me, b):
    """Key words (bits 0..39, bits 40..79, bits needed) of the blocks (opp, a bits), (me, b
    bits)."""
    if a > 40 or b > 40:  # not a valid position: more than 15 checkers a side
        return opp & _MASK40, np.int64(0), a + b
    w0 = (opp | (me << a)) & _MASK40
    w1 = (me >> (40 - a)) & _MASK40
    return w0, w1, a + b


@njit(cache=True)
def key_words(state):
    """The 80-bit key of state as (bits 0..39, bits 40..79, bits needed); more than 80 needed
    (impossible for 15 checkers a side) means the key is not valid."""
    opp, a = _block(state, OPP, BAR_OPP, True)  # opponent's own point i + 1 is the mover's 24 - i
    me, b = _block(state, ME, BAR_ME, False)
    return _join(opp, a, me, b)


@njit(cache=True, inline="always")
def _key_byte(w0, w1, j):
    if j < 5:
        return (w0 >> (8 * j)) & 255
    return (w1 >> (8 * (j - 5))) & 255


@njit(cache=True)
def position_key(state, out):
    """Write the 10-byte key of state into out (uint8[10]); return the bits needed (see
    key_words)."""
    w0, w1, pos = key_words(state)
    for j in range(KEY_BYTES):
        out[j] = _key_byte(w0, w1, j)
    return pos


@njit(cache=True, inline="always")
def _encode_words(w0, w1, out, off):
    """The 14 base64 characters (ASCII) of key words (w0, w1) into out[off:off + 14]."""
    for g in range(3):  # three groups of 3 bytes -> 4 characters each
        v = (
            (_key_byte(w0, w1, 3 * g) << 16)
            | (_key_byte(w0, w1, 3 * g + 1) << 8)
            | _key_byte(w0, w1, 3 * g + 2)
        )
        out[off + 4 * g] = B64_CHARS[(v >> 18) & 63]
        out[off + 4 * g + 1] = B64_CHARS[(v >> 12) & 63]
        out[off + 4 * g + 2] = B64_CHARS[(v >> 6) & 63]
        out[off + 4 * g + 3] = B64_CHARS[v & 63]
    b = _key_byte(w0, w1, 9)
    out[off + 12] = B64_CHARS[b >> 2]
    out[off + 13] = B64_CHARS[(b & 3) << 4]


@njit(cache=True)
def encode_id(state, out, off):
    """The Position ID of a validated state as 14 ASCII codes into out[off:off + 14] (uint8)."""
    w0, w1, _ = key_words(state)
    _encode_words(w0, w1, out, off)


@njit(cache=True)
def encode_ids(rows, n, out):
    """Position IDs of validated rows[:n] (int64[N, STATE_LEN]) into out (uint8[>= 15 n]), each
    followed by a space."""
    for k in range(n):
        w0, w1, _ = key_words(rows[k])
        _encode_words(w0, w1, out, (ID_LEN + 1) * k)
        out[(ID_LEN + 1) * k + ID_LEN] = SEP


@njit(cache=True)
def decode_id(chars, state):
    """Decode 14 ASCII codes (uint8[14] or bytes) into state (int64[STATE_LEN]) -> ERR_NONE or an
    ID_* code (state then undefined)."""
    if len(chars) != ID_LEN:
        return ID_BAD_CHAR
    w0 = np.int64(0)  # bits 0..39 (bytes 0..4)
    w1 = np.int64(0)  # bits 40..79 (bytes 5..9)
    for g in range(3):
        v = np.int64(0)
        for c in range(4):
            x = B64_VALUES[chars[4 * g + c]]
            if x < 0:
                return ID_BAD_CHAR
            v = (v << 6) | x
        for b in range(3):
            j = 3 * g + b
            byte = (v >> (16 - 8 * b)) & 255
            if j < 5:
                w0 |= byte << (8 * j)
            else:
                w1 |= byte << (8 * (j - 5))
    x = B64_VALUES[chars[12]]
    y = B64_VALUES[chars[13]]
    if x < 0 or y < 0 or (y & 15) != 0:
        return ID_BAD_CHAR
    w1 |= ((x << 2) | (y >> 4)) << 32
    for k in range(STATE_LEN):
        state[k] = 0
    pos = 0
    for side in range(2):
        total = 0
        for r in range(25):
            c = 0
            while True:
                if pos >= 80:
                    return ID_SHORT
                bit = (w0 >> pos) & 1 if pos < 40 else (w1 >> (pos - 40)) & 1
                pos += 1
                if bit == 0:
                    break
                c += 1
                if c > N_CHECKERS:
                    return ID_TOO_MANY
            total += c
            if side == 0:  # the opponent's own point r + 1 is the mover's 24 - r
                if r < 24:
                    state[OPP + 23 - r] = c
                else:
                    state[BAR_OPP] = c
            elif r < 24:
                state[ME + r] = c
            else:
                state[BAR_ME] = c
        if total > N_CHECKERS:
            return ID_TOO_MANY
        if side == 0:
            state[OFF_OPP] = N_CHECKERS - total
        else:
            state[OFF_ME] = N_CHECKERS - total
    if pos < 40:
        if (w0 >> pos) != 0 or w1 != 0:
            return ID_TRAILING
    elif (w1 >> (pos - 40)) != 0:
        return ID_TRAILING
    state[CUBE_VALUE] = 1
    state[CUBE_OWNER] = -1
    state[CUBE_LIMIT] = MAX_CUBE_VALUE
    refresh_masks(state)
    code, _ = state_error(state)
    if code != ERR_NONE:
        return ID_BAD_STATE
    return ERR_NONE


@njit(cache=True, inline="always")
def _sort_keys(w0, w1):
    """(first 10 characters, last 4) of the ID of key words (w0, w1) as numbers that order as
    Python orders the strings: each character's rank in ASCII order, 6 bits a character (the last
    character only carries 2 bits, in the same order)."""
    hi = np.int64(0)
    lo = np.int64(0)
    for g in range(3):
        v = (
            (_key_byte(w0, w1, 3 * g) << 16)
            | (_key_byte(w0, w1, 3 * g + 1) << 8)
            | _key_byte(w0, w1, 3 * g + 2)
        )
        for c in range(4):
            r = B64_RANKS[(v >> (18 - 6 * c)) & 63]
            if 4 * g + c < 10:
                hi = (hi << 6) | r
            else:
                lo = (lo << 6) | r
    b = _key_byte(w0, w1, 9)
    lo = (lo << 6) | B64_RANKS[b >> 2]
    return hi, (lo << 2) | (b & 3)


_MASK51 = (1 << 51) - 1


@njit(cache=True, inline="always")
def _window(hi, lo, s):
    """Bits s .. s + 50 of the 80-bit number hi * 2**20 + lo (hi: 60 bits, lo: 20 bits)."""
    if s >= 20:
        return (hi >> (s - 20)) & _MASK51
    return ((hi << (20 - s)) | (lo >> s)) & _MASK51


@njit(cache=True)
def sorted_order(hi, lo, n, packed, order):
    """Order (into order[:n]) of n IDs given by their _sort_keys (hi[:n], lo[:n]) as Python sorts
    the strings; packed: int64[>= n] scratch.

    The afterstates of one roll share a long prefix (the opponent's block, unless a checker is
    hit): the sort key is the 51 bits from the highest bit where any two IDs differ, packed with
    the index (12 bits) into one int64, ranked by counting for short lists and sorted for long
    ones; an insertion pass then orders IDs whose 51 bits agree (rare)."""
    dh = np.int64(0)
    dl = np.int64(0)
    for k in range(1, n):
        dh |= hi[k] ^ hi[0]
        dl |= lo[k] ^ lo[0]
    top = msb(dh) + 21 if dh != 0 else msb(dl) + 1  # one past the highest differing bit
    s = top - 51 if top > 51 else 0
    for k in range(n):
        packed[k] = (_window(hi[k], lo[k], s) << 12) | k  # distinct: the index is in it
    if n <= 64:  # rank by counting the smaller keys: branch-free, the compiler vectorises it
        for k in range(n):
            x = packed[k]
            r = 0
            for j in range(n):
                r += packed[j] < x
            order[r] = k
    else:
        packed[:n].sort()
        for k in range(n):
            order[k] = packed[k] & 4095
    if s > 0:  # IDs equal in the window but not below it
        for k in range(1, n):
            x = order[k]
            j = k - 1
            while j >= 0 and (
                hi[x] < hi[order[j]] or (hi[x] == hi[order[j]] and lo[x] < lo[order[j]])
            ):
                order[j + 1] = order[j]
                j -= 1
            order[j + 1] = x


@njit(cache=True)
def legal_play_ids(chars, d1, d2, buf, out):
    """The sorted Position IDs of the distinct legal afterstates of roll d1-d2 (1..6) from the
    position of ID chars (14 ASCII codes), each followed by a space, into out (uint8[CHARS_LEN])
    -> count, or -(ID_* code) when the ID does not decode. buf: int64[BUF_WORDS] scratch (one
    buffer: fewer arguments make the call from Python cheaper).

    Afterstates are encoded right after the play, before the turn passes (the mover is still the
    second block); with no legal move the one ID is the unchanged position's (the pass)."""
    m = MAX_AFTERSTATES
    rows = buf[:_ROWS_WORDS].reshape((m, STATE_LEN))
    work = buf[_ROWS_WORDS:]
    state = work[_W_STATE : _W_STATE + STATE_LEN]
    err = decode_id(chars, state)
    if err != ERR_NONE:
        return -err
    n = plays_of_roll(state, d1, d2, rows, None)
    w0s = work[_W_KEYS : _W_KEYS + m]
    w1s = work[_W_KEYS + m : _W_KEYS + 2 * m]
    his = work[_W_KEYS + 2 * m : _W_KEYS + 3 * m]
    los = work[_W_KEYS + 3 * m : _W_KEYS + 4 * m]
    opp0, a0 = _block(state, OPP, BAR_OPP, True)
    for k in range(n):
        r = rows[k]
        me, b = _block(r, ME, BAR_ME, False)
        if r[BAR_OPP] == state[BAR_OPP]:  # nothing hit (B.3): the opponent's block is the start's
            w0, w1, _ = _join(opp0, a0, me, b)
        else:
            opp, a = _block(r, OPP, BAR_OPP, True)
            w0, w1, _ = _join(opp, a, me, b)
        w0s[k] = w0
        w1s[k] = w1
        his[k], los[k] = _sort_keys(w0, w1)
    order = work[_W_ORDER : _W_ORDER + m]
    sorted_order(his, los, n, work[_W_PACKED : _W_PACKED + m], order)
    for k in range(n):
        i = order[k]
        _encode_words(w0s[i], w1s[i], out, (ID_LEN + 1) * k)
        out[(ID_LEN + 1) * k + ID_LEN] = SEP
    return n
