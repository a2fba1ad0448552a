"""`boardgym show` from the installed wheel (no checkout on the path), as its help writes it."""

from png_decode import decode_png

PDN = """[GameType "25"]

1. c3-d4 f6-g5 2. b2-c3 g5-h4 *
"""


def test_fen_to_svg_and_text(wheel_cli):
    r = wheel_cli.run("show", "W:W21,22:B1,K30", "--out", "position.svg")
    assert r.returncode == 0, r.stderr
    svg = (wheel_cli.cwd / "position.svg").read_text()
    assert svg.startswith("<svg") and "White to move" in svg
    r = wheel_cli.run("show", "W:W21,22:B1,K30")
    assert r.returncode == 0 and "White to move" in r.stdout and "a  b  c" in r.stdout


def test_position_id_with_dice_to_png(wheel_cli):
    r = wheel_cli.run("show", "4HPwATDgc/ABMA", "--dice", "3", "1", "--out", "start.png")
    assert r.returncode == 0, r.stderr
    assert decode_png((wheel_cli.cwd / "start.png").read_bytes()).shape == (502, 700, 3)
    r = wheel_cli.run("show", "4HPwATDgc/ABMA:cAkAAAAAAAAA", "--perspective", "1")
    assert r.returncode == 0, r.stderr
    assert "numbered for player_1 (O)" in r.stdout and "cube 1 centred" in r.stdout


def test_pdn_record_at_a_ply(wheel_cli):
    (wheel_cli.cwd / "game.pdn").write_text(PDN)
    r = wheel_cli.run("show", "game.pdn", "--ply", "3")
    assert r.returncode == 0, r.stderr
    assert "Black to move" in r.stdout


def test_bad_arguments_one_line_exit_2(wheel_cli):
    for args, needle in (
        (["nonsense"], "cannot tell which game"),
        (["W:W21-32:B1-12", "--out", "x.jpg"], "--out"),
        (["4HPwATDgc/ABMA", "--dice", "3", "9"], "--dice"),
        (["missing.mat"], "no such game record file"),
    ):
        r = wheel_cli.run("show", *args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0] and "Traceback" not in r.stderr, (
            args,
            r.stderr,
        )
