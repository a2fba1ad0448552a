"""Russian draughts game core: the one place that says what the game is, for every adapter.

Rules (boardgym/RULES.md): moves M.1 (a man steps one square diagonally forward), M.2 (a king slides
any distance), M.3 (a man reaching the far row by a quiet move is crowned and the move ends);
captures 25.1-25.7 (compulsory, men capture backwards, a whole chain is one move, free choice among
captures, jumped pieces stay until the move ends and are not jumped twice, flying kings with the
25.4 landing rule, a man crowned mid-capture goes on as a king); end G.1 (the side to move without a
legal move loses) and the draws G.2a-G.2e (switchable, ``state[S_RULES]``). The rules themselves
live in ``movegen`` / ``codec`` / ``move`` / ``outcome``; this module is the interface every env,
batch core, trainer, agent and script calls:

- ``initial_state(rules)``: the start position (White to move).
- ``legal_mask(state, out)`` / ``step(state, action)`` (``step_inplace``: on the vector itself):
  one action (a quiet move or one capture
  hop, ``action = from_sq32 * 32 + to_sq32``) in the acting player's frame: the board turned
  180 degrees for Black (``view_action``, ``view_square``; codec.py). A capture chain is played
  hop by hop by the same player; ``state[S_SIDE]`` is always the player who acts.
- ``gen_moves(state, out)``: whole moves (rows ``board.M_*``, one per distinct outcome, each
  with its route); ``play_move`` plays a row, ``move_route`` gives its squares (sq32, the
  kernel frame) and ``route_actions`` its hops as actions in the acting player's frame;
  ``hop_route`` gives the squares of hops already played (the AEC env's move record).
- ``result(state, max_plies)`` / ``reward(status, player)``: the outcome (``outcome.*`` codes)
  with truncation by a ply cap, and what it pays (+1 / -1 for a win / loss, 0 for a draw or a
  truncation; zero-sum). ``gen_actions`` lists the legal actions (kernel frame) without a mask;
  ``result_moves`` takes the G.1 answer from that list (no second search); ``mark_actions``
  writes the list as a mask and ``sort_actions`` puts it in the mask's order.
- ``encode_obs`` / ``decode_obs``: the observation (observe.py), in the observer's frame.
- ``state_error(state)`` / ``batch_error(states)``: the content check of position vectors
  behind ``boardgym.envs.draughts.check_state`` / ``check_batch`` (``ERR_*`` codes, messages in
  ``STATE_ERRORS``).
- Encodings: ``square_action`` / ``action_squares`` (sq32), ``encode_action`` /
  ``decode_action`` (ghost squares), ``board.sq32_to_pdn`` / ``pdn_to_sq32`` (PDN numbers).

Squares: ghost layout internally (board.py), sq32 a1=0 .. h8=31 for actions and observations,
PDN 1 = b8 .. 32 = g1 in notation. State layout: board.py (``S_*``, ``STATE_LEN``).

The functions compiled with ``_nrt=False`` allocate nothing and so skip Numba's reference
counting: the draughts search calls them at every node (agents/draughts/search.py).
"""

import numpy as np
from numba import njit

from boardgym.kernels.bits import popcount
from boardgym.kernels.draughts.board import (
    BB_PROMO,
    BB_ROW,
    BB_SQUARES,
    GHOST_TO_SQ32,
    HIST_LEN,
    M_FROM,
    M_NHOPS,
    M_PATH,
    MAX_HOPS,
    N_BITS,
    S_BK,
    S_BM,
    S_CAP_JUMPED,
    S_CAP_MAN,
    S_CAP_SQ,
    S_CAP_START,
    S_HASH,
    S_HIST,
    S_HIST_N,
    S_KINGS_ONLY,
    S_LONG_DIAG,
    S_MATERIAL,
    S_PLY,
    S_RULES,
    S_SIDE,
    S_WK,
    S_WM,
    STATE_LEN,
)
from boardgym.kernels.draughts.codec import (  # noqa: F401  (the core's encodings)
    MAX_ACTS,
    MAX_QUIET,
    N_ACTIONS,
    VIEW_ACTION,
    action_squares,
    apply_action,
    apply_action_inplace,
    chain_origin,
    decode_action,
    encode_action,
    fill_mask,
    gen_actions,
    mark_actions,
    sort_actions,
    square_action,
    view_action,
    view_square,
)
from boardgym.kernels.draughts.move import apply_move, set_position
from boardgym.kernels.draughts.movegen import (  # noqa: F401  (whole moves)
    can_capture_from,
    gen_moves,
    has_capture_bb,
    mover_first,
    mover_view,
)
from boardgym.kernels.draughts.observe import OBS_LEN, decode_obs, encode_obs  # noqa: F401
from boardgym.kernels.draughts.outcome import (  # noqa: F401  (outcome codes)
    BLACK_WON,
    ONGOING,
    RULES_ALL,
    STATUS_NAMES,
    WHITE_WON,
    game_status,
    game_status_moves,
    hash_bb,
    long_diag_balance,
)

ONE = np.int64(1)
ROUTE_LEN = MAX_HOPS + 1  # squares of a move's route: the start and every landing
MAX_COUNT = (1 << 31) - 1  # largest ply / counter value a position may hold


@njit(cache=True)
def initial_state(rules=RULES_ALL):
    """The initial position vector (White to move) with the draw rules ``rules``
    (outcome.RULE_*)."""
    white = BB_ROW[0] | BB_ROW[1] | BB_ROW[2]
    black = BB_ROW[5] | BB_ROW[6] | BB_ROW[7]
    return set_position(white, np.int64(0), black, np.int64(0), np.int64(0), np.int64(rules))


@njit(cache=True, inline="always")
def legal_mask(state, out):
    """Legal actions of the player to act, in its own frame, into out (int8[N_ACTIONS]); count."""
    return fill_mask(state, out, state[S_SIDE])


@njit(cache=True, inline="always")
def step(state, action):
    """Position vector after the player to act plays action (its own frame; must be legal)."""
    return apply_action(state, view_action(state[S_SIDE], action))


@njit(cache=True, inline="always")
def step_inplace(state, action):
    """step on the position vector itself (no copy): the batch cores' path."""
    apply_action_inplace(state, view_action(state[S_SIDE], action))


@njit(cache=True, _nrt=False)
def is_capture(state):
    """True if the player to act captures: a chain is in progress or a capture is due (25.1)."""
    if state[S_CAP_SQ] >= 0:
        return True
    us_m, us_k, them, empty = mover_view(
        state[S_WM], state[S_WK], state[S_BM], state[S_BK], state[S_SIDE]
    )
    return has_capture_bb(us_m, us_k, them, empty)


@njit(cache=True)
def play_move(state, row):
    """Whole-move position after a gen_moves row of state (mid-chain: its remaining hops)."""
    if state[S_CAP_SQ] < 0:
        return apply_move(state, row)
    s = state
    fr = state[S_CAP_SQ]
    for k in range(row[M_NHOPS]):
        to = row[M_PATH + k]
        s = apply_action(s, encode_action(fr, to))
        fr = to
    return s


@njit(cache=True)
def move_route(state, row, out):
    """sq32 squares (kernel frame) of a gen_moves row of state into out (int64[ROUTE_LEN]):
    where the piece stands, then every landing square. Returns their number."""
    fr = state[S_CAP_SQ] if state[S_CAP_SQ] >= 0 else row[M_FROM]
    out[0] = GHOST_TO_SQ32[fr]
    for k in range(row[M_NHOPS]):
        out[k + 1] = GHOST_TO_SQ32[row[M_PATH + k]]
    return row[M_NHOPS] + 1


@njit(cache=True)
def route_actions(state, row, out):
    """The hops of a gen_moves row of state as actions in the acting player's frame, into out
    (int64[MAX_HOPS]), in the order ``step`` plays them. Returns their number."""
    side = state[S_SIDE]
    fr = state[S_CAP_SQ] if state[S_CAP_SQ] >= 0 else row[M_FROM]
    for k in range(row[M_NHOPS]):
        to = row[M_PATH + k]
        out[k] = view_action(side, encode_action(fr, to))
        fr = to
    return row[M_NHOPS]


@njit(cache=True)
def hop_route(state, actions, out):
    """sq32 squares (kernel frame) of the hops ``actions`` (int64[k], the acting player's frame)
    played in a row from state: the start, then every landing, into out (int64[ROUTE_LEN]);
    returns their number (at most ROUTE_LEN)."""
    side = state[S_SIDE]
    n = min(actions.shape[0], MAX_HOPS)
    for k in range(n):
        fr, to = action_squares(view_action(side, actions[k]))
        if k == 0:
            out[0] = fr
        out[k + 1] = to
    return n + 1


@njit(cache=True, inline="always")
def result(state, max_plies):
    """(status, truncated): the outcome code (outcome.py; ONGOING mid-chain) and whether a game
    still going has reached the cap of max_plies plies (0 = no cap)."""
    code = game_status(state)
    trunc = code == ONGOING and state[S_CAP_SQ] < 0 and max_plies > 0 and state[S_PLY] >= max_plies
    return code, trunc


@njit(cache=True, inline="always")
def result_moves(state, can_move, max_plies):
    """result for a position whose legal moves are already known to exist (can_move) or not:
    the same answer without a second move search."""
    code = game_status_moves(state, can_move)
    trunc = code == ONGOING and state[S_CAP_SQ] < 0 and max_plies > 0 and state[S_PLY] >= max_plies
    return code, trunc


@njit(cache=True, inline="always")
def reward(status, player):
    """What a game ended with status pays player (0 White, 1 Black): 1.0, -1.0 or 0.0."""
    if status == WHITE_WON:
        return 1.0 if player == 0 else -1.0
    if status == BLACK_WON:
        return 1.0 if player == 1 else -1.0
    return 0.0


# ---- content check of position vectors ------------------------------------------------------
ERR_NONE = 0
(
    ERR_BITS_WM,
    ERR_BITS_WK,
    ERR_BITS_BM,
    ERR_BITS_BK,
    ERR_OVERLAP,
    ERR_MANY_WHITE,
    ERR_MANY_BLACK,
    ERR_WHITE_MAN_ROW8,
    ERR_BLACK_MAN_ROW1,
    ERR_SIDE,
    ERR_RULES,
    ERR_PLY,
    ERR_KINGS_ONLY,
    ERR_MATERIAL,
    ERR_LONG_DIAG,
    ERR_HIST_N,
    ERR_CHAIN_FIELDS,
    ERR_CAP_SQ,
    ERR_CAP_START,
    ERR_JUMPED,
    ERR_CAP_MAN,
    ERR_CHAIN_STUCK,
    ERR_HASH,
    ERR_HISTORY,
    ERR_LONG_DIAG_BALANCE,
) = range(1, 26)
STATE_ERRORS = (
    "no error",
    "the White men bitboard (S_WM) has bits outside the 32 dark squares",
    "the White kings bitboard (S_WK) has bits outside the 32 dark squares",
    "the Black men bitboard (S_BM) has bits outside the 32 dark squares",
    "the Black kings bitboard (S_BK) has bits outside the 32 dark squares",
    "two pieces on one square",
    "more than 12 White pieces",
    "more than 12 Black pieces",
    "a White man on row 8, its promotion row (M.3, 25.5)",
    "a Black man on row 1, its promotion row (M.3, 25.5)",
    "side to move (S_SIDE) must be 0 (White) or 1 (Black)",
    f"draw-rules mask (S_RULES) must be in 0..{RULES_ALL}",
    f"ply count (S_PLY) must be in 0..{MAX_COUNT}",
    f"G.2c counter (S_KINGS_ONLY) must be in 0..{MAX_COUNT}",
    f"G.2b/G.2d counter (S_MATERIAL) must be in 0..{MAX_COUNT}",
    f"G.2e counter (S_LONG_DIAG) must be in -1..{MAX_COUNT}",
    f"history count (S_HIST_N) must be in 1..{MAX_COUNT}",
    "capture-chain fields set outside a chain (S_CAP_SQ = -1 needs S_CAP_START = -1, "
    "S_CAP_JUMPED = 0, S_CAP_MAN = 0)",
    "capture square (S_CAP_SQ) holds no piece of the side to move",
    "chain start (S_CAP_START) is not a dark square left empty by the capturing piece",
    "jumped pieces (S_CAP_JUMPED) must be one or more pieces of the side not to move",
    "S_CAP_MAN must be 0 or 1, and 1 when the capturing piece is a man",
    "the capture chain in progress cannot go on (no capture hop from S_CAP_SQ)",
    "position hash (S_HASH) does not match the pieces and side to move",
    "the history ring's current entry (S_HIST + (S_HIST_N - 1) % 64) is not the position hash",
    "G.2e counter (S_LONG_DIAG) must be -1 exactly when the lone-king-on-a1-h8 balance does "
    "not hold",
)


@njit(cache=True, inline="always")
def _bad_bits(bb):
    return bb < 0 or (bb & ~BB_SQUARES) != 0


@njit(cache=True, inline="always")
def _is_square(g):
    return 0 <= g < N_BITS and GHOST_TO_SQ32[g] >= 0


@njit(cache=True)
def state_error(s):
    """ERR_* code of the first problem of a position vector (int64[STATE_LEN]), ERR_NONE if none.

    Safe on any int64 vector of STATE_LEN entries: it reads fixed fields only and range-checks
    every value before using it as a shift or an index.
    """
    wm, wk, bm, bk = s[S_WM], s[S_WK], s[S_BM], s[S_BK]
    if _bad_bits(wm):
        return ERR_BITS_WM
    if _bad_bits(wk):
        return ERR_BITS_WK
    if _bad_bits(bm):
        return ERR_BITS_BM
    if _bad_bits(bk):
        return ERR_BITS_BK
    if (wm & wk) | (wm & bm) | (wm & bk) | (wk & bm) | (wk & bk) | (bm & bk):
        return ERR_OVERLAP
    if popcount(wm | wk) > 12:
        return ERR_MANY_WHITE
    if popcount(bm | bk) > 12:
        return ERR_MANY_BLACK
    if wm & BB_PROMO[0]:
        return ERR_WHITE_MAN_ROW8
    if bm & BB_PROMO[1]:
        return ERR_BLACK_MAN_ROW1
    side = s[S_SIDE]
    if side != 0 and side != 1:
        return ERR_SIDE
    if not 0 <= s[S_RULES] <= RULES_ALL:
        return ERR_RULES
    if not 0 <= s[S_PLY] <= MAX_COUNT:
        return ERR_PLY
    if not 0 <= s[S_KINGS_ONLY] <= MAX_COUNT:
        return ERR_KINGS_ONLY
    if not 0 <= s[S_MATERIAL] <= MAX_COUNT:
        return ERR_MATERIAL
    if not -1 <= s[S_LONG_DIAG] <= MAX_COUNT:
        return ERR_LONG_DIAG
    if not 1 <= s[S_HIST_N] <= MAX_COUNT:
        return ERR_HIST_N
    cap, start, jumped, man = s[S_CAP_SQ], s[S_CAP_START], s[S_CAP_JUMPED], s[S_CAP_MAN]
    # pw*, pb*: the pieces at the last whole move (before the chain in progress, if any)
    pwm, pwk, pbm, pbk = wm, wk, bm, bk
    if cap == -1:
        if start != -1 or jumped != 0 or man != 0:
            return ERR_CHAIN_FIELDS
    else:
        own_m, own_k, th_m, th_k = mover_first(wm, wk, bm, bk, side)
        them = th_m | th_k
        if not _is_square(cap) or ((own_m | own_k) >> cap) & ONE == 0:
            return ERR_CAP_SQ
        occupied = wm | wk | bm | bk
        if not _is_square(start) or (start != cap and (occupied >> start) & ONE):
            return ERR_CAP_START
        if jumped == 0 or (jumped & ~them) != 0:
            return ERR_JUMPED
        king = (own_k >> cap) & ONE
        if (man != 0 and man != 1) or (man == 0 and king == 0):
            return ERR_CAP_MAN
        if not can_capture_from(cap, king, jumped, them, BB_SQUARES & ~occupied):
            return ERR_CHAIN_STUCK
        own_m, own_k = chain_origin(own_m, own_k, cap, start, man)
        pwm, pwk, pbm, pbk = mover_first(own_m, own_k, th_m, th_k, side)
    h = hash_bb(pwm, pwk, pbm, pbk, side)
    if s[S_HASH] != h:
        return ERR_HASH
    if s[S_HIST + (s[S_HIST_N] - 1) % HIST_LEN] != h:
        return ERR_HISTORY
    if (s[S_LONG_DIAG] >= 0) != long_diag_balance(pwm, pwk, pbm, pbk):
        return ERR_LONG_DIAG_BALANCE
    return ERR_NONE


@njit(cache=True)
def batch_error(states):
    """(game index, ERR_* code) of the first bad row of states (int64[B, STATE_LEN]), or (-1, 0)."""
    for i in range(states.shape[0]):
        code = state_error(states[i])
        if code != ERR_NONE:
            return i, code
    return -1, ERR_NONE


__all__ = [
    "N_ACTIONS",
    "OBS_LEN",
    "STATE_LEN",
    "ROUTE_LEN",
    "MAX_HOPS",
    "VIEW_ACTION",
    "STATUS_NAMES",
    "ONGOING",
    "WHITE_WON",
    "BLACK_WON",
    "RULES_ALL",
    "STATE_ERRORS",
    "initial_state",
    "legal_mask",
    "step",
    "step_inplace",
    "gen_actions",
    "mark_actions",
    "sort_actions",
    "result_moves",
    "is_capture",
    "gen_moves",
    "play_move",
    "move_route",
    "route_actions",
    "hop_route",
    "game_status",
    "result",
    "reward",
    "encode_obs",
    "decode_obs",
    "square_action",
    "action_squares",
    "encode_action",
    "decode_action",
    "view_action",
    "view_square",
    "state_error",
    "batch_error",
]
