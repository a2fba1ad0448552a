"""Game records of either game: which game a record or a position is, and its positions.

A record is PDN text (Russian draughts: ``draughts_pdn``) or a Jellyfish / gnubg match file
(backgammon: ``backgammon_match``), of one game or more; a position is a draughts FEN or a gnubg
Position ID (or ``PositionID:MatchID``). ``record_kind`` tells a record's game by its file name
(``.pdn``, ``.mat``) or else by its text, ``position_kind`` a position's by its form.
``record_frames`` replays every game of a record through the rules (a bad move or cube action
is a ``ValueError`` naming it); ``position_at`` is the position after some plies of one game
of the record (draughts moves, backgammon turns, each with the cube actions that follow it; by
default of the first game), a backgammon one turned to the player of the next roll, with that
roll (also a roll not yet played at the end of the record); ``frame_at`` is the frame shown
there (with a match's score and Crawford flag), ``games`` how many games the frames hold.
"""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np
import numpy.typing as npt

from boardgym.envs import backgammon_match, draughts_pdn
from boardgym.envs.backgammon_checks import check_dice, check_state
from boardgym.envs.checks import is_int
from boardgym.kernels.backgammon import game as bg_core
from boardgym.kernels.backgammon.board import TURN

__all__ = [
    "SUFFIXES",
    "record_kind",
    "position_kind",
    "record_frames",
    "games",
    "plies",
    "frame_at",
    "position_at",
]

#: a record file's suffix -> its game
SUFFIXES = {".pdn": "draughts", ".mat": "backgammon"}
_GAMES = ("draughts", "backgammon")
_PID = re.compile(r"^[A-Za-z0-9+/]{14}(:[A-Za-z0-9+/]{12})?$")
_FEN = re.compile(r'^\s*(\[FEN\s+")?\s*[WBwb]\s*:')
# [ \t]* at a line start, not \s* (which crosses lines: quadratic on many blank lines)
_MATCH_TEXT = re.compile(r"point match|^[ \t]*\d+\)\s", re.MULTILINE)


def _check_text(text, what):
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a string, got {type(text).__name__}")
    return text


def record_kind(text: str, name: str | os.PathLike[str] | None = None) -> str:
    """'draughts' or 'backgammon' for a record: by the suffix of its file name (``.pdn``,
    ``.mat``), else by its text (a match file says ``N point match`` or numbers its turns
    ``1)``)."""
    _check_text(text, "record text")
    if name is not None:
        if not isinstance(name, (str, os.PathLike)):
            raise TypeError(f"name must be a file name, got {type(name).__name__}")
        kind = SUFFIXES.get(os.path.splitext(os.fspath(name))[1].lower())
        if kind:
            return kind
    return "backgammon" if _MATCH_TEXT.search(text) else "draughts"


def position_kind(text: str) -> str | None:
    """'backgammon' for a Position ID or PositionID:MatchID, 'draughts' for a FEN, None for
    anything else."""
    _check_text(text, "position")
    if _PID.match(text):
        return "backgammon"
    if _FEN.match(text):
        return "draughts"
    return None


def record_frames(
    text: str, kind: str | None = None
) -> tuple[str, list[dict[str, Any]], dict[str, Any] | None]:
    """(kind, frames, match) of a record: every position of every game with the move that led to
    it (frames of ``draughts_pdn.pdn_frames`` or ``backgammon_match.match_frames``: dicts with
    state, caption, ply, game); match describes the games (None for one PDN game). kind
    'draughts' / 'backgammon' (default: ``record_kind(text)``); ValueError naming what is
    wrong."""
    _check_text(text, "record text")
    if kind is None:
        kind = record_kind(text)
    elif kind not in _GAMES:
        raise ValueError(f"kind must be 'draughts' or 'backgammon', got {kind!r}")
    if kind == "backgammon":
        frames, match = backgammon_match.match_frames(text)
        return "backgammon", frames, match
    frames, games = draughts_pdn.pdn_frames(text)
    return "draughts", frames, None if games is None else {"kind": "pdn", "games": games}


def _check_frames(frames):
    if (
        not isinstance(frames, list)
        or not frames
        or not all(
            isinstance(f, dict) and is_int(f.get("ply")) and isinstance(f.get("state"), np.ndarray)
            for f in frames
        )
    ):
        raise TypeError("frames must be the non-empty list record_frames returns")
    return frames


def _game_numbers(frames):
    """The frames' game numbers in the order the games come."""
    return list(dict.fromkeys(f.get("game") for f in _check_frames(frames)))


def games(frames: list[dict[str, Any]]) -> int:
    """How many games record_frames' frames hold."""
    return len(_game_numbers(frames))


def _game(frames, game):
    """The frames of the game-th game (1 = the first; None: the first); ValueError naming the
    number of games when there is no such game."""
    numbers = _game_numbers(frames)
    if game is None:
        game = 1
    elif not is_int(game) or isinstance(game, bool):
        raise TypeError(f"game must be an integer, got {type(game).__name__}")
    if not 1 <= game <= len(numbers):
        n = len(numbers)
        raise ValueError(
            f"game {game} is not 1..{n}: the record has {n} game{'s' if n != 1 else ''}"
        )
    number = numbers[game - 1]
    return [f for f in frames if f.get("game") == number]


def plies(frames: list[dict[str, Any]], game: int | None = None) -> int:
    """The number of plies (draughts moves, backgammon turns) of the game-th game of frames
    (1 = the first, the default)."""
    return _game(frames, game)[-1]["ply"]


def frame_at(
    frames: list[dict[str, Any]], ply: int | None = None, game: int | None = None
) -> dict[str, Any]:
    """The frame after ply plies (None: all) of the game-th game of record_frames' frames (1 =
    the first, the default): the last one of that ply (after the cube actions that follow its
    roll). ValueError if there is no such game or ply is not 0..plies(frames, game)."""
    frames = _game(frames, game)
    n = frames[-1]["ply"]
    if ply is None:
        ply = n
    elif not is_int(ply) or isinstance(ply, bool):
        raise TypeError(f"ply must be an integer, got {type(ply).__name__}")
    if not 0 <= ply <= n:
        raise ValueError(f"ply {ply} is not 0..{n} (the plies of the game)")
    at = [f for f in frames if f["ply"] == ply]
    if not at:
        raise ValueError(f"no frame after {ply} plies (frames are record_frames' list)")
    return at[-1]


def position_at(
    frames: list[dict[str, Any]], ply: int | None = None, game: int | None = None
) -> tuple[npt.NDArray[np.int64], tuple[int, int] | None]:
    """(state, dice) after ply plies (None: all) of the game-th game of record_frames' frames
    (1 = the first, the default).

    state is int64[STATE_LEN], a copy; a backgammon position before a further roll of its game
    is turned to the player of that roll and dice is the roll (d1, d2), else dice is None.
    ValueError if there is no such game or ply is not 0..plies(frames, game).
    """
    frame = frame_at(frames, ply, game)
    frames = _game(frames, game)
    ply = frame["ply"]
    state, dice = frame["state"].copy(), None
    following = next((f for f in frames if f["ply"] == ply + 1), None)
    if following is None and frame.get("pending"):  # a roll not yet played ends the record
        following = frame
    if following is not None and "dice" in following:  # a backgammon roll
        state = check_state(state, "the frame's state")
        dice, turn = following["dice"], following.get("turn")
        if not isinstance(dice, (list, tuple)) or len(dice) != 2 or turn not in (0, 1):
            raise ValueError("a roll's frame has two dice and the turn 0 or 1")
        dice = check_dice(*dice)
        if turn != state[TURN]:
            state = bg_core.pass_turn(state)  # the other side rolls next (e.g. it opens the game)
    return state, dice
