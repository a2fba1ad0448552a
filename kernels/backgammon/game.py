"""The backgammon game core: every adapter, trainer, harness and script plays through it.

Rules: boardgym/RULES.md, clauses B.1-B.6 (moves and plays), E.1-E.7 (bar entry and lost
rolls), O.1-O.3 (bearing off and scoring); the opening roll and the doubling cube as in turns.py
and cube.py. The pieces live in the modules below; this one is the contract adapters use.

State (board.py): one flat ``int64[STATE_LEN]`` always seen from the player on roll (the mover,
absolute player ``state[TURN]``); the mover's points are 1..24, it moves 24 -> 1 and enters on
25 - die. Passing the turn turns the board round (``pass_turn``), so there is one frame only:
actions, plays, routes and afterstates are all in the acting player's frame.

Action (codec.py): one checker move, ``(source point - 1) * 6 + (die - 1)`` (source 25 = the
bar), ``N_ACTIONS = 150``; with the cube, four more (cube.py): ``N_ACTIONS_CUBE = 154``.

Two ways to play a turn, one rule:
- by action: ``legal_mask`` (the moves that begin or continue a play using the most dice, B.5)
  and ``step`` (one move; when the play is over, the turn passes and the next one is rolled;
  ``step_masked`` does it on the state itself and hands back the mover's next mask; a cube
  action, ``cube_step_inplace``);
- by afterstate: ``plays`` / ``afterstates`` (the distinct positions a whole play can reach, B.6,
  each with one route: the checker moves reaching it, as notation writes them) and the game loop
  ``start`` -> ``afterstates`` -> ``finish_turn`` -> ... (cubeless).
Both roll through ``begin_turn`` (turns.py): the roll, then E.3/E.7 lost rolls (recorded in a
caller's ``passes`` buffer, int64[K, 3] rows: player, die, die), ``max_turns`` truncation. A
status tells the caller where the game is (``ROLLED`` ... ``MOVING``).

Match play (match.py, MP.1-MP.8): a match state beside the game state; ``match_award`` credits a
finished game, ``set_cube_limit`` writes the next game's cube limit (MP.4-MP.6) into its state.

Outcome (O.3): ``result(state, scoring)`` -> (winner, kind, points): kind 1 single, 2 gammon,
3 backgammon; points = (1 for ``SCORING_SINGLE``, kind for ``SCORING_GAMMON``) x cube value. A
dropped double pays the cube value before doubling to the doubler (``dropped_result``). A game
stopped by ``TURN_LIMIT`` (or a ``DEAD`` position, where no side can ever move) is truncated
(``is_truncation``), with no reward.
"""

import numpy as np
from numba import njit

from boardgym.kernels.backgammon.board import (
    CUBE_VALUE,
    DICE,
    OPP,
    STATE_LEN,
    TURN,
    end_turn,
    end_turn_inplace,
    full_roll,
    new_initial_state,
    set_dice,
)
from boardgym.kernels.backgammon.codec import (
    N_ACTIONS,
    apply_action,
    decode_action,
    encode_action,
    has_legal_move,
    legal_action_mask,
    mask_work,
    move_checker,
)
from boardgym.kernels.backgammon.cube import (
    ACTION_DOUBLE,
    ACTION_DROP,
    ACTION_ROLL,
    ACTION_TAKE,
    N_ACTIONS_CUBE,
    cube_action_mask,
    take_double,
)
from boardgym.kernels.backgammon.match import (
    M_CRAWFORD,
    M_GAME,
    M_LENGTH,
    M_POST,
    M_SCORE,
    M_WINNER,
    MATCH_CUBE_LIMIT,
    MATCH_LEN,
    MAX_MATCH_LENGTH,
    game_cube_limit,
    match_award,
    match_away,
    match_error,
    match_init,
    match_over,
    new_match,
    set_cube_limit,
)
from boardgym.kernels.backgammon.movegen import (
    MAX_AFTERSTATES,
    MAX_MOVES,
    MV_FIELDS,
    gen_plays,
    remaining_dice,
)
from boardgym.kernels.backgammon.outcome import outcome
from boardgym.kernels.backgammon.turns import (
    CUBE_DECISION,
    DEAD,
    ROLLED,
    TURN_LIMIT,
    begin_turn,
    begin_turn_inplace,
    opening,
)

__all__ = [
    "N_ACTIONS",
    "N_ACTIONS_CUBE",
    "ACTION_ROLL",
    "ACTION_DOUBLE",
    "ACTION_TAKE",
    "ACTION_DROP",
    "take_double",
    "MAX_AFTERSTATES",
    "MAX_MOVES",
    "MV_FIELDS",
    "STATE_LEN",
    "ROLLED",
    "CUBE_DECISION",
    "TURN_LIMIT",
    "DEAD",
    "GAME_OVER",
    "MOVING",
    "SCORING_SINGLE",
    "SCORING_GAMMON",
    "initial_state",
    "pass_turn",
    "dice_of",
    "set_roll",
    "encode_action",
    "decode_action",
    "legal_mask",
    "move_of_action",
    "apply",
    "step",
    "step_masked",
    "begin_turn",
    "finish_turn_inplace",
    "cube_step_inplace",
    "opening",
    "plays",
    "plays_of_roll",
    "afterstates",
    "start",
    "finish_turn",
    "result",
    "dropped_result",
    "is_truncation",
    "no_passes",
    "can_move",
    "dice_left",
    "M_LENGTH",
    "M_SCORE",
    "M_CRAWFORD",
    "M_POST",
    "M_GAME",
    "M_WINNER",
    "MATCH_LEN",
    "MAX_MATCH_LENGTH",
    "MATCH_CUBE_LIMIT",
    "match_init",
    "match_error",
    "match_over",
    "match_away",
    "match_award",
    "game_cube_limit",
    "set_cube_limit",
    "new_match",
]

# statuses besides begin_turn's ROLLED, CUBE_DECISION, TURN_LIMIT, DEAD
GAME_OVER = 4  # the move or play just made ended the game
MOVING = 5  # the mover's play goes on (dice left)

SCORING_SINGLE = 0  # every game is worth 1 (times the cube)
SCORING_GAMMON = 1  # gammons 2, backgammons 3 (O.3)


@njit(cache=True)
def initial_state():
    """The standard start, player 0 on roll, no dice, cube 1 centred: int64[STATE_LEN]."""
    return new_initial_state()


@njit(cache=True)
def pass_turn(state):
    """The position seen by the other player, who is now on roll without dice -> new state."""
    return end_turn(state)


@njit(cache=True)
def set_roll(state, d1, d2):
    """Copy of state with the roll d1-d2 (1..6) to play: one die of each, four of a double (B.4)."""
    return set_dice(state, d1, d2)


@njit(cache=True)
def dice_of(state):
    """(high, low) of the roll whose dice are all still in state; (0, 0) otherwise."""
    return full_roll(state)


@njit(cache=True, inline="always")
def legal_mask(state, cube, offered, out):
    """Mark in out (int8[N_ACTIONS], or int8[N_ACTIONS_CUBE] with the cube) the acting player's
    legal actions -> count. With the cube, a pending double (offered) or a due double/roll
    decision (before the dice) marks cube actions only; else the checker moves of the play."""
    if cube:
        n = cube_action_mask(state, offered, out)
        if n:
            for k in range(N_ACTIONS):
                out[k] = 0
            return n
    return legal_action_mask(state, out)  # writes out[:N_ACTIONS] only


@njit(cache=True)
def move_of_action(state, action):
    """(from 1..25, to 0..24, die, hit 0/1) of checker action in state (the mover's numbering,
    25 = the bar, 0 = off); the action must be legal."""
    sp, d = decode_action(action)
    to = sp - d if sp > d else 0
    hit = 1 if to >= 1 and state[OPP + to - 1] == 1 else 0
    return sp, to, d, hit


@njit(cache=True)
def apply(state, action):
    """Play one legal checker action -> new state; once the play is over the turn passes (board
    turned round, dice cleared) without rolling."""
    return apply_action(state, action)


@njit(cache=True, inline="always")
def step(state, action, rng, rolls, max_turns, cube, passes):
    """Play one legal checker action -> (state, status, rolls, lost rolls recorded).

    The status is MOVING while the mover's play goes on, GAME_OVER when it bore off its last
    checker, else begin_turn's for the next player (rng: int64[1] dice stream; rolls: rolls made
    so far; max_turns 0 = no cap; cube: stop at CUBE_DECISION when a double may be offered)."""
    mover = state[TURN]
    s = apply_action(state, action)
    if s[TURN] == mover:
        return s, MOVING, rolls, 0
    if outcome(s)[0] >= 0:
        return s, GAME_OVER, rolls, 0
    return begin_turn(
        s, rng, np.int64(0), np.int64(0), cube, np.bool_(False), rolls, max_turns, passes
    )


@njit(cache=True, inline="always")
def step_masked(state, action, rng, rolls, max_turns, cube, passes, mask, stk):
    """step on state itself, with the mask of what follows -> (status, rolls, lost rolls,
    count). While the mover's play goes on (MOVING) its legal mask is in mask (int8
    [N_ACTIONS]) and count > 0: the same search tells that the play goes on and gives the mask.
    Otherwise the turn has passed as in step (cube: stop at CUBE_DECISION), mask is scratch and
    count is 0. stk: int64[15] scratch."""
    move_checker(state, action)
    k = mask_work(state, mask, stk)
    if k > 0:
        return MOVING, rolls, 0, k
    end_turn_inplace(state)
    if outcome(state)[0] >= 0:
        return GAME_OVER, rolls, 0, 0
    status, rolls, n = begin_turn_inplace(
        state,
        rng,
        np.int64(0),
        np.int64(0),
        cube,
        np.bool_(False),
        rolls,
        max_turns,
        passes,
    )
    return status, rolls, n, 0


@njit(cache=True, inline="always")
def finish_turn_inplace(afterstate, rng, rolls, max_turns, cube, passes):
    """finish_turn on the afterstate itself -> (status, rolls, lost rolls); cube: stop at
    CUBE_DECISION when the next player may double."""
    end_turn_inplace(afterstate)
    if outcome(afterstate)[0] >= 0:
        return GAME_OVER, rolls, 0
    return begin_turn_inplace(
        afterstate,
        rng,
        np.int64(0),
        np.int64(0),
        cube,
        np.bool_(False),
        rolls,
        max_turns,
        passes,
    )


@njit(cache=True, inline="always")
def cube_step_inplace(state, action, rng, rolls, max_turns, passes):
    """Play a legal cube action (cube_action_mask) on state itself -> (status, offered, rolls,
    lost rolls). ACTION_DOUBLE offers the double (status CUBE_DECISION, offered 1: the
    opponent answers); ACTION_TAKE doubles the cube for the taker (take_double) and
    ACTION_ROLL rolls, both going on as begin_turn with the decision made; ACTION_DROP ends
    the game (GAME_OVER; its result is dropped_result(state))."""
    if action == ACTION_DOUBLE:
        return CUBE_DECISION, 1, rolls, 0
    if action == ACTION_DROP:
        return GAME_OVER, 0, rolls, 0
    if action == ACTION_TAKE:
        state[:] = take_double(state)
    status, rolls, n = begin_turn_inplace(
        state,
        rng,
        np.int64(0),
        np.int64(0),
        np.bool_(True),
        np.bool_(True),
        rolls,
        max_turns,
        passes,
    )
    return status, 0, rolls, n


@njit(cache=True)
def plays_of_roll(state, d1, d2, out, routes):
    """The distinct whole plays of roll d1-d2 from state (its own dice ignored): afterstates into
    out (int64[N, STATE_LEN], mover's view before the turn passes, dice cleared) and one route
    each into routes (int64[N, MAX_MOVES, MV_FIELDS]; None for none) -> count, -1 if
    the buffers are too small (MAX_AFTERSTATES rows always suffice). The rows come in one order
    whatever the order of the dice. With no legal move: one row, the unchanged position."""
    hi = d1 if d1 > d2 else d2
    lo = d1 + d2 - hi
    return gen_plays(state, hi, lo, np.int64(4), out, routes)


@njit(cache=True)
def plays(state, out, routes):
    """plays_of_roll for the dice still in state: a whole roll at the start of a turn, the rest
    of the play under way later -> count (0 when state has no dice)."""
    a, b, n = remaining_dice(state)
    if n == 0:
        return 0
    if a == b:
        return gen_plays(state, a, a, n, out, routes)
    return gen_plays(state, a, b, np.int64(2), out, routes)


@njit(cache=True)
def afterstates(state, out):
    """plays without routes: the distinct afterstates of the dice in state into out -> count."""
    return plays(state, out, None)


@njit(cache=True)
def no_passes():
    """An empty lost-roll buffer (int64[0, 3]) for callers that only count lost rolls."""
    return np.empty((0, 3), dtype=np.int64)


@njit(cache=True)
def start(rng, max_turns, passes):
    """A new game: the opening roll (the higher die moves first with both dice) and its first
    turn -> (state on roll with dice, status, rolls made, lost rolls) (see step)."""
    s, hi, lo = opening(rng)
    return begin_turn(
        s, rng, hi, lo, np.bool_(False), np.bool_(False), np.int64(0), max_turns, passes
    )


@njit(cache=True, inline="always")
def finish_turn(afterstate, rng, rolls, max_turns, passes):
    """End the turn that reached afterstate (a row of plays/afterstates): pass the turn, then
    -> (state, status, rolls, lost rolls), GAME_OVER or begin_turn's status for the next player.
    The state is the one step leaves after the same play made action by action."""
    s = end_turn(afterstate)
    if outcome(s)[0] >= 0:
        return s, GAME_OVER, rolls, 0
    return begin_turn(
        s, rng, np.int64(0), np.int64(0), np.bool_(False), np.bool_(False), rolls, max_turns, passes
    )


@njit(cache=True, inline="always")
def result(state, scoring):
    """(winner 0/1, kind 1/2/3, points) of a finished game (O.3, times the cube); (-1, 0, 0) while
    it goes on. scoring: SCORING_SINGLE or SCORING_GAMMON."""
    winner, kind = outcome(state)
    if winner < 0:
        return -1, 0, 0
    pts = 1 if scoring == SCORING_SINGLE else kind
    return winner, kind, pts * state[CUBE_VALUE]


@njit(cache=True)
def dropped_result(state):
    """(winner, 0, points) when the opponent of the player on roll dropped its double: the doubler
    wins the cube value before the double."""
    return state[TURN], 0, state[CUBE_VALUE]


@njit(cache=True, inline="always")
def is_truncation(status):
    """True for the statuses that stop a game without a result (TURN_LIMIT, DEAD)."""
    return status == TURN_LIMIT or status == DEAD


@njit(cache=True)
def can_move(state):
    """True when a remaining die of state moves a checker (else the roll is lost, E.3/E.7)."""
    return has_legal_move(state)


@njit(cache=True)
def dice_left(state):
    """Dice left to play in state (0..4)."""
    n = 0
    for v in range(6):
        n += state[DICE + v]
    return n
