"""The rollout benchmark set (agents/backgammon/benchmark.py): decisions of self-play with their
candidate plays rolled out; an agent's loss is 0 at the rollout-best play, the gap to it
otherwise, a play outside the candidates is counted apart; the file round-trips and is checked."""

import numpy as np
import pytest

from boardgym.agents.backgammon import benchmark as B
from boardgym.agents.backgammon.agents import TDAgent
from boardgym.kernels.backgammon import game

NET = TDAgent().params


@pytest.fixture(scope="module")
def bench():
    return B.build_benchmark(NET, 5, trials=2, plies=2, seed=7, keep=0.2)


class _Picker:
    """An agent choosing by a rule over the set's candidates (the rest: last play)."""

    def __init__(self, bench, which):
        self.bench, self.which, self.i = bench, which, 0

    def afterstates(self, state, d1, d2):
        rows = np.empty((game.MAX_AFTERSTATES, 66), np.int64)
        n = game.plays_of_roll(state, d1, d2, rows, None)
        return rows[:n]

    def choose(self, rows):
        b, i = self.bench, self.i
        self.i += 1
        cand = b["cand_rows"][b["starts"][i] : b["starts"][i + 1]]
        eq = b["cand_eq"][b["starts"][i] : b["starts"][i + 1]]
        if self.which == "outside":
            for k, r in enumerate(rows):
                if not (cand == r).all(axis=1).any():
                    return k
        target = cand[np.argmax(eq) if self.which == "best" else np.argmin(eq)]
        return int(np.flatnonzero((rows == target).all(axis=1))[0])


def test_the_set_holds_decisions_and_their_candidate_plays(bench):
    st = bench["starts"]
    assert len(bench["states"]) == 5 and st[0] == 0 and (np.diff(st) >= 2).all()
    for i, s in enumerate(bench["states"]):
        d1, d2 = game.dice_of(s)
        assert d1 > 0
        rows = _Picker(bench, "best").afterstates(s, d1, d2)
        for c in bench["cand_rows"][st[i] : st[i + 1]]:
            assert (rows == c).all(axis=1).any()  # a play of the roll
    # a standard error may be 0: two trials of a bear-off the database values exactly agree
    assert np.isfinite(bench["cand_eq"]).all() and (bench["cand_se"] >= 0).all()
    assert (bench["cand_se"] > 0).any()


def test_losses_are_the_gap_to_the_rollout_best(bench):
    losses, outside = B.agent_errors(_Picker(bench, "best"), bench)
    assert outside == 0 and (losses == 0).all()
    losses, outside = B.agent_errors(_Picker(bench, "worst"), bench)
    st, eq = bench["starts"], bench["cand_eq"]
    gaps = np.array([eq[a:b].max() - eq[a:b].min() for a, b in zip(st, st[1:])])
    assert outside == 0 and np.array_equal(losses, gaps) and (gaps > 0).all()
    losses, outside = B.agent_errors(_Picker(bench, "outside"), bench)
    assert outside > 0 and np.array_equal(losses, gaps)  # charged the worst candidate's loss
    s = B.summary(losses, outside)
    assert s["memg"] == pytest.approx(1000 * gaps.mean()) and s["decisions"] == 5


def test_the_file_round_trips_and_is_checked(bench, tmp_path):
    path = tmp_path / "set.npz"
    B.save_benchmark(path, bench, command="test")
    back = B.load_benchmark(path)
    for k in ("states", "starts", "cand_rows"):
        assert np.array_equal(back[k], bench[k])
    assert np.allclose(back["cand_eq"], bench["cand_eq"]) and back["meta"]["command"] == "test"
    (tmp_path / "bad.npz").write_bytes(b"nonsense")
    with pytest.raises(ValueError, match="not a rollout benchmark set"):
        B.load_benchmark(tmp_path / "bad.npz")
    broken = {**bench, "starts": bench["starts"][::-1].copy()}
    B.save_benchmark(tmp_path / "broken.npz", broken)
    with pytest.raises(ValueError, match="bad starts"):
        B.load_benchmark(tmp_path / "broken.npz")


def test_the_shipped_set_loads_with_its_command():
    b = B.load_benchmark()
    assert len(b["states"]) >= 100 and len(b["cand_rows"]) == b["starts"][-1]
    assert b["meta"]["command"].startswith("boardgym rollout-bench --build")
    assert b["meta"]["seed"] == B.BENCH_SEED
