"""Backgammon agents that choose whole plays (TDAgent, TDSearchAgent, GreedyAgent,
ExpectimaxAgent); the afterstate game loop they play in is agents/backgammon/game_loop.py.

All of them rank the distinct afterstates of a roll (``game.plays``; legality comes from the game
core only, rules B.1-B.6, E.1-E.7, O.1-O.3) and play the chosen one through its route, one
checker move at a time, as the env asks. One interface, four ways in:

- ``act(observation, action_mask) -> action`` in ``backgammon_v0`` (and the Gymnasium env) for
  either seat: the position is rebuilt from the 207-float observation (``state_from_observation``;
  the acting player is the mover, the action is in its frame). With the cube on (C.1-C.2), the
  agent answers the cube decisions by its ``cube_policy``: ``"cubeless"`` (the default: it never
  doubles and always takes), ``"equity"`` (``cube_action``: thresholds on its cubeless equity
  before the roll, ``cube_equity``) or ``"janowski"`` (``cube_analysis``: Janowski's cubeful
  money equity from the net's five outputs before the roll, agents/backgammon/cube.py); the
  last two for the agents with a net only. The janowski analysis starts from 1-ply outputs and,
  with ``cube_plies=2`` (``TDSearchAgent``'s default), makes a close decision (a double, or
  the answer to one) again on 2-ply outputs (``cube_analysis``).
- ``act_state(state) -> action`` on the kernel state (``env.unwrapped.state``, mover's view).
- ``best_play(position_id, die1, die2) -> position_id``: the chosen afterstate, in the frame of
  ``boardgym.envs.backgammon_notation.legal_plays`` (the mover's, before the turn passes).
- ``game_loop.play_afterstate_game(agent0, agent1, rng)``: a whole game through the game core's
  afterstate loop (agents/backgammon/game_loop.py), cubeless or with the doubling cube.

At the start of a turn the agent ranks the plays and replays the chosen play's route (the moves
the game core reports with it) over the next calls while the position is the one it expects;
asked in the middle of a turn, it ranks the plays that complete the turn from there.

Evaluations: ``TDAgent`` the net of ``td_net`` (weights from ``weights.save_weights`` files; the
shipped one is ``agents/checkpoints/backgammon-td.npz``, ``files.CHECKPOINTS``); ``TDSearchAgent``
the same net searched at play time (agents/backgammon/search.py: 0-, 1- or 2-ply in GNU
Backgammon's counting with its move filter; ``load("backgammon-td")`` is one at 2-ply with a
work budget, with the janowski cube policy); ``GreedyAgent`` the one-ply heuristic
``kernels.backgammon.opponents.greedy_score`` (pip lead, made points, exposed blots, checkers
off) with its tie rule: it is the in-kernel ``OPP_GREEDY`` player exactly; ``ExpectimaxAgent``
1-, 2- or 3-ply (its own counting) over the 21 distinct rolls with either of them.

Match play (RULES.md MP.1-MP.7): ``set_match(length, score_me, score_opp, crawford,
post_crawford)`` before a game of a match (length 0, the default, is money play). The agents
with a net then rank plays by cubeless match winning chances at the score and the position's cube
value (agents/backgammon/match_equity.py: the money-normalised equity of the MWC, the same
ranking, searched as money equity is) and the "equity" and "janowski" cube policies decide in
match winning chances (agents/backgammon/match_cube.py: Janowski's formula generalised to match
play, position-dependent cube efficiency, no double in the Crawford game or when the cube
already covers what the doubler needs). Money play is unchanged by any of it.

Cube decisions by equity (money play, C.1-C.2; a rule of thumb, not cubeful analysis): with E the
cubeless equity of the player on roll before its roll (the mean over the 21 rolls of its best
afterstate's net equity, in points per cube unit), it doubles when ``DOUBLE_FROM <= E <
TOO_GOOD`` (below: too early; from ``TOO_GOOD`` on it plays on for the gammon) and its opponent
takes when its own equity -E is at least ``TAKE_FROM`` (-0.5: taking at 2x loses less than the
1 point a drop gives away).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.agents.backgammon import cube as backgammon_cube
from boardgym.agents.backgammon import match_cube
from boardgym.agents.backgammon import match_equity as met
from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon.search import (
    BUDGET_2,
    BUDGET_3,
    CANDIDATES,
    CANDIDATES_2,
    CANDIDATES_3,
    INFO_LEN,
    MONEY_U,
    PRUNE,
    REPLY_CANDIDATES,
    THRESHOLD,
    THRESHOLD_2,
    THRESHOLD_3,
    preroll_outputs2_u,
    preroll_outputs_u,
    search_settings,
    search_values,
    search_values_u,
)
from boardgym.agents.backgammon.weights import check_params, load_weights, save_weights
from boardgym.agents.files import CHECKPOINTS
from boardgym.envs import backgammon_notation as notation
from boardgym.envs.backgammon_checks import check_match, check_match_length
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import (
    BAR_ME,
    BAR_OPP,
    CUBE_LIMIT,
    CUBE_OWNER,
    CUBE_VALUE,
    DICE,
    MAX_CUBE_VALUE,
    ME,
    OFF_ME,
    OFF_OPP,
    OPP,
    STATE_LEN,
    TURN,
    refresh_masks,
)
from boardgym.kernels.backgammon.movegen import MV_DIE, MV_FROM
from boardgym.kernels.backgammon.observe import MATCH_OBS_LEN, OBS_LEN
from boardgym.kernels.backgammon.opponents import greedy_score

__all__ = [
    "TDAgent",
    "TDSearchAgent",
    "GreedyAgent",
    "ExpectimaxAgent",
    "AfterstateAgent",
    "CUBE_POLICIES",
    "state_from_observation",
    "match_from_observation",
]

N_ACTIONS = game.N_ACTIONS
CUBE_POLICIES = ("cubeless", "equity", "janowski")
DOUBLE_FROM = 0.4  # cubeless equity of the player on roll from which it doubles
TOO_GOOD = 1.0  # ... up to which (from here on it plays on for more than the cashed point)
TAKE_FROM = -0.5  # the taker's cubeless equity from which it takes
CUBE_PLIES = (1, 2)  # the depths of the outputs a janowski cube decision starts from
CUBE_CANDIDATES = 3  # plays of a roll valued at 1-ply in a 2-ply cube decision, at most ...
PRECISIONS = ("float32", "float64")  # the hidden layers' arithmetic in play (td_net.as_play)


# ----------------------------------------------------------------------------- kernels


@njit(cache=True)
def greedy_scores(rows, n, out):
    """out[r] = opponents.greedy_score(rows[r]) for r < n (float64)."""
    for r in range(n):
        out[r] = greedy_score(rows[r])


@njit(cache=True)
def net_equities(net, rows, n, out):
    """out[r] = cubeless equity (mover's view) of afterstate rows[r] under the model tuple net."""
    ys = np.empty((n, td_net.N_OUT))
    td_net.evaluate_rows(net, rows, n, ys)
    for r in range(n):
        out[r] = td_net.equity(ys[r])


@njit(cache=True)
def net_utilities(net, u, rows, n, out):
    """out[r] = utility u (float64[6], match_equity.utility) of afterstate rows[r]'s outputs."""
    ys = np.empty((n, td_net.N_OUT))
    td_net.evaluate_rows(net, rows, n, ys)
    for r in range(n):
        out[r] = met.utility(u, ys[r])


@njit(cache=True)
def _score(use_net, net, rows, n, out):
    if use_net:
        net_equities(net, rows, n, out)
    else:
        greedy_scores(rows, n, out)


@njit(cache=True)
def expectimax2(use_net, net, rows, cand, n_cand, out):
    """Two-ply values of the afterstates rows[cand[:n_cand]] into out: the mean over the opponent's
    21 rolls (doubles 1/36, others 2/36) of minus its best one-ply score after its reply."""
    opp_rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    sc = np.empty(game.MAX_AFTERSTATES)
    for c in range(n_cand):
        s = game.pass_turn(rows[cand[c]])
        tot = 0.0
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                m = game.plays_of_roll(s, d1, d2, opp_rows, None)
                _score(use_net, net, opp_rows, m, sc)
                best = sc[0]
                for k in range(1, m):
                    if sc[k] > best:
                        best = sc[k]
                tot += (-best) * (1.0 if d1 == d2 else 2.0)
        out[c] = tot / 36.0


# ----------------------------------------------------------------------------- observations


_OBS_SHAPES = ((OBS_LEN,), (OBS_LEN + MATCH_OBS_LEN,))


def _observation(observation):
    """observation as float64, checked: a money-play (float32[207]) or match-play
    (float32[212]) backgammon_v0 observation vector."""
    want = f"float32[{OBS_LEN}] (money play) or float32[{OBS_LEN + MATCH_OBS_LEN}] (match play)"
    if observation is None or isinstance(observation, (str, bytes)):
        raise TypeError(f"a backgammon observation is {want}, got {type(observation).__name__}")
    try:
        obs = np.asarray(observation, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"a backgammon observation is {want} numbers") from None
    if obs.shape not in _OBS_SHAPES:
        raise ValueError(f"a backgammon observation is {want}, got shape {obs.shape}")
    if not np.isfinite(obs).all() or obs.min() < 0.0 or obs.max() > 8.0:
        raise ValueError("a backgammon observation holds finite numbers in [0, 7.5]")
    return obs


def match_from_observation(observation: np.ndarray) -> tuple[int, int, int, bool, bool]:
    """(length, score_me, score_opp, crawford, post_crawford) of the match block of a
    backgammon_v0 observation (kernels/backgammon/observe.py), from the observer's view;
    (0, 0, 0, False, False) for a money-play observation (float32[207]). ValueError if the block
    is not one a match can show."""
    obs = _observation(observation)
    if obs.shape == (OBS_LEN,):
        return 0, 0, 0, False, False
    b = obs[OBS_LEN:]
    n = int(np.rint(b[2] * game.MAX_MATCH_LENGTH))
    away = np.rint(b[:2] * n)
    flags = b[3:5]
    if (
        not 1 <= n <= game.MAX_MATCH_LENGTH
        or abs(b[2] * game.MAX_MATCH_LENGTH - n) > 1e-3
        or np.abs(b[:2] * n - away).max() > 1e-3
        or not ((flags == 0.0) | (flags == 1.0)).all()
    ):
        raise ValueError(f"bad observation: {b.tolist()} is not a match block")
    me, opp = n - int(away[0]), n - int(away[1])
    m = np.array([n, me, opp, int(flags[0]), int(flags[1]), 0, -1], dtype=np.int64)
    m[game.M_WINNER] = 0 if me == n else 1 if opp == n else -1
    try:
        check_match(m, "the observed match")
    except ValueError as e:
        raise ValueError(f"bad observation: {e}") from None
    return n, me, opp, bool(flags[0]), bool(flags[1])


def state_from_observation(observation: np.ndarray) -> npt.NDArray[np.int64]:
    """Kernel state (int64[STATE_LEN], mover's view, TURN 0) rebuilt from a backgammon_v0
    observation (float32[207], or float32[212] in match play: the cube limit is then the
    match's) of the player on roll; ValueError if it is not one."""
    obs = _observation(observation)
    if obs[202] < 0.5:
        raise ValueError("the observing player is not on roll (observation[202] == 0)")
    s = np.zeros(STATE_LEN, dtype=np.int64)
    for side, base in ((ME, 0), (OPP, 96)):
        u = obs[base : base + 96].reshape(24, 4)
        n = np.where(u[:, 3] > 0, 3 + np.rint(2 * u[:, 3]), np.rint(u[:, :3].sum(axis=1)))
        s[side : side + 24] = n.astype(np.int64)
    s[BAR_ME], s[BAR_OPP] = np.rint(obs[192:194] * 2).astype(np.int64)
    s[OFF_ME], s[OFF_OPP] = np.rint(obs[194:196] * 15).astype(np.int64)
    s[DICE : DICE + 6] = np.rint(obs[196:202] * 4).astype(np.int64)
    for a, b in ((ME, BAR_ME), (OPP, BAR_OPP)):
        total = s[a : a + 24].sum() + s[b] + s[b + 2]
        if total != 15:
            raise ValueError(f"bad observation: a side has {total} checkers, not 15")
    if (s[ME : ME + 24] * s[OPP : OPP + 24]).any():
        raise ValueError("bad observation: both sides on one point")
    s[CUBE_VALUE] = 1 << int(np.rint(obs[203] * 6))
    s[CUBE_OWNER] = 0 if obs[204] > 0.5 else 1 if obs[205] > 0.5 else -1
    s[CUBE_LIMIT] = MAX_CUBE_VALUE
    if obs.shape[0] > OBS_LEN:
        crawford = match_from_observation(obs)[3]
        s[CUBE_LIMIT] = 1 if crawford else game.MATCH_CUBE_LIMIT
    refresh_masks(s)
    return notation.check_state(s, "the observed position")


def _check_mask(action_mask):
    if action_mask is None or isinstance(action_mask, (str, bytes)):
        raise TypeError(f"action_mask must be an int8 array, got {type(action_mask).__name__}")
    mask = np.asarray(action_mask)
    if mask.dtype.kind not in "biu":
        raise TypeError(f"action_mask must hold 0/1 integers, got dtype {mask.dtype}")
    if mask.shape not in ((N_ACTIONS,), (game.N_ACTIONS_CUBE,)):
        raise ValueError(
            f"action_mask must have shape ({N_ACTIONS},) or "
            f"({game.N_ACTIONS_CUBE},), got {mask.shape}"
        )
    return mask


def check_set_match(
    length: int, score_me: int, score_opp: int, crawford: bool, post_crawford: bool
) -> tuple[int, int, int, bool] | None:
    """The match of set_match checked (RULES.md MP.1, MP.5-MP.7, as the match kernel accepts
    it): None for money play (length 0, no score), else (length, away_me, away_opp, crawford);
    TypeError/ValueError naming the problem."""
    n = check_match_length(length)
    for name, v in (("score_me", score_me), ("score_opp", score_opp)):
        if not notation.is_int(v):
            raise TypeError(f"{name} must be an integer, got {v!r}")
    for name, v in (("crawford", crawford), ("post_crawford", post_crawford)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {v!r}")
    me, opp = int(score_me), int(score_opp)
    if n == 0:
        if me or opp or crawford or post_crawford:
            raise ValueError("money play (match length 0) has no score and no Crawford game")
        return None
    for name, v in (("score_me", me), ("score_opp", opp)):
        if not 0 <= v < n:
            raise ValueError(f"{name} must be 0..{n - 1} in a match to {n}, got {v}")
    m = np.zeros(game.MATCH_LEN, dtype=np.int64)
    m[game.M_LENGTH], m[game.M_SCORE], m[game.M_SCORE + 1] = n, me, opp
    m[game.M_CRAWFORD], m[game.M_POST], m[game.M_WINNER] = int(crawford), int(post_crawford), -1
    check_match(m, "the match")
    return n, n - me, n - opp, bool(crawford)


def _route_actions(route):
    """The checker actions of a kernel route (int64[MAX_MOVES, MV_FIELDS])."""
    return [int((m[MV_FROM] - 1) * 6 + m[MV_DIE] - 1) for m in route if m[MV_FROM] > 0]


# ----------------------------------------------------------------------------- agents


class AfterstateAgent:
    """Base: rank afterstates with ``_scores(rows) -> float64[n]`` (higher is better for the mover)
    and play the best one move by move (the first of the best on ties). ``last_value`` is the
    score of the afterstate last chosen (None before any): the value of the play in progress,
    kept while its moves are played."""

    game = "backgammon"
    cube_policy = "cubeless"
    cube_plies = 1  # the janowski analysis's depth (cube_analysis)
    _match = None  # (length, away_me, away_opp, crawford) once set_match sets a match
    last_value: float | None = None

    def __init__(self) -> None:
        self._rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
        self._routes = np.empty((game.MAX_AFTERSTATES, game.MAX_MOVES, game.MV_FIELDS), np.int64)
        self._plan = []  # remaining actions of the current play
        self._expect = None  # the state the next planned action is for

    # -- the match (MP.1-MP.7) --
    def set_match(
        self,
        length: int = 0,
        score_me: int = 0,
        score_opp: int = 0,
        crawford: bool = False,
        post_crawford: bool = False,
    ) -> None:
        """Play the coming game of a match to length (0: money play, the default) at score_me -
        score_opp (this agent's seat first), crawford: it is the Crawford game, post_crawford: the
        Crawford game has been played (a score at length - 1 without crawford is post-Crawford
        either way, MP.7). With a match, the agents with a net choose plays by cubeless match
        winning chances at the position's cube value (the money-normalised equity of
        match_equity.eq_weights, the same ranking) and the "equity" and "janowski" cube
        policies decide in match winning chances (cube_analysis). An agent plays one seat.
        TypeError/ValueError on a bad match."""
        match = check_set_match(length, score_me, score_opp, crawford, post_crawford)
        self._match = None if getattr(self, "score_mode", "match") == "money" else match

    @property
    def match(self) -> dict[str, int | bool] | None:
        """None in money play, else the match set: length, away_me, away_opp, crawford."""
        if self._match is None:
            return None
        n, a, b, c = self._match
        return {"length": n, "away_me": a, "away_opp": b, "crawford": c}

    def _utilities(self, rows):
        """None in money play, else float64[2, 6]: the eq_weights of the mover (this agent) and of
        its opponent at the match score and the cube value of rows (its afterstates)."""
        if self._match is None:
            return None
        _, a, b, _ = self._match
        c = met.check_cube(int(rows[0, CUBE_VALUE]))
        uu = np.empty((2, 6))
        met.eq_weights(a, b, c, met.TABLE, met.POST, uu[0])
        met.eq_weights(b, a, c, met.TABLE, met.POST, uu[1])
        return uu

    # -- evaluation hooks (validated rows, from the game core) --
    def _scores(self, rows):
        raise NotImplementedError

    def _choose(self, rows):
        """Index of the best afterstate of rows; the first one on ties (its score: last_value)."""
        scores = self._scores(rows)
        k = int(np.argmax(scores))
        self.last_value = float(scores[k])
        return k

    def _pick(self, state, rows):
        """Index among rows (the plays of state, on roll with its whole roll) of the chosen play."""
        return self._choose(rows)

    # -- public queries --
    def scores(self, rows: np.ndarray) -> npt.NDArray[np.float64]:
        """Scores of the afterstates rows (int64[n, STATE_LEN], mover's view) for the mover."""
        rows = notation.check_batch(rows, "rows")
        if rows.shape[0] == 0:
            raise ValueError("rows holds no afterstate")
        return self._scores(rows)

    def choose(self, rows: np.ndarray) -> int:
        """Index of the best afterstate of rows (int64[n, STATE_LEN]); first one on ties."""
        rows = notation.check_batch(rows, "rows")
        if rows.shape[0] == 0:
            raise ValueError("rows holds no afterstate")
        return self._choose(rows)

    def afterstates(self, state: np.ndarray, d1: int, d2: int) -> npt.NDArray[np.int64]:
        """The distinct afterstates of roll d1-d2 from state: int64[n, STATE_LEN] (a view)."""
        s = notation.check_state(state)
        d1, d2 = notation.check_dice(d1, d2)
        n = game.plays_of_roll(s, d1, d2, self._rows, self._routes)
        return self._rows[:n]

    def best_afterstate(self, state: np.ndarray, d1: int, d2: int) -> npt.NDArray[np.int64]:
        """The chosen afterstate of roll d1-d2 from state (int64[STATE_LEN], mover's view)."""
        s = notation.check_state(state)
        d1, d2 = notation.check_dice(d1, d2)
        rolled = s.copy()
        rolled[DICE : DICE + 6] = 0
        rolled[DICE + d1 - 1] += 1
        rolled[DICE + d2 - 1] += 1 if d1 != d2 else 3
        rows = self._rows[: game.plays(rolled, self._rows, self._routes)]
        return rows[self._pick(rolled, rows)].copy()

    def best_play(self, position_id: str, die1: int, die2: int) -> str:
        """Position ID of the chosen afterstate (frame of backgammon_notation.legal_plays)."""
        d1, d2 = notation.check_dice(die1, die2)
        s = notation.position_from_id(position_id)
        return notation.position_id(self.best_afterstate(s, d1, d2))

    def act_state(self, state: np.ndarray) -> int:
        """Next checker move (action in the mover's frame) of the chosen play from kernel state
        (on roll, with dice left and a legal move)."""
        s = notation.check_state(state)
        if (
            self._plan
            and self._expect is not None
            and np.array_equal(s[: DICE + 6], self._expect[: DICE + 6])
        ):
            return self._next()
        if game.dice_left(s) == 0:
            raise ValueError("no dice in this position: the player on roll has not rolled")
        if not game.can_move(s):
            raise ValueError("no legal checker move in this position (the roll is lost)")
        n = game.plays(s, self._rows, self._routes)
        rows = self._rows[:n]
        k = self._pick(s, rows) if game.dice_of(s)[0] > 0 else self._choose(rows)
        self._plan = _route_actions(self._routes[k])
        self._expect = s.copy()
        return self._next()

    # -- the cube (C.1-C.2) --
    @property
    def play_params(self) -> tuple[np.ndarray, ...] | None:
        """The model tuple behind its plays and cube_equity, as the agent evaluates with it
        (td_net.evaluate_rows takes it; a TDAgent's ``params`` or, at precision "float32", their
        td_net.as_play copy), or None (no equity estimate)."""
        return None

    @property
    def has_equity(self) -> bool:
        """True when the agent estimates equities (cube_equity; the "equity" cube policy)."""
        return self.play_params is not None

    def _set_cube_policy(self, policy):
        if not isinstance(policy, str) or policy not in CUBE_POLICIES:
            raise ValueError(f"cube policy must be one of {CUBE_POLICIES}, got {policy!r}")
        if policy in ("equity", "janowski") and not self.has_equity:
            raise ValueError(
                f"{type(self).__name__} has no equity estimate: its cube policy is 'cubeless'"
            )
        self.cube_policy = policy

    def cube_equity(self, state: np.ndarray) -> float:
        """Cubeless equity (points per cube unit) of the player on roll of state before its roll:
        the mean over the 21 rolls of its best afterstate's net equity. ValueError without a net."""
        net = self.play_params
        if net is None:
            raise ValueError(f"{type(self).__name__} has no equity estimate")
        s = notation.check_state(state).copy()
        s[DICE : DICE + 6] = 0
        row = game.pass_turn(s).reshape(1, STATE_LEN)  # seen by the opponent, as an afterstate
        out = np.empty(1)
        expectimax2(True, net, row, np.zeros(1, np.int64), 1, out)
        return -float(out[0])  # expectimax2 scores it for the opponent

    cube_efficiency = backgammon_cube.X_MONEY

    def cube_analysis(self, state: np.ndarray, offered: bool = False) -> dict[str, Any]:
        """Janowski's cube analysis for the player on roll of state before its roll (the doubler),
        from the net's outputs before the roll: a dict of outputs (float64[5]), no_double,
        double_take, double_drop (the doubler's view), double and take (bools: it should double;
        its opponent should take) and plies (the depth of the outputs it decided on). Money play:
        cubeful money equities per cube unit (agents/backgammon/cube.py) with
        ``cube_efficiency``. In a match (set_match): match winning chances
        (agents/backgammon/match_cube.py) with the position's efficiency (``efficiency`` in the
        dict: ``cube_efficiency`` with contact, a race's by its length), the doubler's plays
        chosen by its match utility; offered: the doubler is this agent's opponent (the agent
        decides the take).

        The outputs are first the 1-ply ones (backgammon_search.preroll_outputs_u: the mean over
        the 21 rolls of the best play's at 0-ply). With ``cube_plies`` 2, a decision they make
        close, a take or drop (offered) or a double, is made again on the 2-ply outputs
        (preroll_outputs2_u: each roll's ``CUBE_CANDIDATES`` best plays within THRESHOLD valued
        at 1-ply, the best one's 1-ply outputs); a no double at 1-ply stands. ValueError
        without a net."""
        net = self.play_params
        if net is None:
            raise ValueError(f"{type(self).__name__} has no equity estimate")
        s = notation.check_state(state).copy()
        s[DICE : DICE + 6] = 0
        owner = s[CUBE_OWNER]
        where = (
            backgammon_cube.CENTRED
            if owner < 0
            else backgammon_cube.OWNED
            if owner == s[TURN]
            else backgammon_cube.OPP_OWNED
        )
        d = self._analysis(net, s, where, offered, 1)
        if self.cube_plies == 2 and (offered or d["double"]):
            d = self._analysis(net, s, where, offered, 2)
        return d

    def _analysis(self, net, s, where, offered, plies):
        """cube_analysis on outputs of plies (1 or 2): s the doubler's position (no dice), where
        its cube."""
        y = np.empty(td_net.N_OUT)
        uu = np.empty((2, 6))
        if self._match is None:
            uu[:] = MONEY_U
        else:
            _, a, b, crawford = self._match
            if offered:
                a, b = b, a
            c = met.check_cube(int(s[CUBE_VALUE]))
            met.eq_weights(a, b, c, met.TABLE, met.POST, uu[0])
            met.eq_weights(b, a, c, met.TABLE, met.POST, uu[1])
        if plies == 1:
            preroll_outputs_u(net, uu[0], s, y)
        else:
            preroll_outputs2_u(net, uu, s, CUBE_CANDIDATES, THRESHOLD, np.int64(0), y)
        if self._match is None:
            nd, dt, dp, double, take = backgammon_cube.cube_decision(y, self.cube_efficiency, where)
            return {
                "outputs": y,
                "no_double": nd,
                "double_take": dt,
                "double_drop": dp,
                "double": bool(double) and where != backgammon_cube.OPP_OWNED,
                "take": bool(take),
                "plies": plies,
            }
        x = match_cube.position_efficiency(s, self.cube_efficiency)
        limit = 1 if crawford else min(int(s[CUBE_LIMIT]), met.MAX_CUBE)
        nd, dt, dp, double, take = match_cube.match_cube_decision(
            y, x, a, b, c, where, limit, met.TABLE, met.POST
        )
        return {
            "outputs": y,
            "no_double": nd,
            "double_take": dt,
            "double_drop": dp,
            "double": bool(double),
            "take": bool(take),
            "efficiency": x,
            "plies": plies,
        }

    def cube_action(
        self, state: np.ndarray | None, offered: bool, policy: str | None = None
    ) -> int:
        """The cube action of the agent (policy: "cubeless", "equity" or "janowski"; default
        cube_policy; in a match, "equity" and "janowski" both decide by the match analysis).

        offered False: the agent is on roll in state, before its roll -> ACTION_DOUBLE or
        ACTION_ROLL. offered True: state is the doubler's (on roll, before its roll) and the agent
        its opponent -> ACTION_TAKE or ACTION_DROP."""
        if not isinstance(offered, (bool, np.bool_)) and not (
            notation.is_int(offered) and offered in (0, 1)
        ):
            raise TypeError(f"offered must be True or False, got {offered!r}")
        policy = self.cube_policy if policy is None else policy
        if not isinstance(policy, str) or policy not in CUBE_POLICIES:
            raise ValueError(f"cube policy must be one of {CUBE_POLICIES}, got {policy!r}")
        if policy == "cubeless":
            return game.ACTION_TAKE if offered else game.ACTION_ROLL
        if policy == "janowski" or self._match is not None:
            d = self.cube_analysis(state, bool(offered))
            if offered:
                return game.ACTION_TAKE if d["take"] else game.ACTION_DROP
            return game.ACTION_DOUBLE if d["double"] else game.ACTION_ROLL
        e = self.cube_equity(state)
        if offered:
            return game.ACTION_TAKE if -e >= TAKE_FROM else game.ACTION_DROP
        return game.ACTION_DOUBLE if DOUBLE_FROM <= e < TOO_GOOD else game.ACTION_ROLL

    def _observe_match(self, observation):
        """Tell set_match (when the agent has one) the match score of a match-play observation,
        once per change."""
        tell = getattr(self, "set_match", None)
        if not callable(tell) or np.shape(observation) != (OBS_LEN + MATCH_OBS_LEN,):
            return
        told = match_from_observation(observation)
        if told != getattr(self, "_told_match", None):
            self._told_match = told
            tell(*told)

    def _next(self):
        a = self._plan.pop(0)
        self._expect = game.apply(self._expect, a) if self._plan else None
        return a

    def act(self, observation: np.ndarray | dict[str, np.ndarray], action_mask: np.ndarray) -> int:
        """Next checker move for the player on roll of a backgammon_v0 observation (either seat).
        In match play an agent with a ``set_match`` method is told the score it observes
        (match_from_observation) whenever it changes."""
        mask = _check_mask(action_mask)
        if isinstance(observation, dict):
            observation = observation.get("observation")
        self._observe_match(observation)
        if mask.shape[0] > N_ACTIONS and not mask[:N_ACTIONS].any():
            offered = bool(mask[game.ACTION_TAKE])
            if not offered and not mask[game.ACTION_ROLL]:
                raise ValueError("the action mask allows no action this agent plays")
            if self.cube_policy == "cubeless":
                return self.cube_action(None, offered)
            obs = np.array(observation, dtype=np.float64)
            if offered and obs.shape in _OBS_SHAPES:
                obs[202] = 1.0  # the taker's view, read as if on roll; then turned to the doubler
            s = state_from_observation(obs)
            return self.cube_action(game.pass_turn(s) if offered else s, offered)
        s = state_from_observation(observation)
        a = self.act_state(s)
        if not mask[a]:
            raise ValueError("the observation and the action mask disagree")
        return a


class TDAgent(AfterstateAgent):
    """The TD-Gammon style net (td_net): picks the afterstate of highest cubeless equity (in a
    match: of highest cubeless match winning chances)."""

    def __init__(
        self,
        weights: str | os.PathLike[str] | Sequence[np.ndarray] | None = None,
        hidden: int | None = None,
        seed: int | None = 0,
        cube: str = "cubeless",
        model: str = "tesauro",
        race_hidden: int = 0,
        score: str = "match",
        cube_plies: int = 1,
        cube_efficiency: float = backgammon_cube.X_MONEY,
        precision: str = "float32",
    ) -> None:
        """weights: path of a .npz, a model tuple or (w1, b1, w2, b2), or None (the shipped
        checkpoint; with hidden=H, a fresh random net of H units: model "tesauro" (raw board) or
        "gnubg" (raw board + bg_features, with a race net of race_hidden units and the bear-off
        table)); cube: the cube policy ("cubeless" or "equity"); score: "match" (plays and cube
        for the match score it is told, set_match) or "money" (ignores it: money play at any
        score, the agent before match play, kept to measure the difference); cube_plies: 1 or 2,
        the depth of a close cube decision (AfterstateAgent.cube_analysis); cube_efficiency: the
        cube efficiency in [0, 1] of money play and of a match position with contact (a race's
        is match_cube.race_efficiency); precision: "float32" (the hidden layers evaluated in
        float32, td_net.as_play: faster, outputs within about 1e-6) or "float64"
        (exactly the weights' arithmetic, as training evaluates them). ``params`` holds the
        float64 model either way."""
        super().__init__()
        self.cube_efficiency = backgammon_cube.check_efficiency(cube_efficiency)
        if not notation.is_int(cube_plies) or int(cube_plies) not in CUBE_PLIES:
            raise ValueError(f"cube_plies must be 1 or 2, got {cube_plies!r}")
        self.cube_plies = int(cube_plies)
        if score not in ("match", "money"):
            raise ValueError(f"score must be 'match' or 'money', got {score!r}")
        self.score_mode = score
        if model not in ("tesauro", "gnubg"):
            raise ValueError(f"model must be 'tesauro' or 'gnubg', got {model!r}")
        if weights is None and hidden is not None:
            if not notation.is_int(hidden) or not 1 <= hidden <= 4096:
                raise ValueError(f"hidden must be an integer 1..4096, got {hidden!r}")
            if not notation.is_int(race_hidden) or not 0 <= race_hidden <= 4096:
                raise ValueError(f"race_hidden must be an integer 0..4096, got {race_hidden!r}")
            if model == "tesauro":
                weights = td_net.init_params(int(hidden), seed)
            else:
                weights = td_net.init_model(int(hidden), seed, race_hidden=int(race_hidden))
        elif weights is None:
            weights = CHECKPOINTS / "backgammon-td.npz"
        if isinstance(weights, (str, os.PathLike)):
            weights = load_weights(weights)
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be 'float32' or 'float64', got {precision!r}")
        self.precision = precision
        self.params = check_params(weights)
        self._net = td_net.as_play(self.params) if precision == "float32" else self.params
        self._set_cube_policy(cube)

    @property
    def play_params(self) -> tuple[np.ndarray, ...]:
        return self._net

    @property
    def hidden(self) -> int:
        """Hidden units of the contact (or only) net."""
        return self.params[2].shape[0]

    @property
    def model(self) -> str:
        """ "tesauro" (raw board inputs) or "gnubg" (with bg_features, race net, bear-off)."""
        return "gnubg" if self.params[0][td_net.H_KIND] == td_net.KIND_GNUBG else "tesauro"

    def outputs(self, rows: np.ndarray) -> npt.NDArray[np.float64]:
        """Net outputs float64[n, 5] (win, win gammon, win backgammon, lose gammon, lose bg)."""
        rows = notation.check_batch(rows, "rows")
        ys = np.empty((rows.shape[0], td_net.N_OUT))
        td_net.evaluate_rows(self._net, rows, rows.shape[0], ys)
        return ys

    def _scores(self, rows):
        out = np.empty(rows.shape[0])
        uu = self._utilities(rows)
        if uu is None:
            net_equities(self._net, rows, rows.shape[0], out)
        else:
            net_utilities(self._net, uu[0], rows, rows.shape[0], out)
        return out

    def save(self, path: str | os.PathLike[str], **meta: Any) -> None:
        """Write the weights (save_weights)."""
        save_weights(path, self.params, **meta)


class TDSearchAgent(TDAgent):
    """The TD net with play-time search (agents/backgammon/search.py): plies 0, 1, 2 or 3 (2 is
    the default of ``load("backgammon-td")``) in GNU Backgammon's counting, with the move filter
    (at most ``candidates`` plays within ``threshold`` equity of the best at 0-ply are searched
    deeper; at 2-ply the 2-ply filter ``candidates2``, ``threshold2``, ``replies``; at 3-ply at
    most ``candidates3`` plays within ``threshold3`` of the best at 2-ply, the close decisions).
    At plies=0 it is TDAgent exactly. A 2-ply search stops at ``budget`` afterstates valued and
    keeps its 1-ply values, a 3-ply one at ``budget3`` and keeps its 2-ply values (counts, so
    play does not depend on the machine's speed). With ``prune`` > 0 and a model that has a
    pruning net, the model values only the ``prune`` replies of an opponent's roll that the
    pruning net ranks best (search.py's ``_values0p``). ``search_settings`` holds these settings (a
    search.Settings, checked by search.search_settings); ``search_info`` counts the decisions
    searched, the afterstates valued and the searches stopped."""

    def __init__(
        self,
        weights: str | os.PathLike[str] | Sequence[np.ndarray] | None = None,
        plies: int = 2,
        candidates: int = CANDIDATES,
        threshold: float = THRESHOLD,
        cube: str = "janowski",
        budget: int = BUDGET_2,
        cube_plies: int = 2,
        candidates2: int = CANDIDATES_2,
        threshold2: float = THRESHOLD_2,
        replies: int = REPLY_CANDIDATES,
        candidates3: int = CANDIDATES_3,
        threshold3: float = THRESHOLD_3,
        budget3: int = BUDGET_3,
        prune: int = PRUNE,
        **kwargs: Any,
    ) -> None:
        """weights and the other keywords: as TDAgent's; plies 0/1/2/3; candidates >= 1;
        threshold >= 0 (equity); cube: the cube policy (janowski by default: it beat the
        never-double / always-take policy by +0.40 points/game in cubeful money games);
        budget: integer >= 0, the afterstates a 2-ply decision may value (0: no limit);
        cube_plies: 2 by default (a close cube decision on 2-ply outputs, cube_analysis);
        candidates2 >= 1, threshold2 >= 0, replies >= 1: the 2-ply filter (search.py);
        candidates3 >= 1, threshold3 >= 0, budget3 >= 0: the 3-ply filter and budget; prune >=
        0: the replies of a roll the model values when the pruning net picks them (0: all)."""
        self.search_settings = search_settings(
            plies,
            candidates,
            threshold,
            candidates2,
            threshold2,
            replies,
            budget,
            candidates3,
            threshold3,
            budget3,
            prune,
        )
        self._info = np.zeros(INFO_LEN, dtype=np.int64)
        self.search_info = {"decisions": 0, "afterstates": 0, "stopped": 0}
        super().__init__(weights=weights, cube=cube, cube_plies=cube_plies, **kwargs)

    def _scores(self, rows):
        out = np.empty(rows.shape[0])
        uu = self._utilities(rows)
        if uu is None:
            search_values(
                self.play_params, rows, rows.shape[0], self.search_settings, self._info, out
            )
        else:
            search_values_u(
                self.play_params, uu, rows, rows.shape[0], self.search_settings, self._info, out
            )
        self.search_info["decisions"] += 1
        self.search_info["afterstates"] += int(self._info[0])
        self.search_info["stopped"] += int(self._info[1])
        return out


class GreedyAgent(AfterstateAgent):
    """One ply: the afterstate with the best pip lead / made points / exposed blots / off score,
    the first of them on ties (``opponents.greedy_pick``: the in-kernel ``OPP_GREEDY`` player).
    It draws nothing at random; seed is accepted for the agents' common interface."""

    def __init__(self, seed: int | None = None, cube: str = "cubeless") -> None:
        super().__init__()
        self._set_cube_policy(cube)

    def _scores(self, rows):
        out = np.empty(rows.shape[0])
        greedy_scores(rows, rows.shape[0], out)
        return out


class ExpectimaxAgent(AfterstateAgent):
    """1-ply, 2-ply or 3-ply expectimax over the 21 distinct rolls with a pluggable evaluation.

    depth counts the plies of the agent's own play too: depth 1 values the plays directly, depth
    2 / 3 are the 1-ply / 2-ply searches of agents/backgammon/search.py (GNU Backgammon's
    counting). evaluation: ``"td"`` (the model of the shipped net, ``TDAgent().params``), a
    TDAgent (its model tuple), a weights path, or ``"greedy"`` (depth 1 or 2 only). The
    ``width`` best plays by the one-ply evaluation within ``threshold`` of the best are searched
    deeper (all with width=0; threshold None: no equity limit). A depth-3 search with a net
    stops at ``budget`` afterstates valued and keeps its depth-2 values, as TDSearchAgent's.
    """

    def __init__(
        self,
        depth: int = 2,
        evaluation: str | os.PathLike[str] | TDAgent = "td",
        width: int = 8,
        weights: str | os.PathLike[str] | None = None,
        seed: int | None = None,
        cube: str | None = None,
        threshold: float | None = None,
        budget: int = BUDGET_2,
    ) -> None:
        """weights: a TD weights path, shorthand for evaluation=weights; cube: the cube policy
        ("cubeless", or "equity" / "janowski" with a net evaluation; None: janowski with a net,
        else cubeless); budget: integer >= 0 (0: no limit)."""
        super().__init__()
        if weights is not None:
            evaluation = weights
        if depth not in (1, 2, 3) or isinstance(depth, bool):
            raise ValueError(f"ExpectimaxAgent depth must be 1, 2 or 3, got {depth!r}")
        if isinstance(width, bool) or not notation.is_int(width) or width < 0:
            raise ValueError(f"ExpectimaxAgent width must be an integer >= 0, got {width!r}")
        self.depth = depth
        self.width = int(width)
        self.search_settings = search_settings(
            depth - 1,
            self.width if self.width > 0 else game.MAX_AFTERSTATES,
            np.inf if threshold is None else threshold,
            budget=budget,
        )
        if isinstance(evaluation, TDAgent):
            self.use_net, self.params = True, evaluation.play_params
        elif isinstance(evaluation, str) and evaluation == "greedy":
            if depth == 3:
                raise ValueError("ExpectimaxAgent with the greedy evaluation searches depth 1 or 2")
            self.use_net = False
            self.params = td_net.as_model(td_net.init_params(1, 0))
        elif isinstance(evaluation, str) and evaluation == "td":
            self.use_net, self.params = True, TDAgent().play_params
        elif isinstance(evaluation, (str, os.PathLike)):
            self.use_net, self.params = True, TDAgent(weights=evaluation).play_params
        else:
            raise ValueError(
                f"unknown evaluation {evaluation!r}: 'td', 'greedy', a path or a TDAgent"
            )
        if cube is None:
            cube = "janowski" if self.use_net else "cubeless"
        self._set_cube_policy(cube)

    @property
    def play_params(self) -> tuple[np.ndarray, ...] | None:
        return self.params if self.use_net else None

    def _scores(self, rows):
        n = rows.shape[0]
        if self.use_net:
            out = np.empty(n)
            info = np.zeros(INFO_LEN, dtype=np.int64)
            uu = self._utilities(rows)
            if uu is None:
                search_values(self.params, rows, n, self.search_settings, info, out)
            else:
                search_values_u(self.params, uu, rows, n, self.search_settings, info, out)
            return out
        one = np.empty(n)
        _score(self.use_net, self.params, rows, n, one)
        if self.depth == 1 or n == 1:
            return one
        order = np.argsort(-one, kind="stable")
        cand = order if self.width <= 0 else order[: self.width]
        cand = np.ascontiguousarray(cand, dtype=np.int64)
        two = np.empty(cand.shape[0])
        expectimax2(self.use_net, self.params, rows, cand, cand.shape[0], two)
        out = np.full(n, -np.inf)
        out[cand] = two
        return out
