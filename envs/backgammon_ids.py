"""Backgammon positions as gnubg writes them: its board form, the Position ID and the Match ID.

Every public function here checks its input before a kernel sees it and raises ``TypeError``
for a wrong type or ``ValueError`` for a wrong value, naming the problem. gnubg keeps these in
positionid.c and matchid.c; the plays of a Position ID are in backgammon_plays.

Position ID (gnubg manual, "A technical description of the Position ID")
    80 bits, little-endian within bytes, base64 without padding (14 characters). Two blocks of 25
    runs (points 1..24 then the bar, each from that side's own view), a run being one 1 per checker
    then a 0. Block order follows GNU Backgammon's code as exposed by gnubg-nn (checked with
    ``gnubg_nn.board_from_position_id`` / ``moves``): gnubg's board is ``[opponent, player on
    roll]`` and the key encodes ``board[0]`` (the opponent) first, then ``board[1]`` (the player on
    roll, whose checkers ``gnubg_nn.moves`` moves). ``position_from_id`` therefore makes the second
    block the mover. The ID holds no turn, dice or cube: decoded states have TURN 0, no dice,
    cube 1 centred. Checkers missing from the 15 of a side are borne off. Encoding and decoding
    run in kernels (kernels/backgammon/position_id.py); ``position_ids`` encodes a whole batch in
    one call. A malformed ID is read again in Python only to word the error.

Match ID (gnubg manual, "A technical description of the Match ID")
    66 bits packed little-endian into 9 bytes, base64 (12 characters); every field is stored
    least significant bit first: cube log2 (4), cube owner (2: 0, 1, 3 = centred), dice owner /
    player on roll (1), Crawford (1), game state (3), turn (1), double offered (1), resignation
    (2), die 1 (3), die 2 (3), match length (15), score of player 0 (15), score of player 1 (15).
"""

from __future__ import annotations

import base64
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from boardgym.envs.backgammon_checks import (
    _check_turn,
    _problem,
    check_batch,
    check_dice,
    check_state,
)
from boardgym.envs.checks import is_int
from boardgym.kernels.backgammon import board as B
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon import position_id as P
from boardgym.kernels.backgammon.board import state_error

__all__ = [
    "initial_state",
    "state_from_board",
    "board_from_state",
    "position_id",
    "position_from_id",
    "position_ids",
    "match_id",
    "parse_match_id",
]


_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_SET = frozenset(_B64)


# ----------------------------------------------------------------------------- states


def initial_state() -> npt.NDArray[np.int64]:
    """The standard starting position, player 0 on roll, no dice, cube 1 centred:
    int64[STATE_LEN]."""
    return game.initial_state()


def _from_counts(opp_own, mov_own, turn):
    """State from each side's 25 own counts (points 1..24, bar); ValueError if impossible."""
    for name, c in (("opponent", opp_own), ("player on roll", mov_own)):
        if (c < 0).any():
            raise ValueError(f"negative checker count for the {name}")
        if c.sum() > B.N_CHECKERS:
            raise ValueError(f"the {name} has {int(c.sum())} checkers on the board (at most 15)")
    s = np.zeros(B.STATE_LEN, dtype=np.int64)
    s[B.ME : B.ME + 24] = mov_own[:24]
    s[B.OPP : B.OPP + 24] = opp_own[23::-1]  # the opponent's point q is the mover's 25 - q
    s[B.BAR_ME] = mov_own[24]
    s[B.BAR_OPP] = opp_own[24]
    s[B.OFF_ME] = B.N_CHECKERS - mov_own.sum()
    s[B.OFF_OPP] = B.N_CHECKERS - opp_own.sum()
    s[B.TURN] = turn
    s[B.CUBE_VALUE] = 1
    s[B.CUBE_OWNER] = -1
    s[B.CUBE_LIMIT] = B.MAX_CUBE_VALUE
    B.refresh_masks(s)
    code, k = state_error(s)
    if code != B.ERR_NONE:
        raise ValueError(_problem(s, code, k))
    return s


def state_from_board(board: Sequence[Sequence[int]], turn: int = 0) -> npt.NDArray[np.int64]:
    """State from a gnubg-style board ``[opponent, player on roll]``, each 25 counts (points 1..24
    from that side's own view, then the bar); borne-off counts are 15 minus the rest."""
    turn = _check_turn(turn)
    if isinstance(board, (str, bytes)) or not hasattr(board, "__len__"):
        raise TypeError(f"board must be two sequences of 25 integers, got {type(board).__name__}")
    if len(board) != 2:
        raise ValueError("board must be two sequences of 25 integers")
    sides = []
    for side in board:
        if isinstance(side, (str, bytes)) or not hasattr(side, "__len__"):
            raise TypeError(f"board must be two sequences of 25 integers, got {side!r}")
        if len(side) != 25:
            raise ValueError("board must be two sequences of 25 integers")
        if not all(is_int(x) for x in side):
            raise TypeError("board must be two sequences of 25 integers")
        if any(not -99 <= int(x) <= 99 for x in side):
            raise ValueError("board counts must be 0..15")
        sides.append(np.array([int(x) for x in side], dtype=np.int64))
    return _from_counts(sides[0], sides[1], turn)


def board_from_state(state: npt.ArrayLike) -> list[list[int]]:
    """gnubg-style board ``[opponent, player on roll]`` (two lists of 25) of a state."""
    s = check_state(state)
    mover = s[B.ME : B.ME + 24].tolist() + [int(s[B.BAR_ME])]
    opp = s[B.OPP + 23 : B.OPP - 1 : -1].tolist() + [int(s[B.BAR_OPP])]
    return [opp, mover]


# ----------------------------------------------------------------------------- Position ID


def _ids(rows):
    """Position IDs of validated states rows (int64[n, STATE_LEN])."""
    n = rows.shape[0]
    chars = np.empty((P.ID_LEN + 1) * n, dtype=np.uint8)
    P.encode_ids(rows, n, chars)
    return chars.tobytes().decode("ascii").split()


def position_id(state: npt.ArrayLike) -> str:
    """14-character gnubg Position ID of state (mover = player on roll = second block)."""
    chars = np.empty(P.ID_LEN, dtype=np.uint8)
    P.encode_id(check_state(state), chars, 0)
    return chars.tobytes().decode("ascii")


def position_ids(states: npt.ArrayLike) -> list[str]:
    """Position IDs (list of str) of every row of states (int64[B, STATE_LEN], validated as by
    check_batch), in one kernel call."""
    return _ids(check_batch(states))


def _decode_b64(text, nchars, nbytes, what):
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a string, got {type(text).__name__}")
    if len(text) != nchars:
        raise ValueError(f"{what} must be {nchars} characters, got {len(text)}: {text!r}")
    bad = sorted(set(text) - _B64_SET)
    if bad:
        raise ValueError(f"{what} has characters outside base64: {''.join(bad)!r}")
    pad = "=" * (-nchars % 4)
    raw = base64.b64decode(text + pad)
    if len(raw) != nbytes or base64.b64encode(raw).decode("ascii").rstrip("=") != text:
        raise ValueError(f"{what} has non-zero padding bits: {text!r}")
    return raw


def position_from_id(pid: str) -> npt.NDArray[np.int64]:
    """State of a gnubg Position ID (player on roll = mover, TURN 0, no dice); ValueError if
    malformed."""
    if type(pid) is str and len(pid) == P.ID_LEN and pid.isascii():
        s = np.empty(B.STATE_LEN, dtype=np.int64)
        if P.decode_id(pid.encode(), s) == B.ERR_NONE:
            return s
    return _parse_position_id(pid)  # words the problem


def _parse_position_id(pid):
    """position_from_id step by step in Python, for the message naming what is wrong."""
    raw = _decode_b64(pid, 14, 10, "Position ID")
    bits = np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little")
    ends = np.flatnonzero(bits == 0)[:50]  # each run ends with a 0
    counts = np.diff(ends, prepend=-1) - 1
    for side in range(2):
        if ends.size < 25 * (side + 1):
            raise ValueError(f"Position ID {pid!r} runs out of bits (too many checkers)")
        total = int(counts[25 * side : 25 * side + 25].sum())
        if total > B.N_CHECKERS:
            raise ValueError(f"Position ID {pid!r} has {total} checkers for one side (at most 15)")
    if bits[ends[-1] + 1 :].any():
        raise ValueError(f"Position ID {pid!r} has set bits after the two sides")
    return _from_counts(counts[:25].astype(np.int64), counts[25:].astype(np.int64), 0)


# ----------------------------------------------------------------------------- Match ID

_MATCH_FIELDS = (  # (name, width), in bit order
    ("cube_log2", 4),
    ("cube_owner", 2),
    ("dice_owner", 1),
    ("crawford", 1),
    ("game_state", 3),
    ("turn", 1),
    ("double_offered", 1),
    ("resign", 2),
    ("die1", 3),
    ("die2", 3),
    ("match_length", 15),
    ("score0", 15),
    ("score1", 15),
)


def _flag(x, name):
    if not isinstance(x, (bool, np.bool_)) and not (is_int(x) and x in (0, 1)):
        raise TypeError(f"{name} must be True or False, got {x!r}")
    return int(bool(x))


def _small_int(x, name, hi):
    if not is_int(x):
        raise TypeError(f"{name} must be an integer, got {x!r}")
    if not 0 <= x <= hi:
        raise ValueError(f"{name} must be 0..{hi}, got {x}")
    return int(x)


def match_id(
    state: npt.ArrayLike,
    dice: Sequence[int] | None = None,
    match_length: int = 0,
    score: Sequence[int] = (0, 0),
    crawford: bool = False,
    game_state: int = 1,
    double_offered: bool = False,
    resign: int = 0,
    turn: int | None = None,
) -> str:
    """12-character gnubg Match ID. Cube value/owner and the player on roll come from state;
    dice default to the state's full roll (higher die first) or none (0, 0); turn defaults to the
    player on roll (set it to the other player while a double is offered)."""
    s = check_state(state)
    if dice is None:
        d1, d2 = (int(x) for x in game.dice_of(s))
    else:
        if isinstance(dice, (str, bytes)) or not hasattr(dice, "__len__"):
            raise TypeError(f"dice must be a pair of integers, got {dice!r}")
        if len(dice) != 2:
            raise ValueError(f"dice must be a pair, got {dice!r}")
        if all(is_int(d) and d == 0 for d in dice):
            d1, d2 = 0, 0
        else:
            d1, d2 = check_dice(*dice)
    match_length = _small_int(match_length, "match_length", (1 << 15) - 1)
    if isinstance(score, (str, bytes)) or not hasattr(score, "__len__"):
        raise TypeError(f"score must be a pair of integers, got {score!r}")
    if len(score) != 2:
        raise ValueError(f"score must be a pair, got {score!r}")
    s0, s1 = (_small_int(x, "score", (1 << 15) - 1) for x in score)
    if match_length and (s0 >= match_length or s1 >= match_length):
        raise ValueError(f"score {s0}-{s1} is not below the match length {match_length}")
    on_roll = int(s[B.TURN])
    cube, owner = int(s[B.CUBE_VALUE]), int(s[B.CUBE_OWNER])
    fields = {
        "cube_log2": cube.bit_length() - 1,
        "cube_owner": 3 if owner == -1 else owner,
        "dice_owner": on_roll,
        "crawford": _flag(crawford, "crawford"),
        "game_state": _small_int(game_state, "game_state", 4),
        "turn": on_roll if turn is None else _check_turn(turn),
        "double_offered": _flag(double_offered, "double_offered"),
        "resign": _small_int(resign, "resign", 3),
        "die1": d1,
        "die2": d2,
        "match_length": match_length,
        "score0": s0,
        "score1": s1,
    }
    bits = 0
    pos = 0
    for name, width in _MATCH_FIELDS:
        bits |= fields[name] << pos
        pos += width
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def parse_match_id(mid: str) -> dict[str, int | bool | tuple[int, int]]:
    """Decode a 12-character gnubg Match ID into a dict (cube_value, cube_owner -1/0/1, dice_owner,
    crawford, game_state, turn, double_offered, resign, dice, match_length, score)."""
    raw = _decode_b64(mid, 12, 9, "Match ID")
    bits = int.from_bytes(raw, "little")
    if bits >> 66:
        raise ValueError(f"Match ID {mid!r} has bits set beyond bit 66")
    f = {}
    pos = 0
    for name, width in _MATCH_FIELDS:
        f[name] = (bits >> pos) & ((1 << width) - 1)
        pos += width
    if f["cube_owner"] == 2:
        raise ValueError(f"Match ID {mid!r} has cube owner 10b (only 00, 01, 11 exist)")
    if f["game_state"] > 4:
        raise ValueError(f"Match ID {mid!r} has game state {f['game_state']} (0..4)")
    d1, d2 = f["die1"], f["die2"]
    if d1 > 6 or d2 > 6 or (d1 == 0) != (d2 == 0):
        raise ValueError(f"Match ID {mid!r} has impossible dice {d1}-{d2}")
    ml, s0, s1 = f["match_length"], f["score0"], f["score1"]
    if ml and (s0 >= ml or s1 >= ml):
        raise ValueError(f"Match ID {mid!r} has a score {s0}-{s1} not below match length {ml}")
    return {
        "cube_value": 1 << f["cube_log2"],
        "cube_owner": -1 if f["cube_owner"] == 3 else f["cube_owner"],
        "dice_owner": f["dice_owner"],
        "crawford": bool(f["crawford"]),
        "game_state": f["game_state"],
        "turn": f["turn"],
        "double_offered": bool(f["double_offered"]),
        "resign": f["resign"],
        "dice": (d1, d2),
        "match_length": ml,
        "score": (s0, s1),
    }
