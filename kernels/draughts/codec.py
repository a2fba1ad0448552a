"""Russian draughts action codec: the one place the action encoding and the mover's frame live.

An action is one quiet move or one capture hop: ``action = from_sq32 * 32 + to_sq32``
(``N_ACTIONS`` = 1024; sq32: a1=0, c1=1, ..., h8=31, see board.py). A hop is identified by its
two squares: the captured piece is the one enemy piece between them. ``square_action`` and
``action_squares`` convert between an action and its two sq32 squares, ``encode_action`` and
``decode_action`` between an action and ghost squares (board.py).

Frames: the kernel frame is the board as White sees it. The acting player's frame turns the
board 180 degrees for Black: square ``sq32 -> 31 - sq32`` (``view_square``), action
``a -> 1023 - a`` (``view_action``; ``VIEW_ACTION[side, a]`` is the same map as a table). Both
maps are their own inverse. Envs, observations and batch cores work in the acting player's frame.

``legal_action_mask`` marks exactly the hops that begin a legal whole move (or, mid-chain,
continue the chain in progress): every capture hop of every piece when a capture exists (25.1;
free choice, 25.2/25.7), a king's hop only onto landings that continue when some do (25.4), and
otherwise the quiet moves. Every such hop extends to at least one whole legal move, and all
routes are allowed, so the reachable set of outcomes equals ``gen_moves`` exactly.

``apply_action`` performs one hop. The capturing piece moves and is crowned on the far row at
once (25.5), jumped pieces stay on the board (Turkish strike, 25.2), the chain's start, the
jumped set and the man/king flag are recorded in the position vector (board.S_CAP_*), and the
turn passes (via ``apply_move_parts``, with counters, hash and history) only when the piece
cannot capture any further. ``apply_action_inplace`` does the same on the position vector itself
(the batch cores' copy-free path). ``gen_actions`` lists the actions the mask marks (scratch from
the caller), ``mark_actions`` writes such a list as a mask, ``sort_actions`` puts it in the mask's
order.
"""

import numpy as np
from numba import njit

from boardgym.kernels.bits import lsb, pop_lsb
from boardgym.kernels.draughts.board import (
    BB_PROMO,
    BB_SQUARES,
    GHOST_TO_SQ32,
    M_FROM,
    M_TO,
    N_SQUARES,
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
    SQ32_TO_GHOST,
    STEP,
)
from boardgym.kernels.draughts.move import apply_move_parts_inplace
from boardgym.kernels.draughts.movegen import (
    can_capture_from,
    gen_hops,
    gen_quiet_bb,
    has_capture_bb,
    mover_first,
    mover_view,
)

N_ACTIONS = 1024
MAX_QUIET = 12 * 13  # at most 12 pieces, a king has at most 13 quiet moves
MAX_ACTS = 12 * 4 * 6  # at most 12 pieces, 4 directions, 6 landings beyond a jumped piece
ONE = np.int64(1)
ZERO = np.int64(0)


@njit(cache=True, inline="always")
def square_action(from_sq32, to_sq32):
    """Action index of the hop/move between two sq32 squares."""
    return from_sq32 * N_SQUARES + to_sq32


@njit(cache=True, inline="always")
def action_squares(action):
    """(from_sq32, to_sq32) of an action index."""
    return action // N_SQUARES, action % N_SQUARES


@njit(cache=True, inline="always")
def encode_action(from_ghost, to_ghost):
    """Action index of the hop/move between two ghost squares."""
    return square_action(GHOST_TO_SQ32[from_ghost], GHOST_TO_SQ32[to_ghost])


@njit(cache=True, inline="always")
def decode_action(action):
    """(from_ghost, to_ghost) of an action index."""
    fr, to = action_squares(action)
    return SQ32_TO_GHOST[fr], SQ32_TO_GHOST[to]


@njit(cache=True, inline="always")
def view_square(side, sq32):
    """A sq32 square seen from side's frame (turned 180 degrees for Black); its own inverse."""
    return sq32 if side == 0 else N_SQUARES - 1 - sq32


@njit(cache=True, inline="always")
def view_action(side, action):
    """An action seen from side's frame (both squares turned for Black); its own inverse."""
    return action if side == 0 else N_ACTIONS - 1 - action


# VIEW_ACTION[side, a] == view_action(side, a), as a table for NumPy indexing.
VIEW_ACTION = np.stack(
    [np.arange(N_ACTIONS, dtype=np.int64), N_ACTIONS - 1 - np.arange(N_ACTIONS, dtype=np.int64)]
)
VIEW_ACTION.setflags(write=False)


@njit(cache=True, inline="always")
def _mark(out, fr, to, n, frame):
    a = view_action(frame, encode_action(fr, to))
    if out[a] == 0:
        out[a] = 1
        return n + 1
    return n


@njit(cache=True)
def legal_action_mask(state, out):
    """Mark the legal actions of a position in out (int8[1024], overwritten; kernel frame);
    return their number."""
    return fill_mask(state, out, ZERO)


@njit(cache=True, inline="always")
def fill_mask(state, out, frame):
    """legal_action_mask in frame's view (0: the kernel frame, 1: turned round for Black)."""
    acts = np.empty(MAX_ACTS, dtype=np.int64)
    work = np.empty(128, dtype=np.int64)
    quiet = np.empty((MAX_QUIET, ROW_LEN), dtype=np.int64)
    return mark_actions(acts, gen_actions(state, acts, work, quiet), out, frame)


@njit(cache=True, inline="always")
def mark_actions(acts, k, out, frame):
    """Clear out (int8[N_ACTIONS]) and mark acts[:k] (kernel frame) in frame's view -> the
    number of distinct actions marked."""
    out[:] = 0
    n = 0
    for i in range(k):
        a = view_action(frame, acts[i])
        if out[a] == 0:
            out[a] = 1
            n += 1
    return n


# gen_actions is called, not inlined in Numba's IR: inlined it was retyped and recompiled into
# every mask and batch kernel (legal_mask alone took 3.1 s to compile); LLVM still inlines it.
@njit(cache=True)
def gen_actions(state, acts, work, quiet):
    """The legal actions of a position (kernel frame, in generation order) into acts
    (int64[MAX_ACTS]) -> their count; work (int64[128]) and quiet (int64[MAX_QUIET, ROW_LEN])
    are scratch. The actions legal_action_mask marks, without a mask."""
    side = state[S_SIDE]
    us_m, us_k, them, empty = mover_view(state[S_WM], state[S_WK], state[S_BM], state[S_BK], side)
    n = 0
    sq = state[S_CAP_SQ]
    if sq >= 0:
        king = (us_k >> sq) & ONE
        k = gen_hops(sq, king, state[S_CAP_JUMPED], them, empty | (ONE << sq), work, 0)
        for i in range(min(k, acts.shape[0])):
            acts[n] = encode_action(sq, work[i])
            n += 1
        return n
    if has_capture_bb(us_m, us_k, them, empty):
        pieces = us_m | us_k
        while pieces != 0:
            p = lsb(pieces)
            pieces = pop_lsb(pieces)
            k = gen_hops(p, (us_k >> p) & ONE, ZERO, them, empty | (ONE << p), work, 0)
            for i in range(k):
                if n < acts.shape[0]:
                    acts[n] = encode_action(p, work[i])
                    n += 1
        return n
    k = gen_quiet_bb(us_m, us_k, empty, side, quiet)
    for i in range(min(k, acts.shape[0])):
        acts[n] = encode_action(quiet[i, M_FROM], quiet[i, M_TO])
        n += 1
    return n


@njit(cache=True, inline="always")
def sort_actions(acts, k):
    """Sort acts[:k] ascending and drop repeats -> the number left (the order and the set of
    legal_action_mask's marks: index j of the result is the j-th marked action)."""
    for i in range(1, k):
        a = acts[i]
        j = i - 1
        while j >= 0 and acts[j] > a:
            acts[j + 1] = acts[j]
            j -= 1
        acts[j + 1] = a
    n = 0
    for i in range(k):
        if n == 0 or acts[i] != acts[n - 1]:
            acts[n] = acts[i]
            n += 1
    return n


@njit(cache=True, inline="always")
def chain_origin(us_m, us_k, sq, start, was_man):
    """The mover's (men, kings) with the capturing piece on sq put back on the chain's start,
    as the man or king it was when the chain began (the position before the chain)."""
    us_m &= ~(ONE << sq)
    us_k &= ~(ONE << sq)
    if was_man:
        us_m |= ONE << start
    else:
        us_k |= ONE << start
    return us_m, us_k


@njit(cache=True)
def _direction(fr, to):
    """Index of the diagonal direction from ghost square fr towards to (-1 if none)."""
    for d in range(4):
        q = STEP[d, fr]
        while q >= 0:
            if q == to:
                return d
            q = STEP[d, q]
    return -1


@njit(cache=True)
def apply_action(state, action):
    """Position vector after one legal action (a quiet move or one capture hop)."""
    s = state.copy()
    apply_action_inplace(s, action)
    return s


@njit(cache=True)
def apply_action_inplace(s, action):
    """apply_action on the position vector s itself (the batch cores' copy-free path)."""
    fr, to = decode_action(action)
    side = s[S_SIDE]
    us_m, us_k, th_m, th_k = mover_first(s[S_WM], s[S_WK], s[S_BM], s[S_BK], side)
    them = th_m | th_k
    empty = BB_SQUARES & ~(us_m | us_k | them)
    mid = s[S_CAP_SQ] >= 0
    if not mid and not has_capture_bb(us_m, us_k, them, empty):
        man = (us_m >> fr) & ONE
        promote = man & ((BB_PROMO[side] >> to) & ONE)
        apply_move_parts_inplace(s, fr, to, ZERO, promote)
        return
    # One capture hop: the captured piece is the one enemy piece between fr and to.
    d = _direction(fr, to)
    q = STEP[d, fr]
    while q >= 0 and q != to and not (them >> q) & ONE:
        q = STEP[d, q]
    if not mid:
        s[S_CAP_START] = fr
        s[S_CAP_MAN] = (us_m >> fr) & ONE
        s[S_CAP_JUMPED] = 0
    jumped = s[S_CAP_JUMPED] | (ONE << q)
    s[S_CAP_JUMPED] = jumped
    s[S_CAP_SQ] = to
    king = (us_k >> fr) & ONE
    us_m &= ~(ONE << fr)
    us_k &= ~(ONE << fr)
    if king == 0 and (BB_PROMO[side] >> to) & ONE:
        king = ONE  # 25.5: crowned during the capture, continues as a king
    if king:
        us_k |= ONE << to
    else:
        us_m |= ONE << to
    s[S_WM], s[S_WK], s[S_BM], s[S_BK] = mover_first(us_m, us_k, th_m, th_k, side)
    empty = BB_SQUARES & ~(us_m | us_k | them)
    if can_capture_from(to, king, jumped, them, empty):
        return
    # Chain complete: restore the position before the chain and apply the whole move.
    start = s[S_CAP_START]
    was_man = s[S_CAP_MAN]
    us_m, us_k = chain_origin(us_m, us_k, to, start, was_man)
    s[S_WM], s[S_WK], s[S_BM], s[S_BK] = mover_first(us_m, us_k, th_m, th_k, side)
    s[S_CAP_SQ] = -1
    s[S_CAP_START] = -1
    s[S_CAP_JUMPED] = 0
    s[S_CAP_MAN] = 0
    apply_move_parts_inplace(s, start, to, jumped, was_man & king)
