"""The rules document the kernels implement (``RULES.md``, shipped in the package): the whole
text, one game's part, or one clause by its number (``25.2``, ``B.5``, ``G.1``)."""

import re
from importlib import resources

GAMES = {"draughts": "Russian draughts", "backgammon": "Backgammon"}
_CLAUSE = re.compile(r"^(?P<indent> *)- \*\*(?P<number>(?:[A-Z]+\.)?\d+(?:\.\d+)?[a-z]?)\*\*")


def text() -> str:
    """The whole rules document (Markdown)."""
    return resources.files("boardgym").joinpath("RULES.md").read_text(encoding="utf-8")


def game_text(game: str) -> str:
    """The part of the rules document about game ('draughts' or 'backgammon'), its heading first."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {tuple(GAMES)}")
    lines = text().splitlines()
    start = lines.index(f"## {GAMES[game]}")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[start:end]).rstrip().rstrip("-").rstrip() + "\n"


def clauses(game: str | None = None) -> dict[str, str]:
    """{clause number: its text} of every numbered clause of game (None: both), in the
    document's order; a clause's text holds its continuation lines and its sub-clauses (G.2
    holds G.2a-G.2e)."""
    lines = (text() if game is None else game_text(game)).splitlines()
    out = {}
    for i, line in enumerate(lines):
        m = _CLAUSE.match(line)
        if m is None:
            continue
        depth, end = len(m["indent"]), i + 1
        while end < len(lines) and lines[end].strip() and _indent(lines[end]) > depth:
            end += 1
        out[m["number"]] = "\n".join(lines[i:end]) + "\n"
    return out


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def clause(number: str) -> str:
    """The text of one clause ('25.2', 'B.5'); ValueError naming the known numbers if unknown."""
    if not isinstance(number, str):
        raise TypeError(f"a clause number is a string such as '25.2', got {number!r}")
    found = clauses()
    if number.strip() not in found:
        raise ValueError(f"no clause {number!r} in the rules; clauses: {', '.join(found)}")
    return found[number.strip()]
