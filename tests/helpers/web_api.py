"""A running web board's HTTP API from a test (urllib, test-only): GET without a body, POST with
one; the JSON answer, or the text of a ``/record`` download."""

import json
import urllib.request


def api(url, body=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        raw = r.read().decode()
    return raw if "/record" in url else json.loads(raw)
