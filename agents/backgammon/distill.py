"""Self-distillation of a backgammon model tuple: the 0-ply net trained on its own 1-ply values.

A model's 1-ply search (agents/backgammon/search.py) plays better than the model alone; fitting
the model to the 1-ply values of positions it meets moves the 0-ply net towards its own search
(the expert-iteration idea; GNU Backgammon's nets were trained on searched and rolled-out
positions, and its documentation describes that training database; the code here is our own).
One round (``distill_round``: ``round_targets`` makes steps 1 and 2, ``fit_round`` step 3, so a
caller may change the net in between, e.g. widen it by ``td_net.widen``: the targets stay the
teacher's):

1. **Positions** (``sample_positions``): self-play games of the model at 0-ply (the dice from the
   SplitMix64 stream ``rng``, the game core's afterstate loop), keeping each chosen afterstate
   the contact or race net values (not finished games, not the exact bear-off), and with
   probability ``alt`` (drawn from a second stream, so the games do not depend on it) one
   other play of the same roll among the ``ALT_TOP`` best at 0-ply (the plays the net must
   rank, not only the ones it already picks).
2. **Targets** (both cores, under a frozen copy of the model: the teacher), at ``plies`` 1
   (``targets1``): the 1-ply outputs of each afterstate for its mover, the mean over the
   opponent's 21 rolls of the outputs of its best reply at 0-ply
   (``backgammon_search.preroll_outputs`` of the position after the turn passes), turned round to
   the mover's view; at ``plies`` 2 (``targets2``, about 20 times dearer): the 2-ply outputs the
   default search values a play by, the mean over the opponent's 21 rolls of the 1-ply outputs of
   its best reply at 0-ply (``preroll_outputs2_u`` with the search's ``REPLY_CANDIDATES``), so the
   net learns what its own 2-ply search sees, not only its 1-ply look-ahead.
3. **Fit**: ``epochs`` passes in a random order, either (``fit="sgd"``, ``fit_positions``)
   stochastic gradient descent, each step the squared-error gradient of the net that values the
   position (contact or race) towards its target, the same update TD(0) makes towards the next
   afterstate's value; or (``fit="adam"``, ``fit_positions_adam``) Adam in minibatches, on the
   squared error of the outputs plus that of the equity, the rate falling along a half cosine
   over the passes. Per position SGD at a TD rate stalls well above what the net can fit; Adam
   fits the same net to its 1-ply values much closer (BENCHMARKS.md).

Every kernel fills caller-owned buffers; the loops over positions, rolls and plays are Numba.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon.search import (
    MONEY_U,
    REPLY_CANDIDATES,
    THRESHOLD,
    preroll_outputs,
    preroll_outputs2_u,
)
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import STATE_LEN
from boardgym.kernels.rng import rand_below

__all__ = [
    "ALT_TOP",
    "POSITIONS_PER_GAME",
    "sample_positions",
    "targets1",
    "targets2",
    "TARGET_PLIES",
    "TEACHER_PRECISIONS",
    "TARGET_CHUNK",
    "LOG_EVERY",
    "fit_positions",
    "fit_positions_adam",
    "adam_moments",
    "adam_rate",
    "ADAM_BATCH",
    "FITS",
    "round_targets",
    "fit_round",
    "distill_round",
]

ALT_TOP = 4  # the alternative play is drawn among this many best plays of the roll at 0-ply
#: room for positions per self-play game (a game has about 50 plays, 25 a side: 70 leaves
#: room; a full buffer ends the round's sampling early)
POSITIONS_PER_GAME = 70
TARGET_PLIES = (1, 2)  # the depths distill_round's targets can be searched to
TEACHER_PRECISIONS = ("float64", "float32")  # round_targets' teachers: the model, its play model
TARGET_CHUNK = 20_000  # positions valued between two looks at the clock (a progress line)
LOG_EVERY = 60.0  # seconds between progress lines of the targets


@njit(cache=True)
def sample_positions(net, rng, n_games, alt, out):
    """Self-play n_games at 0-ply (dice from rng, int64[1], advanced) and write the afterstates
    the model's nets value (mover's view) into out (int64[N, STATE_LEN]) until it is full ->
    count. alt: probability of also keeping another of the ALT_TOP best plays of the roll."""
    b = td_net.model_buffers(net)
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    eq = np.empty(game.MAX_AFTERSTATES)
    evs = np.empty(game.MAX_AFTERSTATES, dtype=np.int64)  # which part of the model valued a row
    y = np.empty(td_net.N_OUT)
    passes = game.no_passes()
    pick = np.array([~rng[0]], dtype=np.int64)  # the alternatives' own stream: not the dice
    cap = out.shape[0]
    k = 0
    for _ in range(n_games):
        state, status, rolls, _ = game.start(rng, np.int64(0), passes)
        while status == game.ROLLED and k < cap:
            n = game.afterstates(state, rows)
            best = 0
            for r in range(n):
                evs[r], _ = td_net.model_eval(net, rows[r], b[0], b[1], b[2], b[3], b[4], y)
                eq[r] = td_net.equity(y)
                if eq[r] > eq[best]:
                    best = r
            if evs[best] != td_net.EV_EXACT:
                out[k] = rows[best]
                k += 1
            if (
                n > 1
                and k < cap
                and rand_below(pick, np.int64(0), np.int64(1 << 20)) < alt * (1 << 20)
            ):
                order = np.argsort(-eq[:n])
                top = min(ALT_TOP, n)
                other = order[1 + rand_below(pick, np.int64(0), top - 1)]
                if evs[other] != td_net.EV_EXACT:
                    out[k] = rows[other]
                    k += 1
            state, status, rolls, _ = game.finish_turn(rows[best], rng, rolls, 0, passes)
        if k >= cap:
            break
    return k


@njit(cache=True, inline="always")
def _turned_round(y, out):
    """The outputs y (float64[5]) of the opponent, seen from the mover, into out (float64[5])."""
    out[td_net.WIN] = 1.0 - y[td_net.WIN]
    for m in range(1, td_net.N_OUT):
        out[m] = y[td_net.PERM[m]]


@njit(parallel=True, cache=True)
def targets1(net, rows, n, out):
    """1-ply outputs (float64[n, 5] into out: win, win gammon, win backgammon, lose gammon, lose
    backgammon, cumulative) of the afterstates rows[:n] for their movers under net."""
    for r in prange(n):
        y = np.empty(td_net.N_OUT)
        preroll_outputs(net, game.pass_turn(rows[r]), y)
        _turned_round(y, out[r])


@njit(parallel=True, cache=True)
def targets2(net, rows, n, keep, out):
    """2-ply outputs (float64[n, 5] into out, as targets1) of the afterstates rows[:n] for their
    movers under net: the mean over the opponent's 21 rolls of the 1-ply outputs of its best
    reply at 0-ply, turned round; the equity of these outputs is the 2-ply value the default
    search (search.search_values, replies REPLY_CANDIDATES) gives the play, and with keep > 0
    the value of the search with prune=keep (the 1-ply values' replies pruned by the model's
    pruning net; 0: none)."""
    for r in prange(n):
        y = np.empty(td_net.N_OUT)
        s = game.pass_turn(rows[r])
        preroll_outputs2_u(net, MONEY_U, s, REPLY_CANDIDATES, THRESHOLD, keep, y)
        _turned_round(y, out[r])


@njit(cache=True)
def fit_positions(net, rows, targets, n, order, alpha, race_alpha):
    """One pass of SGD over rows[order] (order int64[n]: indices into rows[:n]): each step moves
    the net that values the afterstate (contact: rate alpha, race: race_alpha) towards its target
    (float64[n, 5], mover's view) -> mean squared error of the equity before the steps."""
    b = td_net.model_buffers(net)
    y = np.empty(td_net.N_OUT)
    coef = np.empty(td_net.N_OUT)
    nh = net[2].shape[0]
    nrh = net[6].shape[0]
    se = 0.0
    for k in range(n):
        r = order[k]
        ev, nnz = td_net.model_eval(net, rows[r], b[0], b[1], b[2], b[3], b[4], y)
        if ev == td_net.EV_EXACT:
            continue
        rate = alpha if ev == td_net.EV_CONTACT else race_alpha
        for o in range(td_net.N_OUT):
            coef[o] = rate * (targets[r, o] - y[o])
        d = td_net.equity(targets[r]) - td_net.equity(y)
        se += d * d
        if ev == td_net.EV_CONTACT:
            w2 = net[3]
            td_net.add_grad(
                w2.copy(), b[2][:nh], y, b[0], b[1], nnz, coef, net[1], net[2], w2, net[4]
            )
        else:
            w2 = net[7]
            td_net.add_grad(
                w2.copy(), b[2][:nrh], y, b[0], b[1], nnz, coef, net[5], net[6], w2, net[8]
            )
    return se / max(n, 1)


# the equity's weights on the five outputs (td_net.equity: 2 win + win g + win bg - lose g - lose bg
# - 1): the Adam fit's loss adds the squared error of the equity to that of the outputs
EQ_W = np.array([2.0, 1.0, 1.0, -1.0, -1.0])
ADAM_B1, ADAM_B2, ADAM_EPS = 0.9, 0.999, 1e-8
ADAM_BATCH = 256  # positions a step of the Adam fit
FITS = ("sgd", "adam")  # distill_round's fits


def adam_moments(net: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """Adam's first and second moments of a model tuple's two nets, all zero: 16 arrays, the
    first moments of net[1:9] then the second moments (fit_positions_adam's ``moments``)."""
    m = tuple(np.zeros_like(net[i]) for i in range(1, 9))
    return m + tuple(np.zeros_like(net[i]) for i in range(1, 9))


@njit(cache=True, inline="always")
def _adam_step(p, m, v, g, scale, lr, c1, c2):
    """One Adam step of parameter array p (moments m, v) along the ascent direction g * scale
    (the gradient of minus the loss); c1, c2: 1 - beta^t of the step. Zeroes g as it goes, so
    the next batch sums its gradient from nothing."""
    pf = p.reshape(-1)
    mf = m.reshape(-1)
    vf = v.reshape(-1)
    gf = g.reshape(-1)
    for i in range(pf.shape[0]):
        gi = gf[i] * scale
        mf[i] = ADAM_B1 * mf[i] + (1.0 - ADAM_B1) * gi
        vf[i] = ADAM_B2 * vf[i] + (1.0 - ADAM_B2) * gi * gi
        pf[i] += lr * (mf[i] / c1) / (np.sqrt(vf[i] / c2) + ADAM_EPS)
        gf[i] = 0.0


@njit(cache=True, inline="always")
def _adam_net(p, m, v, g, scale, lr, t):
    """Adam's step t of one net's four arrays p (first moments m, second v, gradient sums g:
    4-tuples alike)."""
    c1 = 1.0 - ADAM_B1**t
    c2 = 1.0 - ADAM_B2**t
    _adam_step(p[0], m[0], v[0], g[0], scale, lr, c1, c2)
    _adam_step(p[1], m[1], v[1], g[1], scale, lr, c1, c2)
    _adam_step(p[2], m[2], v[2], g[2], scale, lr, c1, c2)
    _adam_step(p[3], m[3], v[3], g[3], scale, lr, c1, c2)


@njit(cache=True)
def fit_positions_adam(net, rows, targets, n, order, batch, lr, moments, step):
    """One pass of Adam (Kingma and Ba, 2015) over rows[order] in minibatches of batch
    positions: the loss of a position is the squared error of the five outputs of the net that
    values it (contact or race) plus the squared error of its equity, against its target
    (float64[n, 5], mover's view); each net's step is the mean over its positions of the batch.
    moments: adam_moments(net) (updated); step: int64[2], Adam's steps so far of the contact and
    the race net (advanced) -> mean squared error of the equity before the steps."""
    b = td_net.model_buffers(net)
    y = np.empty(td_net.N_OUT)
    coef = np.empty(td_net.N_OUT)
    nh = net[2].shape[0]
    nrh = net[6].shape[0]
    g = (
        np.zeros_like(net[1]),
        np.zeros_like(net[2]),
        np.zeros_like(net[3]),
        np.zeros_like(net[4]),
        np.zeros_like(net[5]),
        np.zeros_like(net[6]),
        np.zeros_like(net[7]),
        np.zeros_like(net[8]),
    )
    se = 0.0
    counted = 0
    for start in range(0, n, batch):
        kc = 0
        kr = 0
        for k in range(start, min(start + batch, n)):
            r = order[k]
            ev, nnz = td_net.model_eval(net, rows[r], b[0], b[1], b[2], b[3], b[4], y)
            if ev == td_net.EV_EXACT:
                continue
            d = td_net.equity(targets[r]) - td_net.equity(y)
            se += d * d
            counted += 1
            for o in range(td_net.N_OUT):
                coef[o] = targets[r, o] - y[o] + EQ_W[o] * d
            if ev == td_net.EV_CONTACT:
                td_net.add_grad(net[3], b[2][:nh], y, b[0], b[1], nnz, coef, g[0], g[1], g[2], g[3])
                kc += 1
            else:
                td_net.add_grad(
                    net[7], b[2][:nrh], y, b[0], b[1], nnz, coef, g[4], g[5], g[6], g[7]
                )
                kr += 1
        if kc > 0:
            step[0] += 1
            _adam_net(net[1:5], moments[0:4], moments[8:12], g[0:4], 1.0 / kc, lr, step[0])
        if kr > 0:
            step[1] += 1
            _adam_net(net[5:9], moments[4:8], moments[12:16], g[4:8], 1.0 / kr, lr, step[1])
    return se / max(counted, 1)


def round_targets(
    net: Sequence[np.ndarray],
    rng: npt.NDArray[np.int64],
    n_games: int,
    alt: float,
    cap: int,
    plies: int = 1,
    prune: int = 0,
    prune_net: Sequence[np.ndarray] = (),
    log: Callable[[str], object] | None = None,
    made: npt.NDArray[np.float64] | None = None,
    keep: Callable[[int, npt.NDArray[np.float64]], object] | None = None,
    precision: str = "float64",
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], int]:
    """A round's data: the positions of n_games (at most cap; sample_positions, advancing rng)
    and their targets at plies (TARGET_PLIES: targets1, targets2) under a frozen copy of net, the
    teacher -> (rows int64[cap, STATE_LEN], targets float64[n, 5], n). prune: targets2's keep
    (2-ply targets only), by the teacher with the pruning net prune_net (pw1, pb1, pw2, pb2:
    fitted to net, prune.fit_prune). log(text): the targets' progress, about once a minute
    (TARGET_CHUNK positions at a time). made: the targets of the first len(made) positions
    already made by a round of the same arguments (a killed round's; the positions are the same,
    as sampling depends only on net and rng): the round goes on after them. keep(k, targets):
    called after each chunk with the count made so far, so a caller can save them for made.
    precision (TEACHER_PRECISIONS): "float32" makes the teacher the play model (td_net.as_play:
    hidden layers in float32, faster, outputs within about 1e-6)."""
    if plies not in TARGET_PLIES:
        raise ValueError(f"plies must be one of {TARGET_PLIES}, got {plies!r}")
    if isinstance(prune, bool) or not isinstance(prune, (int, np.integer)) or prune < 0:
        raise ValueError(f"prune must be an integer >= 0, got {prune!r}")
    if prune > 0 and (plies != 2 or len(prune_net) != 4):
        raise ValueError("prune > 0 needs plies 2 and a pruning net (pw1, pb1, pw2, pb2)")
    if precision not in TEACHER_PRECISIONS:
        raise ValueError(f"precision must be one of {TEACHER_PRECISIONS}, got {precision!r}")
    rows = np.empty((cap, STATE_LEN), dtype=np.int64)
    n = sample_positions(net, rng, n_games, alt, rows)
    teacher = tuple(a.copy() for a in net)
    if precision == "float32":
        teacher = td_net.as_play(teacher)
    if prune > 0:
        teacher = td_net.with_prune(teacher, prune_net)
    targets = np.empty((n, td_net.N_OUT))
    k = 0 if made is None else len(made)
    if made is not None:
        if not isinstance(made, np.ndarray) or k > n or made.shape != (k, td_net.N_OUT):
            raise ValueError(f"made must be float64[k, {td_net.N_OUT}] with k <= {n}")
        targets[:k] = made
    t0 = last = time.perf_counter()
    for a in range(k, n, TARGET_CHUNK):
        b = min(n, a + TARGET_CHUNK)
        if plies == 1:
            targets1(teacher, rows[a:b], b - a, targets[a:b])
        else:
            targets2(teacher, rows[a:b], b - a, np.int64(prune), targets[a:b])
        if keep is not None:
            keep(b, targets)
        now = time.perf_counter()
        if log is not None and b < n and now - last >= LOG_EVERY:
            last = now
            left = (now - t0) * (n - b) / (b - k)
            done = f"{b:,} of {n:,} positions, {now - t0:.0f} s"
            log(f"{plies}-ply targets: {done}, ~{left:.0f} s to go")
    return rows, targets, n


def fit_round(
    net: Sequence[np.ndarray],
    rows: npt.NDArray[np.int64],
    targets: npt.NDArray[np.float64],
    n: int,
    epochs: int,
    alpha: float,
    race_alpha: float,
    seed: int | None,
    fit: str = "sgd",
) -> list[float]:
    """A round's fit of net (in place) to targets[:n] of rows[:n]: epochs passes, each in an
    order from numpy's generator of seed -> [mse before each epoch]. fit "sgd": fit_positions
    at rates alpha (contact) and race_alpha; "adam": fit_positions_adam in minibatches of
    ADAM_BATCH, the rate alpha at the first pass falling along a half cosine over the passes
    (adam_rate), fresh moments each round."""
    if fit not in FITS:
        raise ValueError(f"fit must be one of {FITS}, got {fit!r}")
    g = np.random.default_rng(seed)
    errors = []
    moments = adam_moments(net) if fit == "adam" else ()
    step = np.zeros(2, dtype=np.int64)
    for e in range(epochs):
        order = g.permutation(n).astype(np.int64)
        if fit == "adam":
            rate = adam_rate(alpha, e, epochs)
            errors.append(
                fit_positions_adam(net, rows, targets, n, order, ADAM_BATCH, rate, moments, step)
            )
        else:
            errors.append(fit_positions(net, rows, targets, n, order, alpha, race_alpha))
    return errors


def distill_round(
    net: Sequence[np.ndarray],
    rng: npt.NDArray[np.int64],
    n_games: int,
    alt: float,
    epochs: int,
    alpha: float,
    race_alpha: float,
    cap: int,
    seed: int | None,
    fit: str = "sgd",
    plies: int = 1,
    prune: int = 0,
    prune_net: Sequence[np.ndarray] = (),
    log: Callable[[str], object] | None = None,
) -> tuple[int, list[float]]:
    """One round in place on the model tuple net: round_targets (positions of n_games, at most
    cap, their targets at plies under a frozen copy of net, pruned by prune and prune_net), then
    fit_round (epochs passes of fit at alpha and race_alpha, orders from seed) -> (positions,
    [mse before each epoch])."""
    if fit not in FITS:
        raise ValueError(f"fit must be one of {FITS}, got {fit!r}")
    rows, targets, n = round_targets(net, rng, n_games, alt, cap, plies, prune, prune_net, log)
    return n, fit_round(net, rows, targets, n, epochs, alpha, race_alpha, seed, fit)


def adam_rate(alpha: float, epoch: int, epochs: int) -> float:
    """The Adam fit's rate at pass epoch (0-based) of epochs: alpha (1 + cos(pi epoch /
    epochs)) / 2, from alpha at the first pass towards 0."""
    return alpha * 0.5 * (1.0 + math.cos(math.pi * epoch / epochs))
