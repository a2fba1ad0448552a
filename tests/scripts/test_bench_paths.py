"""`boardgym bench paths`: every row of the paths table beside its peer and goal, in one run."""

import pytest

from boardgym.scripts.bench import command as bench
from boardgym.scripts.bench import env as bench_env
from boardgym.scripts.bench import paths as bench_paths


def test_rows_peers_goals_and_verdicts(monkeypatch, capsys):
    monkeypatch.setattr(
        bench_env,
        "_vector_rates",
        lambda game, seconds, seed: (1_000_000.0, 2_500_000.0 if game == "draughts" else 900_000.0),
    )
    monkeypatch.setattr(bench_paths, "coldstart_seconds", lambda: (12.5, 0.8))
    res = bench.main(["paths", "--seconds", "0.05", "--cases", "20"])["paths"]
    out = capsys.readouterr().out
    for row in (
        "legal_plays",
        "make_vec draughts",
        "make_vec backgammon",
        "AEC draughts",
        "AEC backgammon",
        "cold start",
    ):
        assert row in out and row in res
    assert res["make_vec draughts"]["verdict"] == "met"
    assert res["make_vec backgammon"]["verdict"] == "not met"
    assert res["cold start"]["verdict"] == "message"  # over 5 s, with a compile notice
    assert res["legal_plays"]["value"] > 0 and "load average" in out


def test_without_the_cold_start(monkeypatch):
    monkeypatch.setattr(bench_env, "_vector_rates", lambda game, seconds, seed: (1.0, 1.0))
    monkeypatch.setattr(bench_paths, "coldstart_seconds", lambda: pytest.fail("not asked for"))
    res = bench_paths.main(["--no-coldstart", "--seconds", "0.05", "--cases", "20"])
    assert "cold start" not in res


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--seconds", "0"], "--seconds"),
        (["--cases", "5"], "--cases"),
        (["--full", "--seconds", "2"], "--full"),
    ],
)
def test_bad_settings(args, needle):
    with pytest.raises(ValueError, match=needle):
        bench_paths.main(args)
