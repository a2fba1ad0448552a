"""``boardgym archive``: list the games kept with filters, export their records, bad arguments in
one line."""

import pytest

from boardgym.agents.arena.archive import Archive
from boardgym.envs import draughts_pdn
from boardgym.scripts import archive, cli

PDN = '[White "you"]\n[Black "greedy"]\n[Result "*"]\n\n1. c3-d4 f6-g5 *\n'


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "games.sqlite"
    with Archive(path) as store:
        base = {"source": "play", "player_0": "you"}
        store.save("01" * 8, {**base, "game": "draughts", "player_1": "greedy", "record": PDN})
        store.save("02" * 8, {**base, "game": "backgammon", "player_1": "td", "record": None})
        store.save(
            "03" * 8,
            {**base, "game": "backgammon", "player_1": "td", "record": " 0 point match\n"},
        )
    return path


def test_list_and_its_filters(db, capsys):
    games = archive.main(["list", "--db", str(db)])
    assert [g["uid"] for g in games] == ["03" * 8, "02" * 8, "01" * 8]
    out = capsys.readouterr().out
    assert "you - greedy" in out and "3 of 3 games" in out
    assert [g["uid"] for g in archive.main(["list", "--db", str(db), "--game", "draughts"])] == [
        "01" * 8
    ]
    assert len(archive.main(["list", "--db", str(db), "--player", "TD", "--limit", "1"])) == 1
    assert archive.main(["list", "--db", str(db), "--until", "2001-01-01"]) == []


def test_export_writes_the_records(db, tmp_path, capsys):
    out = tmp_path / "out"
    written = archive.main(["export", str(out), "--db", str(db)])
    assert sorted(p.name for p in written) == [
        "000001-you-vs-greedy.pdn",
        "000003-you-vs-td.mat",
    ]
    printed = capsys.readouterr().out
    assert "wrote 2 records" in printed and "1 without a record skipped" in printed
    assert draughts_pdn.read_pdn((out / "000001-you-vs-greedy.pdn").read_text())[2] == [
        "c3-d4",
        "f6-g5",
    ]
    only = archive.main(["export", str(tmp_path / "bg"), "--db", str(db), "--game", "backgammon"])
    assert [p.name for p in only] == ["000003-you-vs-td.mat"]


@pytest.mark.parametrize(
    "args, needle",
    [
        (["export"], "export needs a folder"),
        (["list", "somewhere"], "only given to export"),
        (["list", "--limit", "0"], "--limit must be"),
        (["list", "--since", "someday"], "since must be a date"),
    ],
)
def test_bad_arguments_name_the_problem(db, args, needle):
    with pytest.raises(cli.UsageError, match=needle):
        archive.main([*args, "--db", str(db)])


def test_a_file_that_is_not_an_archive(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"no" * 1000)
    with pytest.raises(cli.UsageError, match="not a boardgym game archive"):
        archive.main(["list", "--db", str(junk)])
