"""Reproducible dice from an explicit RNG state (Numba's np.random ignores NumPy seeding).

The generator is the shared SplitMix64 of ``boardgym.kernels.rng`` (int64 arithmetic, state in an
int64 array advanced in place). A backgammon RNG state is an ``int64[1]`` array (``new_rng``); a
die takes the top 32 bits of the next output and rejects the last 4 values of 2**32, so the six
faces are exactly equally likely.
"""

import numpy as np
from numba import njit

from boardgym.kernels.backgammon.board import set_dice
from boardgym.kernels.rng import next_u64 as _next_u64
from boardgym.kernels.rng import rand_below


@njit(cache=True)
def next_u64(rng):
    """Advance rng (int64[1]) and return the next 64 random bits as an int64."""
    return _next_u64(rng, np.int64(0))  # int64 constants, not literals: one compile each


@njit(cache=True)
def roll_die(rng):
    """One fair die 1..6 from rng (int64[1])."""
    return rand_below(rng, np.int64(0), np.int64(6)) + 1


@njit(cache=True)
def roll_dice(rng):
    """Two dice (d1, d2) from rng (int64[1])."""
    d1 = roll_die(rng)
    d2 = roll_die(rng)
    return d1, d2


@njit(cache=True)
def roll_into(state, rng):
    """Copy of state with a fresh roll from rng (int64[1]) to play: see board.set_dice."""
    d1, d2 = roll_dice(rng)
    return set_dice(state, d1, d2)


def new_rng(seed):
    """A fresh RNG state (int64[1]) for an integer seed (its low 64 bits)."""
    return np.array([np.int64(np.uint64(int(seed) & (2**64 - 1)).astype(np.int64))], dtype=np.int64)
