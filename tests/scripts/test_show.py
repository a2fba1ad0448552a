"""`boardgym show`: FEN, Position ID (with Match ID / dice) and game records to SVG, PNG or text."""

import numpy as np
import pytest
from png_decode import decode_png

from boardgym.envs import (
    backgammon_match,
    draughts,
    draughts_pdn,
    draughts_render,
)
from boardgym.envs import backgammon_notation as bg
from boardgym.scripts import cli, show

MATCH = """ 0 point match

 Game 1
 player_0 : 0                         player_1 : 0
  1)                                  54: 24/20 13/8
  2) 41: 8/4 6/5*                     41: 25/24 6/2
  3) 53: 5/2 8/3                      53: 8/5 13/8
"""


def first_moves(n):
    state, moves = draughts.initial_state(), []
    for _ in range(n):
        moves.append(draughts.legal_moves(state)[0])
        state = draughts.apply(state, moves[-1])
    return moves, state


def test_fen_to_text_svg_and_png(tmp_path, capsys):
    board = show.main(["W:W21,22:B1,K30"])
    out = capsys.readouterr().out
    assert isinstance(board, draughts_render.Board) and "White to move" in out and "B" in out
    svg = tmp_path / "p.svg"
    board = show.main(["W:W21,22:B1,K30", "--out", str(svg)])
    assert svg.read_text() == board.svg() and f"wrote {svg}" in capsys.readouterr().out
    png = tmp_path / "p.png"
    board = show.main(["B:W21,22:B1,K30", "--out", str(png), "--scale", "0.5"])
    assert decode_png(png.read_bytes()).shape == (224, 224, 3)  # 25-pixel squares, 12-pixel margins
    assert "Black to move" in board.svg()
    flipped = show.main(["W:W21,22:B1,K30", "--perspective", "1"])
    assert flipped.text().splitlines()[-2] == "   h  g  f  e  d  c  b  a"


def test_position_id_with_match_id_dice_and_perspective(tmp_path):
    mid = bg.match_id(bg.initial_state(), dice=(6, 5), turn=0)
    board = show.main([f"4HPwATDgc/ABMA:{mid}", "--perspective", "1"])
    assert "player_0 (X) to play 6-5" in board.text() and "numbered for player_1" in board.text()
    board = show.main(["4HPwATDgc/ABMA", "--dice", "3", "1", "--out", str(tmp_path / "b.png")])
    assert "to play 3-1" in board.text()
    assert np.array_equal(decode_png((tmp_path / "b.png").read_bytes()), board.rgb())


def test_pdn_record_at_a_ply(tmp_path):
    moves, final = first_moves(10)
    path = tmp_path / "game.pdn"
    path.write_text(draughts_pdn.game_to_pdn(moves))
    assert np.array_equal(show.main([str(path)]).state, final)
    _, after4 = first_moves(4)
    assert np.array_equal(show.main([str(path), "--ply", "4"]).state, after4)
    assert np.array_equal(show.main([str(path), "--ply", "0"]).state, draughts.initial_state())
    other = tmp_path / "game.txt"  # a record whose name does not say: told by its text
    other.write_text(path.read_text())
    assert np.array_equal(show.main([str(other)]).state, final)


def test_match_record_at_a_ply_shows_the_next_roll(tmp_path):
    path = tmp_path / "game.mat"
    path.write_text(MATCH)
    turns, final = backgammon_match.read_match_text(MATCH)
    assert np.array_equal(show.main([str(path)]).state, final)
    board = show.main([str(path), "--ply", "2"])  # after 54 and 41: player_1 to play 41
    assert "player_1 (O) to play 4-1" in board.text()
    _, after2 = backgammon_match.read_match_text(
        backgammon_match.game_to_match_text(turns[:2], None)
    )
    assert board.position_id == bg.position_id(after2)
    assert "player_1 (O) to play 5-4" in show.main([str(path), "--ply", "0"]).text()


@pytest.mark.parametrize(
    "args, needle",
    [
        (["nonsense"], "cannot tell which game"),
        (["missing.pdn"], "no such game record file"),
        (["W:W21-32:B1-12", "--dice", "3", "1"], "--dice is for backgammon"),
        (["W:W21-32:B1-12", "--match-id", "cAkAAAAAAAAA"], "--match-id is for backgammon"),
        (["W:W21-32:B1-12", "--ply", "3"], "--ply is for a game record"),
        (["W:W21-32:B1-12", "--out", "x.jpg"], "--out must end in .svg or .png"),
        (["W:W21-32:B1-12", "--scale", "0"], "--scale"),
        (["4HPwATDgc/ABMA", "--dice", "3"], "--dice takes two dice"),
        (["4HPwATDgc/ABMA", "--dice", "3", "7"], "--dice must be two numbers 1..6"),
        (["4HPwATDgc/ABMA", "--match-id", "nonsense"], "Match ID"),
        (["W:W21-32:B1-99"], "bad FEN"),
        (["W:W21-32:B1-12", "--game", "backgammon"], "Position ID"),
        (["4HPwATDgc/ABMA", "--perspective", "2"], "--perspective"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(args, needle, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.run(show.main, args, prog="boardgym show") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("boardgym show: error:") and needle in err[0], err


def test_record_errors_name_the_problem(tmp_path, capsys):
    path = tmp_path / "game.pdn"
    path.write_text(draughts_pdn.game_to_pdn(first_moves(3)[0]))
    assert cli.run(show.main, [str(path), "--ply", "9"], prog="boardgym show") == 2
    assert "past the end of the game (3 plies)" in capsys.readouterr().err
    bad = tmp_path / "bad.mat"
    bad.write_text(MATCH.replace("8/4 6/5*", "8/1 6/5*"))
    assert cli.run(show.main, [str(bad)], prog="boardgym show") == 2
    assert "not legal" in capsys.readouterr().err
    mat = tmp_path / "game.mat"
    mat.write_text(MATCH)
    assert cli.run(show.main, [str(mat), "--match-id", "cAkAAAAAAAAA"], prog="boardgym show") == 2
    assert "--match-id is for a Position ID" in capsys.readouterr().err


def test_settings_object_and_help(capsys):
    board = show.main(show.Settings(position="4HPwATDgc/ABMA", dice=(2, 1)))
    assert "to play 2-1" in board.text()
    with pytest.raises(SystemExit) as e:
        show.main(["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert "--out" in text and "(default: 1.0)" in text and "boardgym show" in text
