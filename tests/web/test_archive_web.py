"""The web board's game archive (scripts/web with agents/arena/archive.py): every game written
as it goes, listed with filters, replayed and downloaded from the archive, taken up again after
a restart (a new app on the same file), after it was dropped from memory, and after the server
process was killed (kill -9) in the middle of a game; a read-only archive is a message and the
game goes on."""

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from boardgym.agents.arena.archive import Archive  # noqa: E402
from boardgym.envs import draughts_pdn  # noqa: E402
from boardgym.scripts.web import app as serve  # noqa: E402


def client_of(store, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TestClient(serve.make_app(archive=store, **kw))


@pytest.fixture
def path(tmp_path):
    return tmp_path / "games.sqlite"


def play(c, v, n):
    """n of the person's actions (the first legal one each time)."""
    for _ in range(n):
        if v["over"] or not v["legal"]:
            break
        v = c.post(f"/api/games/{v['id']}/action", json={"action": v["legal"][0]["action"]}).json()
        assert "error" not in v, v
    return v


SAME = ("board", "log", "legal", "acting", "over", "can_undo", "names", "mode", "actions")


def test_a_game_is_written_as_it_goes_and_taken_up_after_a_restart(path):
    c = client_of(Archive(path))
    v = c.post("/api/games", json={"game": "draughts", "agent": "greedy", "seed": 3}).json()
    v = play(c, v, 4)
    row = Archive(path).get(v["id"])
    assert row["source"] == "web-play" and row["player_0"] == "you" and row["player_1"] == "greedy"
    assert len(row["actions"]) == v["actions"] >= 8 and row["result"] == "unfinished"
    assert row["settings"] == {
        "game": "draughts",
        "mode": "play",
        "agent": "greedy",
        "seat": 0,
        "seed": 3,
    }
    assert row["extra"]["log"] == v["log"] and len(row["extra"]["undo"]) == 4
    assert draughts_pdn.read_pdn(row["record"])[2] == [
        line.split(" played ")[1].split()[0] for line in v["log"]
    ]
    c2 = client_of(Archive(path))  # a new server on the same archive
    back = c2.get(f"/api/games/{v['id']}").json()
    assert {k: back[k] for k in SAME} == {k: v[k] for k in SAME}
    # undo works across the restart, and the game goes on
    u = c2.post(f"/api/games/{v['id']}/undo").json()
    assert u["actions"] < v["actions"] and u["log"][-1] == "taken back"
    v2 = play(c2, u, 200)
    assert v2["over"]
    row = Archive(path).get(v["id"])
    assert row["over"] and row["result"] in ("player_0", "player_1", "draw") and row["how"]


def test_a_watched_backgammon_game_with_the_cube_is_taken_up_again(path):
    c = client_of(Archive(path))
    body = {"game": "backgammon", "mode": "watch", "agents": ["td", "greedy"], "cube": True}
    v = c.post("/api/games", json={**body, "seed": 2}).json()
    for _ in range(15):
        v = c.post(f"/api/games/{v['id']}/step").json()
    back = client_of(Archive(path)).get(f"/api/games/{v['id']}").json()
    for k in (*SAME, "dice", "cube_choices", "position_id"):
        assert back[k] == v[k], k
    row = Archive(path).get(v["id"])
    assert row["source"] == "web-watch" and row["record"].count("\n") > 3


def test_a_game_dropped_from_memory_comes_back_from_the_archive(path):
    c = client_of(Archive(path), max_games=1)
    a = play(c, c.post("/api/games", json={"game": "draughts", "agent": "greedy"}).json(), 2)
    b = c.post("/api/games", json={"game": "draughts", "agent": "random"}).json()  # drops a
    back = c.get(f"/api/games/{a['id']}").json()
    assert back["board"] == a["board"] and back["log"] == a["log"]
    assert c.get(f"/api/games/{b['id']}").json()["board"] == b["board"]
    # without an archive a dropped game is gone
    m = client_of(None, max_games=1)
    a = m.post("/api/games", json={"game": "draughts"}).json()
    m.post("/api/games", json={"game": "draughts"})
    assert m.get(f"/api/games/{a['id']}").status_code == 404
    assert m.get("/api/archive").status_code == 400


def test_the_list_filters_replay_and_download(path):
    c = client_of(Archive(path))
    d = play(c, c.post("/api/games", json={"game": "draughts", "agent": "greedy"}).json(), 3)
    w = c.post(
        "/api/games", json={"game": "backgammon", "mode": "watch", "agents": ["td", "random"]}
    )
    w = w.json()
    for _ in range(6):
        w = c.post(f"/api/games/{w['id']}/step").json()
    listing = c.get("/api/archive").json()
    assert listing["total"] == 2 and [g["uid"] for g in listing["games"]] == [w["id"], d["id"]]
    assert "actions" not in listing["games"][0] and "record" not in listing["games"][0]
    for query, uids in [
        ("game=draughts", [d["id"]]),
        ("player=TD", [w["id"]]),
        ("player=greedy", [d["id"]]),
        ("result=unfinished", [w["id"], d["id"]]),
        ("result=draw", []),
        ("source=web-watch", [w["id"]]),
        (f"since={time.strftime('%Y-%m-%d')}", [w["id"], d["id"]]),
        ("until=2001-01-01", []),
        ("limit=1&offset=1", [d["id"]]),
    ]:
        got = c.get(f"/api/archive?{query}").json()
        assert [g["uid"] for g in got["games"]] == uids, (query, got)
    for query, text in [
        ("game=chess", "game must be one of"),
        ("result=won", "result must be one of"),
        ("since=someday", "since must be a date"),
        ("limit=-3", "'limit' must be a whole number"),
        ("limit=99999999", "limit must be at most"),
        ("player=" + "x" * 300, "too long"),
    ]:
        r = c.get(f"/api/archive?{query}")
        assert r.status_code == 400 and text in r.json()["error"], (query, r.json())
    rep = c.get(f"/api/archive/{d['id']}/replay").json()
    assert rep["game"] == "draughts" and len(rep["frames"]) == d["actions"] + 1
    rec = c.get(f"/api/archive/{w['id']}/record")
    assert rec.status_code == 200 and '.mat"' in rec.headers["content-disposition"]
    assert "-td-vs-random.mat" in rec.headers["content-disposition"]
    assert c.get("/api/archive/" + "0" * 16 + "/replay").status_code == 404
    assert c.get("/api/archive/..%2F..%2Fetc/record").status_code == 404


def test_a_game_from_a_position_id_is_kept_without_a_record(path):
    from boardgym.envs import backgammon_notation as bg_api

    pid = bg_api.legal_plays("4HPwATDgc/ABMA", 3, 1)[0]
    c = client_of(Archive(path))
    v = c.post("/api/games", json={"game": "backgammon", "position_id": pid}).json()
    v = play(c, v, 2)
    assert Archive(path).get(v["id"])["record"] is None
    r = c.get(f"/api/archive/{v['id']}/replay")
    assert r.status_code == 400 and "no record" in r.json()["error"]
    back = client_of(Archive(path)).get(f"/api/games/{v['id']}").json()
    assert back["position_id"] == v["position_id"] and back["legal"] == v["legal"]


def test_a_read_only_archive_is_a_message_and_the_game_goes_on(path, monkeypatch):
    Archive(path).close()
    os.chmod(path, 0o444)
    try:
        from boardgym.agents.arena import archive as A

        if os.access(path, os.W_OK):  # root writes any file: the archive is told it cannot
            monkeypatch.setattr(A.os, "access", lambda p, mode: False)
        store = Archive(path)
        assert store.read_only
        c = client_of(store)
        v = c.post("/api/games", json={"game": "draughts"}).json()
        assert "read-only" in v["archive"] and "not being saved" in v["archive"]
        v = play(c, v, 3)
        assert v["actions"] >= 6 and "read-only" in v["archive"]
        assert c.get("/api/archive").json()["total"] == 0
    finally:
        os.chmod(path, 0o644)


# ---- a real server process, killed ------------------------------------------------------------
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db, port):
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardgym.scripts.web.app", "--port", str(port), "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 300
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/agents", timeout=5).read()
            return proc
        except (urllib.error.URLError, ConnectionError):
            assert proc.poll() is None, proc.communicate()[1].decode()
            assert time.monotonic() < deadline, "the server did not start in 300 s"
            time.sleep(0.2)


def call(url, body=None, timeout=120):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def test_kill_9_mid_game_loses_at_most_the_move_being_played(tmp_path):
    db = tmp_path / "games.sqlite"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_server(db, port)
    games = []
    try:
        for seed in range(3):
            body = {"game": "draughts", "mode": "watch", "agents": ["greedy", "random"]}
            games.append(call(f"{url}/api/games", {**body, "seed": seed}))
        for k in range(40):  # answered steps: each one in the archive
            v = games[k % 3]
            games[k % 3] = call(f"{url}/api/games/{v['id']}/step", {}) if not v["over"] else v
        # a step whose answer never comes: the server dies while it may be writing
        sender = subprocess.Popen(
            [
                sys.executable,
                "-c",
                f"import urllib.request as u; u.urlopen(u.Request("
                f"'{url}/api/games/{games[0]['id']}/step', data=b'{{}}'), timeout=60)",
            ],
            stderr=subprocess.DEVNULL,
        )
        time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        sender.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    proc = start_server(db, port)
    try:
        for k, v in enumerate(games):
            back = call(f"{url}/api/games/{v['id']}")
            extra = back["actions"] - v["actions"]
            assert extra in ((0, 1) if k == 0 else (0,)), (k, back["actions"], v["actions"])
            if extra == 0:
                assert back["board"] == v["board"] and back["log"] == v["log"]
            after = call(f"{url}/api/games/{v['id']}/step", {}) if not back["over"] else back
            assert after["actions"] >= back["actions"]
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_finished_games_leave_memory_and_come_back_from_the_archive(path, monkeypatch):
    from boardgym.scripts.web import session as web_session

    monkeypatch.setattr(web_session, "MAX_FINISHED", 2)

    def finished_game(games, seed):
        sid = games.new({"game": "draughts", "agent": "greedy", "seed": seed})
        s = games.get(sid)
        while not s.env.is_over:
            s.act({"action": s.legal()[0]["action"]})
        return sid, s.view(sid)

    for store in (Archive(path), None):
        games = web_session.Games(archive=store)
        done = [finished_game(games, seed) for seed in range(5)]
        games.new({"game": "draughts", "agent": "greedy", "seed": 9})  # in play: kept
        kept = sum(1 for s in games.games.values() if s.env.is_over)
        if store is None:  # nowhere else to keep them: every game stays
            assert kept == 5 and len(games.games) == 6
            continue
        assert kept == 2 and len(games.games) == 3  # the 2 most recent finished + the one in play
        assert [sid for sid, _ in done[-2:]] == [sid for sid in games.games][:2]
        for sid, view in done:  # each one as it ended, from memory or the archive
            back = games.get(sid).view(sid)
            assert all(back[k] == view[k] for k in SAME), sid
