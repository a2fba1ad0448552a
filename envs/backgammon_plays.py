"""Backgammon plays: the legal plays of a roll and their text (gnubg style).

Every public function here checks its input before a kernel sees it and raises ``TypeError``
for a wrong type or ``ValueError`` for a wrong value, naming the problem. The rules are the game
core's (``boardgym.kernels.backgammon.game``; clauses B.1-B.6, E.1-E.7, O.1-O.3 of
boardgym/RULES.md): plays, routes and afterstates all come from it.

legal_plays
    Exactly GNU Backgammon's convention (verified against ``gnubg_nn.moves(board, d1, d2)`` keys
    -> ``board_from_position_key`` -> ``position_id``): each afterstate is encoded right after the
    play, before the turn passes, so the mover is still the second block and any checker it hit
    sits on the opponent's bar in the first block. When nothing can move, the list is the
    unchanged position's ID (the pass). Decoding, generation, encoding and sorting are one kernel
    call. ``legal_afterstates`` gives the same plays of a state as an array.

Play notation (gnubg style)
    Moves from the mover's view, highest source first: ``24/18 13/11``, ``bar/22*`` (``*`` marks a
    hit), ``6/off``; a checker moved on is written as one move whose intermediate points appear
    only where it hit (``24/13``, ``24/18*/13``); repeated identical moves are ``8/5(2)``. The text
    is the kernel's route of the play (game.plays: a checker moved on is one chain; two checkers
    hitting on one point: the lower one hits). ``parse_play`` also accepts ``8/5 8/5``,
    ``24/18/13``, ``24/18 18/13``, ``25`` for the bar and ``0`` for off; ``*`` may be omitted when
    the play is unambiguous without it. It matches a text to a play by the net movement of the
    mover's checkers and the points hit. The pass is written ``""``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from boardgym.envs.backgammon_checks import check_dice, check_state
from boardgym.envs.backgammon_ids import _ids, _parse_position_id
from boardgym.envs.checks import is_int
from boardgym.kernels.backgammon import board as B
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon import position_id as P
from boardgym.kernels.backgammon.movegen import MV_DIE, MV_FROM, MV_HIT, MV_TO

__all__ = [
    "legal_plays",
    "legal_afterstates",
    "play_to_str",
    "parse_play",
    "play_actions",
]


class _Workspace(threading.local):
    """Buffers of the kernels behind legal_plays and legal_afterstates, one set per thread: the
    int64 scratch, and the ID characters (a bytearray, seen by the kernel as uint8)."""

    def __init__(self):
        self.buf = np.empty(P.BUF_WORDS, dtype=np.int64)
        self.text = bytearray(P.CHARS_LEN)
        self.chars = np.frombuffer(self.text, dtype=np.uint8)
        self.rows = self.buf[: game.MAX_AFTERSTATES * B.STATE_LEN].reshape(
            (game.MAX_AFTERSTATES, B.STATE_LEN)
        )
        self.ids = (self.buf, self.chars, self.text)  # one attribute read in legal_plays


_ws = _Workspace()
_legal_play_ids = P.legal_play_ids
_STRIDE = P.ID_LEN + 1  # an ID and a space

# ----------------------------------------------------------------------------- plays


def _plays(s, d1, d2):
    """(afterstates, routes) of roll d1-d2 from validated s, from the game core."""
    rows = np.empty((game.MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    routes = np.empty((game.MAX_AFTERSTATES, game.MAX_MOVES, game.MV_FIELDS), dtype=np.int64)
    n = game.plays_of_roll(s, d1, d2, rows, routes)
    return rows[:n], routes[:n]


def legal_plays(pid: str, die1: int, die2: int) -> list[str]:
    """Sorted Position IDs of the distinct legal afterstates of roll die1-die2 (gnubg
    convention)."""
    if not (type(die1) is int and type(die2) is int and 0 < die1 < 7 and 0 < die2 < 7):
        die1, die2 = check_dice(die1, die2)
    if type(pid) is str and len(pid) == P.ID_LEN and pid.isascii():
        buf, chars, text = _ws.ids
        n = _legal_play_ids(pid.encode(), die1, die2, buf, chars)
        if n > 0:
            return text[: _STRIDE * n - 1].decode("ascii").split(" ")
    s = _parse_position_id(pid)  # raises, naming the problem
    out = np.empty((game.MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    n = game.plays_of_roll(s, die1, die2, out, None)
    return sorted(_ids(out[:n]))


def legal_afterstates(state: npt.ArrayLike, die1: int, die2: int) -> npt.NDArray[np.int64]:
    """The distinct legal afterstates of roll die1-die2 from state (its own dice ignored):
    int64[n, STATE_LEN], the mover's view right after the play (before the turn passes), dice
    cleared; with no legal move, one row: the unchanged position (the pass). Rows in the game
    core's order (game.plays_of_roll)."""
    s = check_state(state)
    d1, d2 = check_dice(die1, die2)
    w = _ws
    n = game.plays_of_roll(s, d1, d2, w.rows, None)
    return w.rows[:n].copy()


_TOKEN = re.compile(r"^(bar|off|\d{1,2})(\*?)((?:/(?:bar|off|\d{1,2})\*?)+)(?:\((\d)\))?$")


def _pt_str(p):
    return "bar" if p == B.BAR_POINT else "off" if p <= 0 else str(p)


def _steps(route):
    """(from, to, hit) moves of a kernel route (int64[MAX_MOVES, MV_FIELDS])."""
    return [(int(m[MV_FROM]), int(m[MV_TO]), bool(m[MV_HIT])) for m in route if m[MV_FROM] > 0]


def _journeys(steps):
    """Group steps into checker journeys: list of lists of (point, hit) starting with
    (from, False)."""
    js = []
    for f, t, hit in steps:
        for j in reversed(js):
            if j[-1][0] == f and f != 0:
                j.append((t, hit))
                break
        else:
            js.append([(f, False), (t, hit)])
    return js


def _format_steps(steps):
    """gnubg-style text of a move sequence (see module docstring)."""
    tokens = []
    for j in _journeys(steps):
        pts = [j[0]] + [p for p in j[1:-1] if p[1]] + [j[-1]]
        tokens.append(
            (j[0][0], j[-1][0], "/".join(_pt_str(p) + ("*" if h else "") for p, h in pts))
        )
    tokens.sort(key=lambda x: (-x[0], -x[1], x[2]))
    out = []
    i = 0
    while i < len(tokens):
        k = i
        while k < len(tokens) and tokens[k][2] == tokens[i][2]:
            k += 1
        out.append(tokens[i][2] + (f"({k - i})" if k - i > 1 else ""))
        i = k
    return " ".join(out)


def _places(a):
    """Mover's checkers per place (off, points 1..24, bar) of states a (int64[..., STATE_LEN])."""
    return np.concatenate(
        [
            a[..., B.OFF_ME : B.OFF_ME + 1],
            a[..., B.ME : B.ME + 24],
            a[..., B.BAR_ME : B.BAR_ME + 1],
        ],
        axis=-1,
    )


def _parse_segments(norm, text):
    """Checker paths of play text: list of [(point, hit), ...] (25 = bar, 0 = off)."""
    segments = []
    for tok in norm.split():
        m = _TOKEN.match(tok)
        if not m:
            raise ValueError(f"malformed move {tok!r} in {text!r}")
        path = []
        for k, raw in enumerate([m.group(1) + m.group(2)] + m.group(3).split("/")[1:]):
            hit = raw.endswith("*")
            name = raw.rstrip("*")
            v = B.BAR_POINT if name == "bar" else 0 if name == "off" else int(name)
            if not 0 <= v <= 25:
                raise ValueError(f"point {name} out of range in {tok!r}")
            if k == 0 and hit:
                raise ValueError(f"a move cannot hit on its starting point: {tok!r}")
            path.append((v, hit))
        for a, b in zip(path, path[1:]):
            if b[0] >= a[0]:
                raise ValueError(f"move {tok!r} does not go towards home")
        if path[0][0] == 0:
            raise ValueError(f"move {tok!r} starts from off")
        if any(p[0] in (0, 25) for p in path[1:-1]) or path[-1][0] == 25:
            raise ValueError(f"bar/off in the middle of {tok!r}")
        segments.extend([path] * int(m.group(4) or 1))
    return segments


def _find_play(s, d1, d2, rows, text):
    """Index among rows (the plays of s) of play text; ValueError if malformed, illegal or
    ambiguous."""
    norm = text.strip().lower()
    if norm in ("", "-", "\u2014", "pass"):
        if rows.shape[0] == 1 and (rows[0, : B.BOARD_LEN] == s[: B.BOARD_LEN]).all():
            return 0
        raise ValueError(f"a pass is illegal: roll {d1}-{d2} can be played")
    segments = _parse_segments(norm, text)
    want = np.zeros(26, np.int64)  # net change of the mover per place (off, 1..24, bar)
    want_hits = np.zeros(26, np.int64)
    for path in segments:
        want[path[0][0]] -= 1
        want[path[-1][0]] += 1
        for p, h in path[1:]:
            want_hits[p] += h
    net = ((_places(rows) - _places(s)) == want).all(axis=1)
    hits = np.zeros((rows.shape[0], 26), np.int64)
    hits[:, 1:25] = (s[B.OPP : B.OPP + 24] == 1) & (rows[:, B.OPP : B.OPP + 24] == 0)
    exact = net & (hits == want_hits).all(axis=1)
    found = exact if "*" in norm else net
    if not found.any():
        raise ValueError(f"illegal play for roll {d1}-{d2}: {text!r}")
    if found.sum() > 1:
        if exact.sum() != 1:
            raise ValueError(f"ambiguous play {text!r}: mark hits with '*'")
        found = exact
    return int(np.flatnonzero(found)[0])


def _play_index(s, d1, d2, rows, play):
    """Index among rows of play: an afterstate array, play text or (from, to) moves."""
    if isinstance(play, str):
        return _find_play(s, d1, d2, rows, play)
    if isinstance(play, np.ndarray) and play.ndim == 1:
        target = check_state(play, "play")
        k = np.flatnonzero((rows[:, : B.BOARD_LEN] == target[: B.BOARD_LEN]).all(axis=1))
        if k.size == 0:
            raise ValueError(f"illegal play for roll {d1}-{d2}: the afterstate is not reachable")
        return int(k[0])
    if play is None or isinstance(play, (bytes, dict, set)) or not hasattr(play, "__iter__"):
        raise TypeError(
            "play must be an afterstate array, play text or a sequence of (from, to) "
            f"pairs, got {type(play).__name__}"
        )
    moves = []
    for mv in play:
        if isinstance(mv, (str, bytes)) or not hasattr(mv, "__len__") or len(mv) != 2:
            raise TypeError(f"a move must be a (from, to) pair of integers, got {mv!r}")
        f, t = mv
        if not (is_int(f) and is_int(t)):
            raise TypeError(f"a move must be a (from, to) pair of integers, got {mv!r}")
        if not (1 <= f <= 25 and 0 <= t <= 24):
            raise ValueError(
                f"move {(int(f), int(t))}: from is 1..25 (25 = bar), to 0..24 (0 = off)"
            )
        moves.append((int(f), int(t)))
    text = " ".join(f"{_pt_str(f)}/{_pt_str(t)}" for f, t in moves)
    return _find_play(s, d1, d2, rows, text)


def play_to_str(
    state: npt.ArrayLike,
    die1: int,
    die2: int,
    play: str | npt.NDArray[np.int64] | Iterable[Sequence[int]],
) -> str:
    """gnubg-style text of a legal play of roll die1-die2 from state.

    play is an afterstate (int64[STATE_LEN], mover's view before the turn passes, as from
    game.plays), play text, or a sequence of (from, to) moves in the mover's numbering (25 = bar,
    0 = off). The pass (no legal move) is written as the empty string. ValueError if the play is
    illegal.
    """
    s = check_state(state)
    d1, d2 = check_dice(die1, die2)
    rows, routes = _plays(s, d1, d2)
    return _format_steps(_steps(routes[_play_index(s, d1, d2, rows, play)]))


def parse_play(state: npt.ArrayLike, die1: int, die2: int, text: str) -> npt.NDArray[np.int64]:
    """Afterstate (int64[STATE_LEN], mover's view before the turn passes) of a gnubg-style play.

    Accepts ``24/18 13/11``, ``bar/22*``, ``6/off``, ``8/5(2)``, ``8/5 8/5``, ``24/18/13``, numbers
    25 / 0 for bar / off; the pass is ``""``, ``-``, ``—`` or ``pass``. Hit marks ``*`` are optional
    when the play without them is unambiguous. ValueError on malformed or illegal plays.
    """
    s = check_state(state)
    d1, d2 = check_dice(die1, die2)
    if not isinstance(text, str):
        raise TypeError(f"play text must be a string, got {type(text).__name__}")
    rows, _ = _plays(s, d1, d2)
    return rows[_find_play(s, d1, d2, rows, text)].copy()


def play_actions(
    state: npt.ArrayLike,
    die1: int,
    die2: int,
    play: str | npt.NDArray[np.int64] | Iterable[Sequence[int]],
) -> list[int]:
    """Checker actions (ints, the mover's frame: game / codec encoding) that play a legal play of
    roll die1-die2 from state, in order; play as for play_to_str. [] for the pass."""
    s = check_state(state)
    d1, d2 = check_dice(die1, die2)
    rows, routes = _plays(s, d1, d2)
    route = routes[_play_index(s, d1, d2, rows, play)]
    return [int((m[MV_FROM] - 1) * 6 + m[MV_DIE] - 1) for m in route if m[MV_FROM] > 0]
