"""`boardgym egdb` from the installed wheel, as its help writes it."""

from wheel_install import ok, one_line_error


def test_build_and_probe(wheel_cli):
    out = ok(wheel_cli.run("egdb", "build", "--pieces", "3", "--dir", "tables"))
    assert "done in" in out and (wheel_cli.cwd / "tables" / "rd_0101.v1.npz").exists()
    out = ok(wheel_cli.run("egdb", "probe", "W:WK29:BK22", "--dir", "tables"))
    assert "White to move: win in 1 plies" in out
    out = ok(wheel_cli.run("egdb", "info", "--dir", "tables"))
    assert "complete up to 3 pieces" in out


def test_errors_one_line_exit_2(wheel_cli):
    one_line_error(wheel_cli.run("egdb", "probe", "--dir", "tables"), "probe needs a FEN")
    one_line_error(wheel_cli.run("egdb", "build", "--pieces", "1"), "--pieces")
    one_line_error(
        wheel_cli.run("egdb", "probe", "W:WK1:BK30", "--dir", "nothing-here"), "boardgym egdb build"
    )
