"""`boardgym play` from the installed wheel: scripted games of both games from both seats, the
record files, and the error paths (one line, exit 2)."""

import re

import pytest
from wheel_install import ok

RACE = "23YHAIC27QAAAA"  # a backgammon race the player on roll has all but won


def test_play_help(wheel_cli):
    out = ok(wheel_cli.run("play", "--help"))
    for flag in (
        "--game",
        "--agent",
        "--seat",
        "--cube",
        "--depth",
        "--time-limit",
        "--agent-option",
        "--fen",
        "--position-id",
        "--save",
    ):
        assert flag in out
    assert "(default: draughts)" in out and "(default: greedy)" in out


def test_draughts_white_then_save(wheel_cli):
    out = ok(
        wheel_cli.run(
            "play", "--game", "draughts", "--agent", "greedy", input="c3-d4\nsave first.pdn\nquit\n"
        )
    )
    assert re.search(r"^greedy \(Black\) played [a-h][1-8]-[a-h][1-8]$", out, re.M)
    assert (wheel_cli.cwd / "first.pdn").read_text().startswith('[Event "?"]')


def test_draughts_black_with_agent_options(wheel_cli):
    out = ok(
        wheel_cli.run(
            "play",
            "--game",
            "draughts",
            "--agent",
            "draughts-alphabeta",
            "--seat",
            "1",
            "--depth",
            "2",
            "--time-limit",
            "1",
            input="quit\n",
        )
    )
    assert re.search(r"^draughts-alphabeta \(White\) played ", out, re.M)
    assert "your move (Black):" in out


def test_draughts_from_a_fen_to_a_win_saved_as_pdn(wheel_cli):
    out = ok(
        wheel_cli.run(
            "play", "--game", "draughts", "--fen", "W:W22:B18", "--save", "won.pdn", input="c3:e5\n"
        )
    )
    assert "game over: you win (player_0): Black has no pieces left (G.1)" in out
    assert "1. c3:e5 2-0" in (wheel_cli.cwd / "won.pdn").read_text()


def test_backgammon_first_seat(wheel_cli):
    out = ok(
        wheel_cli.run(
            "play",
            "--game",
            "backgammon",
            "--agent",
            "backgammon-td",
            "--dice",
            "3-1",
            "--save",
            "g.mat",
            input="8/5 6/5\nquit\n",
        )
    )
    assert "you rolled 3-1: your play (your numbering):" in out
    assert re.search(
        r"^backgammon-td rolled [1-6]-[1-6] and (played .* in your numbering\)|"
        r"cannot move)$",
        out,
        re.M,
    )
    assert "31: 8/5 6/5" in (wheel_cli.cwd / "g.mat").read_text()


def test_backgammon_second_seat_cube_drop(wheel_cli):
    out = ok(
        wheel_cli.run(
            "play",
            "--game",
            "backgammon",
            "--agent",
            "backgammon-td",
            "--seat",
            "1",
            "--cube",
            "--position-id",
            RACE,
            input="drop\n",
        )
    )
    assert "backgammon-td doubles to 2: 'take' or 'drop'?" in out
    assert "game over: backgammon-td wins (player_0): you dropped the double (C.2): 1 point" in out


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--game", "backgammon", "--agent", "draughts-greedy"], "is a draughts agent"),
        (["--game", "draughts", "--agent", "backgammon-td"], "is a backgammon agent"),
        (["--seat", "2"], "--seat"),
        (["--fen", "nonsense"], "--fen"),
        (["--game", "backgammon", "--position-id", "x"], "--position-id"),
        (["--agent-option", "depth"], "--agent-option"),
        (["--agent", "greedy", "--depth", "3"], "takes no option 'depth'"),
    ],
)
def test_play_bad_arguments_one_line_exit_2(wheel_cli, args, needle):
    r = wheel_cli.run("play", *args, input="quit\n")
    assert r.returncode == 2, (args, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and lines[0].startswith("boardgym play: error: ")
    assert "Traceback" not in r.stderr
