"""How the draughts alpha-beta agent thinks: iterative deepening of search_root
(agents/draughts/search.py) one depth after another, a deadline the search keeps itself
(``SearchClock``), and Lazy SMP helper threads that search the same root and share its
transposition table.

``Deepening`` is mixed into ``AlphaBetaAgent`` (agents/draughts/agents.py), whose settings and
buffers it reads: ``buffers`` (SearchBuffers), ``evaluation``, ``rng``, ``depth``,
``use_tt``, ``lmr``, ``start_fraction``, ``keep_partial``, ``_helpers`` (one SearchBuffers per
helper thread), ``_clock`` (a SearchClock on ``buffers.stats``); it keeps the move's outcome
in ``_best`` and ``last_info`` and the time it carries between moves in ``_lag`` and ``_bank``.

Time of a move with a budget T (``time_plan``, ``bank_after``): the deadline is T plus a share
of the bank (time_bank) and is the hard stop: from the second iteration on the search reads the
clock itself against it (``stats[ST_DEADLINE]``, every ``CLOCK_EVERY`` nodes; ``SearchClock``:
a clock thread woke far too late on a loaded machine, and is used only where the search has no
clock of its own); a new iteration starts while less than ``start_fraction`` of
the move's time is spent; an iteration that changes the best move or lowers the score by more
than ``ADAPT_DROP`` (finished after ``EXTEND_AFTER`` of the move's time) extends the deadline
from the bank, once; a forced move or a decided game returns at once and banks its budget.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np

from boardgym.agents.draughts.search import (
    HAS_CLOCK,
    MAX_PLY,
    ST_ABORT,
    ST_AGE,
    ST_DEADLINE,
    ST_LIMIT,
    ST_LMR,
    ST_NODES,
    ST_QNODES,
    ST_REDUCED,
    ST_RESEARCHED,
    ST_ROOT_DONE,
    ST_SELDEPTH,
    ST_STOP,
    ST_TT_HITS,
    ST_USE_TT,
    WIN_BOUND,
    SearchBuffers,
    root_children,
    search_root,
)
from boardgym.envs import draughts as api

__all__ = ["MAX_THREADS", "SearchClock", "Deepening", "default_threads"]

#: the most searching threads an AlphaBetaAgent takes
MAX_THREADS = 64
# adaptive_time: a move whose best move has not changed for ADAPT_STABLE iterations ends once
# ADAPT_STOP of its budget is spent; the time saved goes to a bank (at most ADAPT_BANK budgets);
# a move whose best move changes (or whose score falls by more than ADAPT_DROP) at an iteration
# gets up to ADAPT_MAX_EXTRA of a budget more from the bank, once
ADAPT_STABLE, ADAPT_STOP, ADAPT_BANK, ADAPT_MAX_EXTRA, ADAPT_DROP = 3, 0.5, 2.0, 0.9, 30
# time_bank (the default): what a move leaves of its budget (a forced move, a decided game, a
# search that ends early) goes to a bank of at most BANK_MAX budgets; each searched move adds
# BANK_SPEND of the bank to its budget, and a move whose best move changes or whose score falls
# by more than ADAPT_DROP at an iteration finished after EXTEND_AFTER of the move's time takes
# the rest of the bank, once; a move's deadline is never more than MOVE_MAX budgets
BANK_MAX, BANK_SPEND, MOVE_MAX, EXTEND_AFTER = 2.0, 0.25, 1.4, 0.25

_search_ready = False  # search_root has run once in this process (compiled or loaded from cache)


def _ready_search(evaluation, egdb):
    """Run the search kernel once, at depth 1 from the initial position, so that its compile (or
    its load from Numba's cache: seconds) is not taken from a move's time budget: otherwise the
    clock stops the first timed search of a process before it has searched anything. The FEN
    reader and the move writer (``best_move``'s way in and out) run once too."""
    global _search_ready
    if _search_ready:
        return
    b = SearchBuffers(tt_bits=4)
    b.egdb = egdb
    s = api.from_fen(api.to_fen(api.initial_state()))
    n = root_children(s, b.rows, b.children)
    api.move_to_str(s, b.rows[0])
    b.stats[ST_LIMIT] = 1 << 62
    search_root(
        b.children,
        n,
        np.arange(n, dtype=np.int64),
        1,
        b.tt,
        b.killers,
        b.history,
        b.moves,
        b.scratch,
        b.work,
        b.stats,
        *b.evaluation_args(evaluation),
        b.egdb,
        np.zeros(n, dtype=np.int64),
    )
    _search_ready = True


def default_threads() -> int:
    """Searching threads of a timed AlphaBetaAgent by default: two, or one when the process may
    use only one CPU (Lazy SMP with two threads measured stronger at 100 ms: BENCHMARKS.md)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return 2 if cpus >= 2 else 1


def _deadline_ns(deadline: float | None) -> int:
    """A time.perf_counter() value as the search's ``stats[ST_DEADLINE]`` (0: None)."""
    if deadline is None:
        return 0
    return max(1, time.monotonic_ns() + round((deadline - time.perf_counter()) * 1e9))


class SearchClock:
    """Stops a running search at a deadline. Where the search reads the clock itself
    (``own_clock``, by default ``HAS_CLOCK``: Linux) the deadline goes into ``stats[ST_DEADLINE]``
    of the search and of ``others`` (the helper threads' stats) once ``arm``-ed (from the second
    iteration: the first, one ply, always finishes), and the searches stop themselves there: no
    thread has to be woken on time, which a loaded machine does not do (BENCHMARKS.md).
    Elsewhere a thread sets ``stats[ST_STOP]`` at the deadline (the search kernels release the
    GIL). The deadline may be given later or moved while the search runs (``set_deadline``:
    pondering until the opponent's move is known)."""

    def __init__(
        self,
        stats: np.ndarray,
        others: list[np.ndarray] | None = None,
        own_clock: bool = HAS_CLOCK,
    ) -> None:
        self._stats = stats
        self._all = [stats, *(others or [])]
        self._own = bool(own_clock)
        self._cond = threading.Condition()
        self._deadline = None
        self._armed = False
        self._done = True
        self._thread = None

    def start(self, deadline: float | None) -> None:
        """Watch the clock (deadline: a time.perf_counter() value, or None: none yet); the
        searches' own deadline waits for ``arm``."""
        with self._cond:
            self._deadline = deadline
            self._armed = False
            self._write(0)
            self._done = False
        if not self._own:
            self._thread = threading.Thread(target=self._run, name="search-clock", daemon=True)
            self._thread.start()

    def arm(self) -> None:
        """From now on the searches stop themselves at the deadline (``stats[ST_DEADLINE]``)."""
        with self._cond:
            self._armed = True
            self._write(_deadline_ns(self._deadline))

    def _write(self, ns):
        if self._own:
            for st in self._all:
                st[ST_DEADLINE] = ns

    def _run(self):
        with self._cond:
            while not self._done:
                if self._deadline is None:
                    self._cond.wait()
                    continue
                left = self._deadline - time.perf_counter()
                if left <= 0:
                    self._stats[ST_STOP] = 1
                    return
                self._cond.wait(left)

    def set_deadline(self, deadline: float) -> None:
        """Move the deadline (a time.perf_counter() value)."""
        with self._cond:
            self._deadline = deadline
            if self._armed:
                self._write(_deadline_ns(deadline))
            self._cond.notify()

    def finish(self) -> None:
        """Stop watching (the search is over)."""
        with self._cond:
            self._done = True
            self._armed = False
            self._write(0)
            self._cond.notify()
        if self._thread is not None:
            self._thread.join()
            self._thread = None


def time_plan(budget: float, bank: float) -> tuple[float, float]:
    """(seconds of a move at the start, the most it may grow to on an unsettled iteration) for a
    budget with ``bank`` seconds saved (time_bank): the budget plus ``BANK_SPEND`` of the bank,
    and at most the budget plus the whole bank; neither over ``MOVE_MAX`` budgets."""
    cap = MOVE_MAX * budget
    return min(budget + BANK_SPEND * bank, cap), min(budget + bank, cap)


def bank_after(bank: float, budget: float, used: float) -> float:
    """The bank after a move that used ``used`` seconds of a ``budget`` (time_bank): what it
    left is saved, what it took beyond the budget is spent; kept within 0..BANK_MAX budgets."""
    return min(max(bank + budget - used, 0.0), BANK_MAX * budget)


class Deepening:
    """Iterative deepening with the clock and the helper threads, over the agent's buffers (the
    attributes the module docstring lists): ``_search`` plays one move's search."""

    def request_stop(self) -> None:
        """Stop the running (or the next) search as soon as possible (any thread)."""
        self._stop_pending = True
        self.buffers.stats[ST_STOP] = 1

    def clear_stop(self) -> None:
        """Forget a stop requested when no search was running."""
        self._stop_pending = False

    def set_deadline(self, seconds: float) -> None:
        """Give the running search ``seconds`` more from now (any thread; ends pondering)."""
        sec = max(0.0, float(seconds))
        self._clock.set_deadline(time.perf_counter() + sec - min(self._lag, 0.5 * sec))

    def _helper_run(self, k, hb, n, max_depth, nodes):
        """Lazy SMP helper k: iterative deepening over the root's children (the main buffers'),
        in an order of its own, odd helpers a ply ahead, until stopped; nodes[k] += its nodes."""
        b, ev, st = self.buffers, self.evaluation, hb.stats
        order = np.random.default_rng(k + 1).permutation(n).astype(np.int64)
        values = np.zeros(n, dtype=np.int64)
        for d in range(1 + (k + 1) % 2, max_depth + 1):
            if st[ST_STOP] != 0:
                break
            st[ST_NODES] = 0
            st[ST_ABORT] = 0
            st[ST_LIMIT] = 1 << 62
            search_root(
                b.children,
                n,
                order,
                d,
                hb.tt,
                hb.killers,
                hb.history,
                hb.moves,
                hb.scratch,
                hb.work,
                st,
                *hb.evaluation_args(ev),
                hb.egdb,
                values,
            )
            nodes[k] += int(st[ST_NODES])
            if st[ST_ABORT] != 0:
                break

    def _start_helpers(self, n, max_depth):
        """Start the helper threads (none when threads=1); returns (threads, nodes)."""
        nodes = [0] * len(self._helpers)
        started = []
        for k, hb in enumerate(self._helpers):
            st = hb.stats
            st[:] = 0
            st[ST_AGE] = self.buffers.stats[ST_AGE]
            st[ST_USE_TT] = self.buffers.stats[ST_USE_TT]
            st[ST_LMR] = self.buffers.stats[ST_LMR]
            hb.killers[:] = -1
            hb.history >>= 2
            t = threading.Thread(
                target=self._helper_run,
                args=(k, hb, n, max_depth, nodes),
                name=f"search-helper-{k + 1}",
                daemon=True,
            )
            t.start()
            started.append(t)
        return started, nodes

    def _stop_helpers(self, started):
        for hb in self._helpers:
            hb.stats[ST_STOP] = 1
        for t in started:
            t.join()

    def _search(
        self,
        state,
        n,
        depth,
        budget,
        max_nodes,
        ponder,
        on_iteration,
        depth_given=None,
        adaptive=False,
        bank=False,
    ):
        """search() over the n root moves already in self.buffers (root_children); adaptive:
        adaptive_time's sharing, bank: time_bank's (the module docstring)."""
        b = self.buffers
        if depth_given is None:
            depth_given = depth is not None
        max_depth = depth if depth is not None else (self.depth or MAX_PLY - 2)
        order = self.rng.permutation(n).astype(np.int64)
        values = np.zeros(n, dtype=np.int64)
        self._age = (self._age + 1) & 0xFFFF
        st = b.stats
        st[ST_AGE] = self._age
        st[ST_USE_TT] = 1 if self.use_tt else 0
        st[ST_LMR] = 1 if self.lmr else 0
        st[ST_STOP] = 1 if self._stop_pending else 0
        b.killers[:] = -1
        b.history >>= 2
        ev = self.evaluation
        if budget is not None or ponder:  # compile before the clock runs, not within the budget
            _ready_search(ev, b.egdb)
        banked = bank and budget is not None and not ponder and not adaptive
        if banked:
            allowed, most = time_plan(float(budget), self._bank)
        else:  # adaptive: may grow once
            allowed = most = None if budget is None else float(budget)
        t0 = time.perf_counter()
        # the clock fires early by the lag measured on earlier moves (thread wake-up, a loaded
        # machine), so that the move is returned at its time
        deadline = None if budget is None else t0 + allowed - min(self._lag, 0.5 * float(budget))
        best_i, best_score, done, partial = int(order[0]), 0, 0, False
        total = {
            "nodes": 0,
            "qnodes": 0,
            "tt_hits": 0,
            "seldepth": 0,
            "reduced": 0,
            "researched": 0,
        }
        if n == 1 and not depth_given:
            max_depth = 0  # forced move: nothing to search
        clock = max_depth > 0 and (deadline is not None or ponder)
        if clock:
            self._clock.start(None if ponder else deadline)
        helpers, helper_nodes = self._start_helpers(n, max_depth) if max_depth > 0 else ([], [])
        stable_since, extended = 1, False
        try:
            for d in range(1, max_depth + 1):
                if st[ST_STOP] != 0 and done > 0:
                    break
                if (
                    deadline is not None
                    and done > 0
                    and (time.perf_counter() - t0 > self.start_fraction * allowed)
                ):
                    break
                st[ST_NODES] = 0
                st[ST_QNODES] = 0
                st[ST_TT_HITS] = 0
                st[ST_SELDEPTH] = 0
                st[ST_REDUCED] = 0
                st[ST_RESEARCHED] = 0
                st[ST_ABORT] = 0
                st[ST_LIMIT] = 1 << 62 if max_nodes is None else max_nodes
                if done == 0:
                    # a stop requested before the search still lets the first iteration run (a
                    # searched move to play); it applies from the second on
                    stop, st[ST_STOP] = st[ST_STOP], 0
                bi, sc = search_root(
                    b.children,
                    n,
                    order,
                    d,
                    b.tt,
                    b.killers,
                    b.history,
                    b.moves,
                    b.scratch,
                    b.work,
                    st,
                    *b.evaluation_args(ev),
                    b.egdb,
                    values,
                )
                if done == 0 and stop:
                    st[ST_STOP] = 1
                if d == 1 and clock:
                    self._clock.arm()  # from the second iteration on the search stops itself too
                total["nodes"] += int(st[ST_NODES])
                total["qnodes"] += int(st[ST_QNODES])
                total["tt_hits"] += int(st[ST_TT_HITS])
                total["seldepth"] = max(total["seldepth"], int(st[ST_SELDEPTH]))
                total["reduced"] += int(st[ST_REDUCED])
                total["researched"] += int(st[ST_RESEARCHED])
                if st[ST_ABORT]:
                    if st[ST_ROOT_DONE] > 0 and (self.keep_partial or done == 0):
                        # the previous best was searched at depth d: the best finished move of
                        # this iteration is at least as good
                        best_i, best_score, partial = int(bi), int(sc), True
                    break
                if (
                    banked
                    and done > 0
                    and not extended
                    and most > allowed
                    and time.perf_counter() - t0 >= EXTEND_AFTER * allowed
                ):
                    # best_i, best_score: the previous iteration's; unsettled: the whole bank
                    if int(bi) != best_i or int(sc) < best_score - ADAPT_DROP:
                        deadline += most - allowed
                        allowed = most
                        self._clock.set_deadline(deadline)
                        extended = True
                if adaptive and done > 0:
                    # best_i, best_score: the previous iteration's
                    if int(bi) != best_i or int(sc) < best_score - ADAPT_DROP:
                        stable_since = d
                        if not extended and self._bank > 0:  # unsettled: spend savings
                            extra = min(self._bank, ADAPT_MAX_EXTRA * float(budget))
                            allowed += extra
                            deadline += extra
                            self._clock.set_deadline(deadline)
                            extended = True
                best_i, best_score, done = int(bi), int(sc), d
                if on_iteration is not None:
                    el = time.perf_counter() - t0
                    on_iteration(
                        {
                            "depth": d,
                            "score": best_score,
                            "nodes": total["nodes"],
                            "time": el,
                            "move": b.rows[best_i].copy(),
                        }
                    )
                if abs(best_score) > WIN_BOUND:
                    break  # decided: a deeper search finds nothing better than the shortest win
                if (
                    adaptive
                    and d - stable_since >= ADAPT_STABLE
                    and (self._bank < ADAPT_BANK * float(budget))
                    and (time.perf_counter() - t0 > ADAPT_STOP * float(budget))
                ):
                    break  # settled: save the rest for a harder move (while the bank has room)
        finally:
            self._stop_helpers(helpers)
            if clock:
                self._clock.finish()
        end = time.perf_counter()
        if deadline is not None and clock and not ponder and end >= deadline:
            self._lag = 0.7 * self._lag + 0.3 * min(end - deadline, float(budget))
        el = end - t0
        if adaptive and max_depth > 0:
            self._bank = min(max(self._bank + float(budget) - el, 0.0), ADAPT_BANK * float(budget))
        elif banked:
            self._bank = bank_after(self._bank, float(budget), el)
        self._best = best_i
        if done == 0:
            best_score = None  # a forced move: not searched
        self.last_info = {
            "depth": done,
            "score": best_score,
            **total,
            "helper_nodes": sum(helper_nodes),
            "time": el,
            "nps": total["nodes"] / el if el > 0 else 0.0,
            "partial": partial,
        }
        return best_i, best_score
