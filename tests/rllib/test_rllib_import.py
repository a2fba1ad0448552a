"""The RLlib adapter modules and the driver import without Ray (Ray is an optional extra); the
spaces, and the league's seat mapping."""

import importlib.util

import numpy as np
import pytest

from boardgym.agents import rllib_module
from boardgym.agents.training import rllib as rl_train
from boardgym.envs import rllib as rl_env


def test_import_without_ray_and_spaces():
    space = rl_env.obs_space("draughts")
    assert set(space.spaces) == {"observations", "action_mask"}
    assert space["observations"].shape == (198,) and space["action_mask"].dtype == np.int8
    assert (
        rl_env.action_space("backgammon").n
        == rl_env.obs_space("backgammon")["action_mask"].shape[0]
    )
    with pytest.raises(ValueError, match="unknown game"):
        rl_env.obs_space("chess")
    with pytest.raises(AttributeError):
        rl_env.NoSuchThing  # noqa: B018
    if importlib.util.find_spec("ray") is None:  # the classes need Ray only when first used
        with pytest.raises(ImportError):
            rl_env.BoardgymMultiAgentEnv  # noqa: B018
        with pytest.raises(ImportError):
            rllib_module.MaskedPPOModule  # noqa: B018


def test_league_mapping_puts_main_on_one_seat():
    class Ep:
        def __init__(self, i):
            self.id_ = f"episode-{i}"

    mapping = rl_train.LeagueMapping(["league_0", "league_1"], self_play_prob=0.25, seed=0)
    seats, opponents = set(), {}
    for i in range(400):
        ep = Ep(i)
        m = [mapping(a, ep) for a in rl_env.AGENTS]
        assert "main" in m and m == [mapping(a, ep) for a in rl_env.AGENTS]  # stable per episode
        seats.add(m.index("main"))
        opp = m[1 - m.index("main")] if m.count("main") == 1 else "main"
        opponents[opp] = opponents.get(opp, 0) + 1
    assert seats == {0, 1} and set(opponents) == {"main", "league_0", "league_1"}
    assert 50 < opponents["main"] < 150  # ~ 0.25 * 400
