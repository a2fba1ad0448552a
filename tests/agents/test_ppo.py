"""PPOAgent and its self-play trainer (issue 6): a tiny run, checkpoint, legal play from both seats."""
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from boardgym.agents.ppo import OpponentPool, PPOAgent, train_ppo, win_rate_vs_random  # noqa: E402
from boardgym.envs import backgammon_v0, russian_draughts_v0  # noqa: E402


@pytest.mark.parametrize("game,module", [("draughts", russian_draughts_v0), ("backgammon", backgammon_v0)])
def test_tiny_self_play_run_checkpoint_and_legal_play(tmp_path, game, module):
    path = str(tmp_path / f"{game}.zip")
    logs = []
    model = train_ppo(game, 4096, path, num_envs=16, snapshot_every=1024, eval_every=2048,
                      eval_games=8, log=logs.append, net_arch=(32,))
    assert model.num_timesteps >= 4096 and logs and "vs random" in logs[0]
    agent = PPOAgent(path)
    for seed in range(2):  # both seats, a whole game, only legal actions (the env would raise)
        env = module.raw_env()
        env.reset(seed=seed)
        while not env._done:
            obs = env.observe(env.agent_selection)
            action = agent.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            env.step(action)
    w, d, l_ = win_rate_vs_random(model, game, n_games=10, seed=3)
    assert w + d + l_ == 10


def test_opponent_pool_plays_legal_actions():
    pool = OpponentPool(seed=0)
    masks = np.zeros((5, 20), np.int8)
    masks[np.arange(5), [1, 3, 5, 7, 19]] = 1
    assert pool(np.zeros((5, 4), np.float32), masks).tolist() == [1, 3, 5, 7, 19]
    with pytest.raises(ValueError, match="no action"):
        PPOAgent.act(type("A", (), {"model": None, "deterministic": True})(), np.zeros(3), np.zeros(3))


def test_train_script_ppo_and_resume(tmp_path):
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(
        "boardgym_train_script", Path(__file__).resolve().parents[2] / "scripts" / "train.py")
    train = importlib.util.module_from_spec(spec)
    import sys
    sys.modules["boardgym_train_script"] = train  # inspect (field docs) needs the module registered
    spec.loader.exec_module(train)
    args = ["--game", "draughts", "--algo", "ppo", "--steps", "2048", "--num-envs", "16",
            "--eval-every", "1024", "--eval-games", "4", "--snapshot-every", "1024",
            "--ckpt-dir", str(tmp_path), "--quiet"]
    model = train.main(args)
    assert model.num_timesteps >= 2048 and (tmp_path / "ppo.zip").is_file()
    resumed = train.main(args[:3] + ["ppo", "--steps", "4096"] + args[6:] + ["--resume"])
    assert resumed.num_timesteps >= 4096
