"""Batched backgammon (cubeless): N games in one ``(N, STATE_LEN)`` array, stepped by parallel kernels.

Same protocol as the draughts batch (boardgym.kernels.draughts.batch): outputs ``obs``
float32[N, OBS_LEN], ``masks`` int8[N, 150], ``current`` int64[N] (player to act), ``rewards``
float32[N, 2], ``done`` int8[N, 2] (terminated, truncated); the perspective player is the one to
act (two-player mode, ``OPP_NONE``) or the learner's seat ``seats[i]`` against an in-kernel
opponent. Per game: ``rngs[i]`` is its SplitMix64 dice stream (turns.py, so game i of a batch
seeded S plays like the single env seeded S + i), ``rolls[i]`` the rolls made (for
``max_turns`` truncation). ``scoring``: 0 = single game (+-1), 1 = gammons and backgammons count.

In-kernel opponents: ``OPP_RANDOM`` plays uniformly random legal checker moves (one masked action
at a time, like RandomAgent in the single env); ``OPP_GREEDY`` picks, among the distinct
afterstates of its roll (movegen.gen_afterstates), the one with the best one-ply score: pip
lead, made points and checkers off count for it, its blots within reach of the opponent against it.
"""
import numpy as np
from numba import njit, prange

from boardgym.kernels.backgammon.board import (
    BAR_ME, BAR_OPP, ME, OFF_ME, OPP, STATE_LEN, TURN, end_turn, full_roll,
)
from boardgym.kernels.backgammon.codec import apply_action, legal_action_mask
from boardgym.kernels.backgammon.movegen import gen_afterstates
from boardgym.kernels.backgammon.observe import encode_obs
from boardgym.kernels.backgammon.outcome import outcome
from boardgym.kernels.backgammon.turns import ROLLED, begin_turn, opening
from boardgym.kernels.rng import rand_below, random_masked_action

OPP_NONE, OPP_RANDOM, OPP_GREEDY = 0, 1, 2


@njit(cache=True)
def greedy_score(s):
    """One-ply score of an afterstate s (mover's view, before the turn passes) for the mover."""
    pips_me = 25 * s[BAR_ME]
    pips_opp = 25 * s[BAR_OPP]
    made = 0
    blots = 0
    for i in range(24):
        c = s[ME + i]
        pips_me += (i + 1) * c
        pips_opp += (24 - i) * s[OPP + i]
        if c >= 2:
            made += 1
        elif c == 1:
            # a blot with an opponent checker (or the bar) behind it can be hit
            exposed = s[BAR_OPP] > 0
            for j in range(i):
                if s[OPP + j] > 0:
                    exposed = True
                    break
            if exposed:
                blots += 1
    return (pips_opp - pips_me) + 3 * made - 6 * blots + 4 * s[OFF_ME]


@njit(cache=True)
def opponent_turn(s, opponent, rngs, i, scratch):
    """Position after the opponent (on roll, dice set) plays its whole turn (turn passed)."""
    player = s[TURN]
    if opponent == OPP_GREEDY:
        d1, d2 = full_roll(s)
        rows = np.empty((256, STATE_LEN), dtype=np.int64)
        n = gen_afterstates(s, d1, d2, rows)
        if n < 0:
            rows = np.empty((4096, STATE_LEN), dtype=np.int64)
            n = gen_afterstates(s, d1, d2, rows)
        best, best_val, ties = 0, -(1 << 40), 0
        for k in range(n):
            v = greedy_score(rows[k])
            if v > best_val:
                best, best_val, ties = k, v, 1
            elif v == best_val:
                ties += 1
                if rand_below(rngs, i, ties) == 0:
                    best = k
        after = rows[best].copy()
        after[TURN] = player
        return end_turn(after)
    while s[TURN] == player:
        legal_action_mask(s, scratch)
        a = random_masked_action(scratch, rngs, i)
        if a < 0:
            return end_turn(s)
        s = apply_action(s, a)
    return s


@njit(cache=True)
def _after_move(s, mover, i, rngs, rolls, max_turns, passes):
    """If the mover's turn ended and the game goes on, start the next turn -> (state, truncated)."""
    if s[TURN] == mover or outcome(s)[0] >= 0:
        return s, False
    s, status, rolls[i], _ = begin_turn(s, rngs[i:i + 1], 0, 0, False, False, rolls[i],
                                       max_turns, passes)
    return s, status != ROLLED  # TURN_LIMIT (or a dead position) truncates


@njit(cache=True)
def _finish(s, trunc, i, seats, rngs, rolls, opponent, max_turns, scoring, obs, masks, current,
            rewards, done, passes):
    if opponent != OPP_NONE:
        while not trunc and outcome(s)[0] < 0 and s[TURN] != seats[i]:
            mover = s[TURN]
            s = opponent_turn(s, opponent, rngs[i:i + 1], 0, masks[i])
            s, trunc = _after_move(s, mover, i, rngs, rolls, max_turns, passes)
    winner, kind = outcome(s)
    rewards[i, 0] = 0.0
    rewards[i, 1] = 0.0
    if winner >= 0:
        pts = 1.0 if scoring == 0 else float(kind)
        rewards[i, winner] = pts
        rewards[i, 1 - winner] = -pts
    done[i, 0] = winner >= 0
    done[i, 1] = trunc and winner < 0
    side = s[TURN]
    persp = side if opponent == OPP_NONE else seats[i]
    encode_obs(s, persp, obs[i])
    if winner >= 0 or trunc or side != persp:
        masks[i, :] = 0
    else:
        legal_action_mask(s, masks[i])
    current[i] = side
    return s


def _batch_step(states, actions, seats, rngs, rolls, opponent, max_turns, scoring, obs, masks,
                current, rewards, done):
    """Apply actions[i] (legal checker moves of the player to act; -1 skips game i) and continue
    each game until its perspective player must act or it ends; fill the outputs."""
    for i in prange(states.shape[0]):
        if actions[i] < 0:
            continue
        passes = np.empty((0, 3), dtype=np.int64)
        s = states[i]
        mover = s[TURN]
        s = apply_action(s, actions[i])
        s, trunc = _after_move(s, mover, i, rngs, rolls, max_turns, passes)
        states[i] = _finish(s, trunc, i, seats, rngs, rolls, opponent, max_turns, scoring, obs,
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
        s, hi, lo = opening(rngs[i:i + 1])
        s, status, rolls[i], _ = begin_turn(s, rngs[i:i + 1], hi, lo, False, False, 0, max_turns,
                                            passes)
        states[i] = _finish(s, status != ROLLED, i, seats, rngs, rolls, opponent, max_turns,
                            scoring, obs, masks, current, rewards, done, passes)


# Parallel (uncached, prange) and serial (cached) builds of the same code; see draughts/batch.py.
batch_step = njit(parallel=True)(_batch_step)
batch_reset = njit(parallel=True)(_batch_reset)
batch_step_serial = njit(cache=True)(_batch_step)
batch_reset_serial = njit(cache=True)(_batch_reset)
