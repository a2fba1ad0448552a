"""The game archive (agents/arena/archive.py): rows written and read back, filters, export, the
schema's versions and migrations, two processes writing at once, a read-only file, a file that
is not an archive; and the rows of real games (sessions.archive_row) replayed from their
actions."""

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from types import SimpleNamespace

import pytest

from boardgym.agents.arena import archive as A
from boardgym.agents.arena import sessions
from boardgym.envs import draughts_pdn, records


def row(**kw):
    base = {"game": "draughts", "source": "play", "player_0": "you", "player_1": "greedy"}
    return {**base, **kw}


@pytest.fixture
def store(tmp_path):
    with A.Archive(tmp_path / "a.sqlite") as s:
        yield s


def test_created_on_first_use_in_wal_mode_at_the_schema_version(tmp_path):
    path = tmp_path / "deep" / "folder" / "a.sqlite"
    with A.Archive(path) as s:
        assert path.is_file() and s.version() == A.SCHEMA_VERSION >= 1
        s.save("ab" * 8, row())
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("PRAGMA user_version").fetchone()[0] == A.SCHEMA_VERSION
    con.close()


def test_default_path_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("BOARDGYM_ARCHIVE", str(tmp_path / "x.sqlite"))
    assert A.default_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("BOARDGYM_ARCHIVE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert A.default_path() == tmp_path / "boardgym" / "archive.sqlite"


def test_save_replaces_the_row_and_get_decodes_it(store):
    uid = store.new_uid()
    store.save(uid, row(settings={"seed": 3}, seed=3, actions=[1, 2]))
    first = store.get(uid)
    store.save(uid, row(actions=[1, 2, 3], over=True, result="player_1", how="x", points=1.0))
    g = store.get(uid)
    assert g["actions"] == [1, 2, 3] and g["over"] is True and g["result"] == "player_1"
    assert g["id"] == first["id"] and g["created"] == first["created"]
    assert (
        first["settings"] == {"seed": 3} and first["seed"] == 3 and first["result"] == "unfinished"
    )
    assert store.count() == 1
    assert store.get("f" * 16) is None and store.get("../etc") is None


@pytest.mark.parametrize(
    "bad, text",
    [
        (row(game="chess"), "row['game'] must be one of"),
        (row(source="elsewhere"), "row['source'] must be one of"),
        (row(result="won"), "row['result'] must be one of"),
        (row(player_0=None), "row['player_0'] must be a string"),
        (row(id=3), "keys the games table does not take"),
        (row(colour="red"), "keys the games table does not take"),
    ],
)
def test_bad_rows_are_refused_by_name(store, bad, text):
    with pytest.raises(ValueError, match=text.replace("[", r"\[").replace("]", r"\]")):
        store.save("ab" * 8, bad)
    assert store.count() == 0


def test_bad_uids_are_refused(store):
    for uid in ("", "xyz", "a" * 40, "'; DROP TABLE games; --", 12):
        with pytest.raises(ValueError, match="game id"):
            store.save(uid, row())


def test_filters_by_game_player_result_source_and_date(store):
    store.save("01" * 8, row(player_1="draughts-alphabeta", result="player_1", over=True))
    store.save(
        "02" * 8, row(game="backgammon", player_0="td", player_1="random", source="evaluate")
    )
    store.save("03" * 8, row(player_0="50%_off", result="draw", over=True))
    uids = lambda rows: sorted(r["uid"] for r in rows)  # noqa: E731
    assert uids(store.list()) == ["01" * 8, "02" * 8, "03" * 8]
    assert uids(store.list(game="backgammon")) == ["02" * 8]
    assert uids(store.list(player="ALPHA")) == ["01" * 8]
    assert uids(store.list(player="td")) == ["02" * 8]
    assert uids(store.list(player="%")) == ["03" * 8]  # a literal %, not a wildcard
    assert uids(store.list(player="_")) == ["03" * 8]
    assert uids(store.list(result="draw")) == ["03" * 8]
    assert uids(store.list(result="unfinished")) == ["02" * 8]
    assert uids(store.list(source="evaluate")) == ["02" * 8]
    today = time.strftime("%Y-%m-%d")
    assert len(store.list(since=today, until=today)) == 3
    assert store.list(until="2000-01-01") == [] and store.list(since="2999-01-01") == []
    assert store.count(game="draughts") == 2
    assert [r["uid"] for r in store.list(limit=1)] == ["03" * 8]  # newest first
    assert [r["uid"] for r in store.list(limit=1, offset=2)] == ["01" * 8]
    for kw, text in [
        ({"game": "chess"}, "game must be one of"),
        ({"result": "won"}, "result must be one of"),
        ({"since": "yesterday"}, "since must be a date"),
        ({"limit": -1}, "limit must be"),
        ({"limit": 10**6}, "limit must be at most"),
    ]:
        with pytest.raises(ValueError, match=text):
            store.list(**kw)
    with pytest.raises(TypeError):
        store.count(colour="red")


def test_export_writes_one_file_per_record(store, tmp_path):
    store.save("01" * 8, row(player_0="a/../../b", record="[Event]\n"))
    store.save("02" * 8, row(game="backgammon", record=None))
    store.save("03" * 8, row(game="backgammon", record=" 0 point match\n"))
    out = tmp_path / "out"
    written, missing = store.export(out)
    assert missing == 1 and sorted(p.name for p in out.iterdir()) == sorted(p.name for p in written)
    names = sorted(p.name for p in written)
    assert names == ["000001-a_.._.._b-vs-greedy.pdn", "000003-you-vs-greedy.mat"]
    assert all(p.parent == out for p in written)
    assert store.export(tmp_path / "o2", game="backgammon")[0][0].read_text() == " 0 point match\n"


def test_a_newer_schema_is_refused_and_an_older_one_migrated(tmp_path, monkeypatch):
    path = tmp_path / "a.sqlite"
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {A.SCHEMA_VERSION + 1}")
    con.close()
    with pytest.raises(A.ArchiveError, match="newer than this boardgym"):
        A.Archive(path)
    # a further version: the file at the current one gains it, once, and keeps its rows
    path2 = tmp_path / "b.sqlite"
    with A.Archive(path2) as s:
        s.save("01" * 8, row())
    step = (
        "ALTER TABLE games ADD COLUMN rating REAL; CREATE INDEX games_by_rating ON games (rating)"
    )
    monkeypatch.setattr(A, "MIGRATIONS", (*A.MIGRATIONS, step))
    monkeypatch.setattr(A, "SCHEMA_VERSION", A.SCHEMA_VERSION + 1)
    with A.Archive(path2) as s:
        assert s.version() == A.SCHEMA_VERSION and s.count() == 1
    with A.Archive(path2) as s:  # not run twice (a second ADD COLUMN would fail)
        assert s.version() == A.SCHEMA_VERSION
    # a failing migration leaves the file at its version
    monkeypatch.setattr(A, "MIGRATIONS", (*A.MIGRATIONS, "CREATE TABLE t (a); BROKEN SQL"))
    monkeypatch.setattr(A, "SCHEMA_VERSION", A.SCHEMA_VERSION + 1)
    with pytest.raises(A.ArchiveError):
        A.Archive(path2)
    con = sqlite3.connect(path2)
    assert con.execute("PRAGMA user_version").fetchone()[0] == A.SCHEMA_VERSION - 1
    assert con.execute("SELECT name FROM sqlite_master WHERE name = 't'").fetchone() is None
    con.close()


def test_not_an_archive_and_a_read_only_archive_say_so(tmp_path, monkeypatch):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(A.ArchiveError, match="not a boardgym game archive"):
        A.Archive(junk)
    path = tmp_path / "ro.sqlite"
    with A.Archive(path) as s:
        s.save("01" * 8, row())
    os.chmod(path, 0o444)
    if os.access(path, os.W_OK):  # root writes any file: the archive is told it cannot
        monkeypatch.setattr(A.os, "access", lambda p, mode: False)
    try:
        with A.Archive(path) as s:
            assert s.read_only and s.count() == 1  # still readable
            with pytest.raises(A.ArchiveError, match="is read-only"):
                s.save("02" * 8, row())
            rec = A.Recorder(s)
            assert rec.save(row()) is False and "read-only" in rec.problem
    finally:
        os.chmod(path, 0o644)


def test_a_failed_write_is_a_message_and_the_next_save_makes_it_good(store, monkeypatch):
    rec = A.Recorder(store)
    real = store._write

    def full(sql, params):
        raise A.ArchiveError(
            A._why(sqlite3.OperationalError("database or disk is full"), store.path)
        )

    monkeypatch.setattr(store, "_write", full)
    assert rec.save(row(actions=[1])) is False and "is full" in rec.problem
    monkeypatch.setattr(store, "_write", real)
    assert rec.save(row(actions=[1, 2])) is True and rec.problem is None
    assert store.get(rec.uid)["actions"] == [1, 2]
    assert A.Recorder(None).save(row()) is False


WRITER = textwrap.dedent(
    """
    import sys
    from boardgym.agents.arena.archive import Archive
    path, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Archive(path) as s:
        for k in range(n):
            uid = f"{tag}{k:014x}"
            for j in range(3):
                s.save(uid, {"game": "draughts", "source": "play", "player_0": tag,
                             "player_1": "x", "actions": list(range(j + 1))})
    """
)


def test_two_processes_write_the_same_archive_at_once(tmp_path):
    path = tmp_path / "a.sqlite"
    A.Archive(path).close()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), tag, "150"], stderr=subprocess.PIPE
        )
        for tag in ("aa", "bb")
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
    with A.Archive(path) as s:
        assert s.count(player="aa") == 150 and s.count(player="bb") == 150
        assert all(len(s.get(r["uid"])["actions"]) == 3 for r in s.list(limit=1000))
        assert s.integrity() == "ok"


def settings(game, **kw):
    base = dict(
        game=game,
        agent="random",
        seed=5,
        fen=None,
        position_id=None,
        dice=None,
        cube=False,
        depth=None,
        time_limit=None,
        agent_option=[],
    )
    return SimpleNamespace(**{**base, **kw})


@pytest.mark.parametrize("game", ["draughts", "backgammon"])
def test_a_game_row_replays_from_its_actions(game, store):
    """archive_row of a game played by two random agents; a new game of the same settings given
    the stored actions reaches the same position, outcome and record."""
    cfg = settings(game)
    cls = sessions.DraughtsGame if game == "draughts" else sessions.BackgammonGame
    g = cls(cfg, ("a", "b"))
    agents = [sessions.load_agent(cfg), sessions.load_agent(settings(game, seed=6))]
    for _ in range(3000):
        if g.env.is_over:
            break
        g.agent_step(agents[int(g.env.agent_selection[-1])])
    assert g.env.is_over
    saved = sessions.archive_row(g, "evaluate", {"seed": 5})
    store.save("ab" * 8, saved)
    back = store.get("ab" * 8)
    assert back["result"] in ("player_0", "player_1", "draw") and back["how"]
    again = cls(cfg, ("a", "b"))
    for a in back["actions"]:
        again.step(a)
    assert again.env.is_over and again.outcome() == g.outcome()
    assert again.record() == g.record() == back["record"]
    kind, frames, _ = records.record_frames(back["record"])
    assert kind == game and len(frames) > 5
    if game == "draughts":
        assert draughts_pdn.read_pdn(back["record"])[3] in ("2-0", "0-2", "1-1")
        assert back["points"] in (None, 1.0)
    else:
        assert back["points"] >= 1


def test_json_columns_are_json(store):
    store.save("ab" * 8, row(extra={"log": ["a", "b"], "undo": [[2, 1]]}, score=[1, 2]))
    con = sqlite3.connect(store.path)
    extra, score = con.execute("SELECT extra, score FROM games").fetchone()
    assert json.loads(extra) == {"log": ["a", "b"], "undo": [[2, 1]]} and json.loads(score) == [
        1,
        2,
    ]
    con.close()
