"""Shared check of the batch/single-env equality tests."""

import numpy as np


def assert_game_matches(core, i, env):
    """Game i of a batched core shows exactly what the single AEC env shows after the same
    actions, its last move (what pictures mark) included."""
    player = env.agent_selection
    assert core.last_move(i) == env.last_move()
    np.testing.assert_array_equal(core.obs[i], env.observe(player)["observation"])
    np.testing.assert_array_equal(core.masks[i], env.observe(player)["action_mask"])
    assert core.current[i] == int(player[-1])
    assert tuple(core.rewards[i]) == (env.rewards["player_0"], env.rewards["player_1"])
    assert bool(core.done[i, 0]) == env.terminations["player_0"]
    assert bool(core.done[i, 1]) == env.truncations["player_0"]


def play_in_lockstep(core, singles, steps, rng, after_reset=None):
    """Random legal actions (from rng) in every game of the core and in its single env for
    `steps` steps, each game checked with assert_game_matches; finished games restart in both
    (after_reset(i) is called then). Returns how many games restarted."""
    resets = 0
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in core.masks])
        core.step(actions)
        for i, env in enumerate(singles):
            env.step(int(actions[i]))
            assert_game_matches(core, i, env)
        for i in core.reset_done():
            singles[i].reset()
            resets += 1
            if after_reset is not None:
                after_reset(i)
    return resets
