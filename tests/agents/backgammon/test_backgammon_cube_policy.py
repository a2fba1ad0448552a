"""Cube decisions of the backgammon agents (C.1-C.2): cubeless by default, by equity on request."""

import numpy as np
import pytest

from boardgym.agents.backgammon.agents import ExpectimaxAgent, GreedyAgent, TDAgent
from boardgym.envs import backgammon_notation, backgammon_v0
from boardgym.kernels.backgammon import game

# player on roll: 1, 2, 2, 2, 2, 3 on its points 1-6 (25 pips); the other 2, 2, 2, 2, 3, 3 (58)
RACE = "23YHAIC27QAAAA"


def _env(position_id=None):
    env = backgammon_v0.raw_env(cube=True)
    env.reset(seed=0, options={} if position_id is None else {"position_id": position_id})
    return env


def _act(agent, env):
    obs = env.observe(env.agent_selection)
    return agent.act(obs["observation"], obs["action_mask"])


def test_default_is_cubeless_never_double_always_take():
    agent = TDAgent()
    assert agent.cube_policy == "cubeless"
    env = _env(RACE)
    assert _act(agent, env) == game.ACTION_ROLL  # would double by equity
    env.step(game.ACTION_DOUBLE)
    assert _act(agent, env) == game.ACTION_TAKE


def test_equity_policy_doubles_a_won_race_and_the_opponent_drops():
    agent = TDAgent(cube="equity")
    s = backgammon_notation.position_from_id(RACE)
    assert 0.4 <= agent.cube_equity(s) < 1.0
    env = _env(RACE)
    assert _act(agent, env) == game.ACTION_DOUBLE
    env.step(game.ACTION_DOUBLE)
    assert _act(agent, env) == game.ACTION_DROP  # the taker's view, from its observation
    assert agent.cube_action(env.state, True) == game.ACTION_DROP


def test_equity_policy_at_the_start_rolls_and_takes():
    for agent in (TDAgent(cube="equity"), ExpectimaxAgent(depth=1, cube="equity")):
        s = backgammon_notation.initial_state()
        assert abs(agent.cube_equity(s)) < 0.4
        assert agent.cube_action(s, False) == game.ACTION_ROLL
        assert agent.cube_action(s, True) == game.ACTION_TAKE
    assert TDAgent().cube_action(s, False, policy="equity") == game.ACTION_ROLL


def test_agents_without_a_net_stay_cubeless():
    g = GreedyAgent()
    assert not g.has_equity and g.cube_action(None, True) == game.ACTION_TAKE
    assert not ExpectimaxAgent(depth=1, evaluation="greedy").has_equity
    with pytest.raises(ValueError, match="no equity estimate"):
        GreedyAgent(cube="equity")
    with pytest.raises(ValueError, match="no equity estimate"):
        g.cube_equity(backgammon_notation.initial_state())
    with pytest.raises(ValueError, match="cube policy"):
        TDAgent(cube="always")
    with pytest.raises(ValueError, match="cube policy"):
        g.cube_action(None, False, policy="sometimes")


def test_checker_play_is_unchanged_by_the_cube_policy():
    s = backgammon_notation.initial_state()
    a, b = TDAgent(), TDAgent(cube="equity")
    np.testing.assert_array_equal(a.best_afterstate(s, 3, 1), b.best_afterstate(s, 3, 1))


def test_bad_cube_arguments_are_named():
    agent = TDAgent(cube="equity")
    with pytest.raises(TypeError, match="offered"):
        agent.cube_action(backgammon_notation.initial_state(), "yes")
    with pytest.raises(ValueError, match="cube policy"):
        agent.cube_action(backgammon_notation.initial_state(), False, policy=["equity"])
    with pytest.raises((TypeError, ValueError)):
        agent.cube_equity(np.zeros(3))
