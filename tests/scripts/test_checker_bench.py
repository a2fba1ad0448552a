"""boardgym checker-bench: agents' checker plays compared where they differ, each differing play
valued by GNU Backgammon (scripts/checker_bench.py; the gnubg module of the test extra, at 0 plies
to keep it quick)."""

import json

import numpy as np
import pytest

from boardgym.agents.registry import load
from boardgym.kernels.backgammon import board, game
from boardgym.kernels.backgammon.board import ME, OFF_ME, OPP, STATE_LEN
from boardgym.scripts import checker_bench, gnubg_driver
from boardgym.scripts.cli import UsageError

pytest.importorskip("gnubg")

ARGS = ["--games", "2", "--seed", "7", "--judge-plies", "0"]


def test_the_gain_is_the_judges_values_where_the_agents_differ(capsys):
    out = checker_bench.main(["backgammon-td:plies=0", "backgammon-greedy", *ARGS])
    states = checker_bench.positions(load("backgammon-td", plies=0), 2, 7, 2)
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    net, greedy = load("backgammon-td", plies=0), load("backgammon-greedy")
    diff, differ = [], 0
    for s in states:
        n = game.afterstates(s, rows)
        a, b = net.choose(rows[:n]), greedy.choose(rows[:n])
        if a == b:
            diff.append(0.0)
            continue
        differ += 1
        assert rows[a, OFF_ME] < 15 and rows[b, OFF_ME] < 15  # no game ends in these two games
        va, vb = gnubg_driver.play_equities(s, rows[[a, b]], (0, 0, 0, False), 0, cubeful=False)
        diff.append(vb - va)
    g = out["backgammon-greedy"]
    assert g["positions"] == len(states) > 20 and g["differ"] == differ > 0
    assert g["gain"][0] == pytest.approx(1000 * np.mean(diff))
    assert g["gain"][1] < g["gain"][0] < g["gain"][2] < 0  # greedy plays worse than the net
    assert np.all(out["backgammon-td:plies=0"]["values"][np.array(diff) == 0] == 0)
    text = capsys.readouterr().out
    assert f"plays otherwise than backgammon-td:plies=0 in {differ} of {len(states)}" in text


def test_the_cache_values_each_play_once(tmp_path, monkeypatch):
    cache = tmp_path / "judged.json"
    first = checker_bench.main(
        ["backgammon-td:plies=0", "backgammon-greedy", *ARGS, "--cache", str(cache)]
    )
    data = json.loads(cache.read_text())
    assert data["judge_plies"] == 0 and len(data["values"]) >= first["backgammon-greedy"]["differ"]

    def no_gnubg(*a, **k):
        raise AssertionError("a cached play was judged again")

    monkeypatch.setattr(gnubg_driver, "play_equities", no_gnubg)
    again = checker_bench.main(
        ["backgammon-greedy", "backgammon-td:plies=0", *ARGS, "--cache", str(cache)]
    )
    assert again["backgammon-td:plies=0"]["gain"][0] == pytest.approx(
        -first["backgammon-greedy"]["gain"][0]
    )
    with pytest.raises(UsageError, match="judged at 0 plies, not 1"):
        checker_bench.main(
            [
                "backgammon-greedy",
                "backgammon-td:plies=0",
                "--games",
                "1",
                "--judge-plies",
                "1",
                "--cache",
                str(cache),
            ]
        )
    cache.write_text("[1, 2]")
    with pytest.raises(UsageError, match="not a checker-bench cache"):
        checker_bench.main(
            ["backgammon-greedy", "backgammon-td:plies=0", *ARGS, "--cache", str(cache)]
        )


def test_a_play_that_ends_the_game_is_worth_its_points():
    s = board.new_initial_state()
    s[: OFF_ME + 2] = 0
    s[ME + 0] = s[ME + 1] = 1  # two checkers left, on the 1 and 2 points; 13 off
    s[OFF_ME] = 13
    s[OPP + 23] = 15  # the opponent: all 15 on its own 1-point, none off (a gammon)
    board.refresh_masks(s)
    s = board.set_dice(s, 2, 1)
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    n = game.afterstates(s, rows)
    off = [k for k in range(n) if rows[k, OFF_ME] == 15]
    rest = [k for k in range(n) if rows[k, OFF_ME] < 15]
    assert len(off) == 1 and rest
    picks = np.array([[off[0]], [rest[0]]])
    cache = {}
    v = checker_bench.judge(s[None], picks, 0, cache)
    assert v[0, 0] == 2.0  # a gammon, exactly
    want = gnubg_driver.play_equities(s, rows[[rest[0]]], (0, 0, 0, False), 0, cubeful=False)
    assert v[1, 0] == pytest.approx(want[0]) and 0 < v[1, 0] < 2
    assert len(cache) == 2


@pytest.mark.parametrize(
    "args, match",
    [
        (["backgammon-greedy"], "two or more agents"),
        (
            ["backgammon-greedy", "backgammon-td:plies=0", "--games", "0"],
            "--games must be positive",
        ),
        (["backgammon-greedy", "backgammon-td:plies=0", "--every", "0"], "--every must be >= 1"),
        (["backgammon-greedy", "backgammon-td:plies=0", "--judge-plies", "5"], "--judge-plies"),
        (["backgammon-greedy", "draughts-greedy", "--games", "1"], "draughts-greedy"),
        (
            ["backgammon-greedy", "backgammon-random"],
            "backgammon-random is not a backgammon agent that",
        ),
        (["backgammon-greedy", "backgammon-td:plies=4", "--games", "1"], "plies"),
        (["backgammon-greedy", "backgammon-td:plies=0", "--net", "nope"], "--net"),
        (
            ["backgammon-greedy", "backgammon-td:plies=0", "--cache", "/no/such/dir/c.json"],
            "no directory",
        ),
    ],
)
def test_bad_settings_are_usage_errors(args, match):
    with pytest.raises(UsageError, match=match):
        checker_bench.main(args)
