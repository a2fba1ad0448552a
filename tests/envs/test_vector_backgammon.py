"""Batched backgammon: the core, its equality with the single env, the vector adapters."""

import gymnasium as gym
import numpy as np
import pytest
from _batch_equality import play_in_lockstep

import boardgym  # noqa: F401
from boardgym.envs import backgammon_v0
from boardgym.envs.batch import BackgammonBatch
from boardgym.envs.vector import make_sb3_vec_env


def test_batch_equals_single_env_game_for_game():
    """Game i of a batch seeded S rolls the same dice as the single env seeded S + i; the same
    actions give the same observations, masks, rewards and ends, across automatic resets."""
    n, rng = 4, np.random.default_rng(0)
    core = BackgammonBatch(n, max_turns=80, scoring="gammon", record_moves=True)
    core.reset(seed=10)
    singles = [backgammon_v0.raw_env(max_turns=80, scoring="gammon") for _ in range(n)]
    for i, env in enumerate(singles):
        env.reset(seed=10 + i)
    assert play_in_lockstep(core, singles, 1500, rng) >= 10


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_in_kernel_opponents(opponent):
    core = BackgammonBatch(64, opponent=opponent)
    core.reset(seed=1)
    score, finished = 0.0, 0
    for _ in range(1200):
        assert (core.current == core.seats).all()
        seats = core.seats.copy()
        core.step(core.random_actions())
        done = core.done.any(1).astype(bool)
        score += core.rewards[np.flatnonzero(done), seats[done]].sum()
        finished += len(core.reset_done())
    assert finished > 100
    if opponent == "greedy":
        assert score < -0.8 * finished  # greedy one-ply play crushes a random learner
    else:
        assert abs(score) < 0.3 * finished


def test_memory_for_65536_games_under_200_mb():
    core = BackgammonBatch(65536, record_moves=True)
    total = sum(
        x.nbytes
        for x in (
            core.states,
            core.obs,
            core.masks,
            core.current,
            core.rewards,
            core.done,
            core.seats,
            core.rngs,
            core.rolls,
            core.last,
        )
    )
    assert total < 200e6, total


def test_validation():
    core = BackgammonBatch(2)
    core.reset(seed=0)
    bad = np.array([int(np.flatnonzero(m == 0)[0]) for m in core.masks])
    with pytest.raises(ValueError, match="illegal action"):
        core.step(bad)
    with pytest.raises(ValueError, match="scoring"):
        BackgammonBatch(2, scoring="triple")


def test_gymnasium_make_vec_and_sb3():
    envs = gym.make_vec(
        "boardgym/Backgammon-v0",
        num_envs=8,
        vectorization_mode="vector_entry_point",
        opponent="greedy",
    )
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (8, 207) and infos["action_mask"].shape == (8, 150)
    for _ in range(200):
        obs, rew, term, trunc, infos = envs.step(envs.unwrapped.core.random_actions())
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    venv = make_sb3_vec_env("backgammon", num_envs=16, opponent="random")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=64,
        batch_size=256,
        n_epochs=1,
        policy_kwargs={"net_arch": [64]},
        seed=0,
    )
    model.learn(1024)
    assert model.num_timesteps >= 1024
