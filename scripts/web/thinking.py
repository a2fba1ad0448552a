"""Agents' moves for the web board: in the server's own process, or in a pool of worker processes
with a time cap the server enforces.

``think(agent, game)`` is one decision: the agent's action in a game of agents/arena/sessions
(not changed) with the agent's own evaluation of it where it has one (a search's score and
depth, a net's equity). ``Pool`` runs ``think`` in worker processes (as many as the machine
has cores by default), so that one game's slow agent never holds up the requests of another
and the server's own process stays free to answer: a request sends the game (pickled, a few
kB) and the agent's settings to an idle worker, which loads the agent once per settings and
answers. A worker that has not answered within ``cap`` seconds is killed and replaced, and the
request is told so (``TooSlow``); when every worker is busy for longer than ``wait`` seconds
the request is refused (``Busy``). A worker is put to work only once it has loaded the default
agents (``WARM``), so its start-up never counts against a move's cap.

Slow agents never take every worker: the pool keeps each agent settings' recent time per move
(an average over its last moves; a move stopped at the cap counts as the cap), and the moves of
settings slower than ``SLOW_MOVE`` seconds may hold at most all but one of the workers at once
(all of a one-worker pool), so the quick agents' moves (a greedy player, a net alone) are
answered while deep searches queue among themselves. Settings not seen yet count as quick.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from types import SimpleNamespace

import numpy as np

from boardgym.agents.arena.sessions import BackgammonGame, load_agent
from boardgym.kernels.backgammon import game as bg_core
from boardgym.kernels.draughts.board import S_CAP_SQ
from boardgym.scripts.web.fields import BadRequest

WARM = (("draughts", "greedy"), ("backgammon", "greedy"), ("backgammon", "td"))
MAX_AGENTS = 16  # agents one worker keeps loaded (the least recently used dropped)
SLOW_MOVE = 0.5  # seconds per move above which an agent's settings count as slow


class TooSlow(BadRequest):
    """The agent did not answer within the server's cap (HTTP 503)."""

    def __init__(self, message):
        super().__init__(message, 503)


class Busy(BadRequest):
    """Every worker stayed busy for longer than the server waits (HTTP 503)."""

    def __init__(self, message):
        super().__init__(message, 503)


def _equity(agent, state):
    """The agent's equity of its best play (agents with a net), at the start of its play."""
    d1, d2 = bg_core.dice_of(state)
    if not getattr(agent, "has_equity", False) or d1 == 0 or not bg_core.can_move(state):
        return None
    return float(np.max(agent.scores(agent.afterstates(state, d1, d2))))


def think(agent, game):
    """(action, the agent's evaluation as text or None) of the agent to act in game (a
    DraughtsGame or BackgammonGame, not changed)."""
    if isinstance(game, BackgammonGame):
        equity = _equity(agent, game.env.state)
        action = game.choose(agent)
        return action, None if equity is None else f"equity {equity:+.3f}"
    first_hop = game.env.state[S_CAP_SQ] < 0
    if hasattr(agent, "last_info"):
        agent.last_info = {}
    action = game.choose(agent)
    info = getattr(agent, "last_info", None) or {}
    if first_hop and info.get("score") is not None:  # None: a forced move, not searched
        depth = info.get("depth")
        if "nodes" not in info:  # a one-ply look (greedy): the position after the move
            return action, f"score {info['score']:+d} after its move (one ply, no search)"
        return action, f"score {info['score']:+d}" + ("" if depth is None else f" at depth {depth}")
    return action, None


def agent_key(cfg):
    """What makes two agents' settings the same agent (a worker keeps one agent per key)."""
    return repr(sorted((k, repr(v)) for k, v in vars(cfg).items()))


def _settings(game, agent):
    return SimpleNamespace(
        game=game,
        agent=agent,
        seed=0,
        fen=None,
        position_id=None,
        dice=None,
        cube=False,
        depth=None,
        time_limit=None,
        agent_option=[],
    )


def warm():
    """Load and run the default agents (WARM) once: Numba's cached kernels and the nets are
    loaded before the first request needs them."""
    from boardgym.agents.arena.sessions import DraughtsGame

    for game, name in WARM:
        cfg = _settings(game, name)
        cls = DraughtsGame if game == "draughts" else BackgammonGame
        think(load_agent(cfg), cls(cfg, ("a", "b")))


def _worker(conn):
    """A worker process: answers (key, cfg, game) with ('ok', (action, text)) or
    ('error', message) until told None or its pipe closes."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    warm()
    conn.send(("ready", None))
    agents = OrderedDict()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        key, cfg, game = job
        try:
            agent = agents.pop(key, None) or load_agent(cfg)
            agents[key] = agent
            while len(agents) > MAX_AGENTS:
                agents.popitem(last=False)
            conn.send(("ok", think(agent, game)))
        except Exception as e:  # the request is told; the worker goes on
            conn.send(("error", f"{type(e).__name__}: {e}"))


class _Process:
    def __init__(self, ctx):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self._lock = threading.Lock()

    def stop(self):
        """Kill the worker and close its pipe, once (the pool's close and a warm-up thread that
        finds the pool closed may both stop it)."""
        with self._lock:
            if self.conn.closed:
                return
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(timeout=5)
            self.conn.close()


class Pool:
    """Worker processes that play agents' moves (module docstring). workers: how many (None:
    the machine's cores); cap: seconds a move may take before its worker is killed; wait:
    seconds a request waits for a free worker."""

    def __init__(self, workers=None, cap=60.0, wait=120.0, start_timeout=600.0):
        n = (os.cpu_count() or 1) if workers is None else workers
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"workers must be at least 1, got {workers!r}")
        self.cap, self.wait, self.start_timeout = float(cap), float(wait), float(start_timeout)
        self.size = n
        self.slow_cap = max(1, n - 1)  # workers the slow agents' moves may hold at once
        self._ctx = multiprocessing.get_context("spawn")  # no fork of a threaded server
        self._cond = threading.Condition()
        self._idle = []
        self._slow_busy = 0
        self._all = []
        self._closed = False
        self.costs = {}  # agent key -> recent seconds per move
        self.killed = 0  # workers stopped for running past the cap
        for _ in range(n):
            self._spawn()

    def _spawn(self):
        """Start a worker; it joins the idle ones once it has warmed up (in a thread)."""
        worker = _Process(self._ctx)
        with self._cond:
            self._all.append(worker)

        def ready():
            ok = worker.conn.poll(self.start_timeout)
            try:
                ok = ok and worker.conn.recv()[0] == "ready"
            except (EOFError, OSError):
                ok = False
            if ok and not self._closed:
                self._release(worker, False)
            else:
                self._drop(worker)

        threading.Thread(target=ready, daemon=True).start()

    def _drop(self, worker):
        with self._cond:
            if worker in self._all:
                self._all.remove(worker)
        worker.stop()

    def is_slow(self, key):
        """Whether the agent settings of key have been slower than SLOW_MOVE a move lately."""
        return self.costs.get(key, 0.0) > SLOW_MOVE

    def _take(self, slow):
        """An idle worker for a quick or slow move (None after waiting self.wait seconds)."""
        deadline = time.monotonic() + self.wait
        with self._cond:
            while not self._idle or (slow and self._slow_busy >= self.slow_cap):
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    return None
                self._cond.wait(left)
            self._slow_busy += int(slow)
            return self._idle.pop(0)

    def _release(self, worker, slow):
        """worker (None: it was dropped) back among the idle ones after a quick or slow move."""
        with self._cond:
            self._slow_busy -= int(slow)
            if worker is not None and not self._closed:
                self._idle.append(worker)
            self._cond.notify_all()

    def _record(self, key, seconds):
        old = self.costs.get(key)
        self.costs[key] = seconds if old is None else 0.5 * old + 0.5 * seconds

    def think(self, cfg, game):
        """(action, evaluation text or None) of the agent of settings cfg (a load_agent
        settings object) to act in game, played in a worker; TooSlow, Busy or BadRequest."""
        key = agent_key(cfg)
        slow = self.is_slow(key)
        worker = self._take(slow)
        if worker is None:
            raise Busy(f"every agent worker has been busy for {self.wait:.0f} s: try again soon")
        t0 = time.monotonic()
        try:
            worker.conn.send((key, cfg, game))
            if not worker.conn.poll(self.cap):
                self.killed += 1
                self._record(key, self.cap)
                self._drop(worker)
                self._spawn()
                worker = None
                raise TooSlow(
                    f"the agent did not move within the server's cap of {self.cap:g} s: it was "
                    "stopped (ask for a shorter time or a smaller depth)"
                )
            status, value = worker.conn.recv()
            self._record(key, time.monotonic() - t0)
        except (EOFError, OSError, BrokenPipeError):
            self._drop(worker)
            self._spawn()
            worker = None
            raise BadRequest("the agent's worker process died: try again", 503) from None
        finally:
            self._release(worker, slow)
        if status != "ok":
            raise BadRequest(f"the agent failed: {value}", 500)
        return value

    def ready(self, timeout=600.0):
        """Wait until every worker has warmed up (True) or timeout seconds have passed."""
        deadline = time.monotonic() + timeout
        while len(self._idle) < self.size:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def close(self):
        with self._cond:
            self._closed = True
            workers = list(self._all)
            self._all.clear()
            self._idle.clear()
            self._cond.notify_all()
        for w in workers:
            try:
                w.conn.send(None)
            except (OSError, BrokenPipeError):
                pass
            w.stop()
