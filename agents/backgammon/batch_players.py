"""Batched in-process backgammon players: the move of many positions in one Numba call, no Python
loop over games or moves (what a league's fixed members use).

``backgammon_greedy_actions`` plays the in-kernel one-ply greedy player
(boardgym.kernels.backgammon.opponents, which ``GreedyAgent`` also is) from the positions
themselves (a batched core's states). Its answer is the next checker move of the chosen play:
asked again at each move of the play, it chooses among the ways to finish the play under way, so
the best one stays reachable and it plays one of its best plays.
"""

import numpy as np
from numba import njit

from boardgym.kernels.backgammon.codec import encode_action
from boardgym.kernels.backgammon.game import (
    MAX_AFTERSTATES as BG_MAX_AFTERSTATES,
)
from boardgym.kernels.backgammon.game import (
    MAX_MOVES as BG_MAX_MOVES,
)
from boardgym.kernels.backgammon.game import (
    MV_FIELDS as BG_MV_FIELDS,
)
from boardgym.kernels.backgammon.game import (
    STATE_LEN as BG_STATE_LEN,
)
from boardgym.kernels.backgammon.game import (
    plays as bg_plays,
)
from boardgym.kernels.backgammon.movegen import MV_DIE, MV_FROM
from boardgym.kernels.backgammon.opponents import greedy_pick


@njit(cache=True)
def backgammon_greedy_actions(states, out):
    """The in-kernel backgammon greedy player's next checker move (mover's frame) in each of M
    positions (states int64 (M, STATE_LEN), the mover on roll or in mid-play) into out int64
    (M,): the first move of the route of the best-scored play of the dice left
    (opponents.greedy_pick: the first of the best afterstates). Returns the number of positions
    without a move."""
    rows = np.empty((BG_MAX_AFTERSTATES, BG_STATE_LEN), np.int64)
    routes = np.empty((BG_MAX_AFTERSTATES, BG_MAX_MOVES, BG_MV_FIELDS), np.int64)
    bad = 0
    for k in range(states.shape[0]):
        routes[0, 0, MV_DIE] = 0  # stays 0 if the only play is no move
        n = bg_plays(states[k], rows, routes)
        if n <= 0 or routes[0, 0, MV_DIE] <= 0:
            out[k] = -1
            bad += 1
            continue
        best = greedy_pick(rows, n)
        out[k] = encode_action(routes[best, 0, MV_FROM], routes[best, 0, MV_DIE])
    return bad
