"""Batched Russian draughts: N games in one ``(N, STATE_LEN)`` array, stepped by parallel kernels.

Every kernel loops over games with ``prange`` and writes into caller-owned buffers (no per-step
allocation except the greedy opponent's move list):
  obs      float32[N, OBS_LEN]   observation (observe.py) from the perspective player's view
  masks    int8[N, 1024]         legal actions of the perspective player, in its own frame
                                 (all zero when the game is over)
  current  int64[N]              side to move (0 White, 1 Black) — who acts next
  rewards  float32[N, 2]         this step's reward of player 0 and player 1 (zero-sum, at the end)
  done     int8[N, 2]            terminated, truncated
The perspective player is the side to move in two-player mode (``opponent == OPP_NONE``: the
caller supplies both sides' actions, as in Pgx) and the learner's seat (``seats[i]``) when an
in-kernel opponent plays the other side.

In-kernel opponents play whole moves: ``OPP_RANDOM`` a uniformly random legal hop at each step of
its move (like RandomAgent in the single env), ``OPP_GREEDY`` the whole move that leaves the best
material balance (man 1, king 3) for it after the opponent's most damaging capture in reply (one
move and a look at the recapture), ties broken at random. Random numbers come from per-game
SplitMix64 streams ``rngs[i]`` (boardgym.kernels.rng).

Actions are in the acting player's frame: for Black, ``VIEW_ACTION[1, a] == 1023 - a``.
``batch_step`` / ``batch_reset`` run games in parallel; ``*_serial`` are the same code on one
thread (faster for small batches). Finished games are not reset by ``batch_step``: the caller reads the terminal observation, then
calls ``batch_reset`` on the finished games (same-step autoreset in the adapters).
"""
import numpy as np
from numba import njit, prange

from boardgym.kernels.bits import popcount
from boardgym.kernels.draughts.board import (
    M_CAPTURED, MAX_MOVES, ROW_LEN, S_BK, S_BM, S_CAP_SQ, S_PLY, S_SIDE, S_WK, S_WM,
)
from boardgym.kernels.draughts.codec import apply_action, legal_action_mask
from boardgym.kernels.draughts.move import apply_move
from boardgym.kernels.draughts.movegen import gen_moves
from boardgym.kernels.draughts.observe import encode_obs
from boardgym.kernels.draughts.outcome import BLACK_WON, ONGOING, WHITE_WON, game_status
from boardgym.kernels.rng import rand_below, random_masked_action

OPP_NONE, OPP_RANDOM, OPP_GREEDY = 0, 1, 2


@njit(cache=True)
def _end(s, max_plies):
    """(status code, truncated) of a position; a chain in progress is never over."""
    if s[S_CAP_SQ] >= 0:
        return ONGOING, False
    code = game_status(s)
    return code, code == ONGOING and max_plies > 0 and s[S_PLY] >= max_plies


@njit(cache=True)
def _material(s, side):
    """Material balance (man 1, king 3) for side."""
    w = popcount(s[S_WM]) + 3 * popcount(s[S_WK])
    b = popcount(s[S_BM]) + 3 * popcount(s[S_BK])
    return w - b if side == 0 else b - w


@njit(cache=True)
def _greedy_value(s, side, replies):
    """Material for side after its move s, less the most the opponent's best capture takes back."""
    v = _material(s, side)
    n = gen_moves(s, replies)
    if n == 0 or replies[0, M_CAPTURED] == 0:  # captures are compulsory, so all or none
        return v
    if side == 0:
        men, kings = s[S_WM], s[S_WK]
    else:
        men, kings = s[S_BM], s[S_BK]
    worst = 0
    for k in range(n):
        c = replies[k, M_CAPTURED]
        loss = popcount(c & men) + 3 * popcount(c & kings)
        if loss > worst:
            worst = loss
    return v - worst


@njit(cache=True)
def opponent_move(s, opponent, rngs, i, scratch):
    """Position after the opponent (side to move) plays one whole move; scratch is int8[1024]."""
    side = s[S_SIDE]
    if opponent == OPP_GREEDY and s[S_CAP_SQ] < 0:
        moves = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
        replies = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
        n = gen_moves(s, moves)
        best, best_val, ties = 0, -1000, 0
        for k in range(n):
            v = _greedy_value(apply_move(s, moves[k]), side, replies)
            if v > best_val:
                best, best_val, ties = k, v, 1
            elif v == best_val:
                ties += 1
                if rand_below(rngs, i, ties) == 0:  # reservoir choice among equals
                    best = k
        return apply_move(s, moves[best])
    while s[S_SIDE] == side:
        legal_action_mask(s, scratch)
        a = random_masked_action(scratch, rngs, i)
        if a < 0:
            break
        s = apply_action(s, a)
        if s[S_CAP_SQ] < 0:
            break
    return s


@njit(cache=True)
def _finish(s, i, seats, rngs, opponent, max_plies, obs, masks, current, rewards, done):
    """Let the opponent move if it is to act, then write the game's outputs."""
    code, trunc = _end(s, max_plies)
    if opponent != OPP_NONE:
        while code == ONGOING and not trunc and s[S_SIDE] != seats[i]:
            s = opponent_move(s, opponent, rngs, i, masks[i])
            code, trunc = _end(s, max_plies)
    rewards[i, 0] = 0.0
    rewards[i, 1] = 0.0
    if code == WHITE_WON:
        rewards[i, 0], rewards[i, 1] = 1.0, -1.0
    elif code == BLACK_WON:
        rewards[i, 0], rewards[i, 1] = -1.0, 1.0
    done[i, 0] = code != ONGOING
    done[i, 1] = trunc
    side = s[S_SIDE]
    persp = side if opponent == OPP_NONE else seats[i]
    encode_obs(s, persp, max_plies, obs[i])
    m = masks[i]
    if code != ONGOING or trunc or side != persp:
        m[:] = 0
    else:
        legal_action_mask(s, m)
        if side == 1:  # Black's frame: action a <-> 1023 - a
            for a in range(512):
                t = m[a]
                m[a] = m[1023 - a]
                m[1023 - a] = t
    current[i] = side
    return s


def _batch_step(states, actions, seats, rngs, opponent, max_plies, obs, masks, current, rewards, done):
    """Apply actions[i] (the acting player's frame; must be legal; -1 skips game i, leaving its
    outputs as they were) to every game, then let the in-kernel opponent reply; fill the output
    buffers. Finished games are left as they ended."""
    for i in prange(states.shape[0]):
        s = states[i]
        a = actions[i]
        if a < 0:
            continue
        if s[S_SIDE] == 1:
            a = 1023 - a
        s = apply_action(s, a)
        states[i] = _finish(s, i, seats, rngs, opponent, max_plies, obs, masks, current, rewards, done)


def _batch_reset(states, which, start, seats, alternate, rngs, opponent, max_plies, obs, masks,
                current, rewards, done):
    """Restart the games with which[i] != 0 from start (int64[STATE_LEN]); with alternate, the
    learner changes seat; the opponent opens when it is White. Fills the outputs of those games."""
    for i in prange(states.shape[0]):
        if which[i] == 0:
            continue
        if alternate:
            seats[i] = 1 - seats[i]
        states[i] = _finish(start.copy(), i, seats, rngs, opponent, max_plies, obs, masks,
                            current, rewards, done)


# Each batch kernel in two builds: parallel (prange over games; uncached, as Numba requires) and
# serial (cached), which wins for small batches or a single thread.
batch_step = njit(parallel=True)(_batch_step)
batch_reset = njit(parallel=True)(_batch_reset)
batch_step_serial = njit(cache=True)(_batch_step)
batch_reset_serial = njit(cache=True)(_batch_reset)
