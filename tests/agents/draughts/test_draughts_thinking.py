"""Thinking of draughts-alphabeta (agents/draughts/thinking.py): the budget is used and honoured,
searches can be stopped and given a deadline from another thread, the principal variation is a
legal line.

Tolerant statistical checks only (a shared CI machine); the precise figures come from
``python -m boardgym.scripts.draughts_strength --parts timing``.
"""

import threading
import time

import numpy as np
import pytest

from boardgym.agents.draughts.agents import AlphaBetaAgent
from boardgym.agents.registry import load
from boardgym.envs import draughts as api
from boardgym.kernels.draughts.game import ONGOING, game_status, play_move

FENS = [
    "W:Wa1,c1,e1,b2,d2,f2,h2,c3,e3,g3:Ba5,c5,e5,b6,f6,h6,c7,g7,d8",
    "B:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8",
    "W:W21-32:B1-12",
    "W:Wa1,e1,g1,d2,f2,h2,c3,e3,g3,d4:Bb6,d6,f6,h6,a7,c7,g7,b8,f8,h8",
]


@pytest.fixture(scope="module")
def agent():
    a = load("draughts-alphabeta", depth=None, time_limit=0.1)
    a.best_move(FENS[2])  # warm-up (JIT)
    return a


def test_time_limit_uses_about_the_budget(agent):
    times = []
    for _ in range(2):
        for fen in FENS:
            t0 = time.perf_counter()
            move = agent.best_move(fen)
            times.append(time.perf_counter() - t0)
            assert move in api.legal_moves(fen)
    # the budget is used (the old manager stopped at ~65%) and never badly overrun; loose bounds
    # for a loaded machine (the bench script measures the real figures)
    assert 0.07 < np.mean(times) < 0.15
    assert max(times) < 0.3


def test_forced_move_returns_at_once(agent):
    fen = "W:W15,28:B4,18"  # one legal move (RULES.md, 25.2)
    t0 = time.perf_counter()
    assert agent.best_move(fen) == "e5:c3"
    assert time.perf_counter() - t0 < 0.05


def test_first_timed_move_of_a_process_is_searched(monkeypatch):
    """The search kernel's first run in a process (a compile, or a load from Numba's cache:
    seconds) happens before the clock starts, so the first timed move is searched rather than
    stopped at depth 0. A search kernel that stalls on its first call stands in for the compile."""
    from boardgym.agents.draughts import thinking

    real, calls = thinking.search_root, []

    def stalls_first(*args):
        if not calls:
            time.sleep(0.5)
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(thinking, "_search_ready", False)
    monkeypatch.setattr(thinking, "search_root", stalls_first)
    a = AlphaBetaAgent(depth=None, time_limit=0.05, seed=0, threads=1)  # load() runs it here
    t0 = time.perf_counter()
    move = a.best_move(FENS[0])
    assert time.perf_counter() - t0 < 0.4
    assert a.last_info["depth"] >= 1 and move in api.legal_moves(FENS[0])
    # an agent with a depth (no budget) runs it before its first timed think() instead
    monkeypatch.setattr(thinking, "_search_ready", False)
    calls.clear()
    b = AlphaBetaAgent(depth=4, seed=0)
    assert not calls
    row, info = b.think(api.from_fen(FENS[0]), budget=0.05)
    assert info["depth"] >= 1


def test_request_stop_from_another_thread():
    a = AlphaBetaAgent(depth=None, time_limit=0.05, seed=0)
    a.best_move(FENS[2])  # warm-up
    s = api.from_fen(FENS[0])
    a.clear_stop()
    threading.Timer(0.2, a.request_stop).start()
    t0 = time.perf_counter()
    row, info = a.think(s, budget=30.0)
    assert time.perf_counter() - t0 < 2.0
    assert info["depth"] >= 1
    assert api.move_to_str(s, row) in api.legal_moves(s)


def test_ponder_waits_for_a_deadline():
    a = AlphaBetaAgent(depth=None, time_limit=0.05, seed=0)
    a.best_move(FENS[2])
    s = api.from_fen(FENS[0])
    a.clear_stop()
    threading.Timer(0.3, a.set_deadline, args=(0.1,)).start()
    t0 = time.perf_counter()
    row, _ = a.think(s, ponder=True)
    dt = time.perf_counter() - t0
    assert 0.3 <= dt < 2.0  # no deadline before the "ponder-hit", then 0.1 s more
    assert api.move_to_str(s, row) in api.legal_moves(s)


def test_partial_iteration_and_iteration_reports():
    a = AlphaBetaAgent(depth=None, time_limit=1.0, seed=0)
    seen = []
    s = api.from_fen(FENS[0])
    row, info = a.think(s, budget=0.2, on_iteration=seen.append)
    assert [i["depth"] for i in seen] == list(range(1, len(seen) + 1))
    assert seen[-1]["depth"] == info["depth"]
    assert api.move_to_str(s, row) in api.legal_moves(s)


def test_principal_variation_is_a_legal_line():
    a = AlphaBetaAgent(depth=8, seed=0)
    for fen in FENS:
        s = api.from_fen(fen)
        row, _ = a.think(s, depth=8)
        rows, states = a.principal_variation(s, row)
        assert len(rows) >= 1 and (rows[0] == row).all()
        cur = s
        for r, st in zip(rows, states):
            assert (st == cur).all()
            assert game_status(cur) == ONGOING
            assert api.move_to_str(cur, r) in api.legal_moves(cur)
            cur = play_move(cur, r)


def test_think_checks_its_arguments():
    a = AlphaBetaAgent(depth=2, seed=0)
    s = api.from_fen(FENS[2])
    with pytest.raises(ValueError, match="budget"):
        a.think(s, budget=0)
    with pytest.raises(ValueError, match="depth"):
        a.think(s, depth=0)
    with pytest.raises(ValueError, match="max_nodes"):
        a.think(s, max_nodes=0)
    with pytest.raises(ValueError, match="over"):
        a.think(api.from_fen("W:W:B1"))


def _scripted_search(best_at, step=0.01, score_at=lambda d: 0):
    """A stand-in for search_root: each iteration takes ``step`` seconds (stopped at its
    deadline or by a stop as the kernel is: ST_ABORT, no root move finished) and returns
    best_at(depth) as its best move, score_at(depth) as its score."""
    from boardgym.agents.draughts.search import ST_ABORT, ST_DEADLINE, ST_ROOT_DONE, ST_STOP

    def search_root(
        children, n, order, d, tt, killers, history, moves, scratch, work, stats, *rest
    ):
        end = time.perf_counter() + step
        while time.perf_counter() < end:
            if stats[ST_DEADLINE] != 0 and time.monotonic_ns() >= stats[ST_DEADLINE]:
                stats[ST_STOP] = 1
            if stats[ST_STOP] != 0:
                stats[ST_ABORT] = 1
                stats[ST_ROOT_DONE] = 0
                return order[0], 0
            time.sleep(0.0005)
        return best_at(d) % n, score_at(d)

    return search_root


def _timed_move(agent, fen):
    t0 = time.perf_counter()
    agent.best_move(fen)
    return time.perf_counter() - t0


def test_adaptive_time_saves_on_settled_moves_and_spends_on_unsettled_ones(monkeypatch):
    """adaptive_time: a move whose best move stays the same stops once ADAPT_STOP of its budget
    is spent and banks the rest; a move whose best move changes gets the bank on top of its
    budget (at most ADAPT_MAX_EXTRA budgets); a full bank (ADAPT_BANK budgets) saves no more.
    A scripted search (10 ms an iteration) stands in for the kernel."""
    from boardgym.agents.draughts import thinking as da

    AlphaBetaAgent(depth=1, seed=0).best_move(FENS[0])  # compiled before the clocks run
    monkeypatch.setattr(da, "_search_ready", True)
    settled, unsettled = _scripted_search(lambda d: 0), _scripted_search(lambda d: d)
    budget = 0.2
    a = AlphaBetaAgent(depth=None, time_limit=budget, seed=0, threads=1, adaptive_time=True)
    monkeypatch.setattr(da, "search_root", settled)
    el = _timed_move(a, FENS[0])
    assert da.ADAPT_STOP * budget <= el < 0.8 * budget
    assert a._bank == pytest.approx(budget - el, abs=0.01)
    bank = a._bank
    monkeypatch.setattr(da, "search_root", unsettled)
    el = _timed_move(a, FENS[0])
    assert budget + 0.6 * bank < el < budget + bank + 0.08
    assert a._bank < 0.5 * bank  # spent
    # no bank: an unsettled move gets its budget and no more
    fresh = AlphaBetaAgent(depth=None, time_limit=budget, seed=0, threads=1, adaptive_time=True)
    assert 0.8 * budget < _timed_move(fresh, FENS[0]) < budget + 0.08
    # settled moves fill the bank up to its cap, and a full bank saves no more
    monkeypatch.setattr(da, "search_root", settled)
    for _ in range(8):
        _timed_move(a, FENS[0])
        assert a._bank <= da.ADAPT_BANK * budget + 1e-12
    assert a._bank > 0.6 * da.ADAPT_BANK * budget
    a._bank = da.ADAPT_BANK * budget
    assert _timed_move(a, FENS[0]) > 0.8 * budget
    # without adaptive_time a settled move takes its whole budget
    b = AlphaBetaAgent(depth=None, time_limit=budget, seed=0, threads=1, adaptive_time=False)
    assert _timed_move(b, FENS[0]) > 0.8 * budget
    with pytest.raises(ValueError, match="adaptive_time"):
        AlphaBetaAgent(depth=None, time_limit=budget, adaptive_time="yes")


def test_adaptive_time_counts_a_falling_score_as_unsettled(monkeypatch):
    """adaptive_time: a best move that stays the same while its score falls by more than
    ADAPT_DROP an iteration is unsettled (the bank is spent on it); a fall of ADAPT_DROP or less,
    or a rise, is settled (the move stops early and banks the rest)."""
    from boardgym.agents.draughts import thinking as da

    AlphaBetaAgent(depth=1, seed=0).best_move(FENS[0])  # compiled before the clocks run
    monkeypatch.setattr(da, "_search_ready", True)
    budget = 0.2

    def agent_with_bank():
        a = AlphaBetaAgent(depth=None, time_limit=budget, seed=0, threads=1, adaptive_time=True)
        a._bank = budget
        return a

    a = agent_with_bank()
    monkeypatch.setattr(
        da,
        "search_root",
        _scripted_search(lambda d: 0, score_at=lambda d: -(da.ADAPT_DROP + 1) * d),
    )
    el = _timed_move(a, FENS[0])
    assert budget + 0.6 * budget < el < 2 * budget + 0.08
    assert a._bank < 0.5 * budget  # spent
    for score_at in (lambda d: -da.ADAPT_DROP * d, lambda d: 25 * d):
        a = agent_with_bank()
        monkeypatch.setattr(da, "search_root", _scripted_search(lambda d: 0, score_at=score_at))
        el = _timed_move(a, FENS[0])
        assert da.ADAPT_STOP * budget <= el < 0.8 * budget
        assert a._bank > budget + 0.1 * budget  # saved more


def test_time_plan_and_bank_after_keep_their_bounds():
    """time_bank's arithmetic: a move gets its budget plus BANK_SPEND of the bank (the whole bank
    when unsettled), never over MOVE_MAX budgets; the bank keeps what a move leaves, loses what
    it takes beyond its budget, within 0..BANK_MAX budgets."""
    from boardgym.agents.draughts import thinking as da

    assert da.time_plan(0.1, 0.0) == (0.1, 0.1)
    start, most = da.time_plan(0.1, 0.02)
    assert start == pytest.approx(0.1 + da.BANK_SPEND * 0.02) and most == pytest.approx(0.12)
    start, most = da.time_plan(0.1, 10.0)
    assert start == most == pytest.approx(da.MOVE_MAX * 0.1)
    assert 1 < da.MOVE_MAX < 2  # room for the lag under twice the budget
    assert da.bank_after(0.0, 0.1, 0.0) == pytest.approx(0.1)  # a forced move: its budget saved
    assert da.bank_after(0.05, 0.1, 0.13) == pytest.approx(0.02)
    assert da.bank_after(0.01, 0.1, 0.13) == 0.0
    assert da.bank_after(0.19, 0.1, 0.0) == pytest.approx(da.BANK_MAX * 0.1)


FORCED = "W:W15,28:B4,18"  # one legal move (RULES.md, 25.2): e5:c3


def test_time_bank_saves_forced_moves_and_spends_them(monkeypatch):
    """time_bank (the default): a forced move returns at once and banks its budget; the next
    searched move takes its budget plus BANK_SPEND of the bank; a move whose best move changes
    late takes the whole bank (here MOVE_MAX raised so that the cap does not bind); a change in
    the first iterations only (before EXTEND_AFTER of its time) does not; reset empties the bank.
    A scripted search (10 ms an iteration) stands in for the kernel."""
    from boardgym.agents.draughts import thinking as da

    AlphaBetaAgent(depth=1, seed=0).best_move(FENS[0])  # compiled before the clocks run
    monkeypatch.setattr(da, "_search_ready", True)
    monkeypatch.setattr(da, "MOVE_MAX", 2.0)
    budget = 0.2
    a = AlphaBetaAgent(depth=None, time_limit=budget, seed=0, threads=1)
    assert a.time_bank
    assert _timed_move(a, FORCED) < 0.05
    assert a._bank == pytest.approx(budget, abs=0.01)
    bank = a._bank
    monkeypatch.setattr(da, "search_root", _scripted_search(lambda d: 0))  # settled
    el = _timed_move(a, FENS[0])
    assert budget + 0.6 * da.BANK_SPEND * bank < el < budget + da.BANK_SPEND * bank + 0.04
    assert a._bank == pytest.approx(bank + budget - el, abs=0.01)
    a._bank = bank = budget
    monkeypatch.setattr(da, "search_root", _scripted_search(lambda d: d))  # unsettled
    el = _timed_move(a, FENS[0])
    assert budget + 0.8 * bank < el < budget + bank + 0.04
    assert a._bank < 0.1 * budget
    a._bank = bank = budget
    monkeypatch.setattr(da, "search_root", _scripted_search(lambda d: min(d, 2)))  # early only
    el = _timed_move(a, FENS[0])
    assert el < budget + da.BANK_SPEND * bank + 0.04
    a.reset()
    assert a._bank == 0.0
    # time_bank=False: a forced move banks nothing, a searched move gets its budget and no more
    b = AlphaBetaAgent(depth=None, time_limit=budget, seed=0, threads=1, time_bank=False)
    _timed_move(b, FORCED)
    assert b._bank == 0.0
    assert 0.8 * budget < _timed_move(b, FENS[0]) < budget + 0.04
    with pytest.raises(ValueError, match="time_bank"):
        AlphaBetaAgent(depth=None, time_limit=budget, time_bank="yes")


def _kernel_search(deadline_ns, depth=8):
    """stats of one search_root of FENS[0] at depth (material evaluation, fresh buffers) with
    stats[ST_DEADLINE] = deadline_ns."""
    from boardgym.agents.draughts.evaluation import Evaluation
    from boardgym.agents.draughts.search import (
        ST_DEADLINE,
        ST_LIMIT,
        ST_USE_TT,
        SearchBuffers,
        root_children,
        search_root,
    )

    b, ev = SearchBuffers(tt_bits=12), Evaluation.material()
    s = api.from_fen(FENS[0])
    n = root_children(s, b.rows, b.children)
    b.stats[ST_LIMIT] = 1 << 62
    b.stats[ST_USE_TT] = 1
    b.stats[ST_DEADLINE] = deadline_ns
    values = np.zeros(n, dtype=np.int64)
    order = np.arange(n, dtype=np.int64)
    args = (b.tt, b.killers, b.history, b.moves, b.scratch, b.work, b.stats)
    search_root(b.children, n, order, depth, *args, *b.evaluation_args(ev), b.egdb, values)
    return b.stats


def test_search_reads_the_clock_every_clock_every_nodes():
    """The search stops itself at stats[ST_DEADLINE] (monotonic nanoseconds), reading the clock
    at every CLOCK_EVERY-th node: a deadline already past stops it at exactly that node, as a
    stop would (ST_ABORT, ST_STOP); a deadline far ahead, or none, changes nothing (same nodes)."""
    from boardgym.agents.draughts.search import (
        CLOCK_EVERY,
        ST_ABORT,
        ST_NODES,
        ST_STOP,
        monotonic_ns,
    )

    assert abs(monotonic_ns() - time.monotonic_ns()) < 50_000_000  # the same clock
    free = _kernel_search(0)
    assert free[ST_ABORT] == 0 and free[ST_NODES] > 4 * CLOCK_EVERY
    ahead = _kernel_search(monotonic_ns() + 3_600 * 10**9)
    assert ahead[ST_ABORT] == 0 and ahead[ST_NODES] == free[ST_NODES]
    past = _kernel_search(1)
    assert past[ST_ABORT] == 1 and past[ST_STOP] == 1
    assert past[ST_NODES] == CLOCK_EVERY


def test_search_clock_arms_the_searches_own_deadline():
    """SearchClock writes its deadline into stats[ST_DEADLINE] of the search and of the helper
    threads only once armed (the first iteration runs without it), follows set_deadline, and
    clears it when the search is over."""
    from boardgym.agents.draughts.search import ST_DEADLINE, ST_STOP, STATS_LEN
    from boardgym.agents.draughts.thinking import SearchClock

    main, helper = np.zeros(STATS_LEN, np.int64), np.zeros(STATS_LEN, np.int64)
    clock = SearchClock(main, [helper], own_clock=True)
    now = time.perf_counter()
    clock.start(now + 60.0)
    assert main[ST_DEADLINE] == helper[ST_DEADLINE] == 0
    clock.arm()
    expect = time.monotonic_ns() + 60 * 10**9
    for st in (main, helper):
        assert abs(int(st[ST_DEADLINE]) - expect) < 50_000_000
    clock.set_deadline(now + 120.0)
    assert abs(int(helper[ST_DEADLINE]) - (expect + 60 * 10**9)) < 50_000_000
    clock.finish()
    assert main[ST_DEADLINE] == helper[ST_DEADLINE] == 0 and main[ST_STOP] == 0
    # pondering: no deadline yet (0) until one is given
    clock.start(None)
    clock.arm()
    assert main[ST_DEADLINE] == 0
    clock.set_deadline(time.perf_counter() + 30.0)
    assert main[ST_DEADLINE] > time.monotonic_ns()
    clock.finish()


@pytest.mark.parametrize("threads", [1, 2])
def test_the_search_keeps_its_deadline_with_no_clock_thread(threads):
    """Where the search reads the clock (HAS_CLOCK), a timed move starts no clock thread (one
    woke 130 ms late, or not before the search ended, on a loaded machine: BENCHMARKS.md): the
    searches (the helper's too) stop themselves at the deadline, mid-iteration, so that the move
    takes its budget and no more (under twice the budget: the goal; an iteration left to finish
    took several budgets)."""
    from boardgym.agents.draughts.search import HAS_CLOCK, ST_ABORT, ST_STOP

    if not HAS_CLOCK:
        pytest.skip("the search has no clock of its own here (not Linux)")
    budget = 0.1
    a = AlphaBetaAgent(depth=None, time_limit=budget, seed=0, threads=threads)
    a.best_move(FENS[2])  # warm-up
    for fen in FENS[:2]:
        a._bank = 0.0  # the move's deadline: its budget
        before = {t.name for t in threading.enumerate()}
        t0 = time.perf_counter()
        move = a.best_move(fen)
        el = time.perf_counter() - t0
        assert move in api.legal_moves(fen)
        assert a._clock._thread is None and "search-clock" not in before
        assert a.buffers.stats[ST_ABORT] == 1 and a.buffers.stats[ST_STOP] == 1
        for hb in a._helpers:
            assert hb.stats[ST_STOP] == 1
        assert a.last_info["depth"] >= 2
        assert 0.5 * budget < el < 2 * budget


def test_a_clock_thread_stops_a_search_without_a_clock_of_its_own(monkeypatch):
    """Where the search has no clock (own_clock=False: not Linux) the clock thread stops it at
    the deadline (ST_STOP) and the searches get no deadline of their own."""
    from boardgym.agents.draughts import thinking
    from boardgym.agents.draughts.search import ST_ABORT, ST_DEADLINE, ST_STOP

    budget = 0.1
    a = AlphaBetaAgent(depth=None, time_limit=budget, seed=0, threads=1)
    a._clock = thinking.SearchClock(a.buffers.stats, own_clock=False)
    seen = []
    real = thinking.search_root

    def watched(*args):
        seen.append(int(args[10][ST_DEADLINE]))
        return real(*args)

    a.best_move(FENS[2])  # warm-up
    monkeypatch.setattr(thinking, "search_root", watched)
    t0 = time.perf_counter()
    move = a.best_move(FENS[0])
    el = time.perf_counter() - t0
    assert move in api.legal_moves(FENS[0])
    assert a.buffers.stats[ST_ABORT] == 1 and a.buffers.stats[ST_STOP] == 1
    assert seen and not any(seen)
    assert 0.5 * budget < el < 1.0
