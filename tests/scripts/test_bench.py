"""`boardgym bench` (scripts/bench/command.py): targets, one target with its own options, peers
named."""

import pytest

from boardgym.scripts import cli
from boardgym.scripts.bench import coldstart as bench_coldstart
from boardgym.scripts.bench import command as bench
from boardgym.scripts.bench import env as bench_env
from boardgym.scripts.bench import movegen as bench_movegen
from boardgym.scripts.bench import search as bench_search


def test_one_target_takes_its_own_options(capsys):
    res = bench.main(["search", "--depth", "2", "--positions", "2"])
    out = capsys.readouterr().out
    assert res["search"]["positions"] == 2 and res["search"]["depth"] == 2
    assert "[search] peers: none" in out and "M nodes/s" in out


def test_several_targets_take_the_shared_options(monkeypatch, capsys):
    seen = {}

    def fake(name):
        def main(settings):
            seen[name] = settings
            return name

        return main

    for name, (module, _) in bench.TARGETS.items():
        monkeypatch.setattr(module, "main", fake(name))
    res = bench.main(["--game", "backgammon", "--full", "--threads", "1"])
    assert set(res) == {"movegen", "envs", "rllib", "coldstart"}  # search is draughts only
    assert seen["movegen"] == bench_movegen.Settings(game="backgammon", threads=1, full=True)
    assert "boardgym-draughts" not in seen["envs"].envs and seen["envs"].full
    assert seen["rllib"].game == "backgammon"
    assert seen["coldstart"] == bench_coldstart.Settings(game="backgammon", full=True)
    res = bench.main(["movegen", "search"])
    assert set(res) == {"movegen", "search"} and seen["search"] == bench_search.Settings()
    out = capsys.readouterr().out
    assert "[movegen] peers installed:" in out and "[search] skipped: draughts only" in out


def test_missing_peers_are_named_with_how_to_install(monkeypatch, capsys):
    monkeypatch.setattr(bench.importlib.util, "find_spec", lambda name: None)
    installed, missing = bench.peer_status(bench_env)
    assert installed == [] and ("OpenSpiel", "pip install open_spiel") in missing
    installed, missing = bench.peer_status(bench_movegen, "draughts")
    assert missing == [("py-draughts", "pip install py-draughts")]
    monkeypatch.setattr(bench_search, "main", lambda settings: None)
    monkeypatch.setattr(bench_movegen, "main", lambda settings: None)
    bench.main(["movegen", "search"])
    out = capsys.readouterr().out
    assert "missing: py-draughts (pip install py-draughts)" in out
    assert 'pip install "boardgym[bench]"' in out


@pytest.mark.parametrize(
    "args, needle",
    [(["nope"], "nope"), (["all", "--bogus"], "--bogus"), (["--threads", "-1"], "--threads")],
)
def test_bad_arguments(args, needle):
    with pytest.raises(ValueError, match=needle):
        bench.main(args)


def test_a_targets_bad_option_names_the_target_and_its_help():
    with pytest.raises(ValueError, match=r"movegen: --n-gen .*boardgym bench movegen --help"):
        bench.main(["movegen", "--n-gen", "900"])


def test_command_line_errors_are_one_line(capsys):
    assert cli.main(["bench", "envs", "--seconds", "-1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("boardgym bench: error: envs: --seconds")


@pytest.mark.parametrize("target", list(bench.TARGETS))
def test_full_budgets_are_valid_settings(target):
    module = bench.TARGETS[target][0]
    module.Settings(full=True).check()
    full = bench.dataclasses.replace(module.Settings(), **module.FULL)
    full.check()
    assert full != module.Settings()  # --full is a bigger budget than the quick default
