"""What keeps strangers out of the web board: the token and the security headers.

``Guard`` wraps the application (ASGI middleware). With a token, a request passes when it
carries the token as the cookie ``boardgym_token_<port>`` (set by the server), as
``Authorization: Bearer <token>`` (scripts) or, on a page, as ``?token=...`` in the address (the
link the server prints, as Jupyter does): the server then sets the cookie (HttpOnly,
SameSite=Strict) and sends the browser on to the same page without the token in its address.
Any other request is answered 401 (JSON ``{"error": ...}`` for the API, text for a page). Every
answer carries the security headers (``SECURITY_HEADERS``): a Content-Security-Policy that
lets the page load only its own script, style and connections (no inline script, no framing,
no plugins), X-Frame-Options DENY, nosniff and no referrer.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
from urllib.parse import parse_qsl, quote, urlencode

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


def is_loopback(host: str) -> bool:
    """Whether host (a name or an address) is this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def new_token() -> str:
    """A fresh token (48 hex digits)."""
    return secrets.token_hex(24)


def check_token(token: str | None) -> str | None:
    """token, checked: 16..256 characters of letters, digits, '-' and '_'; ValueError if not."""
    if token is None:
        return None
    if not isinstance(token, str):
        raise TypeError(f"token must be a string, got {type(token).__name__}")
    allowed = all(c.isascii() and (c.isalnum() or c in "-_") for c in token)
    if not 16 <= len(token) <= 256 or not allowed:
        raise ValueError("--token must be 16..256 letters, digits, '-' or '_'")
    return token


class Guard:
    """ASGI middleware: the token (when there is one) and the security headers (module
    docstring)."""

    def __init__(self, app, token: str | None = None) -> None:
        self.app = app
        self.token = check_token(token)

    def _cookie_name(self, scope):
        server = scope.get("server") or ("", 0)
        return f"boardgym_token_{server[1] or 0}"

    def _has(self, value):
        return value is not None and hmac.compare_digest(value.encode(), self.token.encode())

    def _passes(self, scope):
        """'ok' (the token came with the request), 'query' (in the address: set the cookie) or
        None (no token)."""
        headers = dict(scope.get("headers") or [])
        auth = headers.get(b"authorization", b"").decode("latin-1")
        if auth.startswith("Bearer ") and self._has(auth[7:].strip()):
            return "ok"
        name = self._cookie_name(scope)
        for part in headers.get(b"cookie", b"").decode("latin-1").split(";"):
            key, _, value = part.strip().partition("=")
            if key == name and self._has(value):
                return "ok"
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"))
        if any(k == "token" and self._has(v) for k, v in query):
            return "query"
        return None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_guarded(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        if self.token is not None:
            passed = self._passes(scope)
            if passed is None:
                return await self._refuse(scope, send_guarded)
            if passed == "query" and scope.get("method") == "GET":
                return await self._enter(scope, send_guarded)
        return await self.app(scope, receive, send_guarded)

    async def _refuse(self, scope, send):
        path = scope.get("path", "")
        text = (
            "this board needs its token: open the link boardgym serve printed "
            "(http://host:port/draughts?token=...)"
        )
        if path.startswith("/api/"):
            body, kind = json.dumps({"error": text}).encode(), b"application/json"
        else:
            body, kind = (text + "\n").encode(), b"text/plain; charset=utf-8"
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", kind),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def _enter(self, scope, send):
        """The token came in the address: set the cookie, send the browser to the same page
        without it."""
        rest = [
            (k, v)
            for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1"))
            if k != "token"
        ]
        path = "/" + scope.get("path", "/").lstrip("/")  # never //host: another site
        where = quote(path) + (f"?{urlencode(rest)}" if rest else "")
        cookie = f"{self._cookie_name(scope)}={self.token}; HttpOnly; SameSite=Strict; Path=/"
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", where.encode("latin-1", "replace")),
                    (b"set-cookie", cookie.encode()),
                    (b"cache-control", b"no-store"),
                    (b"content-length", b"0"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})
