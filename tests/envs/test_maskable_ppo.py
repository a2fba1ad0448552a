"""sb3-contrib's MaskablePPO trains on the Gymnasium envs without glue (smoke test)."""

import gymnasium as gym
import pytest

import boardgym  # noqa: F401

sb3_contrib = pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")


@pytest.mark.parametrize("env_id", ["boardgym/RussianDraughts-v0", "boardgym/Backgammon-v0"])
def test_maskable_ppo_runs_a_few_thousand_steps(env_id):
    torch.set_num_threads(1)
    env = gym.make(env_id, opponent="random")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=512,
        batch_size=128,
        n_epochs=1,
        policy_kwargs={"net_arch": [64]},
        seed=0,
        verbose=0,
    )
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    obs, info = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert info["action_mask"][int(action)] == 1  # the masked policy only picks legal actions
