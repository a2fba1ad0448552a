"""load(): names, games, and the PPO policies' paths (the loading itself: tests/agents/training/test_ppo.py)."""

import sys

import pytest

from boardgym.agents import available, load
from boardgym.agents.registry import CHECKPOINTS


def test_ppo_names_for_both_games():
    assert "draughts-ppo" in available() and "backgammon-ppo" in available()
    assert "ppo" in available("backgammon")


def test_ppo_without_a_file_names_the_file(tmp_path):
    missing = tmp_path / "nowhere" / "ppo.zip"
    for game in ("draughts", "backgammon"):
        with pytest.raises(ValueError, match=f"{game}-ppo: no policy file at {missing}"):
            load(f"{game}-ppo", path=missing)
    with pytest.raises(ValueError, match="is for draughts, not backgammon"):
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
