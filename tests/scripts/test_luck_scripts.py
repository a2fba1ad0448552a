"""``boardgym eval-gnubg --luck`` and ``boardgym evaluate --luck``: raw and luck-adjusted figures
printed side by side, the judge choices, and the error paths."""

import importlib.util

import pytest

from boardgym.scripts import cli, eval_gnubg, evaluate

HAVE_GNUBG = importlib.util.find_spec("gnubg_nn") is not None


def test_eval_gnubg_luck_td_against_the_random_player(capsys):
    s = eval_gnubg.main(
        [
            "--agent",
            "backgammon-greedy",
            "--opponent",
            "random",
            "--games",
            "8",
            "--seed",
            "1",
            "--luck",
            "td",
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    luck = s["luck"]
    assert luck["games"] == 8 and luck["raw_mean"] == pytest.approx(s["ppg"])
    assert "  raw      " in out and "  adjusted " in out and "per-game SD" in out
    assert "luck judge td" in out


def test_eval_gnubg_luck_none_prints_the_raw_figure_only(capsys):
    s = eval_gnubg.main(
        [
            "--agent",
            "backgammon-greedy",
            "--opponent",
            "random",
            "--games",
            "2",
            "--luck",
            "none",
            "--quiet",
        ]
    )
    assert s["luck"] is None and "adjusted" not in capsys.readouterr().out


def test_eval_gnubg_reports_the_two_ply_budget(capsys):
    s = eval_gnubg.main(
        [
            "--agent",
            "backgammon-td:plies=2,budget=1",
            "--opponent",
            "random",
            "--games",
            "2",
            "--seed",
            "3",
            "--luck",
            "none",
            "--quiet",
        ]
    )
    info = s["search_info"]
    assert info["decisions"] > 10 and 0 < info["stopped"] <= info["decisions"]  # (k > 1)
    assert info["decisions"] <= s["play_seconds"]["plays"]  # forced plays are not searched
    assert (
        f"stopped by the budget (1 afterstates) {info['stopped']} of {info['decisions']} decisions"
    ) in capsys.readouterr().out


def test_eval_gnubg_default_judge():
    assert eval_gnubg.default_luck() == ("gnubg0" if HAVE_GNUBG else "none")
    assert eval_gnubg.make_judge("none") is None


@pytest.mark.skipif(not HAVE_GNUBG, reason="gnubg-nn is not installed")
def test_gnubg_judge_agrees_with_its_own_best_play():
    """GnubgJudge.best_values (gnubg's best_move) equals the best of the judge over all our
    afterstates of each roll: the same play is best by the same 0-ply values."""
    import numpy as np

    from boardgym.agents.backgammon import luck as bg_luck
    from boardgym.kernels.backgammon import game

    judge = eval_gnubg.make_judge("gnubg0")
    s = game.initial_state()
    fast = judge.best_values(s)
    slow = bg_luck.best_values(judge.__call__, s)  # a plain callable: every afterstate scored
    assert np.allclose(fast, slow, atol=1e-6)
    s = eval_gnubg.main(
        ["--agent", "backgammon-td:plies=1", "--opponent", "pubeval", "--games", "4", "--quiet"]
    )
    assert s["luck"]["games"] == 4


def test_evaluate_luck_td(capsys):
    res = evaluate.main(
        ["backgammon-td:plies=1", "backgammon-greedy", "--games", "6", "--luck", "td", "--quiet"]
    )
    out = capsys.readouterr().out
    assert res["pairs"][(0, 1)]["luck"]["games"] == 6
    assert "  adjusted " in out and "luck judge td" in out


@pytest.mark.parametrize(
    "args, words",
    [
        (["draughts-greedy", "random", "--games", "2", "--luck", "td"], ("--luck td", "draughts")),
        (
            ["backgammon-td", "backgammon-greedy", "--luck", "td", "--observation-only"],
            ("--observation-only",),
        ),
        (
            ["backgammon-td", "random", "--game", "backgammon", "--games", "2", "--luck", "td"],
            ("AfterstateAgents",),
        ),
    ],
)
def test_evaluate_luck_errors(args, words):
    with pytest.raises((cli.UsageError, ValueError)) as e:
        evaluate.main(args)
    assert all(w in str(e.value) for w in words)
