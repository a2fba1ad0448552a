"""boardgym eval-gnubg (scripts/eval_gnubg.py, the GPL judge): a smoke match against pubeval and
gnubg, its summary statistics from the one statistics module, the random opponent."""

import numpy as np
import pytest

from boardgym.scripts import eval_gnubg


@pytest.mark.parametrize("opponent", ["pubeval", "gnubg0"])
def test_eval_gnubg_smoke(opponent, capsys):
    pytest.importorskip("gnubg_nn")
    ev = eval_gnubg
    s = ev.main(
        [
            "--agent",
            "backgammon-greedy",
            "--opponent",
            opponent,
            "--games",
            "6",
            "--seed",
            "1",
            "--quiet",
        ]
    )
    assert s["games"] == 6 and -3 <= s["ppg"] <= 3
    assert "points per game" in capsys.readouterr().out


def test_eval_gnubg_statistics():
    from boardgym.agents.arena.stats import mean_interval, wilson

    ev = eval_gnubg
    assert not hasattr(ev, "wilson")  # one statistics module: agents/arena/stats.py
    pts = np.array([1.0, -2.0, 3.0, -1.0])
    s = ev.summarize(pts, np.array([1, 2, 3, 1]))
    assert s["ppg"] == pytest.approx(0.25) and s["wins"] == 2
    assert (s["win_lo"], s["win_hi"]) == wilson(2, 4)
    assert (s["ppg_lo"], s["ppg_hi"]) == mean_interval(pts, -3, 3)
    assert s["gammons_won"] == 1 and s["gammons_lost"] == 1 and s["backgammons"] == 1


def test_eval_gnubg_random_opponent_is_the_random_player():
    """--opponent random is OPP_RANDOM (random checker moves), played through the one loop."""
    ev = eval_gnubg
    s = ev.main(
        [
            "--agent",
            "backgammon-greedy",
            "--opponent",
            "random",
            "--games",
            "20",
            "--seed",
            "3",
            "--quiet",
        ]
    )
    assert s["games"] == 20 and s["ppg"] > 0.5


def test_eval_gnubg_reports_the_searches_a_budget_stopped(capsys):
    """A searching agent's stopped searches are counted and printed; a 3-ply agent with a
    3-ply budget of one afterstate stops every 3-ply stage it starts (and then plays 2-ply)."""
    s = eval_gnubg.main(
        [
            "--agent",
            "backgammon-td:plies=3,threshold3=1.0,budget3=1",
            "--opponent",
            "random",
            "--games",
            "2",
            "--seed",
            "3",
            "--quiet",
        ]
    )
    info = s["search_info"]
    assert info["decisions"] > 0 and 0 < info["stopped"] <= info["decisions"]
    out = capsys.readouterr().out
    assert (
        f"3-ply searches stopped by the budget (150,000 / 1 afterstates) {info['stopped']} of"
        in out
    )
