"""Russian draughts agents that choose whole moves on kernel states: GreedyAgent, AlphaBetaAgent.

One interface, three ways in (all return the move the kernels generated; legality is never
decided here):

- ``act(observation, action_mask) -> action``: the PettingZoo/Gymnasium way, for either seat.
  The position is rebuilt from the 198-float observation (``state_from_observation``); the
  observation is in the acting player's frame, so the agent plays it as White and its kernel
  action is already the env action (draughts is symmetric under the 180-degree turn that maps
  a1-h8 onto itself).
- ``act_state(state) -> action``: the same from a true position vector (``env.unwrapped.state``),
  which also carries the game's repetition history and exact draw counters; the action is in the
  side to move's frame (``VIEW_ACTION[side]``), as the AEC env expects.
- ``best_move(fen) -> str``: the PDN move string (``c3:e5:g7``) for a FEN, as engines are queried.

A capture chain is one move chosen once; the agent remembers the rest of its route and plays it
hop by hop on the following calls (checking that the position is the one it expects, otherwise
it chooses again from the chain in progress).

What ``act(observation, ...)`` cannot know (documented loss of the observation route): the
earlier positions of the game (only the current position's repetition count is encoded, so a
third occurrence of some *other* position reached in the search is not seen), the draw counters
beyond their caps (30, 120 and 10 plies), the ply count, and, mid-chain, the square where the
chain began and whether the piece was a man when it began; none of these change the legal moves
or the position a chain ends in.
"""
import time
from pathlib import Path

import numpy as np

from boardgym.envs import draughts as api
from boardgym.kernels.draughts.board import (
    GHOST_TO_SQ32, M_CAPTURED, M_FROM, M_NHOPS, M_PATH, S_BK, S_BM, S_CAP_JUMPED, S_CAP_MAN,
    S_CAP_SQ, S_CAP_START, S_HASH, S_HIST, S_HIST_N, S_KINGS_ONLY, S_LONG_DIAG, S_MATERIAL,
    S_SIDE, S_WK, S_WM, SQ32_NAMES, SQ32_TO_GHOST,
)
from boardgym.kernels.draughts.codec import N_ACTIONS
from boardgym.kernels.draughts.codec import apply_action as k_apply_action
from boardgym.kernels.draughts.codec import legal_action_mask as k_mask
from boardgym.kernels.draughts.move import set_position
from boardgym.kernels.draughts.observe import N_PLANES, OBS_LEN, VIEW_ACTION
from boardgym.kernels.draughts.outcome import RULES_ALL, ONGOING, STATUS_NAMES
from boardgym.kernels.draughts.outcome import game_status as k_status

from boardgym.agents.draughts_eval import Evaluation
from boardgym.agents.draughts_search import (
    MAX_PLY, ST_ABORT, ST_AGE, ST_LIMIT, ST_NODES, ST_QNODES, ST_SELDEPTH, ST_TT_HITS, ST_USE_TT,
    WIN_BOUND, SearchBuffers, root_children, score_children, search_root,
)

__all__ = ["DraughtsAgent", "GreedyAgent", "AlphaBetaAgent", "state_from_observation",
           "move_to_str", "DEFAULT_CHECKPOINT"]

# The shipped learned evaluation (scripts/train_draughts_eval.py; load("draughts-alphabeta")).
DEFAULT_CHECKPOINT = Path(__file__).resolve().parent / "checkpoints" / "draughts-alphabeta.npz"

_K = N_PLANES * 32  # first scalar of the observation
_GHOST_BIT = np.left_shift(np.int64(1), SQ32_TO_GHOST)  # bit of each sq32 square


def _plane_bbs(obs):
    """The six observation planes as ghost-layout bitboards (Python ints)."""
    on = obs[:_K].reshape(N_PLANES, 32) > 0.5
    return [int(x) for x in (on * _GHOST_BIT).sum(axis=1)]


def state_from_observation(observation, rules=RULES_ALL):
    """Position vector (int64[STATE_LEN]) rebuilt from a draughts observation (float32[198]).

    The observer plays White (its own frame); side to move 0 if observation[192] is set.
    Counters are recovered up to their caps; the repetition history holds only the current
    position's count; mid-chain the chain is taken to begin on the capturing piece's square.
    """
    obs = np.asarray(observation, dtype=np.float32)
    if obs.shape != (OBS_LEN,):
        raise ValueError(f"a draughts observation is float32[{OBS_LEN}], got shape {obs.shape}")
    if not np.isfinite(obs).all() or obs.min() < 0.0 or obs.max() > 1.0:
        raise ValueError("a draughts observation holds numbers in 0..1")
    wm, wk, bm, bk, cap, jumped = _plane_bbs(obs)
    planes = [wm, wk, bm, bk]
    for i in range(4):
        for j in range(i + 1, 4):
            if planes[i] & planes[j]:
                raise ValueError("bad observation: two pieces on one square")
    if (planes[0] | planes[1]).bit_count() > 12 or (planes[2] | planes[3]).bit_count() > 12:
        raise ValueError("bad observation: more than 12 pieces on a side")
    side = 0 if obs[_K] > 0.5 else 1
    s = set_position(np.int64(wm), np.int64(wk), np.int64(bm), np.int64(bk), side, int(rules))
    s[S_KINGS_ONLY] = int(round(float(obs[_K + 1]) * 30))
    s[S_MATERIAL] = int(round(float(obs[_K + 2]) * 120))
    if s[S_LONG_DIAG] >= 0:
        s[S_LONG_DIAG] = int(round(float(obs[_K + 3]) * 10))
    reps = min(3, max(1, int(round(float(obs[_K + 4]) * 3))))
    s[S_HIST:S_HIST + reps] = s[S_HASH]
    s[S_HIST_N] = reps
    if int(cap) != 0:
        c = int(cap)
        if c & (c - 1) or int(jumped) == 0:
            raise ValueError("bad observation: a capture chain needs one capturing piece and "
                             "at least one jumped piece")
        g = c.bit_length() - 1
        own = planes[2 * side] | planes[2 * side + 1]
        if not (own >> g) & 1 or int(jumped) & ~(planes[2 - 2 * side] | planes[3 - 2 * side]):
            raise ValueError("bad observation: inconsistent capture-chain planes")
        s[S_CAP_SQ] = g
        s[S_CAP_START] = g
        s[S_CAP_JUMPED] = jumped
        s[S_CAP_MAN] = (wm if side == 0 else bm) >> g & 1
    return s


def move_to_str(state, row):
    """PDN string of a move row of state (``c3-d4``, ``c3:e5:g7``; mid-chain from the piece)."""
    fr = state[S_CAP_SQ] if state[S_CAP_SQ] >= 0 else row[M_FROM]
    sqs = [fr] + [row[M_PATH + k] for k in range(row[M_NHOPS])]
    sep = ":" if row[M_CAPTURED] != 0 else "-"
    return sep.join(SQ32_NAMES[GHOST_TO_SQ32[g]] for g in sqs)


def _signature(s):
    return (int(s[S_WM]), int(s[S_WK]), int(s[S_BM]), int(s[S_BK]), int(s[S_SIDE]),
            int(s[S_CAP_SQ]), int(s[S_CAP_JUMPED]))


class DraughtsAgent:
    """Base of the draughts agents that pick whole moves; subclasses implement ``_select``."""

    game = "draughts"

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)
        self.buffers = SearchBuffers(tt_bits=self._tt_bits())
        self._mask = np.zeros(N_ACTIONS, dtype=np.int8)
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
        """(row int64[ROW_LEN], info dict) of the chosen whole move (or chain completion)."""
        b = self.buffers
        n = root_children(state, b.rows, b.children)
        if n == 0:
            raise ValueError("no legal move in this position (the game is over)")
        i = self._select(state, n)
        return b.rows[i].copy(), dict(self.last_info)

    def _kernel_action(self, state):
        """Kernel action (frame of state) of the next hop: from the remembered route or chosen now."""
        if self._route and state[S_CAP_SQ] >= 0 and _signature(state) == self._expect:
            a = self._route.pop(0)
            k_mask(state, self._mask)
            if self._mask[a]:
                self._advance_expect(state, a)
                return a
        self._route = []
        row, _ = self.choose_move(state)
        fr = state[S_CAP_SQ] if state[S_CAP_SQ] >= 0 else row[M_FROM]
        hops = [int(GHOST_TO_SQ32[fr])] + [int(GHOST_TO_SQ32[row[M_PATH + k]])
                                            for k in range(row[M_NHOPS])]
        actions = [a * 32 + b for a, b in zip(hops[:-1], hops[1:])]
        self._route = actions[1:]
        self._advance_expect(state, actions[0])
        return actions[0]

    def _advance_expect(self, state, a):
        if self._route:
            self._expect = _signature(k_apply_action(state, np.int64(a)))
        else:
            self._expect = None

    def act_state(self, state):
        """Env action (the side to move's frame) for a position vector int64[STATE_LEN]."""
        s = np.asarray(state)
        code = api.game_status(s)  # ValueError for anything that is not a consistent position
        if code != ONGOING:
            raise ValueError(f"act_state: the game is over ({STATUS_NAMES[code]})")
        return int(VIEW_ACTION[int(s[S_SIDE]), self._kernel_action(s)])

    def act(self, observation, action_mask=None):
        """Env action for an observation (float32[198], the acting player's view) and its mask."""
        s = state_from_observation(observation)
        if s[S_SIDE] != 0:
            raise ValueError("act: the observation is not of the player to move")
        a = self._kernel_action(s)
        if action_mask is not None and not np.asarray(action_mask)[a]:
            raise ValueError(f"act: the chosen action {a} is not in the action mask "
                             "(does the observation belong to this mask?)")
        return int(a)

    def best_move(self, fen):
        """PDN string of the chosen move in a FEN position (ValueError if malformed or over)."""
        s = api.from_fen(fen)
        code = int(k_status(s))
        if code != ONGOING:
            raise ValueError(f"the game is over in {fen!r}: {STATUS_NAMES[code]}")
        row, _ = self.choose_move(s)
        return move_to_str(s, row)


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
                       self._scores)
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
    use_tt: False disables the table; seed: shuffles the initial root order (tie-break).
    ``last_info`` holds depth, score, nodes, qnodes, tt_hits, seldepth, time and nodes/s.
    """

    def __init__(self, depth=6, time_limit=None, evaluation=None, tt_bits=18, use_tt=True,
                 seed=None, max_nodes=None):
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
        super().__init__(seed)

    def _tt_bits(self):
        return self.tt_bits

    def _select(self, state, n):
        self.search(state, n)
        return self._best

    def search(self, state, n=None, depth=None):
        """Search a position to depth (default self.depth); return (best child index, score).

        The score is None when nothing was searched (a forced move with no explicit depth).

        n: number of root moves already in self.buffers (root_children); None generates them.
        """
        b = self.buffers
        if n is None:
            n = root_children(state, b.rows, b.children)
            if n == 0:
                raise ValueError("no legal move in this position (the game is over)")
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
                                 b.scratch, b.work, st, ev.kind, *ev.arrays(), b.obs, values)
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
