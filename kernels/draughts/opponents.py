"""In-kernel Russian draughts players, for the batch cores and the trainers' match loops.

Codes (boardgym.kernels.players): ``OPP_RANDOM`` plays a uniformly random legal hop at each step
of its move (what RandomAgent does with the env's mask); ``OPP_GREEDY`` is this game's one-ply
heuristic, named ``"recapture"`` wherever a user picks it by name: the whole move that leaves
the best material balance (man 1, king 3) after the opponent's most damaging capture in reply,
ties broken at random. It is not boardgym.agents' ``GreedyAgent`` (``load("greedy",
game="draughts")``), which scores moves with the search evaluation. Random numbers come from the
per-game SplitMix64 streams ``rngs[i]`` (boardgym.kernels.rng).
"""

import numpy as np
from numba import njit

from boardgym.kernels.bits import popcount
from boardgym.kernels.draughts.board import (
    M_CAPTURED,
    MAX_MOVES,
    ROW_LEN,
    S_BK,
    S_BM,
    S_CAP_SQ,
    S_SIDE,
    S_WK,
    S_WM,
)
from boardgym.kernels.draughts.codec import apply_action, legal_action_mask
from boardgym.kernels.draughts.move import apply_move
from boardgym.kernels.draughts.movegen import gen_moves, mover_first
from boardgym.kernels.players import OPP_GREEDY, OPP_RANDOM  # noqa: F401
from boardgym.kernels.rng import pick_marked, rand_below


@njit(cache=True)
def material(s, side):
    """Material balance (man 1, king 3) for side."""
    w = popcount(s[S_WM]) + 3 * popcount(s[S_WK])
    b = popcount(s[S_BM]) + 3 * popcount(s[S_BK])
    return w - b if side == 0 else b - w


@njit(cache=True)
def recapture_value(s, side, replies):
    """Material for side after its move s, less the most the opponent's best capture takes back."""
    v = material(s, side)
    n = gen_moves(s, replies)
    if n == 0 or replies[0, M_CAPTURED] == 0:  # captures are compulsory, so all or none
        return v
    men, kings, _, _ = mover_first(s[S_WM], s[S_WK], s[S_BM], s[S_BK], side)
    worst = 0
    for k in range(n):
        c = replies[k, M_CAPTURED]
        loss = popcount(c & men) + 3 * popcount(c & kings)
        if loss > worst:
            worst = loss
    return v - worst


@njit(cache=True)
def recapture_pick(s, moves, n, rngs, i):
    """Index of the recapture player's whole move among moves[:n] (gen_moves rows of s, n >= 1)."""
    side = s[S_SIDE]
    replies = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    best, best_val, ties = 0, -1000, 0
    for k in range(n):
        v = recapture_value(apply_move(s, moves[k]), side, replies)
        if v > best_val:
            best, best_val, ties = k, v, 1
        elif v == best_val:
            ties += 1
            if rand_below(rngs, i, ties) == 0:  # reservoir choice among equals
                best = k
    return best


@njit(cache=True)
def recapture_move(s, rngs, i):
    """Position after the side to move plays the recapture player's whole move (between moves)."""
    moves = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    n = gen_moves(s, moves)
    return apply_move(s, moves[recapture_pick(s, moves, n, rngs, i)])


@njit(cache=True)
def random_move(s, rngs, i, scratch):
    """Position after the side to move plays a random hop at each step of its move (or of the
    chain in progress); scratch is int8[N_ACTIONS] (C-contiguous)."""
    side = s[S_SIDE]
    while s[S_SIDE] == side:
        n = legal_action_mask(s, scratch)
        if n == 0:
            break
        s = apply_action(s, pick_marked(scratch, n, rngs, i))
        if s[S_CAP_SQ] < 0:
            break
    return s


@njit(cache=True)
def opponent_move(s, opponent, rngs, i, scratch):
    """Position after the in-kernel player `opponent` (OPP_RANDOM or OPP_GREEDY, the recapture
    player) plays the side to move's whole move; scratch is int8[N_ACTIONS]."""
    if opponent == OPP_GREEDY and s[S_CAP_SQ] < 0:
        return recapture_move(s, rngs, i)
    return random_move(s, rngs, i, scratch)
