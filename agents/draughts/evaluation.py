"""Russian draughts evaluation for the search agents: material/positional, or a learned network.

Scores are integers from the side to move's view (negamax), in hundredths of a man: a man is
``MAN`` = 100, a king ``KING`` = 300 (man 1, king 3), plus small positional terms that never add
up to a man: a man's advance (``ADVANCE`` per row beyond its third), men on the four central
squares c3..f6 (``CENTRE``), men still on the back row (``BACK_ROW``, keeps the opponent from
crowning), kings on the long diagonal a1-h8 (``LONG_DIAG``).

Learned evaluations read the 198-float observation of the side to move
(boardgym.kernels.draughts.observe.encode_obs, with no move cap) and are given to the kernel as
arrays, so one compiled search serves every network:
  ``EVAL_LINEAR``: score = scale * (w . x + b)  (``W1[0]``, ``b1[0]``; ``w2``, ``b2`` unused)
  ``EVAL_MLP``:    score = scale * (w2 . tanh(W1 x + b1) + b2)
  ``EVAL_MLP_FEATURES``: the same MLP over x followed by the ``N_FEATURES`` numbers of
  ``eval_features`` (``FEATURE_NAMES``): what a one-layer net finds hard to see in single
  squares (how many moves each side has, pieces the opponent can take, men no enemy piece can
  stop, how the men are spread). They are functions of the four piece planes of x, so the
  training data (observations) need nothing new: ``features_of_obs`` computes them from x.
Any learned kind may add **pattern tables** (``Evaluation.patterns``, as in pattern-based
draughts engines): the board's 25 windows of 4x4 squares (``WINDOW_SQUARES``: 8 dark squares
each, all placements of a 4x4 square on the 8x8 board) are each read as a number in base 3, one
digit per square in increasing observation order (0 empty, 1 a piece of the side to move, 2 an
opponent's piece; men and kings alike), most significant first, and table k's entry at window
k's number is added to the network's output before ``scale``:
  score = scale * (network output + sum_k patterns[k, index_k])
``pattern_indices`` computes the 25 numbers from a position, ``pattern_indices_of_obs`` from
stored observations; ``boardgym train-eval --patterns`` fits the tables to what the network leaves
unexplained.
``Evaluation`` bundles the kind and arrays; ``Evaluation.load``/``save`` use ``.npz`` files.

The functions compiled with ``_nrt=False`` allocate nothing and so skip Numba's reference
counting: the draughts search calls them at every node (agents/draughts/search.py).
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.kernels.bits import lsb, msb, pop_lsb, popcount
from boardgym.kernels.draughts.board import (
    BB_LONG_DIAG,
    BB_ROW,
    BB_SQUARES,
    GHOST_FILE,
    GHOST_ROW,
    GHOST_TO_SQ32,
    N_BITS,
    N_SQUARES,
    S_BK,
    S_BM,
    S_SIDE,
    S_WK,
    S_WM,
    SQ32_TO_GHOST,
)
from boardgym.kernels.draughts.movegen import shift
from boardgym.kernels.draughts.observe import (
    N_PLANES,
    N_STATE_SCALARS,
    OBS_KINGS_ONLY,
    OBS_LEN,
    OBS_TO_MOVE,
    PLANE_OPP_KINGS,
    PLANE_OPP_MEN,
    PLANE_OWN_KINGS,
    PLANE_OWN_MEN,
    obs_bitboards,
    obs_plane_bitboard,
    obs_scalars,
)

EVAL_MATERIAL, EVAL_LINEAR, EVAL_MLP, EVAL_MLP_FEATURES = 0, 1, 2, 3
EVAL_NAMES = {
    "material": EVAL_MATERIAL,
    "linear": EVAL_LINEAR,
    "mlp": EVAL_MLP,
    "mlp-features": EVAL_MLP_FEATURES,
}

MAN = 100
KING = 300
ADVANCE = 2
CENTRE = 4
BACK_ROW = 3
LONG_DIAG = 8
SCORE_LIMIT = 50_000  # learned scores are clipped to +-this (far below the search's win scores)
#: most hidden units a network may have (the search's hidden-layer scratch holds this many)
HIDDEN_MAX = 4096

# Positional tables, indexed by ghost square, from White's side; Black reads square 35 - g.
_adv = np.zeros(N_BITS, dtype=np.int64)
_centre = np.int64(0)
for _g in range(N_BITS):
    if GHOST_ROW[_g] >= 0:
        _adv[_g] = ADVANCE * max(0, GHOST_ROW[_g] - 2)
        if 2 <= GHOST_ROW[_g] <= 5 and 2 <= GHOST_FILE[_g] <= 5:
            _centre |= np.int64(1) << np.int64(_g)
MAN_ADVANCE = _adv
BB_CENTRE = _centre

# eval_features: the side to move's view ("own"), each scaled to about 0..1 as the network reads
# it (FEATURE_SCALES divide the counts)
FEATURE_NAMES = (
    "own men's moves",
    "opponent men's moves",
    "own kings' moves",
    "opponent kings' moves",
    "own pieces en prise",
    "own runaway men",
    "own most advanced runaway",
    "opponent runaway men",
    "opponent most advanced runaway",
    "own men's left-right imbalance",
    "opponent men's left-right imbalance",
)
N_FEATURES = len(FEATURE_NAMES)
FEATURE_SCALES = np.array([10.0, 10.0, 20.0, 20.0, 2.0, 2.0, 8.0, 2.0, 8.0, 4.0, 4.0])
N_INPUTS_FEATURES = OBS_LEN + N_FEATURES
# CONE[0, g]: the squares a White man on g must pass or could be stopped from (every square
# ahead of it within the widening diagonal cone: rows above, |file - f| <= rows ahead);
# CONE[1, g] the same for a Black man (rows below). BB_WEST: files a-d.
_cone = np.zeros((2, N_BITS), dtype=np.int64)
_west = np.int64(0)
for _g in range(N_BITS):
    if GHOST_ROW[_g] < 0:
        continue
    if GHOST_FILE[_g] < 4:
        _west |= np.int64(1) << np.int64(_g)
    for _h in range(N_BITS):
        if GHOST_ROW[_h] < 0:
            continue
        _dr = GHOST_ROW[_h] - GHOST_ROW[_g]
        if abs(GHOST_FILE[_h] - GHOST_FILE[_g]) <= abs(_dr):
            if _dr > 0:
                _cone[0, _g] |= np.int64(1) << np.int64(_h)
            elif _dr < 0:
                _cone[1, _g] |= np.int64(1) << np.int64(_h)
CONE = _cone
BB_WEST = _west

# Pattern windows: every 4x4 square of the board (rows r0..r0+3, files f0..f0+3, r0, f0 in 0..4),
# window k = 5 * r0 + f0, by its 8 dark squares in the observer's frame (sq32 numbering, a1 = 0:
# row r, the j-th dark square of the row at file 2j + r % 2), increasing: two in each of its
# rows. The kernels read a row's 4 squares as a base-3 number (ROW_GHOST[side, r, j]: the board
# bit of row r's j-th square seen by side: White as is, Black turned 180 degrees, as the
# observation turns it), take the two digits of a window's columns from it (ROW_PAIR[r % 2, f0,
# row number]), and join a window's four pairs, most significant first.
PATTERN_DIGITS = 3  # per square: empty, a piece of the side to move, an opponent's piece
_windows = []
for _r0 in range(5):
    for _f0 in range(5):
        _windows.append(
            [
                4 * _r + _j
                for _r in range(_r0, _r0 + 4)
                for _j in range(4)
                if _f0 <= 2 * _j + _r % 2 < _f0 + 4
            ]
        )
WINDOW_SQUARES = np.array(_windows, dtype=np.int64)
N_WINDOWS, WINDOW_LEN = WINDOW_SQUARES.shape
PATTERN_ENTRIES = PATTERN_DIGITS**WINDOW_LEN
_rows = np.arange(N_SQUARES, dtype=np.int64).reshape(8, 4)
ROW_GHOST = np.stack([SQ32_TO_GHOST[_rows], SQ32_TO_GHOST[N_SQUARES - 1 - _rows]]).astype(np.int64)
_pair = np.zeros((2, 5, 81), dtype=np.int64)
for _parity in range(2):
    for _f0 in range(5):
        _js = [_j for _j in range(4) if _f0 <= 2 * _j + _parity < _f0 + 4]
        for _code in range(81):
            _digits = [(_code // 3 ** (3 - _j)) % 3 for _j in range(4)]
            _pair[_parity, _f0, _code] = 3 * _digits[_js[0]] + _digits[_js[1]]
ROW_PAIR = _pair


@njit(cache=True, inline="always")
def _side_terms(men, kings, flip):
    v = MAN * popcount(men) + KING * popcount(kings)
    v += CENTRE * popcount(men & BB_CENTRE)
    v += BACK_ROW * popcount(men & BB_ROW[7 if flip else 0])
    v += LONG_DIAG * popcount(kings & BB_LONG_DIAG)
    x = men
    while x != 0:
        g = lsb(x)
        x = pop_lsb(x)
        v += MAN_ADVANCE[35 - g if flip else g]
    return v


@njit(cache=True, _nrt=False)
def material_eval(state):
    """Material (man 100, king 300) plus positional terms, from the side to move's view."""
    w = _side_terms(state[S_WM], state[S_WK], False)
    b = _side_terms(state[S_BM], state[S_BK], True)
    return w - b if state[S_SIDE] == 0 else b - w


@njit(cache=True, inline="always")
def _slides(kings, empty, o):
    """Squares reachable by the kings sliding in direction o over empty squares, summed."""
    n = 0
    x = shift(kings, o) & empty
    while x != 0:
        n += popcount(x)
        x = shift(x, o) & empty
    return n


@njit(cache=True, inline="always")
def _runaways(men, enemies, up):
    """(count, most advanced as 8 - rows to go, 0 if none) of the men (moving up when up)
    whose cone (CONE) holds no enemy piece."""
    count = 0
    best = 0
    x = men
    cone = CONE[0] if up else CONE[1]
    while x != 0:
        g = lsb(x)
        x = pop_lsb(x)
        if cone[g] & enemies == 0:
            count += 1
            togo = 7 - GHOST_ROW[g] if up else GHOST_ROW[g]
            best = max(best, 8 - togo)
    return count, best


@njit(cache=True)
def eval_features(own_m, own_k, opp_m, opp_k, up):
    """The N_FEATURES numbers (float64, scaled by FEATURE_SCALES) of a position seen by the
    side to move ("own"), whose men move up the board when up (White) and down otherwise:
    the moves of own and opponent men and kings (counted as target squares), own pieces the
    opponent could take at once if it were to move (first hop: a man next to them or a king
    on a free diagonal, the square behind them empty), runaway men of each side (no enemy
    piece in the cone ahead: their number and how far the most advanced one is) and each
    side's men on files a-d less those on e-h, in absolute value. Turning the board 180 degrees
    (and swapping up) leaves every number unchanged, so a side's view and its observation
    (always moving up) give the same features."""
    occ = own_m | own_k | opp_m | opp_k
    empty = BB_SQUARES & ~occ
    fwd_l, fwd_r = (4, 5) if up else (-4, -5)
    own_men_moves = popcount(shift(own_m, fwd_l) & empty) + popcount(shift(own_m, fwd_r) & empty)
    opp_men_moves = popcount(shift(opp_m, -fwd_l) & empty) + popcount(shift(opp_m, -fwd_r) & empty)
    own_king_moves = 0
    opp_king_moves = 0
    prise = np.int64(0)
    own = own_m | own_k
    for o in (4, 5, -4, -5):  # shift leaves bits off the board: each use is masked below
        if own_k != 0:
            own_king_moves += _slides(own_k, empty, o)
        if opp_k != 0:
            opp_king_moves += _slides(opp_k, empty, o)
        land = shift(empty, -o)  # squares whose neighbour in direction o is empty
        prise |= own & shift(opp_m, o) & land
        ray = shift(opp_k, o)
        while ray != 0:
            prise |= ray & own & land
            ray = shift(ray & empty, o)
    own_run, own_best = _runaways(own_m, opp_m | opp_k, up)
    opp_run, opp_best = _runaways(opp_m, own, not up)
    own_bal = abs(2 * popcount(own_m & BB_WEST) - popcount(own_m))
    opp_bal = abs(2 * popcount(opp_m & BB_WEST) - popcount(opp_m))
    return (
        own_men_moves / FEATURE_SCALES[0],
        opp_men_moves / FEATURE_SCALES[1],
        own_king_moves / FEATURE_SCALES[2],
        opp_king_moves / FEATURE_SCALES[3],
        popcount(prise) / FEATURE_SCALES[4],
        own_run / FEATURE_SCALES[5],
        own_best / FEATURE_SCALES[6],
        opp_run / FEATURE_SCALES[7],
        opp_best / FEATURE_SCALES[8],
        own_bal / FEATURE_SCALES[9],
        opp_bal / FEATURE_SCALES[10],
    )


@njit(cache=True, inline="always")
def side_features(state):
    """eval_features of state from the side to move's view (what EVAL_MLP_FEATURES reads)."""
    side = state[S_SIDE]
    planes = obs_bitboards(state, side)
    return eval_features(planes[0], planes[1], planes[2], planes[3], side == 0)


@njit(cache=True)
def features_of_obs(x, out):
    """out[i] (float32[N_FEATURES]) = eval_features of observation x[i] (float[n, OBS_LEN]): the
    observer moves up in its own frame. The network's extra inputs for training data."""
    for i in range(x.shape[0]):
        f = eval_features(
            obs_plane_bitboard(x[i], PLANE_OWN_MEN),
            obs_plane_bitboard(x[i], PLANE_OWN_KINGS),
            obs_plane_bitboard(x[i], PLANE_OPP_MEN),
            obs_plane_bitboard(x[i], PLANE_OPP_KINGS),
            np.bool_(True),
        )
        for k in range(N_FEATURES):
            out[i, k] = f[k]


@njit(cache=True, inline="always")
def _row_code(own, opp, side, r):
    """Row r's 4 squares (observer's frame) as a base-3 number, the first most significant."""
    c = np.int64(0)
    for j in range(4):
        g = ROW_GHOST[side, r, j]
        c = c * PATTERN_DIGITS + ((own >> g) & 1) + 2 * ((opp >> g) & 1)
    return c


@njit(cache=True, inline="always")
def _add_patterns(y, pt, own, opp, side):
    """y plus pt[k, window k's number] for k = 0, 1, ... (N_WINDOWS tables), added one by one:
    own/opp the bitboards of the side to move's and the opponent's pieces, side the side to
    move. Each row is read once: c0..c3 hold the codes of rows r0..r0+3."""
    c0 = _row_code(own, opp, side, 0)
    c1 = _row_code(own, opp, side, 1)
    c2 = _row_code(own, opp, side, 2)
    c3 = _row_code(own, opp, side, 3)
    for r0 in range(5):
        if r0 > 0:
            c0, c1, c2, c3 = c1, c2, c3, _row_code(own, opp, side, r0 + 3)
        p = r0 % 2
        for f0 in range(5):
            idx = (
                (ROW_PAIR[p, f0, c0] * 9 + ROW_PAIR[1 - p, f0, c1]) * 9 + ROW_PAIR[p, f0, c2]
            ) * 9 + ROW_PAIR[1 - p, f0, c3]
            y += pt[5 * r0 + f0, idx]
    return y


@njit(cache=True, inline="always")
def _window_numbers(own, opp, side, out):
    """out[k] = window k's number, square by square (_add_patterns reads the same numbers
    row by row)."""
    for k in range(N_WINDOWS):
        idx = np.int64(0)
        for i in range(WINDOW_LEN):
            q = WINDOW_SQUARES[k, i]
            g = ROW_GHOST[side, q // 4, q % 4]
            idx = idx * PATTERN_DIGITS + ((own >> g) & 1) + 2 * ((opp >> g) & 1)
        out[k] = idx


@njit(cache=True)
def pattern_indices(state, out):
    """out[k] (int64[N_WINDOWS]) = window k's number in state, from the side to move's view."""
    side = state[S_SIDE]
    if side == 0:
        own, opp = state[S_WM] | state[S_WK], state[S_BM] | state[S_BK]
    else:
        own, opp = state[S_BM] | state[S_BK], state[S_WM] | state[S_WK]
    _window_numbers(own, opp, side, out)


@njit(cache=True)
def pattern_indices_of_obs(x, out):
    """out[i, k] (int64[n, N_WINDOWS]) = window k's number in observation x[i] (float32[n,
    OBS_LEN], any observer): the same numbers as pattern_indices of the observer's position."""
    for i in range(x.shape[0]):
        own = obs_plane_bitboard(x[i], PLANE_OWN_MEN) | obs_plane_bitboard(x[i], PLANE_OWN_KINGS)
        opp = obs_plane_bitboard(x[i], PLANE_OPP_MEN) | obs_plane_bitboard(x[i], PLANE_OPP_KINGS)
        _window_numbers(own, opp, 0, out[i])


@njit(cache=True, inline="always")
def _add_plane(z, w1t, bb, base, side, n_hidden):
    """z += the rows of w1t of plane ``base``'s inputs set by bitboard bb, seen by side, in
    increasing input order (White: lowest bit first; Black, turned 180 degrees: highest first)."""
    while bb != 0:
        if side == 0:
            g = lsb(bb)
            row = base + GHOST_TO_SQ32[g]
        else:
            g = msb(bb)
            row = base + N_SQUARES - 1 - GHOST_TO_SQ32[g]
        bb ^= np.int64(1) << g
        for h in range(n_hidden):
            z[h] += w1t[row, h]


@njit(cache=True, inline="always")
def _add_input(z, w1t, row, x, n_hidden):
    if x != 0.0:
        for h in range(n_hidden):
            z[h] += w1t[row, h] * x


# _tanh's constants, float32 so that its arithmetic stays in float32
_T_LIMIT = np.float32(9.0)  # tanh(9) rounds to 1 in float32
_T_STEP = np.float32(2.0 / 64.0)
_T_ONE = np.float32(1.0)
_T_C2, _T_C3, _T_C4, _T_C5, _T_C6, _T_C7 = (
    np.float32(1.0 / 2),
    np.float32(1.0 / 6),
    np.float32(1.0 / 24),
    np.float32(1.0 / 120),
    np.float32(1.0 / 720),
    np.float32(1.0 / 5040),
)


@njit(cache=True, inline="always")
def _tanh(x):
    """tanh(x) of a float32, in float32 arithmetic only (no call, so that a loop of these
    vectorises, eight at a time): within 4e-6 of tanh, exactly odd, exactly +-1 from +-9 on.
    exp(2|x|) = exp(2|x| / 64) ** 64, the first by its Taylor series to degree 7 (the argument
    is at most 0.28), then squared 6 times; tanh|x| = (e - 1) / (e + 1), and the sign of x."""
    a = min(abs(x), _T_LIMIT)
    t = a * _T_STEP
    e = _T_ONE + t * (
        _T_ONE + t * (_T_C2 + t * (_T_C3 + t * (_T_C4 + t * (_T_C5 + t * (_T_C6 + t * _T_C7)))))
    )
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    r = (e - _T_ONE) / (e + _T_ONE)
    if a >= _T_LIMIT:
        r = _T_ONE
    return r if x >= 0 else -r


@njit(cache=True, fastmath={"reassoc", "contract"}, _nrt=False)
def _output(w2, z, n_hidden):
    """w2 . z[:n_hidden] (float32), summed in float64 in an order the compiler may choose
    (reassociated: several partial sums side by side instead of one chain)."""
    y = 0.0
    for h in range(n_hidden):
        y += np.float64(w2[h]) * np.float64(z[h])
    return y


@njit(cache=True, error_model="numpy", _nrt=False)  # numpy: the tanh loop vectorises
def net_eval_into(state, kind, w1t, b1, w2, b2, scale, pt, z):
    """Learned score of state (side to move's view); z: the caller's scratch for the hidden
    layer (float32, at least H entries: the search's ``SearchBuffers.hidden``), so that the
    evaluation allocates nothing (the search kernel runs without Numba's reference counting).

    w1t is the first layer transposed, (n_inputs, H), and w1t, b1, w2 are float32 (``Evaluation
    .arrays`` gives them: the weights rounded to float32); b2, scale and the pattern tables pt
    stay float64. The network reads the side to move's observation (encode_obs), and for
    EVAL_MLP_FEATURES then the side to move's ``eval_features`` (rounded to float32, as
    features_of_obs stores them); about 30 of the observation's 198 inputs are non-zero. They
    are read here straight from the bitboards (``observe.obs_bitboards`` and ``obs_scalars``,
    which encode_obs writes from too): each hidden unit's sum runs over those inputs only, in
    float32, the H sums side by side over contiguous rows of w1t (eight to a vector
    instruction). tanh is ``_tanh`` (float32, within 4e-6), the output w2 . tanh + b2 is summed
    in float64. So a score can differ from the float64 formula with np.tanh by a unit where that
    formula lies within about 1e-4 of a half unit (at scale 100). pt: the pattern tables
    (``Evaluation.patterns``; none when it has no rows), their entries added to the output in
    window order."""
    side = state[S_SIDE]
    n_hidden = w1t.shape[1]
    for h in range(n_hidden):  # OBS_TO_MOVE: the observer is the side to move
        z[h] = b1[h] + w1t[OBS_TO_MOVE, h]
    planes = obs_bitboards(state, side)
    for p in range(N_PLANES):
        _add_plane(z, w1t, planes[p], p * N_SQUARES, side, n_hidden)
    scalars = obs_scalars(state)
    for k in range(N_STATE_SCALARS):  # rounded to float32, as encode_obs stores them
        _add_input(z, w1t, OBS_KINGS_ONLY + k, np.float32(scalars[k]), n_hidden)
    if kind == EVAL_MLP_FEATURES:  # side_features, from the planes already read
        f = eval_features(planes[0], planes[1], planes[2], planes[3], side == 0)
        for k in range(N_FEATURES):
            _add_input(z, w1t, OBS_LEN + k, np.float32(f[k]), n_hidden)
    if kind == EVAL_LINEAR:
        y = np.float64(z[0])
    else:
        for h in range(n_hidden):  # a loop of its own: the tanh run side by side
            z[h] = _tanh(z[h])
        y = b2[0] + _output(w2, z, n_hidden)
    if pt.shape[0] > 0:  # pattern tables, in window order
        y = _add_patterns(y, pt, planes[0] | planes[1], planes[2] | planes[3], side)
    v = scale * y
    if v > SCORE_LIMIT:
        v = SCORE_LIMIT
    elif v < -SCORE_LIMIT:
        v = -SCORE_LIMIT
    return np.int64(np.round(v))


@njit(cache=True)
def net_eval(state, kind, w1t, b1, w2, b2, scale, pt, obs):
    """net_eval_into with a hidden layer of its own; obs is unused (kept so that every
    evaluation kind has one signature)."""
    return net_eval_into(
        state, kind, w1t, b1, w2, b2, scale, pt, np.empty(w1t.shape[1], np.float32)
    )


@njit(cache=True, _nrt=False)
def evaluate_into(state, kind, w1, b1, w2, b2, scale, pt, z):
    """Score of state from the side to move's view with the chosen evaluation kind; z: the
    hidden layer's scratch (net_eval_into)."""
    if kind == EVAL_MATERIAL:
        return material_eval(state)
    return net_eval_into(state, kind, w1, b1, w2, b2, scale, pt, z)


@njit(cache=True)
def evaluate(state, kind, w1, b1, w2, b2, scale, pt, obs):
    """Score of state from the side to move's view with the chosen evaluation kind (obs is
    unused; the search calls evaluate_into with its scratch)."""
    if kind == EVAL_MATERIAL:
        return material_eval(state)
    return net_eval(state, kind, w1, b1, w2, b2, scale, pt, obs)


@dataclasses.dataclass
class Evaluation:
    """An evaluation for the search kernel: kind (EVAL_*) and its arrays (float64; the kernels
    read w1, b1 and w2 rounded to float32, ``arrays()``).

    w1: (H, n_inputs) (OBS_LEN; N_INPUTS_FEATURES for EVAL_MLP_FEATURES); b1: (H,); w2: (H,);
    b2: (1,); scale: score units per network output unit
    (e.g. 100 if the network predicts material in men); patterns: the pattern tables,
    (N_WINDOWS, PATTERN_ENTRIES) in network output units, or (0, PATTERN_ENTRIES): none (the
    material kind takes none). The arrays are copies of those given; to change the weights,
    assign new arrays (``arrays()`` then rebuilds the kernels' copy).
    """

    kind: int = EVAL_MATERIAL
    w1: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((1, OBS_LEN)))
    b1: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(1))
    w2: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(1))
    b2: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(1))
    scale: float = 1.0
    patterns: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, PATTERN_ENTRIES)))

    def __post_init__(self):
        if self.kind not in (EVAL_MATERIAL, EVAL_LINEAR, EVAL_MLP, EVAL_MLP_FEATURES):
            raise ValueError(f"unknown evaluation kind {self.kind!r}; expected one of {EVAL_NAMES}")
        self.w1 = np.array(self.w1, dtype=np.float64, order="C")
        self.b1 = np.array(self.b1, dtype=np.float64, order="C").reshape(-1)
        self.w2 = np.array(self.w2, dtype=np.float64, order="C").reshape(-1)
        self.b2 = np.array(self.b2, dtype=np.float64, order="C").reshape(-1)
        self.patterns = np.array(self.patterns, dtype=np.float64, order="C")
        if self.patterns.shape == (0,):  # [] or an empty vector: no tables
            self.patterns = np.zeros((0, PATTERN_ENTRIES))
        if self.patterns.shape not in ((0, PATTERN_ENTRIES), (N_WINDOWS, PATTERN_ENTRIES)):
            raise ValueError(
                f"patterns must have shape ({N_WINDOWS}, {PATTERN_ENTRIES}) (or "
                f"(0, {PATTERN_ENTRIES}) or []: none), got {self.patterns.shape}"
            )
        if self.kind == EVAL_MATERIAL and self.patterns.shape[0] > 0:
            raise ValueError("the material evaluation takes no pattern tables")
        h = self.w1.shape[0]
        n_in = self.n_inputs
        if self.w1.ndim != 2 or self.w1.shape[1] != n_in or h < 1:
            raise ValueError(f"w1 must have shape (H, {n_in}) for this kind, got {self.w1.shape}")
        if h > HIDDEN_MAX:
            raise ValueError(f"at most {HIDDEN_MAX} hidden units, got {h}")
        if self.b1.shape != (h,) or self.b2.shape != (1,):
            raise ValueError(f"b1 must have shape ({h},) and b2 shape (1,)")
        if self.kind in (EVAL_MLP, EVAL_MLP_FEATURES) and self.w2.shape != (h,):
            raise ValueError(f"w2 must have shape ({h},) for an MLP, got {self.w2.shape}")
        if not np.isfinite(self.scale) or not all(
            np.isfinite(a).all() for a in (self.w1, self.b1, self.w2, self.b2, self.patterns)
        ):
            raise ValueError("evaluation weights and scale must be finite")
        self.scale = float(self.scale)
        # the kernels' copies (net_eval_into): w1 transposed, w1 b1 w2 rounded to float32,
        # made again when one of the arrays they come from is replaced
        self._kernel = (
            (self.w1, self.b1, self.w2, self.b2, self.patterns),
            (
                np.ascontiguousarray(self.w1.T, dtype=np.float32),
                self.b1.astype(np.float32),
                self.w2.astype(np.float32),
            ),
        )

    @property
    def n_inputs(self) -> int:
        """Inputs the network reads: OBS_LEN, and N_FEATURES more for EVAL_MLP_FEATURES."""
        return N_INPUTS_FEATURES if self.kind == EVAL_MLP_FEATURES else OBS_LEN

    @classmethod
    def material(cls) -> Evaluation:
        """The built-in material/positional evaluation."""
        return cls()

    @classmethod
    def linear(cls, w: npt.ArrayLike, b: float = 0.0, scale: float = 1.0) -> Evaluation:
        """score = scale * (w . obs + b); w: float[OBS_LEN]."""
        return cls(
            EVAL_LINEAR, np.asarray(w, np.float64).reshape(1, OBS_LEN), [b], [0.0], [0.0], scale
        )

    @classmethod
    def mlp(
        cls,
        w1: npt.ArrayLike,
        b1: npt.ArrayLike,
        w2: npt.ArrayLike,
        b2: npt.ArrayLike,
        scale: float = 1.0,
        features: bool = False,
        patterns: npt.ArrayLike | None = None,
    ) -> Evaluation:
        """score = scale * (w2 . tanh(w1 x + b1) + b2); x: the observation (w1: (H, OBS_LEN)),
        or with features the observation and then eval_features (w1: (H, N_INPUTS_FEATURES));
        patterns: pattern tables added to the output, (N_WINDOWS, PATTERN_ENTRIES), or None."""
        return cls(
            EVAL_MLP_FEATURES if features else EVAL_MLP,
            w1,
            b1,
            w2,
            np.reshape(b2, 1),
            scale,
            np.zeros((0, PATTERN_ENTRIES)) if patterns is None else patterns,
        )

    @property
    def has_patterns(self) -> bool:
        """Does the evaluation add pattern tables?"""
        return self.patterns.shape[0] > 0

    def arrays(
        self,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float, np.ndarray]:
        """(w1t, b1, w2, b2, scale, patterns) as passed to the kernels: w1t = w1 transposed,
        (n_inputs, H), contiguous; w1t, b1 and w2 rounded to float32 (net_eval_into computes the
        hidden layer in float32), b2 and the patterns float64. Rebuilt, with the checks, when
        an array was assigned anew."""
        sources, (w1t, b1, w2) = self._kernel
        if any(
            a is not b for a, b in zip(sources, (self.w1, self.b1, self.w2, self.b2, self.patterns))
        ):
            self.__post_init__()
            w1t, b1, w2 = self._kernel[1]
        return w1t, b1, w2, self.b2, self.scale, self.patterns

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the evaluation to an .npz file (``.npz`` appended if missing), atomically:
        a temporary file renamed into place, so a killed run never leaves half a file."""
        from boardgym.agents.files import write_atomically

        final = str(path) if str(path).endswith(".npz") else str(path) + ".npz"
        extra = {"patterns": self.patterns} if self.has_patterns else {}
        write_atomically(
            final,
            lambda tmp: np.savez(
                tmp,
                kind=self.kind,
                w1=self.w1,
                b1=self.b1,
                w2=self.w2,
                b2=self.b2,
                scale=self.scale,
                **extra,
            ),
            ".npz",
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Evaluation:
        """Read an evaluation written by save()."""
        with np.load(path) as z:
            patterns = z["patterns"] if "patterns" in z.files else np.zeros((0, PATTERN_ENTRIES))
            return cls(
                int(z["kind"]), z["w1"], z["b1"], z["w2"], z["b2"], float(z["scale"]), patterns
            )
