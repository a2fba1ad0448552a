"""The batched cores' fused step (``step_autoreset``: step, then the restarts, in one kernel
call) leaves exactly what ``step`` then ``reset_done`` leave, and hands out the finished games'
last observation, the seat's reward and the end flags; in both builds (serial and parallel)."""

import numba
import numpy as np
import pytest

from boardgym.envs.batch import BackgammonBatch, DraughtsBatch
from boardgym.kernels.rng import seed_rngs

CASES = [
    (DraughtsBatch, "random", {}),
    (DraughtsBatch, "recapture", {}),
    (DraughtsBatch, "random", {"max_moves": 30}),
    (DraughtsBatch, None, {}),
    (BackgammonBatch, "random", {}),
    (BackgammonBatch, "greedy", {"scoring": "gammon"}),
    (BackgammonBatch, "random", {"max_turns": 20}),
    (BackgammonBatch, None, {}),
    (BackgammonBatch, None, {"cube": True}),
    (BackgammonBatch, "random", {"match_length": 5}),
    (BackgammonBatch, "greedy", {"match_length": 3, "match_reward": "points"}),
]


@pytest.mark.parametrize("n", [7, 300])  # 300 games: the parallel build when threads > 1
@pytest.mark.parametrize(
    "cls, opponent, kwargs", CASES, ids=[f"{c.__name__}-{o}-{k}" for c, o, k in CASES]
)
def test_step_autoreset_is_step_then_reset_done(cls, opponent, kwargs, n):
    a, b = cls(n, opponent=opponent, **kwargs), cls(n, opponent=opponent, **kwargs)
    a.reset(seed=11)
    b.reset(seed=11)
    rngs, actions = seed_rngs(5, n), np.zeros(n, np.int64)
    finished_seen = 0
    for _ in range(120):
        a.random_actions(rngs, actions)
        a.step(actions)
        seats = a.seats.copy()
        want_rewards = a.rewards[np.arange(n), seats]
        want_done, want_obs = a.done.copy(), a.obs.copy()
        finished = a.reset_done()
        rewards, done, final_obs = b.step_autoreset(actions)
        np.testing.assert_array_equal(rewards, want_rewards)
        np.testing.assert_array_equal(done, want_done)
        np.testing.assert_array_equal(final_obs[finished], want_obs[finished])
        finished_seen += finished.size
        for name in a._state_fields:
            np.testing.assert_array_equal(getattr(b, name), getattr(a, name), err_msg=name)
    assert finished_seen > 0


@pytest.mark.parametrize(
    "make",
    [
        lambda threads: DraughtsBatch(300, opponent="random", threads=threads),
        lambda threads: BackgammonBatch(300, opponent="random", threads=threads),
        lambda threads: BackgammonBatch(300, opponent=None, match_length=5, threads=threads),
    ],
    ids=["draughts", "backgammon", "backgammon-match"],
)
def test_the_parallel_build_plays_the_serial_games(make):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    cores = []
    for threads in (1, 2):
        core = make(threads)
        core.reset(seed=3)
        rngs, actions = seed_rngs(4, 300), np.zeros(300, np.int64)
        for _ in range(50):
            core.random_actions(rngs, actions)
            core.step_autoreset(actions)
        cores.append(core.get_state())
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for name in cores[0]:
        np.testing.assert_array_equal(cores[0][name], cores[1][name], err_msg=name)


@pytest.mark.parametrize("cls", [DraughtsBatch, BackgammonBatch])
def test_step_autoreset_checks_the_actions_first(cls):
    core = cls(4, opponent="random")
    core.reset(seed=0)
    before = core.get_state()
    with pytest.raises(ValueError, match="illegal action|out of range"):
        core.step_autoreset(np.full(4, cls(1).n_actions - 1))
    after = core.get_state()
    for name in core._state_fields:
        np.testing.assert_array_equal(before[name], after[name])
