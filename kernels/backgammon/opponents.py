"""Backgammon players that run inside kernels: the batch cores' opponents and the trainers' match
loops. Their codes are the shared ones of ``boardgym.kernels.players``.

``OPP_RANDOM`` plays uniformly random legal checker moves, one masked action at a time (what
``RandomAgent`` does in the envs), its choices drawn from the stream it is given.
``OPP_GREEDY`` is the one-ply heuristic player: among the distinct afterstates of its roll
(game.afterstates, in generation order) it takes the first of the best ``greedy_score`` (pip
lead, made points and checkers off for it, its blots within reach of the opponent against it).
It draws nothing at random; ``boardgym.agents`` ``GreedyAgent`` is the same player.
Both return the afterstate (mover's view, before the turn passes, as game.afterstates writes it);
the caller ends the turn with game.finish_turn.
"""

import numpy as np
from numba import njit

from boardgym.kernels.backgammon.board import (
    BAR_ME,
    BAR_OPP,
    DICE,
    ME,
    OFF_ME,
    OPP,
    STATE_LEN,
)
from boardgym.kernels.backgammon.codec import mask_work, move_checker
from boardgym.kernels.backgammon.game import MAX_AFTERSTATES, afterstates, move_of_action, plays
from boardgym.kernels.backgammon.movegen import MAX_MOVES, MV_FIELDS, MV_FROM, MV_HIT, MV_TO
from boardgym.kernels.players import OPP_GREEDY, OPP_NET, OPP_NONE, OPP_RANDOM
from boardgym.kernels.rng import pick_marked

__all__ = [
    "OPP_NONE",
    "OPP_RANDOM",
    "OPP_GREEDY",
    "OPP_NET",
    "greedy_score",
    "greedy_pick",
    "greedy_turn",
    "greedy_play",
    "random_turn",
    "random_turn_inplace",
    "opponent_turn",
]


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
def greedy_pick(rows, n):
    """Index of the first afterstate of best greedy_score among rows[:n] (n >= 1)."""
    best = 0
    best_val = greedy_score(rows[0])
    for k in range(1, n):
        v = greedy_score(rows[k])
        if v > best_val:
            best, best_val = k, v
    return best


@njit(cache=True)
def greedy_turn(state):
    """The greedy player's afterstate for state (on roll with its dice)."""
    rows = np.empty((256, STATE_LEN), dtype=np.int64)
    n = afterstates(state, rows)
    if n < 0:  # more than 256 distinct plays (some doubles)
        rows = np.empty((MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
        n = afterstates(state, rows)
    return rows[greedy_pick(rows, n)].copy()


@njit(cache=True)
def greedy_play(state, moves):
    """greedy_turn with its play -> (afterstate, number of checker moves): the moves of the
    play's route (game.plays: the route notation writes, the one the single env's KernelPlayer
    plays) as (from, to, hit) into moves (int64[4, 3])."""
    rows = np.empty((256, STATE_LEN), dtype=np.int64)
    routes = np.empty((256, MAX_MOVES, MV_FIELDS), dtype=np.int64)
    n = plays(state, rows, routes)
    if n < 0:  # more than 256 distinct plays (some doubles)
        rows = np.empty((MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
        routes = np.empty((MAX_AFTERSTATES, MAX_MOVES, MV_FIELDS), dtype=np.int64)
        n = plays(state, rows, routes)
    k = greedy_pick(rows, n)
    made = 0
    for m in range(MAX_MOVES):
        if routes[k, m, MV_FROM] > 0 and made < moves.shape[0]:
            moves[made, 0] = routes[k, m, MV_FROM]
            moves[made, 1] = routes[k, m, MV_TO]
            moves[made, 2] = routes[k, m, MV_HIT]
            made += 1
    return rows[k].copy(), made


@njit(cache=True)
def random_turn(state, rngs, i, mask):
    """The random player's afterstate for state (on roll with dice): uniformly random masked checker
    moves drawn from generator rngs[i] until the play is over; mask: int8[N_ACTIONS] scratch
    (C-contiguous)."""
    out = state.copy()
    random_turn_inplace(
        out, rngs, i, mask, np.empty(15, dtype=np.int64), np.empty((4, 3), dtype=np.int64)
    )
    return out


@njit(cache=True)
def random_turn_inplace(s, rngs, i, mask, stk, moves):
    """random_turn on s itself: s becomes the afterstate (dice cleared, still the mover's view);
    stk: int64[15] scratch (codec.mask_work); the checker moves as game.move_of_action gives
    them, (from, to, hit), into moves (int64[4, 3]) -> their number."""
    made = 0
    while True:
        n = mask_work(s, mask, stk)
        if n == 0:  # nothing (more) to play: the play ends here
            for k in range(6):
                s[DICE + k] = 0
            return made
        a = pick_marked(mask, n, rngs, i)
        if made < moves.shape[0]:
            fr, to, _, hit = move_of_action(s, a)
            moves[made, 0], moves[made, 1], moves[made, 2] = fr, to, hit
        made += 1
        move_checker(s, a)


@njit(cache=True)
def opponent_turn(state, opponent, rngs, i, mask):
    """Afterstate of the in-kernel player opponent (OPP_RANDOM or OPP_GREEDY) for state."""
    if opponent == OPP_GREEDY:
        return greedy_turn(state)
    return random_turn(state, rngs, i, mask)
