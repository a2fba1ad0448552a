"""The web board served on a free loopback port (uvicorn in a thread) and headless Chromium (the
system's ``chromium``, driven by Playwright for Python; Playwright's own browser download is not
used)."""
import shutil
import socket
import threading
import time

import pytest


@pytest.fixture(scope="session")
def server_url():
    """http://127.0.0.1:PORT of boardgym serve's app, for the whole test session."""
    uvicorn = pytest.importorskip("uvicorn")
    from boardgym.scripts import serve
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(serve.make_app(), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the web server did not start in 30 s"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


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
