"""Hub protocol text for Russian draughts: lines, positions and moves as Hub GUIs write them.

The protocol is Hub version 2 as Scan 3.1 speaks it (its ``protocol.txt``), on the 32 squares
of Russian draughts (the engine loop is scripts/hub.py, ``boardgym hub``).

- A line is ``<command> <arg>=<value> ...``, a value with a space, a ``=`` or nothing in double
  quotes (``parse_line``, ``line``, ``quote``).
- A position is ``<side><32 squares>``: side ``W``/``B``, then squares 1..32 in the standard
  Russian numbering (1 = b8 .. 32 = g1, boardgym/RULES.md, Notation), each ``w`` / ``b`` (men),
  ``W`` / ``B`` (kings) or ``e`` (empty) (``position_from_hub``, ``position_to_hub``).
- A move is ``22-17``, or ``from x to x captured x ...`` for a capture (every captured square,
  any order: ``22x13x18``; ``axb`` alone when only one capture goes from a to b); algebraic
  squares (``c3-d4``) are read too. With ``a1`` squares are numbered from a1 (a1 = 1, c1 = 2 ..
  h8 = 32), as pydraughts (0.6) numbers its Russian board (``move_to_hub``, ``move_from_hub``).

Malformed or illegal text raises ``HubError`` (a ``ValueError``) naming it.
"""

from __future__ import annotations

import re
import shlex

import numpy as np
import numpy.typing as npt

from boardgym.envs import draughts as api
from boardgym.kernels.draughts import game
from boardgym.kernels.draughts.board import (
    GHOST_TO_SQ32,
    M_CAPTURED,
    M_FROM,
    M_TO,
    MAX_MOVES,
    ROW_LEN,
    sq32_to_pdn,
)


class HubError(ValueError):
    """A command the engine cannot use (answered with an ``error`` line)."""


def parse_line(line: str) -> tuple[str, dict[str, str]]:
    """(command, {arg: value}) of a protocol line (a flag has the value ''); HubError if the
    quotes do not match. ('', {}) for an empty line."""
    try:
        words = shlex.split(line, posix=True)
    except ValueError as e:
        raise HubError(f"cannot read the line ({e})") from None
    if not words:
        return "", {}
    args = {}
    for w in words[1:]:
        k, _, v = w.partition("=")
        args[k] = v
    return words[0], args


def quote(value: object) -> str:
    """A value as the protocol writes it (double quotes around spaces, '=' or nothing)."""
    s = str(value)
    if s == "" or any(c in s for c in ' ="\t'):
        return '"' + s.replace('"', "'") + '"'
    return s


def line(command: str, **args: object) -> str:
    """A protocol line: ``command k=v ...`` (underscores in k become '-'; None values dropped;
    True is a flag)."""
    parts = [command]
    for k, v in args.items():
        if v is None:
            continue
        k = k.replace("_", "-")
        parts.append(k if v is True else f"{k}={quote(v)}")
    return " ".join(parts)


_PIECES = {"w": ("W", ""), "W": ("W", "K"), "b": ("B", ""), "B": ("B", "K")}


def position_from_hub(text: str) -> npt.NDArray[np.int64]:
    """Position vector of a Hub position string (side + 32 squares); HubError if malformed."""
    if len(text) != 33 or text[0] not in "WB" or any(c not in "wbWBe" for c in text[1:]):
        raise HubError(f"bad position {text!r}: expected W or B then 32 squares of w, b, W, B, e")
    lists = {"W": [], "B": []}
    for n, c in enumerate(text[1:], start=1):
        if c != "e":
            colour, king = _PIECES[c]
            lists[colour].append(f"{king}{n}")
    fen = f"{text[0]}:W{','.join(lists['W'])}:B{','.join(lists['B'])}"
    try:
        return api.from_fen(fen)
    except ValueError as e:
        raise HubError(f"bad position {text!r}: {e}") from None


def position_to_hub(state: str | npt.ArrayLike) -> str:
    """The Hub position string of a whole-move position vector."""
    fen = api.to_fen(state)  # validates; algebraic squares
    side, white, black = fen.split(":")
    squares = ["e"] * 32
    for colour, items in (("w", white[1:]), ("b", black[1:])):
        for item in filter(None, items.split(",")):
            king = item.startswith("K")
            n = sq32_to_pdn(api.parse_square(item.lstrip("K")))
            squares[n - 1] = colour.upper() if king else colour
    return side + "".join(squares)


def _number(sq32, a1):
    """The number of a sq32 square: standard (1 = b8) or, with a1, counted from a1 (a1 = 1)."""
    return int(sq32) + 1 if a1 else sq32_to_pdn(int(sq32))


def _square(token, a1):
    """sq32 of a move's square: a number (standard, or from a1 with a1) or algebraic."""
    t = token.strip()
    if a1 and t.isascii() and t.isdigit():
        if not 1 <= int(t) <= 32:
            raise ValueError(f"unknown square {token!r}: numeric squares are 1..32")
        return int(t) - 1
    return api.parse_square(t)


def _captured(row, a1=False):
    """Numbers (1..32) of the squares a move row captures, ascending."""
    bits = np.flatnonzero((int(row[M_CAPTURED]) >> np.arange(36)) & 1)
    return sorted(_number(GHOST_TO_SQ32[g], a1) for g in bits)


def move_to_hub(row: npt.NDArray[np.int64], a1: bool = False) -> str:
    """Hub text of a move row: ``22-17``, or ``from x to x captured ...`` for a capture (a1:
    squares numbered from a1, see ``move-numbering``)."""
    a = _number(GHOST_TO_SQ32[row[M_FROM]], a1)
    b = _number(GHOST_TO_SQ32[row[M_TO]], a1)
    cap = _captured(row, a1)
    if not cap:
        return f"{a}-{b}"
    return "x".join(str(q) for q in [a, b] + cap)


def move_from_hub(state: npt.ArrayLike, text: str, a1: bool = False) -> npt.NDArray[np.int64]:
    """The legal move row of a whole-move position that a Hub move names; HubError if none.

    ``a-b`` is a simple move; ``axb`` a capture from a to b (if only one); ``axbxc...`` a capture
    from a to b taking the pieces on c... (any order). Squares are numbers 1..32 (standard, or
    from a1 with a1) or algebraic.
    """
    state = api.check_state(state)
    if not isinstance(text, str):
        raise TypeError(f"a Hub move is a string such as '22-17', got {text!r}")
    toks = re.split(r"[-x]", text)
    try:
        sqs = [_square(t, a1) for t in toks]
    except ValueError as e:
        raise HubError(f"bad move {text!r}: {e}") from None
    if len(sqs) < 2:
        raise HubError(f"bad move {text!r}: expected from-to or from x to x captured ...")
    capture = "x" in text
    rows = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    n = game.gen_moves(state, rows)
    want_cap = sorted(_number(q, a1) for q in sqs[2:])
    hits = []
    for r in rows[:n]:
        if GHOST_TO_SQ32[r[M_FROM]] != sqs[0] or GHOST_TO_SQ32[r[M_TO]] != sqs[1]:
            continue
        if (r[M_CAPTURED] != 0) != capture:
            continue
        if capture and len(sqs) > 2 and _captured(r, a1) != want_cap:
            continue
        hits.append(r)
    if len(hits) != 1:
        legal = " ".join(move_to_hub(r, a1) for r in rows[:n])
        why = "ambiguous" if hits else "illegal"
        raise HubError(f"{why} move {text!r} in {position_to_hub(state)}; legal: {legal}")
    return hits[0].copy()
