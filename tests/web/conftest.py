"""The web board served on a free loopback port (uvicorn in a thread) and headless Chromium (the
system's ``chromium``, driven by Playwright for Python; Playwright's own browser download is not
used). The page's Content-Security-Policy forbids evaluating strings as script: give
``wait_for_function`` a function (``"() => view.over"``), not an expression."""

import shutil
import socket
import threading
import time

import pytest
from web_api import api


@pytest.fixture(scope="session")
def server_url():
    """http://127.0.0.1:PORT of boardgym serve's app, for the whole test session."""
    uvicorn = pytest.importorskip("uvicorn")
    from boardgym.scripts.web import app as serve

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(serve.make_app(), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the web server did not start in 30 s"
        time.sleep(0.05)
    url = f"http://127.0.0.1:{port}"
    _warm_up(url)
    yield url
    server.should_exit = True
    thread.join(timeout=10)


# Watched games that reach the agents' code paths the browser tests use (the TD net's moves and
# cube decisions, the alpha-beta search, greedy and random).
WARM_UP_GAMES = (
    {"game": "backgammon", "mode": "watch", "agents": ["td", "greedy"], "cube": True, "seed": 0},
    {"game": "backgammon", "mode": "watch", "agents": ["random", "td"], "cube": True, "seed": 1},
    {"game": "draughts", "mode": "watch", "agents": ["alphabeta", "greedy"], "seed": 0},
    {"game": "draughts", "mode": "watch", "agents": ["random", "greedy"], "seed": 0},
)


def _warm_up(url, steps=40):
    """Compile the agents before the first page asks for them. On a cold Numba cache an agent's
    first request can take longer than a page's 30 s wait for its response (seen in CI while the
    other pytest-xdist worker compiled too); here the wait is 600 s."""
    for body in WARM_UP_GAMES:
        v = api(f"{url}/api/games", body, timeout=600)
        for _ in range(steps):
            if v["over"]:
                break
            v = api(f"{url}/api/games/{v['id']}/step", {}, timeout=600)


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium (the Debian chromium package; .ci/run installs it when missing)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("no chromium on this machine: apt-get install -y chromium")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 760}, accept_downloads=True)
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert errors == [], f"JavaScript errors in the page: {errors}"
