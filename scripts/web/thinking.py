"""Agents' moves for the web board: in the server's own process, or in a pool of worker processes
with a time cap the server enforces.

``think(agent, game)`` is one decision: the agent's action in a game of agents/arena/sessions
(not changed) with the agent's own evaluation of it where it has one (a search's score and
depth, a net's equity). ``Pool`` runs ``think`` in worker processes (as many as the machine
has cores by default), so that one game's slow agent never holds up the requests of another
and the server's own process stays free to answer: a request sends the game (pickled, a few
kB) and the agent's settings to an idle worker, which loads the agent once per settings and
seed (``Agents``: at most ``MAX_AGENTS`` kept, the least recently used dropped) and answers
with the move and the CPU seconds it took. A worker that has not answered within ``cap``
seconds is killed and replaced, and the request is told so (``TooSlow``); when every worker is
busy for longer than ``wait`` seconds the request is refused (``Busy``). A worker is put to
work only once it has loaded the default agents (``WARM``), so its start-up never counts
against a move's cap.

The pool keeps each agent's settings' (seed apart) recent CPU seconds per move (an average
over its last moves; a move stopped at the cap counts as the cap; at most ``MAX_COSTS``
settings remembered). Settings quicker than ``QUICK_MOVE`` a move (a greedy player, a net
alone) are played in the server's own process, one move at a time (``Agents`` of its own):
no pickling, no queue behind the searches, and a move that turns out slower sends its settings
back to the workers. Settings slower than ``SLOW_MOVE`` a move may hold at most all but one of
the workers at once (all of a one-worker pool), so the moves in between are answered while
deep searches queue among themselves. Settings not seen yet go to the workers and count as
neither.

Memory: each process has glibc's threshold above which a block is mapped on its own fixed
(``release_freed_memory``), so the buffers of a dropped agent or game go back to the system
instead of staying in the heap as holes (with the default, moving threshold the workers'
resident memory crept by tens of MB an hour of play).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from types import SimpleNamespace

from boardgym.agents.arena.sessions import BackgammonGame, load_agent
from boardgym.kernels.backgammon import game as bg_core
from boardgym.kernels.draughts.board import S_CAP_SQ
from boardgym.scripts.web.fields import BadRequest

WARM = (("draughts", "greedy"), ("backgammon", "greedy"), ("backgammon", "td"))
MAX_AGENTS = 16  # agents one process keeps loaded (the least recently used dropped)
MAX_COSTS = 1024  # agent settings whose time per move the pool remembers
QUICK_MOVE = 0.02  # CPU seconds per move under which settings are played in the server itself
SLOW_MOVE = 0.5  # CPU seconds per move above which an agent's settings count as slow
MAX_TURN = 32  # an agent's actions a worker plays in one go (a play, a capture chain)
MMAP_THRESHOLD = 128 * 1024  # bytes from which glibc maps a block on its own (its initial value)
ARENAS = 2  # glibc heaps (arenas) a process's threads share


class TooSlow(BadRequest):
    """The agent did not answer within the server's cap (HTTP 503)."""

    def __init__(self, message):
        super().__init__(message, 503)


class Busy(BadRequest):
    """Every worker stayed busy for longer than the server waits (HTTP 503)."""

    def __init__(self, message):
        super().__init__(message, 503)


def think(agent, game):
    """(action, the agent's evaluation as text or None) of the agent to act in game (a
    DraughtsGame or BackgammonGame, not changed). A backgammon agent with a net: the equity of
    the play it chose (its ``last_value``, from the one search that chose it), on each checker
    move of the play."""
    if isinstance(game, BackgammonGame):
        state = game.env.state
        checker = bg_core.dice_left(state) > 0 and bg_core.can_move(state)
        action = game.choose(agent)
        equity = agent.last_value if checker and getattr(agent, "has_equity", False) else None
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


def think_turn(agent, game, limit=MAX_TURN):
    """[(action, evaluation text or None)] of the agent's actions from now until another player
    is to act or the game ends (at most limit): a backgammon play's checker moves, a draughts
    capture chain's hops. game is played forward (give a copy)."""
    player = game.env.agent_selection
    out = []
    while len(out) < limit:
        out.append(think(agent, game))
        game.step(out[-1][0])
        if game.env.is_over or game.env.agent_selection != player:
            break
    return out


def agent_key(cfg):
    """What makes two agents' settings the same agent (a process keeps one agent per key)."""
    return repr(sorted((k, repr(v)) for k, v in vars(cfg).items()))


def settings_key(cfg):
    """What makes two agents' settings play alike, their seed apart (the pool's time per move
    is kept per settings key)."""
    return repr(sorted((k, repr(v)) for k, v in vars(cfg).items() if k != "seed"))


def release_freed_memory():
    """Set glibc's allocator for a long-running server (True; False where there is no glibc):
    its mmap threshold fixed at MMAP_THRESHOLD, so that a block that large (an agent's search
    buffers, a net's weights) is mapped on its own and unmapped when freed, instead of the
    threshold rising to the largest block freed so far and such blocks coming from the heap,
    where freeing them leaves holes the process keeps; and at most ARENAS heaps for all the
    request threads (by default up to 8 a core, each keeping its own free holes)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        # -3: M_MMAP_THRESHOLD, -8: M_ARENA_MAX
        return bool(libc.mallopt(-3, MMAP_THRESHOLD)) and bool(libc.mallopt(-8, ARENAS))
    except (OSError, AttributeError, TypeError):
        return False


class Agents:
    """Loaded agents by agent_key, at most size of them (the least recently used dropped)."""

    def __init__(self, size=MAX_AGENTS):
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"size must be at least 1, got {size!r}")
        self.size = size
        self._agents = OrderedDict()

    def __len__(self):
        return len(self._agents)

    def get(self, key, cfg):
        """The agent of key (settings cfg), loaded if it is not kept."""
        agent = self._agents.pop(key, None) or load_agent(cfg)
        self._agents[key] = agent
        while len(self._agents) > self.size:
            self._agents.popitem(last=False)
        return agent

    def think(self, key, cfg, game, turn=False):
        """((action, evaluation text or None), CPU seconds of the move, loading apart); turn:
        think_turn's list instead (game played forward)."""
        agent = self.get(key, cfg)
        t0 = time.thread_time()
        out = think_turn(agent, game) if turn else think(agent, game)
        return out, time.thread_time() - t0


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
    """A worker process: answers (key, cfg, game, turn) with ('ok', (Agents.think's answer,
    CPU seconds)) or ('error', message) until told None or its pipe closes."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    release_freed_memory()
    warm()
    conn.send(("ready", None))
    agents = Agents()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        key, cfg, game, turn = job
        try:
            conn.send(("ok", agents.think(key, cfg, game, turn)))
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


class _Waiter:
    """A request waiting for a worker (compared by identity)."""

    __slots__ = ("slow",)

    def __init__(self, slow):
        self.slow = slow


class Pool:
    """Worker processes that play agents' moves, and the server's own process for the quick
    ones (module docstring). workers: how many (None: the machine's cores); cap: seconds a move
    may take before its worker is killed; wait: seconds a request waits for a free worker."""

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
        self._line = []  # the requests waiting for a worker, in the order they came
        self._slow_busy = 0
        self._all = []
        self._closed = False
        self.costs = OrderedDict()  # settings key -> recent CPU seconds per move (MAX_COSTS)
        self._costs_lock = threading.Lock()
        self.local = Agents()  # the quick settings' agents, in this process
        self._local_lock = threading.Lock()  # one quick move at a time here
        self.killed = 0  # workers stopped for running past the cap
        self.moves = {"here": 0, "workers": 0}  # moves played in this process, in the workers
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

    def cost(self, skey):
        """The recent CPU seconds per move of the settings of skey (a settings_key; None: not
        seen yet)."""
        with self._costs_lock:
            return self.costs.get(skey)

    def is_slow(self, skey):
        """Whether the settings of skey have taken more than SLOW_MOVE a move lately."""
        cost = self.cost(skey)
        return cost is not None and cost > SLOW_MOVE

    def is_quick(self, skey):
        """Whether the settings of skey have taken less than QUICK_MOVE a move lately (they
        are played in this process)."""
        cost = self.cost(skey)
        return cost is not None and cost < QUICK_MOVE

    def _take(self, slow):
        """An idle worker for a quick or slow move (None after waiting self.wait seconds), to
        the requests in the order they came (a slow one kept back by slow_cap lets the others
        by): none waits while later ones are served."""
        deadline = time.monotonic() + self.wait
        me = _Waiter(slow)  # this request's place in the line
        with self._cond:
            self._line.append(me)
            try:
                while self._next() is not me:
                    left = deadline - time.monotonic()
                    if left <= 0 or self._closed:
                        return None
                    self._cond.wait(left)
            finally:
                self._line.remove(me)
                self._cond.notify_all()  # the next in line may be served now
            self._slow_busy += int(slow)
            return self._idle.pop(0)

    def _next(self):
        """The first request in line that a worker may take now (None: none may)."""
        if not self._idle:
            return None
        full = self._slow_busy >= self.slow_cap
        return next((w for w in self._line if not (w.slow and full)), None)

    def _release(self, worker, slow):
        """worker (None: it was dropped) back among the idle ones after a quick or slow move."""
        with self._cond:
            self._slow_busy -= int(slow)
            if worker is not None and not self._closed:
                self._idle.append(worker)
            self._cond.notify_all()

    def _record(self, skey, seconds, where=None):
        """A move of the settings of skey took seconds (CPU), played where (here, workers)."""
        with self._costs_lock:
            if where is not None:
                self.moves[where] += 1
            old = self.costs.pop(skey, None)
            self.costs[skey] = seconds if old is None else 0.5 * old + 0.5 * seconds
            while len(self.costs) > MAX_COSTS:
                self.costs.popitem(last=False)

    def think(self, cfg, game):
        """(action, evaluation text or None) of the agent of settings cfg (a load_agent
        settings object) to act in game (not changed): in this process if its settings are
        quick, else in a worker; TooSlow, Busy or BadRequest."""
        return self._ask(cfg, game, False)

    def turn(self, cfg, game):
        """[(action, evaluation text or None)]: the agent's actions from now on (think_turn)
        when a worker plays them, in one trip (a backgammon play, a capture chain); its next
        action alone when its settings are quick (played here: game is not changed)."""
        return self._ask(cfg, game, True)

    def _ask(self, cfg, game, turn):
        key, skey = agent_key(cfg), settings_key(cfg)
        if self.is_quick(skey):
            with self._local_lock:
                try:
                    value, seconds = self.local.think(key, cfg, game)
                except Exception as e:  # as a worker's failure: the request is told
                    raise BadRequest(f"the agent failed: {type(e).__name__}: {e}", 500) from None
            self._record(skey, seconds, "here")
            return [value] if turn else value
        slow = self.is_slow(skey)
        worker = self._take(slow)
        if worker is None:
            raise Busy(f"every agent worker has been busy for {self.wait:.0f} s: try again soon")
        try:
            worker.conn.send((key, cfg, game, turn))
            if not worker.conn.poll(self.cap):
                self.killed += 1
                self._record(skey, self.cap)
                self._drop(worker)
                self._spawn()
                worker = None
                raise TooSlow(
                    f"the agent did not move within the server's cap of {self.cap:g} s: it was "
                    "stopped (ask for a shorter time or a smaller depth)"
                )
            status, value = worker.conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            self._drop(worker)
            self._spawn()
            worker = None
            raise BadRequest("the agent's worker process died: try again", 503) from None
        finally:
            self._release(worker, slow)
        if status != "ok":
            raise BadRequest(f"the agent failed: {value}", 500)
        value, seconds = value
        self._record(skey, seconds, "workers")
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
