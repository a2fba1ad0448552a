"""The one loader (agents/registry.py): names, games, specs and their option syntax, checkpoint
paths, the options an agent takes, the PPO policies' names (the policy itself:
tests/agents/training/test_ppo.py), and its callers in agents/ building the same agents."""

import re
import sys

import numpy as np
import pytest
from agent_state import agent_state  # tests/helpers

from boardgym.agents import RandomAgent, available, load
from boardgym.agents.registry import (
    CHECKPOINTS,
    load_spec,
    options,
    parse_option,
    parse_spec,
    parse_value,
    spec_game,
)

DR_NPZ = CHECKPOINTS / "draughts-alphabeta.npz"
BG_NPZ = CHECKPOINTS / "backgammon-td.npz"
PPO_PT = CHECKPOINTS / "draughts-ppo.pt"


def test_ppo_names_for_both_games():
    assert "draughts-ppo" in available() and "backgammon-ppo" in available()
    assert "ppo" in available("backgammon")


def test_ppo_without_a_file_names_the_file(tmp_path):
    missing = tmp_path / "nowhere" / "ppo.zip"
    for game in ("draughts", "backgammon"):
        with pytest.raises(ValueError, match=f"{game}-ppo: no policy file at {missing}"):
            load(f"{game}-ppo", path=missing)
    with pytest.raises(ValueError, match="is a draughts agent, not a backgammon one"):
        load("draughts-ppo", game="backgammon", path=CHECKPOINTS / "draughts-ppo.pt")


@pytest.mark.parametrize("missing", ["torch", "sb3_contrib"])
def test_ppo_without_its_extra_names_what_to_install(monkeypatch, missing):
    # a plain `pip install boardgym` has neither: the name loads nothing and says what to install
    monkeypatch.setitem(sys.modules, missing, None)  # `import missing` raises ImportError
    for game in ("draughts", "backgammon"):
        with pytest.raises(
            ValueError,
            match=rf"{game}-ppo needs torch and sb3-contrib: pip "
            r"install 'boardgym\[train\]'",
        ):
            load(f"{game}-ppo")


def test_both_games_ship_a_ppo_policy():
    pytest.importorskip("sb3_contrib")
    from boardgym.envs import backgammon_notation as notation

    assert (CHECKPOINTS / "backgammon-ppo.pt").is_file()
    agent = load("backgammon-ppo")
    assert agent.game == "backgammon"
    start = notation.position_id(notation.initial_state())
    assert agent.best_play(start, 3, 1) in notation.legal_plays(start, 3, 1)
    assert load("draughts-ppo").game == "draughts"


def test_ppo_policy_of_the_other_game_is_refused():
    pytest.importorskip("sb3_contrib")
    with pytest.raises(
        ValueError, match=r"draughts-ppo.pt is a draughts policy .* not a backgammon one"
    ):
        load("backgammon-ppo", path=CHECKPOINTS / "draughts-ppo.pt")
    agent = load("draughts-ppo", path=CHECKPOINTS / "draughts-ppo.pt")
    assert agent.game == "draughts"


def test_a_file_that_is_no_policy(tmp_path):
    pytest.importorskip("sb3_contrib")
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="bad.zip is not a MaskablePPO model"):
        load("backgammon-ppo", path=bad)


# ---- the one loader: specs, options, paths, games ---------------------------------------------
def test_option_values_have_one_syntax():
    assert [parse_value(t) for t in ("4", " 0.5", "None", "TRUE", "false", "'x'", "tesauro")] == [
        4,
        0.5,
        None,
        True,
        False,
        "x",
        "tesauro",
    ]
    assert parse_value("(1, 2)") == (1, 2) and parse_value("") == ""
    assert parse_option("tt-bits=12") == ("tt_bits", 12)
    assert parse_spec("alphabeta-material:depth=4,time_limit=0.5") == (
        "alphabeta-material",
        {"depth": 4, "time_limit": 0.5},
    )
    assert parse_spec("draughts-alphabeta:weights=w.npz") == (
        "draughts-alphabeta",
        {"weights": "w.npz"},
    )
    assert parse_spec(" random ") == ("random", {})
    assert parse_spec("greedy:use-tt=none, seed=3,") == ("greedy", {"use_tt": None, "seed": 3})
    with pytest.raises(ValueError, match=r"bad agent option 'depth' in 'greedy:depth': expected"):
        parse_spec("greedy:depth")
    with pytest.raises(ValueError, match="bad agent option '1x=2'"):
        parse_spec("greedy:1x=2")
    for bad in ("depth", "=3", "a b=1"):
        with pytest.raises(ValueError, match="expected key=value"):
            parse_option(bad)
    with pytest.raises(ValueError, match="agent spec must be a string"):
        parse_spec(3)


def test_an_unknown_option_names_the_valid_ones():
    with pytest.raises(
        ValueError,
        match=re.escape(
            "agent greedy takes no option 'depth' (its options: evaluation, resolve_captures, seed)"
        ),
    ):
        load("greedy", game="draughts", depth=3)
    with pytest.raises(ValueError, match=r"agent draughts-alphabeta takes no option 'evaluation'"):
        load("draughts-alphabeta", evaluation="material")  # a learned one is weights=PATH
    with pytest.raises(ValueError, match=r"takes no option 'speed' \(its options: .*depth"):
        load_spec("alphabeta-material:speed=2", "draughts")
    assert options("random") == ["seed"]
    assert {"weights", "depth", "time_limit", "tt_bits"} <= set(options("draughts-alphabeta"))
    assert "evaluation" not in options("draughts-alphabeta-material")
    # backgammon-td hands its other options to TDAgent: those count too
    assert {"plies", "budget", "hidden", "model", "seed"} <= set(options("td", "backgammon"))
    assert options("backgammon-ppo") == ["deterministic", "path", "seed"]
    with pytest.raises(ValueError, match="unknown backgammon agent 'nope'"):
        options("backgammon-nope")


def test_the_game_of_a_name_or_checkpoint_is_not_contradicted():
    cases = [
        ("draughts-greedy", "backgammon", "agent draughts-greedy is a draughts agent, not a "),
        ("backgammon-td", "draughts", "agent backgammon-td is a backgammon agent, not a draughts"),
        ("expectimax", "draughts", "agent expectimax is a backgammon agent, not a draughts one"),
        (str(DR_NPZ), "backgammon", "is a draughts checkpoint, not a backgammon agent"),
        (str(BG_NPZ), "draughts", "is a backgammon checkpoint, not a draughts agent"),
    ]
    for name, game, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            load(name, game=game)
        with pytest.raises(ValueError, match=re.escape(message)):
            load_spec(name + ":seed=1", game)
    with pytest.raises(ValueError, match=r"agent greedy needs a game: give game= one of"):
        load("greedy")
    with pytest.raises(
        ValueError,
        match=r"unknown draughts agent 'nonsense'; available for draughts: draughts-alphabeta, "
        r".*, or a checkpoint path \(.npz, .zip, .pt\)",
    ):
        load_spec("nonsense", "draughts")
    assert [spec_game(s) for s in ("draughts-greedy:depth=1", "backgammon-td", "greedy")] == [
        "draughts",
        "backgammon",
        None,
    ]
    assert spec_game(f"{DR_NPZ}:depth=2") == "draughts" and spec_game(str(BG_NPZ)) == "backgammon"
    assert load("random").__class__ is RandomAgent and load_spec("random:seed=2", "backgammon")


def test_checkpoint_paths_load_their_agents(tmp_path):
    from boardgym.agents.backgammon.agents import TDSearchAgent
    from boardgym.agents.draughts.agents import AlphaBetaAgent

    dr = load_spec(f"{DR_NPZ}:depth=2", seed=4)  # the game is the file's
    assert isinstance(dr, AlphaBetaAgent) and dr.depth == 2
    assert agent_state(dr) == agent_state(load("draughts-alphabeta", depth=2, seed=4))
    assert agent_state(load(DR_NPZ, game="draughts", depth=2, seed=4)) == agent_state(dr)
    bg = load_spec(str(BG_NPZ) + ":plies=0", "backgammon")
    assert isinstance(bg, TDSearchAgent) and bg.search_settings.plies == 0
    assert agent_state(bg) == agent_state(load("backgammon-td", weights=str(BG_NPZ), plies=0))
    with pytest.raises(ValueError, match="takes no option 'weights'"):
        load(str(DR_NPZ), weights=str(DR_NPZ))  # the path is the weights
    with pytest.raises(ValueError, match=r"agent .*nowhere.npz: no checkpoint file there"):
        load(str(tmp_path / "nowhere.npz"))
    with pytest.raises(ValueError, match=r"agent .*nowhere.pt: no policy file there"):
        load_spec(str(tmp_path / "nowhere.pt"), "draughts")
    np.savez(tmp_path / "other.npz", a=np.zeros(3))
    with pytest.raises(ValueError, match="neither a draughts evaluation nor a backgammon TD net"):
        load(str(tmp_path / "other.npz"))
    (tmp_path / "text.npz").write_text("not an archive")
    with pytest.raises(ValueError, match="cannot read it as an .npz checkpoint"):
        load(str(tmp_path / "text.npz"))


def test_a_policy_path_loads_a_ppo_agent():
    pytest.importorskip("sb3_contrib")
    agent = load_spec(f"{PPO_PT}:deterministic=false", "draughts", seed=3)  # takes no seed
    assert agent.game == "draughts" and agent.deterministic is False
    assert load(PPO_PT).game == "draughts"  # no game given: the policy's
    assert options(str(PPO_PT)) == ["deterministic", "device"]
    with pytest.raises(ValueError, match=r"draughts-ppo.pt is a draughts policy .* not a backgam"):
        load_spec(str(PPO_PT), "backgammon")


def test_spec_options_win_over_defaults_and_the_seed_goes_where_it_is_taken():
    a = load_spec("alphabeta-material:depth=3", "draughts", seed=7, depth=None, time_limit=0.5)
    assert (a.depth, a.time_limit) == (3, 0.5)
    assert agent_state(a) == agent_state(
        load("alphabeta-material", "draughts", depth=3, time_limit=0.5, seed=7)
    )
    own = load_spec("greedy:seed=3", "draughts", seed=7)
    assert agent_state(own) == agent_state(load("draughts-greedy", seed=3))
    assert agent_state(own) != agent_state(load("draughts-greedy", seed=7))
    # backgammon greedy takes a seed it does not use; expectimax has one too
    assert load_spec("expectimax:depth=1", "backgammon", seed=5).depth == 1
    with pytest.raises(ValueError, match="takes no option 'depth'"):
        load_spec("greedy", "draughts", seed=1, depth=3)  # a default is an option like the rest


def test_sessions_and_kickstart_load_through_the_registry():
    """The play/serve session and the kickstart teacher build the agent the registry builds
    (the commands' own: tests/scripts/test_evaluate_script.py, test_draughts_strength.py)."""
    from types import SimpleNamespace

    from boardgym.agents.arena import sessions
    from boardgym.agents.training import kickstart

    def cfg(game, agent, **kw):
        base = dict(depth=None, time_limit=None, agent_option=[], seed=9, cube=False)
        return SimpleNamespace(game=game, agent=agent, **{**base, **kw})

    got = sessions.load_agent(cfg("draughts", "alphabeta", depth=2, agent_option=["tt-bits=12"]))
    assert agent_state(got) == agent_state(load("draughts-alphabeta", depth=2, tt_bits=12, seed=9))
    got = sessions.load_agent(cfg("backgammon", str(BG_NPZ), agent_option=["plies=1"]))
    assert agent_state(got) == agent_state(load("backgammon-td", weights=str(BG_NPZ), plies=1))
    with pytest.raises(ValueError, match="--agent-option: expected key=value, got 'depth'"):
        sessions.load_agent(cfg("draughts", "greedy", agent_option=["depth"]))
    parsed = kickstart.parse_teacher("draughts", "draughts-alphabeta:depth=2")
    assert parsed == ("alphabeta", {"depth": 2})
    teacher = kickstart.make_teacher("draughts", parsed, seed=5)
    assert agent_state(teacher) == agent_state(load_spec("alphabeta:depth=2", "draughts", seed=5))
    with pytest.raises(ValueError, match=r"teacher 'greedy:x=1': agent greedy takes no option"):
        kickstart.parse_teacher("draughts", "greedy:x=1")


@pytest.mark.parametrize("game", ["draughts", "backgammon"])
def test_messages_list_the_full_names_the_readme_uses(game):
    """The names an error lists are exactly the full names available() gives for the game."""
    with pytest.raises(ValueError) as e:
        load_spec("nonsense", game)
    listed = re.search(rf"available for {game}: (.*), or a checkpoint", str(e.value))[1]
    names = listed.split(", ")
    assert set(names) == {n for n in available() if n.startswith(game + "-")} - {
        f"{game}-random"
    } | {"random"}
    other = "backgammon-td" if game == "draughts" else "draughts-alphabeta"
    with pytest.raises(ValueError, match=f"available for {game}: {re.escape(listed)}"):
        load_spec(other.split("-", 1)[1], game)
