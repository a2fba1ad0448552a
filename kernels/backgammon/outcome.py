"""Backgammon game end and scoring (O.3).

The first side to bear off all 15 checkers wins: a single game (1) if the loser has borne off at
least one checker, a gammon (2) if none, a backgammon (3) if none and the loser still has a
checker on the bar or in the winner's home board. The cube multiplies these (``CUBE_VALUE``).
"""

from numba import njit

from boardgym.kernels.backgammon.board import (
    BAR_ME,
    BAR_OPP,
    BB_HOME,
    BB_ME,
    BB_OPP,
    BB_OPP_HOME,
    CUBE_VALUE,
    N_CHECKERS,
    OFF_ME,
    OFF_OPP,
    TURN,
)

SINGLE = 1
GAMMON = 2
BACKGAMMON = 3


@njit(cache=True)
def game_over(state):
    """True when either side has borne off all 15 checkers."""
    return state[OFF_ME] == N_CHECKERS or state[OFF_OPP] == N_CHECKERS


@njit(cache=True)
def outcome(state):
    """(winner, kind): winner 0/1 absolute (-1 while playing), kind 1/2/3 (O.3; 0 while playing)."""
    if state[OFF_ME] == N_CHECKERS:
        winner = state[TURN]
        loser_off = state[OFF_OPP]
        # loser = opponent; winner's home = the mover's points 1..6
        trapped = state[BAR_OPP] > 0 or (state[BB_OPP] & BB_HOME) != 0
    elif state[OFF_OPP] == N_CHECKERS:
        winner = 1 - state[TURN]
        loser_off = state[OFF_ME]
        # loser = mover; winner's home = the opponent's home, the mover's points 19..24
        trapped = state[BAR_ME] > 0 or (state[BB_ME] & BB_OPP_HOME) != 0
    else:
        return -1, 0
    if loser_off > 0:
        return winner, SINGLE
    if trapped:
        return winner, BACKGAMMON
    return winner, GAMMON


@njit(cache=True)
def game_points(state):
    """(winner, points): the O.3 kind times the cube value; (-1, 0) while playing."""
    w, k = outcome(state)
    return w, k * state[CUBE_VALUE]
