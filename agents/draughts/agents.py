"""Russian draughts agents that choose whole moves on kernel states: GreedyAgent, AlphaBetaAgent.

One interface, three ways in (all return the move the game core generated; legality is never
decided here):

- ``act(observation, action_mask) -> action``: the PettingZoo/Gymnasium way, for either seat.
  The position is rebuilt from the 198-float observation (``state_from_observation``, the
  observation decoder of boardgym.kernels.draughts.observe); the observation is in the acting
  player's frame, so the agent plays it as White and its action is already the env action
  (draughts is symmetric under the 180-degree turn that maps a1-h8 onto itself).
- ``act_state(state) -> action``: the same from a true position vector (``env.unwrapped.state``),
  which also carries the game's repetition history and exact draw counters; the action is in the
  acting player's frame (``game.route_actions``), as the AEC env expects.
- ``best_move(fen) -> str``: the PDN move string (``c3:e5:g7``) for a FEN, as engines are queried.

A capture chain is one move chosen once; the agent remembers the rest of its route and plays it
hop by hop on the following calls (checking that the position is the one it expects, otherwise
it chooses again from the chain in progress).

What ``act(observation, ...)`` cannot know (boardgym.kernels.draughts.observe lists it): the
earlier positions of the game (a third occurrence of some *other* position reached in the search
is not seen), the draw counters beyond their caps, the ply count, and, mid-chain, where the chain
began; none of these change the legal moves or the position a chain ends in.
Every entry point checks its input (boardgym.envs.draughts: ``check_state``, ``from_fen``,
``state_from_observation``) and raises TypeError / ValueError naming the problem.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from boardgym.agents.draughts import egdb as draughts_egdb
from boardgym.agents.draughts.evaluation import Evaluation
from boardgym.agents.draughts.search import (
    MAX_PLY,
    SearchBuffers,
    principal_variation,
    root_children,
    score_children,
)
from boardgym.agents.draughts.thinking import (
    MAX_THREADS,
    Deepening,
    SearchClock,
    _ready_search,
    default_threads,
)
from boardgym.envs import draughts as api
from boardgym.envs.checks import is_int
from boardgym.envs.draughts import state_from_observation
from boardgym.kernels.draughts import game
from boardgym.kernels.draughts.board import (
    MAX_HOPS,
    ROW_LEN,
    S_BK,
    S_BM,
    S_CAP_JUMPED,
    S_CAP_SQ,
    S_SIDE,
    S_WK,
    S_WM,
    STATE_LEN,
)

__all__ = [
    "DraughtsAgent",
    "GreedyAgent",
    "AlphaBetaAgent",
    "SearchClock",
    "state_from_observation",
]


def _signature(s):
    return (
        int(s[S_WM]),
        int(s[S_WK]),
        int(s[S_BM]),
        int(s[S_BK]),
        int(s[S_SIDE]),
        int(s[S_CAP_SQ]),
        int(s[S_CAP_JUMPED]),
    )


class DraughtsAgent:
    """Base of the draughts agents that pick whole moves; subclasses implement ``_select``."""

    game = "draughts"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.buffers = SearchBuffers(tt_bits=self._tt_bits())
        self._mask = np.zeros(game.N_ACTIONS, dtype=np.int8)
        self._hops = np.zeros(MAX_HOPS, dtype=np.int64)
        self._route = []
        self._expect = None
        self.last_info = {}

    def _tt_bits(self):
        return 4

    def seed(self, seed: int | None = None) -> None:
        """Re-seed the agent's generator (tie-breaks)."""
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Forget the remembered route (call between games)."""
        self._route = []
        self._expect = None

    def _select(self, state, n):
        """Index of the chosen move among self.buffers.rows[:n] (children in buffers.children)."""
        raise NotImplementedError

    def choose_move(self, state: np.ndarray) -> tuple[npt.NDArray[np.int64], dict[str, Any]]:
        """(row int64[ROW_LEN], info dict) of the chosen whole move (or chain completion) of a
        position vector; ValueError if the game is over there."""
        return self._choose(_ongoing(api.check_state(state), "choose_move"))

    def _choose(self, state):
        b = self.buffers
        n = root_children(state, b.rows, b.children)
        if n == 0:
            raise ValueError("no legal move in this position (the game is over)")
        i = self._select(state, n)
        return b.rows[i].copy(), dict(self.last_info)

    def _next_action(self, state):
        """Action (the acting player's frame) of the next hop: from the remembered route or
        chosen now."""
        if self._route and state[S_CAP_SQ] >= 0 and _signature(state) == self._expect:
            a = self._route.pop(0)
            game.legal_mask(state, self._mask)
            if self._mask[a]:
                self._advance_expect(state, a)
                return a
        self._route = []
        row, _ = self._choose(state)
        n = game.route_actions(state, row, self._hops)
        actions = self._hops[:n].tolist()
        self._route = actions[1:]
        self._advance_expect(state, actions[0])
        return actions[0]

    def _advance_expect(self, state, a):
        if self._route:
            self._expect = _signature(game.step(state, np.int64(a)))
        else:
            self._expect = None

    def act_state(self, state: np.ndarray) -> int:
        """Env action (the acting player's frame) for a position vector int64[STATE_LEN]."""
        return int(self._next_action(_ongoing(api.check_state(state), "act_state")))

    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        """Env action for an observation (float32[198], the acting player's view) and its mask."""
        s = state_from_observation(observation)
        if s[S_SIDE] != 0:
            raise ValueError("act: the observation is not of the player to move")
        mask = None if action_mask is None else _check_mask(action_mask)
        a = self._next_action(_ongoing(s, "act"))
        if mask is not None and not mask[a]:
            raise ValueError(
                f"act: the chosen action {a} is not in the action mask "
                "(does the observation belong to this mask?)"
            )
        return int(a)

    def best_move(self, fen: str) -> str:
        """PDN string of the chosen move in a FEN position (ValueError if malformed or over)."""
        s = _ongoing(api.from_fen(fen), f"best_move in {fen!r}")
        row, _ = self._choose(s)
        return api.move_to_str(s, row)


def _ongoing(state, where):
    """state, or ValueError naming the result if the game is over there."""
    code = game.game_status(state)
    if code != game.ONGOING:
        raise ValueError(f"{where}: the game is over ({game.STATUS_NAMES[code]})")
    return state


def _check_mask(action_mask):
    """An action mask (int or bool array of N_ACTIONS entries) as a NumPy array."""
    if (
        action_mask is None
        or isinstance(action_mask, (str, bytes))
        or not isinstance(action_mask, (np.ndarray, list, tuple))
    ):
        raise TypeError(
            f"action_mask must be an array of {game.N_ACTIONS} 0/1 entries, got "
            f"{type(action_mask).__name__}"
        )
    m = np.asarray(action_mask)
    if m.dtype.kind not in "biu":
        raise TypeError(f"action_mask must hold integers or booleans, got dtype {m.dtype}")
    if m.shape != (game.N_ACTIONS,):
        raise ValueError(f"action_mask must have shape ({game.N_ACTIONS},), got {m.shape}")
    return m


def _evaluation(evaluation):
    if evaluation is None or evaluation == "material":
        return Evaluation.material()
    if isinstance(evaluation, Evaluation):
        return evaluation
    if isinstance(evaluation, str):
        return Evaluation.load(evaluation)
    raise ValueError(
        f"evaluation must be None, 'material', an Evaluation or an .npz path, got {evaluation!r}"
    )


class GreedyAgent(DraughtsAgent):
    """One ply: the move whose position scores best (material man 1 king 3 + small positional
    terms, draughts/evaluation.py; a win first), ties broken at random with the agent's seed.

    resolve_captures: score a move after the forced captures that follow it (quiescence: the
    captures are compulsory, so they are part of what the move allows); False scores the
    position right after the move.
    """

    def __init__(
        self,
        seed: int | None = None,
        evaluation: Evaluation | str | None = None,
        resolve_captures: bool = True,
    ) -> None:
        self.evaluation = _evaluation(evaluation)
        self.resolve_captures = bool(resolve_captures)
        super().__init__(seed)
        self._scores = np.zeros(512, dtype=np.int64)

    def _select(self, state, n):
        b = self.buffers
        ev = self.evaluation
        score_children(
            b.children,
            n,
            int(self.resolve_captures),
            b.tt,
            b.killers,
            b.history,
            b.moves,
            b.scratch,
            b.work,
            b.stats,
            *b.evaluation_args(ev),
            b.egdb,
            self._scores,
        )
        sc = self._scores[:n]
        best = np.flatnonzero(sc == sc.max())
        i = int(best[self.rng.integers(best.size)])
        self.last_info = {"score": int(sc[i]), "depth": 1}
        return i


class AlphaBetaAgent(DraughtsAgent, Deepening):
    """Alpha-beta search (draughts/search.py) with iterative deepening from Python (thinking.py).

    depth: maximum depth in plies (None = as deep as time allows, up to MAX_PLY - 2);
    time_limit: seconds per move (None = no limit); evaluation: None/"material", an
    Evaluation, or an .npz path (learned); tt_bits: log2 of the transposition-table entries;
    use_tt: False disables the table; seed: shuffles the initial root order (tie-break);
    max_nodes: node budget of each iteration (None = none); start_fraction: with a time budget,
    a new iteration starts only while less than this fraction of it is spent (1.0: while time is
    left); keep_partial: play the best finished move of an interrupted iteration (False: only
    finished iterations count). start_fraction=0.5, keep_partial=False is the time use of the
    version before this one (it spent ~65% of its budget), kept to measure the difference.
    egdb: endgame tables (draughts_egdb): None loads the complete set in the default directory
    when there is one, False uses none, a directory loads that one, or a draughts_egdb.Tables.
    lmr: late-move reductions (draughts_search.LMR_*): True, False, or None (the default): on
    when the agent has no depth cap (``depth=None``: it searches by time), off with a depth, so
    that ``depth=N`` stays a full-width search to N plies (the figures, tests and training
    labels made at a fixed depth keep their meaning) while a timed search reaches deeper.
    threads: searching threads (Lazy SMP): the extra threads search the same root, every other
    one a ply deeper, in orders of their own, sharing the transposition table (whose entries are
    checked word by word, draughts_search), until the main search ends; only the main search
    picks the move, the others help through the table. More than one thread makes the result
    depend on timing, like any timed search. None (the default): like lmr, by the depth cap:
    one thread with a depth (a fixed-depth search stays reproducible), ``default_threads()``
    (two, or one on a one-core machine) without one.
    adaptive_time: with a time_limit, share time between moves (each move's budget on average):
    a move whose best move has stayed the same for ``ADAPT_STABLE`` iterations ends once
    ``ADAPT_STOP`` of its budget is spent and banks the rest (up to ``ADAPT_BANK`` budgets);
    a move whose best move changes, or whose score falls by more than ``ADAPT_DROP``, at an
    iteration gets the bank on top of its budget (at most ``ADAPT_MAX_EXTRA`` budgets more, so
    never twice its budget), once. Off by default: over 400 games at 0.1 s a move it scored
    51.6% against the same engine without it (BENCHMARKS.md), no clear gain. ``think`` (a budget
    of its own: the Hub engine) never shares. It replaces time_bank when on.
    time_bank: with a time_limit (the default: True), what a move leaves of its budget (a forced
    move, a decided game) is banked (at most ``BANK_MAX`` budgets, thinking.py) and spent on
    the searched moves that follow: each gets ``BANK_SPEND`` of the bank on top of its budget,
    and one whose best move changes or whose score falls (``ADAPT_DROP``) at an iteration
    finished after ``EXTEND_AFTER`` of its time gets the whole bank, never more than
    ``MOVE_MAX`` budgets in all; so over a game the moves take about their budgets on average.
    False: every move gets exactly its budget. ``reset`` (between games) empties the bank.
    ``last_info`` holds depth, score, nodes, qnodes, tt_hits, seldepth, reduced (moves searched
    reduced), researched (of which searched again at full depth), helper_nodes (the other
    threads' nodes), time and nodes/s (the main search's).

    Time: with a time_limit the agent uses its whole budget (with adaptive_time, on average over
    its moves; it starts a new iteration while time is left, and the search stops itself at the
    deadline, mid-iteration, reading the clock every ``CLOCK_EVERY`` nodes, thinking.py): it
    plays the best move of the last iteration, or of the current one if that has finished at
    least the previous best move (root moves are searched previous best first, so a move that
    beat it at the new depth is better). The deadline is early by the lag measured on the
    earlier moves (from the deadline to the search's end: a loaded machine), averaged, so that
    the move itself takes the budget. A forced move (one legal move) or a decided game (a win or
    loss found) returns at once (banking its time with time_bank). ``think`` searches with a budget
    of its own and can be stopped or given its deadline from another thread (``request_stop``,
    ``set_deadline``; the Hub engine).
    """

    def __init__(
        self,
        depth: int | None = 6,
        time_limit: float | None = None,
        evaluation: Evaluation | str | None = None,
        tt_bits: int = 18,
        use_tt: bool = True,
        seed: int | None = None,
        max_nodes: int | None = None,
        start_fraction: float = 1.0,
        keep_partial: bool = True,
        egdb: draughts_egdb.Tables | str | os.PathLike[str] | bool | None = None,
        lmr: bool | None = None,
        threads: int | None = None,
        adaptive_time: bool = False,
        time_bank: bool = True,
    ) -> None:
        if not isinstance(adaptive_time, (bool, np.bool_)):
            raise ValueError(f"adaptive_time must be True or False, got {adaptive_time!r}")
        if not isinstance(time_bank, (bool, np.bool_)):
            raise ValueError(f"time_bank must be True or False, got {time_bank!r}")
        self.adaptive_time = bool(adaptive_time)
        self.time_bank = bool(time_bank)
        self._bank = 0.0  # seconds saved on earlier moves (adaptive_time)
        if not (isinstance(start_fraction, (int, float)) and 0 < start_fraction <= 1):
            raise ValueError(f"start_fraction must be in (0, 1], got {start_fraction!r}")
        if not isinstance(keep_partial, (bool, np.bool_)):
            raise ValueError(f"keep_partial must be True or False, got {keep_partial!r}")
        if lmr is not None and not isinstance(lmr, (bool, np.bool_)):
            raise ValueError(f"lmr must be True, False or None, got {lmr!r}")
        if threads is not None and not (is_int(threads) and 1 <= threads <= MAX_THREADS):
            raise ValueError(
                f"threads must be None or an integer in 1..{MAX_THREADS}, got {threads!r}"
            )
        self.threads = (
            (default_threads() if depth is None else 1) if threads is None else int(threads)
        )
        self.start_fraction = float(start_fraction)
        self.keep_partial = bool(keep_partial)
        self.lmr = (depth is None) if lmr is None else bool(lmr)
        if depth is None and time_limit is None:
            raise ValueError("give a depth, a time_limit or both")
        if depth is not None and not (
            isinstance(depth, (int, np.integer)) and 1 <= depth <= MAX_PLY - 2
        ):
            raise ValueError(f"depth must be an integer in 1..{MAX_PLY - 2}, got {depth!r}")
        if time_limit is not None and not float(time_limit) > 0:
            raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
        if max_nodes is not None and int(max_nodes) < 1:
            raise ValueError(f"max_nodes must be positive, got {max_nodes!r}")
        self.depth = None if depth is None else int(depth)
        self.time_limit = None if time_limit is None else float(time_limit)
        self.max_nodes = None if max_nodes is None else int(max_nodes)
        self.evaluation = _evaluation(evaluation)
        self.tt_bits = int(tt_bits) if isinstance(tt_bits, (int, np.integer)) else tt_bits
        self.use_tt = bool(use_tt)
        self._age = 0
        self._stop_pending = False
        self._lag = 0.002  # seconds from the deadline to the search's end (measured, averaged)
        super().__init__(seed)
        tables = draughts_egdb.tables_option(egdb)
        if tables is not None:
            self.buffers.egdb = tables[:3]
        self.egdb_pieces = 0 if tables is None else tables.max_pieces
        self._helpers = []
        for _ in range(self.threads - 1):  # their own buffers, the main table and tables
            hb = SearchBuffers(tt_bits=4)
            hb.tt = self.buffers.tt
            hb.egdb = self.buffers.egdb
            self._helpers.append(hb)
        self._clock = SearchClock(self.buffers.stats, [hb.stats for hb in self._helpers])
        if self.time_limit is not None:  # the first timed move gets its whole budget
            _ready_search(self.evaluation, self.buffers.egdb)

    def _tt_bits(self):
        return self.tt_bits

    def _select(self, state, n):
        self._search(
            state,
            n,
            None,
            self.time_limit,
            self.max_nodes,
            False,
            None,
            adaptive=self.adaptive_time and self.time_limit is not None,
            bank=self.time_bank,
        )
        return self._best

    def reset(self) -> None:
        """Forget the remembered route and the time banked (call between games)."""
        super().reset()
        self._bank = 0.0

    def search(self, state: np.ndarray, depth: int | None = None) -> tuple[int, int | None]:
        """Search a position vector to depth (default self.depth); return (best child index into
        buffers.rows / buffers.children, score). The score is None when nothing was searched (a
        forced move with no explicit depth)."""
        s = _ongoing(api.check_state(state), "search")
        if depth is not None and not is_int(depth):
            raise TypeError(f"depth must be an integer, got {depth!r}")
        if depth is not None and not 1 <= depth <= MAX_PLY - 2:
            raise ValueError(f"depth must be in 1..{MAX_PLY - 2}, got {depth}")
        b = self.buffers
        n = root_children(s, b.rows, b.children)
        if n == 0:
            raise ValueError("no legal move in this position (the game is over)")
        return self._search(
            s,
            n,
            None if depth is None else int(depth),
            self.time_limit,
            self.max_nodes,
            False,
            None,
        )

    def think(
        self,
        state: np.ndarray,
        budget: float | None = None,
        depth: int | None = None,
        max_nodes: int | None = None,
        ponder: bool = False,
        on_iteration: Callable[[dict[str, Any]], object] | None = None,
        bank: bool = False,
    ) -> tuple[npt.NDArray[np.int64], dict[str, Any]]:
        """(row int64[ROW_LEN], info dict) of the move chosen in a whole-move position vector,
        searched with these limits instead of the agent's own: budget seconds (None: none),
        depth plies (None: MAX_PLY - 2), max_nodes per iteration; ponder: no deadline until
        ``set_deadline`` (or ``request_stop``) is called from another thread. A forced move is
        returned at once. on_iteration(info) is called after each finished iteration (info:
        depth, score, nodes, time, move: the best move's row). Clear a
        stop left over from an earlier search with ``clear_stop`` before calling. bank: share
        time with the other ``bank=True`` calls as ``time_bank`` does (a fixed time per move;
        ``reset`` empties the bank)."""
        s = _ongoing(api.check_state(state), "think")
        if s[S_CAP_SQ] >= 0:
            raise ValueError("think: the position is in the middle of a capture chain")
        if budget is not None and not float(budget) > 0:
            raise ValueError(f"budget must be a positive number of seconds, got {budget!r}")
        if depth is not None and not (is_int(depth) and 1 <= depth <= MAX_PLY - 2):
            raise ValueError(f"depth must be an integer in 1..{MAX_PLY - 2}, got {depth!r}")
        if max_nodes is not None and not (is_int(max_nodes) and max_nodes >= 1):
            raise ValueError(f"max_nodes must be a positive integer, got {max_nodes!r}")
        b = self.buffers
        n = root_children(s, b.rows, b.children)
        self._search(
            s,
            n,
            None if depth is None else int(depth),
            budget,
            max_nodes,
            bool(ponder),
            on_iteration,
            depth_given=depth is not None,
            bank=bool(bank),
        )
        return b.rows[self._best].copy(), dict(self.last_info)

    def principal_variation(
        self, state: np.ndarray, row: np.ndarray, length: int = MAX_PLY
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """(rows, states) of the expected line after a search of state: its move row (as
        ``think`` returns it) and then the transposition table's moves (int64[n, ROW_LEN],
        int64[n, STATE_LEN]: each move and the position it is played in)."""
        s = _ongoing(api.check_state(state), "principal_variation")
        r = np.ascontiguousarray(row, dtype=np.int64)
        if r.shape != (ROW_LEN,):
            raise ValueError(f"a move row must have shape ({ROW_LEN},), got {r.shape}")
        api.move_to_str(s, r)  # ValueError unless a legal move of s
        rows = np.zeros((length, ROW_LEN), dtype=np.int64)
        states = np.zeros((length, STATE_LEN), dtype=np.int64)
        n = principal_variation(s, r, self.buffers.tt, rows, states)
        return rows[:n], states[:n]
