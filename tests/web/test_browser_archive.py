"""The archive in the page (headless Chromium): a game played by clicks is taken up again by the
page after the server restarts (a new server on the same archive file and port), listed in the
archive view, replayed from it, resumed from it and downloaded."""

import socket
import threading
import time
from pathlib import Path

import pytest

from boardgym.envs import draughts_pdn

uvicorn = pytest.importorskip("uvicorn")


class Server:
    """boardgym serve's app with an archive, in a thread; restart() starts a new app on the same
    archive file and port."""

    def __init__(self, db, token=None):
        self.db, self.token = db, token
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._start()

    def _start(self):
        from boardgym.agents.arena.archive import Archive
        from boardgym.scripts.web import app as serve

        self.store = Archive(self.db)
        config = uvicorn.Config(
            serve.make_app(archive=self.store, token=self.token),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "the web server did not start in 30 s"
            time.sleep(0.05)

    def stop(self):
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.store.close()

    def restart(self):
        self.stop()
        self._start()


@pytest.fixture
def archived_server(tmp_path):
    server = Server(tmp_path / "games.sqlite")
    yield server
    server.stop()


def settle(page):
    page.wait_for_selector('body[data-pending="0"]', state="attached")


def click_a_move(page):
    if page.locator("g.target:has(.dest)").count() == 0:
        page.locator("g.target:has(.movable)").first.click()
    with page.expect_response(lambda r: "/action" in r.url):
        page.locator("g.target:has(.dest)").first.click()
    settle(page)


def csp_reports(page):
    """The page's console messages about the Content-Security-Policy (a list, filled later)."""
    seen = []
    page.on(
        "console", lambda m: seen.append(m.text) if "Content Security Policy" in m.text else None
    )
    return seen


def test_archive_in_the_page_resume_after_restart_list_replay_download(page, archived_server):
    url = archived_server.url
    refused = csp_reports(page)
    page.goto(f"{url}/draughts")
    page.wait_for_selector("#agent option[value=greedy]", state="attached")
    settle(page)
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#new-game")
    settle(page)
    for _ in range(3):
        click_a_move(page)
    before = page.evaluate("view")
    assert before["actions"] >= 6 and not before["over"]

    archived_server.restart()  # the games in memory are gone; the archive has them
    page.reload()
    page.wait_for_selector("#board-svg")
    settle(page)
    after = page.evaluate("view")
    assert after["id"] == before["id"]
    for key in ("board", "log", "legal", "actions", "can_undo"):
        assert after[key] == before[key], key
    assert page.locator("#log li").count() == len(before["log"])
    click_a_move(page)  # and the game goes on
    moved = page.evaluate("view")
    assert moved["actions"] > before["actions"]

    page.select_option("#mode", "archive")
    page.wait_for_selector(f"#archive-list tr[data-uid='{before['id']}']")
    settle(page)
    row = page.locator(f"#archive-list tr[data-uid='{before['id']}']")
    assert "greedy" in row.inner_text() and "unfinished" in row.inner_text()
    assert row.locator(".archive-actions").inner_text() == str(moved["actions"])
    page.fill("#archive-player", "nobody-of-that-name")
    with page.expect_response(lambda r: "/api/archive?" in r.url):
        page.click("#archive-search")
    settle(page)
    assert page.locator("#archive-list tbody tr").count() == 0
    assert "no games found" in page.inner_text("#archive-count")
    page.fill("#archive-player", "GREEDY")
    with page.expect_response(lambda r: "/api/archive?" in r.url):
        page.click("#archive-search")
    settle(page)
    assert page.locator("#archive-list tbody tr").count() == 1

    with page.expect_download() as info:
        row.locator(".archive-download").click()
    pdn = Path(info.value.path()).read_text()
    assert info.value.suggested_filename.endswith("-you-vs-greedy.pdn")
    assert len(draughts_pdn.read_pdn(pdn)[2]) == moved["actions"]

    with page.expect_response(lambda r: "/replay" in r.url):
        row.locator(".archive-replay").click()
    settle(page)
    assert page.input_value("#mode") == "replay"
    assert page.inner_text("#replay-pos") == "position 0 of " + str(moved["actions"])
    page.click("#replay-last")
    assert page.locator("#board-svg").count() == 1

    page.select_option("#mode", "archive")
    page.wait_for_selector(f"#archive-list tr[data-uid='{before['id']}'] .archive-resume")
    settle(page)
    with page.expect_response(lambda r: f"/api/games/{before['id']}" in r.url):
        page.locator(f"#archive-list tr[data-uid='{before['id']}'] .archive-resume").click()
    settle(page)
    assert page.input_value("#mode") == "play"
    assert page.evaluate("view")["board"] == moved["board"]
    assert "your move" in page.inner_text("#status")
    assert refused == []  # the page breaks none of its own security policy


def test_the_token_link_lets_the_page_in(page, tmp_path):
    token = "browser-token-0123456789abcdef"
    server = Server(tmp_path / "games.sqlite", token=token)
    try:
        refused = csp_reports(page)
        r = page.goto(f"{server.url}/backgammon")
        assert r.status == 401 and "needs its token" in page.inner_text("body")
        page.goto(f"{server.url}/backgammon?token={token}")
        assert page.url == f"{server.url}/backgammon"  # the token is not left in the address
        page.wait_for_selector("#agent option[value=greedy]", state="attached")
        settle(page)
        with page.expect_response(lambda r: r.url.endswith("/api/games")):
            page.click("#new-game")
        settle(page)
        assert page.evaluate("view")["dice"] and page.locator("#error").is_hidden()
        assert refused == []
    finally:
        server.stop()
