"""Batched backgammon with the doubling cube and in match play: the batch equals the single env
game for game, the masks obey the cube rules, the opponents' cube answers, the vector env."""

import gymnasium as gym
import numpy as np
import pytest
from _batch_equality import assert_game_matches, play_in_lockstep

import boardgym  # noqa: F401
from boardgym.agents.backgammon.agents import GreedyAgent
from boardgym.envs import backgammon_v0
from boardgym.envs.batch import BackgammonBatch
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import CUBE_LIMIT, CUBE_OWNER, CUBE_VALUE, DICE, TURN

CUBE_ACTIONS = slice(game.N_ACTIONS, game.N_ACTIONS_CUBE)


@pytest.mark.parametrize(
    "options",
    [
        {"cube": True},
        {"cube": True, "scoring": "gammon", "max_turns": 60},
        {"match_length": 3},
        {"match_length": 7, "match_reward": "points"},
        {"match_length": 7, "max_turns": 90},
    ],
)
def test_batch_equals_single_env_with_the_cube_and_in_match_play(options):
    """Game i of a batch seeded S is backgammon_v0 (same options) seeded S + i: random legal
    actions, cube actions included, give the same observations, masks, rewards and ends, across
    game ends inside a match and restarts."""
    n, rng = 4, np.random.default_rng(3)
    core = BackgammonBatch(n, record_moves=True, **options)
    core.reset(seed=20)
    singles = [backgammon_v0.raw_env(**options) for _ in range(n)]
    for i, env in enumerate(singles):
        env.reset(seed=20 + i)
        assert_game_matches(core, i, env)
    games_before = [0] * n

    def after_reset(i):
        games_before[i] = 0

    resets = play_in_lockstep(core, singles, 1500, rng, after_reset)
    assert resets >= 4
    if options.get("match_length"):
        for i, env in enumerate(singles):
            m = env.match
            assert core.matches[i].tolist() == m.tolist()
            assert core.score[i].tolist() == m[game.M_SCORE : game.M_SCORE + 2].tolist()


def _greedy_turn_in_env(env, agent):
    """GreedyAgent (its default "cubeless" cube: roll, take) plays player_1 in the AEC env."""
    while not env.is_over and env.agent_selection == "player_1":
        mask = env.legal_mask()
        if mask[: game.N_ACTIONS].any():
            env.step(agent.act_state(env.state))
        else:
            env.step(agent.cube_action(None, bool(mask[game.ACTION_TAKE])))


@pytest.mark.parametrize("match_reward", ["match", "points"])
def test_batch_greedy_opponent_equals_greedy_agent_in_a_match(match_reward):
    """BackgammonBatch(opponent="greedy", match_length=5) game i == backgammon_v0 seeded S + i
    with GreedyAgent (cubeless cube answers) playing player_1."""
    n, rng = 3, np.random.default_rng(8)
    opts = {"match_length": 5, "match_reward": match_reward}
    core = BackgammonBatch(n, opponent="greedy", learner="player_0", record_moves=True, **opts)
    core.reset(seed=50)
    envs = [backgammon_v0.raw_env(**opts) for _ in range(n)]
    agent = GreedyAgent()
    for i, env in enumerate(envs):
        env.reset(seed=50 + i)
        _greedy_turn_in_env(env, agent)
    finished = 0
    for _ in range(1500):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in core.masks])
        core.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            _greedy_turn_in_env(env, agent)
            np.testing.assert_array_equal(core.obs[i], env.observe("player_0")["observation"])
            np.testing.assert_array_equal(core.masks[i], env.observe("player_0")["action_mask"])
            # the learner's reward since its last action (the opponent may have ended a game)
            assert core.rewards[i, 0] == env.cumulative_rewards["player_0"]
            assert core.rewards[i, 1] == -core.rewards[i, 0]
            assert bool(core.done[i, 0]) == env.terminations["player_0"]
            assert bool(core.done[i, 1]) == env.truncations["player_0"]
            assert core.matches[i].tolist() == env.match.tolist()
            assert core.last_move(i) == env.last_move()  # the greedy play's route too
        for i in core.reset_done():
            finished += 1
            envs[i].reset()
            _greedy_turn_in_env(envs[i], agent)
    assert finished >= 3


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_in_kernel_opponents_never_double_and_always_take(opponent):
    """The learner never faces a double; each of its doubles is taken (the game goes on with
    the cube doubled and owned by the opponent)."""
    core = BackgammonBatch(16, opponent=opponent, match_length=7)
    core.reset(seed=4)
    rng = np.random.default_rng(0)
    doubles = 0
    for _ in range(1500):
        assert not core.masks[:, game.ACTION_TAKE].any()
        assert (core.current == core.seats).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in core.masks])
        doubling = np.flatnonzero(actions == game.ACTION_DOUBLE)
        value = core.states[doubling, CUBE_VALUE].copy()
        games = core.matches[doubling, game.M_GAME].copy()
        core.step(actions)
        same = core.matches[doubling, game.M_GAME] == games  # not credited: nobody dropped
        assert same.all()
        s = core.states[doubling]
        assert (s[:, CUBE_VALUE] == 2 * value).all()
        assert (s[:, CUBE_OWNER] == 1 - core.seats[doubling]).all()
        doubles += doubling.size
        core.reset_done()
    assert doubles > 50


def test_masks_forbid_doubling_in_the_crawford_game_and_past_the_cube_limit():
    """Cube actions are offered exactly where cube.may_double allows them: never in the Crawford
    game (CUBE_LIMIT 1), never at a cube of 64 in a match; and both Crawford and post-Crawford
    games are reached."""
    core = BackgammonBatch(32, match_length=3)
    core.reset(seed=9)
    rng = np.random.default_rng(1)
    seen_crawford = seen_post = 0
    for _ in range(1500):
        s = core.states
        limit = s[:, CUBE_LIMIT]
        cube_marked = core.masks[:, CUBE_ACTIONS].any(1)
        crawford = core.matches[:, game.M_CRAWFORD] == 1
        assert ((limit == 1) == crawford).all()
        assert not cube_marked[crawford].any()
        assert (limit[~crawford] == game.MATCH_CUBE_LIMIT).all()
        assert (
            s[cube_marked & (core.offered == 0), CUBE_VALUE]
            < limit[cube_marked & (core.offered == 0)]
        ).all()
        seen_crawford += int(crawford.sum())
        seen_post += int((core.matches[:, game.M_POST] == 1).sum())
        owner = s[:, CUBE_OWNER]
        may = (
            (core.offered == 0)
            & (s[:, DICE : DICE + 6].sum(1) == 0)
            & ((owner == -1) | (owner == s[:, TURN]))
            & (s[:, CUBE_VALUE] < limit)
            & ~core.done.any(1).astype(bool)
        )
        assert (core.masks[:, game.ACTION_DOUBLE].astype(bool) == may).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in core.masks])
        core.step(actions)
        core.reset_done()
    assert seen_crawford > 0 and seen_post > 0


def test_paired_reset_in_match_play_gives_each_match_from_both_seats():
    core = BackgammonBatch(8, match_length=5)
    core.reset(seed=3, paired=True)
    np.testing.assert_array_equal(core.states[0::2], core.states[1::2])
    np.testing.assert_array_equal(core.rngs[0::2], core.rngs[1::2])
    assert (core.seats[0::2] != core.seats[1::2]).all()
    np.testing.assert_array_equal(core.matches[0::2], core.matches[1::2])


def test_snapshot_round_trip_in_match_play():
    core = BackgammonBatch(6, opponent="random", match_length=5)
    core.reset(seed=2)
    for _ in range(200):
        core.step(core.random_actions())
        core.reset_done()
    snap = core.get_state()
    want = core.get_state()
    for _ in range(50):
        core.step(core.random_actions())
        core.reset_done()
    core.set_state(snap)
    for k, v in want.items():
        if k != "core":
            np.testing.assert_array_equal(getattr(core, k), v)
    bad = core.get_state()
    bad["matches"][2, game.M_SCORE] = 9
    with pytest.raises(ValueError, match=r"matches\[2\]"):
        core.set_state(bad)
    bad = core.get_state()
    bad["offered"][1] = 2
    with pytest.raises(ValueError, match="offered"):
        core.set_state(bad)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"match_length": 65}, ValueError, "match_length"),
        ({"match_length": -1}, ValueError, "match_length"),
        ({"match_length": 2.5}, TypeError, "match_length"),
        ({"match_length": "7"}, TypeError, "match_length"),
        ({"cube": 1}, TypeError, "cube"),
        ({"cube": "yes"}, TypeError, "cube"),
        ({"match_length": 7, "cube": False}, ValueError, "cube"),
        ({"match_length": 7, "scoring": "single"}, ValueError, "gammons"),
        ({"match_reward": "pts"}, ValueError, "match_reward"),
        ({"match_reward": None}, ValueError, "match_reward"),
    ],
)
def test_bad_options_name_the_option(kwargs, error, message):
    with pytest.raises(error, match=message):
        BackgammonBatch(2, **kwargs)
    with pytest.raises(error, match=message):
        gym.make_vec(
            "boardgym/Backgammon-v0", num_envs=2, vectorization_mode="vector_entry_point", **kwargs
        )


def test_make_vec_match_play():
    envs = gym.make_vec(
        "boardgym/Backgammon-v0",
        num_envs=8,
        vectorization_mode="vector_entry_point",
        match_length=7,
        opponent="random",
    )
    assert envs.single_observation_space.shape == (212,)
    assert envs.single_action_space.n == game.N_ACTIONS_CUBE
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (8, 212) and infos["action_mask"].shape == (8, 154)
    assert infos["score"].tolist() == [[0, 0]] * 8
    ended, rewards = 0, []
    rng = np.random.default_rng(0)
    for _ in range(3000):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        obs, rew, term, trunc, infos = envs.step(actions)
        assert obs in envs.observation_space
        assert infos["score"].shape == (8, 2) and (infos["score"] < 7).all()
        if term.any():
            ended += int(term.sum())
            rewards += rew[term].tolist()
            assert (infos["final_score"][term].max(1) == 7).all()
        assert (rew[~term] == 0).all()
    assert ended > 3 and set(rewards) <= {-1.0, 1.0}


def test_vector_env_with_a_policy_opponent_in_match_play():
    """A callable opponent answers the cube itself (here: the first legal action, so it doubles
    whenever it may and takes); the final scores of the ended matches are in the infos."""
    from boardgym.envs.vector import BackgammonVectorEnv

    def first_legal(obs, masks):
        return masks.argmax(axis=1)

    envs = BackgammonVectorEnv(num_envs=6, opponent=first_legal, match_length=3)
    obs, infos = envs.reset(seed=1)
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(1500):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        obs, rew, term, trunc, infos = envs.step(actions)
        if term.any():
            ended += int(term.sum())
            assert (infos["final_score"][term].max(1) == 3).all()
            assert set(rew[term].tolist()) <= {-1.0, 1.0}
    assert ended > 0


def test_sb3_vec_env_in_match_play():
    pytest.importorskip("stable_baselines3")
    from boardgym.envs.vector import make_sb3_vec_env

    venv = make_sb3_vec_env("backgammon", num_envs=4, opponent="greedy", match_length=3)
    obs = venv.reset()
    assert obs.shape == (4, 212) and venv.action_space.n == game.N_ACTIONS_CUBE
    for _ in range(50):
        masks = np.stack(venv.env_method("action_masks"))
        venv.step(masks.argmax(axis=1))
