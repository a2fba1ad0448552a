"""DraughtsBatch(openings=...): training and evaluation games from varied positions."""

import numpy as np
import pytest

from boardgym.agents.arena.playouts import ballot_positions, opening_positions
from boardgym.envs import draughts as api
from boardgym.envs.batch import DraughtsBatch

BALLOTS = ballot_positions()


def _fens(core):
    return [api.to_fen(s) for s in core.states]


def test_ballot_positions_are_the_150_distinct_ballots():
    assert len(BALLOTS) == len(set(BALLOTS)) == 150
    assert all(api.legal_moves(f) for f in BALLOTS)
    # two- and three-move ballots: either side may be to move
    assert {f[:2] for f in BALLOTS} == {"W:", "B:"}


def test_paired_games_share_an_opening_and_pairs_vary():
    core = DraughtsBatch(40, opponent=None, openings=BALLOTS)
    core.reset(seed=3, paired=True)
    fens = _fens(core)
    assert all(f in BALLOTS for f in fens)
    assert all(fens[2 * k] == fens[2 * k + 1] for k in range(20))
    assert len(set(fens)) > 10  # 20 draws from 150


def test_restarted_games_draw_a_new_opening_from_their_stream():
    core = DraughtsBatch(16, opponent=None, openings=BALLOTS)
    core.reset(seed=5)
    first = _fens(core)
    core.reset(seed=5)
    assert _fens(core) == first  # seeded: the same draws
    rng = np.random.default_rng(0)
    seen = set(first)
    for _ in range(400):  # random play; finished games restart (autoreset) from a new ballot
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in core.masks])
        core.step_autoreset(acts)
        seen.update(api.to_fen(core.states[i]) for i in np.flatnonzero(core._seat_done.any(1)))
    assert len(seen & set(BALLOTS)) > len(set(first) & set(BALLOTS))


def test_one_opening_is_the_fen_start_and_draws_nothing():
    fen = BALLOTS[7]
    a = DraughtsBatch(6, opponent="random", openings=[fen])
    b = DraughtsBatch(6, opponent="random", fen=fen)
    a.reset(seed=11)
    b.reset(seed=11)
    for name in ("states", "rngs", "obs", "masks"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"openings": []}, TypeError, "non-empty sequence"),
        ({"openings": "W:W21:B1"}, TypeError, "non-empty sequence"),
        ({"openings": [3]}, TypeError, r"openings\[0\] must be a FEN"),
        ({"openings": ["W:W21:B1", "W:Wa1:Bb2,c3"]}, ValueError, r"openings\[1\].*no legal move"),
        ({"openings": ["W:W21:Bzz"]}, ValueError, "unknown square"),
        ({"openings": ["W:W21:B1"], "fen": "W:W21:B1"}, ValueError, "fen or openings"),
    ],
)
def test_bad_openings_are_named(kwargs, error, message):
    with pytest.raises(error, match=message):
        DraughtsBatch(2, **kwargs)


def test_evaluation_openings_are_seeded_varied_and_playable():
    a = opening_positions(4, 30)
    assert a == opening_positions(4, 30) and len(a) == 30
    assert len(set(a)) > 15 and all(api.legal_moves(f) for f in a)
    assert opening_positions(5, 30) != a
    with pytest.raises(ValueError, match="fewest"):
        opening_positions(0, 3, (3, 2))
