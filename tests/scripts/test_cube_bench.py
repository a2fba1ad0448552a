"""boardgym cube-bench: agents re-decide the cube decisions of a gnubg-judged cube log
(scripts/cube_bench.py, gnubg_driver.read_cube_log). No gnubg needed: the judge's equities are in
the log (the shipped one from 7-point matches of backgammon-td against gnubg 0-ply, seed 14)."""

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from boardgym.kernels.backgammon import game
from boardgym.scripts import cube_bench
from boardgym.scripts.cli import UsageError
from boardgym.scripts.gnubg_driver import cube_error, is_close_cube, read_cube_log

LOG = Path(__file__).parents[2] / "agents/training/runs/cube-gnubg2/match7-seed14.jsonl.gz"


def _records(n):
    with gzip.open(LOG, "rt", encoding="utf-8") as f:
        return [json.loads(next(f)) for _ in range(n)]


def test_the_recording_agent_repeats_its_actions_and_their_errors(capsys):
    s = cube_bench.main(["backgammon-td", "--log", str(LOG), "--first", "60"])["backgammon-td"]
    recs = read_cube_log(str(LOG))[:60]
    assert s["repeats"] == (60, 60)
    assert s["errors"] == pytest.approx([r["err"] for r in recs], abs=1e-6)
    close = sum(is_close_cube(r["eq"], r["offered"]) for r in recs)
    assert s["close"] == close > 0
    assert s["memg"] == pytest.approx(1000 * sum(r["err"] for r in recs) / close, abs=1e-3)
    assert s["interval"][0] <= s["memg"] <= s["interval"][1]
    assert "repeats 60 of the 60 actions" in capsys.readouterr().out


def test_an_agent_that_never_doubles_and_always_takes_is_judged_by_hand():
    """backgammon-greedy answers by the cubeless policy (no double, take): its errors are the
    equities' own; the gain of the baseline over it is the difference of the two sums."""
    recs = read_cube_log(str(LOG))[:80]
    out = cube_bench.main(
        ["backgammon-td", "backgammon-greedy", "--log", str(LOG), "--first", "80"]
    )
    g = out["backgammon-greedy"]
    want = [
        cube_error(r["eq"], r["offered"], game.ACTION_TAKE if r["offered"] else game.ACTION_ROLL)
        for r in recs
    ]
    assert g["errors"] == pytest.approx(want)
    assert g["doubles"] == g["drops"] == 0 and g["takes"] == sum(r["offered"] for r in recs)
    close = g["close"]
    gain = 1000 * (np.sum(out["backgammon-td"]["errors"]) - np.sum(want)) / close
    assert g["gain"][0] == pytest.approx(gain)
    assert g["repeats"] == (0, 0)  # it played none of the log


def test_a_log_keeps_one_line_per_decision_and_reads_gzip(tmp_path):
    recs = _records(3)
    lines = [
        {**r, "length": 7, "seed0": 1, "pair": 0, "seat": 0, "k": k} for k, r in enumerate(recs)
    ]
    again = {**lines[1], "action": recs[1]["action"], "err": 0.5}  # the match played again
    plain = tmp_path / "log.jsonl"
    plain.write_text("".join(json.dumps(x) + "\n" for x in [*lines, again]) + "\n")
    got = read_cube_log(str(plain))
    assert len(got) == 3 and got[1]["err"] == 0.5
    packed = tmp_path / "log.jsonl.gz"
    with gzip.open(packed, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(x) + "\n" for x in recs + recs)  # no keys: every line counts
    assert len(read_cube_log(str(packed))) == 6


@pytest.mark.parametrize(
    "change, words",
    [
        (None, "not a cube decision"),
        ({"action": 999}, "action 999"),
        ({"offered": 1}, "offered must be true or false"),
        ({"eq": {"nd": 0.1, "dt": 0.2}}, "eq must hold"),
        ({"eq": {"nd": 0.1, "dt": float("nan"), "dp": 1.0}}, "finite"),
        ({"match": [7, 2]}, "match must be"),
        ({"match": [7, 7, 2, False]}, "score"),
        ({"state": [1, 2, 3]}, "state"),
        ({"state": "abc"}, "state must be a list"),
    ],
)
def test_a_bad_line_is_named(tmp_path, change, words):
    good = _records(1)[0]
    bad = "{not json" if change is None else json.dumps({**good, **change})
    p = tmp_path / "log.jsonl"
    p.write_text(json.dumps(good) + "\n" + bad + "\n")
    with pytest.raises(ValueError, match="line 2") as e:
        read_cube_log(str(p))
    assert words in str(e.value)


def test_cube_bench_flags(tmp_path):
    for args in ([], ["backgammon-td"], ["backgammon-td", "--log", str(LOG), "--first", "-1"]):
        with pytest.raises(UsageError):
            cube_bench.main(args)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(UsageError, match="no cube decisions"):
        cube_bench.main(["backgammon-td", "--log", str(empty)])
    with pytest.raises(OSError):
        cube_bench.main(["backgammon-td", "--log", str(tmp_path / "missing.jsonl")])
    with pytest.raises(ValueError, match="draughts"):  # not a backgammon agent
        cube_bench.main(["draughts-greedy", "--log", str(LOG), "--first", "60"])
