"""What keeps strangers out (scripts/web/guard.py): the token (401 without it; the printed link
sets a cookie; a Bearer header for scripts), the security headers on every answer, the static
folder serving the page's own files only, and ``boardgym serve`` asking for a token on a
non-loopback address."""

import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from boardgym.scripts import cli  # noqa: E402
from boardgym.scripts.web import app as serve  # noqa: E402
from boardgym.scripts.web import guard  # noqa: E402

TOKEN = "s3cret-token_0123456789"


def client(token=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TestClient(serve.make_app(token=token), follow_redirects=False)


def test_without_the_token_everything_is_401():
    c = client(TOKEN)
    for method, path in [
        ("GET", "/api/agents"),
        ("POST", "/api/games"),
        ("GET", "/api/games/abc"),
        ("GET", "/api/archive"),
        ("POST", "/api/replay"),
        ("GET", "/draughts"),
        ("GET", "/static/app.js"),
        ("GET", "/draughts?token=wrong-token-0123456789"),
    ]:
        r = c.request(method, path)
        assert r.status_code == 401, (method, path)
        if path.startswith("/api/"):
            assert "needs its token" in r.json()["error"]
    r = c.get("/api/agents", headers={"Authorization": "Bearer not-the-token-123456"})
    assert r.status_code == 401
    c.cookies.set("boardgym_token_80", "not-the-token-123456")
    assert c.get("/api/agents").status_code == 401


def test_the_link_sets_a_cookie_and_drops_the_token_from_the_address():
    c = client(TOKEN)
    r = c.get(f"/draughts?token={TOKEN}&x=1")
    assert r.status_code == 303 and r.headers["location"] == "/draughts?x=1"
    cookie = r.headers["set-cookie"]
    assert f"boardgym_token_80={TOKEN}" in cookie and "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    assert c.get("/draughts").status_code == 200  # the cookie now
    assert c.get("/api/agents").status_code == 200
    v = c.post("/api/games", json={"game": "draughts"}).json()
    assert v["legal"]
    # a script gives it as a header
    fresh = client(TOKEN)
    r = fresh.get("/api/agents", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200
    # the address never sends the browser to another site
    r = fresh.get(f"//evil.example/draughts?token={TOKEN}")
    assert r.status_code == 303 and not r.headers["location"].startswith("//")


def test_security_headers_on_every_answer():
    for c, paths in [
        (client(), ["/draughts", "/api/agents", "/static/app.js", "/nothing", "/api/games/x"]),
        (client(TOKEN), ["/draughts", "/api/agents"]),  # the 401s too
    ]:
        for path in paths:
            h = c.get(path).headers
            csp = h["content-security-policy"]
            assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
            assert "default-src 'none'" in csp and "unsafe" not in csp
            assert h["x-frame-options"] == "DENY" and h["x-content-type-options"] == "nosniff"
            assert h["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize(
    "path",
    [
        "/static/app.py",
        "/static/session.py",
        "/static/index.html",
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/..%2fsession.py",
        "/static/%2e%2e%2f%2e%2e%2fpyproject.toml",
        "/static/__pycache__/app.cpython-311.pyc",
        "/static/screenshots",
        "/static/",
        "/static//etc/passwd",
    ],
)
def test_static_serves_only_the_pages_own_files(path):
    c = client()
    r = c.get(path)
    assert r.status_code == 404, (path, r.status_code, r.text[:80])
    assert "import" not in r.text and "[project]" not in r.text


def test_static_files_have_their_types():
    c = client()
    assert c.get("/static/app.js").headers["content-type"].startswith("text/javascript")
    assert c.get("/static/style.css").headers["content-type"].startswith("text/css")


def test_loopback_and_tokens():
    assert guard.is_loopback("127.0.0.1") and guard.is_loopback("localhost")
    assert guard.is_loopback("::1") and guard.is_loopback("127.5.5.5")
    assert not guard.is_loopback("0.0.0.0") and not guard.is_loopback("192.168.1.2")
    assert not guard.is_loopback("example.com")
    assert guard.new_token() != guard.new_token() and len(guard.new_token()) == 48
    for bad in ("short", "x" * 300, "has space in it here", "semi;colon0123456789"):
        with pytest.raises(ValueError, match="--token"):
            guard.check_token(bad)


def test_serve_on_another_address_asks_for_a_token(monkeypatch, capsys):
    import uvicorn

    ran = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: ran.update(app=app, **kw))
    serve.main(["--host", "0.0.0.0", "--port", "8123", "--no-archive", "--workers", "0"])
    out = capsys.readouterr().out
    assert "anyone on the network" in out and ":8123/draughts?token=" in out
    token = out.split("?token=")[1].split()[0]
    assert len(token) == 48 and ran["host"] == "0.0.0.0"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = TestClient(ran["app"])
    assert c.get("/api/agents").status_code == 401
    assert c.get("/api/agents", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    serve.main(["--port", "8124", "--no-archive", "--workers", "0"])  # loopback: no token asked
    out = capsys.readouterr().out
    assert "token" not in out and "127.0.0.1:8124/draughts" in out
    serve.main(
        ["--port", "8125", "--no-archive", "--workers", "0", "--token", TOKEN]
    )  # or one given
    assert f"?token={TOKEN}" in capsys.readouterr().out
    with pytest.raises(cli.UsageError, match="--token must be"):
        serve.main(["--token", "short"])
