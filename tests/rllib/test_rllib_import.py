"""The RLlib adapter modules import without Ray (Ray is an optional extra) and describe the spaces."""

import importlib.util

import numpy as np
import pytest

from boardgym.agents import rllib_module
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
