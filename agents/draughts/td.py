"""TD(lambda) value network for Russian draughts, learned by self-play (Numba kernels).

The net predicts the game's result from the side to move's view (win 1, draw 0, loss -1) from
the 198-float observation of the side to move (``kernels/draughts/observe.encode_obs`` with no
move cap, exactly what ``draughts_eval.net_eval`` feeds the search):
``V(s) = w2 . tanh(x @ W1 + b1) + b2`` (W1 float64[198, H], b1 [H], w2 [H], b2 [1]); the
output is linear, so the exported search evaluation (``to_evaluation``: an ``EVAL_MLP``
``Evaluation`` with W1 transposed) is the same function, scaled.

Self-play (``train_games``): whole moves from the game core (``game.gen_moves`` +
``apply_move``). The mover values each resulting position from its own view: the true result
when the game is over there (``game.result`` / ``game.reward``: +1 a win, 0 a draw), else
``-V(child)`` (the net reads the child from the
new side to move's view, so the value is negated, as in negamax); it plays the best one, or
with probability ``epsilon`` a uniformly random move (SplitMix64 stream ``rng``, int64[1],
kernels/rng.py, advanced in place). A game ends by ``game.result`` (G.1 loss without a move,
G.2a-e draws) or, truncated, after ``MAX_PLIES`` plies, which counts as a draw.

TD(lambda): predictions of consecutive positions are compared in White's frame
(``U_t = +V(s_t)`` with White to move, ``-V(s_t)`` with Black), so one set of eligibility traces
serves both sides: ``e <- lam * e + grad U_t``, ``delta_t = U_{t+1} - U_t`` (the last target is
the real result, in White's frame), ``w <- w + alpha * delta_t * e``; traces reset each game.
``U_{t+1}`` is the chosen child's value computed when the move was chosen (same weights);
after each update the new position's forward pass is recomputed with the new weights.
``lam == 0`` takes a sparse path without traces (the same updates). Exploratory moves are
learned from like the others (the net learns the values of its epsilon-greedy play).

Matches (``play_match``): the net at one ply without exploration (ties: the first move) against
an in-kernel player of ``kernels/draughts/opponents`` (codes from boardgym.kernels.players:
``OPP_RANDOM`` a random hop at each step of a move, ``OPP_GREEDY`` the recapture player:
material after the opponent's best recapture), colours alternating.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.envs import draughts as api
from boardgym.envs.checks import is_int
from boardgym.kernels.draughts.board import MAX_MOVES, ROW_LEN, S_PLY, S_SIDE
from boardgym.kernels.draughts.game import (
    BLACK_WON,
    N_ACTIONS,
    OBS_LEN,
    ONGOING,
    WHITE_WON,
    encode_obs,
    gen_moves,
    initial_state,
    result,
    reward,
)
from boardgym.kernels.draughts.move import apply_move
from boardgym.kernels.draughts.opponents import opponent_move
from boardgym.kernels.players import OPP_GREEDY, OPP_RANDOM
from boardgym.kernels.rng import rand_below

if TYPE_CHECKING:
    from boardgym.agents.draughts.evaluation import Evaluation

__all__ = [
    "N_INPUTS",
    "MAX_PLIES",
    "SCALE",
    "OPP_RANDOM",
    "OPP_GREEDY",
    "N_STATS",
    "init_params",
    "check_params",
    "value",
    "add_grad",
    "train_games",
    "play_match",
    "to_evaluation",
]

N_INPUTS = OBS_LEN
MAX_PLIES = 200
# Search units per unit of V (draughts_eval scores are hundredths of a man): V = 1, a won game,
# is worth 10 men. The search only compares scores, so any positive scale picks the same moves
# as long as the scores stay integers fine enough (1 unit = 0.001 of V) and below the search's
# win scores (|score| <= 1000 for |V| <= 1, far under draughts_eval.SCORE_LIMIT = 50,000); 10
# men also reads sensibly next to the material evaluation, where a position 3-4 men up is won.
SCALE = 1000.0

# train_games statistics (stats float64[N_STATS], accumulated)
ST_GAMES, ST_PLIES, ST_ABS_DELTA, ST_WHITE_WINS, ST_BLACK_WINS, ST_CAPPED, ST_RANDOM_MOVES = range(
    7
)
N_STATS = 7
_P_BITS = 30  # epsilon test: rand_below(2**30) < epsilon * 2**30


def init_params(
    hidden: int, seed: int | None, scale: float = 0.1
) -> tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
]:
    """Fresh weights (W1 float64[198, H], b1 [H], w2 [H], b2 [1]), uniform in [-scale, scale]."""
    g = np.random.default_rng(seed)
    w1 = g.uniform(-scale, scale, (N_INPUTS, hidden))
    b1 = np.zeros(hidden)
    w2 = g.uniform(-scale, scale, hidden)
    b2 = np.zeros(1)
    return w1, b1, w2, b2


def check_params(
    params: Sequence[npt.ArrayLike], in_place: bool = False
) -> tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
]:
    """The four weight arrays as contiguous float64, or ValueError naming the bad shape.

    in_place: the arrays are updated by the caller's kernel, so they must already be writable
    C-contiguous float64 arrays (TypeError otherwise: a converted copy would lose the updates).
    """
    if not isinstance(params, (list, tuple)) or len(params) != 4:
        raise ValueError(f"params are (w1, b1, w2, b2), got {params!r:.80}")
    if in_place:
        for p in params:
            if not (
                isinstance(p, np.ndarray)
                and p.dtype == np.float64
                and p.flags.c_contiguous
                and p.flags.writeable
            ):
                raise TypeError(
                    "trained weights must be writable C-contiguous float64 arrays, "
                    f"got {type(p).__name__} {getattr(p, 'dtype', '')}"
                )
    elif any(p is None or isinstance(p, (str, bytes)) for p in params):
        raise TypeError("params must be arrays of numbers")
    try:
        w1, b1, w2, b2 = (np.ascontiguousarray(p, dtype=np.float64) for p in params)
    except (TypeError, ValueError):
        raise TypeError("params must be arrays of numbers") from None
    h = w1.shape[1] if w1.ndim == 2 else 0
    if (
        w1.shape != (N_INPUTS, h)
        or h < 1
        or b1.shape != (h,)
        or w2.shape != (h,)
        or b2.shape != (1,)
    ):
        raise ValueError(
            f"params must have shapes ({N_INPUTS}, H), (H,), (H,), (1,); got "
            f"{w1.shape}, {b1.shape}, {w2.shape}, {b2.shape}"
        )
    return w1, b1, w2, b2


def to_evaluation(params: Sequence[npt.ArrayLike], scale: float = SCALE) -> Evaluation:
    """The net as a search evaluation (draughts_eval.Evaluation, EVAL_MLP): score = scale * V."""
    from boardgym.agents.draughts.evaluation import Evaluation

    w1, b1, w2, b2 = check_params(params)
    return Evaluation.mlp(w1.T, b1, w2, b2[0], scale)


@njit(cache=True)
def encode_sparse(state, obs, idx, val):
    """Nonzero inputs of state (side to move's view, no move cap) -> nnz; obs float32[198]
    scratch."""
    encode_obs(state, state[S_SIDE], np.int64(0), obs)
    nnz = 0
    for i in range(N_INPUTS):
        if obs[i] != 0.0:
            idx[nnz] = i
            val[nnz] = obs[i]
            nnz += 1
    return nnz


@njit(cache=True, fastmath=True)
def forward_sparse(w1, b1, w2, b2, idx, val, nnz, h):
    """V of the sparse input (idx, val, nnz); hidden activations into h (float64[H])."""
    nh = b1.shape[0]
    for j in range(nh):
        h[j] = b1[j]
    for k in range(nnz):
        i = idx[k]
        v = val[k]
        for j in range(nh):
            h[j] += v * w1[i, j]
    y = b2[0]
    for j in range(nh):
        h[j] = np.tanh(h[j])
        y += w2[j] * h[j]
    return y


def value(
    w1: npt.ArrayLike, b1: npt.ArrayLike, w2: npt.ArrayLike, b2: npt.ArrayLike, state: np.ndarray
) -> float:
    """V(state) from the side to move's view (a float) of a position vector; for tests and tools."""
    return float(_value(*check_params((w1, b1, w2, b2)), api.check_state(state)))


@njit(cache=True)
def _value(w1, b1, w2, b2, state):
    _, obs, idx, val, h = _scratch(b1.shape[0])
    nnz = encode_sparse(state, obs, idx, val)
    return forward_sparse(w1, b1, w2, b2, idx, val, nnz, h)


@njit(cache=True, fastmath=True)
def add_grad(w2, h, idx, val, nnz, coef, g1, gb1, g2, gb2):
    """Add coef * dV/d(params) into (g1 [198, H], gb1 [H], g2 [H], gb2 [1]).

    h: the forward pass of the input (idx, val, nnz) under weights whose w2 is given. The
    gradients may be the weights themselves (an in-place step): each w2[j] is read before g2[j]
    changes.
    """
    nh = h.shape[0]
    back = np.empty(nh)
    gb2[0] += coef
    for j in range(nh):
        b = coef * w2[j] * (1.0 - h[j] * h[j])
        g2[j] += coef * h[j]
        back[j] = b
        gb1[j] += b
    for k in range(nnz):
        i = idx[k]
        v = val[k]
        for j in range(nh):
            g1[i, j] += v * back[j]


@njit(cache=True, fastmath=True)
def _trace_step(w1, b1, w2, b2, e1, eb1, e2, eb2, step):
    """w += step * e (dense)."""
    ni, nh = w1.shape
    for i in range(ni):
        for j in range(nh):
            w1[i, j] += step * e1[i, j]
    for j in range(nh):
        b1[j] += step * eb1[j]
        w2[j] += step * e2[j]
    b2[0] += step * eb2[0]


@njit(cache=True, fastmath=True)
def _trace_decay(e1, eb1, e2, eb2, lam):
    ni, nh = e1.shape
    for i in range(ni):
        for j in range(nh):
            e1[i, j] *= lam
    for j in range(nh):
        eb1[j] *= lam
        e2[j] *= lam
    eb2[0] *= lam


@njit(cache=True)
def choose_move(w1, b1, w2, b2, state, moves, n, epsilon, rng, obs, idx, val, h):
    """(index, mover's value, explored) of the move to play among moves[:n]: the best by the net
    (a finished game scores its result, else -V(child)), or with probability epsilon a random
    one (rng; explored is then True)."""
    side = state[S_SIDE]
    best = 0
    best_v = -1e300
    pick = -1
    if epsilon > 0.0 and rand_below(rng, np.int64(0), np.int64(1 << _P_BITS)) < epsilon * (
        1 << _P_BITS
    ):
        pick = rand_below(rng, np.int64(0), n)
    pick_v = 0.0
    for k in range(n):
        c = apply_move(state, moves[k])
        code, _ = result(c, 0)
        if code != ONGOING:
            v = reward(code, side)
        else:
            nnz = encode_sparse(c, obs, idx, val)
            v = -forward_sparse(w1, b1, w2, b2, idx, val, nnz, h)
        if v > best_v:
            best_v = v
            best = k
        if k == pick:
            pick_v = v
    if pick >= 0:
        return pick, pick_v, True
    return best, best_v, False


def _check_buffer(a, what, dtype, size):
    if not (
        isinstance(a, np.ndarray)
        and a.dtype == dtype
        and a.ndim == 1
        and a.flags.writeable
        and a.flags.c_contiguous
    ):
        raise TypeError(
            f"{what} must be a writable {np.dtype(dtype)} vector, got "
            f"{type(a).__name__} {getattr(a, 'dtype', '')} {getattr(a, 'shape', '')}"
        )
    if a.shape[0] < size:
        raise ValueError(f"{what} needs at least {size} entries, got {a.shape[0]}")


def _check_count(x, what):
    if not is_int(x):
        raise TypeError(f"{what} must be an integer, got {x!r}")
    if x < 0:
        raise ValueError(f"{what} must be >= 0, got {x}")
    return int(x)


def _check_rate(x, what, hi=None):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a number, got {x!r}")
    if not (np.isfinite(x) and x >= 0 and (hi is None or x <= hi)):
        raise ValueError(f"{what} must be in 0..{hi if hi is not None else 'inf'}, got {x}")
    return float(x)


def train_games(
    w1: npt.NDArray[np.float64],
    b1: npt.NDArray[np.float64],
    w2: npt.NDArray[np.float64],
    b2: npt.NDArray[np.float64],
    rng: npt.NDArray[np.int64],
    n_games: int,
    alpha: float,
    lam: float,
    epsilon: float,
    stats: npt.NDArray[np.float64],
) -> None:
    """Play n_games self-play games, updating the weights in place by TD(lam); stats accumulate.

    Weights: writable float64 arrays (init_params). rng: int64[1] SplitMix64 state (advanced).
    stats: float64[N_STATS] (games, plies, sum |delta|, White wins, Black wins, games stopped
    at MAX_PLIES, random moves).
    """
    check_params((w1, b1, w2, b2), in_place=True)
    _check_buffer(rng, "rng", np.int64, 1)
    _check_buffer(stats, "stats", np.float64, N_STATS)
    _train_games(
        w1,
        b1,
        w2,
        b2,
        rng,
        _check_count(n_games, "n_games"),
        _check_rate(alpha, "alpha"),
        _check_rate(lam, "lam", 1.0),
        _check_rate(epsilon, "epsilon", 1.0),
        stats,
    )


@njit(cache=True)
def _scratch(nh):
    """Buffers of the move choice: move list, observation, sparse input, hidden layer (nh)."""
    return (
        np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64),
        np.empty(N_INPUTS, dtype=np.float32),
        np.empty(N_INPUTS, dtype=np.int64),
        np.empty(N_INPUTS),
        np.empty(nh),
    )


@njit(cache=True)
def _train_games(w1, b1, w2, b2, rng, n_games, alpha, lam, epsilon, stats):
    nh = b1.shape[0]
    moves, obs, idx, val, h = _scratch(nh)
    cur_idx = np.empty(N_INPUTS, dtype=np.int64)
    cur_val = np.empty(N_INPUTS)
    cur_h = np.empty(nh)
    use_traces = lam > 0.0
    if use_traces:
        e1 = np.zeros((N_INPUTS, nh))
        eb1 = np.zeros(nh)
        e2 = np.zeros(nh)
    else:
        e1 = np.zeros((1, 1))
        eb1 = np.zeros(1)
        e2 = np.zeros(1)
    eb2 = np.zeros(1)
    for _ in range(n_games):
        if use_traces:
            e1[:] = 0.0
            eb1[:] = 0.0
            e2[:] = 0.0
            eb2[:] = 0.0
        s = initial_state()
        while True:
            sign = 1.0 if s[S_SIDE] == 0 else -1.0  # White's frame
            cur_nnz = encode_sparse(s, obs, cur_idx, cur_val)
            u = sign * forward_sparse(w1, b1, w2, b2, cur_idx, cur_val, cur_nnz, cur_h)
            if use_traces:
                _trace_decay(e1, eb1, e2, eb2, lam)
                add_grad(w2, cur_h, cur_idx, cur_val, cur_nnz, sign, e1, eb1, e2, eb2)
            n = gen_moves(s, moves)
            k, v, explored = choose_move(
                w1, b1, w2, b2, s, moves, n, epsilon, rng, obs, idx, val, h
            )
            if explored:
                stats[ST_RANDOM_MOVES] += 1
            s = apply_move(s, moves[k])
            code, capped = result(s, MAX_PLIES)
            over = code != ONGOING
            target = sign * v  # the chosen child's value in White's frame
            if capped:
                target = 0.0
            delta = target - u
            stats[ST_ABS_DELTA] += abs(delta)
            if use_traces:
                _trace_step(w1, b1, w2, b2, e1, eb1, e2, eb2, alpha * delta)
            else:
                add_grad(w2, cur_h, cur_idx, cur_val, cur_nnz, alpha * delta * sign, w1, b1, w2, b2)
            if over or capped:
                stats[ST_GAMES] += 1
                stats[ST_PLIES] += s[S_PLY]
                if code == WHITE_WON:
                    stats[ST_WHITE_WINS] += 1
                elif code == BLACK_WON:
                    stats[ST_BLACK_WINS] += 1
                if capped:
                    stats[ST_CAPPED] += 1
                break


def play_match(
    w1: npt.ArrayLike,
    b1: npt.ArrayLike,
    w2: npt.ArrayLike,
    b2: npt.ArrayLike,
    opponent: int,
    rng: npt.NDArray[np.int64],
    n_games: int,
    max_plies: int,
    points: npt.NDArray[np.float64],
) -> None:
    """The net (one ply, no exploration) against opponent (OPP_RANDOM or OPP_GREEDY, the
    recapture player; kernels/draughts/opponents.opponent_move with generator rng[0], int64[1])
    for n_games games from the initial position; the net is White in even games. points
    (float64[>= n_games]) receives the net's result per game (1, 0, -1; a game still going after
    max_plies plies is a draw; 0 = no cap).
    """
    params = check_params((w1, b1, w2, b2))
    if opponent not in (OPP_RANDOM, OPP_GREEDY) or isinstance(opponent, (bool, np.bool_)):
        raise ValueError(
            f"opponent must be OPP_RANDOM ({OPP_RANDOM}) or OPP_GREEDY ({OPP_GREEDY}), "
            f"got {opponent!r}"
        )
    n_games = _check_count(n_games, "n_games")
    _check_buffer(rng, "rng", np.int64, 1)
    _check_buffer(points, "points", np.float64, n_games)
    _play_match(*params, int(opponent), rng, n_games, _check_count(max_plies, "max_plies"), points)


@njit(cache=True)
def _play_match(w1, b1, w2, b2, opponent, rng, n_games, max_plies, points):
    moves, obs, idx, val, h = _scratch(b1.shape[0])
    scratch = np.empty(N_ACTIONS, dtype=np.int8)
    for g in range(n_games):
        seat = g % 2
        s = initial_state()
        code, trunc = result(s, max_plies)
        while code == ONGOING and not trunc:
            if s[S_SIDE] == seat:
                n = gen_moves(s, moves)
                k, _, _ = choose_move(w1, b1, w2, b2, s, moves, n, 0.0, rng, obs, idx, val, h)
                s = apply_move(s, moves[k])
            else:
                s = opponent_move(s, opponent, rng, np.int64(0), scratch)
            code, trunc = result(s, max_plies)
        points[g] = reward(code, seat)
