"""Smoke test of `boardgym bench envs` (scripts/bench/env.py) with a tiny budget."""

import importlib.util

import pytest

from boardgym.scripts.bench import env as bench_env
from boardgym.scripts.cli import UsageError


def test_bench_env_smoke(capsys):
    rates = bench_env.main(
        ["--seconds", "0.2", "--envs", "boardgym-draughts", "boardgym-backgammon"]
    )
    assert rates["boardgym-draughts"] > 100 and rates["boardgym-backgammon"] > 100
    assert "steps/s" in capsys.readouterr().out


def test_bench_env_names_a_missing_peer_with_how_to_install(capsys):
    if importlib.util.find_spec("pyspiel") is not None:
        pytest.skip("OpenSpiel is installed here")
    rates = bench_env.main(
        ["--seconds", "0.1", "--envs", "boardgym-backgammon", "openspiel-backgammon"]
    )
    assert rates["openspiel-backgammon"] is None and rates["boardgym-backgammon"] > 100
    assert "openspiel-backgammon (not installed: pip install open_spiel)" in capsys.readouterr().out


def test_bench_env_batched_smoke(capsys):
    rates = bench_env.main(["--batched", "--seconds", "0.1", "--sizes", "4", "--games", "draughts"])
    assert rates[("draughts", 4, 1)] > 10
    assert "draughts" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--envs", "chess"], "--envs"),
        (["--seconds", "0"], "--seconds"),
        (["--sizes", "0"], "--sizes"),
        (["--full", "--seconds", "2"], "--full"),
    ],
)
def test_bench_env_rejects_bad_settings(args, needle):
    with pytest.raises(UsageError, match=needle):
        bench_env.main(args)


def test_bench_env_vector_rows(capsys):
    rates = bench_env.main(
        ["--vector", "--seconds", "0.2", "--envs", "boardgym-draughts", "--games", "draughts"]
    )
    assert rates[("draughts", "core")] > 1000 and rates[("draughts", "vector")] > 1000
    assert "make_vec" in capsys.readouterr().out
