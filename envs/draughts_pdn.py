"""PDN game records for Russian draughts (``[GameType "25"]``, algebraic moves).

``game_to_pdn(moves, start_fen=None, result="*", **tags)`` writes a game; ``read_pdn(text)``
reads one back and replays it through the kernel, so every move is checked
(``ValueError`` names the first illegal or malformed one). Results use the Russian 2-0 / 1-1 /
0-2 convention as in PDN GameType 25 files; ``1-0``, ``1/2-1/2`` and ``0-1`` are read too.
Comments ``{...}``, move numbers (``1.``, ``1...``) and NAGs (``$n``, ``!``/``?``) are skipped.
``pdn_frames(text)`` reads a file of one or more games (a tag line after a game's moves begins
the next one): every position of every game with the move that led to it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from boardgym.envs import draughts as api

_INITIAL_FEN = api.to_fen(api.initial_state())
_RESULTS = {
    "2-0": "2-0",
    "1-0": "2-0",
    "0-2": "0-2",
    "0-1": "0-2",
    "1-1": "1-1",
    "1/2-1/2": "1-1",
    "*": "*",
}
MAX_GAMES = 200  # games in one PDN file
_TAG = re.compile(r'^\s*\[(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')


def game_to_pdn(
    moves: Sequence[str],
    start_fen: str | None = None,
    result: str = "*",
    capture_sep: str = ":",
    **tags: object,
) -> str:
    """PDN text of a game: tags, optional FEN setup, numbered algebraic moves, result.

    capture_sep is ``":"`` (``c3:e5:g3``, as boardgym/RULES.md writes captures) or ``"x"``
    (``c3xe5xg3``, what pydraughts' move parser takes)."""
    if isinstance(moves, (str, bytes)) or not isinstance(moves, (list, tuple)):
        raise TypeError(f"moves must be a list of PDN move strings, got {type(moves).__name__}")
    if not isinstance(result, str):
        raise TypeError(f"result must be a string, got {type(result).__name__}")
    if not isinstance(capture_sep, str) or capture_sep not in (":", "x"):
        raise ValueError(f"capture_sep must be ':' or 'x', got {capture_sep!r}")
    if result not in _RESULTS:
        raise ValueError(f"unknown result {result!r}; expected one of {sorted(_RESULTS)}")
    fen = _INITIAL_FEN if start_fen is None else start_fen
    state = api.from_fen(fen)
    for i, mv in enumerate(moves):  # validate before writing
        try:
            state = api.apply(state, mv)
        except ValueError as e:
            raise ValueError(f"move {i + 1} {mv!r} is not legal: {e}") from None
    for k, v in tags.items():
        if not re.fullmatch(r"[A-Za-z0-9_]+", k) or re.search(r'["\\\n\r]', str(v)):
            raise ValueError(
                f"PDN tag {k}={str(v)!r}: names are letters, digits and _, values "
                "hold no quote, backslash or line break"
            )
    head = {"Event": "?", "GameType": "25", **{k: str(v) for k, v in tags.items()}}
    head["Result"] = _RESULTS[result]
    if fen != _INITIAL_FEN:
        head["SetUp"] = "1"
        head["FEN"] = fen
    lines = [f'[{k} "{v}"]' for k, v in head.items()]
    black_first = fen.lstrip("[").upper().startswith("B")
    body, num = [], 1
    for i, mv in enumerate(moves):  # a move number and its move stay on one line
        white_turn = (i % 2 == 0) != black_first
        mv = mv.replace(":", capture_sep)
        if white_turn:
            body.append(f"{num}. {mv}")
        else:
            body.append(f"{num}... {mv}" if i == 0 else mv)
            num += 1
    body.append(_RESULTS[result])
    text, line = [], ""
    for tok in body:  # wrap at 79 columns between moves
        if len(line) + len(tok) + 1 > 79:
            text.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    text.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(text) + "\n"


def _strip_comments(text):
    """text with its {comments} replaced by spaces, in one pass (a regex over an unclosed '{'
    rescans the rest of the text from every later '{'); ValueError if one is never closed."""
    parts, i = [], 0
    while True:
        j = text.find("{", i)
        if j < 0:
            parts.append(text[i:])
            return " ".join(parts)
        k = text.find("}", j)
        if k < 0:
            raise ValueError(f"PDN comment opened at {text[j : j + 20]!r} is never closed")
        parts.append(text[i:j])
        i = k + 1


def read_pdn(text: str) -> tuple[dict[str, str], str, list[str], str, npt.NDArray[np.int64]]:
    """(tags dict, start FEN, list of PDN moves, result, final state) of one PDN game."""
    if not isinstance(text, str):
        raise TypeError(f"PDN must be a string, got {type(text).__name__}")
    tags, body = {}, []
    for line in text.splitlines():
        m = _TAG.match(line)
        if m:
            tags[m.group(1)] = m.group(2)
        elif line.strip().startswith("["):
            raise ValueError(f"malformed PDN tag line {line.strip()!r}")
        else:
            body.append(line)
    if tags.get("GameType", "25").split(",")[0] != "25":
        raise ValueError(f"GameType {tags['GameType']!r} is not Russian draughts (25)")
    moves_text = _strip_comments(" ".join(body))
    fen = tags.get("FEN", _INITIAL_FEN)
    state = api.from_fen(fen)
    moves, result = [], tags.get("Result", "*")
    for tok in moves_text.split():
        if tok in _RESULTS:
            result = tok
            continue
        tok = re.sub(r"^[0-9]+\.(\.\.)?", "", tok).rstrip("!?")
        if not tok or tok.startswith("$"):
            continue
        try:
            state = api.apply(state, tok)
        except ValueError as e:
            raise ValueError(f"PDN move {len(moves) + 1} {tok!r}: {e}") from None
        moves.append(tok)
    if result not in _RESULTS:
        raise ValueError(f"unknown PDN result {result!r}")
    return tags, fen, moves, _RESULTS[result], state


def _split_pdn(text):
    """The games of a PDN file: a tag line after a game's moves begins the next game."""
    games, lines, moves_seen = [], [], False
    for line in text.splitlines():
        tag = line.lstrip().startswith("[")
        if tag and moves_seen:
            games.append("\n".join(lines))
            lines, moves_seen = [], False
            if len(games) >= MAX_GAMES:
                raise ValueError(f"more than {MAX_GAMES} games in one PDN file")
        lines.append(line)
        moves_seen = moves_seen or (not tag and bool(line.strip()))
    if any(line.strip() for line in lines):
        games.append("\n".join(lines))
    return games


def pdn_frames(text: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """(frames, games) of a PDN file of one or more games: every position with the move that led
    to it; a frame is {state (int64[STATE_LEN]), caption, ply (moves played in its game), game,
    last_move (the move's PDN with every landing square; None at the start)};
    games is None for one game, else [{number, white, black, result, first, last}] (frame
    indices). TypeError unless text is a string, ValueError naming the first bad move."""
    if not isinstance(text, str):
        raise TypeError(f"PDN must be a string, got {type(text).__name__}")
    if text.rfind("{") > text.rfind("}"):  # (and the comment scan stays linear)
        raise ValueError("a { comment is not closed by }")
    texts = _split_pdn(text)
    frames, games = [], []
    for number, one in enumerate(texts, 1):
        try:
            tags, fen, moves, result, _ = read_pdn(one)
        except ValueError as e:
            raise ValueError(f"game {number}: {e}" if len(texts) > 1 else str(e)) from None
        white, black = tags.get("White", "White"), tags.get("Black", "Black")
        head = f"game {number}: {white} - {black}: " if len(texts) > 1 else ""
        first = len(frames)
        state = api.from_fen(fen)
        frames.append(
            {
                "state": state,
                "caption": f"{head}start: {fen}",
                "ply": 0,
                "game": number,
                "last_move": None,
            }
        )
        for k, move in enumerate(moves):
            route = api.full_move(state, move)  # every landing square of a short-form capture
            state = api.apply(state, route)
            number_ = k // 2 + 1
            caption = f"{number_}. {move}" if k % 2 == 0 else f"{number_}... {move}"
            frames.append(
                {
                    "state": state,
                    "caption": caption,
                    "ply": k + 1,
                    "game": number,
                    "last_move": route,
                }
            )
        if result and result != "*":
            frames[-1]["caption"] += f"  ({result})"
        games.append(
            {
                "number": number,
                "white": white,
                "black": black,
                "result": result,
                "first": first,
                "last": len(frames) - 1,
            }
        )
    if not frames:
        raise ValueError("no game found in the PDN text")
    return frames, (games if len(games) > 1 else None)
