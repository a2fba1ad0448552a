"""The vector envs' pictures mark each game's last move as the single env marks it: game i of
``gym.make_vec(..., vectorization_mode="vector_entry_point", render_mode=...)`` renders exactly
as the AEC env does after the same moves (the learner's actions, then the in-kernel opponent's
move as the core recorded it, played in the AEC env and checked to reach the core's position),
in ``ansi`` and ``rgb_array``; a game that has just restarted has no last move (or the
opponent's opening move); a restored snapshot has none; a core records moves only when asked
(``record_moves``, which a render_mode sets)."""

import warnings

import gymnasium as gym
import numpy as np
import pytest

import boardgym.envs  # noqa: F401  (registers the ids)
from boardgym.agents.backgammon.agents import GreedyAgent
from boardgym.envs import backgammon_render, backgammon_v0, russian_draughts_v0
from boardgym.envs import draughts as api
from boardgym.kernels.backgammon import game as bg
from boardgym.kernels.backgammon.board import TURN
from boardgym.kernels.draughts import game as dr
from boardgym.kernels.draughts.board import S_SIDE


def make_vec(env_id, mode, n=4, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (gymnasium's notes on vector entry points)
        return gym.make_vec(
            env_id, num_envs=n, vectorization_mode="vector_entry_point", render_mode=mode, **kwargs
        )


def assert_same_picture(vec, frames, i, env, mode):
    core = vec.unwrapped.core
    np.testing.assert_array_equal(core.states[i], env.state)
    assert core.last_move(i) == env.last_move()
    if mode == "ansi":
        assert frames[i] == env.render_text()
    else:
        np.testing.assert_array_equal(frames[i], env.render_rgb())


# ----------------------------------------------------------------------------- draughts
def draughts_opponent_moves(core, i, env):
    """The in-kernel opponent's move, as the core recorded it, played in the AEC env."""
    learner = f"player_{int(core.seats[i])}"
    if env.is_over or env.agent_selection == learner:
        return 0
    text = core.last_move(i)
    assert text is not None, "the opponent moved and the core recorded nothing"
    for a in api.move_to_actions(env.state, text):  # kernel frame -> the mover's frame
        env.step(int(dr.VIEW_ACTION[int(env.state[S_SIDE]), a]))
    assert env.agent_selection == learner
    return 1


@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
@pytest.mark.parametrize("opponent", ["random", "recapture"])
def test_draughts_vector_render_marks_the_last_move_as_the_single_env(mode, opponent):
    vec = make_vec("boardgym/RussianDraughts-v0", mode, opponent=opponent)
    core, rng = vec.unwrapped.core, np.random.default_rng(5)
    steps = 120 if mode == "ansi" else 25
    vec.reset(seed=11)
    envs = [russian_draughts_v0.raw_env() for _ in range(vec.num_envs)]
    opened = replies = restarts = captures = 0

    def restart(i):
        nonlocal opened
        envs[i].reset()
        if core.seats[i] == 0:  # the learner opens: nothing marked
            assert core.last_move(i) is None
        opened += draughts_opponent_moves(core, i, envs[i])

    for i in range(vec.num_envs):
        restart(i)
    frames = vec.render()
    for i in range(vec.num_envs):
        assert_same_picture(vec, frames, i, envs[i], mode)
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in core.masks])
        _, _, term, trunc, _ = vec.step(actions)
        frames = vec.render()
        for i, env in enumerate(envs):
            if term[i] or trunc[i]:  # the game restarted in the same step
                restart(i)
                restarts += 1
            else:
                env.step(int(actions[i]))
                replies += draughts_opponent_moves(core, i, env)
            assert_same_picture(vec, frames, i, env, mode)
            captures += ":" in (core.last_move(i) or "")
    assert opened >= 2 and replies >= (200 if mode == "ansi" else 40)
    if mode == "ansi":
        assert restarts >= 1 and captures >= 10
        assert any("last move: " in f for f in frames)


# ----------------------------------------------------------------------------- backgammon
def greedy_turn_in_env(env, agent, seat):
    """GreedyAgent (the in-kernel greedy player's choices, its route too) plays the seat other
    than the learner's in the AEC env until the learner acts or the game ends."""
    while not env.is_over and env.agent_selection != f"player_{seat}":
        env.step(agent.act_state(env.state))


@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
def test_backgammon_vector_render_marks_the_last_play_as_the_single_env(mode):
    """The greedy opponent draws nothing from the dice stream: game i seeded S + i in the AEC
    env rolls the same dice."""
    vec = make_vec("boardgym/Backgammon-v0", mode, n=3, opponent="greedy")
    core, rng, agent = vec.unwrapped.core, np.random.default_rng(2), GreedyAgent()
    steps = 300 if mode == "ansi" else 30
    vec.reset(seed=40)
    envs = [backgammon_v0.raw_env() for _ in range(vec.num_envs)]

    def restart(i, seed=None):  # a later game of a stream goes on with its dice
        envs[i].reset(seed=seed)
        greedy_turn_in_env(envs[i], agent, int(core.seats[i]))

    for i in range(vec.num_envs):
        restart(i, 40 + i)
    frames = vec.render()
    for i in range(vec.num_envs):
        assert_same_picture(vec, frames, i, envs[i], mode)
    marked = 0
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in core.masks])
        _, _, term, trunc, _ = vec.step(actions)
        frames = vec.render()
        for i, env in enumerate(envs):
            env.step(int(actions[i]))  # (the game's last rolls are drawn from its stream too)
            ended = term[i] or trunc[i]
            greedy_turn_in_env(env, agent, int(core.seats[i]) ^ int(ended))
            if term[i] or trunc[i]:
                assert env.is_over
                restart(i)
            assert_same_picture(vec, frames, i, env, mode)
            last = core.last_move(i)
            marked += last is not None and last["player"] != core.seats[i] and bool(last["moves"])
    assert marked >= (100 if mode == "ansi" else 10)


def _play_recorded(s, moves):
    """s after the recorded checker moves [(from, to, hit)], each found among the legal ones."""
    mask = np.zeros(bg.N_ACTIONS, np.int8)
    for move in moves:
        bg.legal_mask(s, False, False, mask)
        found = [
            int(a)
            for a in np.flatnonzero(mask)
            if tuple(int(x) for x in bg.move_of_action(s, int(a))[::3]) == (move[0], move[2])
            and int(bg.move_of_action(s, int(a))[1]) == move[1]
        ]
        assert found, f"recorded move {move} is not legal"
        s = bg.apply(s, found[0])
    return s


def test_backgammon_random_opponent_play_is_recorded_as_played():
    """The random opponent draws its moves from the dice stream, so no single env follows it:
    its recorded play, made from the position it rolled in (the learner's play done, the
    recorded dice), reaches the core's next position, and the picture marks it."""
    vec = make_vec("boardgym/Backgammon-v0", "ansi", n=4, opponent="random")
    core, rng = vec.unwrapped.core, np.random.default_rng(9)
    vec.reset(seed=3)
    checked = 0
    for _ in range(200):
        before, rolls = core.states.copy(), core.rolls.copy()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in core.masks])
        _, _, term, trunc, _ = vec.step(actions)
        frames = vec.render()
        for i in range(vec.num_envs):
            last, seat = core.last_move(i), int(core.seats[i])
            if term[i] or trunc[i] or last is None or last["player"] == seat:
                continue
            s = bg.apply(before[i], int(actions[i]))
            if s[TURN] == seat or not last["moves"] or core.rolls[i] - rolls[i] != 2:
                continue  # the learner's play goes on, a lost roll, or more than one reply
            s = _play_recorded(bg.set_roll(s, *last["dice"]), last["moves"])
            assert s[TURN] == seat
            np.testing.assert_array_equal(
                bg.set_roll(s, *bg.dice_of(core.states[i])), core.states[i]
            )
            assert frames[i] == backgammon_render.render_text(core.states[i], last_move=last)
            assert frames[i] != backgammon_render.render_text(core.states[i])  # marked
            checked += 1
    assert checked >= 100


# ----------------------------------------------------------------------------- restarts
@pytest.mark.parametrize("env_id", ["boardgym/RussianDraughts-v0", "boardgym/Backgammon-v0"])
def test_no_last_move_after_a_reset_or_a_restored_snapshot(env_id):
    vec = make_vec(env_id, "ansi", n=2, opponent="random")
    core = vec.unwrapped.core
    vec.reset(seed=1)
    snapshot = core.get_state()
    for _ in range(6):
        vec.step(core.random_actions())
    assert all(core.last_move(i) is not None for i in range(2))
    core.set_state(snapshot)
    assert all(core.last_move(i) is None for i in range(2))
    assert all("last move" not in board for board in vec.render())
    vec.reset(seed=1)
    learner_opens = [i for i in range(2) if core.seats[i] == 0]
    assert learner_opens and all(core.last_move(i) is None for i in learner_opens)
    with pytest.raises(ValueError, match="game index 2 outside 0..1"):
        core.last_move(2)
    with pytest.raises(TypeError, match="a game index is an integer"):
        core.last_move("0")


def test_moves_are_recorded_only_when_asked():
    from boardgym.envs.batch import BackgammonBatch, DraughtsBatch

    for cls in (DraughtsBatch, BackgammonBatch):
        core = cls(3, opponent="random")
        core.reset(seed=0)
        core.step(core.random_actions())
        assert core.last.shape == (3, 0) and not core.record_moves
        with pytest.raises(ValueError, match="records no moves: construct it with record_moves"):
            core.last_move(0)
        with pytest.raises(TypeError, match="record_moves must be True or False"):
            cls(2, record_moves="yes")
    vec = make_vec("boardgym/Backgammon-v0", None, n=2, opponent="random")
    assert not vec.unwrapped.core.record_moves
    assert make_vec("boardgym/Backgammon-v0", "ansi", n=2).unwrapped.core.record_moves
    with pytest.raises(ValueError, match="record_moves must be True"):
        make_vec("boardgym/RussianDraughts-v0", "ansi", n=2, record_moves=False)
