"""Smoke test of `boardgym bench search` (scripts/bench/search.py) with a tiny budget."""

import pytest

from boardgym.scripts.bench import search as bench_search
from boardgym.scripts.cli import UsageError


def test_bench_search_reports_nodes_per_second(capsys):
    res = bench_search.main(["--depth", "3", "--positions", "3"])
    out = capsys.readouterr().out
    assert res["positions"] == 3 and res["nodes"] > 3 and res["nps"] > 0
    assert "M nodes/s" in out
    res_no_tt = bench_search.main(bench_search.Settings(depth=3, positions=3, no_tt=True))
    assert res_no_tt["nodes"] >= res["nodes"] * 0.5


def test_bench_search_learned_agent_by_time(capsys):
    """--agent takes a registry spec (its options too); --time reports the depth reached."""
    res = bench_search.main(
        ["--agent", "draughts-alphabeta:lmr=True", "--time", "0.02", "--positions", "2"]
    )
    out = capsys.readouterr().out
    assert "draughts-alphabeta:lmr=True, 0.02 s per position, 2 positions" in out
    assert res["mean_depth"] >= 2 and res["nodes"] > 0 and res["time"] < 2.0


def test_bench_search_counts_every_thread(capsys):
    """With threads=2 the speed line gives the main thread's rate and all threads' together.
    The helper counts nodes only once the system schedules its thread: on a loaded machine (the
    test suite's other worker on the other core) a short search can end first, so up to three
    searches, each twice as long as the last, must see it count. Seed 1: both positions are
    undecided, so each search runs its whole time (seed 0's first two are a won and a lost
    position, whose searches end within milliseconds, before a busy machine runs the helper)."""
    for seconds in (0.3, 0.6, 1.2):
        res = bench_search.main(
            ["--agent", "draughts-alphabeta:threads=2", "--time", str(seconds), "--positions", "2"]
            + ["--seed", "1"]
        )
        assert res["time"] > seconds  # the searches ran their time: the helper had it too
        out = capsys.readouterr().out
        if res["helper_nodes"] > 0:
            break
    assert res["threads"] == 2 and res["helper_nodes"] > 0
    assert "(the main thread)" in out and "(all 2 threads)" in out and "(1 thread)" not in out
    one = bench_search.main(
        ["--agent", "draughts-alphabeta:threads=1", "--time", "0.03", "--positions", "2"]
    )
    assert one["threads"] == 1 and one["helper_nodes"] == 0
    assert "(1 thread)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--depth", "0"], "--depth"),
        (["--positions", "-1"], "--positions"),
        (["--tt-bits", "40"], "--tt-bits"),
        (["--full", "--depth", "3"], "--full"),
        (["--time", "-1"], "--time"),
        (["--agent", "draughts-greedy"], "--agent"),
        (["--agent", "draughts-alphabeta:depth=3"], "--depth"),
        (["--agent", "draughts-alphabeta:x"], "--agent"),
    ],
)
def test_bench_search_rejects_bad_settings(args, needle):
    with pytest.raises(UsageError, match=needle):
        bench_search.main(args)
