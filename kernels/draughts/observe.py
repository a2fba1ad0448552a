"""Russian draughts observation: the encoder and its decoder, in the observing player's frame.

Encoding only, no rules: the envs (single and batched) and the agents call these kernels.

Observation ``float32[OBS_LEN]`` (198 numbers, compact so that 65,536 batched games fit in
memory) from the observing player's view: the squares are the 32 dark squares numbered like the
action codec's sq32 (a1=0 .. h8=31) but turned 180 degrees for Black (``codec.view_square``),
so each player sees its own men start on squares 0..11 and move up. Entry
``plane * 32 + square`` for the planes ``PLANE_*``:
  0 own men, 1 own kings, 2 opponent men, 3 opponent kings (1 on occupied squares),
  4 the piece in the middle of a capture chain (whoever's), 5 pieces already jumped in it;
then the scalars ``OBS_*``, each capped at 1:
  192 ``OBS_TO_MOVE``      one when the observer is the side to move;
  193 ``OBS_KINGS_ONLY``   G.2c counter (plies since a man moved or a capture) /
                           ``KINGS_ONLY_SCALE``;
  194 ``OBS_MATERIAL``     G.2b/G.2d counter (plies since a capture or crowning) /
                           ``MATERIAL_SCALE``;
  195 ``OBS_LONG_DIAG``    G.2e counter / ``LONG_DIAG_SCALE`` (0 when that balance does not hold);
  196 ``OBS_REPETITIONS``  occurrences of the current position in the history (G.2a) /
                           ``REPETITION_SCALE``;
  197 ``OBS_PLY``          plies played / the env's move cap (0 when there is no cap).
``obs[:192].reshape(6, 8, 4)`` gives board planes (row, dark square in the row) for
convolutional policies. Everything that decides legality or the outcome is in it, except
repetitions of positions older than the current one (only the current position's count).

``decode_obs`` is the inverse as far as the observation allows: the position seen by the
observer, who plays White in its own frame. It cannot know the earlier positions of the game,
the counters beyond their caps, the ply count, and mid-chain the square where the chain began
and whether the piece was a man then (the chain is taken to begin on the capturing piece's
square); none of these change the legal moves or the position a chain ends in.
"""

import numpy as np
from numba import njit

from boardgym.kernels.bits import lsb, pop_lsb, popcount
from boardgym.kernels.draughts.board import (
    GHOST_TO_SQ32,
    HIST_LEN,
    N_SQUARES,
    S_BK,
    S_BM,
    S_CAP_JUMPED,
    S_CAP_MAN,
    S_CAP_SQ,
    S_CAP_START,
    S_HASH,
    S_HIST,
    S_HIST_N,
    S_KINGS_ONLY,
    S_LONG_DIAG,
    S_MATERIAL,
    S_PLY,
    S_SIDE,
    S_WK,
    S_WM,
    SQ32_TO_GHOST,
)
from boardgym.kernels.draughts.codec import view_square
from boardgym.kernels.draughts.move import set_position
from boardgym.kernels.draughts.outcome import repetition_count

PLANE_OWN_MEN, PLANE_OWN_KINGS, PLANE_OPP_MEN, PLANE_OPP_KINGS, PLANE_CAPTURER, PLANE_JUMPED = (
    range(6)
)
N_PLANES = 6
OBS_TO_MOVE = N_PLANES * N_SQUARES
OBS_KINGS_ONLY = OBS_TO_MOVE + 1
OBS_MATERIAL = OBS_TO_MOVE + 2
OBS_LONG_DIAG = OBS_TO_MOVE + 3
OBS_REPETITIONS = OBS_TO_MOVE + 4
OBS_PLY = OBS_TO_MOVE + 5
OBS_LEN = OBS_TO_MOVE + 6
KINGS_ONLY_SCALE = 30.0
MATERIAL_SCALE = 120.0
LONG_DIAG_SCALE = 10.0
REPETITION_SCALE = 3.0

# decode_obs results
DECODE_OK = 0
DECODE_TWO_CAPTURERS = 1  # more than one piece on the capture-chain plane
DECODE_CHAIN_PLANES = 2  # a capturer without jumped pieces, or jumped pieces without a capturer


@njit(cache=True, inline="always")
def obs_bitboards(state, player):
    """The bitboards of player's six planes, in plane order (``PLANE_*``): own men, own kings,
    opponent men, opponent kings, the capturing piece, the pieces it jumped (both 0 outside a
    chain). Shared by ``encode_obs`` and the learned evaluation, which reads the network's
    inputs straight from them."""
    if player == 0:
        own_m, own_k, opp_m, opp_k = state[S_WM], state[S_WK], state[S_BM], state[S_BK]
    else:
        own_m, own_k, opp_m, opp_k = state[S_BM], state[S_BK], state[S_WM], state[S_WK]
    capturer = np.int64(0)
    jumped = np.int64(0)
    if state[S_CAP_SQ] >= 0:
        capturer = np.int64(1) << state[S_CAP_SQ]
        jumped = state[S_CAP_JUMPED]
    return own_m, own_k, opp_m, opp_k, capturer, jumped


#: the scalars obs_scalars gives, from OBS_KINGS_ONLY on (OBS_KINGS_ONLY .. OBS_REPETITIONS)
N_STATE_SCALARS = 4


@njit(cache=True, inline="always")
def obs_scalars(state):
    """The observation's inputs ``OBS_KINGS_ONLY``, ``OBS_MATERIAL``, ``OBS_LONG_DIAG``,
    ``OBS_REPETITIONS`` (consecutive) as float64, before encode_obs rounds them to float32."""
    long_diag = 0.0
    if state[S_LONG_DIAG] > 0:
        long_diag = min(1.0, state[S_LONG_DIAG] / LONG_DIAG_SCALE)
    return (
        min(1.0, state[S_KINGS_ONLY] / KINGS_ONLY_SCALE),
        min(1.0, state[S_MATERIAL] / MATERIAL_SCALE),
        long_diag,
        min(1.0, repetition_count(state) / REPETITION_SCALE),
    )


@njit(cache=True)
def encode_obs(state, player, max_plies, out):
    """Write player's observation of state into out (float32[OBS_LEN])."""
    out[:] = 0.0
    planes = obs_bitboards(state, player)
    for p in range(N_PLANES):
        bb = planes[p]
        base = p * N_SQUARES
        while bb != 0:
            out[base + view_square(player, GHOST_TO_SQ32[lsb(bb)])] = 1.0
            bb = pop_lsb(bb)
    if state[S_SIDE] == player:
        out[OBS_TO_MOVE] = 1.0
    scalars = obs_scalars(state)
    for k in range(N_STATE_SCALARS):
        out[OBS_KINGS_ONLY + k] = scalars[k]
    if max_plies > 0:
        out[OBS_PLY] = min(1.0, state[S_PLY] / max_plies)


@njit(cache=True, inline="always")
def obs_plane_bitboard(obs, plane):
    """The bitboard (ghost layout) of one plane of an observation, in the observer's frame
    (entries above 0.5 count as set)."""
    bb = np.int64(0)
    base = plane * N_SQUARES
    for sq in range(N_SQUARES):
        if obs[base + sq] > 0.5:
            bb |= np.int64(1) << SQ32_TO_GHOST[sq]
    return bb


@njit(cache=True)
def decode_obs(obs, rules):
    """(position vector, DECODE_* code) of an observation (float32[OBS_LEN], entries in 0..1).

    The observer plays White (its own frame); White is to move if ``obs[OBS_TO_MOVE]`` is set.
    The position is unchecked (overlapping planes decode to overlapping bitboards): validate it.
    """
    wm, wk = obs_plane_bitboard(obs, PLANE_OWN_MEN), obs_plane_bitboard(obs, PLANE_OWN_KINGS)
    bm, bk = obs_plane_bitboard(obs, PLANE_OPP_MEN), obs_plane_bitboard(obs, PLANE_OPP_KINGS)
    side = 0 if obs[OBS_TO_MOVE] > 0.5 else 1
    s = set_position(wm, wk, bm, bk, side, rules)
    s[S_KINGS_ONLY] = np.int64(np.round(obs[OBS_KINGS_ONLY] * KINGS_ONLY_SCALE))
    s[S_MATERIAL] = np.int64(np.round(obs[OBS_MATERIAL] * MATERIAL_SCALE))
    if s[S_LONG_DIAG] >= 0:
        s[S_LONG_DIAG] = np.int64(np.round(obs[OBS_LONG_DIAG] * LONG_DIAG_SCALE))
    reps = np.int64(np.round(obs[OBS_REPETITIONS] * REPETITION_SCALE))
    reps = min(np.int64(3), max(np.int64(1), reps))
    for k in range(reps):
        s[S_HIST + k % HIST_LEN] = s[S_HASH]
    s[S_HIST_N] = reps
    cap = obs_plane_bitboard(obs, PLANE_CAPTURER)
    jumped = obs_plane_bitboard(obs, PLANE_JUMPED)
    if cap == 0 and jumped == 0:
        return s, DECODE_OK
    if popcount(cap) > 1:
        return s, DECODE_TWO_CAPTURERS
    if cap == 0 or jumped == 0:
        return s, DECODE_CHAIN_PLANES
    g = lsb(cap)
    s[S_CAP_SQ] = g
    s[S_CAP_START] = g
    s[S_CAP_JUMPED] = jumped
    s[S_CAP_MAN] = ((wm if side == 0 else bm) >> g) & 1
    return s, DECODE_OK
