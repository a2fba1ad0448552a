"""PettingZoo AEC and Gymnasium single-agent backgammon envs."""

import random
import warnings
from collections import Counter

import gymnasium as gym
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

import boardgym  # noqa: F401
from boardgym.envs import backgammon_notation as api
from boardgym.envs import backgammon_v0
from boardgym.envs.backgammon_match import read_match_text
from boardgym.envs.backgammon_render import to_svg
from boardgym.kernels.backgammon import board as B
from boardgym.kernels.backgammon.codec import encode_action
from boardgym.kernels.backgammon.cube import ACTION_DOUBLE, ACTION_DROP, ACTION_ROLL, ACTION_TAKE


def _random_game(env, seed):
    env.reset(seed=seed)
    rng = random.Random(seed)
    while not env.is_over:
        env.step(
            rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist())
        )


@pytest.mark.parametrize("cube", [False, True])
def test_pettingzoo_api_and_seed_tests(cube):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(backgammon_v0.env(cube=cube), num_cycles=1000)
        seed_test(lambda **kw: backgammon_v0.env(cube=cube, **kw), num_cycles=500)


def test_pettingzoo_render_test_and_registry():
    render_test(backgammon_v0.env)
    render_test(lambda **kw: backgammon_v0.env(cube=True, **kw))
    env = pettingzoo.make("aec", "boardgym/backgammon-v0", cube=True)
    env.reset(seed=0)
    assert env.action_space("player_0").n == 154


def test_opening_roll_is_not_a_double_and_decides_who_starts():
    """Opening: one die each, ties rolled again; the higher die starts with both dice."""
    starters = Counter()
    for seed in range(60):
        env = backgammon_v0.raw_env()
        env.reset(seed=seed)
        d1, d2 = env.infos["player_0"]["dice"]
        assert d1 > d2
        starters[env.agent_selection] += 1
    assert set(starters) == {"player_0", "player_1"}


def test_reset_from_position_id_and_dice():
    env = backgammon_v0.raw_env()
    env.reset(seed=0, options={"position_id": "4HPwATDgc/ABMA", "dice": [3, 1]})
    assert env.agent_selection == "player_0"
    assert env.infos["player_0"]["dice"] == (3, 1)
    # 8/5 6/5 is one legal play: its two checker moves are masked.
    mask = env.observe("player_0")["action_mask"]
    assert mask[encode_action(8, 3)] and mask[encode_action(6, 1)]
    env.step(encode_action(8, 3))
    assert env.agent_selection == "player_0"
    env.step(encode_action(6, 1))
    assert env.agent_selection == "player_1"
    with pytest.raises(ValueError, match="Position ID|position"):
        env.reset(options={"position_id": "not-an-id"})
    with pytest.raises(ValueError, match="dice"):
        env.reset(options={"dice": [0, 7]})


def test_pass_when_no_entry_is_reported_in_infos():
    """E.3/E.7: a checker on the bar facing a closed board loses its roll; infos report the pass."""
    # player on roll: 1 on the bar, opponent holds its whole home board (points 19-24 from our
    # side).
    mover = [0] * 25
    mover[24] = 1  # bar
    mover[5] = 14  # 14 on our 6-point
    opp = [0] * 25
    for p in range(6):
        opp[p] = 2  # opponent's own points 1..6 = our 24..19
    opp[12] = 3
    state = api.state_from_board([opp, mover])
    pid = api.position_id(state)
    env = backgammon_v0.raw_env()
    env.reset(seed=3, options={"position_id": pid, "dice": [6, 1]})
    assert env.agent_selection == "player_1"
    passes = env.infos["player_1"]["passes"]
    assert passes == [("player_0", (6, 1))]


def test_gammon_scoring_and_rewards():
    counts = Counter()
    for seed in range(12):
        env = backgammon_v0.raw_env(scoring="gammon")
        _random_game(env, seed)
        winner, kind, points = env.result
        assert points == kind and kind in (1, 2, 3)
        assert env.rewards[f"player_{winner}"] == points
        assert env.rewards[f"player_{1 - winner}"] == -points
        counts[kind] += 1
    assert counts[2] > 0  # random play gammons often
    single = backgammon_v0.raw_env(scoring="single")
    _random_game(single, 0)
    assert abs(single.rewards["player_0"]) == 1


def test_cube_double_take_drop():
    env = backgammon_v0.raw_env(cube=True)
    env.reset(seed=1, options={"position_id": "4HPwATDgc/ABMA"})
    mask = env.observe("player_0")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [ACTION_ROLL, ACTION_DOUBLE]
    env.step(ACTION_DOUBLE)
    assert env.agent_selection == "player_1"
    assert np.flatnonzero(env.observe("player_1")["action_mask"]).tolist() == [
        ACTION_TAKE,
        ACTION_DROP,
    ]
    assert env.observe("player_1")["observation"][-1] == 1.0
    env.step(ACTION_TAKE)
    assert env.state[B.CUBE_VALUE] == 2 and env.state[B.CUBE_OWNER] == 1
    assert env.agent_selection == "player_0" and env.infos["player_0"]["dice"] is not None
    # player_0 no longer owns the cube: at its next turn it may not double.
    while env.agent_selection == "player_0":
        env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))
    mask1 = env.observe("player_1")["action_mask"]
    assert mask1[ACTION_DOUBLE] == 1  # the owner may redouble
    env.step(ACTION_DOUBLE)
    env.step(ACTION_DROP)
    assert env.result == (1, 0, 2) and env.rewards == {"player_0": -2, "player_1": 2}
    text = env.match_text()
    assert "Doubles => 2" in text and "Takes" in text and "Drops" in text


def test_match_text_round_trip():
    env = backgammon_v0.raw_env(scoring="gammon")
    _random_game(env, 11)
    text = env.match_text()
    turns, state = read_match_text(text)
    assert api.position_id(state) == api.position_id(env.state)
    assert f"Wins {env.result[2]} point" in text


def test_bad_input():
    with pytest.raises(ValueError, match="scoring"):
        backgammon_v0.raw_env(scoring="double")
    with pytest.raises(TypeError, match="cube"):
        backgammon_v0.raw_env(cube="yes")
    for bad in (0, 2.5, "10", True):
        with pytest.raises((TypeError, ValueError), match="max_turns"):
            backgammon_v0.raw_env(max_turns=bad)
    env = backgammon_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="out of range"):
        env.step(150)
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal action"):
        env.step(illegal)


def test_render_modes_and_svg():
    env = backgammon_v0.raw_env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "BAR" in text and "pips: X 167  O 167" in text
    pic = backgammon_v0.raw_env(render_mode="rgb_array")
    pic.reset(seed=0)
    img = pic.render()
    assert img.dtype == np.uint8 and img.shape[2] == 3 and img.std() > 10
    assert to_svg(api.initial_state()).count("<circle") == 30 + 2  # the checkers, the legend


def test_observation_views_are_symmetric():
    env = backgammon_v0.raw_env()
    env.reset(seed=0, options={"position_id": "4HPwATDgc/ABMA", "dice": [3, 1]})
    o0 = env.observe("player_0")["observation"]
    o1 = env.observe("player_1")["observation"]
    assert np.array_equal(o0[:192], o1[:192])  # symmetric start: both see the same board
    assert o0[202] == 1 and o1[202] == 0


def test_gymnasium_check_env_and_play():
    env = gym.make("boardgym/Backgammon-v0", opponent="random", scoring="gammon")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    obs, info = env.reset(seed=2)
    total, done = 0.0, False
    while not done:
        mask = env.unwrapped.action_masks()
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(mask)[0]))
        total += r
        done = term or trunc
    assert total in (-3, -2, -1, 1, 2, 3)


def test_max_turns_truncates():
    env = backgammon_v0.raw_env(max_turns=10)
    _random_game(env, 0)
    assert env.truncations["player_0"] and not env.terminations["player_0"]
    assert len(env.turns) == 10


def test_match_text_needs_the_standard_start():
    env = backgammon_v0.raw_env()
    env.reset(seed=0, options={"position_id": "4HPwATDgc/ABMA", "dice": [3, 1]})
    env.match_text()  # the standard start given as an ID is fine
    env.reset(seed=0, options={"position_id": "jGfkASjg8wcBMA", "dice": [3, 1]})
    with pytest.raises(ValueError, match="standard start"):
        env.match_text()
