"""Observation encoding for backgammon (encoding only, no rules), shared by the single and
batched envs.

``encode_obs(state, player, out)`` writes ``float32[OBS_LEN]`` from ``player``'s view (absolute
player 0/1; the state is stored from the mover's view, so it is turned round when ``player`` is
not on roll), in the manner of Tesauro's TD-Gammon:
  [0, 96)    own checkers on own points 1..24, four units per point: n >= 1, n >= 2, n >= 3,
             (n - 3) / 2 when n > 3 (else 0)
  [96, 192)  opponent's checkers on the same points (numbered from ``player``'s side), same units
  192, 193   own / opponent checkers on the bar, / 2
  194, 195   own / opponent checkers borne off, / 15
  [196, 202) dice still to play this turn, count per value 1..6, / 4 (the mover's dice)
  202        1 when ``player`` is on roll (``TURN``)
  203        log2(cube value) / 6
  204, 205   1 when the cube is owned by ``player`` / by the opponent (both 0: centred)
  206        1 while a double is offered and awaits take/drop (``CUBE_OFFERED`` if the layout
             has it)

In match play (match.py) the envs append ``encode_match_obs``'s block of ``MATCH_OBS_LEN``
entries, from the same player's view:
  +0, +1     own / opponent away-score (points still needed) / N
  +2         N / MAX_MATCH_LENGTH
  +3         1 in the Crawford game (no doubling, MP.5)
  +4         1 once the Crawford game has been played (post-Crawford, MP.6)
"""

from numba import njit

from boardgym.kernels.backgammon.board import (
    BAR_ME,
    BAR_OPP,
    CUBE_OWNER,
    CUBE_VALUE,
    DICE,
    ME,
    OFF_ME,
    OFF_OPP,
    OPP,
    TURN,
)
from boardgym.kernels.backgammon.match import (
    M_CRAWFORD,
    M_LENGTH,
    M_POST,
    M_SCORE,
    MAX_MATCH_LENGTH,
)

OBS_LEN = 207
MATCH_OBS_LEN = 5


@njit(cache=True, inline="always")
def _units(out, base, n):
    """The four units of a point holding n checkers (every entry written: no clearing pass)."""
    out[base] = 1.0 if n >= 1 else 0.0
    out[base + 1] = 1.0 if n >= 2 else 0.0
    out[base + 2] = 1.0 if n >= 3 else 0.0
    out[base + 3] = (n - 3) * 0.5 if n > 3 else 0.0  # == (n - 3) / 2.0 exactly


@njit(cache=True)
def encode_obs(state, player, out):
    """Write player's observation of state (int64[STATE_LEN]) into out (float32[OBS_LEN])."""
    mover = state[TURN] == player
    if mover:
        for i in range(24):  # i = point - 1 in player's numbering
            _units(out, 4 * i, state[ME + i])
            _units(out, 96 + 4 * i, state[OPP + i])
        out[192], out[193] = state[BAR_ME] * 0.5, state[BAR_OPP] * 0.5
        out[194], out[195] = state[OFF_ME] / 15.0, state[OFF_OPP] / 15.0
        out[202] = 1.0
    else:
        for i in range(24):
            _units(out, 4 * i, state[OPP + 23 - i])
            _units(out, 96 + 4 * i, state[ME + 23 - i])
        out[192], out[193] = state[BAR_OPP] * 0.5, state[BAR_ME] * 0.5
        out[194], out[195] = state[OFF_OPP] / 15.0, state[OFF_ME] / 15.0
        out[202] = 0.0
    for v in range(6):
        out[196 + v] = state[DICE + v] * 0.25  # == / 4.0 exactly
    value = state[CUBE_VALUE]
    k = 0
    while value > 1:
        value >>= 1
        k += 1
    out[203] = k / 6.0
    owner = state[CUBE_OWNER]
    out[204] = 1.0 if owner == player else 0.0
    out[205] = 1.0 if owner >= 0 and owner != player else 0.0
    for j in range(206, out.shape[0]):  # 206: CUBE_OFFERED where a layout has it, else 0
        out[j] = 0.0


@njit(cache=True)
def encode_match_obs(m, player, out, base):
    """Write player's (absolute 0/1) view of the match m (int64[MATCH_LEN], length > 0) into
    out[base : base + MATCH_OBS_LEN] (float32)."""
    n = m[M_LENGTH]
    out[base] = (n - m[M_SCORE + player]) / n
    out[base + 1] = (n - m[M_SCORE + 1 - player]) / n
    out[base + 2] = n / MAX_MATCH_LENGTH
    out[base + 3] = 1.0 if m[M_CRAWFORD] != 0 else 0.0
    out[base + 4] = 1.0 if m[M_POST] != 0 else 0.0
