"""Smoke test of scripts/bench_env.py with a tiny budget."""
from script_loader import load_script

bench_env = load_script("bench_env")


def test_bench_env_smoke(capsys):
    rates = bench_env.main(["--seconds", "0.2", "--envs", "boardgym-draughts", "boardgym-backgammon"])
    assert rates["boardgym-draughts"] > 100 and rates["boardgym-backgammon"] > 100
    assert "steps/s" in capsys.readouterr().out
