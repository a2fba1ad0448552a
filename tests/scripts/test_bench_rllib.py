"""`boardgym bench rllib` (scripts/bench/rllib.py): its settings, and without Ray a one-line note
saying how to install it (the measurement itself: tests/rllib, slow, in the ray venv)."""

import importlib.util

import pytest

from boardgym.scripts.bench import rllib as bench_rllib
from boardgym.scripts.cli import UsageError


def test_without_ray_says_how_to_install(capsys):
    if importlib.util.find_spec("ray") is not None:
        pytest.skip("Ray is installed here (tests/rllib measures)")
    assert bench_rllib.main([]) == []
    assert 'Ray RLlib not installed: pip install "boardgym[ray]"' in capsys.readouterr().out


def test_full_budget_and_settings():
    cfg = bench_rllib.Settings(full=True)
    cfg.check()
    assert bench_rllib.FULL["num_env_runners"] == (1, 2)


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--game", "chess"], "--game"),
        (["--steps", "0"], "--steps"),
        (["--num-env-runners", "-1"], "--num-env-runners"),
        (["--envs-per-runner", "0"], "--envs-per-runner"),
        (["--full", "--steps", "5"], "--full"),
    ],
)
def test_bench_rllib_rejects_bad_settings(args, needle):
    with pytest.raises(UsageError, match=needle):
        bench_rllib.main(args)
