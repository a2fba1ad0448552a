"""agents/arena/playouts.py: the one sampler of playout positions keeps its seeded streams, its
ply ranges and its filters, and checks its arguments."""

import numpy as np
import pytest

from boardgym.agents.arena import playouts as P
from boardgym.agents.arena.openings import read_ballots
from boardgym.envs import draughts as api
from boardgym.kernels.backgammon.board import STATE_LEN as BG_STATE_LEN
from boardgym.kernels.draughts import game
from boardgym.kernels.draughts.board import MAX_MOVES, ROW_LEN, S_PLY


def _fens(states):
    return [api.to_fen(s) for s in states]


def test_a_seed_gives_one_stream_and_the_filters_hold():
    a = P.draughts_positions(20, 3, (10, 40), min_moves=2)
    assert _fens(a) == _fens(P.draughts_positions(20, 3, (10, 40), min_moves=2))
    assert _fens(a) != _fens(P.draughts_positions(20, 4, (10, 40), min_moves=2))
    assert all(game.game_status(s) == game.ONGOING and len(api.legal_moves(s)) >= 2 for s in a)
    assert all(10 <= s[S_PLY] <= 40 for s in a)  # S_PLY: one per whole move
    assert all(s[S_PLY] == 0 for s in P.draughts_positions(5, 0, (0, 0)))


def test_ballot_starts_greedy_play_and_the_pdn_order():
    ballots = read_ballots()
    starts = set(P.ballot_positions())
    at_ballot = P.draughts_positions(10, 1, (0, 0), ballots=ballots)
    assert set(_fens(at_ballot)) <= starts and len(set(_fens(at_ballot))) > 1
    greedy = P.draughts_positions(8, 1, (4, 30), policy="greedy", ballots=ballots, min_moves=2)
    assert len(greedy) == 8 and not set(_fens(greedy)) & starts
    # the same lengths with the moves listed two ways: other games
    core = P.draughts_positions(10, 2, (10, 40))
    pdn = P.draughts_positions(10, 2, (10, 40), order="pdn")
    assert _fens(core) != _fens(pdn)


def test_capture_every_and_min_moves_zero():
    buf = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    pos = P.draughts_positions(40, 7, (0, 139), min_moves=0, through_draws=True, capture_every=2)
    # every second playout goes on until a capture is due, unless the side to move is stuck first
    stuck = [game.gen_moves(s, buf) == 0 for s in pos]
    assert all(game.is_capture(s) for s, st in zip(pos[1::2], stuck[1::2]) if not st)
    assert not all(game.is_capture(s) for s in pos[0::2]) and not all(stuck)
    assert any(game.game_status(s) != game.ONGOING for s in pos)  # min_moves=0 keeps them


def test_backgammon_rolls_are_seeded_positions_on_roll():
    states, dice = P.backgammon_rolls(200, 5)
    assert states.shape == (200, BG_STATE_LEN) and dice.shape == (200, 2)
    assert ((1 <= dice) & (dice <= 6)).all() and (dice[:, 0] >= dice[:, 1]).all()
    again, dice2 = P.backgammon_rolls(200, 5)
    assert np.array_equal(states, again) and np.array_equal(dice, dice2)
    assert not np.array_equal(P.backgammon_rolls(200, 6)[0], states)


@pytest.mark.parametrize(
    "kw, error",
    [
        (dict(n=0), ValueError),
        (dict(n=True), ValueError),
        (dict(plies=(5, 2)), ValueError),
        (dict(plies=(1.5, 2)), TypeError),
        (dict(policy="best"), ValueError),
        (dict(order="sorted"), ValueError),
        (dict(policy="greedy", order="pdn"), ValueError),
        (dict(ballots=[]), ValueError),
        (dict(min_moves=-1), ValueError),
        (dict(capture_every=-2), ValueError),
    ],
)
def test_draughts_positions_names_a_bad_argument(kw, error):
    args = dict(n=2, seed=0, plies=(0, 4)) | kw
    with pytest.raises(error):
        P.draughts_positions(args.pop("n"), args.pop("seed"), args.pop("plies"), **args)


def test_backgammon_rolls_names_a_bad_argument():
    with pytest.raises(ValueError, match="n must"):
        P.backgammon_rolls(0, 1)
    with pytest.raises(TypeError, match="seed"):
        P.backgammon_rolls(3, "1")
