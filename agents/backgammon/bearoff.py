"""Exact one-sided backgammon bear-off database, generated in Numba in a few seconds.

A one-sided position is up to 15 checkers of one player on its home points 1..6, nothing else on
the board for it (the rest borne off): ``N_POSITIONS`` = C(21, 6) = 54,264 of them, numbered by
``rank`` (a combinatorial number system: the count on point 1, then point 2, ... under a budget of
15). For each the table holds two distributions over the number of that player's own rolls:
    ``table[i, k]``         P(the last checker is off after exactly k rolls), k < ``N_ROLLS``
    ``table[i, N_ROLLS + k]`` P(the first checker is off after exactly k rolls) (k = 0 when one
                            is already off), for the gammon chances
each under the play that minimises the mean of that distribution (so the two may assume different
plays; the usual one-sided approximation: each side plays its own race, ignoring the other).

The plays are the game core's (kernels/backgammon/game.py ``plays_of_roll``, rules B.1-B.6 and the
bearing-off rules O.1-O.2) on a board where the other side has borne off everything, so no rule
is written here. Positions are solved in order of increasing pip count (every roll lowers it).

``bearoff_outputs(table, s, y)``: the five cumulative outputs (td_net's order: win, win gammon,
win backgammon, lose gammon, lose backgammon) of an afterstate s (mover's view, the opponent on
roll next) when both sides are in the bear-off (bg_features.in_bearoff): with T_me, T_opp the
rolls each needs and F the rolls to the first checker off, the opponent rolls first, so
    P(win) = P(T_me < T_opp), P(win gammon) = P(T_me < F_opp) (only if the opponent has none off),
    P(lose gammon) = P(F_me >= T_opp) (only if the mover has none off); no backgammons.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.kernels.backgammon.board import (
    ME,
    OFF_ME,
    OFF_OPP,
    OPP,
    STATE_LEN,
    refresh_masks,
)
from boardgym.kernels.backgammon.game import MAX_AFTERSTATES, plays_of_roll

N_POINTS_HOME = 6
N_CHECKERS = 15
N_ROLLS = 36
TABLE_WIDTH = 2 * N_ROLLS


def _binomials():
    c = np.zeros((32, 8), dtype=np.int64)
    for n in range(32):
        c[n, 0] = 1
        for k in range(1, min(n, 7) + 1):
            c[n, k] = c[n - 1, k - 1] + (c[n - 1, k] if k <= n - 1 else 0)
    return c


BINOM = _binomials()
N_POSITIONS = int(BINOM[21, 6])


@njit(cache=True)
def rank(counts):
    """Index (0 .. N_POSITIONS - 1) of the one-sided position counts (int64[6]: checkers on points
    1..6, total <= 15)."""
    budget = N_CHECKERS
    idx = 0
    for i in range(N_POINTS_HOME):
        k = N_POINTS_HOME - 1 - i
        for v in range(counts[i]):
            idx += BINOM[budget - v + k, k]
        budget -= counts[i]
    return idx


@njit(cache=True)
def _rank_of_row(row, base, step):
    c = np.empty(N_POINTS_HOME, dtype=np.int64)
    for i in range(N_POINTS_HOME):
        c[i] = row[base + step * i]
    return rank(c)


@njit(cache=True)
def _mean(table, i, off):
    m = 0.0
    for k in range(N_ROLLS):
        m += k * table[i, off + k]
    return m


@njit(cache=True)
def _solve(order, positions, table):
    s = np.zeros(STATE_LEN, dtype=np.int64)
    rows = np.empty((MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    for j in range(order.shape[0]):
        i = order[j]
        c = positions[i]
        total = 0
        for p in range(N_POINTS_HOME):
            total += c[p]
        if total == 0:
            table[i, 0] = 1.0
            table[i, N_ROLLS] = 1.0
            continue
        if total < N_CHECKERS:
            table[i, N_ROLLS] = 1.0
        s[:] = 0
        for p in range(N_POINTS_HOME):
            s[ME + p] = c[p]
        s[OFF_ME] = N_CHECKERS - total
        s[OFF_OPP] = N_CHECKERS
        refresh_masks(s)
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                w = (1.0 if d1 == d2 else 2.0) / 36.0
                n = plays_of_roll(s, d1, d2, rows, None)
                best = -1
                best_m = 1e300
                gbest = -1
                gbest_m = 1e300
                for r in range(n):
                    t = _rank_of_row(rows[r], np.int64(ME), np.int64(1))
                    m = _mean(table, t, np.int64(0))
                    if m < best_m:
                        best_m = m
                        best = t
                    if total == N_CHECKERS:
                        g = _mean(table, t, np.int64(N_ROLLS))
                        if g < gbest_m:
                            gbest_m = g
                            gbest = t
                for k in range(1, N_ROLLS):
                    table[i, k] += w * table[best, k - 1]
                if total == N_CHECKERS:
                    for k in range(1, N_ROLLS):
                        table[i, N_ROLLS + k] += w * table[gbest, N_ROLLS + k - 1]


def _positions():
    """All one-sided positions (int64[N_POSITIONS, 6]) indexed by rank, and their pip counts."""
    grids = np.indices((16,) * N_POINTS_HOME).reshape(N_POINTS_HOME, -1).T
    grids = grids[grids.sum(axis=1) <= N_CHECKERS]
    pos = np.zeros((N_POSITIONS, N_POINTS_HOME), dtype=np.int64)
    idx = _ranks(np.ascontiguousarray(grids, dtype=np.int64))
    pos[idx] = grids
    pips = pos @ np.arange(1, N_POINTS_HOME + 1)
    return pos, pips


@njit(cache=True)
def _ranks(grid):
    out = np.empty(grid.shape[0], dtype=np.int64)
    for r in range(grid.shape[0]):
        out[r] = rank(grid[r])
    return out


_TABLE = None


def generate() -> npt.NDArray[np.float64]:
    """The bear-off table (float64[N_POSITIONS, TABLE_WIDTH]) computed afresh (a few seconds)."""
    pos, pips = _positions()
    table = np.zeros((N_POSITIONS, TABLE_WIDTH))
    _solve(np.argsort(pips, kind="stable").astype(np.int64), pos, table)
    return table


def table() -> npt.NDArray[np.float64]:
    """The bear-off table, generated once per process (read-only)."""
    global _TABLE
    if _TABLE is None:
        t = generate()
        t.setflags(write=False)
        _TABLE = t
    return _TABLE


@njit(cache=True)
def bearoff_outputs(table, s, y):
    """The five outputs (float64[5], mover's view) of afterstate s with both sides in the bear-off,
    from the one-sided table (module docstring)."""
    me = _rank_of_row(s, np.int64(ME), np.int64(1))
    op = _rank_of_row(
        s, np.int64(OPP + 23), np.int64(-1)
    )  # the opponent's own point i is the mover's 25 - i
    win = 0.0
    wg = 0.0
    lg = 0.0
    cum_t = 0.0  # P(T_opp <= k)
    cum_f = 0.0  # P(F_opp <= k)
    for k in range(N_ROLLS):
        cum_t += table[op, k]
        cum_f += table[op, N_ROLLS + k]
        win += table[me, k] * (1.0 - cum_t)
        wg += table[me, k] * (1.0 - cum_f)
    cum_fm = 0.0  # P(F_me < k)
    for k in range(N_ROLLS):
        lg += table[op, k] * (1.0 - cum_fm)
        cum_fm += table[me, N_ROLLS + k]
    y[0] = _unit(win)
    y[1] = _unit(wg) if s[OFF_OPP] == 0 else 0.0
    y[2] = 0.0
    y[3] = _unit(lg) if s[OFF_ME] == 0 else 0.0
    y[4] = 0.0


@njit(cache=True, inline="always")
def _unit(p):
    """p clipped to [0, 1] (sums of the table's rounded probabilities)."""
    return 0.0 if p < 0.0 else (1.0 if p > 1.0 else p)
