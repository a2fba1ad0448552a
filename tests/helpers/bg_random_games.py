"""(state, d1, d2) cases from random backgammon games, shared by the kernel and API tests."""

import numpy as np

from boardgym.kernels.backgammon import board as B
from boardgym.kernels.backgammon.dice import new_rng, next_u64, roll_dice
from boardgym.kernels.backgammon.movegen import MAX_AFTERSTATES, gen_afterstates
from boardgym.kernels.backgammon.outcome import game_over


def random_cases(n, seed):
    """n (state, d1, d2) cases from random games (a random distinct play each turn)."""
    rng = new_rng(seed)
    out = np.empty((MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    s = B.new_initial_state()
    cases = []
    while len(cases) < n:
        d1, d2 = roll_dice(rng)
        cases.append((s.copy(), int(d1), int(d2)))
        k = gen_afterstates(s, d1, d2, out)
        s = B.end_turn(out[(next_u64(rng) & 0x7FFFFFFF) % k])
        if game_over(s):
            s = B.new_initial_state()
    return cases
