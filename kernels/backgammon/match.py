"""Backgammon match play: the score of a match to N points and what it allows in each game.

Rules (boardgym/RULES.md MP.1-MP.8): a match to N points (1..MAX_MATCH_LENGTH) from 0-0 or a
given score; a game's points go to its winner, credited up to what that player needs (MP.2); the
match ends when one score reaches N (MP.3); the cube cannot pass ``MATCH_CUBE_LIMIT`` (MP.4); no
one doubles in the Crawford game, the game after the first game that left one score at N - 1
(MP.5); post-Crawford games use the cube again (MP.6). Money play is the match length 0.

Match state: one flat ``int64[MATCH_LEN]`` beside the game state (players are absolute, 0/1):
    M_LENGTH            N, the match length (0: money play, no score is kept)
    M_SCORE + p         player p's score, 0 .. N
    M_CRAWFORD          1 while the game being played (or about to start) is the Crawford game
    M_POST              1 once the Crawford game has been played (post-Crawford), or when a match
                        started from a score with N - 1 and no Crawford flag (MP.7)
    M_GAME              games finished so far
    M_WINNER            the match winner, -1 while the match goes on

The game core carries MP.4-MP.6 through one field of the game state, ``CUBE_LIMIT``
(board.py): ``game_cube_limit`` is the limit for the next game and ``set_cube_limit`` writes it.
"""

import numpy as np
from numba import njit

from boardgym.kernels.backgammon.board import CUBE_LIMIT, MAX_CUBE_VALUE

M_LENGTH = 0
M_SCORE = 1
M_CRAWFORD = 3
M_POST = 4
M_GAME = 5
M_WINNER = 6
MATCH_LEN = 7

MAX_MATCH_LENGTH = 64
MATCH_CUBE_LIMIT = 64

# match_error codes: what is wrong with a match state (checked before any kernel sees it)
MERR_NONE = 0
MERR_LENGTH = 1  # length outside 0..MAX_MATCH_LENGTH
MERR_SCORE = 2  # a score outside 0..N (or not 0 in money play); index = the player
MERR_BOTH = 3  # both scores at N
MERR_CRAWFORD = 4  # a Crawford flag not 0/1, or set unless exactly one score is N - 1
MERR_POST = 5  # a post-Crawford flag not 0/1, with the Crawford flag, or with no score at N - 1
MERR_GAME = 6  # a negative game count
MERR_WINNER = 7  # the winner disagrees with the scores


@njit(cache=True)
def match_init(length, score0, score1, crawford, out):
    """Fill out (int64[MATCH_LEN]) with a match to length at score score0-score1 (MP.1, MP.7):
    crawford 1 makes the next game the Crawford game; a score of N - 1 without it is
    post-Crawford. The caller checks the values (match_error)."""
    out[M_LENGTH] = length
    out[M_SCORE] = score0
    out[M_SCORE + 1] = score1
    out[M_GAME] = 0
    out[M_WINNER] = -1
    out[M_CRAWFORD] = 0
    out[M_POST] = 0
    if length > 1:
        at = score0 == length - 1 or score1 == length - 1
        if crawford != 0:
            out[M_CRAWFORD] = 1
        elif at:
            out[M_POST] = 1
    if length > 0:
        if score0 >= length:
            out[M_WINNER] = 0
        elif score1 >= length:
            out[M_WINNER] = 1


@njit(cache=True)
def match_error(m):
    """(code, index) of the first problem of m (int64[MATCH_LEN], any contents); MERR_NONE, 0
    when the kernels accept it."""
    n = m[M_LENGTH]
    if n < 0 or n > MAX_MATCH_LENGTH:
        return MERR_LENGTH, M_LENGTH
    for p in range(2):
        s = m[M_SCORE + p]
        if s < 0 or s > n:
            return MERR_SCORE, p
    if n > 0 and m[M_SCORE] == n and m[M_SCORE + 1] == n:
        return MERR_BOTH, 0
    a = n > 1 and m[M_SCORE] == n - 1
    b = n > 1 and m[M_SCORE + 1] == n - 1
    done = n > 0 and (m[M_SCORE] == n or m[M_SCORE + 1] == n)
    c = m[M_CRAWFORD]
    if c != 0 and (c != 1 or a == b or done):
        return MERR_CRAWFORD, M_CRAWFORD
    q = m[M_POST]
    if q != 0 and (q != 1 or c == 1 or not (a or b or done)):
        return MERR_POST, M_POST
    if m[M_GAME] < 0:
        return MERR_GAME, M_GAME
    w = -1
    if n > 0:
        if m[M_SCORE] == n:
            w = 0
        elif m[M_SCORE + 1] == n:
            w = 1
    if m[M_WINNER] != w:
        return MERR_WINNER, M_WINNER
    return MERR_NONE, 0


@njit(cache=True)
def match_over(m):
    """True when the match m has a winner (MP.3); never in money play."""
    return m[M_WINNER] >= 0


@njit(cache=True)
def match_away(m, player):
    """Points player (0/1) still needs to win the match m (N - score; 0 in money play)."""
    if m[M_LENGTH] == 0:
        return 0
    return m[M_LENGTH] - m[M_SCORE + player]


@njit(cache=True)
def game_cube_limit(m):
    """The cube limit of the game m is playing or starting (CUBE_LIMIT): MAX_CUBE_VALUE in money
    play, 1 in the Crawford game (MP.5), MATCH_CUBE_LIMIT otherwise (MP.4, MP.6)."""
    if m[M_LENGTH] == 0:
        return MAX_CUBE_VALUE
    if m[M_CRAWFORD] != 0:
        return 1
    return MATCH_CUBE_LIMIT


@njit(cache=True)
def set_cube_limit(state, m):
    """Write the cube limit of the match m's current game into the game state (in place)."""
    state[CUBE_LIMIT] = game_cube_limit(m)


@njit(cache=True)
def match_award(m, winner, points):
    """Credit a finished game of points (> 0) to winner (0/1) in the match m, in place (MP.2,
    MP.3, MP.5, MP.6) -> the points credited (capped at what the winner needed; all of them in
    money play). Updates the game count, the Crawford and post-Crawford flags and the winner."""
    n = m[M_LENGTH]
    m[M_GAME] += 1
    if n == 0:
        return points
    need = n - m[M_SCORE + winner]
    credit = points if points < need else need
    m[M_SCORE + winner] += credit
    if m[M_SCORE + winner] >= n:
        m[M_WINNER] = winner
        m[M_CRAWFORD] = 0
        return credit
    if m[M_CRAWFORD] != 0:
        m[M_CRAWFORD] = 0
        m[M_POST] = 1
    elif m[M_POST] == 0 and n > 1 and m[M_SCORE + winner] == n - 1:
        m[M_CRAWFORD] = 1
    return credit


def new_match(length: int = 0) -> np.ndarray:
    """A match to length at 0-0 (int64[MATCH_LEN]); the caller checks length."""
    m = np.zeros(MATCH_LEN, dtype=np.int64)
    match_init(length, 0, 0, 0, m)
    return m
