"""Shared fixtures for the draughts kernel tests: seeded random-playout positions."""

import pytest

from boardgym.agents.arena.playouts import draughts_positions


def random_positions(n, seed, max_plies=140):
    """n whole-move positions from seeded random playouts (uniform over distinct moves).

    Every second position is one where the side to move must capture (the playout goes on
    past its random stop until a capture is due), so chains are well represented.
    """
    return draughts_positions(
        n, seed, (0, max_plies - 1), min_moves=0, through_draws=True, capture_every=2
    )


@pytest.fixture(scope="session")
def playout_positions():
    """300 random-playout positions (seed 7), many with kings and long chains."""
    return random_positions(300, seed=7)
