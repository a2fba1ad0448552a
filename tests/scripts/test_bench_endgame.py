"""`boardgym bench endgame` (scripts/bench/endgame.py) and the sample it plays
(draughts_egdb.sample_positions), on the 4-piece tables a test can build in seconds."""

import numpy as np
import pytest

from boardgym.agents.draughts import egdb as E
from boardgym.agents.registry import load_spec
from boardgym.envs import draughts as api
from boardgym.kernels.draughts.game import BLACK_WON, ONGOING, WHITE_WON, game_status, is_capture
from boardgym.kernels.draughts.outcome import DRAW_KINGS_ONLY
from boardgym.scripts.bench import endgame as bench_endgame
from boardgym.scripts.cli import UsageError

SPEC = "draughts-alphabeta:threads=1"


@pytest.fixture(scope="module")
def tables4(tmp_path_factory):
    d = tmp_path_factory.mktemp("egdb")
    return d, E.build(4, directory=d)


def _pieces(state):
    return sum(bin(int(x)).count("1") for x in state[:4])


def test_sample_positions_are_what_the_tables_say(tables4):
    _, tables = tables4
    got = E.sample_positions(tables, 4, 6, 5, seed=1)
    assert sorted(r for _, r, _ in got) == ["draw"] * 5 + ["win"] * 6
    assert {int(s[4]) for s, _, _ in got} == {0, 1}  # both sides to move
    for state, res, t in got:
        assert _pieces(state) == 4 and game_status(state) == ONGOING and not is_capture(state)
        assert E.probe_state(tables, state) == (res, t)
        assert (t is None) == (res == "draw")
    again = E.sample_positions(tables, 4, 6, 5, seed=1)
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(got, again))
    other = E.sample_positions(tables, 4, 6, 5, seed=2)
    assert not all(np.array_equal(a[0], b[0]) for a, b in zip(got, other))
    hard = E.sample_positions(tables, 4, 5, 0, seed=1, min_t=9)
    assert len(hard) == 5 and all(r == "win" and t >= 9 for _, r, t in hard)
    with pytest.raises(ValueError, match="go up to 4"):
        E.sample_positions(tables, 5, 1, 1)
    with pytest.raises(ValueError, match="wins"):
        E.sample_positions(tables, 4, -1, 1)
    with pytest.raises(ValueError, match="too few"):
        E.sample_positions(tables, 4, 50, 50, max_tries=20)


def test_the_engine_with_tables_converts_the_wins_and_holds_the_draws(tables4):
    _, tables = tables4
    positions = E.sample_positions(tables, 4, 4, 3, seed=5)
    res = bench_endgame.check_endgames(SPEC, tables, positions, 0.02, 400, seed=0)
    assert [r["result"] for r in res] == [p[1] for p in positions]
    for r, (state, result, _) in zip(res, positions):
        assert r["achieved"], r
        assert r["fen"] == api.to_fen(state)
        if result == "win":
            assert r["status"] == ("white won" if state[4] == 0 else "black won")
        else:
            assert r["status"].startswith("draw")


def test_a_win_not_reached_is_not_counted_as_converted(tables4):
    """A won position stopped before the win (one ply), or ended by a draw rule or by the other
    side's win, is reported as not converted; only the mover's win counts."""
    _, tables = tables4
    state = api.from_fen("W:WK1,K2,K3:BK30")  # three kings v one: won in 16 plies
    assert E.probe_state(tables, state) == ("win", 16)
    agent = load_spec(SPEC, "draughts", seed=0, depth=None, time_limit=0.02, egdb=tables)
    status, plies = bench_endgame.play_out(state, [agent, agent], 1)
    assert (status, plies) == (ONGOING, 1)
    assert not bench_endgame.achieved("win", 0, status)
    status, plies = bench_endgame.play_out(state, [agent, agent], 400)
    assert status == WHITE_WON and bench_endgame.achieved("win", 0, status)
    assert not bench_endgame.achieved("win", 1, status)  # Black was to move: Black's win only
    assert not bench_endgame.achieved("win", 0, DRAW_KINGS_ONLY)
    assert not bench_endgame.achieved("draw", 0, BLACK_WON)
    assert bench_endgame.achieved("draw", 1, DRAW_KINGS_ONLY)
    with pytest.raises(ValueError, match="result"):
        bench_endgame.achieved("loss", 0, WHITE_WON)


def test_bench_endgame_prints_both_arms(tables4, capsys):
    d, _ = tables4
    args = ["--dir", str(d), "--wins", "2", "--draws", "1", "--time", "0.01", "--seed", "3"]
    res = bench_endgame.main(args)
    out = capsys.readouterr().out
    assert set(res) == {(SPEC, True), (SPEC, False)}
    assert all(len(r) == 3 for r in res.values())
    assert sum(r["achieved"] for r in res[(SPEC, True)]) == 3
    assert "of 4 pieces" in out and "converted" in out and "held" in out
    assert out.count(SPEC) >= 2


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--wins", "0", "--draws", "0"], "at least one position"),
        (["--time", "0"], "--time"),
        (["--pieces", "8"], "--pieces"),
        (["--agents", "draughts-alphabeta:egdb=False"], "egdb"),
        (["--agents", "draughts-greedy"], "--agents"),
        (["--full", "--wins", "3"], "--full"),
        (["--pieces", "5"], "go up to 4"),
    ],
)
def test_bench_endgame_rejects_bad_settings(tables4, args, needle):
    d, _ = tables4
    with pytest.raises(UsageError, match=needle):
        bench_endgame.main(["--dir", str(d), *args])


def test_bench_endgame_needs_tables(tmp_path):
    with pytest.raises(UsageError, match="boardgym egdb build"):
        bench_endgame.main(["--dir", str(tmp_path)])
