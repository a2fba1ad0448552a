"""``boardgym evaluate`` with the backgammon search and cube options from the installed wheel,
and their error paths (one line, exit code 2)."""

from wheel_install import ok, one_line_error


def test_search_and_cube_from_the_wheel(wheel_cli):
    out = ok(
        wheel_cli.run(
            "evaluate",
            "backgammon-td:cube=janowski",
            "backgammon-td:plies=0",
            "--cube",
            "--games",
            "2",
            "--quiet",
        )
    )
    assert "cubeful money: 2 games" in out
    out = ok(
        wheel_cli.run(
            "evaluate",
            "backgammon-td:plies=2,candidates=2",
            "backgammon-greedy",
            "--games",
            "2",
            "--quiet",
        )
    )
    assert "backgammon-greedy won: gammons" in out


def test_search_and_cube_errors_from_the_wheel(wheel_cli):
    one_line_error(wheel_cli.run("evaluate", "backgammon-td:plies=5", "random"), "plies")
    one_line_error(
        wheel_cli.run("evaluate", "draughts-greedy", "random", "--cube"), "--cube is for backgammon"
    )
