"""Backgammon agents that choose whole plays: TDAgent (TD-Gammon net), GreedyAgent, ExpectimaxAgent.

All three rank the distinct afterstates of a roll (``movegen.gen_afterstates``; legality comes
from the kernels only) and then play the chosen afterstate one checker move at a time, as the
env asks. One interface, three ways in:

- ``act(observation, action_mask) -> action`` in ``backgammon_v0`` (and the Gymnasium env) for
  either seat: the position is rebuilt from the 207-float observation (``state_from_observation``;
  the acting player is the mover, the action is in its frame). With the cube on, the agent plays
  cubeless: it never doubles and always takes.
- ``act_state(state) -> action`` on the kernel state (``env.unwrapped.state``, mover's view).
- ``best_play(position_id, die1, die2) -> position_id``: the chosen afterstate, in the frame of
  ``boardgym.envs.backgammon.legal_plays`` (the mover's, before the turn passes).

At the start of a turn the agent ranks the plays, then finds a sequence of masked actions that
reaches the chosen afterstate (``find_path``: depth-first over ``legal_action_mask`` /
``apply_action``) and replays it over the next calls while the position is the one it expects;
otherwise (a position met mid-turn) it ranks every end of turn reachable from there.

Evaluations: ``TDAgent`` the net of ``td_net`` (weights from ``save_weights`` files; the shipped
one is ``agents/checkpoints/backgammon-td.npz``), ``GreedyAgent`` the one-ply heuristic
``kernels.backgammon.batch.greedy_score`` (pip lead, made points, exposed blots, checkers off),
``ExpectimaxAgent`` 1-ply or 2-ply over the 21 distinct rolls with either of them.
"""
import json
import os
from pathlib import Path

import numpy as np
from numba import njit

from boardgym.agents import td_net
from boardgym.agents.run_log import write_atomically
from boardgym.kernels.backgammon.batch import greedy_score
from boardgym.kernels.backgammon.board import (
    BAR_ME, BAR_OPP, BOARD_LEN, CUBE_OWNER, CUBE_VALUE, DICE, ME, OFF_ME, OFF_OPP, OPP, STATE_LEN,
    TURN, end_turn, full_roll, refresh_masks,
)
from boardgym.kernels.backgammon.codec import N_ACTIONS, apply_action, legal_action_mask
from boardgym.kernels.backgammon.movegen import MAX_AFTERSTATES, gen_afterstates

__all__ = ["TDAgent", "GreedyAgent", "ExpectimaxAgent", "save_weights", "load_weights",
           "state_from_observation", "DEFAULT_CHECKPOINT"]

DEFAULT_CHECKPOINT = Path(__file__).resolve().parent / "checkpoints" / "backgammon-td.npz"
OBS_LEN = 207
MAX_LEAVES = 16384
# cube actions of backgammon_v0 with cube=True (kernels/backgammon/cube.py)
_ACTION_ROLL, _ACTION_TAKE = N_ACTIONS, N_ACTIONS + 2


# ----------------------------------------------------------------------------- weights

def save_weights(path, params, **meta):
    """Write (w1, b1, w2, b2) and JSON metadata to path (.npz), atomically (temp file + rename)."""
    w1, b1, w2, b2 = params
    write_atomically(str(path), lambda tmp: np.savez(tmp, w1=w1, b1=b1, w2=w2, b2=b2,
                                                     meta=np.array(json.dumps(meta))), ".npz")


def load_weights(path):
    """(w1, b1, w2, b2) float64 from a save_weights file or a train.py checkpoint; ValueError if bad."""
    try:
        z = np.load(str(path))
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read TD weights from {path}: {e}") from None
    missing = [k for k in ("w1", "b1", "w2", "b2") if k not in z.files]
    if missing:
        raise ValueError(f"{path} is not a TD weights file (missing {missing})")
    w1, b1, w2, b2 = (np.ascontiguousarray(z[k], dtype=np.float64) for k in ("w1", "b1", "w2", "b2"))
    h = b1.shape[0] if b1.ndim == 1 else -1
    if (w1.shape != (td_net.N_INPUTS, h) or w2.shape != (h, td_net.N_OUT)
            or b2.shape != (td_net.N_OUT,)):
        raise ValueError(f"{path}: inconsistent TD weight shapes {w1.shape} {b1.shape} "
                         f"{w2.shape} {b2.shape}")
    return w1, b1, w2, b2


# ----------------------------------------------------------------------------- kernels

@njit(cache=True)
def _dfs(state, target, want, rows, path):
    """Depth-first over masked actions until the turn passes.

    want: find a sequence reaching target (an afterstate, mover's view): path (int64[4]) gets it,
    returns its length (0 if none). Else: every end of turn into rows (mover's view, before the
    turn passes; duplicates kept) -> count (capped at len(rows)).
    """
    tgt = end_turn(target)
    turn = state[TURN]
    stack = np.empty((5, STATE_LEN), dtype=np.int64)
    masks = np.zeros((5, N_ACTIONS), dtype=np.int8)
    cursor = np.zeros(5, dtype=np.int64)
    acts = np.zeros(5, dtype=np.int64)
    stack[0] = state
    legal_action_mask(stack[0], masks[0])
    depth = 0
    n = 0
    while depth >= 0:
        a = cursor[depth]
        while a < N_ACTIONS and masks[depth, a] == 0:
            a += 1
        if a >= N_ACTIONS:
            depth -= 1
            continue
        cursor[depth] = a + 1
        acts[depth] = a
        nxt = apply_action(stack[depth], a)
        if nxt[TURN] != turn:
            if want:
                same = True
                for k in range(BOARD_LEN):
                    if nxt[k] != tgt[k]:
                        same = False
                        break
                if same:
                    for k in range(depth + 1):
                        path[k] = acts[k]
                    return depth + 1
            elif n < rows.shape[0]:
                back = end_turn(nxt)  # turned back to the mover's view
                for k in range(STATE_LEN):
                    rows[n, k] = back[k]
                rows[n, TURN] = turn
                n += 1
            continue
        if depth + 1 >= 5:
            continue
        depth += 1
        stack[depth] = nxt
        masks[depth, :] = 0
        legal_action_mask(stack[depth], masks[depth])
        cursor[depth] = 0
    return n


@njit(cache=True)
def find_path(state, target, path):
    """Masked actions (into path, int64[4]) leading from state to afterstate target -> count (0: none)."""
    rows = np.empty((1, STATE_LEN), dtype=np.int64)
    return _dfs(state, target, True, rows, path)


@njit(cache=True)
def turn_leaves(state, rows):
    """Every end of the current turn reachable by masked actions into rows -> count."""
    path = np.empty(4, dtype=np.int64)
    return _dfs(state, state, False, rows, path)


@njit(cache=True)
def greedy_scores(rows, n, out):
    """out[r] = batch.greedy_score(rows[r]) for r < n (float64)."""
    for r in range(n):
        out[r] = greedy_score(rows[r])


@njit(cache=True)
def net_equities(w1, b1, w2, b2, rows, n, out):
    """out[r] = cubeless equity (mover's view) of afterstate rows[r] under the net, r < n."""
    ys = np.empty((n, td_net.N_OUT))
    td_net.evaluate_rows(w1, b1, w2, b2, rows, n, ys)
    for r in range(n):
        out[r] = td_net.equity(ys[r])


@njit(cache=True)
def _score(use_net, w1, b1, w2, b2, rows, n, out):
    if use_net:
        net_equities(w1, b1, w2, b2, rows, n, out)
    else:
        greedy_scores(rows, n, out)


@njit(cache=True)
def expectimax2(use_net, w1, b1, w2, b2, rows, cand, n_cand, out):
    """Two-ply values of the afterstates rows[cand[:n_cand]] into out: the mean over the opponent's
    21 rolls (doubles 1/36, others 2/36) of minus its best one-ply score after its reply."""
    opp_rows = np.empty((MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    sc = np.empty(MAX_AFTERSTATES)
    for c in range(n_cand):
        s = end_turn(rows[cand[c]])
        tot = 0.0
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                m = gen_afterstates(s, d1, d2, opp_rows)
                _score(use_net, w1, b1, w2, b2, opp_rows, m, sc)
                best = sc[0]
                for k in range(1, m):
                    if sc[k] > best:
                        best = sc[k]
                tot += (-best) * (1.0 if d1 == d2 else 2.0)
        out[c] = tot / 36.0


# ----------------------------------------------------------------------------- observations

def state_from_observation(observation):
    """Kernel state (int64[STATE_LEN], mover's view, TURN 0) rebuilt from a backgammon_v0
    observation (float32[207]) of the player on roll; ValueError if it is not one."""
    obs = np.asarray(observation, dtype=np.float64)
    if obs.shape != (OBS_LEN,):
        raise ValueError(f"a backgammon observation is float32[{OBS_LEN}], got shape {obs.shape}")
    if not np.isfinite(obs).all() or obs.min() < 0.0:
        raise ValueError("a backgammon observation holds finite non-negative numbers")
    if obs[202] < 0.5:
        raise ValueError("the observing player is not on roll (observation[202] == 0)")
    s = np.zeros(STATE_LEN, dtype=np.int64)
    for side, base in ((ME, 0), (OPP, 96)):
        u = obs[base:base + 96].reshape(24, 4)
        n = np.where(u[:, 3] > 0, 3 + np.rint(2 * u[:, 3]), np.rint(u[:, :3].sum(axis=1)))
        s[side:side + 24] = n.astype(np.int64)
    s[BAR_ME], s[BAR_OPP] = np.rint(obs[192:194] * 2).astype(np.int64)
    s[OFF_ME], s[OFF_OPP] = np.rint(obs[194:196] * 15).astype(np.int64)
    s[DICE:DICE + 6] = np.rint(obs[196:202] * 4).astype(np.int64)
    for a, b in ((ME, BAR_ME), (OPP, BAR_OPP)):
        total = s[a:a + 24].sum() + s[b] + s[b + 2]
        if total != 15:
            raise ValueError(f"bad observation: a side has {total} checkers, not 15")
    if (s[ME:ME + 24] * s[OPP:OPP + 24]).any():
        raise ValueError("bad observation: both sides on one point")
    s[CUBE_VALUE] = 1
    s[CUBE_OWNER] = -1
    refresh_masks(s)
    return s


# ----------------------------------------------------------------------------- agents

class AfterstateAgent:
    """Base: rank afterstates with ``scores(rows) -> float64[n]`` (higher is better for the mover)
    and play the best one move by move."""

    def __init__(self):
        self._rows = np.empty((MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
        self._leaves = None
        self._path = np.empty(4, dtype=np.int64)
        self._plan = []          # remaining actions of the current play
        self._expect = None      # the state the next planned action is for

    def scores(self, rows):
        """Scores of the afterstates rows (int64[n, STATE_LEN], mover's view) for the mover."""
        raise NotImplementedError

    def choose(self, rows):
        """Index of the best afterstate of rows (int64[n, STATE_LEN]); first one on ties."""
        return int(np.argmax(self.scores(rows)))

    def afterstates(self, state, d1, d2):
        """The distinct afterstates of roll d1-d2 from state: int64[n, STATE_LEN] (a view)."""
        n = gen_afterstates(state, d1, d2, self._rows)
        return self._rows[:n]

    def best_afterstate(self, state, d1, d2):
        """The chosen afterstate of roll d1-d2 from state (int64[STATE_LEN], mover's view)."""
        rows = self.afterstates(state, d1, d2)
        return rows[self.choose(rows)].copy()

    def best_play(self, position_id, die1, die2):
        """Position ID of the chosen afterstate (frame of envs.backgammon.legal_plays)."""
        from boardgym.envs import backgammon as api
        d1, d2 = api._check_dice(die1, die2)
        s = api.position_from_id(position_id)
        return api.position_id(self.best_afterstate(s, d1, d2))

    def act_state(self, state):
        """Next checker move (action in the mover's frame) of the chosen play from kernel state."""
        s = np.ascontiguousarray(state, dtype=np.int64)
        if s.shape != (STATE_LEN,):
            raise ValueError(f"state must be int64[{STATE_LEN}], got shape {s.shape}")
        if self._plan and self._expect is not None and np.array_equal(s[:DICE + 6],
                                                                      self._expect[:DICE + 6]):
            return self._next()
        d1, d2 = full_roll(s)
        if d1 > 0:  # the turn has not begun
            target = self.best_afterstate(s, d1, d2)
        else:
            if self._leaves is None:
                self._leaves = np.empty((MAX_LEAVES, STATE_LEN), dtype=np.int64)
            n = turn_leaves(s, self._leaves)
            if n == 0:
                raise ValueError("no legal checker move in this position")
            rows = self._leaves[:n]
            target = rows[self.choose(rows)].copy()
        k = find_path(s, target, self._path)
        if k == 0:
            raise ValueError("internal: no action sequence reaches the chosen afterstate")
        self._plan = [int(a) for a in self._path[:k]]
        self._expect = s.copy()
        return self._next()

    def _next(self):
        a = self._plan.pop(0)
        nxt = apply_action(self._expect, a)
        self._expect = nxt if self._plan else None
        return a

    def act(self, observation, action_mask):
        """Next checker move for the player on roll of a backgammon_v0 observation (either seat)."""
        mask = np.asarray(action_mask)
        if mask.shape[0] > N_ACTIONS and not mask[:N_ACTIONS].any():
            for a in (_ACTION_ROLL, _ACTION_TAKE):  # cubeless play: never double, always take
                if mask[a]:
                    return a
            raise ValueError("the action mask allows no action this agent plays")
        if isinstance(observation, dict):
            observation = observation["observation"]
        s = state_from_observation(observation)
        a = self.act_state(s)
        if not mask[a]:
            raise ValueError("the observation and the action mask disagree")
        return a


class TDAgent(AfterstateAgent):
    """The TD-Gammon style net (td_net): picks the afterstate of highest cubeless equity."""

    def __init__(self, weights=None, hidden=None, seed=0):
        """weights: path of a .npz, a (w1, b1, w2, b2) tuple, or None (the shipped checkpoint;
        with hidden=H, a fresh random net of H units)."""
        super().__init__()
        if weights is None and hidden is not None:
            weights = td_net.init_params(int(hidden), seed)
        elif weights is None:
            weights = DEFAULT_CHECKPOINT
        if isinstance(weights, (str, os.PathLike)):
            weights = load_weights(weights)
        self.params = tuple(np.ascontiguousarray(p, dtype=np.float64) for p in weights)

    @property
    def hidden(self):
        return self.params[1].shape[0]

    def outputs(self, rows):
        """Net outputs float64[n, 5] (win, win gammon, win backgammon, lose gammon, lose bg)."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        ys = np.empty((rows.shape[0], td_net.N_OUT))
        td_net.evaluate_rows(*self.params, rows, rows.shape[0], ys)
        return ys

    def scores(self, rows):
        out = np.empty(rows.shape[0])
        net_equities(*self.params, np.ascontiguousarray(rows), rows.shape[0], out)
        return out

    def save(self, path, **meta):
        """Write the weights (save_weights)."""
        save_weights(path, self.params, **meta)


class GreedyAgent(AfterstateAgent):
    """One ply: the afterstate with the best pip lead / made points / exposed blots / off score."""

    def __init__(self, seed=None):
        super().__init__()

    def scores(self, rows):
        out = np.empty(rows.shape[0])
        greedy_scores(np.ascontiguousarray(rows), rows.shape[0], out)
        return out


class ExpectimaxAgent(AfterstateAgent):
    """1-ply or 2-ply expectimax over the 21 distinct rolls with a pluggable evaluation.

    evaluation: ``"td"`` (the shipped net), a TDAgent, a weights path, or ``"greedy"``. At 2-ply
    the ``width`` best afterstates by the 1-ply evaluation are searched (all with width=0).
    """

    def __init__(self, depth=2, evaluation="td", width=8, weights=None, seed=None):
        """weights: a TD weights path, shorthand for evaluation=weights."""
        super().__init__()
        if weights is not None:
            evaluation = weights
        if depth not in (1, 2):
            raise ValueError(f"ExpectimaxAgent depth must be 1 or 2, got {depth!r}")
        self.depth = depth
        self.width = int(width)
        if isinstance(evaluation, TDAgent):
            self.use_net, self.params = True, evaluation.params
        elif evaluation == "greedy":
            self.use_net = False
            self.params = td_net.init_params(1, 0)
        elif evaluation == "td":
            self.use_net, self.params = True, TDAgent().params
        elif isinstance(evaluation, (str, os.PathLike)):
            self.use_net, self.params = True, load_weights(evaluation)
        else:
            raise ValueError(f"unknown evaluation {evaluation!r}: 'td', 'greedy', a path or a TDAgent")

    def scores(self, rows):
        rows = np.ascontiguousarray(rows)
        n = rows.shape[0]
        one = np.empty(n)
        _score(self.use_net, *self.params, rows, n, one)
        if self.depth == 1 or n == 1:
            return one
        order = np.argsort(-one, kind="stable")
        cand = order if self.width <= 0 else order[:self.width]
        cand = np.ascontiguousarray(cand, dtype=np.int64)
        two = np.empty(cand.shape[0])
        expectimax2(self.use_net, *self.params, rows, cand, cand.shape[0], two)
        out = np.full(n, -np.inf)
        out[cand] = two
        return out
