"""Smoke test of `boardgym bench timeuse` (scripts/bench/timeuse.py) with a tiny budget."""

import pytest

from boardgym.agents.arena.openings import read_ballots
from boardgym.scripts.bench import timeuse as bench_timeuse
from boardgym.scripts.cli import UsageError


def test_bench_timeuse_prints_both_engines_side_by_side(capsys):
    res = bench_timeuse.main(["--budgets", "0.01", "--games", "1", "--max-moves", "16"])
    out = capsys.readouterr().out
    assert set(res) == {(spec, 0.01) for spec in bench_timeuse.AGENTS}
    for spec in bench_timeuse.AGENTS:
        r = res[(spec, 0.01)]
        assert r["moves"] >= 10 and 0 <= r["forced"] <= 1
        assert 0 < r["mean"] <= r["max"] and r["p95"] <= r["max"]
        assert 0 <= r["over2"] <= r["moves"] and (r["over2"] > 0) == (r["max"] > 2)
        assert spec in out
    assert "mean/T" in out and "p95/T" in out and "max/T" in out and ">2T" in out


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--budgets", "0"], "--budgets"),
        (["--games", "0"], "--games"),
        (["--agents", "draughts-greedy"], "--agents"),
        (["--agents", "draughts-alphabeta:time_limit=1"], "--budgets"),
        (["--full", "--games", "3"], "--full"),
        (["--max-moves", "2"], "--max-moves"),
    ],
)
def test_bench_timeuse_rejects_bad_settings(args, needle):
    with pytest.raises(UsageError, match=needle):
        bench_timeuse.main(args)


@pytest.mark.parametrize("threads", [1, 2])
def test_moves_of_a_game_use_their_budget_and_not_twice_it(threads):
    """In a game at 50 ms a move (self-play from a ballot, forced moves included), the moves take
    on average at least 60% of the budget and 95% of them at most twice it, with one thread and
    with two (the helper obeys the main search's clock); none runs away. Loose bounds for a
    loaded machine (its stalls make a single move's time unreliable there); the figures come
    from ``boardgym bench timeuse``."""
    spec = f"draughts-alphabeta:threads={threads}"
    r = bench_timeuse.time_use([spec], 0.05, 1, read_ballots()[5:6], 60, seed=3)[spec]
    assert r["moves"] >= 20
    assert r["mean"] >= 0.6 and r["p95"] <= 2.0 and r["max"] < 10
