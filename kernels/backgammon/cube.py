"""The doubling cube (money game) for backgammon: which cube decisions are legal, and their effect.

Rules (boardgym/RULES.md C.1-C.2; no Jacoby rule, no beavers): before rolling, the player on
roll may double when the cube is centred or its own and the value is below the state's
``CUBE_LIMIT`` (money play: ``MAX_CUBE``, 2**15, the largest value a gnubg Match ID holds; in a
match 64, and 1 in the Crawford game: match.py, MP.4-MP.6). The opponent then takes (the cube
value doubles and the taker owns the cube) or drops (the game ends and the doubler wins the value
before doubling). The cube multiplies a game's points (outcome.game_points).

Cube actions extend the checker-move codec (codec.py) with four actions after ``N_ACTIONS``:
``ACTION_ROLL``, ``ACTION_DOUBLE`` (the player on roll, before its dice are rolled),
``ACTION_TAKE``, ``ACTION_DROP`` (its opponent, while a double is offered). Whether a double is
pending is the caller's ``offered`` flag (0/1); the dice are empty during cube decisions.
"""

from numba import njit

from boardgym.kernels.backgammon.board import CUBE_LIMIT, CUBE_OWNER, CUBE_VALUE, DICE, TURN
from boardgym.kernels.backgammon.codec import N_ACTIONS

ACTION_ROLL = N_ACTIONS
ACTION_DOUBLE = N_ACTIONS + 1
ACTION_TAKE = N_ACTIONS + 2
ACTION_DROP = N_ACTIONS + 3
N_ACTIONS_CUBE = N_ACTIONS + 4
MAX_CUBE = 1 << 15


@njit(cache=True)
def dice_pending(state):
    """True while the player on roll has no dice yet (the cube decision point)."""
    for v in range(6):
        if state[DICE + v] != 0:
            return False
    return True


@njit(cache=True)
def may_double(state):
    """True when the player on roll may double now (before rolling, cube centred or its own,
    its value below the state's CUBE_LIMIT)."""
    owner = state[CUBE_OWNER]
    return (
        dice_pending(state)
        and (owner == -1 or owner == state[TURN])
        and state[CUBE_VALUE] < state[CUBE_LIMIT]
    )


@njit(cache=True)
def cube_action_mask(state, offered, out):
    """Mark the legal cube actions in out[N_ACTIONS:N_ACTIONS_CUBE] (int8); return their count.

    Returns 0 (nothing marked) when no cube decision is due: the env then rolls or moves checkers.
    """
    for a in range(N_ACTIONS, N_ACTIONS_CUBE):
        out[a] = 0
    if offered:
        out[ACTION_TAKE] = 1
        out[ACTION_DROP] = 1
        return 2
    if may_double(state):
        out[ACTION_ROLL] = 1
        out[ACTION_DOUBLE] = 1
        return 2
    return 0


@njit(cache=True)
def take_double(state):
    """State after the opponent of the player on roll takes a double: value x2, taker owns it."""
    out = state.copy()
    out[CUBE_VALUE] = state[CUBE_VALUE] * 2
    out[CUBE_OWNER] = 1 - state[TURN]
    return out
