"""Timing loops over the backgammon game core: each generates the plays of many (position,
roll) cases in one jitted call, so that a benchmark times the kernels and not Python.

Cases are ``states`` int64[n, STATE_LEN] (on roll, mover's view) with ``dice`` int64[n, 2].
"""

import numpy as np
from numba import njit, prange

from boardgym.kernels.backgammon.game import plays_of_roll
from boardgym.kernels.backgammon.movegen import gen_afterstates_scratch


@njit(cache=True)
def count_afterstates(states, dice, reps, out, sc):
    """Sum of afterstate counts over all cases, reps times, one thread (boardgym kernel)."""
    total = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            total += gen_afterstates_scratch(states[i], dice[i, 0], dice[i, 1], out, sc)
    return total


@njit(cache=True)
def count_plays(states, dice, reps, out, routes):
    """The same with a route per afterstate (the game core's plays_of_roll), one thread."""
    total = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            total += plays_of_roll(states[i], dice[i, 0], dice[i, 1], out, routes)
    return total


@njit(parallel=True, cache=True)
def count_afterstates_parallel(states, dice, reps, outs, scs):
    """The same over all cores: the cases split into one contiguous chunk per thread buffer."""
    nchunk = outs.shape[0]
    n = states.shape[0]
    counts = np.zeros(nchunk, dtype=np.int64)
    for c in prange(nchunk):
        lo, hi = c * n // nchunk, (c + 1) * n // nchunk
        t = 0
        for _ in range(reps):
            for i in range(lo, hi):
                t += gen_afterstates_scratch(states[i], dice[i, 0], dice[i, 1], outs[c], scs[c])
        counts[c] = t
    return counts.sum()
