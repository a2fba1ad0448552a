"""The web board under load, killed, and fed garbage: a ``boardgym serve`` process on 127.0.0.1.

    boardgym bench web                          # load: 50 players and 2 watchers for 60 s
    boardgym bench web --parts faults           # kill -9 at random moments in 20 games
    boardgym bench web --parts fuzz             # 2,000 hostile requests
    boardgym bench web --full                   # BENCHMARKS.md: all three, 120 s of load

The server runs in its own process with a fresh archive in a temporary folder, on a free port
of 127.0.0.1 only; every run is bounded (players <= 200, seconds <= 600, fault games <= 100,
fuzz requests <= 20,000).

``load``: ``--players`` simulated players (threads; half play draughts against
``draughts-greedy``, half backgammon against ``backgammon-td``, or ``--draughts-agent`` /
``--backgammon-agent``, whole games one after another,
each action a random legal one, cube decisions ``roll`` / ``take``) and ``--watchers`` watchers
(greedy against random, td against greedy, one step at a time) for ``--seconds``. Reports the
errors (any answer but 200, any failed request), p50 / p99 / max latency of an action request,
requests per second, games finished, and the server's memory (the resident set of the server
and its agent workers) at the start, after each 30 s and at the end; in a run longer than a
minute, the server's and the workers' memory at 60 s and at the end and the growth between
(what the first minute's warm-up leaves: the figure that shows whether memory stays flat).

``faults``: ``--fault-games`` games; for each, a player plays random actions while the server
is killed (SIGKILL) after a random 0.2-1.5 s, then the server is started again on the same
archive: every game must be there with at least the actions of its last answered request (the
one in flight may or may not have been written), and SQLite's ``PRAGMA integrity_check`` must
say ok after every kill. The server plays the agents in its own process (``--workers 0``) here,
so that a restart takes seconds.

``fuzz``: ``--fuzz-requests`` requests built at random from hostile parts (random JSON, wrong
types, huge numbers, deep nesting, bodies of 2 MB, bad FEN / Position IDs / records, unknown
ids, paths with ``..``, random methods) against every route, with a 10 s timeout each. Every
answer must be a 2xx or a 4xx with a JSON message; the counts of 5xx and of timeouts (hangs) are
reported (both must be 0), with the server's memory before and after.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import os
import random
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Literal

from boardgym.scripts import cli

#: optional peers (name, module, how to install, game): none
PEERS = ()
HOST = "127.0.0.1"  # never another address


@dataclasses.dataclass
class Settings:
    """Settings of the web board's load, fault and fuzz runs."""

    parts: list[Literal["load", "faults", "fuzz"]] = dataclasses.field(
        default_factory=lambda: ["load"]
    )
    """what to run: load, faults, fuzz (one or more)"""
    players: int = 50
    """load: simulated players at once (at most 200)"""
    watchers: int = 2
    """load: watchers at once (at most 20)"""
    seconds: float = 60.0
    """load: how long (at most 600)"""
    workers: int | None = None
    """load: the server's agent workers (none: one per core)"""
    draughts_agent: str = "draughts-greedy"
    """load: the draughts players' opponent"""
    backgammon_agent: str = "backgammon-td"
    """load: the backgammon players' opponent (backgammon-td searches 2 plies by default;
    backgammon-td:plies=0 is the net alone)"""
    fault_games: int = 20
    """faults: games, one kill each (at most 100)"""
    fuzz_requests: int = 2000
    """fuzz: requests (at most 20,000)"""
    seed: int = 0
    """seed of the players' choices, the kill moments and the fuzz"""
    full: bool = False
    """the budget of BENCHMARKS.md: load, faults and fuzz, 120 s of load"""

    def check(self):
        if self.full:
            given = [f"--{k}" for k in FULL if getattr(self, k) != getattr(Settings(), k)]
            cli.require(not given, f"--full sets {', '.join(given)}; give one or the other")
        cli.require(len(self.parts) > 0, "give at least one of --parts load faults fuzz")
        cli.require(1 <= self.players <= 200, f"--players must be 1..200, got {self.players}")
        cli.require(0 <= self.watchers <= 20, f"--watchers must be 0..20, got {self.watchers}")
        cli.require(0 < self.seconds <= 600, f"--seconds must be in (0, 600], got {self.seconds}")
        cli.require(
            1 <= self.fault_games <= 100, f"--fault-games must be 1..100, got {self.fault_games}"
        )
        cli.require(
            1 <= self.fuzz_requests <= 20_000,
            f"--fuzz-requests must be 1..20000, got {self.fuzz_requests}",
        )


#: the budget of BENCHMARKS.md (``--full``)
FULL = dict(parts=["load", "faults", "fuzz"], seconds=120.0)


# ----------------------------------------------------------------------------- the server
def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Server:
    """A boardgym serve process on 127.0.0.1 (its archive in folder)."""

    def __init__(self, folder, port=None, extra=()):
        self.db = Path(folder) / "games.sqlite"
        self.port = port or free_port()
        self.extra = list(extra)
        self.proc = None

    def start(self, timeout=600):
        cmd = [sys.executable, "-m", "boardgym.scripts.web.app", "--host", HOST]
        cmd += ["--port", str(self.port), "--db", str(self.db), "--max-client-games", "100000"]
        self.proc = subprocess.Popen(
            cmd + self.extra, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + timeout
        while True:
            try:
                status, _ = request(self.port, "GET", "/api/agents", timeout=5)
                if status == 200:
                    return self
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError("the server exited: " + self.proc.stderr.read().decode()[-2000:])
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not answer in {timeout} s")
            time.sleep(0.1)

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def memory_mb(self):
        """Resident memory of the server and its children (MB; Linux /proc), or None."""
        parts = self.memory_parts_mb()
        return None if parts is None else parts[0] + parts[1]

    def memory_parts_mb(self):
        """(server process, its children: the agent workers) resident memory in MB (Linux
        /proc), or None."""
        if self.proc is None:
            return None
        children = []
        try:
            text = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text()
            children = [int(p) for p in text.split()]
        except OSError:
            pass
        own = _rss_kb(self.proc.pid)
        if own is None:
            return None
        return own / 1024, sum(_rss_kb(p) or 0 for p in children) / 1024


def _rss_kb(pid):
    """VmRSS of a process in kB, or None (gone, or no /proc)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def request(port, method, path, body=None, timeout=60, raw=None):
    """(status, decoded JSON or text) of one HTTP request to 127.0.0.1:port."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        headers = {"Content-Type": "application/json"} if data is not None else {}
        conn.request(method, path, body=data, headers=headers)
        r = conn.getresponse()
        text = r.read().decode("utf-8", "replace")
        try:
            return r.status, json.loads(text)
        except ValueError:
            return r.status, text
    finally:
        conn.close()


def _pick(rng, v):
    """A random legal request body of the person's turn in view v (None: not our turn)."""
    if v["over"]:
        return None
    choices = v.get("cube_choices") or []
    if choices:
        return {"cube": "take" if "take" in choices else "roll"}
    if v["legal"]:
        return {"action": rng.choice(v["legal"])["action"]}
    return None


# ----------------------------------------------------------------------------- load
def run_load(cfg, folder):
    extra = [] if cfg.workers is None else ["--workers", str(cfg.workers)]
    server = Server(folder, extra=extra).start()
    port = server.port
    stats = {"errors": 0, "requests": 0, "games": 0, "latency": [], "error_texts": []}
    by_game = {"draughts": [], "backgammon": []}  # action latencies of each game's players
    lock = threading.Lock()
    # warm the agents once (the workers' first moves) before the clock starts
    for body in (
        {"game": "draughts", "agent": cfg.draughts_agent},
        {"game": "backgammon", "agent": cfg.backgammon_agent},
    ):
        request(port, "POST", "/api/games", body, timeout=600)
    memory = [(0.0, server.memory_parts_mb())]  # (seconds, (server, workers) MB) every 10 s
    t0 = time.monotonic()
    deadline = t0 + cfg.seconds

    def note(status, v, latency=None, game=None):
        with lock:
            stats["requests"] += 1
            if latency is not None:
                stats["latency"].append(latency)
                by_game[game].append(latency)
            if status != 200:
                stats["errors"] += 1
                if len(stats["error_texts"]) < 5:
                    stats["error_texts"].append(f"{status}: {str(v)[:200]}")

    def player(k):
        rng = random.Random(cfg.seed * 1000 + k)
        game = "draughts" if k % 2 == 0 else "backgammon"
        agent = cfg.draughts_agent if game == "draughts" else cfg.backgammon_agent
        while time.monotonic() < deadline:
            body = {"game": game, "agent": agent, "seed": rng.randrange(1 << 30)}
            if game == "backgammon":
                body["cube"] = rng.random() < 0.5
            try:
                status, v = request(port, "POST", "/api/games", body)
                note(status, v)
                if status != 200:
                    continue
                while time.monotonic() < deadline:
                    move = _pick(rng, v)
                    if move is None:
                        break
                    t = time.perf_counter()
                    status, v = request(port, "POST", f"/api/games/{v['id']}/action", move)
                    note(status, v, time.perf_counter() - t, game)
                    if status != 200:
                        break
                if status == 200 and v["over"]:
                    with lock:
                        stats["games"] += 1
            except OSError as e:
                note(0, e)

    def watcher(k):
        rng = random.Random(cfg.seed * 1000 + 500 + k)
        game = ("draughts", "backgammon")[k % 2]
        agents = ["greedy", "random"] if game == "draughts" else ["td", "greedy"]
        while time.monotonic() < deadline:
            try:
                body = {"game": game, "mode": "watch", "agents": agents}
                status, v = request(port, "POST", "/api/games", {**body, "seed": rng.randrange(99)})
                note(status, v)
                while status == 200 and not v["over"] and time.monotonic() < deadline:
                    status, v = request(port, "POST", f"/api/games/{v['id']}/step", {})
                    note(status, v)
                    time.sleep(0.05)  # a watcher's page steps at its speed, not flat out
            except OSError as e:
                note(0, e)

    threads = [threading.Thread(target=player, args=(k,)) for k in range(cfg.players)]
    threads += [threading.Thread(target=watcher, args=(k,)) for k in range(cfg.watchers)]
    for t in threads:
        t.start()
    next_sample = 10.0
    while any(t.is_alive() for t in threads):
        time.sleep(0.5)
        now = time.monotonic() - t0
        if now >= next_sample and now < cfg.seconds:
            memory.append((next_sample, server.memory_parts_mb()))
            next_sample += 10.0
    elapsed = time.monotonic() - t0
    memory.append((round(elapsed), server.memory_parts_mb()))
    with sqlite3.connect(server.db) as con:
        integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
        kept = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    server.stop()
    lat = sorted(stats["latency"])
    per_game = {g: _quantiles_ms(sorted(x)) for g, x in by_game.items()}
    out = {
        "agents": [cfg.draughts_agent, cfg.backgammon_agent],
        "players": cfg.players,
        "watchers": cfg.watchers,
        "seconds": round(elapsed, 1),
        "requests": stats["requests"],
        "requests_per_s": round(stats["requests"] / elapsed, 1),
        "errors": stats["errors"],
        "error_examples": stats["error_texts"],
        "games_finished": stats["games"],
        **_quantiles_ms(lat),
        "max_ms": round(1000 * lat[-1], 1) if lat else None,
        "by_game": per_game,
        "memory_mb": [
            (round(t), None if m is None else round(sum(m)))
            for k, (t, m) in enumerate(memory)
            if t % 30 == 0 or k == len(memory) - 1
        ],
        **_growth(memory, cfg.seconds),
        "games_kept": kept,
        "integrity": integrity,
    }
    print(
        f"load: {cfg.players} players + {cfg.watchers} watchers against {cfg.draughts_agent} / "
        f"{cfg.backgammon_agent}, {out['seconds']} s: "
        f"{out['requests']} requests ({out['requests_per_s']}/s), {out['errors']} errors, "
        f"{out['games_finished']} games finished; action p50 {out['p50_ms']} ms, "
        f"p99 {out['p99_ms']} ms, max {out['max_ms']} ms; server memory (s, MB) "
        f"{out['memory_mb']}; {kept} games kept, integrity {integrity}",
        flush=True,
    )
    if out["memory_growth_after_60s_mb"] is not None:
        a, b, g = out["memory_at_60s_mb"], out["memory_end_mb"], out["memory_growth_after_60s_mb"]
        print(
            f"  memory at 60 s -> the end ({out['seconds']} s), MB: server {a['server']} -> "
            f"{b['server']}, workers {a['workers']} -> {b['workers']}, together {a['total']} -> "
            f"{b['total']}: growth after the first minute {g['total']:+} MB (server "
            f"{g['server']:+}, workers {g['workers']:+})"
        )
    for g, q in per_game.items():
        print(f"  {g} players' actions: {q['actions']}, p50 {q['p50_ms']} ms, p99 {q['p99_ms']} ms")
    for text in out["error_examples"]:
        print(f"  error: {text}")
    return out


def _growth(memory, seconds):
    """{memory_at_60s_mb, memory_end_mb, memory_growth_after_60s_mb}: the server's, its workers'
    and their total resident memory at the first minute and at the end, and the growth between
    (MB; all None for a run of a minute or less)."""
    at = next((m for t, m in memory if t >= 60.0), None)
    end = memory[-1][1]
    if seconds <= 60 or at is None or end is None or len(memory) < 2:
        return dict.fromkeys(("memory_at_60s_mb", "memory_end_mb", "memory_growth_after_60s_mb"))

    def parts(m):
        return {"server": round(m[0]), "workers": round(m[1]), "total": round(m[0] + m[1])}

    a, b = parts(at), parts(end)
    return {
        "memory_at_60s_mb": a,
        "memory_end_mb": b,
        "memory_growth_after_60s_mb": {k: b[k] - a[k] for k in a},
    }


def _quantiles_ms(lat):
    """{actions, p50_ms, p99_ms} of sorted latencies in seconds."""
    return {
        "actions": len(lat),
        "p50_ms": round(1000 * statistics.median(lat), 1) if lat else None,
        "p99_ms": round(1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))], 1) if lat else None,
    }


# ----------------------------------------------------------------------------- faults
def run_faults(cfg, folder):
    rng = random.Random(cfg.seed)
    server = Server(folder, extra=["--workers", "0"]).start()
    acked = {}  # game id -> the view of its last answered request
    checks = {"kills": 0, "games": 0, "lost": 0, "integrity_failures": 0, "in_flight_kept": 0}
    restart_s = []
    try:
        for k in range(cfg.fault_games):
            game = "draughts" if k % 2 == 0 else "backgammon"
            agent = "greedy"
            status, v = request(
                server.port, "POST", "/api/games", {"game": game, "agent": agent, "seed": k}
            )
            if status != 200:
                raise RuntimeError(f"could not start a game: {status} {v}")
            acked[v["id"]] = v
            checks["games"] += 1
            stop = threading.Event()

            def play(v=v, stop=stop):
                while not stop.is_set():
                    move = _pick(rng, v)
                    if move is None:
                        return
                    try:
                        status, nv = request(
                            server.port, "POST", f"/api/games/{v['id']}/action", move
                        )
                    except OSError:
                        return
                    if status != 200:
                        return
                    v = acked[v["id"]] = nv

            thread = threading.Thread(target=play)
            thread.start()
            time.sleep(rng.uniform(0.2, 1.5))
            server.kill()
            stop.set()
            thread.join(timeout=30)
            checks["kills"] += 1
            with sqlite3.connect(server.db) as con:
                if con.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                    checks["integrity_failures"] += 1
            t = time.monotonic()
            server.start()
            restart_s.append(time.monotonic() - t)
            for sid, last in acked.items():
                status, back = request(server.port, "GET", f"/api/games/{sid}")
                if status != 200 or back["actions"] < last["actions"]:
                    checks["lost"] += 1
                elif back["actions"] > last["actions"]:
                    checks["in_flight_kept"] += 1
                    acked[sid] = back
                elif back["board"] != last["board"]:
                    checks["lost"] += 1
    finally:
        server.stop()
    checks["restart_s_median"] = round(statistics.median(restart_s), 1)
    print(
        f"faults: {checks['kills']} kills -9 in {checks['games']} games: "
        f"{checks['lost']} games lost a move that had been answered, "
        f"{checks['integrity_failures']} integrity failures; {checks['in_flight_kept']} "
        f"moves in flight were kept; restart median {checks['restart_s_median']} s",
        flush=True,
    )
    return checks


# ----------------------------------------------------------------------------- fuzz
HOSTILE_VALUES = [
    None,
    True,
    -1,
    0,
    10**30,
    -(10**30),
    1.5,
    float("1e308"),
    "",
    "x" * 5000,
    "../../etc/passwd",
    "'; DROP TABLE games; --",
    "W:W99:B1",
    "W:W21-32:B1-12",
    "!!!",
    "4HPwATDgc/ABMA",
    "4HPwATDgc/ABMA:cAkAAAAAAAAA",
    " 1 point match\n\n Game 1\n a : 0  b : 0\n  1) 31: 8/5 6/5\n",
    "[Event]\n1. c3-d4 *",
    [],
    [1, 2, 3],
    ["greedy"],
    ["greedy", "nobody"],
    {},
    {"depth": 99},
    [[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]],
    "\u0000\uffff",
]
KEYS = [
    "game",
    "mode",
    "agent",
    "agents",
    "seat",
    "seed",
    "fen",
    "position_id",
    "dice",
    "cube",
    "depth",
    "time_limit",
    "options",
    "agent_settings",
    "action",
    "text",
    "zzz",
]
GOOD = {
    "game": ["draughts", "backgammon", "chess"],
    "mode": ["play", "watch"],
    "agent": ["greedy", "random", "td", "alphabeta"],
}


def _fuzz_request(rng, ids):
    """(method, path, raw body) of one hostile request."""
    sid = rng.choice(ids + ["nope", "0" * 16, "..%2F..%2Fetc", "%00", "a" * 3000])
    path = rng.choice(
        [
            "/api/games",
            f"/api/games/{sid}",
            f"/api/games/{sid}/action",
            f"/api/games/{sid}/step",
            f"/api/games/{sid}/undo",
            f"/api/games/{sid}/record",
            "/api/replay",
            "/api/agents",
            f"/api/archive?game={rng.choice(['draughts', 'x', '%27'])}"
            f"&limit={rng.choice(['5', '-1', '9' * 20, 'x'])}",
            f"/api/archive/{sid}/replay",
            f"/api/archive/{sid}/record",
            "/static/../app.py",
            "/static/%2e%2e/session.py",
            "/static/app.js",
            "/../../etc/passwd",
            "/draughts",
        ]
    )
    method = rng.choice(["POST", "POST", "POST", "GET", "PUT", "DELETE"])
    kind = rng.random()
    if kind < 0.05:
        raw = b"x" * (2 << 20)  # a body of 2 MB
    elif kind < 0.15:
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
    else:
        body = {}
        for _ in range(rng.randrange(6)):
            key = rng.choice(KEYS)
            body[key] = rng.choice(GOOD.get(key, []) + HOSTILE_VALUES)
        raw = json.dumps(rng.choice([body, body, [body], "text", 3])).encode()
    return method, path, raw


def run_fuzz(cfg, folder):
    rng = random.Random(cfg.seed)
    server = Server(folder, extra=["--workers", "0", "--max-depth", "6", "--max-think", "2"])
    server.start()
    before = server.memory_mb()
    counts = {"2xx": 0, "4xx": 0, "5xx": 0, "timeouts": 0, "4xx_without_message": 0}
    bad = []
    ids = []
    t0 = time.monotonic()
    try:
        for _ in range(cfg.fuzz_requests):
            method, path, raw = _fuzz_request(rng, ids)
            try:
                status, v = request(server.port, method, path, raw=raw, timeout=10)
            except TimeoutError:
                counts["timeouts"] += 1
                bad.append(f"timeout: {method} {path[:80]}")
                continue
            except OSError as e:
                counts["5xx"] += 1
                bad.append(f"{type(e).__name__}: {method} {path[:80]}")
                server.kill()
                server.start()
                continue
            if 200 <= status < 300:
                counts["2xx"] += 1
                if isinstance(v, dict) and "id" in v and len(ids) < 50:
                    ids.append(v["id"])
            elif 400 <= status < 500:
                counts["4xx"] += 1
                if not (isinstance(v, dict) and v.get("error")) and not path.startswith("/static"):
                    counts["4xx_without_message"] += 1
            else:
                counts["5xx"] += 1
                bad.append(f"{status}: {method} {path[:80]} -> {str(v)[:160]}")
        after = server.memory_mb()
    finally:
        server.stop()
    out = {
        **counts,
        "requests": cfg.fuzz_requests,
        "seconds": round(time.monotonic() - t0, 1),
        "memory_mb": [
            None if before is None else round(before),
            None if after is None else round(after),
        ],
        "examples": bad[:5],
    }
    print(
        f"fuzz: {cfg.fuzz_requests} requests in {out['seconds']} s: {counts['2xx']} 2xx, "
        f"{counts['4xx']} 4xx ({counts['4xx_without_message']} without a message), "
        f"{counts['5xx']} 5xx, {counts['timeouts']} timeouts; server memory "
        f"{out['memory_mb'][0]} -> {out['memory_mb'][1]} MB",
        flush=True,
    )
    for text in out["examples"]:
        print(f"  {text}")
    return out


def main(args=None):
    """Run the chosen parts (Settings or command-line strings) -> {part: its figures}."""
    cfg = cli.settings(Settings, args, prog="boardgym bench web", description=__doc__)
    if cfg.full:
        cfg = dataclasses.replace(cfg, **FULL)
    parts = list(dict.fromkeys(cfg.parts))
    out = {}
    with tempfile.TemporaryDirectory(prefix="boardgym-bench-web-") as folder:
        env_cache = os.environ.get("NUMBA_CACHE_DIR")
        print(
            f"[web] server on {HOST}, archive in {folder}"
            + (f", Numba cache {env_cache}" if env_cache else ""),
            flush=True,
        )
        for part in parts:
            sub = Path(folder) / part
            sub.mkdir()
            out[part] = {"load": run_load, "faults": run_faults, "fuzz": run_fuzz}[part](cfg, sub)
    return out


if __name__ == "__main__":
    cli.script_main(main)
