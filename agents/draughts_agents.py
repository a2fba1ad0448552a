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
import time

import numpy as np

from boardgym.envs import draughts as api
from boardgym.envs.checks import is_int
from boardgym.envs.draughts import state_from_observation
from boardgym.kernels.draughts import game
from boardgym.kernels.draughts.board import (
    MAX_HOPS, S_BK, S_BM, S_CAP_JUMPED, S_CAP_SQ, S_SIDE, S_WK, S_WM,
)

from boardgym.agents import draughts_egdb
from boardgym.agents.draughts_eval import Evaluation
from boardgym.agents.draughts_search import (
    MAX_PLY, ST_ABORT, ST_AGE, ST_LIMIT, ST_NODES, ST_QNODES, ST_SELDEPTH, ST_TT_HITS, ST_USE_TT,
    WIN_BOUND, SearchBuffers, root_children, score_children, search_root,
)

__all__ = ["DraughtsAgent", "GreedyAgent", "AlphaBetaAgent", "state_from_observation"]


def _signature(s):
    return (int(s[S_WM]), int(s[S_WK]), int(s[S_BM]), int(s[S_BK]), int(s[S_SIDE]),
            int(s[S_CAP_SQ]), int(s[S_CAP_JUMPED]))


class DraughtsAgent:
    """Base of the draughts agents that pick whole moves; subclasses implement ``_select``."""

    game = "draughts"

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)
        self.buffers = SearchBuffers(tt_bits=self._tt_bits())
        self._mask = np.zeros(game.N_ACTIONS, dtype=np.int8)
        self._hops = np.zeros(MAX_HOPS, dtype=np.int64)
        self._route = []
        self._expect = None
        self.last_info = {}

    def _tt_bits(self):
        return 4

    def seed(self, seed=None):
        """Re-seed the agent's generator (tie-breaks)."""
        self.rng = np.random.default_rng(seed)

    def reset(self):
        """Forget the remembered route (call between games)."""
        self._route = []
        self._expect = None

    def _select(self, state, n):
        """Index of the chosen move among self.buffers.rows[:n] (children in buffers.children)."""
        raise NotImplementedError

    def choose_move(self, state):
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

    def act_state(self, state):
        """Env action (the acting player's frame) for a position vector int64[STATE_LEN]."""
        return int(self._next_action(_ongoing(api.check_state(state), "act_state")))

    def act(self, observation, action_mask=None):
        """Env action for an observation (float32[198], the acting player's view) and its mask."""
        s = state_from_observation(observation)
        if s[S_SIDE] != 0:
            raise ValueError("act: the observation is not of the player to move")
        mask = None if action_mask is None else _check_mask(action_mask)
        a = self._next_action(_ongoing(s, "act"))
        if mask is not None and not mask[a]:
            raise ValueError(f"act: the chosen action {a} is not in the action mask "
                             "(does the observation belong to this mask?)")
        return int(a)

    def best_move(self, fen):
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
    if action_mask is None or isinstance(action_mask, (str, bytes)) or not isinstance(
            action_mask, (np.ndarray, list, tuple)):
        raise TypeError(f"action_mask must be an array of {game.N_ACTIONS} 0/1 entries, got "
                        f"{type(action_mask).__name__}")
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
    raise ValueError(f"evaluation must be None, 'material', an Evaluation or an .npz path, "
                     f"got {evaluation!r}")


class GreedyAgent(DraughtsAgent):
    """One ply: the move whose position scores best (material man 1 king 3 + small positional
    terms, draughts_eval.py; a win first), ties broken at random with the agent's seed.

    resolve_captures: score a move after the forced captures that follow it (quiescence: the
    captures are compulsory, so they are part of what the move allows); False scores the
    position right after the move.
    """

    def __init__(self, seed=None, evaluation=None, resolve_captures=True):
        self.evaluation = _evaluation(evaluation)
        self.resolve_captures = bool(resolve_captures)
        super().__init__(seed)
        self._scores = np.zeros(512, dtype=np.int64)

    def _select(self, state, n):
        b = self.buffers
        ev = self.evaluation
        score_children(b.children, n, int(self.resolve_captures), b.tt, b.killers, b.history,
                       b.moves, b.scratch, b.work, b.stats, ev.kind, *ev.arrays(), b.obs,
                       b.egdb, self._scores)
        sc = self._scores[:n]
        best = np.flatnonzero(sc == sc.max())
        i = int(best[self.rng.integers(best.size)])
        self.last_info = {"score": int(sc[i]), "depth": 1}
        return i


class AlphaBetaAgent(DraughtsAgent):
    """Alpha-beta search (draughts_search.py) with iterative deepening from Python.

    depth: maximum depth in plies (None = as deep as time allows, up to MAX_PLY - 2);
    time_limit: seconds per move (None = no limit; the search stops between iterations or, by a
    node budget estimated from the measured speed, inside one); evaluation: None/"material", an
    Evaluation, or an .npz path (learned); tt_bits: log2 of the transposition-table entries;
    use_tt: False disables the table; seed: shuffles the initial root order (tie-break);
    egdb: endgame tables (draughts_egdb): None loads the complete set in the default directory
    when there is one, False uses none, a directory loads that one, or a draughts_egdb.Tables.
    ``last_info`` holds depth, score, nodes, qnodes, tt_hits, seldepth, time and nodes/s.
    """

    def __init__(self, depth=6, time_limit=None, evaluation=None, tt_bits=18, use_tt=True,
                 seed=None, max_nodes=None, egdb=None):
        if depth is None and time_limit is None:
            raise ValueError("give a depth, a time_limit or both")
        if depth is not None and not (isinstance(depth, (int, np.integer)) and
                                      1 <= depth <= MAX_PLY - 2):
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
        self._nps = 1e6
        tables = draughts_egdb.tables_option(egdb)
        super().__init__(seed)
        if tables is not None:
            self.buffers.egdb = tables[:3]
        self.egdb_pieces = 0 if tables is None else tables.max_pieces

    def _tt_bits(self):
        return self.tt_bits

    def _select(self, state, n):
        self._search(state, n, None)
        return self._best

    def search(self, state, depth=None):
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
        return self._search(s, n, None if depth is None else int(depth))

    def _search(self, state, n, depth):
        """search() over the n root moves already in self.buffers (root_children)."""
        b = self.buffers
        max_depth = depth if depth is not None else (self.depth or MAX_PLY - 2)
        order = self.rng.permutation(n).astype(np.int64)
        values = np.zeros(n, dtype=np.int64)
        self._age = (self._age + 1) & 0xFFFF
        st = b.stats
        st[ST_AGE] = self._age
        st[ST_USE_TT] = 1 if self.use_tt else 0
        b.killers[:] = -1
        b.history >>= 2
        ev = self.evaluation
        t0 = time.perf_counter()
        deadline = None if self.time_limit is None else t0 + self.time_limit
        best_i, best_score, done = int(order[0]), 0, 0
        total = {"nodes": 0, "qnodes": 0, "tt_hits": 0, "seldepth": 0}
        if n == 1 and depth is None:
            max_depth = 0  # forced move: nothing to search
        for d in range(1, max_depth + 1):
            limit = 1 << 62 if self.max_nodes is None else self.max_nodes
            if deadline is not None:
                left = deadline - time.perf_counter()
                if done > 0 and left < 0.5 * self.time_limit:
                    break  # the next iteration would most likely not finish
                limit = min(limit, max(1000, int(left * self._nps)))
            st[ST_NODES] = 0
            st[ST_QNODES] = 0
            st[ST_TT_HITS] = 0
            st[ST_SELDEPTH] = 0
            st[ST_ABORT] = 0
            st[ST_LIMIT] = limit
            t1 = time.perf_counter()
            bi, sc = search_root(b.children, n, order, d, b.tt, b.killers, b.history, b.moves,
                                 b.scratch, b.work, st, ev.kind, *ev.arrays(), b.obs, b.egdb, values)
            dt = time.perf_counter() - t1
            total["nodes"] += int(st[ST_NODES])
            total["qnodes"] += int(st[ST_QNODES])
            total["tt_hits"] += int(st[ST_TT_HITS])
            total["seldepth"] = max(total["seldepth"], int(st[ST_SELDEPTH]))
            if st[ST_NODES] > 5000 and dt > 0:
                self._nps = st[ST_NODES] / dt
            if st[ST_ABORT]:
                break
            best_i, best_score, done = int(bi), int(sc), d
            if abs(best_score) > WIN_BOUND:
                break  # decided: a deeper search finds nothing better than the shortest win
        el = time.perf_counter() - t0
        self._best = best_i
        if done == 0:
            best_score = None  # a forced move (or no iteration finished): not searched
        self.last_info = {"depth": done, "score": best_score, **total, "time": el,
                          "nps": total["nodes"] / el if el > 0 else 0.0}
        return best_i, best_score
