"""Match play in the backgammon envs: backgammon_v0(match_length=N) and the Gymnasium env
(boardgym/RULES.md MP.1-MP.8)."""

import random
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import boardgym  # noqa: F401
from boardgym.agents.backgammon.agents import (
    GreedyAgent,
    match_from_observation,
    state_from_observation,
)
from boardgym.agents.backgammon.game_loop import play_afterstate_match
from boardgym.envs import backgammon_ids as ids
from boardgym.envs import backgammon_v0
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import CUBE_LIMIT, CUBE_VALUE, TURN
from boardgym.kernels.backgammon.observe import MATCH_OBS_LEN, OBS_LEN


class Doubler(GreedyAgent):
    """Greedy checker play; doubles whenever it may while the cube is below up_to, always
    takes; records what set_match tells it."""

    def __init__(self, up_to=4):
        super().__init__()
        self.cube_policy = "doubler"  # not "cubeless": act() hands cube_action the position
        self.up_to = up_to
        self.told = []

    def set_match(self, length, score_me, score_opp, crawford, post_crawford):
        self.told.append((length, score_me, score_opp, crawford, post_crawford))

    def cube_action(self, state, offered, policy=None):
        if offered:
            return game.ACTION_TAKE
        return game.ACTION_DOUBLE if state[CUBE_VALUE] < self.up_to else game.ACTION_ROLL


def _random_match(env, seed, options=None, see=None):
    """Play env (raw) to the end of its episode with uniformly random actions; see(env, mask)
    is called before each action. Returns the summed rewards per agent."""
    env.reset(seed=seed, options=options)
    rng = random.Random(seed)
    total = dict.fromkeys(env.possible_agents, 0.0)
    while not env.is_over:
        mask = env.observe(env.agent_selection)["action_mask"]
        if see is not None:
            see(env, mask)
        env.step(rng.choice(np.flatnonzero(mask).tolist()))
        for a, r in env.rewards.items():
            total[a] += r
    return total


def _agents_match(env, seed, agents, options=None):
    """Play env (raw, a match) with two AfterstateAgents: checker moves by act_state, cube
    decisions by cube_action on the env's state (the doubler's, on roll), set_match told from
    the infos before each decision, as play_afterstate_match tells it before each game."""
    env.reset(seed=seed, options=options)
    while not env.is_over:
        me = env.possible_agents.index(env.agent_selection)
        info = env.infos[env.agent_selection]
        s = info["score"]
        agents[me].set_match(
            info["match_length"], s[me], s[1 - me], info["crawford"], info["post_crawford"]
        )
        mask = env.legal_mask()
        if mask[: game.N_ACTIONS].any():
            a = agents[me].act_state(env.state)
        else:
            a = agents[me].cube_action(env.state, bool(mask[game.ACTION_TAKE]))
        env.step(a)


@pytest.mark.parametrize("reward", ["match", "points"])
def test_pettingzoo_api_and_seed_tests_in_match_play(reward):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(backgammon_v0.env(match_length=3, match_reward=reward), num_cycles=1000)
        seed_test(
            lambda **kw: backgammon_v0.env(match_length=3, match_reward=reward, **kw),
            num_cycles=500,
        )


def test_gymnasium_check_env_and_a_match_against_greedy():
    env = gym.make("boardgym/Backgammon-v0", opponent="random", match_length=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    assert env.observation_space.shape == (OBS_LEN + MATCH_OBS_LEN,)
    # an act_state opponent: checker plays from the state, cube decisions from the observation
    opp = Doubler(up_to=2)
    env = gym.make("boardgym/Backgammon-v0", opponent=opp, match_length=3, learner="player_0")
    obs, info = env.reset(seed=4)
    rewards, done, games = [], False, set()
    while not done:
        mask = env.unwrapped.action_masks()
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(mask)[-1]))
        rewards.append(r)
        games.add(info["game"])
        done = term or trunc
    assert term and rewards[-1] in (-1.0, 1.0) and not any(rewards[:-1])
    assert max(info["score"]) == 3 and len(games) >= 2
    assert opp.told and opp.told[0] == (3, 0, 0, False, False)


def test_money_play_observations_and_spaces_stay_as_they_are():
    money = backgammon_v0.raw_env(cube=True, scoring="gammon")
    match = backgammon_v0.raw_env(match_length=5)
    assert money.observation_space("player_0")["observation"].shape == (OBS_LEN,)
    assert match.observation_space("player_0")["observation"].shape == (OBS_LEN + MATCH_OBS_LEN,)
    assert match.cube and match.scoring == "gammon" and match.action_space("player_0").n == 154
    money.reset(seed=9)
    match.reset(seed=9)
    a = money.agent_selection
    assert a == match.agent_selection
    o_money, o_match = money.observe(a)["observation"], match.observe(a)["observation"]
    assert np.array_equal(o_money, o_match[:OBS_LEN])
    assert "score" not in money.infos[a] and money.games == [] and money.match[0] == 0
    s_money, s_match = state_from_observation(o_money), state_from_observation(o_match)
    assert s_money[CUBE_LIMIT] == 2**15 and s_match[CUBE_LIMIT] == 64
    s_money[CUBE_LIMIT] = 64
    assert np.array_equal(s_money, s_match)


def test_observation_match_block_and_match_from_observation():
    env = backgammon_v0.raw_env(match_length=7)
    env.reset(seed=1, options={"score": (6, 2), "crawford": True})
    a = env.agent_selection
    me = env.possible_agents.index(a)
    obs = env.observe(a)["observation"]
    block = obs[OBS_LEN:]
    want_me, want_opp = (6, 2) if me == 0 else (2, 6)
    assert block.tolist() == pytest.approx(
        [(7 - want_me) / 7, (7 - want_opp) / 7, 7 / 64, 1.0, 0.0]
    )
    assert match_from_observation(obs) == (7, want_me, want_opp, True, False)
    other = env.observe(env.possible_agents[1 - me])["observation"]
    assert match_from_observation(other) == (7, want_opp, want_me, True, False)
    assert state_from_observation(obs)[CUBE_LIMIT] == 1  # the Crawford game
    assert match_from_observation(np.zeros(OBS_LEN, np.float32)) == (0, 0, 0, False, False)
    bad = obs.copy()
    bad[OBS_LEN + 3] = 0.5
    with pytest.raises(ValueError, match="match block"):
        match_from_observation(bad)
    bad = obs.copy()
    bad[OBS_LEN + 4] = 1.0  # Crawford and post-Crawford at once
    with pytest.raises(ValueError, match="observed match"):
        match_from_observation(bad)
    with pytest.raises(ValueError, match="float32"):
        match_from_observation(np.zeros(OBS_LEN + 1, np.float32))


@pytest.mark.parametrize("seed", [3, 6, 7])  # 6 or 7 games each, a Crawford game and after
def test_env_match_equals_play_afterstate_match_with_the_same_seed(seed):
    loop = play_afterstate_match(Doubler(2), Doubler(2), seed, 9)
    assert len(loop.games) >= 6 and any(loop.crawford) and not loop.crawford[-1]
    env = backgammon_v0.raw_env(match_length=9)
    _agents_match(env, seed, (Doubler(2), Doubler(2)))
    games = env.games
    assert [g["score"] for g in games] == loop.starts
    assert [g["crawford"] for g in games] == loop.crawford
    assert [g["points"] if g["winner"] == 0 else -g["points"] for g in games] == [
        g.points for g in loop.games
    ]
    assert [g["kind"] for g in games] == [g.kind for g in loop.games]
    final = env.match
    assert (int(final[game.M_SCORE]), int(final[game.M_SCORE + 1])) == loop.score
    assert int(final[game.M_WINNER]) == loop.winner
    assert sum(len(g["turns"]) for g in games) > 20 * len(games)


def test_env_match_equals_play_afterstate_match_from_a_score():
    loop = play_afterstate_match(Doubler(), Doubler(), 3, 7, score=(6, 4), crawford=True)
    env = backgammon_v0.raw_env(match_length=7)
    _agents_match(env, 3, (Doubler(), Doubler()), {"score": (6, 4), "crawford": True})
    assert [g["score"] for g in env.games] == loop.starts
    assert (
        [g["crawford"] for g in env.games]
        == loop.crawford
        == [True] + [False] * (len(loop.starts) - 1)
    )
    assert env.infos["player_0"]["score"] == loop.score


def test_no_double_in_the_crawford_game_and_the_cube_again_after():
    seen = {"crawford": 0, "post_double": 0}

    def see(env, mask):
        info = env.infos[env.agent_selection]
        if info["crawford"]:
            seen["crawford"] += 1
            assert not mask[game.ACTION_DOUBLE], "a double offered in the Crawford game"
            assert env.state[CUBE_LIMIT] == 1
        elif info["post_crawford"] and mask[game.ACTION_DOUBLE]:
            seen["post_double"] += 1

    for seed in range(6):
        env = backgammon_v0.raw_env(match_length=5)
        _random_match(env, seed, {"score": (4, 0), "crawford": True}, see)
        assert env.games[0]["crawford"] and all(not g["crawford"] for g in env.games[1:])
    assert seen["crawford"] > 100 and seen["post_double"] > 0


def test_the_cube_stops_at_64():
    high = []
    env = backgammon_v0.raw_env(match_length=64)
    for seed in range(3):
        _random_match(
            env,
            seed,
            see=lambda e, m: high.append((int(e.state[CUBE_VALUE]), m[game.ACTION_DOUBLE])),
        )
    assert max(v for v, _ in high) == 64
    assert not any(d for v, d in high if v == 64)


@pytest.mark.parametrize("length", [1, 3, 5])
def test_a_match_ends_at_n_with_reward_plus_minus_one(length):
    for seed in range(4):
        env = backgammon_v0.raw_env(match_length=length)
        total = _random_match(env, seed)
        m = env.match
        w = int(m[game.M_WINNER])
        assert w in (0, 1) and m[game.M_SCORE + w] == length and m[game.M_SCORE + 1 - w] < length
        assert total == {"player_0": 1.0 if w == 0 else -1.0, "player_1": -1.0 if w == 0 else 1.0}
        assert all(env.terminations.values()) and not any(env.truncations.values())
        assert env.infos["player_0"]["game"] == len(env.games) == int(m[game.M_GAME])
        # MP.2: each game's credit is its points capped at what the winner needed
        score = [0, 0]
        for g in env.games:
            assert tuple(score) == g["score"]
            assert g["credited"] == min(g["points"], length - score[g["winner"]])
            score[g["winner"]] += g["credited"]
        assert tuple(score) == env.infos["player_0"]["score"]


def test_points_reward_pays_each_game_as_it_ends():
    env = backgammon_v0.raw_env(match_length=9, match_reward="points")
    paid = []
    env.reset(seed=7)
    rng = random.Random(7)
    while not env.is_over:
        env.step(rng.choice(np.flatnonzero(env.legal_mask()).tolist()))
        if any(env.rewards.values()):
            info = env.infos["player_0"]
            paid.append((env.rewards["player_0"], info["finished_game"]))
            assert env.rewards["player_0"] == -env.rewards["player_1"]
        else:
            assert "finished_game" not in env.infos["player_0"]
    assert len(paid) == len(env.games) >= 2
    for (r, fin), g in zip(paid, env.games):
        assert fin["credited"] == g["credited"] and abs(r) == g["credited"]
        assert (r > 0) == (g["winner"] == 0)
    s = env.infos["player_0"]["score"]
    assert sum(r for r, _ in paid) == s[0] - s[1]


def test_the_env_starts_each_game_with_an_opening_roll():
    env = backgammon_v0.raw_env(match_length=7)
    _random_match(env, 2)
    assert len(env.games) >= 2
    start = ids.position_id(game.initial_state())
    for g in env.games:
        first = g["turns"][0]
        assert first["dice"][0] != first["dice"][1]  # the opening roll is never a double
        assert "cube" not in first
    assert env.start_position[0] == start


def test_reset_from_a_score_and_match_id():
    env = backgammon_v0.raw_env(match_length=7)
    env.reset(seed=3, options={"score": (2, 5)})
    info = env.infos["player_0"]
    assert info["score"] == (2, 5) and info["game"] == 1 and not info["crawford"]
    assert not info["post_crawford"]
    parsed = ids.parse_match_id(env.match_id())
    assert parsed["match_length"] == 7 and parsed["score"] == (2, 5) and not parsed["crawford"]
    env.reset(seed=3, options={"score": (6, 5), "crawford": True})
    assert env.infos["player_0"]["crawford"] and ids.parse_match_id(env.match_id())["crawford"]
    env.reset(seed=3, options={"score": (6, 5)})  # N - 1 without the flag: post-Crawford
    assert env.infos["player_1"]["post_crawford"] and env.state[CUBE_LIMIT] == 64
    env.reset(seed=3)  # a reset without a score starts at 0-0
    assert env.infos["player_0"]["score"] == (0, 0) and env.games == []
    assert "match to 7, score 0-0" in env.render_text()


def test_reset_position_and_dice_start_the_first_game_only():
    env = backgammon_v0.raw_env(match_length=3)
    env.reset(seed=0, options={"dice": [3, 1], "score": (1, 2)})
    assert env.agent_selection == "player_0" and env.infos["player_0"]["dice"] == (3, 1)
    assert int(env.state[TURN]) == 0 and env.state[CUBE_LIMIT] == 64


@pytest.mark.parametrize(
    "kwargs, err, text",
    [
        ({"match_length": 2.0}, TypeError, "match_length"),
        ({"match_length": "7"}, TypeError, "match_length"),
        ({"match_length": True}, TypeError, "match_length"),
        ({"match_length": -1}, ValueError, "match_length"),
        ({"match_length": 65}, ValueError, "match_length"),
        ({"match_length": 5, "cube": False}, ValueError, "cube"),
        ({"match_length": 5, "scoring": "single"}, ValueError, "gammon"),
        ({"match_length": 5, "match_reward": "money"}, ValueError, "match_reward"),
        ({"match_length": 5, "cube": 1}, TypeError, "cube"),
    ],
)
def test_bad_constructor_options(kwargs, err, text):
    with pytest.raises(err, match=text):
        backgammon_v0.raw_env(**kwargs)


@pytest.mark.parametrize(
    "options, err, text",
    [
        ({"score": (5, 0)}, ValueError, "score 5"),
        ({"score": (0, 7)}, ValueError, "score 7"),
        ({"score": (-1, 0)}, ValueError, "score -1"),
        ({"score": (3, 2), "crawford": True}, ValueError, "Crawford"),
        ({"score": (4, 4), "crawford": True}, ValueError, "Crawford"),
        ({"score": (1, 1.5)}, TypeError, "score"),
        ({"score": 3}, TypeError, "score"),
        ({"score": (4, 0), "crawford": 1}, TypeError, "crawford"),
    ],
)
def test_bad_reset_options(options, err, text):
    env = backgammon_v0.raw_env(match_length=5)
    with pytest.raises(err, match=text):
        env.reset(seed=0, options=options)


def test_a_score_in_money_play_is_an_error():
    env = backgammon_v0.raw_env(cube=True)
    with pytest.raises(ValueError, match="money play"):
        env.reset(options={"score": (1, 0)})
    with pytest.raises(ValueError, match="money play"):
        env.reset(options={"crawford": True})


def test_a_truncated_game_truncates_the_match():
    env = backgammon_v0.raw_env(match_length=5, max_turns=8)
    total = _random_match(env, 1)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert total == {"player_0": 0.0, "player_1": 0.0}
    assert env.games[-1]["winner"] is None and env.games[-1]["points"] is None
    assert env.infos["player_0"]["game"] == len(env.games) == 1


def test_agents_act_on_match_observations_and_are_told_the_score():
    from boardgym.agents.backgammon.agents import TDAgent

    agents = (Doubler(up_to=8), TDAgent(cube="janowski"))
    env = backgammon_v0.env(match_length=3)
    env.reset(seed=8, options={"score": (1, 0)})
    offered = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        offered += int(obs["action_mask"][game.ACTION_TAKE])
        env.step(agents[env.possible_agents.index(agent)].act(obs, obs["action_mask"]))
    told = agents[0].told
    assert told[0] == (3, 1, 0, False, False)
    assert all(t[0] == 3 for t in told) and len(told) == len(set(told))  # once per change
    assert offered > 0
    m = env.unwrapped.match
    assert max(m[game.M_SCORE], m[game.M_SCORE + 1]) == 3


def test_a_match_cannot_start_from_a_finished_game():
    from boardgym.envs.backgammon_notation import state_from_board

    pid = ids.position_id(state_from_board([[0] * 25, [1] + [0] * 24]))
    env = backgammon_v0.raw_env(match_length=3)
    with pytest.raises(ValueError, match="the game is over"):
        env.reset(options={"position_id": pid})


@pytest.mark.parametrize("seed", [2, 5])
def test_match_text_writes_the_whole_match_and_reads_back(seed):
    from boardgym.envs.backgammon_match import read_match

    env = backgammon_v0.raw_env(match_length=5)
    texts = []
    _random_match(
        env,
        seed,
        see=lambda e, mask: (
            texts.append(e.match_text()) if len(texts) < 1 and len(e.games) == 1 else None
        ),
    )
    done = read_match(env.match_text())
    assert done["match_length"] == 5
    assert [g["score"] for g in done["games"]] == [list(g["score"]) for g in env.games]
    assert [g["winner"] for g in done["games"]] == [g["winner"] for g in env.games]
    m = env.match
    final = [int(m[game.M_SCORE]), int(m[game.M_SCORE + 1])]
    last = done["games"][-1]
    assert max(final) == 5
    need = 5 - last["score"][last["winner"]]
    assert last["score"][last["winner"]] + min(last["points"], need) == 5
    if texts:  # mid-match: the finished game and the one in play, unfinished
        mid = read_match(texts[0])
        assert len(mid["games"]) == 2 and mid["games"][1]["winner"] is None
