"""`boardgym bench web` with tiny budgets: a server on 127.0.0.1 under load, killed (kill -9)
and fuzzed; the figures it reports, and its bounds."""

import pytest

from boardgym.scripts import cli
from boardgym.scripts.bench import command as bench
from boardgym.scripts.bench import web

pytest.importorskip("uvicorn")


def test_load_faults_and_fuzz_with_tiny_budgets(capsys):
    out = bench.main(
        [
            "web",
            "--parts",
            "load",
            "faults",
            "fuzz",
            "--players",
            "2",
            "--watchers",
            "1",
            "--seconds",
            "4",
            "--workers",
            "1",
            "--fault-games",
            "2",
            "--fuzz-requests",
            "80",
        ]
    )["web"]
    load, faults, fuzz = out["load"], out["faults"], out["fuzz"]
    assert load["errors"] == 0 and load["actions"] > 0 and load["p50_ms"] > 0
    assert load["integrity"] == "ok" and load["games_kept"] >= 2
    assert len(load["memory_mb"]) >= 2
    by = load["by_game"]
    assert by["draughts"]["actions"] + by["backgammon"]["actions"] == load["actions"]
    assert faults["kills"] == 2 and faults["lost"] == 0 and faults["integrity_failures"] == 0
    assert fuzz["5xx"] == 0 and fuzz["timeouts"] == 0 and fuzz["4xx"] > 0
    assert fuzz["4xx_without_message"] == 0
    printed = capsys.readouterr().out
    assert "load: 2 players + 1 watchers against" in printed and "faults: 2 kills -9" in printed
    assert "draughts players' actions:" in printed and "backgammon players' actions:" in printed


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--players", "500"], "--players must be 1..200"),
        (["--seconds", "0"], "--seconds must be in"),
        (["--fault-games", "1000"], "--fault-games must be"),
        (["--fuzz-requests", "0"], "--fuzz-requests must be"),
    ],
)
def test_bounds(args, needle):
    with pytest.raises(cli.UsageError, match=needle):
        web.main(args)


def test_only_loopback():
    assert web.HOST == "127.0.0.1"
