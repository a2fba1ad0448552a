"""`boardgym serve` from the installed wheel: the page and its static files ship in the wheel and
a game starts over HTTP on a loopback port; bad flags give one line and exit code 2."""

import json
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_from_the_wheel(wheel_cli):
    port = free_port()
    proc = subprocess.Popen(
        [str(wheel_cli.command), "serve", "--port", str(port), "--workers", "1"],
        cwd=wheel_cli.cwd,
        env=wheel_cli.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300  # the server answers once its agent worker is warm
        while True:
            try:
                page = urllib.request.urlopen(f"{url}/draughts", timeout=5).read().decode()
                break
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "boardgym serve did not answer in 300 s"
                time.sleep(0.5)
        assert "/static/app.js" in page
        for name in ("app.js", "style.css"):
            assert urllib.request.urlopen(f"{url}/static/{name}", timeout=5).status == 200
        req = urllib.request.Request(
            f"{url}/api/games", method="POST", data=json.dumps({"game": "draughts"}).encode()
        )
        view = json.loads(urllib.request.urlopen(req, timeout=120).read())
        assert len(view["legal"]) == 7 and view["fen"].startswith("W:")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_serve_bad_port_one_line_exit_2(wheel_cli):
    r = wheel_cli.run("serve", "--port", "70000")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "boardgym serve: error: --port must be 0..65535" in r.stderr
