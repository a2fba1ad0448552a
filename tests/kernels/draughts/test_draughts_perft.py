"""Perft from the initial position against the published Russian draughts table (tests/data)."""

import json
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from boardgym.kernels.draughts.board import (
    BB_SQUARES,
    M_CAPTURED,
    M_FROM,
    M_PROMOTE,
    M_TO,
    MAX_MOVES,
    ROW_LEN,
)
from boardgym.kernels.draughts.game import initial_state
from boardgym.kernels.draughts.move import apply_bb
from boardgym.kernels.draughts.movegen import WORK_LEN, gen_capture_routes_bb, gen_quiet_bb
from boardgym.kernels.draughts.perft import perft, perft_parallel

TABLE = json.loads((Path(__file__).parents[2] / "data" / "draughts_perft.json").read_text())
PERFT = {int(k): v for k, v in TABLE["perft"].items()}


@pytest.mark.parametrize("depth", range(1, 9))
def test_perft_initial_position(depth):
    """25.1-25.7, M.1-M.3 together: the published counts, depths 1-8."""
    assert perft(initial_state(), depth) == PERFT[depth]


@pytest.mark.slow
@pytest.mark.parametrize("depth", range(9, 13))
def test_perft_initial_position_deep(depth):
    """The published counts, depths 9-12 (parallel perft)."""
    assert perft_parallel(initial_state(), depth) == PERFT[depth]


def test_perft_parallel_matches_serial():
    """The parallel split gives exactly the serial count."""
    s = initial_state()
    assert perft_parallel(s, 7) == perft(s, 7) == PERFT[7]


@njit
def _gen_routes(wm, wk, bm, bk, side, work, out):
    """Like gen_moves_bb but keeping every capture route."""
    if side == 0:
        us_m, us_k, them = wm, wk, bm | bk
    else:
        us_m, us_k, them = bm, bk, wm | wk
    empty = BB_SQUARES & ~(wm | wk | bm | bk)
    n = gen_capture_routes_bb(us_m, us_k, them, empty, side, work, out)
    if n:
        return n
    return gen_quiet_bb(us_m, us_k, empty, side, out)


@njit
def _routes(wm, wk, bm, bk, side, depth, bufs, work):
    buf = bufs[depth]
    n = _gen_routes(wm, wk, bm, bk, side, work, buf)
    if depth == 1:
        return n
    t = 0
    for i in range(n):
        a, b, c, d = apply_bb(
            wm,
            wk,
            bm,
            bk,
            side,
            buf[i, M_FROM],
            buf[i, M_TO],
            buf[i, M_CAPTURED],
            buf[i, M_PROMOTE],
        )
        t += _routes(a, b, c, d, 1 - side, depth - 1, bufs, work)
    return t


def test_every_route_count_depth_8():
    """Perft counting every capture route (no merging of equal outcomes) gives 929905 at depth 8.

    Checks what the merge removes: exactly the published difference 929905 - 929899.
    """
    s = initial_state()
    bufs = np.empty((9, MAX_MOVES, ROW_LEN), dtype=np.int64)
    count = _routes(s[0], s[1], s[2], s[3], s[4], 8, bufs, np.empty(WORK_LEN, dtype=np.int64))
    assert count == TABLE["every_route_depth_8"] == 929905
