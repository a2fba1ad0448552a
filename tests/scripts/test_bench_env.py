"""Smoke test of scripts/bench_env.py with a tiny budget."""
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "bench_env", Path(__file__).resolve().parents[2] / "scripts" / "bench_env.py")
bench_env = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_env)


def test_bench_env_smoke(capsys):
    rates = bench_env.main(["--seconds", "0.2", "--envs", "boardgym-draughts", "boardgym-backgammon"])
    assert rates["boardgym-draughts"] > 100 and rates["boardgym-backgammon"] > 100
    assert "steps/s" in capsys.readouterr().out
