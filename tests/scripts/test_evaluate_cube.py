"""boardgym evaluate for backgammon: --cube money games (agents' own cube policies) and the
gammon / backgammon rates of both sides, per seat."""

import numpy as np
import pytest

from boardgym.agents.arena import stats
from boardgym.scripts import cli
from boardgym.scripts import evaluate as ev


def test_cube_pair_prints_money_points_with_an_interval(capsys):
    res = ev.main(
        [
            "backgammon-td:cube=janowski,plies=0",
            "backgammon-td:plies=0",
            "--cube",
            "--games",
            "4",
            "--seed",
            "3",
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    s = res["pairs"][(0, 1)]
    assert s["games"] == 4 and "ppg_interval" in s and "sd" in s
    assert (
        "backgammon-td:cube=janowski,plies=0 v backgammon-td:plies=0: cubeful money: 4 games" in out
    )
    lo, hi = s["ppg_interval"]
    assert lo <= s["points_per_game"] <= hi


def test_cube_pair_with_luck(capsys):
    res = ev.main(
        [
            "backgammon-td:cube=janowski,plies=0",
            "backgammon-td:plies=0",
            "--cube",
            "--luck",
            "td",
            "--games",
            "4",
            "--seed",
            "3",
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    s = res["pairs"][(0, 1)]
    assert s["luck"]["games"] == 4 and "luck-adjusted (judge td, luck x cube value)" in out


def test_backgammon_pairs_report_gammon_rates_per_seat(capsys):
    res = ev.main(
        ["backgammon-td:plies=0", "backgammon-greedy", "--games", "8", "--seed", "1", "--quiet"]
    )
    out = capsys.readouterr().out
    rates = res["pairs"][(0, 1)]["rates"]
    assert set(rates) == {"all", "seat0", "seat1"}
    assert "backgammon-td:plies=0 won: gammons" in out and "backgammon-greedy won: gammons" in out
    for side in ("won", "lost"):
        for kind in (1, 2, 3):
            assert rates["all"][side][kind] == pytest.approx(
                (rates["seat0"][side][kind] + rates["seat1"][side][kind]) / 2
            )


def test_result_rates_and_money_summary():
    r = stats.result_rates([1, 2, -3, -1, 2, 0])
    assert r["won"] == {1: 1 / 6, 2: 2 / 6, 3: 0.0} and r["lost"] == {1: 1 / 6, 2: 0.0, 3: 1 / 6}
    s = stats.summarize_money([4, -2, 1, -1, 8, 0])
    assert (s["wins"], s["draws"], s["losses"]) == (3, 1, 2)
    assert s["points_per_game"] == pytest.approx(10 / 6)
    pairs = np.array([1.0, 0.0, 4.0])
    half = stats.Z95 * pairs.std(ddof=1) / np.sqrt(3)
    assert s["ppg_interval"] == pytest.approx((10 / 6 - half, 10 / 6 + half))
    with pytest.raises(ValueError):
        stats.summarize_money([1, float("nan")])


@pytest.mark.parametrize(
    "args, words",
    [
        (["draughts-greedy", "random", "--cube"], "--cube is for backgammon"),
        (
            ["backgammon-td", "random", "--game", "backgammon", "--cube", "--luck", "td"],
            "AfterstateAgents",
        ),
    ],
)
def test_cube_errors(args, words):
    with pytest.raises((cli.UsageError, ValueError), match=words):
        ev.main(args)


def test_eval_gnubg_reports_rates_per_seat(capsys):
    from boardgym.scripts import eval_gnubg

    s = eval_gnubg.main(
        [
            "--agent",
            "backgammon-greedy",
            "--opponent",
            "random",
            "--games",
            "6",
            "--luck",
            "none",
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert "backgammon-greedy won: gammons" in out and "random won: gammons" in out
    r = s["rates"]
    assert r["all"]["won"][2] == pytest.approx((r["seat0"]["won"][2] + r["seat1"]["won"][2]) / 2)
    assert s["gammons_won"] == round(6 * (r["all"]["won"][2] + r["all"]["won"][3]))
    t = s["play_seconds"]
    assert t["plays"] > 0 and 0 < t["mean"] <= t["max"]
    assert "ms per play on average" in out
