"""Truncated rollouts (agents/backgammon/rollout.py): one half-move is the 1-ply value exactly,
the luck-adjusted estimator keeps the plain one's mean with a smaller standard error, certain
results and the exact bear-off come out right, seeds and blocks reproduce."""

import numpy as np
import pytest

from boardgym.agents.backgammon import distill as D
from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon import rollout as R
from boardgym.agents.backgammon.agents import TDAgent
from boardgym.envs.backgammon_notation import state_from_board
from boardgym.kernels.backgammon.board import STATE_LEN

NET = TDAgent().params


def _positions(seed, k):
    """k contested positions (|equity| < 0.5) of the net's self-play, spread over the games."""
    rows = np.empty((400, STATE_LEN), np.int64)
    n = D.sample_positions(NET, np.array([seed], np.int64), 4, 0.0, rows)
    y = np.empty((n, 5))
    td_net.evaluate_rows(NET, rows, n, y)
    rows = rows[:n][np.abs(_eq(y)) < 0.5]
    return np.ascontiguousarray(rows[np.linspace(5, len(rows) - 5, k).astype(int)])


def _board(me, opp):
    """An afterstate (mover's view): me / opp: {own point: checkers}, the rest borne off."""
    sides = []
    for d in (opp, me):
        side = [0] * 25
        for p, c in d.items():
            side[p - 1] = c
        sides.append(side)
    return state_from_board(sides)


def _eq(y):
    return np.array([td_net.equity(r) for r in y])


def test_one_half_move_is_the_one_ply_value():
    rows = _positions(1, 4)
    t1 = np.empty((len(rows), 5))
    D.targets1(NET, rows, len(rows), t1)
    for reduce in (False, True):
        out, se = R.rollout_targets(NET, rows, trials=36, plies=1, seed=3, reduce=reduce)
        assert np.allclose(out, t1, atol=1e-12)
    assert np.allclose(se, 0.0, atol=1e-6)  # luck-adjusted: every trial is the 1-ply mean


def test_luck_adjustment_keeps_the_mean_and_lowers_the_error():
    rows = _positions(2, 3)
    vr, vse = R.rollout_targets(NET, rows, trials=36, plies=4, seed=5)
    plain, pse = R.rollout_targets(NET, rows, trials=360, plies=4, seed=6, reduce=False)
    d = np.abs(_eq(vr) - _eq(plain))
    assert (d < 4 * np.hypot(vse[:, R.SE_EQUITY], pse[:, R.SE_EQUITY])).all(), d
    # each output too (a floor on the error: near-certain outputs have unreliable estimates)
    assert (np.abs(vr - plain) < 4 * np.maximum(np.hypot(vse[:, :5], pse[:, :5]), 2e-3)).all()
    same_t, same_se = R.rollout_targets(NET, rows, trials=36, plies=4, seed=5, reduce=False)
    assert (vse[:, R.SE_EQUITY] < 0.5 * same_se[:, R.SE_EQUITY]).all()
    assert not np.allclose(same_t, vr)


def test_a_certain_win_rolls_out_to_its_result():
    # the mover has one checker left on its 1-point; the opponent, one off, is far from home
    row = _board({1: 1}, {13: 14})[None]
    for reduce in (False, True):
        out, se = R.rollout_targets(NET, row, trials=36, plies=5, seed=1, reduce=reduce)
        assert np.allclose(out, [[1, 0, 0, 0, 0]], atol=1e-9)
    # and a gammon when the opponent has none off
    row = _board({1: 1}, {13: 15})[None]
    out, _ = R.rollout_targets(NET, row, trials=36, plies=5, seed=1)
    assert np.allclose(out, [[1, 1, 0, 0, 0]], atol=1e-9)


def test_bear_off_positions_agree_with_the_database():
    rows = np.array(
        [
            _board({1: 2, 2: 2, 3: 2}, {1: 1, 2: 3, 4: 2}),
            _board({1: 3, 5: 2, 6: 1}, {2: 2, 3: 2, 6: 3}),
            _board({4: 5, 6: 5}, {1: 4, 5: 6}),
        ]
    )
    table = np.empty((len(rows), 5))
    td_net.evaluate_rows(NET, rows, len(rows), table)
    out, se = R.rollout_targets(NET, rows, trials=36, plies=20, seed=2)
    assert np.abs(out - table).max() < 0.02, (out, table)
    assert (se[:, :5] < 1e-6).all()  # the trial stops at the database, one roll on


def test_seeds_and_blocks_reproduce():
    rows = _positions(3, 3)
    a = R.rollout_targets(NET, rows, trials=5, plies=3, seed=9)
    b = R.rollout_targets(NET, rows, trials=5, plies=3, seed=9, blocks=2)
    c = R.rollout_targets(NET, rows, trials=5, plies=3, seed=10)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])
    # a position's result does not depend on the others
    one = R.rollout_targets(NET, rows[:1], trials=5, plies=3, seed=9)
    assert np.array_equal(one[0][0], a[0][0])


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"trials": 0}, "trials"),
        ({"plies": 0}, "plies"),
        ({"plies": 2.5}, "plies"),
        ({"blocks": 0}, "blocks"),
    ],
)
def test_bad_arguments_are_named(kw, match):
    with pytest.raises(ValueError, match=match):
        R.rollout_targets(NET, _positions(1, 1), **kw)


def test_finished_games_and_bad_rows_are_refused():
    over = _board({}, {6: 15})[None]
    with pytest.raises(ValueError, match="over"):
        R.rollout_targets(NET, over)
    with pytest.raises((ValueError, TypeError)):
        R.rollout_targets(NET, np.zeros((1, 3), np.int64))
