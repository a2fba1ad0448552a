"""TD(lambda) / TD(0) self-play training of the backgammon afterstate models of
agents/backgammon/net.py (Numba kernels over the model tuple, in place).

Training (``train_games``): self-play, each side picks the afterstate of highest equity
(epsilon 0, exploration comes from the dice). Predictions of consecutive afterstates are compared
in one fixed frame, player 0's (a player-1 afterstate's outputs are turned round: P0 win =
1 - y[WIN], P0 win gammon = y[LOSE_G], ...), so a single set of eligibility traces (one per
output, ``lam``-decayed, reset each game) covers the whole game. After each ply the weights move
by ``alpha * sum_m delta_m * e_m`` with ``delta = V(s_t+1) - V(s_t)``; the last target is the
game's real result (win, gammon, backgammon). ``lam == 0`` takes a sparse path without traces.
Games are played by the game core's afterstate loop (kernels/backgammon/game.py: ``start``,
``afterstates``, ``finish_turn``): a lost roll (E.3, E.7) is no decision, so no afterstate and no
update. The dice come from the SplitMix64 generator ``rng`` (int64[1], kernels/rng.py) advanced in
place, so a run resumes exactly from saved weights and ``rng``.

Every model trains by the one self-play loop ``train_model_games`` (``train_games`` is that loop
on ``as_model`` of the bare net): each net moves towards whatever part of the model values the
next afterstate; TD(lam > 0) only for a model valued by its contact net alone (no race net, no
bear-off table), TD(0) for any.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.agents.backgammon.net import (
    EV_CONTACT,
    EV_EXACT,
    LOSE_BG,
    LOSE_G,
    MAX_NNZ_MODEL,
    N_OUT,
    PERM,
    WIN,
    WIN_BG,
    WIN_G,
    add_grad,
    as_model,
    model_best_row,
    model_buffers,
    model_eval,
)
from boardgym.kernels.backgammon.board import STATE_LEN, TURN
from boardgym.kernels.backgammon.game import (
    GAME_OVER,
    MAX_AFTERSTATES,
    SCORING_GAMMON,
    afterstates,
    finish_turn,
    no_passes,
    result,
    start,
)

# train_games / train_model_games statistics (stats float64[N_STATS], accumulated)
ST_GAMES, ST_PLIES, ST_ABS_DELTA, ST_WINS0, ST_POINTS0, ST_GAMMONS, ST_BACKGAMMONS = range(7)
N_STATS = 7


@njit(cache=True, inline="always")
def _p0_view(y, turned, v):
    """v (float64[5]) = the outputs y in player 0's frame (turned: the afterstate is player 1's)."""
    if turned:
        v[WIN] = 1.0 - y[WIN]
        v[WIN_G] = y[LOSE_G]
        v[WIN_BG] = y[LOSE_BG]
        v[LOSE_G] = y[WIN_G]
        v[LOSE_BG] = y[WIN_BG]
    else:
        for o in range(N_OUT):
            v[o] = y[o]


@njit(cache=True)
def result_vector(s, v):
    """The real outcome of finished position s as outputs in player 0's frame into v (float64[5])
    -> (winner, kind) (game.result, gammons counted)."""
    winner, kind, _ = result(s, SCORING_GAMMON)
    v[:] = 0.0
    if winner == 0:
        v[WIN] = 1.0
        if kind >= 2:
            v[WIN_G] = 1.0
        if kind >= 3:
            v[WIN_BG] = 1.0
    else:
        if kind >= 2:
            v[LOSE_G] = 1.0
        if kind >= 3:
            v[LOSE_BG] = 1.0
    return winner, kind


@njit(cache=True, fastmath=True)
def _trace_step(w1, b1, w2, b2, e1, eb1, e2, eb2, delta, alpha, lam):
    """w += alpha * sum_m delta_m * e_m, then e *= lam (traces e1 [I, H, 5] of w1 [I, H],
    eb1 [H, 5], ...)."""
    ni = w1.shape[0]
    nh = w1.shape[1]
    for i in range(ni):
        for j in range(nh):
            a = 0.0
            for m in range(N_OUT):
                a += delta[m] * e1[i, j, m]
                e1[i, j, m] *= lam
            w1[i, j] += alpha * a
    for j in range(nh):
        a = 0.0
        for m in range(N_OUT):
            a += delta[m] * eb1[j, m]
            eb1[j, m] *= lam
        b1[j] += alpha * a
        for o in range(N_OUT):
            a = 0.0
            for m in range(N_OUT):
                a += delta[m] * e2[j, o, m]
                e2[j, o, m] *= lam
            w2[j, o] += alpha * a
    for o in range(N_OUT):
        a = 0.0
        for m in range(N_OUT):
            a += delta[m] * eb2[o, m]
            eb2[o, m] *= lam
        b2[o] += alpha * a


@njit(cache=True, fastmath=True)
def _trace_add(w2, h, y, idx, val, nnz, turned, e1, eb1, e2, eb2):
    """e_m += d V0_m / d params for the afterstate (h, y) (V0: outputs in player 0's frame)."""
    nh = h.shape[0]
    dout = np.empty(N_OUT)
    for o in range(N_OUT):
        dout[o] = y[o] * (1.0 - y[o])
    back = np.empty((nh, N_OUT))
    for m in range(N_OUT):
        o = m
        sign = 1.0
        if turned:
            o = PERM[m]
            if m == WIN:
                sign = -1.0
        d = sign * dout[o]
        eb2[o, m] += d
        for j in range(nh):
            e2[j, o, m] += d * h[j]
            b = d * w2[j, o] * h[j] * (1.0 - h[j])
            back[j, m] = b
            eb1[j, m] += b
    for k in range(nnz):
        i = idx[k]
        v = val[k]
        for j in range(nh):
            for m in range(N_OUT):
                e1[i, j, m] += v * back[j, m]


@njit(cache=True)
def _td0_step(w1, b1, w2, b2, h, y, idx, val, nnz, turned, delta, alpha):
    """lam = 0: w += alpha * sum_m delta_m * grad V0_m of the previous afterstate (sparse)."""
    coef = np.empty(N_OUT)
    for m in range(N_OUT):
        if turned:
            o = PERM[m]
            coef[o] = alpha * (-delta[m] if m == WIN else delta[m])
        else:
            coef[m] = alpha * delta[m]
    # add_grad reads w2 before changing it (back is computed from the old w2 first)
    add_grad(w2.copy(), h, y, idx, val, nnz, coef, w1, b1, w2, b2)


def train_games(
    w1: npt.NDArray[np.float64],
    b1: npt.NDArray[np.float64],
    w2: npt.NDArray[np.float64],
    b2: npt.NDArray[np.float64],
    rng: npt.NDArray[np.int64],
    n_games: int,
    alpha: float,
    lam: float,
    stats: npt.NDArray[np.float64],
) -> None:
    """Play n_games self-play games of the bare Tesauro net (w1, b1, w2, b2), updating the weights
    in place by TD(lam) (``train_model_games`` of ``as_model``, which shares the arrays).

    rng: int64[1] SplitMix64 dice state (advanced). stats: float64[N_STATS] (games, plies,
    sum |delta[WIN]|, player-0 wins, player-0 points, gammons, backgammons), accumulated.
    """
    train_model_games(as_model((w1, b1, w2, b2)), rng, n_games, alpha, alpha, lam, stats)


def train_model_games(
    net: Sequence[np.ndarray],
    rng: npt.NDArray[np.int64],
    n_games: int,
    alpha: float,
    race_alpha: float,
    lam: float,
    stats: npt.NDArray[np.float64],
) -> None:
    """TD(lam) self-play of a model tuple, in place: each side picks the afterstate of highest
    equity under the whole model; after each ply the net that valued the previous afterstate of
    the game (contact or race) moves towards the value of the next one, whichever part of the
    model gives it (contact net, race net, the exact bear-off or the game's result: bootstrapping
    across the boundaries); exact values are targets, never trained. lam > 0 (eligibility traces)
    needs a model valued by its contact net alone (no race net, no bear-off table); ValueError
    otherwise.

    rng: int64[1] dice state (advanced); alpha / race_alpha: the contact / race net's learning
    rates; lam: float in [0, 1]; stats: float64[N_STATS] as train_games."""
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lam must be in [0, 1], got {lam}")
    if lam > 0.0 and (net[6].shape[0] > 0 or net[9].shape[0] > 0):  # the bear-off table
        raise ValueError(
            "TD(lambda > 0) trains a model valued by one net only: this one has a "
            "race net or a bear-off table (use lam 0)"
        )
    _train_model_games(net, rng, n_games, alpha, race_alpha, lam, stats)


@njit(cache=True)
def _train_model_games(net, rng, n_games, alpha, race_alpha, lam, stats):
    """The self-play loop of train_model_games (lam > 0: traces of the contact net, which then
    values every afterstate)."""
    b = model_buffers(net)
    nh = net[2].shape[0]
    nrh = net[6].shape[0]
    rows = np.empty((MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    y = np.empty(N_OUT)
    cur_y = np.empty(N_OUT)
    prev_idx = np.empty(MAX_NNZ_MODEL, dtype=np.int64)
    prev_val = np.empty(MAX_NNZ_MODEL)
    prev_h = np.empty(b[2].shape[0])
    prev_y = np.empty(N_OUT)
    prev_v = np.empty(N_OUT)
    v = np.empty(N_OUT)
    delta = np.empty(N_OUT)
    use_traces = lam > 0.0
    if use_traces:
        e1 = np.zeros((net[1].shape[0], nh, N_OUT))
        eb1 = np.zeros((nh, N_OUT))
        e2 = np.zeros((nh, N_OUT, N_OUT))
        eb2 = np.zeros((N_OUT, N_OUT))
    else:
        e1 = np.zeros((1, 1, 1))
        eb1 = np.zeros((1, 1))
        e2 = np.zeros((1, 1, 1))
        eb2 = np.zeros((1, 1))
    passes = no_passes()
    for _ in range(n_games):
        if use_traces:
            e1[:] = 0.0
            eb1[:] = 0.0
            e2[:] = 0.0
            eb2[:] = 0.0
        state, status, rolls, _ = start(rng, np.int64(0), passes)
        ply = 0
        prev_turned = np.bool_(False)
        prev_nnz = np.int64(0)
        prev_ev = EV_EXACT
        while True:
            n = afterstates(state, rows)
            r = model_best_row(net, rows, n, b, y, cur_y)
            after = rows[r]
            turned = after[TURN] == 1
            state, status, rolls, _ = finish_turn(after, rng, rolls, 0, passes)
            over = status == GAME_OVER
            if over:
                winner, kind = result_vector(after, v)
            else:
                _p0_view(cur_y, turned, v)
            if ply > 0 and prev_ev != EV_EXACT:
                for m in range(N_OUT):
                    delta[m] = v[m] - prev_v[m]
                stats[ST_ABS_DELTA] += abs(delta[WIN])
                if use_traces:
                    _trace_step(net[1], net[2], net[3], net[4], e1, eb1, e2, eb2, delta, alpha, lam)
                elif prev_ev == EV_CONTACT:
                    _td0_step(
                        net[1],
                        net[2],
                        net[3],
                        net[4],
                        prev_h[:nh],
                        prev_y,
                        prev_idx,
                        prev_val,
                        prev_nnz,
                        prev_turned,
                        delta,
                        alpha,
                    )
                else:
                    _td0_step(
                        net[5],
                        net[6],
                        net[7],
                        net[8],
                        prev_h[:nrh],
                        prev_y,
                        prev_idx,
                        prev_val,
                        prev_nnz,
                        prev_turned,
                        delta,
                        race_alpha,
                    )
            ply += 1
            if over:
                stats[ST_GAMES] += 1
                stats[ST_PLIES] += ply
                if winner == 0:
                    stats[ST_WINS0] += 1
                    stats[ST_POINTS0] += kind
                else:
                    stats[ST_POINTS0] -= kind
                if kind == 2:
                    stats[ST_GAMMONS] += 1
                elif kind == 3:
                    stats[ST_BACKGAMMONS] += 1
                break
            # the chosen afterstate becomes the previous one: its forward pass is recomputed with
            # the weights just updated (h and y of the gradient must match the weights they are for)
            prev_ev, prev_nnz = model_eval(
                net, after, prev_idx, prev_val, prev_h, b[3], b[4], prev_y
            )
            prev_turned = turned
            _p0_view(prev_y, turned, prev_v)
            if use_traces:
                _trace_add(
                    net[3],
                    prev_h[:nh],
                    prev_y,
                    prev_idx,
                    prev_val,
                    prev_nnz,
                    turned,
                    e1,
                    eb1,
                    e2,
                    eb2,
                )
