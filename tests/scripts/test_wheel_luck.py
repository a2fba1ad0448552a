"""``boardgym eval-gnubg --luck`` and ``boardgym evaluate --luck`` from the installed wheel (no
checkout on the path), and their error paths (one line, exit code 2)."""

import importlib.util

from wheel_install import ok, one_line_error


def test_luck_adjusted_figures_from_the_wheel(wheel_cli):
    out = ok(
        wheel_cli.run(
            "eval-gnubg",
            "--agent",
            "backgammon-greedy",
            "--opponent",
            "random",
            "--games",
            "4",
            "--luck",
            "td",
            "--quiet",
        )
    )
    assert "  raw      " in out and "  adjusted " in out and "per-game SD" in out
    out = ok(
        wheel_cli.run(
            "evaluate",
            "backgammon-td:plies=1",
            "backgammon-greedy",
            "--games",
            "4",
            "--luck",
            "td",
            "--quiet",
        )
    )
    assert "luck judge td" in out
    if importlib.util.find_spec("gnubg_nn") is not None:
        out = ok(
            wheel_cli.run(
                "eval-gnubg", "--opponent", "pubeval", "--games", "2", "--luck", "gnubg0", "--quiet"
            )
        )
        assert "luck judge gnubg0" in out


def test_luck_errors_from_the_wheel(wheel_cli):
    one_line_error(
        wheel_cli.run("evaluate", "draughts-greedy", "random", "--luck", "td"),
        "--luck td is for backgammon",
    )
    one_line_error(wheel_cli.run("eval-gnubg", "--luck", "perfect"), "--luck")
