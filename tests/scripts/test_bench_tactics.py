"""Smoke test of `boardgym bench tactics` (scripts/bench/tactics.py) with a tiny budget."""

import pytest

from boardgym.agents.arena.openings import read_tactics
from boardgym.scripts.bench import tactics as bench_tactics
from boardgym.scripts.cli import UsageError

FORCED = "W:W15,28:B4,18"  # one legal move (RULES.md, 25.2): e5:c3


def test_bench_tactics_prints_the_engines_side_by_side(tmp_path, capsys):
    """Each engine gets every position of every suite; a forced move is always solved, a wrong
    best move never, and each shipped suite parses and holds positions."""
    for path in bench_tactics.SUITES:
        assert len(read_tactics(path)) >= 10
    suite = tmp_path / "suite.tsv"
    suite.write_text(f"# two positions\n{FORCED}\te5:c3\tforced\n{FORCED}\te5-d6\tnot legal\n")
    agents = ["draughts-alphabeta-2026:threads=1", "draughts-alphabeta"]
    res = bench_tactics.main(
        ["--agents", *agents, "--times", "0.01", "--suites", str(suite), bench_tactics.SUITES[0]]
    )
    out = capsys.readouterr().out
    paths = (str(suite), bench_tactics.SUITES[0])
    assert set(res) == {(a, p, 0.01) for a in agents for p in paths}
    for a in agents:
        assert res[(a, str(suite), 0.01)] == [True, False]
        assert a in out
    assert "1/2" in out and "suite.tsv" in out and "draughts_tactics.tsv" in out


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--times", "0"], "--times"),
        (["--agents", "draughts-greedy"], "--agents"),
        (["--agents", "draughts-alphabeta:time_limit=1"], "--times"),
        (["--full", "--times", "0.5"], "--full"),
        (["--suites", "/no/such/file.tsv"], "--suites"),
        (["--seed", "-1"], "--seed"),
    ],
)
def test_bench_tactics_rejects_bad_settings(args, needle):
    with pytest.raises(UsageError, match=needle):
        bench_tactics.main(args)
