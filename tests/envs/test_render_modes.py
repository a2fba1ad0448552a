"""Render modes as Gymnasium sees them: gym.make and every gym.make_vec mode accept them; a
gym.make env shows as its board in a notebook."""

import json
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest

import boardgym.envs  # noqa: F401  (registers the ids)
from boardgym.envs import backgammon_render, draughts_render

IDS = {"boardgym/RussianDraughts-v0": draughts_render, "boardgym/Backgammon-v0": backgammon_render}


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("mode", ["rgb_array", "ansi"])
def test_make_accepts_the_modes_without_a_warning(env_id, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gym.make(env_id, render_mode=mode)
        env.reset(seed=1)
        frame = env.render()
    if mode == "rgb_array":
        assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    else:
        aec = env.unwrapped.aec
        assert frame == IDS[env_id].render_text(aec.state, last_move=aec.last_move())
    assert env.unwrapped._repr_svg_().startswith("<svg")


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("vectorization_mode", ["vector_entry_point", "sync"])
def test_make_vec_renders_one_frame_per_game(env_id, vectorization_mode):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vec = gym.make_vec(
            env_id, num_envs=2, vectorization_mode=vectorization_mode, render_mode="rgb_array"
        )
        vec.reset(seed=3)
        frames = vec.render()
    assert isinstance(frames, tuple) and len(frames) == 2
    assert all(f.dtype == np.uint8 and f.ndim == 3 for f in frames)
    vec.close()


@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_async_accepts_a_render_mode(env_id):
    vec = gym.make_vec(env_id, num_envs=2, vectorization_mode="async", render_mode="ansi")
    try:
        vec.reset(seed=3)
        frames = vec.render()
        assert len(frames) == 2 and all(isinstance(f, str) for f in frames)
    finally:
        vec.close()


def test_vector_env_text_and_human_modes(capsys):
    vec = gym.make_vec(
        "boardgym/RussianDraughts-v0",
        num_envs=2,
        vectorization_mode="vector_entry_point",
        render_mode="ansi",
    )
    vec.reset(seed=0)
    boards = vec.render()
    core = vec.unwrapped.core
    assert boards == tuple(
        draughts_render.render_text(s, last_move=core.last_move(i))
        for i, s in enumerate(core.states)
    )
    # game 0: the learner (White) opens, nothing marked; game 1: the opponent's first move
    assert "last move" not in boards[0] and "\nlast move: White " in boards[1]
    human = gym.make_vec(
        "boardgym/Backgammon-v0",
        num_envs=2,
        vectorization_mode="vector_entry_point",
        render_mode="human",
    )
    human.reset(seed=0)
    assert human.render() is None
    out = capsys.readouterr().out
    assert "game 0" in out and "game 1" in out and "BAR" in out


def test_vector_env_rejects_an_unknown_render_mode():
    with pytest.raises(ValueError, match="render_mode"):
        gym.make_vec(
            "boardgym/Backgammon-v0",
            num_envs=2,
            vectorization_mode="vector_entry_point",
            render_mode="3d",
        )


NOTEBOOK = """
import json
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()  # a running IPython, as in a notebook, before boardgym
import gymnasium as gym
import boardgym
shown = {}
for name, env in (
    ("draughts", gym.make("boardgym/RussianDraughts-v0")),
    ("backgammon", gym.make("boardgym/Backgammon-v0", max_episode_steps=50)),  # TimeLimit too
    ("cartpole", gym.make("CartPole-v1")),
):
    env.reset(seed=0)
    data, _ = shell.display_formatter.format(env)
    shown[name] = data.get("image/svg+xml", "")
    shown[name + "_same"] = shown[name] == getattr(env.unwrapped, "_repr_svg_", lambda: "")()
print(json.dumps(shown))
"""


def test_a_gym_make_env_shows_as_its_board_in_a_notebook():
    pytest.importorskip("IPython")
    done = subprocess.run(
        [sys.executable, "-c", NOTEBOOK], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown["draughts"].startswith("<svg") and shown["draughts_same"]
    assert "White: player_0" in shown["draughts"]
    assert shown["backgammon"].startswith("<svg") and shown["backgammon_same"]
    assert shown["cartpole"] == ""  # other envs' wrappers are left alone
