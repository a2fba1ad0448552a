"""scripts/draughts_strength.py: the tactics proof (move scores) and a smoke run of every part
with a tiny budget."""

import sys

import numpy as np
import pytest

from boardgym.envs import draughts as api
from boardgym.scripts import cli
from boardgym.scripts import draughts_strength as ds


def test_move_scores_find_the_only_winning_capture():
    from boardgym.agents.draughts.agents import AlphaBetaAgent

    # RULES.md 25.2: c3:a5 takes one man, c3:e5:g7 two
    scores = ds.move_scores(
        AlphaBetaAgent(depth=2, seed=0), api.from_fen("W:W22,28:B4,11,17,18"), 2
    )
    assert [m for m, _ in scores][0] == "c3:e5:g7"


def test_every_part_runs_with_a_tiny_budget(tmp_path, capsys):
    tac = tmp_path / "t.tsv"
    tac.write_text("# a comment\nW:W15,28:B4,18\te5:c3\tdepth 2\n")  # the only move (25.2)
    out = ds.main(
        [
            "--positions",
            "2",
            "--budgets",
            "0.02",
            "--pairs",
            "1",
            "--time",
            "0.01",
            "--max-moves",
            "20",
            "--tactics-time",
            "0.02",
            "--tactics-file",
            str(tac),
        ]
    )
    assert set(out) == set(ds.PARTS)
    assert out["tactics"] == (1, 1)
    assert out["previous"]["games"] == 2 and out["material"]["games"] == 2
    assert out["timing"][0.02]["n"] == 2 and 0 <= out["timing"][0.02]["decided"] <= 2
    text = capsys.readouterr().out
    assert "Elo" in text and "tactics: 1/1" in text and "timing 0.02 s" in text


@pytest.mark.parametrize(
    "args",
    [
        ["--parts", "speed"],
        ["--time", "0"],
        ["--pairs", "0"],
        ["--budgets", "-1"],
        ["--tactics-depth", "1"],
        ["--tactics-shallow", "0"],
        ["--tactics-depth", "8", "--tactics-shallow", "8"],
    ],
)
def test_bad_settings(args):
    with pytest.raises(cli.UsageError):
        ds.main(args)


def test_a_match_reports_its_progress_every_20_games(capsys):
    """A long match prints a running tally every 10 ballots (20 games), not at the end only."""
    out = ds.main(
        [
            "--parts",
            "previous",
            "--pairs",
            "11",
            "--time",
            "0.005",
            "--max-moves",
            "10",
            "--current",
            "draughts-alphabeta:threads=1",
            "--previous",
            "draughts-alphabeta:threads=1",
        ]
    )
    assert out["previous"]["games"] == 22
    text = capsys.readouterr().out
    assert "  20/22 games: +" in text
    assert "22/22 games" not in text  # the last tally is the summary line itself
    points = np.array([1.0, 0.0, -1.0, 0.0])
    assert ds._progress_line(points, 40, 3.2) == "  4/40 games: +1 =2 -1, score 50.0% (3 s)"


def test_the_material_opponent_is_a_spec(capsys, monkeypatch):
    """--material names the material engine with its options (e.g. one thread, to match a
    one-thread --current); the default is draughts-alphabeta-material with its defaults."""
    made = []
    real = ds.make_agent

    def spy(spec, time_limit, seed):
        made.append((spec, time_limit))
        return real(spec, time_limit, seed)

    monkeypatch.setattr(ds, "make_agent", spy)
    out = ds.main(
        [
            "--parts",
            "material",
            "--pairs",
            "1",
            "--time",
            "0.005",
            "--max-moves",
            "10",
            "--current",
            "draughts-alphabeta:threads=1",
            "--material",
            "draughts-alphabeta-material:threads=1",
        ]
    )
    assert out["material"]["games"] == 2
    assert made == [
        ("draughts-alphabeta:threads=1", 0.005),
        ("draughts-alphabeta-material:threads=1", 0.02),
    ]
    assert "vs draughts-alphabeta-material:threads=1 at 0.02 s" in capsys.readouterr().out
    assert ds.Settings().material == "draughts-alphabeta-material"


def test_a_hub_engine_plays_a_match(capsys, monkeypatch):
    """--previous hub:command=...: the previous version is an engine in another process (our
    own boardgym hub here), its parameters from the spec, closed when the match ends."""
    from boardgym.agents.arena import hub_engine

    spec = f"hub:command='{sys.executable} -m boardgym.scripts.hub',threads=1,tt_size=1"
    assert hub_engine.is_spec(spec) and not hub_engine.is_spec("draughts-alphabeta")
    engine = ds.make_agent(spec, 0.02, seed=0)
    try:
        assert isinstance(engine, hub_engine.HubEngine) and engine.time_limit == 0.02
        assert engine.params == {"threads": 1, "tt_size": 1}
    finally:
        engine.close()
    made = []
    make = ds.make_agent
    monkeypatch.setattr(ds, "make_agent", lambda *args: made.append(make(*args)) or made[-1])
    argv = ["--parts", "previous", "--pairs", "1", "--time", "0.01", "--max-moves", "20"]
    out = ds.main([*argv, "--previous", spec])
    assert out["previous"]["games"] == 2
    assert "hub:command" in capsys.readouterr().out
    assert made[1]._proc.poll() is not None  # the engine's process ended with the match
