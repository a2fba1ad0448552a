"""`boardgym egdb`: build (resumable), probe and info in-process, and its errors."""

import pytest

from boardgym.scripts import cli, egdb


def test_build_probe_info(tmp_path, capsys):
    d = str(tmp_path / "tables")
    out = egdb.main(["build", "--pieces", "3", "--dir", d, "--verify"])
    text = capsys.readouterr().out
    assert out["mismatches"] == 0 and out["entries"] > 0 and out["bytes"] > 0
    assert "0101: 992 entries solved" in text and "verified: 0 mismatches" in text
    again = egdb.main(["build", "--pieces", "3", "--dir", d])
    assert "0101: 992 entries loaded" in capsys.readouterr().out  # resumes: nothing solved
    assert again["bytes"] == out["bytes"]
    res = egdb.main(["probe", "W:WK29:BK22", "--dir", d])
    text = capsys.readouterr().out
    assert res["result"] == "win" and res["t"] == 1
    assert "White to move: win in 1 plies" in text
    assert "  a1:d4: win for White (then 0 plies to the next capture, crowning or the end)" in text
    assert res["moves"]["a1:d4"] == ("loss", 0)  # the library keeps the opponent's view
    rows = egdb.main(["info", "--dir", d])
    assert len(rows) == 16 and "complete up to 3 pieces" in capsys.readouterr().out


def test_probe_from_the_environment_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BOARDGYM_EGDB", str(tmp_path))
    egdb.main(["build", "--pieces", "2"])
    assert (tmp_path / "rd_0101.v1.npz").exists()
    assert egdb.main(["probe", "B:WK29:BK4"])["result"] == "loss"


@pytest.mark.parametrize(
    "args, needle",
    [
        (["probe"], "probe needs a FEN"),
        (["build", "W:WK1:BK30"], "a FEN is only given to probe"),
        (["build", "--pieces", "9"], "--pieces must be in 2..6"),
        (["solve"], "invalid choice"),
        (["probe", "W:WK1:BK33"], "bad FEN"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(args, needle, capsys, tmp_path):
    assert cli.run(egdb.main, [*args, "--dir", str(tmp_path)], prog="boardgym egdb") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("boardgym egdb: error:") and needle in err[0], err


def test_probe_without_tables_or_too_many_pieces(tmp_path, capsys):
    assert cli.run(egdb.main, ["probe", "W:WK1:BK30", "--dir", str(tmp_path)]) == 2
    assert "boardgym egdb build" in capsys.readouterr().err
    egdb.main(["build", "--pieces", "2", "--dir", str(tmp_path)])
    capsys.readouterr()
    assert cli.run(egdb.main, ["probe", "W:WK1,K2:BK30", "--dir", str(tmp_path)]) == 2
    assert "go up to 2" in capsys.readouterr().err
