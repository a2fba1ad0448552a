"""The 80-bit gnubg position key (Position ID before base64) of a state, packed in a kernel.

Bit layout (gnubg manual, "A technical description of the Position ID"): the opponent's block
then the player on roll's, each 25 runs (its own points 1..24, then the bar) of one 1 per checker
followed by a 0; bits fill bytes least significant bit first. The Python side
(boardgym.envs.backgammon_notation.position_id) base64-encodes the 10 bytes. The counts must
be validated first (at most 15 each): the runs loop over them.
"""
from numba import njit

from boardgym.kernels.backgammon.board import BAR_ME, BAR_OPP, ME, OPP


@njit(cache=True, inline="always")
def _run(out, pos, count):
    for _ in range(count):
        if pos < 80:  # never write past the 10 bytes, whatever the state holds
            out[pos >> 3] |= 1 << (pos & 7)
        pos += 1
    return pos + 1


@njit(cache=True)
def position_key(state, out):
    """Write the 10-byte position key of state into out (uint8[10]); return the bits needed.

    More than 80 (impossible for 15 checkers a side) means the key is not valid.
    """
    out[:] = 0
    pos = 0
    for i in range(24):  # opponent's own point i + 1 is the mover's point 24 - i
        pos = _run(out, pos, state[OPP + 23 - i])
    pos = _run(out, pos, state[BAR_OPP])
    for i in range(24):
        pos = _run(out, pos, state[ME + i])
    pos = _run(out, pos, state[BAR_ME])
    return pos


@njit(cache=True)
def position_keys(rows, n, out):
    """position_key of rows[k] into out[k] (uint8[N, 10]) for k < n (rows already validated)."""
    for k in range(n):
        position_key(rows[k], out[k])
