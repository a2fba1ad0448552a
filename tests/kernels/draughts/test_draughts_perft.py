"""Perft from the initial position against the published Russian draughts table (tests/data)."""
import json
from pathlib import Path

import pytest

from boardgym.kernels.draughts.move import initial_state
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
