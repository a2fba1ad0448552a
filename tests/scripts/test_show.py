"""`boardgym show`: FEN, Position ID (with Match ID / dice) and game records to SVG, PNG or text."""

import numpy as np
import pytest
from png_decode import decode_png

from boardgym.envs import (
    backgammon_match,
    draughts,
    draughts_pdn,
    draughts_render,
    records,
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
    # 25-pixel squares, 12-pixel margins and a 12-pixel legend strip
    assert decode_png(png.read_bytes()).shape == (236, 224, 3)
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


@pytest.mark.parametrize("dice", [["3", "1"], ["3-1"], ["31"]])
def test_show_takes_the_dice_in_every_form_play_takes(dice):
    assert "to play 3-1" in show.main(["4HPwATDgc/ABMA", "--dice", *dice]).text()


@pytest.mark.parametrize("dice", [["3", "7"], ["3-1", "2"], ["3"]])
def test_show_refuses_a_bad_roll_naming_dice(dice):
    with pytest.raises(cli.UsageError, match="--dice: expected two dice 1..6"):
        show.main(["4HPwATDgc/ABMA", "--dice", *dice])


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


def test_a_record_s_position_has_its_last_move_marked(tmp_path, capsys):
    path = tmp_path / "capture.pdn"
    path.write_text('[GameType "25"]\n[FEN "W:W22,28:B4,11,17,18"]\n1. c3xg7 *\n')  # short form
    board = show.main([str(path)])
    assert "last move: White c3:e5:g7" in capsys.readouterr().out  # every landing square
    svg = board.svg()
    assert svg.count('<line class="last-move"') == 2 and svg.count('<rect class="last-move"') == 2
    assert "last-move" not in show.main([str(path), "--ply", "0"]).svg()  # the start: no move
    mat = tmp_path / "game.mat"
    mat.write_text(MATCH)
    board = show.main([str(mat), "--ply", "2"])  # after player_0's 41: 8/4 6/5*
    assert "last play: player_0 (X) 4-1: 8/4 6/5*" in board.text()
    assert board.svg().count('class="last-move"') == 4  # points 8, 4, 6 and 5


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
        (["4HPwATDgc/ABMA", "--dice", "3"], "--dice: expected two dice 1..6"),
        (["4HPwATDgc/ABMA", "--dice", "3", "7"], "--dice: expected two dice 1..6"),
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


def _match_file(tmp_path, length=5, seed=1):
    from bg_matches import play_match

    games = play_match(length, seed, double_rate=0.03)
    path = tmp_path / "match.mat"
    path.write_text(backgammon_match.match_to_text(games, length))
    return path, games


def test_any_game_and_ply_of_a_match_file_with_its_score(tmp_path, capsys):
    """--game K --ply P: the position replayed at ply P of game K (records.position_at), drawn
    with the match length, the score before the game and the Crawford marker; a line names the
    game, the ply and the play."""
    path, games = _match_file(tmp_path)  # 3 games, the last the Crawford game at 4-1
    _, frames, match = records.record_frames(path.read_text())
    assert [g["crawford"] for g in match["games"]] == [False, False, True]
    for k, g in enumerate(games, 1):
        state, _ = records.position_at(frames, 3, game=k)
        board = show.main([str(path), "--game", str(k), "--ply", "3"])
        assert board.position_id == bg.position_id(state)
        crawford = " (Crawford)" if match["games"][k - 1]["crawford"] else ""
        line = f"match to 5, score {g['score'][0]}-{g['score'][1]}{crawford}"
        assert board.text().splitlines()[-1] == " " + line
        head = capsys.readouterr().out.splitlines()[0]
        n = records.plies(frames, k)
        assert head.startswith(f"game {k} of {len(games)}, ply 3 of {n}: ")
    svg = tmp_path / "g2.svg"
    show.main([str(path), "--game", "2", "--out", str(svg)])  # the picture says the score too
    assert f"match to 5, score {games[1]['score'][0]}-{games[1]['score'][1]}" in svg.read_text()
    last = show.main([str(path), "--game", "3"])  # the last game's final position
    assert last.position_id == bg.position_id(frames[-1]["state"])
    assert last.text().splitlines()[-1] == " match to 5, score 4-1 (Crawford)"
    first = show.main([str(path)])  # by default the first game, at its end
    assert first.position_id == bg.position_id(records.position_at(frames)[0])


def test_a_game_or_ply_out_of_range_is_one_line(tmp_path, capsys):
    path, games = _match_file(tmp_path)
    n = len(games)
    _, frames, _ = records.record_frames(path.read_text())
    plies2 = records.plies(frames, 2)
    for args, needle in [
        (["--game", str(n + 1)], f"--game {n + 1} is past the end of the record ({n} games)"),
        (["--game", "0"], "--game 0: games are numbered from 1"),
        (["--game", "-1"], "--game must be auto, draughts, backgammon or the number"),
        (["--game", "2", "--ply", str(plies2 + 1)], f"past the end of game 2 ({plies2} turns)"),
    ]:
        assert cli.run(show.main, [str(path), *args], prog="boardgym show") == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and needle in err[0], (args, err)
    assert cli.run(show.main, ["4HPwATDgc/ABMA", "--game", "2"], prog="boardgym show") == 2
    assert "--game 2 (a game number) is for a record file" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"game 9 is not 1\.\.\d+: the record has"):
        records.position_at(frames, 0, game=9)
