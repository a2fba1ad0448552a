"""Exact one-sided backgammon bear-off database, generated in Numba in a few seconds, then kept
in the user's cache folder (agents/files.py ``cache_dir``) and checked when loaded.

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

import os
import zipfile

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.agents.files import cache_dir, write_atomically
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
def _solve_row(i, positions, table, s, rows, out):
    """Write position i's two distributions into out (float64[TABLE_WIDTH], zeros on entry)
    from the rows of table of the positions it can reach (s, rows: scratch)."""
    c = positions[i]
    total = 0
    for p in range(N_POINTS_HOME):
        total += c[p]
    if total == 0:
        out[0] = 1.0
        out[N_ROLLS] = 1.0
        return
    if total < N_CHECKERS:
        out[N_ROLLS] = 1.0
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
                out[k] += w * table[best, k - 1]
            if total == N_CHECKERS:
                for k in range(1, N_ROLLS):
                    out[N_ROLLS + k] += w * table[gbest, N_ROLLS + k - 1]


@njit(cache=True)
def _solve(order, positions, table):
    """Fill table (zeros on entry) row by row in order (every position after those it reaches)."""
    s = np.zeros(STATE_LEN, dtype=np.int64)
    rows = np.empty((MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    for j in range(order.shape[0]):
        _solve_row(order[j], positions, table, s, rows, table[order[j]])


@njit(cache=True)
def _first_wrong_row(which, positions, table):
    """The first of the rows which (int64[K]) of table that its recurrence does not reproduce
    exactly from the rows it reaches, else -1."""
    s = np.zeros(STATE_LEN, dtype=np.int64)
    rows = np.empty((MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    out = np.empty(TABLE_WIDTH)
    for j in range(which.shape[0]):
        out[:] = 0.0
        _solve_row(which[j], positions, table, s, rows, out)
        for k in range(TABLE_WIDTH):
            if out[k] != table[which[j], k]:
                return which[j]
    return -1


def _positions():
    """All one-sided positions (int64[N_POSITIONS, 6]) indexed by rank, and their pip counts."""
    pos = np.zeros((N_POSITIONS, N_POINTS_HOME), dtype=np.int64)
    _enumerate(pos)
    pips = pos @ np.arange(1, N_POINTS_HOME + 1)
    return pos, pips


@njit(cache=True)
def _enumerate(out):
    """Write every one-sided position into out (int64[N_POSITIONS, 6]) at the row of its rank."""
    c = np.zeros(N_POINTS_HOME, dtype=np.int64)
    total = 0
    while True:
        out[rank(c)] = c
        p = 0  # the next counts in odometer order, skipping those over 15 checkers
        while p < N_POINTS_HOME and total == N_CHECKERS:
            total -= c[p]
            c[p] = 0
            p += 1
        if p == N_POINTS_HOME:
            return
        c[p] += 1
        total += 1


@njit(cache=True)
def _ranks(grid):
    out = np.empty(grid.shape[0], dtype=np.int64)
    for r in range(grid.shape[0]):
        out[r] = rank(grid[r])
    return out


_TABLE = None
FILE_NAME = "bearoff-v1.npz"  # in files.cache_dir(); a new layout takes a new name
N_CHECKED_ROWS = 512  # rows whose recurrence is recomputed when a saved table is loaded


def generate() -> npt.NDArray[np.float64]:
    """The bear-off table (float64[N_POSITIONS, TABLE_WIDTH]) computed afresh (a few seconds)."""
    pos, pips = _positions()
    table = np.zeros((N_POSITIONS, TABLE_WIDTH))
    _solve(np.argsort(pips, kind="stable").astype(np.int64), pos, table)
    return table


def _checked_rows(pips):
    """The rows a load recomputes: the 64 positions with the most pips (they depend on the most
    others), then rows spread evenly over the rest."""
    order = np.argsort(pips, kind="stable").astype(np.int64)
    spread = order[np.linspace(0, N_POSITIONS - 65, N_CHECKED_ROWS - 64).astype(np.int64)]
    return np.concatenate([order[-64:], spread])


def save(table: npt.NDArray[np.float64], path: str | os.PathLike[str]) -> None:
    """Write table to path (an .npz: the zip format keeps a CRC-32 of it), atomically."""

    def write(tmp):
        with open(tmp, "wb") as f:
            np.savez(f, table=table)

    write_atomically(path, write)


def load_saved(path: str | os.PathLike[str]) -> npt.NDArray[np.float64]:
    """The table saved at path, checked (the zip's CRC-32, shape, dtype, each distribution summing
    to 1, and N_CHECKED_ROWS rows recomputed from the rows they reach by the game core's plays).
    OSError if it cannot be read, ValueError if it is not a table that generate() gives."""
    try:
        with np.load(path, allow_pickle=False) as f:
            table = f["table"]
    except (KeyError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise ValueError(f"{path}: not a saved bear-off table, or a damaged one ({e})") from None
    if table.shape != (N_POSITIONS, TABLE_WIDTH) or table.dtype != np.float64:
        raise ValueError(f"{path}: a table of shape {table.shape} {table.dtype}")
    sums = (table[:, :N_ROLLS].sum(1), table[:, N_ROLLS:].sum(1))
    if not all(np.allclose(t, 1.0, atol=1e-9) for t in sums):
        raise ValueError(f"{path}: a distribution does not sum to 1")
    pos, pips = _positions()
    wrong = _first_wrong_row(_checked_rows(pips), pos, table)
    if wrong >= 0:
        raise ValueError(f"{path}: row {wrong} does not follow from the rules")
    return table


def table() -> npt.NDArray[np.float64]:
    """The bear-off table, once per process (read-only): loaded from files.cache_dir() when a
    checked copy is there, else generated and saved there for later processes (if the folder
    can be written)."""
    global _TABLE
    if _TABLE is None:
        path = cache_dir() / FILE_NAME
        try:
            t = load_saved(path)
        except (OSError, ValueError):
            t = generate()
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                save(t, path)
            except OSError:
                pass
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
