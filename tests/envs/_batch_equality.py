"""Shared check of the batch/single-env equality tests (issue 5)."""
import numpy as np


def assert_game_matches(core, i, env):
    """Game i of a batched core shows exactly what the single AEC env shows after the same actions."""
    player = env.agent_selection
    np.testing.assert_array_equal(core.obs[i], env.observe(player)["observation"])
    np.testing.assert_array_equal(core.masks[i], env.observe(player)["action_mask"])
    assert core.current[i] == int(player[-1])
    assert tuple(core.rewards[i]) == (env.rewards["player_0"], env.rewards["player_1"])
    assert bool(core.done[i, 0]) == env.terminations["player_0"]
    assert bool(core.done[i, 1]) == env.truncations["player_0"]
