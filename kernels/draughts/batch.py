"""Batched Russian draughts: N games in one ``(N, STATE_LEN)`` array, stepped by parallel kernels.

The game itself is the core's (game.py): ``step`` and ``legal_mask`` in the acting player's
frame, ``result`` / ``reward`` for the end, ``encode_obs``. Every kernel loops over games with
``prange`` and writes into caller-owned buffers:
  obs      float32[N, OBS_LEN]   observation (observe.py) from the perspective player's view
  masks    int8[N, 1024]         legal actions of the perspective player, in its own frame
                                 (all zero when the game is over)
  current  int64[N]              side to move (0 White, 1 Black) — who acts next
  rewards  float32[N, 2]         this step's reward of player 0 and player 1 (zero-sum, at the end)
  done     int8[N, 2]            terminated, truncated
The perspective player is the side to move in two-player mode (``opponent == OPP_NONE``: the
caller supplies both sides' actions, as in Pgx) and the learner's seat (``seats[i]``) when an
in-kernel opponent (opponents.py, codes in boardgym.kernels.players) plays the other side.

``batch_step`` / ``batch_reset`` run games in parallel; ``*_serial`` are the same code on one
thread (faster for small batches). Finished games are not reset by ``batch_step``: the caller
reads the terminal observation, then calls ``batch_reset`` on the finished games (same-step
autoreset in the adapters).
"""
from numba import njit, prange

from boardgym.kernels.draughts.board import S_SIDE
from boardgym.kernels.draughts.game import encode_obs, legal_mask, result, reward, step
from boardgym.kernels.draughts.opponents import opponent_move
from boardgym.kernels.draughts.outcome import ONGOING
from boardgym.kernels.players import OPP_NONE


@njit(cache=True)
def _finish(s, i, seats, rngs, opponent, play, max_plies, obs, masks, current, rewards, done):
    """With play, let the opponent move while it is to act; then write game i's outputs."""
    code, trunc = result(s, max_plies)
    if opponent != OPP_NONE and play:
        while code == ONGOING and not trunc and s[S_SIDE] != seats[i]:
            s = opponent_move(s, opponent, rngs, i, masks[i])
            code, trunc = result(s, max_plies)
    rewards[i, 0] = reward(code, 0)
    rewards[i, 1] = reward(code, 1)
    done[i, 0] = code != ONGOING
    done[i, 1] = trunc
    side = s[S_SIDE]
    persp = side if opponent == OPP_NONE else seats[i]
    encode_obs(s, persp, max_plies, obs[i])
    m = masks[i]
    if code != ONGOING or trunc or side != persp:
        m[:] = 0
    else:
        legal_mask(s, m)
    current[i] = side
    return s


@njit(cache=True)
def batch_outputs(states, seats, rngs, opponent, max_plies, obs, masks, current, rewards, done):
    """Write every game's outputs for its position as it stands (no move is played, rngs is
    left as it is); the outputs of a core are always these functions of its states and seats."""
    for i in range(states.shape[0]):
        _finish(states[i], i, seats, rngs, opponent, False, max_plies, obs, masks, current,
                rewards, done)


def _batch_step(states, actions, seats, rngs, opponent, max_plies, obs, masks, current, rewards, done):
    """Apply actions[i] (the acting player's frame; must be legal; -1 skips game i, leaving its
    outputs as they were) to every game, then let the in-kernel opponent reply; fill the output
    buffers. Finished games are left as they ended."""
    for i in prange(states.shape[0]):
        a = actions[i]
        if a < 0:
            continue
        s = step(states[i], a)
        states[i] = _finish(s, i, seats, rngs, opponent, True, max_plies, obs, masks, current,
                            rewards, done)


def _batch_reset(states, which, start, seats, alternate, rngs, opponent, max_plies, obs, masks,
                current, rewards, done):
    """Restart the games with which[i] != 0 from start (int64[STATE_LEN]); with alternate, the
    learner changes seat; the opponent opens when it is White. Fills the outputs of those games."""
    for i in prange(states.shape[0]):
        if which[i] == 0:
            continue
        if alternate:
            seats[i] = 1 - seats[i]
        states[i] = _finish(start.copy(), i, seats, rngs, opponent, True, max_plies, obs, masks,
                            current, rewards, done)


# Each batch kernel in two builds: parallel (prange over games; uncached, as Numba requires) and
# serial (cached), which wins for small batches or a single thread.
batch_step = njit(parallel=True)(_batch_step)
batch_reset = njit(parallel=True)(_batch_reset)
batch_step_serial = njit(cache=True)(_batch_step)
batch_reset_serial = njit(cache=True)(_batch_reset)
