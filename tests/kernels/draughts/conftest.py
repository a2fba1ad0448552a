"""Shared fixtures for the draughts kernel tests: seeded random-playout positions."""

import numpy as np
import pytest

from boardgym.kernels.draughts.board import M_CAPTURED, MAX_MOVES, ROW_LEN
from boardgym.kernels.draughts.game import initial_state
from boardgym.kernels.draughts.move import apply_move
from boardgym.kernels.draughts.movegen import gen_moves


def random_positions(n, seed, max_plies=140):
    """n whole-move positions from seeded random playouts (uniform over distinct moves).

    Every second position is one where the side to move must capture (the playout goes on
    past its random stop until a capture is due), so chains are well represented.
    """
    rng = np.random.default_rng(seed)
    buf = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    out = []
    while len(out) < n:
        s = initial_state()
        stop = int(rng.integers(0, max_plies))
        want_capture = len(out) % 2 == 1
        ply = 0
        while True:
            k = gen_moves(s, buf)
            if k == 0:
                break
            if ply >= stop and (not want_capture or buf[0, M_CAPTURED] != 0):
                break
            s = apply_move(s, buf[int(rng.integers(k))])
            ply += 1
        out.append(s)
    return out


@pytest.fixture(scope="session")
def playout_positions():
    """300 random-playout positions (seed 7), many with kings and long chains."""
    return random_positions(300, seed=7)
