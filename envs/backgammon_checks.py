"""Backgammon's validated boundary: the checks of states, batches, dice and options.

``parse_dice`` reads a roll in any of the forms the commands and the web board take.

Every public function here checks its input before a kernel sees it and raises ``TypeError``
for a wrong type or ``ValueError`` for a wrong value, naming the problem. The other notation
modules (backgammon_ids, backgammon_plays) and every adapter check their input here.

State
    ``int64[STATE_LEN]`` seen from the player on roll (kernels/backgammon/board.py).
    ``check_state`` accepts exactly the positions the kernels can play from: counts 0..15 with
    15 checkers a side over points, bar and off; no point held by both sides; not both sides
    borne off; TURN 0/1; dice 0..4 copies a value, at most two values and then one copy each
    (a roll, or what is left of one); cube value a power of two up to 2**15, owner -1/0/1; the
    BB_* occupancy words equal to the counts (``board.refresh_masks`` recomputes them).
    ``check_batch`` does the same for ``int64[B, STATE_LEN]``, naming the first bad row.

Match
    ``int64[MATCH_LEN]`` (kernels/backgammon/match.py): ``new_match(length, score, crawford)``
    builds one from checked settings (MP.1, MP.7), ``check_match`` checks an existing one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from boardgym.envs.checks import is_int
from boardgym.kernels.backgammon import board as B
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import batch_state_error, state_error

__all__ = [
    "is_int",
    "check_state",
    "check_batch",
    "check_dice",
    "check_scoring",
    "check_max_turns",
    "check_match_length",
    "check_play_options",
    "new_match",
    "recordable_start",
    "check_match",
]

_INT64_MAX = np.iinfo(np.int64).max
MAX_TURNS = 1 << 62  # the largest turn cap (the kernels count rolls in int64)
_INT64 = np.dtype(np.int64)


def _int_array(x, name, ndim):
    """x as an int64 NumPy array with ndim dimensions (TypeError / ValueError naming name)."""
    if (
        type(x) is np.ndarray
        and x.dtype == _INT64
        and x.ndim == ndim
        and x.shape[-1] == B.STATE_LEN
        and x.flags.c_contiguous
    ):
        return x  # the common case, checked first
    if isinstance(x, str):
        raise TypeError(
            f"{name} must be an integer array, got a string: for a gnubg Position ID such as "
            f"{x[:20]!r} use position_from_id(id)"
        )
    if x is None or isinstance(x, (bytes, dict, set)):
        raise TypeError(f"{name} must be an integer array, got {type(x).__name__}")
    if isinstance(x, np.ndarray):
        a = x
    else:
        try:
            a = np.asarray(x)
        except (ValueError, TypeError) as e:
            raise ValueError(f"{name} is not a rectangular array of integers: {e}") from None
    if a.dtype == np.bool_ or a.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers (int64), got dtype {a.dtype}")
    if a.ndim != ndim or a.shape[-1] != B.STATE_LEN:
        want = f"({B.STATE_LEN},)" if ndim == 1 else f"(B, {B.STATE_LEN})"
        raise ValueError(f"{name} must have shape {want}, got {a.shape}")
    if a.dtype == np.int64 and a.flags.c_contiguous:
        return a
    if a.dtype.kind == "u" and a.dtype.itemsize >= 8 and a.size and int(a.max()) > _INT64_MAX:
        raise ValueError(f"{name} holds a value above the int64 range")
    return np.ascontiguousarray(a, dtype=np.int64)


def _field(k):
    if k < B.OPP:
        return f"checkers of the player on roll on point {k + 1}"
    if k < B.BAR_ME:
        return f"opponent's checkers on point {k - B.OPP + 1} (mover's numbering)"
    return {
        B.BAR_ME: "bar of the player on roll",
        B.BAR_OPP: "opponent's bar",
        B.OFF_ME: "checkers borne off by the player on roll",
        B.OFF_OPP: "checkers borne off by the opponent",
    }[k]


def _problem(s, code, k):
    """Text of state_error's (code, k) for state s."""
    if code == B.ERR_COUNT:
        return f"{_field(k)} is {int(s[k])} (index {k}): counts are 0..{B.N_CHECKERS}"
    if code == B.ERR_TOTAL:
        side, base, bar, off = (
            ("the player on roll", B.ME, B.BAR_ME, B.OFF_ME)
            if k == 0
            else ("the opponent", B.OPP, B.BAR_OPP, B.OFF_OPP)
        )
        total = int(s[base : base + 24].sum() + s[bar] + s[off])
        return f"{side} has {total} checkers on points, bar and off (a side has 15)"
    if code == B.ERR_SHARED:
        return f"both sides have checkers on point {k + 1} (mover's numbering)"
    if code == B.ERR_BOTH_OFF:
        return "both sides have borne off all 15 checkers"
    if code == B.ERR_TURN:
        return f"TURN (index {B.TURN}) is {int(s[B.TURN])}: the player on roll is 0 or 1"
    if code == B.ERR_DICE:
        return (
            f"{int(s[B.DICE + k])} dice of value {k + 1} (index {B.DICE + k}): "
            "a roll has 0..4 dice of a value"
        )
    if code == B.ERR_ROLL:
        left = s[B.DICE : B.DICE + 6].tolist()
        return f"dice counts {left} (values 1..6) are not what is left of one roll"
    if code == B.ERR_CUBE_VALUE:
        return (
            f"cube value (index {B.CUBE_VALUE}) is {int(s[B.CUBE_VALUE])}: "
            f"a power of two 1..{B.MAX_CUBE_VALUE}"
        )
    if code == B.ERR_CUBE_OWNER:
        return f"cube owner (index {B.CUBE_OWNER}) is {int(s[B.CUBE_OWNER])}: -1 (centred), 0 or 1"
    if code == B.ERR_CUBE_LIMIT:
        return (
            f"cube limit (index {B.CUBE_LIMIT}) is {int(s[B.CUBE_LIMIT])}: a power of two "
            f"from the cube's value {int(s[B.CUBE_VALUE])} to {B.MAX_CUBE_VALUE}"
        )
    names = {B.BB_ME: "BB_ME", B.BB_ME2: "BB_ME2", B.BB_OPP: "BB_OPP", B.BB_OPP2: "BB_OPP2"}
    return (
        f"occupancy word {names.get(k, k)} (index {k}) disagrees with the checker counts "
        "(boardgym.kernels.backgammon.board.refresh_masks recomputes it)"
    )


def check_state(state: npt.ArrayLike, name: str = "state") -> npt.NDArray[np.int64]:
    """The validated position (int64[STATE_LEN], C-contiguous; the same array when it already is
    one); TypeError for a wrong type or dtype, ValueError naming what is wrong with its shape or
    contents (module docstring)."""
    s = _int_array(state, name, 1)
    code, k = state_error(s)
    if code != B.ERR_NONE:
        raise ValueError(f"{name}: {_problem(s, code, k)}")
    return s


def check_batch(states: npt.ArrayLike, name: str = "states") -> npt.NDArray[np.int64]:
    """check_state for every row of states (int64[B, STATE_LEN]) -> the validated array;
    the error names the first bad row."""
    a = _int_array(states, name, 2)
    row, code, k = batch_state_error(a)
    if row >= 0:
        raise ValueError(f"{name}[{row}]: {_problem(a[row], code, k)}")
    return a


def check_dice(die1: int, die2: int) -> tuple[int, int]:
    """(die1, die2) as ints 1..6; TypeError unless both are integers (not bool), ValueError if
    one is outside 1..6."""
    for d in (die1, die2):
        if not is_int(d):
            raise TypeError(f"a die must be an integer 1..6, got {d!r} ({type(d).__name__})")
        if not 1 <= int(d) <= 6:
            raise ValueError(f"a die must be 1..6, got {int(d)}")
    return int(die1), int(die2)


def check_playable(state: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """check_state, and ValueError if the game is over there (a side has borne off all 15
    checkers: a game started from it ends before a move)."""
    s = check_state(state)
    for who, off in (("the player on roll", B.OFF_ME), ("its opponent", B.OFF_OPP)):
        if s[off] == 15:
            raise ValueError(
                f"the game is over in this position: {who} has borne off all 15 checkers"
            )
    return s


def parse_dice(value: str | Sequence[int | str]) -> tuple[int, int]:
    """(die1, die2) of a roll written ``3-1``, ``31``, ``3 1`` or ``3,1``, or given as two
    integers or strings (``(3, 1)``, ``["3", "1"]``; one string in a sequence reads as text);
    ValueError naming the problem."""
    if isinstance(value, (list, tuple)) and len(value) == 1 and isinstance(value[0], str):
        value = value[0]
    if isinstance(value, str):
        m = _DICE_TEXT.fullmatch(value) if len(value) < 40 else None
        if m is None:
            raise ValueError(f"expected two dice 1..6 such as 3-1 or 3 1, got {value[:40]!r}")
        return int(m.group(1)), int(m.group(2))
    shown = " ".join(map(str, value)) if isinstance(value, (list, tuple)) else repr(value)
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"expected two dice 1..6 such as 3-1 or 3 1, got {shown[:40]}")
    dice = [int(d) if isinstance(d, str) and d.strip().isdigit() else d for d in value]
    try:
        return check_dice(*dice)
    except (TypeError, ValueError):
        raise ValueError(f"expected two dice 1..6 such as 3-1 or 3 1, got {shown[:40]}") from None


_DICE_TEXT = re.compile(r"\s*([1-6])\s*[-, ]?\s*([1-6])\s*")


def check_scoring(scoring: str) -> int:
    """game.SCORING_SINGLE / SCORING_GAMMON for "single" / "gammon"."""
    if not isinstance(scoring, str):
        raise TypeError(f"scoring must be 'single' or 'gammon', got {type(scoring).__name__}")
    if scoring not in ("single", "gammon"):
        raise ValueError(f"scoring must be 'single' or 'gammon', got {scoring!r}")
    return game.SCORING_SINGLE if scoring == "single" else game.SCORING_GAMMON


def check_max_turns(max_turns: int | None) -> int:
    """The turn cap as the kernels take it: a positive integer, or 0 for None (no cap)."""
    if max_turns is None:
        return 0
    if not is_int(max_turns):
        raise TypeError(f"max_turns must be a positive integer or None, got {max_turns!r}")
    if not 1 <= max_turns <= MAX_TURNS:
        raise ValueError(f"max_turns must be an integer 1..{MAX_TURNS} or None, got {max_turns}")
    return int(max_turns)


def _check_turn(turn):
    if not is_int(turn):
        raise TypeError(f"turn must be 0 or 1, got {turn!r}")
    if turn not in (0, 1):
        raise ValueError(f"turn must be 0 or 1, got {turn}")
    return int(turn)


def check_match_length(length: int) -> int:
    """The match length as an int 0..MAX_MATCH_LENGTH (0: money play); TypeError/ValueError."""
    if not is_int(length):
        raise TypeError(
            f"match_length must be an integer 0..{game.MAX_MATCH_LENGTH} (0: money play), "
            f"got {length!r}"
        )
    if not 0 <= length <= game.MAX_MATCH_LENGTH:
        raise ValueError(
            f"match_length must be 0..{game.MAX_MATCH_LENGTH} (0: money play), got {int(length)}"
        )
    return int(length)


def check_play_options(
    scoring: str | None, cube: bool | None, match_length: int, match_reward: str
) -> tuple[str, bool, int, str]:
    """(scoring, cube, match_length, match_reward) of a backgammon env's options, checked:
    scoring "single" / "gammon" (None: "single", or "gammon" in a match); cube a bool (None:
    False, or True in a match); match_length 0..MAX_MATCH_LENGTH (0: money play); match_reward
    "match" or "points". A match plays with the cube and gammons: cube=False or
    scoring="single" with one is a ValueError."""
    length = check_match_length(match_length)
    if not isinstance(match_reward, str) or match_reward not in ("match", "points"):
        raise ValueError(f"match_reward must be 'match' or 'points', got {match_reward!r}")
    if cube is not None and not isinstance(cube, (bool, np.bool_)):
        raise TypeError(f"cube must be True or False, got {cube!r}")
    if scoring is not None:
        check_scoring(scoring)
    if length:
        if cube is not None and not cube:
            raise ValueError("match play uses the doubling cube: leave cube out or set True")
        if scoring is not None and scoring != "gammon":
            raise ValueError(
                f"match play counts gammons: leave scoring out or set 'gammon', got {scoring!r}"
            )
        cube, scoring = True, "gammon"
    return ("single" if scoring is None else scoring), bool(cube), length, match_reward


def new_match(
    length: int, score: tuple[int, int] = (0, 0), crawford: bool = False
) -> npt.NDArray[np.int64]:
    """A match state (int64[MATCH_LEN]) to length points at score (player_0's, player_1's),
    crawford True when the next game is the Crawford game (MP.7); ValueError/TypeError naming
    the problem: a score at or above the length, a Crawford flag without a score of N - 1, etc."""
    n = check_match_length(length)
    if not isinstance(score, (tuple, list)) or len(score) != 2 or not all(map(is_int, score)):
        raise TypeError(f"score must be two integers (player_0's, player_1's), got {score!r}")
    a, b = int(score[0]), int(score[1])
    if not isinstance(crawford, (bool, np.bool_)):
        raise TypeError(f"crawford must be True or False, got {crawford!r}")
    if n == 0:
        if (a, b) != (0, 0) or crawford:
            raise ValueError("money play (match_length 0) keeps no score and has no Crawford game")
    else:
        for who, s in (("player_0", a), ("player_1", b)):
            if not 0 <= s < n:
                raise ValueError(
                    f"{who}'s score {s} must be 0..{n - 1} in a match to {n} "
                    "(a score of N has already won)"
                )
        if crawford and (a == b or n - 1 not in (a, b)):
            raise ValueError(
                f"a Crawford game needs exactly one score at {n - 1} (match to {n}), got {a}-{b}"
            )
    m = np.zeros(game.MATCH_LEN, dtype=np.int64)
    game.match_init(n, a, b, 1 if crawford else 0, m)
    return m


def recordable_start(
    length: int, score: tuple[int, int] = (0, 0), crawford: bool = False
) -> npt.NDArray[np.int64]:
    """new_match for a match that a match file records from its first game: the same checks,
    and a score with one side at N - 1 must start with the Crawford game (crawford True). A
    match file has no Crawford flag: a first game at N - 1 is read as the Crawford game (MP.7,
    gnubg and backgammon_match.read_match alike), so a post-Crawford start cannot be written."""
    m = new_match(length, score, crawford)
    a, b = int(score[0]), int(score[1])
    if not crawford and length > 1 and (a == length - 1) != (b == length - 1):
        raise ValueError(
            f"at {a}-{b} in a match to {length} without the Crawford game the match is "
            "post-Crawford (MP.7), which a match file cannot record (gnubg takes a first game "
            "at N - 1 for the Crawford game): start it as the Crawford game"
        )
    return m


_MATCH_PROBLEMS = {
    1: f"match length is not 0..{game.MAX_MATCH_LENGTH}",
    2: "a score is outside 0..N",
    3: "both scores are at N",
    4: "the Crawford flag needs exactly one score at N - 1 and the match not over",
    5: "the post-Crawford flag needs no Crawford flag and a score at N - 1 (or the match over)",
    6: "the game count is negative",
    7: "the match winner disagrees with the scores",
}


def check_match(match: npt.ArrayLike, name: str = "match") -> npt.NDArray[np.int64]:
    """The validated match state (int64[MATCH_LEN]); TypeError for a wrong type or dtype,
    ValueError naming what is wrong with it."""
    if not isinstance(match, np.ndarray) or match.dtype == np.bool_ or match.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an int64 match state, got {type(match).__name__}")
    if match.shape != (game.MATCH_LEN,):
        raise ValueError(f"{name} must have shape ({game.MATCH_LEN},), got {match.shape}")
    if match.dtype.kind == "u" and (match > _INT64_MAX).any():
        raise ValueError(f"{name} holds values beyond int64")
    m = np.ascontiguousarray(match, dtype=np.int64)
    code, k = game.match_error(m)
    if code != 0:
        raise ValueError(f"{name}: {_MATCH_PROBLEMS[int(code)]} (index {int(k)})")
    return m
