"""Batched backgammon (cubeless): N games in one ``(N, STATE_LEN)`` array, stepped by parallel
kernels.

Same protocol as the draughts batch (boardgym.kernels.draughts.batch): outputs ``obs``
float32[N, OBS_LEN], ``masks`` int8[N, 150], ``current`` int64[N] (player to act), ``rewards``
float32[N, 2], ``done`` int8[N, 2] (terminated, truncated); the perspective player is the one to
act (two-player mode, ``OPP_NONE``) or the learner's seat ``seats[i]`` against an in-kernel
opponent (``OPP_RANDOM`` / ``OPP_GREEDY`` of kernels/players.py, played by opponents.py). Per
game: ``rngs[i]`` is its SplitMix64 dice stream (the random opponent draws its moves from it too,
so game i of a batch seeded S plays like the single env seeded S + i), ``rolls[i]`` the rolls made
(for ``max_turns`` truncation). ``scoring``: game.SCORING_SINGLE or game.SCORING_GAMMON.
Every rule and every turn goes through the game core (game.py): step, finish_turn, start, result
(their in-place forms step_masked / finish_turn_inplace: positions are stepped in their rows, and
the mask that tells whether the mover's play goes on is the mask handed out).
``batch_step_autoreset`` is ``batch_step`` then ``batch_reset`` of the finished games in one call
(the vector envs' same-step autoreset), keeping their last observation, reward and end flags.
"""

import numpy as np
from numba import njit, prange

from boardgym.kernels.backgammon.board import TURN
from boardgym.kernels.backgammon.codec import mask_work
from boardgym.kernels.backgammon.game import (
    ROLLED,
    finish_turn_inplace,
    is_truncation,
    legal_mask,
    result,
    start,
    step_masked,
)
from boardgym.kernels.backgammon.observe import encode_obs
from boardgym.kernels.backgammon.opponents import greedy_turn, random_turn_inplace
from boardgym.kernels.players import OPP_GREEDY, OPP_NONE


@njit(cache=True)
def _scratch():
    """(passes, stk): the lost-roll buffer (none kept) and the mask search's scratch of a block of
    games (one block per thread and call)."""
    return np.empty((0, 3), dtype=np.int64), np.empty(15, dtype=np.int64)


@njit(cache=True)
def _opponent_plays(s, status, i, seat, rngs, rolls, opponent, max_turns, scratch, passes, stk):
    """The in-kernel opponent plays its turns on s while it is on roll -> the status after them;
    scratch: int8[N_ACTIONS]."""
    while status == ROLLED and s[TURN] != seat:
        if opponent == OPP_GREEDY:
            s[:] = greedy_turn(s)
        else:
            random_turn_inplace(s, rngs[i : i + 1], np.int64(0), scratch, stk)
        status, rolls[i], _ = finish_turn_inplace(s, rngs[i : i + 1], rolls[i], max_turns, passes)
    return status


@njit(cache=True, inline="always")
def _finish(
    s,
    status,
    k,
    i,
    seats,
    rngs,
    rolls,
    opponent,
    max_turns,
    scoring,
    obs,
    masks,
    current,
    rewards,
    done,
    passes,
    stk,
):
    """Let the in-kernel opponent play its turns (on s itself), then fill game i's outputs; k > 0
    says masks[i] already holds the mask of s (a play going on)."""
    if opponent != OPP_NONE and status == ROLLED and s[TURN] != seats[i]:
        status = _opponent_plays(
            s, status, i, seats[i], rngs, rolls, opponent, max_turns, masks[i], passes, stk
        )
        k = 0
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
    if k > 0:
        pass  # masks[i] is already the mask of s
    elif winner >= 0 or trunc or (opponent != OPP_NONE and side != seats[i]):
        masks[i, :] = 0
    else:
        mask_work(s, masks[i], stk)  # _fill_mask on the row itself
    current[i] = side


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


@njit(cache=True, inline="always")
def _step_game(
    states,
    i,
    a,
    seats,
    rngs,
    rolls,
    opponent,
    max_turns,
    scoring,
    obs,
    masks,
    current,
    rewards,
    done,
    passes,
    stk,
):
    """Play action a in game i and continue it until its perspective player must act or it ends."""
    s = states[i]
    status, rolls[i], _, k = step_masked(
        s, a, rngs[i : i + 1], rolls[i], max_turns, passes, masks[i], stk
    )
    _finish(
        s,
        status,
        k,
        i,
        seats,
        rngs,
        rolls,
        opponent,
        max_turns,
        scoring,
        obs,
        masks,
        current,
        rewards,
        done,
        passes,
        stk,
    )


@njit(cache=True, inline="always")
def _start_game(
    states,
    i,
    seats,
    alternate,
    rngs,
    rolls,
    opponent,
    max_turns,
    scoring,
    obs,
    masks,
    current,
    rewards,
    done,
    passes,
    stk,
):
    """Start a new game i (opening roll from its stream; with alternate the learner changes
    seat)."""
    if alternate:
        seats[i] = 1 - seats[i]
    s, status, rolls[i], _ = start(rngs[i : i + 1], max_turns, passes)
    states[i] = s
    _finish(
        states[i],
        status,
        0,
        i,
        seats,
        rngs,
        rolls,
        opponent,
        max_turns,
        scoring,
        obs,
        masks,
        current,
        rewards,
        done,
        passes,
        stk,
    )


@njit(cache=True, inline="always")
def _step_block(
    lo,
    hi,
    states,
    actions,
    seats,
    rngs,
    rolls,
    opponent,
    max_turns,
    scoring,
    obs,
    masks,
    current,
    rewards,
    done,
):
    passes, stk = _scratch()
    for i in range(lo, hi):
        if actions[i] < 0:
            continue
        _step_game(
            states,
            i,
            actions[i],
            seats,
            rngs,
            rolls,
            opponent,
            max_turns,
            scoring,
            obs,
            masks,
            current,
            rewards,
            done,
            passes,
            stk,
        )


@njit(cache=True, inline="always")
def _reset_block(
    lo,
    hi,
    states,
    which,
    seats,
    alternate,
    rngs,
    rolls,
    opponent,
    max_turns,
    scoring,
    obs,
    masks,
    current,
    rewards,
    done,
):
    passes, stk = _scratch()
    for i in range(lo, hi):
        if which[i] == 0:
            continue
        _start_game(
            states,
            i,
            seats,
            alternate,
            rngs,
            rolls,
            opponent,
            max_turns,
            scoring,
            obs,
            masks,
            current,
            rewards,
            done,
            passes,
            stk,
        )


@njit(cache=True, inline="always")
def _autoreset_block(
    lo,
    hi,
    states,
    actions,
    seats,
    alternate,
    rngs,
    rolls,
    opponent,
    max_turns,
    scoring,
    obs,
    masks,
    current,
    rewards,
    done,
    seat_rewards,
    seat_done,
    final_obs,
):
    passes, stk = _scratch()
    for i in range(lo, hi):
        _step_game(
            states,
            i,
            actions[i],
            seats,
            rngs,
            rolls,
            opponent,
            max_turns,
            scoring,
            obs,
            masks,
            current,
            rewards,
            done,
            passes,
            stk,
        )
        seat_rewards[i] = rewards[i, seats[i]]
        seat_done[i, 0] = done[i, 0]
        seat_done[i, 1] = done[i, 1]
        if done[i, 0] == 0 and done[i, 1] == 0:
            continue
        final_obs[i, :] = obs[i, :]
        _start_game(
            states,
            i,
            seats,
            alternate,
            rngs,
            rolls,
            opponent,
            max_turns,
            scoring,
            obs,
            masks,
            current,
            rewards,
            done,
            passes,
            stk,
        )


# Serial and parallel builds of the same block functions, both cached (the parallel ones take the
# block count from the caller); see draughts/batch.py.
@njit(cache=True)
def batch_step_serial(
    states,
    actions,
    seats,
    rngs,
    rolls,
    opponent,
    max_turns,
    scoring,
    obs,
    masks,
    current,
    rewards,
    done,
):
    """Apply actions[i] (legal checker moves of the player to act; -1 skips game i) and continue
    each game until its perspective player must act or it ends; fill the outputs."""
    _step_block(
        0,
        states.shape[0],
        states,
        actions,
        seats,
        rngs,
        rolls,
        opponent,
        max_turns,
        scoring,
        obs,
        masks,
        current,
        rewards,
        done,
    )


@njit(parallel=True, cache=True)
def batch_step(
    states,
    actions,
    seats,
    rngs,
    rolls,
    opponent,
    max_turns,
    scoring,
    obs,
    masks,
    current,
    rewards,
    done,
    blocks,
):
    """batch_step_serial with one block of games per thread."""
    n = states.shape[0]
    blocks = max(1, min(n, blocks))
    for b in prange(blocks):
        _step_block(
            b * n // blocks,
            (b + 1) * n // blocks,
            states,
            actions,
            seats,
            rngs,
            rolls,
            opponent,
            max_turns,
            scoring,
            obs,
            masks,
            current,
            rewards,
            done,
        )


@njit(cache=True)
def batch_reset_serial(
    states,
    which,
    seats,
    alternate,
    rngs,
    rolls,
    opponent,
    max_turns,
    scoring,
    obs,
    masks,
    current,
    rewards,
    done,
):
    """Start new games (opening roll from each game's stream) where which[i] != 0."""
    _reset_block(
        0,
        states.shape[0],
        states,
        which,
        seats,
        alternate,
        rngs,
        rolls,
        opponent,
        max_turns,
        scoring,
        obs,
        masks,
        current,
        rewards,
        done,
    )


@njit(parallel=True, cache=True)
def batch_reset(
    states,
    which,
    seats,
    alternate,
    rngs,
    rolls,
    opponent,
    max_turns,
    scoring,
    obs,
    masks,
    current,
    rewards,
    done,
    blocks,
):
    """batch_reset_serial with one block of games per thread."""
    n = states.shape[0]
    blocks = max(1, min(n, blocks))
    for b in prange(blocks):
        _reset_block(
            b * n // blocks,
            (b + 1) * n // blocks,
            states,
            which,
            seats,
            alternate,
            rngs,
            rolls,
            opponent,
            max_turns,
            scoring,
            obs,
            masks,
            current,
            rewards,
            done,
        )


@njit(cache=True)
def batch_step_autoreset_serial(
    states,
    actions,
    seats,
    alternate,
    rngs,
    rolls,
    opponent,
    max_turns,
    scoring,
    obs,
    masks,
    current,
    rewards,
    done,
    seat_rewards,
    seat_done,
    final_obs,
):
    """batch_step for every game, then, in the same call, batch_reset of each game that ended,
    after keeping the reward of the player in seats[i] (seat_rewards float32[N]), the game's end
    (seat_done int8[N, 2]: terminated, truncated) and, for the finished games, the last
    observation (final_obs float32[N, OBS_LEN]). The outputs and streams end as batch_step then
    batch_reset of the finished games leave them."""
    _autoreset_block(
        0,
        states.shape[0],
        states,
        actions,
        seats,
        alternate,
        rngs,
        rolls,
        opponent,
        max_turns,
        scoring,
        obs,
        masks,
        current,
        rewards,
        done,
        seat_rewards,
        seat_done,
        final_obs,
    )


@njit(parallel=True, cache=True)
def batch_step_autoreset(
    states,
    actions,
    seats,
    alternate,
    rngs,
    rolls,
    opponent,
    max_turns,
    scoring,
    obs,
    masks,
    current,
    rewards,
    done,
    seat_rewards,
    seat_done,
    final_obs,
    blocks,
):
    """batch_step_autoreset_serial with one block of games per thread."""
    n = states.shape[0]
    blocks = max(1, min(n, blocks))
    for b in prange(blocks):
        _autoreset_block(
            b * n // blocks,
            (b + 1) * n // blocks,
            states,
            actions,
            seats,
            alternate,
            rngs,
            rolls,
            opponent,
            max_turns,
            scoring,
            obs,
            masks,
            current,
            rewards,
            done,
            seat_rewards,
            seat_done,
            final_obs,
        )
