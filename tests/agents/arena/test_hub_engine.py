"""agents/arena/hub_engine.py: a Hub engine in another process as a draughts agent (our own
``boardgym hub`` and a scripted fake engine for the errors)."""

import sys

import numpy as np
import pytest

from boardgym.agents.arena import hub_engine, matches
from boardgym.agents.arena.hub_engine import HubEngine
from boardgym.agents.registry import load
from boardgym.envs import draughts as api
from boardgym.envs import draughts_hub
from boardgym.kernels.draughts import game

HUB = [sys.executable, "-m", "boardgym.scripts.hub"]

FAKE = r"""
import sys
answer = sys.argv[1]
for text in sys.stdin:
    w = text.split()
    if not w:
        continue
    if w[0] == "hub":
        print("id name=fake", flush=True)
        print("wait", flush=True)
    elif w[0] == "set-param" and "refused" in text:
        print('error message="unknown parameter refused"', flush=True)
    elif w[0] == "ping":
        print("pong", flush=True)
    elif w[0] == "init":
        print("ready", flush=True)
    elif w[0] == "go":
        if answer == "exit":
            sys.exit(0)
        if answer != "silent":
            print(answer, flush=True)
    elif w[0] == "quit":
        break
"""


def fake(answer):
    return [sys.executable, "-c", FAKE, answer]


@pytest.fixture(scope="module")
def engine():
    with HubEngine(HUB, depth=2, params={"threads": 1, "tt-size": 1}) as e:
        yield e


def test_plays_a_legal_move_and_names_itself(engine):
    fen = "W:W21-32:B1-12"
    assert engine.best_move(fen) in api.legal_moves(fen)
    assert engine.name.startswith("boardgym")
    info = engine.last_info
    assert isinstance(info["depth"], int) and info["depth"] >= 1 and info["nodes"] > 0
    assert isinstance(info["score"], float) and info["time"] > 0


def test_a_game_sends_the_whole_record(engine):
    """Each pos the engine gets is the first position it saw and every whole move since (its
    own and the opponent's, recovered from the positions): replayed, they give the position it
    is asked about."""
    sent = []
    send = engine._send

    def spy(text):
        sent.append(text)
        send(text)

    engine._send = spy
    try:
        env = matches.make_env("draughts", 40)
        result = matches.play_game(env, (engine, load("draughts-greedy", seed=1)), seed=3)
    finally:
        del engine._send
    assert result in (-1.0, 0.0, 1.0)
    pos_lines = [draughts_hub.parse_line(t)[1] for t in sent if t.startswith("pos ")]
    assert len(pos_lines) >= 10
    first, last = pos_lines[0], pos_lines[-1]
    assert last["pos"] == first["pos"] == draughts_hub.position_to_hub(api.initial_state())
    moves = last["moves"].split()
    assert len(moves) == 2 * (len(pos_lines) - 1)  # both sides' moves since the first position
    assert engine._moves == moves + engine._moves[-1:]  # then its own answer
    state = draughts_hub.position_from_hub(last["pos"])
    for text in engine._moves:
        state = game.play_move(state, draughts_hub.move_from_hub(state, text))
    assert draughts_hub.position_to_hub(state) == draughts_hub.position_to_hub(engine._after)


def test_a_position_that_does_not_follow_starts_a_new_record(engine):
    engine.reset()
    engine.best_move("W:W21-32:B1-12")
    assert len(engine._moves) == 1
    engine.best_move("W:WK5,28:B12,20")  # not reachable from the first: a new record
    assert len(engine._moves) == 1
    assert np.array_equal(engine._start, api.from_fen("W:WK5,28:B12,20"))


@pytest.mark.parametrize(
    "spec, message",
    [
        ("hub:threads=1", "give the engine's command"),
        ("hub:command=''", "give the engine's command"),
        ("draughts-alphabeta", "not a Hub engine spec"),
        ("hub:command='no-such-engine-here'", "cannot start"),
    ],
)
def test_bad_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        hub_engine.from_spec(spec, time_limit=0.1)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(time_limit=0.1, depth=3), "one of time_limit"),
        (dict(time_limit=-1.0), "time_limit must be a positive"),
        (dict(depth=0), "depth must be a positive"),
        (dict(depth=2.5), "depth must be a positive"),
    ],
)
def test_bad_levels(kwargs, message):
    with pytest.raises(ValueError, match=message):
        HubEngine(fake("done move=22-17"), **kwargs)


def test_a_refused_parameter_is_named():
    with pytest.raises(ValueError, match="unknown parameter refused"):
        HubEngine(fake("done move=22-17"), params={"refused": 1})


def test_an_illegal_answer_is_refused():
    with HubEngine(fake("done move=1-2"), time_limit=0.01) as e:
        with pytest.raises(ValueError, match="played '1-2'"):
            e.best_move("W:W21-32:B1-12")
    with HubEngine(fake("done move=22-17"), time_limit=0.01) as e:  # a legal one is played
        assert e.best_move("W:W21-32:B1-12") == "c3-b4"  # 22-17


def test_an_engine_that_exits_or_goes_silent(monkeypatch):
    with HubEngine(fake("exit"), time_limit=0.01) as e:
        with pytest.raises(ValueError, match="exited"):
            e.best_move("W:W21-32:B1-12")
    monkeypatch.setattr(hub_engine, "MOVE_GRACE", 0.5)
    with HubEngine(fake("silent"), time_limit=0.01) as e:
        with pytest.raises(TimeoutError, match="no 'done'"):
            e.best_move("W:W21-32:B1-12")


def test_close_ends_the_process():
    e = HubEngine(fake("done move=22-17"), time_limit=0.01)
    e.close()
    assert e._proc.poll() is not None
    e.close()  # twice is harmless
