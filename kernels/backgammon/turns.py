"""Turn sequencing for backgammon: the opening roll, rolling, and lost turns (E.3, E.7).

Called through the game core (game.py: step, start, finish_turn) by every adapter, trainer and
harness, so a game seeded the same way plays the same in all of them. Dice come from an explicit
SplitMix64 state (dice.py).

Opening (boardgym/RULES.md "Opening"): each side rolls one die — player 0 first, then player 1 —
ties are rolled again; the higher die moves first and plays both dice. ``begin_turn`` then rolls for
the player on roll (or takes given dice) and, while no checker can move, records the lost roll and
passes the turn (E.3, E.7). With the cube on, it stops before rolling when the player on roll may
double (cube.py): the caller asks for the decision, then calls again with ``cube_decided``.
``max_turns`` (> 0) stops before a roll once that many rolls were made (the caller truncates).
"""

from numba import njit

from boardgym.kernels.backgammon.board import (
    TURN,
    end_turn,
    end_turn_inplace,
    new_initial_state,
    set_dice_inplace,
)
from boardgym.kernels.backgammon.codec import has_legal_move
from boardgym.kernels.backgammon.cube import may_double
from boardgym.kernels.backgammon.dice import roll_dice, roll_die

MAX_PASSES = 10_000  # consecutive lost rolls before a position is declared dead (never seen)

# begin_turn status codes
ROLLED, CUBE_DECISION, TURN_LIMIT, DEAD = 0, 1, 2, 3


@njit(cache=True)
def opening(rng):
    """(state, high die, low die): the start position with the opening winner on roll (no dice
    yet)."""
    d0 = d1 = 0
    while d0 == d1:
        d0 = roll_die(rng)
        d1 = roll_die(rng)
    s = new_initial_state()
    if d1 > d0:
        s = end_turn(s)  # player 1 won the opening roll
        return s, d1, d0
    return s, d0, d1


@njit(cache=True)
def begin_turn(state, rng, d1, d2, cube, cube_decided, turns, max_turns, passes):
    """Start the next turn -> (state, status, rolls made so far, lost rolls recorded).

    d1, d2 > 0 give the first roll instead of rolling. Lost rolls are written to passes
    (int64[K, 3] rows: player, die, die) while room remains; status is ROLLED (dice set, a move
    exists), CUBE_DECISION, TURN_LIMIT or DEAD.
    """
    s = state.copy()
    status, turns, n = begin_turn_inplace(
        s, rng, d1, d2, cube, cube_decided, turns, max_turns, passes
    )
    return s, status, turns, n


@njit(cache=True)
def begin_turn_inplace(state, rng, d1, d2, cube, cube_decided, turns, max_turns, passes):
    """begin_turn on state itself -> (status, rolls made so far, lost rolls recorded)."""
    n = 0
    for _ in range(MAX_PASSES):
        if cube and not cube_decided and d1 == 0 and may_double(state):
            return CUBE_DECISION, turns, n
        cube_decided = False
        if max_turns > 0 and turns >= max_turns:
            return TURN_LIMIT, turns, n
        if d1 == 0:
            d1, d2 = roll_dice(rng)
        set_dice_inplace(state, d1, d2)
        turns += 1
        if has_legal_move(state):
            return ROLLED, turns, n
        if n < passes.shape[0]:
            passes[n, 0] = state[TURN]
            passes[n, 1] = d1
            passes[n, 2] = d2
        n += 1
        end_turn_inplace(state)
        d1 = d2 = 0
    return DEAD, turns, n
