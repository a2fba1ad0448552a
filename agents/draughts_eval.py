"""Russian draughts evaluation for the search agents: material/positional, or a learned network.

Scores are integers from the side to move's view (negamax), in hundredths of a man: a man is
``MAN`` = 100, a king ``KING`` = 300 (man 1, king 3), plus small positional terms that never add
up to a man: a man's advance (``ADVANCE`` per row beyond its third), men on the four central
squares c3..f6 (``CENTRE``), men still on the back row (``BACK_ROW``, keeps the opponent from
crowning), kings on the long diagonal a1-h8 (``LONG_DIAG``).

Learned evaluations read the 198-float observation of the side to move
(boardgym.kernels.draughts.observe.encode_obs, with no move cap) and are given to the kernel as
arrays, so one compiled search serves every network:
  ``EVAL_LINEAR``: score = scale * (w . x + b)          (``W1[0]``, ``b1[0]``; ``w2``, ``b2`` unused)
  ``EVAL_MLP``:    score = scale * (w2 . tanh(W1 x + b1) + b2)
``Evaluation`` bundles the kind and arrays; ``Evaluation.load``/``save`` use ``.npz`` files.
"""
import dataclasses

import numpy as np
from numba import njit

from boardgym.kernels.bits import lsb, msb, pop_lsb, popcount
from boardgym.kernels.draughts.board import (
    BB_LONG_DIAG, BB_ROW, GHOST_FILE, GHOST_ROW, GHOST_TO_SQ32, N_BITS, N_SQUARES, S_BK, S_BM,
    S_SIDE, S_WK, S_WM,
)
from boardgym.kernels.draughts.observe import (
    N_PLANES, N_STATE_SCALARS, OBS_KINGS_ONLY, OBS_LEN, OBS_TO_MOVE, obs_bitboards, obs_scalars,
)

EVAL_MATERIAL, EVAL_LINEAR, EVAL_MLP = 0, 1, 2
EVAL_NAMES = {"material": EVAL_MATERIAL, "linear": EVAL_LINEAR, "mlp": EVAL_MLP}

MAN = 100
KING = 300
ADVANCE = 2
CENTRE = 4
BACK_ROW = 3
LONG_DIAG = 8
SCORE_LIMIT = 50_000  # learned scores are clipped to +-this (far below the search's win scores)

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


@njit(cache=True)
def material_eval(state):
    """Material (man 100, king 300) plus positional terms, from the side to move's view."""
    w = _side_terms(state[S_WM], state[S_WK], False)
    b = _side_terms(state[S_BM], state[S_BK], True)
    return w - b if state[S_SIDE] == 0 else b - w


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


@njit(cache=True, inline="always")
def _tanh(x):
    """tanh(x) within 3e-14, in arithmetic only (no call: a loop of these vectorises):
    exp(2x) = exp(2x / 256) ** 256, the first by its Taylor series to degree 11 (|2x / 256| <=
    0.16 once |x| <= 20, beyond which tanh is 1 to the last bit), then squared 8 times."""
    t = min(max(x, -20.0), 20.0) * (2.0 / 256.0)
    e = 1.0 + t * (1.0 + t * (1.0 / 2 + t * (1.0 / 6 + t * (1.0 / 24 + t * (1.0 / 120 + t * (
        1.0 / 720 + t * (1.0 / 5040 + t * (1.0 / 40320 + t * (1.0 / 362880 + t * (
            1.0 / 3628800 + t * (1.0 / 39916800)))))))))))
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    return 1.0 - 2.0 / (e + 1.0)


@njit(cache=True, error_model="numpy")  # no division-by-zero branch: the tanh loop vectorises
def net_eval(state, kind, w1t, b1, w2, b2, scale, obs):
    """Learned score of state (side to move's view). obs is unused (kept so that every
    evaluation kind has one signature).

    w1t is the first layer transposed, (OBS_LEN, H) (``Evaluation.arrays`` gives it). The
    network reads the side to move's observation (encode_obs); about 30 of its 198 inputs are
    non-zero. They are read here straight from the bitboards (``observe.obs_bitboards`` and
    ``obs_scalars``, which encode_obs writes from too): each hidden unit's sum runs over
    those inputs only, in increasing input order (the square inputs are ones, the scalars
    rounded to float32 as encode_obs stores them), so a sum is bit for bit the dense sum's; the
    H sums run side by side over contiguous rows of w1t. tanh is taken by ``_tanh``, arithmetic
    that vectorises (a fifth of the cost of exp here) and differs from np.tanh by at most 3e-14:
    a score (rounded to an integer) could differ from the formula with np.tanh only for a sum
    within about 1e-11 of a half unit."""
    side = state[S_SIDE]
    n_hidden = w1t.shape[1]
    z = b1.copy()
    planes = obs_bitboards(state, side)
    for p in range(N_PLANES):
        _add_plane(z, w1t, planes[p], p * N_SQUARES, side, n_hidden)
    for h in range(n_hidden):  # OBS_TO_MOVE: the observer is the side to move
        z[h] += w1t[OBS_TO_MOVE, h]
    scalars = obs_scalars(state)
    for k in range(N_STATE_SCALARS):  # rounded to float32, as encode_obs stores them
        _add_input(z, w1t, OBS_KINGS_ONLY + k, np.float64(np.float32(scalars[k])), n_hidden)
    if kind == EVAL_LINEAR:
        y = z[0]
    else:
        for h in range(n_hidden):  # a loop of its own: the tanh run side by side
            z[h] = _tanh(z[h])
        y = b2[0]
        for h in range(n_hidden):
            y += w2[h] * z[h]
    v = scale * y
    if v > SCORE_LIMIT:
        v = SCORE_LIMIT
    elif v < -SCORE_LIMIT:
        v = -SCORE_LIMIT
    return np.int64(np.round(v))


@njit(cache=True)
def evaluate(state, kind, w1, b1, w2, b2, scale, obs):
    """Score of state from the side to move's view with the chosen evaluation kind."""
    if kind == EVAL_MATERIAL:
        return material_eval(state)
    return net_eval(state, kind, w1, b1, w2, b2, scale, obs)


@dataclasses.dataclass
class Evaluation:
    """An evaluation for the search kernel: kind (EVAL_*) and its arrays (float64).

    w1: (H, OBS_LEN); b1: (H,); w2: (H,); b2: (1,); scale: score units per network output unit
    (e.g. 100 if the network predicts material in men). The arrays are copies of those given;
    to change the weights, assign new arrays (``arrays()`` then rebuilds the kernels' copy).
    """

    kind: int = EVAL_MATERIAL
    w1: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((1, OBS_LEN)))
    b1: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(1))
    w2: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(1))
    b2: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(1))
    scale: float = 1.0

    def __post_init__(self):
        if self.kind not in (EVAL_MATERIAL, EVAL_LINEAR, EVAL_MLP):
            raise ValueError(f"unknown evaluation kind {self.kind!r}; expected one of {EVAL_NAMES}")
        self.w1 = np.array(self.w1, dtype=np.float64, order="C")
        self.b1 = np.array(self.b1, dtype=np.float64, order="C").reshape(-1)
        self.w2 = np.array(self.w2, dtype=np.float64, order="C").reshape(-1)
        self.b2 = np.array(self.b2, dtype=np.float64, order="C").reshape(-1)
        h = self.w1.shape[0]
        if self.w1.ndim != 2 or self.w1.shape[1] != OBS_LEN or h < 1:
            raise ValueError(f"w1 must have shape (H, {OBS_LEN}), got {self.w1.shape}")
        if self.b1.shape != (h,) or self.b2.shape != (1,):
            raise ValueError(f"b1 must have shape ({h},) and b2 shape (1,)")
        if self.kind == EVAL_MLP and self.w2.shape != (h,):
            raise ValueError(f"w2 must have shape ({h},) for an MLP, got {self.w2.shape}")
        if not np.isfinite(self.scale) or not all(
                np.isfinite(a).all() for a in (self.w1, self.b1, self.w2, self.b2)):
            raise ValueError("evaluation weights and scale must be finite")
        self.scale = float(self.scale)
        self._kernel_w1 = (self.w1, np.ascontiguousarray(self.w1.T))

    @classmethod
    def material(cls):
        """The built-in material/positional evaluation."""
        return cls()

    @classmethod
    def linear(cls, w, b=0.0, scale=1.0):
        """score = scale * (w . obs + b); w: float[OBS_LEN]."""
        return cls(EVAL_LINEAR, np.asarray(w, np.float64).reshape(1, OBS_LEN), [b], [0.0], [0.0],
                   scale)

    @classmethod
    def mlp(cls, w1, b1, w2, b2, scale=1.0):
        """score = scale * (w2 . tanh(w1 obs + b1) + b2); w1: (H, OBS_LEN)."""
        return cls(EVAL_MLP, w1, b1, w2, np.reshape(b2, 1), scale)

    def arrays(self):
        """(w1t, b1, w2, b2, scale) as passed to the kernels: w1t = w1 transposed, (OBS_LEN, H),
        contiguous (rebuilt, with the checks, when w1 or another array was assigned anew)."""
        source, w1t = self._kernel_w1
        if source is not self.w1 or any(
                not (isinstance(a, np.ndarray) and a.dtype == np.float64 and a.flags.c_contiguous)
                for a in (self.b1, self.w2, self.b2)):
            self.__post_init__()
            w1t = self._kernel_w1[1]
        return w1t, self.b1, self.w2, self.b2, self.scale

    def save(self, path):
        """Write the evaluation to an .npz file (``.npz`` appended if missing), atomically:
        a temporary file renamed into place, so a killed run never leaves half a file."""
        from boardgym.agents.run_log import write_atomically
        final = str(path) if str(path).endswith(".npz") else str(path) + ".npz"
        write_atomically(final, lambda tmp: np.savez(tmp, kind=self.kind, w1=self.w1, b1=self.b1,
                                                     w2=self.w2, b2=self.b2, scale=self.scale), ".npz")

    @classmethod
    def load(cls, path):
        """Read an evaluation written by save()."""
        with np.load(path) as z:
            return cls(int(z["kind"]), z["w1"], z["b1"], z["w2"], z["b2"], float(z["scale"]))
