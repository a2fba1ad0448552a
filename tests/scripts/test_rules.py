"""`boardgym rules` (scripts/rules.py) and the rules document it reads (boardgym/rules.py)."""

import re
from pathlib import Path

import pytest

from boardgym import rules
from boardgym.scripts import cli
from boardgym.scripts import rules as rules_script

ROOT = Path(__file__).resolve().parents[2]


def test_every_clause_has_one_text_and_the_games_split_the_document():
    found = rules.clauses()
    assert {"M.1", "25.2", "25.7", "G.1", "G.2a", "G.2e", "B.5", "E.7", "O.3", "C.2"} <= set(found)
    assert "G.2e" in found["G.2"] and "Turkish strike" in found["25.2"]
    assert found["25.2"].startswith("- **25.2**") and "25.3" not in found["25.2"]
    draughts, backgammon = rules.game_text("draughts"), rules.game_text("backgammon")
    assert "**25.1**" in draughts and "**B.1**" not in draughts
    assert "**B.1**" in backgammon and "**25.1**" not in backgammon
    assert draughts.startswith("## Russian draughts") and backgammon.startswith("## Backgammon")


def test_every_clause_the_code_cites_is_in_the_document():
    """A clause cited as "RULES.md <n>" in the library or the tests exists (the document and the
    code cannot drift apart silently)."""
    cited = set()
    for layer in ("kernels", "envs", "agents", "tests"):
        for path in (ROOT / layer).rglob("*.py"):
            cited |= set(
                re.findall(r"RULES\.md[ ,:]+((?:[A-Z]\.)?\d+(?:\.\d+)?[a-z]?)\b", path.read_text())
            )
    assert cited, "no citations found: the pattern is stale"
    assert sorted(cited - set(rules.clauses())) == []


def test_unknown_clause_and_game_name_the_valid_ones():
    with pytest.raises(ValueError, match=r"no clause 'Z\.9'.*25\.2"):
        rules.clause("Z.9")
    with pytest.raises(ValueError, match="unknown game"):
        rules.game_text("chess")
    with pytest.raises(TypeError):
        rules.clause(25.2)


def test_command_prints_a_clause_a_game_and_the_list(capsys):
    assert "Turkish strike" in rules_script.main(["--clause", "25.2"])
    assert "**C.2**" in rules_script.main(["--game", "backgammon"])
    listed = rules_script.main(["--list"]).split()
    assert listed == list(rules.clauses())
    draughts = rules_script.main(["--list", "--game", "draughts"]).split()
    backgammon = rules.clauses("backgammon")
    assert (
        draughts == list(rules.clauses("draughts")) and "25.2" in draughts and "B.5" not in draughts
    )
    assert draughts + list(backgammon) == listed and "B.5" in backgammon
    assert rules_script.main([]) == rules.text()
    with pytest.raises(cli.UsageError, match="--clause"):
        rules_script.main(["--clause", "99.9"])


def test_command_takes_a_game_or_a_clause_as_its_argument(capsys):
    assert rules_script.main(["backgammon"]) == rules.game_text("backgammon")
    assert rules_script.main(["draughts"]) == rules.game_text("draughts")
    assert rules_script.main(["G.2"]) == rules.clause("G.2") and "G.2e" in rules.clause("G.2")
    with pytest.raises(cli.UsageError, match="'chess' is neither a game nor a clause"):
        rules_script.main(["chess"])
    with pytest.raises(cli.UsageError, match="once"):
        rules_script.main(["G.2", "--clause", "G.1"])
