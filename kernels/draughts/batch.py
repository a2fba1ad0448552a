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
  last     int64[N, LAST_LEN]    the last completed move of each game (LM_*: its route's
                                 squares, sq32 in the kernel frame, and whether it captured;
                                 none at the start of a game) and the move in progress (PM_*),
                                 what the single env's ``last_move`` holds, for pictures
                                 (int64[N, 0]: nothing is recorded, at no cost)
The perspective player is the side to move in two-player mode (``opponent == OPP_NONE``: the
caller supplies both sides' actions, as in Pgx) and the learner's seat (``seats[i]``) when an
in-kernel opponent (opponents.py, codes in boardgym.kernels.players) plays the other side.

``batch_step`` / ``batch_reset`` run games in parallel, in ``blocks`` blocks of games (their
last argument: one per thread); ``*_serial`` are the same code on one thread (faster for small
batches). Finished games are not reset by ``batch_step``: the caller
reads the terminal observation, then calls ``batch_reset`` on the finished games.
``batch_step_autoreset`` does both in one call (the vector envs' same-step autoreset), keeping
the finished games' last observation, reward and end flags for the caller.

Speed: positions are stepped in place (game.step_inplace), and one list of legal actions per
position (game.gen_actions, scratch allocated once per chunk of games) gives the game status
(G.1), the random player's hop and the mask: no second move search, no state copies.
"""

import numpy as np
from numba import njit, prange

from boardgym.kernels.draughts.board import MAX_MOVES, ROW_LEN, S_CAP_SQ, S_SIDE
from boardgym.kernels.draughts.game import (
    MAX_ACTS,
    MAX_QUIET,
    ROUTE_LEN,
    action_squares,
    apply_action_inplace,
    apply_move,
    encode_obs,
    gen_actions,
    gen_moves,
    is_capture,
    mark_actions,
    move_route,
    result_moves,
    reward,
    sort_actions,
    view_action,
)
from boardgym.kernels.draughts.opponents import recapture_pick
from boardgym.kernels.draughts.outcome import ONGOING
from boardgym.kernels.players import OPP_GREEDY, OPP_NONE
from boardgym.kernels.rng import rand_below

# a game's row of ``last``: the last completed move, then the move in progress
LM_N = 0  # squares in the last move's route (0: none in this game yet)
LM_CAPTURE = 1  # 1 when it captured
LM_SQ = 2  # its route: the start square, then every landing (sq32, kernel frame)
PM_N = LM_SQ + ROUTE_LEN  # squares of the move in progress so far (0: none, or not known)
PM_CAPTURE = PM_N + 1
PM_SQ = PM_N + 2
LAST_LEN = PM_SQ + ROUTE_LEN


@njit(cache=True)
def _scratch():
    """(acts, work, quiet): the move-listing scratch (game.gen_actions) of one block of games;
    the batch loops run one block per thread, so the scratch is made once per thread and call."""
    return (
        np.empty(MAX_ACTS, dtype=np.int64),
        np.empty(128, dtype=np.int64),
        np.empty((MAX_QUIET, ROW_LEN), dtype=np.int64),
    )


@njit(cache=True, inline="always")
def _hop(s, action, last):
    """Play the hop action (kernel frame) on s itself, noting it in last (a game's row): a hop
    between moves starts a move, one mid-chain extends it (a chain whose start is not known
    stays unknown), and the move once complete becomes the last move."""
    if last.shape[0] == 0:  # not recorded
        apply_action_inplace(s, action)
        return
    if s[S_CAP_SQ] < 0:
        last[PM_N] = 1
        last[PM_CAPTURE] = 1 if is_capture(s) else 0
        last[PM_SQ] = action_squares(action)[0]
    n = last[PM_N]
    if 0 < n < ROUTE_LEN:
        last[PM_SQ + n] = action_squares(action)[1]
        last[PM_N] = n + 1
    apply_action_inplace(s, action)
    if s[S_CAP_SQ] < 0:  # the move is complete
        n = last[PM_N]
        last[LM_N] = n
        last[LM_CAPTURE] = last[PM_CAPTURE]
        for k in range(n):
            last[LM_SQ + k] = last[PM_SQ + k]
        last[PM_N] = 0


@njit(cache=True, inline="always")
def _clear_last(last):
    """A new game: no last move, no move in progress."""
    if last.shape[0] > 0:
        last[LM_N] = 0
        last[PM_N] = 0


@njit(cache=True)
def _recapture_play(s, rngs, i, last):
    """The recapture player's whole move on s itself (between moves), noted as the last move."""
    moves = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    row = moves[recapture_pick(s, moves, gen_moves(s, moves), rngs, i)]
    if last.shape[0] > 0:
        last[LM_CAPTURE] = 1 if is_capture(s) else 0
        last[LM_N] = move_route(s, row, last[LM_SQ : LM_SQ + ROUTE_LEN])
        last[PM_N] = 0
    s[:] = apply_move(s, row)


@njit(cache=True)
def _opponent_plays(s, i, seat, rngs, opponent, max_plies, acts, k, work, quiet, last):
    """The in-kernel opponent moves on s while it is to act and the game goes on; acts[:k] are
    the legal actions of s -> the count of the legal actions of s as it ends (in acts). Its
    moves are noted in last (game i's row)."""
    while True:
        code, trunc = result_moves(s, k > 0, max_plies)
        if code != ONGOING or trunc or s[S_SIDE] == seat:
            return k
        if opponent == OPP_GREEDY and s[S_CAP_SQ] < 0:
            _recapture_play(s, rngs, i, last)
        else:  # the random player: the j-th legal hop in the mask's order (rng.pick_marked)
            n = sort_actions(acts, k)
            _hop(s, acts[rand_below(rngs, i, n)], last)
        k = gen_actions(s, acts, work, quiet)


@njit(cache=True, inline="always")
def _finish(
    s,
    i,
    seats,
    rngs,
    opponent,
    play,
    max_plies,
    obs,
    masks,
    current,
    rewards,
    done,
    last,
    acts,
    work,
    quiet,
):
    """With play, let the opponent move while it is to act (on s itself); then write game i's
    outputs. One list of legal actions per position gives the status (G.1), the opponent's
    choice and the mask."""
    k = gen_actions(s, acts, work, quiet)
    if play and opponent != OPP_NONE and s[S_SIDE] != seats[i]:
        k = _opponent_plays(
            s, i, seats[i], rngs, opponent, max_plies, acts, k, work, quiet, last[i]
        )
    code, trunc = result_moves(s, k > 0, max_plies)
    side = s[S_SIDE]
    rewards[i, 0] = reward(code, 0)
    rewards[i, 1] = reward(code, 1)
    done[i, 0] = code != ONGOING
    done[i, 1] = trunc
    persp = side if opponent == OPP_NONE else seats[i]
    encode_obs(s, persp, max_plies, obs[i])
    m = masks[i]
    if code != ONGOING or trunc or side != persp:
        m[:] = 0
    else:
        mark_actions(acts, k, m, side)
    current[i] = side


@njit(cache=True)
def batch_outputs(states, seats, rngs, opponent, max_plies, obs, masks, current, rewards, done):
    """Write every game's outputs for its position as it stands (no move is played, rngs is
    left as it is); the outputs of a core are always these functions of its states and seats."""
    acts, work, quiet = _scratch()
    last = np.zeros((states.shape[0], 0), dtype=np.int64)  # (no move is played)
    for i in range(states.shape[0]):
        _finish(
            states[i],
            i,
            seats,
            rngs,
            opponent,
            False,
            max_plies,
            obs,
            masks,
            current,
            rewards,
            done,
            last,
            acts,
            work,
            quiet,
        )


@njit(cache=True, inline="always")
def _step_block(
    lo,
    hi,
    states,
    actions,
    seats,
    rngs,
    opponent,
    max_plies,
    obs,
    masks,
    current,
    rewards,
    done,
    last,
):
    acts, work, quiet = _scratch()
    for i in range(lo, hi):
        if actions[i] < 0:
            continue
        s = states[i]
        _hop(s, view_action(s[S_SIDE], actions[i]), last[i])
        _finish(
            s,
            i,
            seats,
            rngs,
            opponent,
            True,
            max_plies,
            obs,
            masks,
            current,
            rewards,
            done,
            last,
            acts,
            work,
            quiet,
        )


@njit(cache=True, inline="always")
def _reset_block(
    lo,
    hi,
    states,
    which,
    starts,
    seats,
    alternate,
    rngs,
    opponent,
    max_plies,
    obs,
    masks,
    current,
    rewards,
    done,
    last,
):
    acts, work, quiet = _scratch()
    for i in range(lo, hi):
        if which[i] == 0:
            continue
        if alternate:
            seats[i] = 1 - seats[i]
        s = states[i]
        s[:] = starts[_start_row(starts, rngs, i)]
        _clear_last(last[i])
        _finish(
            s,
            i,
            seats,
            rngs,
            opponent,
            True,
            max_plies,
            obs,
            masks,
            current,
            rewards,
            done,
            last,
            acts,
            work,
            quiet,
        )


@njit(cache=True, inline="always")
def _start_row(starts, rngs, i):
    """The row of starts (int64[K, STATE_LEN]) game i restarts from: 0 when K = 1 (no draw from
    its stream), else uniform from rngs[i]."""
    if starts.shape[0] == 1:
        return 0
    return rand_below(rngs, i, starts.shape[0])


@njit(cache=True, inline="always")
def _autoreset_block(
    lo,
    hi,
    states,
    actions,
    starts,
    seats,
    alternate,
    rngs,
    opponent,
    max_plies,
    obs,
    masks,
    current,
    rewards,
    done,
    last,
    seat_rewards,
    seat_done,
    final_obs,
):
    acts, work, quiet = _scratch()
    for i in range(lo, hi):
        s = states[i]
        _hop(s, view_action(s[S_SIDE], actions[i]), last[i])
        _finish(
            s,
            i,
            seats,
            rngs,
            opponent,
            True,
            max_plies,
            obs,
            masks,
            current,
            rewards,
            done,
            last,
            acts,
            work,
            quiet,
        )
        seat_rewards[i] = rewards[i, seats[i]]
        seat_done[i, 0] = done[i, 0]
        seat_done[i, 1] = done[i, 1]
        if done[i, 0] == 0 and done[i, 1] == 0:
            continue
        final_obs[i, :] = obs[i, :]
        if alternate:
            seats[i] = 1 - seats[i]
        s[:] = starts[_start_row(starts, rngs, i)]
        _clear_last(last[i])
        _finish(
            s,
            i,
            seats,
            rngs,
            opponent,
            True,
            max_plies,
            obs,
            masks,
            current,
            rewards,
            done,
            last,
            acts,
            work,
            quiet,
        )


# Each batch kernel in two builds, both cached: serial (faster for small batches or one thread)
# and parallel, whose prange runs the same block function (inlined: a call per block measured
# slower in backgammon) once per block of games, each block with its own scratch. The caller
# passes the block count, numba.get_num_threads() read in Python: called inside a kernel it is a
# ctypes function pointer, which keeps Numba from caching the kernel.
@njit(cache=True)
def batch_step_serial(
    states, actions, seats, rngs, opponent, max_plies, obs, masks, current, rewards, done, last
):
    """Apply actions[i] (the acting player's frame; must be legal; -1 skips game i, leaving its
    outputs as they were) to every game, then let the in-kernel opponent reply; fill the output
    buffers. Finished games are left as they ended."""
    _step_block(
        0,
        states.shape[0],
        states,
        actions,
        seats,
        rngs,
        opponent,
        max_plies,
        obs,
        masks,
        current,
        rewards,
        done,
        last,
    )


@njit(parallel=True, cache=True)
def batch_step(
    states,
    actions,
    seats,
    rngs,
    opponent,
    max_plies,
    obs,
    masks,
    current,
    rewards,
    done,
    last,
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
            opponent,
            max_plies,
            obs,
            masks,
            current,
            rewards,
            done,
            last,
        )


@njit(cache=True)
def batch_reset_serial(
    states,
    which,
    starts,
    seats,
    alternate,
    rngs,
    opponent,
    max_plies,
    obs,
    masks,
    current,
    rewards,
    done,
    last,
):
    """Restart the games with which[i] != 0 from a row of starts (int64[K, STATE_LEN]: the only
    one when K = 1, else one drawn uniformly from the game's stream rngs[i]); with alternate, the
    learner changes seat; the opponent opens when it is White. Fills the outputs of those games."""
    _reset_block(
        0,
        states.shape[0],
        states,
        which,
        starts,
        seats,
        alternate,
        rngs,
        opponent,
        max_plies,
        obs,
        masks,
        current,
        rewards,
        done,
        last,
    )


@njit(parallel=True, cache=True)
def batch_reset(
    states,
    which,
    starts,
    seats,
    alternate,
    rngs,
    opponent,
    max_plies,
    obs,
    masks,
    current,
    rewards,
    done,
    last,
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
            starts,
            seats,
            alternate,
            rngs,
            opponent,
            max_plies,
            obs,
            masks,
            current,
            rewards,
            done,
            last,
        )


@njit(cache=True)
def batch_step_autoreset_serial(
    states,
    actions,
    starts,
    seats,
    alternate,
    rngs,
    opponent,
    max_plies,
    obs,
    masks,
    current,
    rewards,
    done,
    last,
    seat_rewards,
    seat_done,
    final_obs,
):
    """batch_step for every game (actions[i] legal for the perspective player), then, in the
    same call, batch_reset of each game that ended: first the reward of the player in seats[i]
    (seat_rewards float32[N]), the game's end (seat_done int8[N, 2]: terminated, truncated) and
    last observation (final_obs float32[N, OBS_LEN], written for the finished games only) are
    kept. The outputs and random streams end as batch_step then batch_reset of the finished
    games leave them."""
    _autoreset_block(
        0,
        states.shape[0],
        states,
        actions,
        starts,
        seats,
        alternate,
        rngs,
        opponent,
        max_plies,
        obs,
        masks,
        current,
        rewards,
        done,
        last,
        seat_rewards,
        seat_done,
        final_obs,
    )


@njit(parallel=True, cache=True)
def batch_step_autoreset(
    states,
    actions,
    starts,
    seats,
    alternate,
    rngs,
    opponent,
    max_plies,
    obs,
    masks,
    current,
    rewards,
    done,
    last,
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
            starts,
            seats,
            alternate,
            rngs,
            opponent,
            max_plies,
            obs,
            masks,
            current,
            rewards,
            done,
            last,
            seat_rewards,
            seat_done,
            final_obs,
        )
