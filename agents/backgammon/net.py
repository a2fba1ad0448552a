"""TD-Gammon style afterstate value network for backgammon: encoding, forward, gradient, the
model tuple, greedy matches against the in-kernel players.

Everything here is a Numba kernel over NumPy arrays (no torch: for a 196-input, one-hidden-layer
net with sparse inputs, plain loops win). The network of Tesauro's TD-Gammon (Tesauro 1995,
"Temporal difference learning and TD-Gammon", CACM 38(3)):

Input (``N_INPUTS`` = 196 floats, ``encode_sparse``) of an afterstate s seen by the player who
just moved (the mover's view, before the turn passes, as ``game.afterstates`` writes it):
    [0, 96)    own checkers on own points 1..24, four units per point: n >= 1, n >= 2, n >= 3,
               (n - 3) / 2 when n > 3
    [96, 192)  opponent checkers on the same points (mover's numbering), same units
    192, 193   own / opponent checkers on the bar, / 2
    194, 195   own / opponent checkers borne off, / 15
The opponent is on roll next, so no side-to-move unit is needed.

Net: ``h = sigmoid(x @ W1 + b1)`` (W1 float64[196, H]), ``y = sigmoid(h @ W2 + b2)``
(W2 float64[H, 5]). Outputs, from the mover's view (cumulative, as in GNU Backgammon):
``y[WIN]`` P(win), ``y[WIN_G]`` P(win a gammon or more), ``y[WIN_BG]`` P(win a backgammon),
``y[LOSE_G]`` P(lose a gammon or more), ``y[LOSE_BG]`` P(lose a backgammon). Cubeless money
equity ``= 2 y[WIN] - 1 + y[WIN_G] + y[WIN_BG] - y[LOSE_G] - y[LOSE_BG]`` (``equity``).

The model tuple (``MODEL_LEN`` arrays, one fixed layout; see "the model tuple" below) carries
either that net (``as_model``; evaluated exactly as above) or the gnubg-style model
(``init_model``): a contact net on the raw board plus the hand-crafted inputs of
agents/backgammon/features.py (about 128 hidden units), a race net used once contact is broken,
and the exact one-sided bear-off database of agents/backgammon/bearoff.py when both sides bear
off. ``evaluate_rows(net, rows, n, ys)`` and ``equity(y)`` are the entry points for every model;
``add_grad`` is the gradient of a net's outputs, through which every model trains (the TD
self-play of agents/backgammon/td.py, the distillation of agents/backgammon/distill.py).
``play_match`` plays a model greedily against the in-kernel players.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit, types
from numba.extending import overload

from boardgym.agents.backgammon import bearoff as bg_bearoff
from boardgym.agents.backgammon.bearoff import bearoff_outputs
from boardgym.agents.backgammon.features import (
    N_CONTACT,
    N_RACE,
    SCRATCH_LEN,
    contact_features,
    in_bearoff,
    is_contact,
    race_features,
)
from boardgym.kernels.backgammon.board import (
    BAR_ME,
    BAR_OPP,
    ME,
    OFF_ME,
    OFF_OPP,
    OPP,
    STATE_LEN,
    TURN,
)
from boardgym.kernels.backgammon.codec import N_ACTIONS
from boardgym.kernels.backgammon.game import (
    MAX_AFTERSTATES,
    ROLLED,
    SCORING_GAMMON,
    afterstates,
    finish_turn,
    no_passes,
    result,
    start,
)
from boardgym.kernels.backgammon.opponents import greedy_pick, random_turn
from boardgym.kernels.backgammon.outcome import outcome
from boardgym.kernels.players import OPP_GREEDY, OPP_NET, OPP_RANDOM  # noqa: F401 (OPP_NET: play_match)

N_INPUTS = 196
N_OUT = 5
WIN, WIN_G, WIN_BG, LOSE_G, LOSE_BG = 0, 1, 2, 3, 4
MAX_NNZ = 112  # 24 points x 2 sides x at most 2 units set + 4 scalars, with room
# the outputs seen from the other player: index m of the turned-round vector is net output PERM[m]
PERM = np.array([WIN, LOSE_G, LOSE_BG, WIN_G, WIN_BG], dtype=np.int64)

# play_match opponents: OPP_RANDOM, OPP_GREEDY, OPP_NET of boardgym.kernels.players


def init_params(
    hidden: int, seed: int | None, scale: float = 0.1
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fresh weights (W1 float64[196, H], b1 [H], W2 [H, 5], b2 [5]) from numpy's generator."""
    g = np.random.default_rng(seed)
    w1 = g.uniform(-scale, scale, (N_INPUTS, hidden))
    b1 = np.zeros(hidden)
    w2 = g.uniform(-scale, scale, (hidden, N_OUT))
    b2 = np.zeros(N_OUT)
    return w1, b1, w2, b2


# the units of a point holding n checkers (0..15): how many are set, and the four values
UNIT_COUNT = np.array([min(n, 3) + (n > 3) for n in range(16)], dtype=np.int64)
UNIT_VALUE = np.array(
    [[1.0 * (n > 0), 1.0 * (n > 1), 1.0 * (n > 2), max(n - 3, 0) / 2.0] for n in range(16)]
)


@njit(cache=True, inline="always")
def _units(idx, val, nnz, base, n):
    """The units of a point of n checkers from idx[nnz], val[nnz] (all four written, the unset
    ones overwritten by what follows) -> the new nnz."""
    for t in range(4):
        idx[nnz + t] = base + t
        val[nnz + t] = UNIT_VALUE[n, t]
    return nnz + UNIT_COUNT[n]


@njit(cache=True)
def encode_sparse(s, idx, val):
    """Nonzero inputs of afterstate s (int64[STATE_LEN], mover's view) -> nnz; idx int64,
    val float64 (at least MAX_NNZ long)."""
    nnz = 0
    for i in range(24):
        nnz = _units(idx, val, nnz, 4 * i, s[ME + i])
        nnz = _units(idx, val, nnz, 96 + 4 * i, s[OPP + i])
    if s[BAR_ME] > 0:
        idx[nnz] = 192
        val[nnz] = s[BAR_ME] / 2.0
        nnz += 1
    if s[BAR_OPP] > 0:
        idx[nnz] = 193
        val[nnz] = s[BAR_OPP] / 2.0
        nnz += 1
    if s[OFF_ME] > 0:
        idx[nnz] = 194
        val[nnz] = s[OFF_ME] / 15.0
        nnz += 1
    if s[OFF_OPP] > 0:
        idx[nnz] = 195
        val[nnz] = s[OFF_OPP] / 15.0
        nnz += 1
    return nnz


@njit(cache=True)
def encode_dense(s, x):
    """Dense inputs of afterstate s into x (float64[N_INPUTS])."""
    idx = np.empty(MAX_NNZ, dtype=np.int64)
    val = np.empty(MAX_NNZ)
    x[:] = 0.0
    nnz = encode_sparse(s, idx, val)
    for k in range(nnz):
        x[idx[k]] = val[k]


@njit(cache=True, inline="always")
def _hidden_sums(w1, b1, idx, val, nnz, h):
    """h = b1 + the rows of w1 at the sparse input (idx, val, nnz), in h's type."""
    nh = b1.shape[0]
    for j in range(nh):
        h[j] = b1[j]
    for k in range(nnz):
        i = idx[k]
        v = val[k]
        for j in range(nh):
            h[j] += v * w1[i, j]


@njit(cache=True, inline="always")
def _outputs(w2, b2, h, y):
    """y (float64[5]) = sigmoid(b2 + h @ w2), summed in float64 along w2's rows (the five sums in
    registers, each in the order of h)."""
    a0, a1, a2, a3, a4 = b2[0], b2[1], b2[2], b2[3], b2[4]
    for j in range(w2.shape[0]):
        hj = np.float64(h[j])
        a0 += hj * w2[j, 0]
        a1 += hj * w2[j, 1]
        a2 += hj * w2[j, 2]
        a3 += hj * w2[j, 3]
        a4 += hj * w2[j, 4]
    y[0] = 1.0 / (1.0 + np.exp(-a0))
    y[1] = 1.0 / (1.0 + np.exp(-a1))
    y[2] = 1.0 / (1.0 + np.exp(-a2))
    y[3] = 1.0 / (1.0 + np.exp(-a3))
    y[4] = 1.0 / (1.0 + np.exp(-a4))


_EXP_TAYLOR = (1 / 5040, 1 / 720, 1 / 120, 1 / 24, 1 / 6, 1 / 2, 1.0, 1.0)


@njit(cache=True, inline="always", error_model="numpy")
def _sigmoid(x):
    """1 / (1 + exp(-x)) for float64 x by arithmetic that vectorises (np.exp does not): exp(-x)
    as (Taylor series of exp(-x/256) to degree 8)^256, x clamped to [-40, 40]; within 2e-14
    of the formula."""
    t = min(max(-x, -40.0), 40.0) * (1.0 / 256.0)
    e = 1.0 / 40320.0
    for c in _EXP_TAYLOR:
        e = c + t * e
    for _ in range(8):
        e = e * e
    return 1.0 / (1.0 + e)


def _activate(h, nh):
    """Stub: the sigmoid of h[:nh] in place, by h's type (``_ov_activate``)."""


@overload(_activate, inline="always", jit_options={"cache": True})
def _ov_activate(h, nh):
    if h.dtype == types.float32:

        def impl32(h, nh):
            for j in range(nh):
                h[j] = _sigmoid(np.float64(h[j]))

        return impl32

    def impl(h, nh):
        for j in range(nh):
            h[j] = 1.0 / (1.0 + np.exp(-h[j]))

    return impl


@njit(cache=True, fastmath=True, error_model="numpy")
def forward_sparse(w1, b1, w2, b2, idx, val, nnz, h, y):
    """h and y (float64[5]) of the sparse input (idx, val, nnz). w1, b1, val and h are all
    float64 or, for a play model (``as_play``), all float32: then the hidden units' sums run in
    float32 (eight to an AVX2 instruction) and their sigmoids by ``_sigmoid``, which vectorises;
    w2, b2 and y are float64, the outputs summed in float64 either way."""
    _hidden_sums(w1, b1, idx, val, nnz, h)
    _activate(h, b1.shape[0])
    _outputs(w2, b2, h, y)


@njit(cache=True)
def forward_dense(w1, b1, w2, b2, x):
    """Outputs y (float64[5]) of a dense input x (float64[N_INPUTS]); for tests."""
    h = b1.copy()
    for i in range(x.shape[0]):
        if x[i] != 0.0:
            for j in range(h.shape[0]):
                h[j] += x[i] * w1[i, j]
    h = 1.0 / (1.0 + np.exp(-h))
    a = b2 + h @ w2
    return 1.0 / (1.0 + np.exp(-a))


@njit(cache=True, inline="always")
def equity(y):
    """Cubeless money equity for the mover of the outputs y (float64[5])."""
    return 2.0 * y[WIN] - 1.0 + y[WIN_G] + y[WIN_BG] - y[LOSE_G] - y[LOSE_BG]


def _evaluate_rows(net, rows, n, ys):
    """Stub: the implementation is chosen by the tuple's length (``_ov_evaluate_rows``)."""


@overload(_evaluate_rows, jit_options={"cache": True})
def _ov_evaluate_rows(net, rows, n, ys):
    if len(net.types) == 4:

        def impl(net, rows, n, ys):
            w1, b1, w2, b2 = net[0], net[1], net[2], net[3]
            idx = np.empty(MAX_NNZ, dtype=np.int64)
            val = np.empty(MAX_NNZ)
            h = np.empty(b1.shape[0])
            for r in range(n):
                nnz = encode_sparse(rows[r], idx, val)
                forward_sparse(w1, b1, w2, b2, idx, val, nnz, h, ys[r])

        return impl
    if len(net.types) == MODEL_LEN:

        def impl(net, rows, n, ys):
            b = model_buffers(net)
            for r in range(n):
                model_eval(net, rows[r], b[0], b[1], b[2], b[3], b[4], ys[r])

        return impl
    return None


@njit(cache=True)
def evaluate_rows(net, rows, n, ys):
    """Outputs of the first n afterstates rows (int64[N, STATE_LEN], mover's view) into ys
    (float64[n, 5]) under net: a model tuple (``MODEL_LEN`` arrays, ``init_model`` /
    ``as_model``) or the bare Tesauro net ``(w1, b1, w2, b2)``.

    This is the one evaluation entry point of a backgammon model: searches and judges take the
    model as one tuple and call this, so the model may grow (more arrays in the tuple) without
    touching them."""
    _evaluate_rows(net, rows, n, ys)


# ----------------------------------------------------------------------------- the model tuple
#
# One fixed layout for every model, so the kernels taking it compile once:
#   (hdr float64[HDR_LEN], w1, b1, w2, b2, rw1, rb1, rw2, rb2, bearoff float64[P, W],
#    pw1, pb1, pw2, pb2)
# hdr[H_KIND]: KIND_TESAURO (w1 [196, H]: the raw board only; the race net and the bear-off
# table are empty and unused: exactly the net of encode_sparse/forward_sparse) or KIND_GNUBG (w1
# [196 + N_CONTACT, H]: raw board + bg_features.contact_features; rw1 [196 + N_RACE, HR]: the
# race net on raw board + bg_features.race_features, used once contact is broken (HR = 0: none);
# bearoff: bg_bearoff's table, used when both sides are in the bear-off ((0, 0): none); outputs
# obey the hard constraints: a side that has borne a checker off loses no gammon (O.3), a
# finished game is its exact result). pw1 [196, HP], pb1 [HP], pw2 [HP, 5], pb2 [5]: the pruning
# net (HP = 0: none), a small net on the raw board alone (encode_sparse) that the search uses to
# pick the few plays of a roll the model values (agents/backgammon/search.py ``prune``); it
# plays no part in evaluate_rows or model_eval, and training leaves it out (``without_prune``).

MODEL_LEN = 14
I_TABLE = 9  # the bear-off table's place in the model tuple
I_PRUNE = 10  # the pruning net's first array (pw1, pb1, pw2, pb2 follow)
HDR_LEN = 4
H_KIND = 0
KIND_TESAURO = 0
KIND_GNUBG = 1
N_GNUBG_INPUTS = N_INPUTS + N_CONTACT
N_RACE_INPUTS = N_INPUTS + N_RACE
MAX_NNZ_MODEL = MAX_NNZ + N_CONTACT
# what model_eval used for an afterstate
EV_EXACT, EV_CONTACT, EV_RACE = 0, 1, 2


def init_model(
    hidden: int,
    seed: int | None,
    scale: float = 0.1,
    race_hidden: int = 0,
    kind: int = KIND_GNUBG,
    bearoff: bool = True,
) -> tuple[np.ndarray, ...]:
    """A fresh model tuple (float64 arrays, the layout above): the contact net of `hidden` units
    (gnubg inputs for KIND_GNUBG), a race net of `race_hidden` units (0: none), the bear-off
    table of bg_bearoff when `bearoff` (KIND_GNUBG only)."""
    g = np.random.default_rng(seed)
    ni = N_INPUTS if kind == KIND_TESAURO else N_GNUBG_INPUTS
    hdr = np.zeros(HDR_LEN)
    hdr[H_KIND] = kind
    w1 = g.uniform(-scale, scale, (ni, hidden))
    w2 = g.uniform(-scale, scale, (hidden, N_OUT))
    rw1 = g.uniform(-scale, scale, (N_RACE_INPUTS, race_hidden))
    rw2 = g.uniform(-scale, scale, (race_hidden, N_OUT))
    table = bg_bearoff.table() if (bearoff and kind == KIND_GNUBG) else np.zeros((0, 0))
    return (
        hdr,
        w1,
        np.zeros(hidden),
        w2,
        np.zeros(N_OUT),
        rw1,
        np.zeros(race_hidden),
        rw2,
        np.zeros(N_OUT),
        table,
        *no_prune(),
    )


def no_prune() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The empty pruning net of a model tuple (pw1 [196, 0], pb1 [0], pw2 [0, 5], pb2 [5])."""
    return np.zeros((N_INPUTS, 0)), np.zeros(0), np.zeros((0, N_OUT)), np.zeros(N_OUT)


def without_prune(model: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """The model tuple with its pruning net left out (empty): what training starts from, as the
    pruning net is fitted to the finished model (agents/backgammon/prune.py)."""
    return (*model[:I_PRUNE], *no_prune())


def with_prune(model: Sequence[np.ndarray], prune: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """The model tuple with the pruning net prune (pw1, pb1, pw2, pb2) in place of its own."""
    return (*model[:I_PRUNE], *prune)


def as_play(model: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """The play model of a model tuple: the same tuple with the hidden layers' weights and biases
    (w1, b1, rw1, rb1) rounded to float32, so model_eval sums their hidden units in float32 (faster;
    outputs within about 1e-6 of the float64 model's). For play and evaluation only: training
    and save_weights take the float64 model."""
    m = list(model)
    for i in (1, 2, 5, 6):
        m[i] = np.ascontiguousarray(m[i], dtype=np.float32)
    return tuple(m)


def widen(
    model: Sequence[np.ndarray], hidden: int, seed: int | None, tilt: float = 0.1
) -> tuple[np.ndarray, ...]:
    """The model tuple with its contact (or only) net widened to ``hidden`` units, a whole
    multiple k of its own, computing the same outputs (to rounding): each hidden unit is repeated
    k times (the same input weights and bias) and its output weights are shared among the copies
    in parts (1 / k + d_j) w2, the d_j of a unit's copies summing to 0 (uniform within +-tilt
    from numpy's generator of seed, less their mean), so the copies' gradients differ and
    training parts them. New arrays for the contact net; the others are the model's own.
    ValueError unless hidden is a positive multiple of the net's units."""
    w1, b1, w2, b2 = main_net(model)
    units = b1.shape[0]
    if isinstance(hidden, bool) or not isinstance(hidden, (int, np.integer)):
        raise TypeError(f"hidden must be an integer, got {hidden!r}")
    if units == 0 or hidden < units or hidden % units != 0:
        raise ValueError(
            f"hidden must be a whole multiple of the net's {units} units, got {hidden}"
        )
    if not (np.isfinite(tilt) and 0.0 <= tilt):
        raise ValueError(f"tilt must be finite and >= 0, got {tilt!r}")
    k = hidden // units
    d = np.random.default_rng(seed).uniform(-tilt, tilt, (k, units, 1))
    share = 1.0 / k + d - d.mean(axis=0)
    return (
        model[0],
        np.ascontiguousarray(np.tile(w1, (1, k)), dtype=w1.dtype),
        np.ascontiguousarray(np.tile(b1, k), dtype=b1.dtype),
        np.ascontiguousarray((share * w2).reshape(hidden, N_OUT), dtype=w2.dtype),
        b2.copy(),
        *model[5:],
    )


def as_model(params: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """The model tuple of a bare Tesauro net (w1, b1, w2, b2) (the same arrays, no copy)."""
    w1, b1, w2, b2 = params
    hdr = np.zeros(HDR_LEN)
    hdr[H_KIND] = KIND_TESAURO
    return (
        hdr,
        w1,
        b1,
        w2,
        b2,
        np.zeros((N_RACE_INPUTS, 0)),
        np.zeros(0),
        np.zeros((0, N_OUT)),
        np.zeros(N_OUT),
        np.zeros((0, 0)),
        *no_prune(),
    )


def main_net(model: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(w1, b1, w2, b2) of the contact (or only) net of a model tuple."""
    return model[1], model[2], model[3], model[4]


@njit(cache=True)
def model_buffers(net):  # noqa: N802 (a constructor-like helper)
    """Scratch buffers of model_eval: (idx, val, h, feat, scratch); val and h of the hidden
    layer's type (float32 for a play model, ``as_play``)."""
    nh = net[2].shape[0]
    if net[6].shape[0] > nh:
        nh = net[6].shape[0]
    return (
        np.empty(MAX_NNZ_MODEL, dtype=np.int64),
        np.empty(MAX_NNZ_MODEL, dtype=net[2].dtype),
        np.empty(nh, dtype=net[2].dtype),
        np.empty(N_CONTACT),
        np.empty(SCRATCH_LEN, dtype=np.int64),
    )


@njit(cache=True)
def encode_model(s, idx, val, feat, scratch, race):
    """Sparse inputs of afterstate s for the gnubg contact net (race False: raw board + contact
    features at N_INPUTS + k) or the race net (race True: raw board + race features) -> nnz."""
    nnz = encode_sparse(s, idx, val)
    if race:
        race_features(s, feat, scratch)
        nf = N_RACE
    else:
        contact_features(s, feat, scratch)
        nf = N_CONTACT
    for k in range(nf):
        if feat[k] != 0.0:
            idx[nnz] = N_INPUTS + k
            val[nnz] = feat[k]
            nnz += 1
    return nnz


@njit(cache=True, inline="always")
def _constrain(s, y):
    """The hard constraints of the outputs (cumulative order; a side that has borne a checker
    off loses no gammon, O.3)."""
    if s[OFF_OPP] > 0:
        y[WIN_G] = 0.0
        y[WIN_BG] = 0.0
    if s[OFF_ME] > 0:
        y[LOSE_G] = 0.0
        y[LOSE_BG] = 0.0
    if y[WIN_G] > y[WIN]:
        y[WIN_G] = y[WIN]
    if y[WIN_BG] > y[WIN_G]:
        y[WIN_BG] = y[WIN_G]
    if y[LOSE_G] > 1.0 - y[WIN]:
        y[LOSE_G] = 1.0 - y[WIN]
    if y[LOSE_BG] > y[LOSE_G]:
        y[LOSE_BG] = y[LOSE_G]


@njit(cache=True)
def model_eval(net, s, idx, val, h, feat, scratch, y):
    """Outputs y (float64[5]) of afterstate s under the model tuple net -> (EV_* used, nnz): the
    sparse input (idx, val, nnz) and hidden layer h are left for the gradient of that net."""
    w1, b1, w2, b2 = net[1], net[2], net[3], net[4]
    if net[0][H_KIND] == KIND_TESAURO:
        nnz = encode_sparse(s, idx, val)
        forward_sparse(w1, b1, w2, b2, idx, val, nnz, h, y)
        return EV_CONTACT, nnz
    if s[OFF_ME] == 15:
        winner, kind = outcome(s)
        y[WIN] = 1.0
        y[WIN_G] = 1.0 if kind >= 2 else 0.0
        y[WIN_BG] = 1.0 if kind >= 3 else 0.0
        y[LOSE_G] = 0.0
        y[LOSE_BG] = 0.0
        return EV_EXACT, 0
    table = net[9]  # net[I_TABLE]
    if table.shape[0] > 0 and in_bearoff(s):
        bearoff_outputs(table, s, y)
        return EV_EXACT, 0
    rb1 = net[6]
    if rb1.shape[0] > 0 and not is_contact(s):
        nnz = encode_model(s, idx, val, feat, scratch, np.bool_(True))
        forward_sparse(net[5], rb1, net[7], net[8], idx, val, nnz, h, y)
        _constrain(s, y)
        return EV_RACE, nnz
    nnz = encode_model(s, idx, val, feat, scratch, np.bool_(False))
    forward_sparse(w1, b1, w2, b2, idx, val, nnz, h, y)
    _constrain(s, y)
    return EV_CONTACT, nnz


@njit(cache=True)
def prune_equities(net, rows, n, out, idx, val, h, y):
    """out[r] = equity of rows[r] (int64[N, STATE_LEN], mover's view) under the model tuple's
    pruning net (net[I_PRUNE:]; it must have units) for r < n; idx, val (MAX_NNZ), h (its
    units) and y (N_OUT): scratch."""
    pw1, pb1, pw2, pb2 = net[10], net[11], net[12], net[13]  # net[I_PRUNE:] (literal indices)
    for r in range(n):
        nnz = encode_sparse(rows[r], idx, val)
        forward_sparse(pw1, pb1, pw2, pb2, idx, val, nnz, h, y)
        out[r] = equity(y)


@njit(cache=True)
def add_grad(w2, h, y, idx, val, nnz, coef, g1, gb1, g2, gb2):
    """Add sum_o coef[o] * d y[o] / d params into (g1 [inputs, H], gb1 [H], g2 [H, 5], gb2 [5]);
    inputs is the net's input count (196 for the Tesauro net, more for the gnubg-style nets).

    h, y: the forward pass of the sparse input (idx, val, nnz) under weights whose W2 is w2.
    """
    nh = h.shape[0]
    back = np.empty(nh)
    dout = np.empty(N_OUT)
    for o in range(N_OUT):
        dout[o] = coef[o] * y[o] * (1.0 - y[o])
        gb2[o] += dout[o]
    for j in range(nh):
        a = 0.0
        for o in range(N_OUT):
            g2[j, o] += dout[o] * h[j]
            a += dout[o] * w2[j, o]
        back[j] = a * h[j] * (1.0 - h[j])
        gb1[j] += back[j]
    for k in range(nnz):
        i = idx[k]
        v = val[k]
        for j in range(nh):
            g1[i, j] += v * back[j]


@njit(cache=True)
def model_best_row(net, rows, n, b, y, best_y):
    """Index of the afterstate of highest equity among rows[:n] under the model tuple net; its
    outputs into best_y (b: model_buffers(net))."""
    best = 0
    best_e = -1e300
    for r in range(n):
        model_eval(net, rows[r], b[0], b[1], b[2], b[3], b[4], y)
        e = equity(y)
        if e > best_e:
            best_e = e
            best = r
            for o in range(N_OUT):
                best_y[o] = y[o]
    return best


@njit(cache=True)
def play_match(net, onet, opponent, rng, n_pairs, points):
    """The model tuple net (greedy over afterstates) vs opponent (OPP_RANDOM: random checker
    moves, OPP_GREEDY: the greedy player, both of kernels/backgammon/opponents.py; OPP_NET: the
    model onet) for n_pairs pairs of games; each pair replays one dice stream with net as player
    0, then as player 1 (the random player draws from a second stream). points
    (float64[2 * n_pairs]) receives net's points per game (gammons count). A bare Tesauro net is
    ``as_model((w1, b1, w2, b2))``."""
    rows = np.empty((MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    b = model_buffers(net)
    ob = model_buffers(onet)
    y = np.empty(N_OUT)
    by = np.empty(N_OUT)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    game_rng = np.empty(1, dtype=np.int64)
    pick_rng = np.empty(1, dtype=np.int64)
    passes = no_passes()
    for p in range(n_pairs):
        seed = rng[0]
        rng[0] += 1
        for seat in range(2):
            game_rng[0] = seed
            pick_rng[0] = ~seed
            state, status, rolls, _ = start(game_rng, np.int64(0), passes)
            while status == ROLLED:
                if state[TURN] != seat and opponent == OPP_RANDOM:
                    after = random_turn(state, pick_rng, np.int64(0), mask)
                else:
                    n = afterstates(state, rows)
                    if state[TURN] == seat:
                        r = model_best_row(net, rows, n, b, y, by)
                    elif opponent == OPP_GREEDY:
                        r = greedy_pick(rows, n)
                    else:
                        r = model_best_row(onet, rows, n, ob, y, by)
                    after = rows[r].copy()
                state, status, rolls, _ = finish_turn(after, game_rng, rolls, 0, passes)
            winner, kind, _ = result(state, SCORING_GAMMON)
            points[2 * p + seat] = kind if winner == seat else -kind
