"""Backgammon state layout, index constants, tables and view flipping.

Rules: boardgym/RULES.md, backgammon clauses B.1-B.6 (moves), E.1-E.7 (bar entry), O.1-O.3
(bearing off and scoring).

Board numbering (single frame: the mover's)
    Every position is stored from the view of the player on roll ("the mover"). Points are
    numbered 1..24 from the mover's side: the mover moves from 24 towards 1, its home board is
    1..6 and it enters from the bar onto 25 - d (the opponent's home point d, E.2). The opponent's
    checkers are stored in the same frame: the opponent's own point q is the mover's point 25 - q.
    When the turn passes the view is flipped (``flip_view``), so one generator serves both players.

State layout (one flat ``int64`` vector of length ``STATE_LEN``; a batch is ``(B, STATE_LEN)``)
    ME + p - 1    (p = 1..24)   mover's checkers on point p
    OPP + p - 1   (p = 1..24)   opponent's checkers on the mover's point p
    BAR_ME, BAR_OPP             checkers on the bar
    OFF_ME, OFF_OPP             checkers borne off
    DICE + v - 1  (v = 1..6)    dice of value v still to play this turn (a roll a-b with a != b
                                sets one each; a double d-d sets DICE + d - 1 to 4; all zero
                                between turns)
    TURN                        absolute player on roll, 0 or 1
    CUBE_VALUE, CUBE_OWNER      cube value (1, 2, 4, ...); owner -1 = centred, else 0/1 absolute
    CUBE_LIMIT                  the cube may be turned only while CUBE_VALUE < CUBE_LIMIT (a power
                                of two: MAX_CUBE_VALUE in money play, 64 in a match, 1 in the
                                Crawford game; kernels/backgammon/match.py)
    BB_ME, BB_ME2               bit p - 1 set when the mover has >= 1 / >= 2 checkers on point p
    BB_OPP, BB_OPP2             the same for the opponent (mover's frame); BB_OPP2 = blocked
                                points (B.2), BB_OPP & ~BB_OPP2 = blots (B.3)
    Indices 0 .. BOARD_LEN - 1 are the checker placement; two positions are the same play
    outcome (B.6) exactly when these entries agree.
"""

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

N_POINTS = 24
N_CHECKERS = 15
ME = 0
OPP = 24
BAR_ME = 48
BAR_OPP = 49
OFF_ME = 50
OFF_OPP = 51
BOARD_LEN = 52
DICE = 52
TURN = 58
CUBE_VALUE = 59
CUBE_OWNER = 60
CUBE_LIMIT = 61
BB_ME = 62
BB_ME2 = 63
BB_OPP = 64
BB_OPP2 = 65
STATE_LEN = 66
MAX_CUBE_VALUE = 1 << 15  # the largest cube a gnubg Match ID records (2**15)

BAR_POINT = 25  # the bar as a move source, in the mover's numbering
BB_ALL = (1 << 24) - 1  # the 24 points
BB_HOME = (1 << 6) - 1  # mover's home board, points 1..6 (O.1)
BB_OPP_HOME = BB_ALL ^ ((1 << 18) - 1)  # opponent's home board in the mover's frame, 19..24

START_POINTS = ((24, 2), (13, 5), (8, 3), (6, 5))  # standard start, from each player's own view


@njit(cache=True)
def refresh_masks(s):
    """Recompute the four occupancy bitboards of s (int64[STATE_LEN]) in place."""
    me1 = np.int64(0)
    me2 = np.int64(0)
    op1 = np.int64(0)
    op2 = np.int64(0)
    for i in range(N_POINTS):
        b = np.int64(1) << i
        c = s[ME + i]
        if c >= 1:
            me1 |= b
        if c >= 2:
            me2 |= b
        c = s[OPP + i]
        if c >= 1:
            op1 |= b
        if c >= 2:
            op2 |= b
    s[BB_ME] = me1
    s[BB_ME2] = me2
    s[BB_OPP] = op1
    s[BB_OPP2] = op2


@njit(cache=True)
def set_me_bits(s, i):
    """Update BB_ME/BB_ME2 for point index i (point i + 1) after its count changed."""
    c = s[ME + i]
    b = np.int64(1) << i
    if c >= 1:
        s[BB_ME] |= b
    else:
        s[BB_ME] &= ~b
    if c >= 2:
        s[BB_ME2] |= b
    else:
        s[BB_ME2] &= ~b


@njit(cache=True)
def set_opp_bits(s, i):
    """Update BB_OPP/BB_OPP2 for point index i after its count changed."""
    c = s[OPP + i]
    b = np.int64(1) << i
    if c >= 1:
        s[BB_OPP] |= b
    else:
        s[BB_OPP] &= ~b
    if c >= 2:
        s[BB_OPP2] |= b
    else:
        s[BB_OPP2] &= ~b


@njit(cache=True)
def new_initial_state():
    """The standard start, player 0 on roll, no dice, cube 1 centred (money play's cube limit):
    int64[STATE_LEN]."""
    s = np.zeros(STATE_LEN, dtype=np.int64)
    for k in range(4):
        p = START_POINTS[k][0]
        c = START_POINTS[k][1]
        s[ME + p - 1] = c
        s[OPP + (25 - p) - 1] = c
    s[TURN] = 0
    s[CUBE_VALUE] = 1
    s[CUBE_OWNER] = -1
    s[CUBE_LIMIT] = MAX_CUBE_VALUE
    refresh_masks(s)
    return s


@njit(cache=True)
def flip_into(s, out):
    """Write s seen from the other player into out (both int64[STATE_LEN]); dice and turn copied."""
    for i in range(N_POINTS):
        a = s[ME + i]
        out[ME + i] = s[OPP + 23 - i]
        out[OPP + 23 - i] = a
    a = s[BAR_ME]
    out[BAR_ME] = s[BAR_OPP]
    out[BAR_OPP] = a
    a = s[OFF_ME]
    out[OFF_ME] = s[OFF_OPP]
    out[OFF_OPP] = a
    for k in range(DICE, BB_ME):
        out[k] = s[k]
    refresh_masks(out)


@njit(cache=True)
def end_turn(s):
    """Pass the turn: clear the dice, flip to the other player's view, toggle TURN -> new state."""
    out = np.empty(STATE_LEN, dtype=np.int64)
    flip_into(s, out)
    for v in range(6):
        out[DICE + v] = 0
    out[TURN] = 1 - s[TURN]
    return out


@njit(cache=True)
def end_turn_inplace(s):
    """end_turn on s itself (the batch cores' copy-free path)."""
    for i in range(N_POINTS):  # the pairs (ME + i, OPP + 23 - i) swap, as flip_into writes them
        a = s[ME + i]
        s[ME + i] = s[OPP + 23 - i]
        s[OPP + 23 - i] = a
    a = s[BAR_ME]
    s[BAR_ME] = s[BAR_OPP]
    s[BAR_OPP] = a
    a = s[OFF_ME]
    s[OFF_ME] = s[OFF_OPP]
    s[OFF_OPP] = a
    for v in range(6):
        s[DICE + v] = 0
    s[TURN] = 1 - s[TURN]
    refresh_masks(s)


@njit(cache=True)
def set_dice(s, d1, d2):
    """Copy of s with the roll d1-d2 (1..6) to play: one of each, or four of a double."""
    out = s.copy()
    set_dice_inplace(out, d1, d2)
    return out


@njit(cache=True, inline="always")
def set_dice_inplace(s, d1, d2):
    """set_dice on s itself."""
    for v in range(6):
        s[DICE + v] = 0
    if d1 == d2:
        s[DICE + d1 - 1] = 4
    else:
        s[DICE + d1 - 1] = 1
        s[DICE + d2 - 1] = 1


@njit(cache=True)
def full_roll(s):
    """(high, low) die of a whole roll still untouched in s (the inverse of set_dice); (0, 0)
    when there are no dice or some of them have been played."""
    total, lo, hi = 0, 0, 0
    for v in range(6):
        c = s[DICE + v]
        if c != 0:
            if c != 1 and c != 4:
                return 0, 0
            total += c
            if lo == 0:
                lo = v + 1
            hi = v + 1
    if (total == 4 and lo == hi) or (total == 2 and lo != hi):
        return hi, lo
    return 0, 0


@njit(cache=True)
def same_board(a, b):
    """True when the checker placements (indices < BOARD_LEN) of a and b agree."""
    for k in range(BOARD_LEN):
        if a[k] != b[k]:
            return False
    return True


@intrinsic
def _memcpy_words(typingctx, dst, doff, src, soff, n):
    """Copy n int64 words from src's flat offset soff to dst's flat offset doff (C-contiguous)."""
    if not (
        isinstance(dst, types.Array)
        and isinstance(src, types.Array)
        and dst.layout == "C"
        and src.layout == "C"
        and dst.dtype == src.dtype == types.int64
    ):
        return None
    sig = types.void(dst, types.int64, src, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        d = context.make_array(signature.args[0])(context, builder, args[0])
        s = context.make_array(signature.args[2])(context, builder, args[2])
        dptr = builder.gep(d.data, [args[1]])
        sptr = builder.gep(s.data, [args[3]])
        cgutils.raw_memcpy(builder, dptr, sptr, args[4], context.get_constant(types.intp, 8))
        return context.get_dummy_value()

    return sig, codegen


def copy_state_to_row(out, n, src, off):
    """out[n, :STATE_LEN] = src[off:off + STATE_LEN] (a memcpy when both are C-contiguous)."""
    for k in range(STATE_LEN):
        out[n, k] = src[off + k]


@overload(copy_state_to_row, inline="always")
def _copy_state_to_row(out, n, src, off):
    if out.layout == "C" and src.layout == "C":

        def impl(out, n, src, off):
            _memcpy_words(out, n * out.shape[1], src, off, STATE_LEN)

        return impl

    def loop(out, n, src, off):
        for k in range(STATE_LEN):
            out[n, k] = src[off + k]

    return loop


# state_error codes: what is wrong with a state (the index names the field or point)
ERR_NONE = 0
ERR_COUNT = 1  # a checker count (index < BOARD_LEN) outside 0..15
ERR_TOTAL = 2  # a side (index 0 = mover, 1 = opponent) without exactly 15 checkers
ERR_SHARED = 3  # both sides on point index + 1 (mover's numbering)
ERR_BOTH_OFF = 4  # both sides have borne off all 15
ERR_TURN = 5  # TURN not 0 or 1
ERR_DICE = 6  # dice of value index + 1 outside 0..4
ERR_ROLL = 7  # the dice left are no part of one roll
ERR_CUBE_VALUE = 8  # not a power of two in 1 .. 2**15
ERR_CUBE_OWNER = 9  # not -1, 0 or 1
ERR_MASKS = 10  # occupancy word at index disagrees with the counts
ERR_CUBE_LIMIT = 11  # not a power of two in 1 .. 2**15, or below the cube's value


@njit(cache=True)
def state_error(s):
    """(code, index) of the first problem of s (int64[STATE_LEN], any contents): ERR_NONE, 0
    when s is a position the kernels accept. Never loops over a count."""
    for k in range(BOARD_LEN):
        if s[k] < 0 or s[k] > N_CHECKERS:
            return ERR_COUNT, k
    t_me = s[BAR_ME] + s[OFF_ME]
    t_opp = s[BAR_OPP] + s[OFF_OPP]
    for i in range(N_POINTS):
        t_me += s[ME + i]
        t_opp += s[OPP + i]
    if t_me != N_CHECKERS:
        return ERR_TOTAL, 0
    if t_opp != N_CHECKERS:
        return ERR_TOTAL, 1
    for i in range(N_POINTS):
        if s[ME + i] > 0 and s[OPP + i] > 0:
            return ERR_SHARED, i
    if s[OFF_ME] == N_CHECKERS and s[OFF_OPP] == N_CHECKERS:
        return ERR_BOTH_OFF, 0
    if s[TURN] != 0 and s[TURN] != 1:
        return ERR_TURN, TURN
    values = 0
    big = 0
    for v in range(6):
        c = s[DICE + v]
        if c < 0 or c > 4:
            return ERR_DICE, v
        if c > 0:
            values += 1
        if c > 1:
            big += 1
    if values > 2 or (values == 2 and big > 0):
        return ERR_ROLL, 0
    c = s[CUBE_VALUE]
    if c < 1 or c > MAX_CUBE_VALUE or (c & (c - 1)) != 0:
        return ERR_CUBE_VALUE, CUBE_VALUE
    if s[CUBE_OWNER] < -1 or s[CUBE_OWNER] > 1:
        return ERR_CUBE_OWNER, CUBE_OWNER
    m = s[CUBE_LIMIT]
    if m < c or m > MAX_CUBE_VALUE or (m & (m - 1)) != 0:
        return ERR_CUBE_LIMIT, CUBE_LIMIT
    w = np.empty(STATE_LEN, dtype=np.int64)
    for k in range(BOARD_LEN):
        w[k] = s[k]
    refresh_masks(w)
    for k in range(BB_ME, STATE_LEN):
        if w[k] != s[k]:
            return ERR_MASKS, k
    return ERR_NONE, 0


@njit(cache=True)
def batch_state_error(states):
    """(row, code, index) of the first bad row of states (int64[B, STATE_LEN]); (-1, 0, 0) if
    none."""
    for r in range(states.shape[0]):
        code, k = state_error(states[r])
        if code != ERR_NONE:
            return r, code, k
    return -1, ERR_NONE, 0
