"""Batched cores: get_state/set_state checkpoints N games in progress (issue 5/6: exact resume)."""
import numpy as np
import pytest

from boardgym.envs.batch import BackgammonBatch, DraughtsBatch


def _play(core, steps):
    trace = []
    for _ in range(steps):
        core.step(core.random_actions())
        trace.append((core.obs.copy(), core.rewards.copy(), core.done.copy()))
        core.reset_done()
    return trace


@pytest.mark.parametrize("make", [lambda: DraughtsBatch(8, opponent="random", max_moves=60),
                                  lambda: BackgammonBatch(8, opponent="greedy", max_turns=40)])
def test_restored_core_plays_the_same_games(make):
    a = make()
    a.reset(seed=5)
    _play(a, 30)
    snap = a.get_state()
    expected = _play(a, 80)  # crosses game ends and autoresets
    b = make()
    b.reset(seed=99)  # different games: set_state must overwrite everything
    b.set_state(snap)
    got = _play(b, 80)
    for (o1, r1, d1), (o2, r2, d2) in zip(expected, got):
        assert np.array_equal(o1, o2) and np.array_equal(r1, r2) and np.array_equal(d1, d2)
    assert any(d.any() for _, _, d in got)  # at least one game ended on the way


def test_set_state_rejects_a_mismatched_snapshot():
    d8, d4, bg = DraughtsBatch(8), DraughtsBatch(4), BackgammonBatch(8)
    for core in (d8, d4, bg):
        core.reset(seed=0)
    with pytest.raises(ValueError, match="DraughtsBatch snapshot"):
        d8.set_state(bg.get_state())
    with pytest.raises(ValueError, match="'states' must be int64"):
        d8.set_state(d4.get_state())
    snap = d8.get_state()
    del snap["rngs"]
    with pytest.raises(ValueError, match="lacks 'rngs'"):
        d8.set_state(snap)
    before = bg.get_state()
    bad = dict(before, rolls=before["rolls"][:3])
    with pytest.raises(ValueError, match="'rolls'"):
        bg.set_state(bad)
    assert all(np.array_equal(before[k], v) for k, v in bg.get_state().items() if k != "core")
