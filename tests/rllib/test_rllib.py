"""Ray RLlib path: the MultiAgentEnv adapter (RLlib's own env check, random masked play against
the AEC env), the action-masking RLModule, and 2-runner league self-play smoke runs with
evaluation, checkpoint and restore (agents/training/rllib.py, scripts/train_rllib.py). Skipped
without Ray: ``pip install -e ".[ray]"``."""

import json
import os

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from boardgym.agents.rllib_module import RLlibAgent, module_spec  # noqa: E402
from boardgym.agents.training import rllib as rl_train  # noqa: E402
from boardgym.envs import backgammon_v0, russian_draughts_v0  # noqa: E402
from boardgym.envs import rllib as rl_env  # noqa: E402
from boardgym.scripts import train_rllib as tr  # noqa: E402

GAMES = ("draughts", "backgammon")
AEC = {"draughts": russian_draughts_v0, "backgammon": backgammon_v0}


@pytest.mark.parametrize("game", GAMES)
def test_env_passes_rllib_check(game):
    env = rl_env.env_creator({"game": game})
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    assert isinstance(env, MultiAgentEnv)
    check_multiagent_environments(env)  # raises ValueError on a protocol violation
    space = env.observation_spaces["player_0"]
    assert set(space.spaces) == {"observations", "action_mask"}
    assert space["action_mask"].dtype == np.int8


@pytest.mark.parametrize("game", GAMES)
def test_random_masked_play_matches_the_aec_env(game):
    """Random legal play to the end: one observation per step (the agent to act, as in the AEC
    env, with its exact observation and mask), zero rewards until the end, then both agents'
    final observations, zero-sum rewards and the done flags with "__all__"."""
    env = rl_env.env_creator({"game": game, "illegal": "raise"})
    aec = AEC[game].env()
    rng = np.random.default_rng(1)
    repeats = 0
    for g in range(6):
        obs, infos = env.reset(seed=100 + g)
        aec.reset(seed=100 + g)
        prev, steps = None, 0
        while True:
            assert len(obs) == 1
            ((agent, o),) = obs.items()
            assert agent == aec.agent_selection and set(infos) == {agent}
            assert env.observation_spaces[agent].contains(o)
            ref = aec.observe(agent)
            np.testing.assert_array_equal(o["observations"], ref["observation"])
            np.testing.assert_array_equal(o["action_mask"], ref["action_mask"])
            repeats += agent == prev
            prev = agent
            a = int(rng.choice(np.flatnonzero(o["action_mask"])))
            obs, rew, term, trunc, infos = env.step({agent: a})
            aec.step(a)
            steps += 1
            assert steps < 20_000
            if term["__all__"] or trunc["__all__"]:
                break
            assert set(rew.values()) <= {0.0} and term == {"__all__": False} == trunc
        assert set(obs) == set(rl_env.AGENTS)
        assert all(not o["action_mask"].any() for o in obs.values())
        assert rew["player_0"] == -rew["player_1"]
        assert rew == {a: aec.unwrapped.rewards[a] for a in rl_env.AGENTS}
        assert term["__all__"] != trunc["__all__"]
        assert all(
            term[a] == term["__all__"] and trunc[a] == trunc["__all__"] for a in rl_env.AGENTS
        )
        assert all(aec.terminations[a] or aec.truncations[a] for a in rl_env.AGENTS)
        with pytest.raises(ValueError, match="ended"):
            env.step({agent: 0})
    assert repeats > 0  # capture chains / backgammon turns: the same agent acts again


@pytest.mark.parametrize("game", GAMES)
def test_bad_actions(game):
    env = rl_env.env_creator({"game": game})
    obs, _ = env.reset(seed=0)
    ((agent, o),) = obs.items()
    other = next(a for a in rl_env.AGENTS if a != agent)
    legal = int(np.flatnonzero(o["action_mask"])[0])
    with pytest.raises(ValueError, match="is to act"):
        env.step({other: legal})
    with pytest.raises(ValueError, match="only"):
        env.step({agent: legal, other: legal})
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs, rew, term, trunc, infos = env.step({agent: illegal})  # PettingZoo's TerminateIllegal rule
    assert rew == {agent: -1.0, other: 0.0} and term["__all__"] and not trunc["__all__"]
    assert infos[agent]["illegal_action"] == illegal
    strict = rl_env.env_creator({"game": game, "illegal": "raise"})
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step({agent: illegal})


def test_bad_config():
    with pytest.raises(ValueError, match="unknown game"):
        rl_env.env_creator({"game": "chess"})
    with pytest.raises(ValueError, match="cube"):
        rl_env.env_creator({"game": "backgammon", "cube": True})
    with pytest.raises(ValueError, match="illegal"):
        rl_env.env_creator({"game": "draughts", "illegal": "ignore"})


@pytest.mark.parametrize("game", GAMES)
def test_module_only_samples_legal_actions(game):
    module = module_spec(game, hidden=(32,)).build()
    space = rl_env.obs_space(game)
    rng = np.random.default_rng(0)
    n = space["action_mask"].shape[0]
    masks = np.zeros((64, n), np.int8)
    for row in masks:
        row[rng.choice(n, size=rng.integers(1, 5), replace=False)] = 1
    obs = {
        "observations": torch.as_tensor(
            rng.random((64, space["observations"].shape[0]), dtype=np.float32)
        ),
        "action_mask": torch.as_tensor(masks),
    }
    out = module.forward_exploration({Columns.OBS: obs})
    dist = module.get_exploration_action_dist_cls().from_logits(out[Columns.ACTION_DIST_INPUTS])
    for _ in range(20):
        actions = dist.sample().numpy()
        assert masks[np.arange(64), actions].all()
    values = module.compute_values({Columns.OBS: obs})
    assert values.shape == (64,)
    # RLlibAgent: greedy and sampled actions are legal in the AEC env
    env = AEC[game].env()
    env.reset(seed=3)
    o = env.observe(env.agent_selection)
    for det in (True, False):
        a = RLlibAgent(module, deterministic=det, seed=0).act(o["observation"], o["action_mask"])
        assert o["action_mask"][a] == 1
    with pytest.raises(ValueError, match="no action"):
        RLlibAgent(module).act(o["observation"], np.zeros_like(o["action_mask"]))


def test_parse_args_rejects_bad_values():
    from boardgym.scripts import cli

    cfg = cli.parse(
        tr.Settings,
        ["--game", "backgammon", "--num-env-runners", "3", "--address", "auto", "--restore"],
    )
    assert (cfg.game, cfg.num_env_runners, cfg.address, cfg.restore) == (
        "backgammon",
        3,
        "auto",
        True,
    )
    for bad in (
        ["--iterations", "0"],
        ["--game", "chess"],
        ["--snapshot-score", "1.5"],
        ["--num-env-runners", "-1"],
    ):
        with pytest.raises(ValueError, match=bad[0]):
            cli.parse(tr.Settings, bad)


def test_restore_without_checkpoint_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no checkpoint"):
        tr.main(["--game", "draughts", "--restore", "--checkpoint-dir", str(tmp_path)])
    (tmp_path / "league.json").write_text(
        json.dumps({"game": "backgammon", "league": ["league_0"], "iteration": 1, "history": []})
    )
    with pytest.raises(ValueError, match="for backgammon, not draughts"):
        tr.main(["--game", "draughts", "--restore", "--checkpoint-dir", str(tmp_path)])


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_two_runner_smoke_train_evaluate_checkpoint_restore(game, tmp_path, local_ray):
    args = [
        "--game",
        game,
        "--num-env-runners",
        "2",
        "--iterations",
        "2",
        "--train-batch",
        "400",
        "--minibatch",
        "100",
        "--epochs",
        "1",
        "--hidden",
        "32",
        "--max-length",
        "40",
        "--eval-every",
        "2",
        "--eval-games",
        "4",
        "--checkpoint-every",
        "1",
        "--checkpoint-dir",
        str(tmp_path),
        "--snapshot-score",
        "0.01",
        "--min-league-games",
        "1",
        "--self-play-prob",
        "0",
        "--quiet",
    ]
    first = tr.main(args)
    assert first["iteration"] == 2 and len(first["history"]) == 2
    assert all(row["env_steps"] >= 400 for row in first["history"])
    ev = first["history"][-1]["eval"]
    assert set(ev) == set(rl_train.BASELINES[game]) and all(0.0 <= v <= 1.0 for v in ev.values())
    assert first["start_digest"] != first["end_digest"]  # PPO changed main's weights
    snapshots = [row["snapshot"] for row in first["history"] if "snapshot" in row]
    assert snapshots and first["league"] == ["league_0", *snapshots]
    saved = json.loads((tmp_path / "league.json").read_text())
    assert saved["league"] == first["league"] and saved["iteration"] == 2
    assert os.path.isdir(tmp_path / "algo")

    second = tr.main(
        args[: args.index("--iterations") + 1]
        + ["1"]
        + args[args.index("--iterations") + 2 :]
        + ["--restore"]
    )
    assert second["start_digest"] == first["end_digest"]  # restored main's exact weights
    assert second["iteration"] == 3 and [r["iteration"] for r in second["history"]] == [1, 2, 3]
    assert second["history"][-1]["league"][: len(first["league"])] == first["league"]
    assert "eval" in second["history"][-1]


@pytest.mark.slow
def test_bench_rllib_smoke(local_ray):
    from boardgym.scripts.bench import rllib as bench

    rows = bench.main(
        [
            "--game",
            "backgammon",
            "--num-env-runners",
            "0",
            "1",
            "--steps",
            "60",
            "--rounds",
            "1",
            "--hidden",
            "16",
        ]
    )
    assert [r.get("env_runners") for r in rows] == [None, 0, 1]
    assert all(r["env_steps_per_s"] > 0 for r in rows)
