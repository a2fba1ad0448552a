"""Timing loops over the draughts game core: each generates the moves of many positions in one
jitted call, so that a benchmark times the kernels and not Python."""

from numba import njit

from boardgym.kernels.draughts.game import gen_moves


@njit(cache=True)
def count_moves(states, reps, out):
    """Sum of legal-move counts of every state (int64[n, STATE_LEN]), reps times (gen_moves)."""
    total = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            total += gen_moves(states[i], out)
    return total
