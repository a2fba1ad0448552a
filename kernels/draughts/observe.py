"""Observation encoding and the mover-relative action view for Russian draughts.

Encoding only, no rules: the envs (single and batched) call these kernels.

Observation ``float32[OBS_LEN]`` (198 numbers, compact so that 65,536 batched games fit in
memory) from the observing player's view: the squares are the 32 dark squares numbered like the
action codec's sq32 (a1=0 .. h8=31) but turned 180 degrees for Black (``31 - sq32``), so each
player sees its own men start on squares 0..11 and move up. Entry ``plane * 32 + square``:
  planes 0 own men, 1 own kings, 2 opponent men, 3 opponent kings (1 on occupied squares),
         4 the piece in the middle of a capture chain (whoever's), 5 pieces already jumped in it;
  then scalars: 192 one when the observer is the side to move; 193 G.2c counter (plies since a
  man moved or a capture) / 30; 194 G.2b/G.2d counter (plies since a capture or crowning) / 120;
  195 G.2e counter / 10 (0 when that balance does not hold); 196 occurrences of the current
  position in the repetition history (G.2a) / 3; 197 plies played / the env's move cap (0 when
  there is no cap); each capped at 1. ``obs[:192].reshape(6, 8, 4)`` gives board planes (row,
  dark square in the row) for convolutional policies.
Everything that decides legality or the outcome is in it, except repetitions of positions older
than the current one (only the current position's count is encoded).

Mover-relative actions: an env's action is the kernel action (``from_sq32 * 32 + to_sq32``,
codec.py) seen from the acting player, i.e. turned 180 degrees (``sq32 -> 31 - sq32``) for Black.
``VIEW_ACTION[side, a]`` maps between the two (the map is its own inverse).
"""
import numpy as np
from numba import njit

from boardgym.kernels.bits import lsb, pop_lsb
from boardgym.kernels.draughts.board import (
    GHOST_TO_SQ32, S_BK, S_BM, S_CAP_JUMPED, S_CAP_SQ, S_KINGS_ONLY, S_LONG_DIAG,
    S_MATERIAL, S_PLY, S_SIDE, S_WK, S_WM,
)
from boardgym.kernels.draughts.codec import N_ACTIONS
from boardgym.kernels.draughts.outcome import repetition_count

N_PLANES = 6
OBS_LEN = N_PLANES * 32 + 6

_a = np.arange(N_ACTIONS, dtype=np.int64)
VIEW_ACTION = np.stack([_a, (31 - _a // 32) * 32 + (31 - _a % 32)]).astype(np.int64)
VIEW_ACTION.setflags(write=False)


@njit(cache=True, inline="always")
def _plane_bits(out, bb, plane, flip):
    base = plane * 32
    while bb != 0:
        sq = GHOST_TO_SQ32[lsb(bb)]
        bb = pop_lsb(bb)
        out[base + (31 - sq if flip else sq)] = 1.0


@njit(cache=True)
def encode_obs(state, player, max_plies, out):
    """Write player's observation of state into out (float32[OBS_LEN])."""
    out[:] = 0.0
    flip = player == 1
    if player == 0:
        own_m, own_k, opp_m, opp_k = state[S_WM], state[S_WK], state[S_BM], state[S_BK]
    else:
        own_m, own_k, opp_m, opp_k = state[S_BM], state[S_BK], state[S_WM], state[S_WK]
    _plane_bits(out, own_m, 0, flip)
    _plane_bits(out, own_k, 1, flip)
    _plane_bits(out, opp_m, 2, flip)
    _plane_bits(out, opp_k, 3, flip)
    if state[S_CAP_SQ] >= 0:
        _plane_bits(out, np.int64(1) << state[S_CAP_SQ], 4, flip)
        _plane_bits(out, state[S_CAP_JUMPED], 5, flip)
    k = N_PLANES * 32
    if state[S_SIDE] == player:
        out[k] = 1.0
    out[k + 1] = min(1.0, state[S_KINGS_ONLY] / 30.0)
    out[k + 2] = min(1.0, state[S_MATERIAL] / 120.0)
    if state[S_LONG_DIAG] > 0:
        out[k + 3] = min(1.0, state[S_LONG_DIAG] / 10.0)
    out[k + 4] = min(1.0, repetition_count(state) / 3.0)
    if max_plies > 0:
        out[k + 5] = min(1.0, state[S_PLY] / max_plies)
