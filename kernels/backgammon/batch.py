"""Batched backgammon (cubeless): N games in one ``(N, STATE_LEN)`` array, stepped by parallel kernels.

Same protocol as the draughts batch (boardgym.kernels.draughts.batch): outputs ``obs``
float32[N, OBS_LEN], ``masks`` int8[N, 150], ``current`` int64[N] (player to act), ``rewards``
float32[N, 2], ``done`` int8[N, 2] (terminated, truncated); the perspective player is the one to
act (two-player mode, ``OPP_NONE``) or the learner's seat ``seats[i]`` against an in-kernel
opponent (``OPP_RANDOM`` / ``OPP_GREEDY`` of kernels/players.py, played by opponents.py). Per
game: ``rngs[i]`` is its SplitMix64 dice stream (the random opponent draws its moves from it too,
so game i of a batch seeded S plays like the single env seeded S + i), ``rolls[i]`` the rolls made
(for ``max_turns`` truncation). ``scoring``: game.SCORING_SINGLE or game.SCORING_GAMMON.
Every rule and every turn goes through the game core (game.py): step, finish_turn, start, result.
"""
import numpy as np
from numba import njit, prange

from boardgym.kernels.backgammon.board import TURN
from boardgym.kernels.backgammon.game import (
    ROLLED, finish_turn, is_truncation, legal_mask, result, start, step,
)
from boardgym.kernels.backgammon.observe import encode_obs
from boardgym.kernels.backgammon.opponents import opponent_turn
from boardgym.kernels.players import OPP_NONE


@njit(cache=True)
def _finish(s, status, i, seats, rngs, rolls, opponent, max_turns, scoring, obs, masks, current,
            rewards, done, passes):
    """Let the in-kernel opponent play its turns, then fill game i's outputs -> its state."""
    if opponent != OPP_NONE:
        while status == ROLLED and s[TURN] != seats[i]:
            after = opponent_turn(s, opponent, rngs[i:i + 1], 0, masks[i])
            s, status, rolls[i], _ = finish_turn(after, rngs[i:i + 1], rolls[i], max_turns, passes)
    winner, _, pts = result(s, scoring)
    rewards[i, 0] = 0.0
    rewards[i, 1] = 0.0
    if winner >= 0:
        rewards[i, winner] = pts
        rewards[i, 1 - winner] = -pts
    trunc = winner < 0 and is_truncation(status)
    done[i, 0] = winner >= 0
    done[i, 1] = trunc
    side = s[TURN]
    encode_obs(s, side if opponent == OPP_NONE else seats[i], obs[i])
    _fill_mask(s, winner >= 0 or trunc, seats[i], opponent, masks[i])
    current[i] = side
    return s


@njit(cache=True, inline="always")
def _fill_mask(s, finished, seat, opponent, mask):
    """The mask of a game: the legal moves while it goes on and its perspective player is to act
    (the one on roll, or the learner's seat against an in-kernel opponent), else all zero."""
    if finished or (opponent != OPP_NONE and s[TURN] != seat):
        mask[:] = 0
    else:
        legal_mask(s, False, False, mask)


@njit(cache=True)
def snapshot_mask_error(states, done, seats, opponent, masks):
    """First game whose mask differs from what its (validated) state, done flags and seat give
    (-1 if none): a restored snapshot must be one the kernels could have written."""
    want = np.empty(masks.shape[1], dtype=np.int8)
    for i in range(states.shape[0]):
        _fill_mask(states[i], done[i, 0] != 0 or done[i, 1] != 0, seats[i], opponent, want)
        for a in range(masks.shape[1]):
            if want[a] != masks[i, a]:
                return i
    return -1


def _batch_step(states, actions, seats, rngs, rolls, opponent, max_turns, scoring, obs, masks,
                current, rewards, done):
    """Apply actions[i] (legal checker moves of the player to act; -1 skips game i) and continue
    each game until its perspective player must act or it ends; fill the outputs."""
    for i in prange(states.shape[0]):
        if actions[i] < 0:
            continue
        passes = np.empty((0, 3), dtype=np.int64)
        s, status, rolls[i], _ = step(states[i], actions[i], rngs[i:i + 1], rolls[i], max_turns,
                                      False, passes)
        states[i] = _finish(s, status, i, seats, rngs, rolls, opponent, max_turns, scoring, obs,
                            masks, current, rewards, done, passes)


def _batch_reset(states, which, seats, alternate, rngs, rolls, opponent, max_turns, scoring, obs,
                 masks, current, rewards, done):
    """Start new games (opening roll from each game's stream) where which[i] != 0."""
    for i in prange(states.shape[0]):
        if which[i] == 0:
            continue
        if alternate:
            seats[i] = 1 - seats[i]
        passes = np.empty((0, 3), dtype=np.int64)
        s, status, rolls[i], _ = start(rngs[i:i + 1], max_turns, passes)
        states[i] = _finish(s, status, i, seats, rngs, rolls, opponent, max_turns, scoring, obs,
                            masks, current, rewards, done, passes)


# Parallel (uncached, prange) and serial (cached) builds of the same code; see draughts/batch.py.
batch_step = njit(parallel=True)(_batch_step)
batch_reset = njit(parallel=True)(_batch_reset)
batch_step_serial = njit(cache=True)(_batch_step)
batch_reset_serial = njit(cache=True)(_batch_reset)
