"""Pictures of a backgammon position: text board, RGB image, SVG, and a notebook display object.

Checkers: player_0's are ``X`` (white in pictures), player_1's ``O`` (red), in the one palette of
every view (boardgym.envs._draw.PALETTE), named in each picture's legend. A board is drawn
from one player's side, ``perspective`` 0 (the default) or 1: points are numbered 1..24 from that
player's own view (it moves from 24 towards 1; boardgym/RULES.md B.1), its home board 1..6 at the
bottom right and its checkers on the bar in the lower half, its borne-off checkers at the bottom
of the tray on the right. Every picture shows the bar and borne-off counts of both players, the
pip counts, the cube (value; centred in the bar, or at its owner's edge), the player on roll and
the dice still to play (drawn on the mover's half of the board); once the game is over, who won
instead (``outcome``, a sentence, replaces that line: a dropped double, a truncation). The last
play (``last_move``: the env's turn record, ``backgammon_v0.raw_env.last_move()``) is a line of
the text board and, in pictures, a frame around each point (bar half, tray half) it left or
reached (SVG class ``last-move``).

``render_text``, ``render_rgb`` and ``to_svg`` take a state (checked by
boardgym.envs.backgammon_checks.check_state); ``Board(position_id or state, match_id=...,
dice=...)`` is the same picture as an object Jupyter displays, with ``svg()``, ``png()``,
``save(path)``. The image and the SVG come from one drawing (boardgym.envs._draw.Scene).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from boardgym.envs import backgammon_ids as ids
from boardgym.envs._draw import LAST_MOVE, PALETTE, Picture, Scene, check_perspective
from boardgym.envs.backgammon_checks import check_dice, check_state
from boardgym.envs.checks import is_int
from boardgym.kernels.backgammon import game
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

_P = np.arange(1, 25)
_SYM = "XO"


def absolute_view(state: npt.ArrayLike, perspective: int = 0) -> dict[str, Any]:
    """dict: x[p], o[p] (player_0's and player_1's checkers on point p numbered from player
    ``perspective``'s side; int arrays, index 0 unused), bar, off and pips as (player_0,
    player_1), the player on roll, the dice left (list of values, highest first), cube (value,
    owner -1/0/1), perspective, and of a finished game its winner (0/1; -1 while it goes on) and
    kind (1 single, 2 gammon, 3 backgammon; 0 while it goes on)."""
    s = check_state(state)
    perspective = check_perspective(perspective)
    me, opp = s[ME : ME + 24], s[OPP : OPP + 24]
    if s[TURN] == 0:
        x, o = me, opp
        bar, off = (int(s[BAR_ME]), int(s[BAR_OPP])), (int(s[OFF_ME]), int(s[OFF_OPP]))
    else:  # player_0's point p is the mover's point 25 - p
        x, o = opp[::-1], me[::-1]
        bar, off = (int(s[BAR_OPP]), int(s[BAR_ME])), (int(s[OFF_OPP]), int(s[OFF_ME]))
    pips = (int((_P * x).sum()) + 25 * bar[0], int(((25 - _P) * o).sum()) + 25 * bar[1])
    if perspective == 1:  # player_1's point p is player_0's point 25 - p
        x, o = x[::-1], o[::-1]
    xs, os_ = np.zeros(25, np.int64), np.zeros(25, np.int64)
    xs[1:], os_[1:] = x, o
    dice = [v + 1 for v in range(5, -1, -1) for _ in range(int(s[DICE + v]))]  # high first
    winner, kind, _ = game.result(s, game.SCORING_GAMMON)
    return {
        "x": xs,
        "o": os_,
        "bar": bar,
        "off": off,
        "pips": pips,
        "turn": int(s[TURN]),
        "dice": dice,
        "cube": (int(s[CUBE_VALUE]), int(s[CUBE_OWNER])),
        "perspective": perspective,
        "winner": int(winner),
        "kind": int(kind),
    }


def _cell(v, p):
    if v["x"][p]:
        return f"{v['x'][p]:>2}X"
    if v["o"][p]:
        return f"{v['o'][p]:>2}O"
    return "  ."


def _cube_text(v):
    value, owner = v["cube"]
    return f"cube {value} " + (
        "centred" if owner < 0 else f"owned by player_{owner} ({_SYM[owner]})"
    )


def _status(v, outcome=None):
    """Who is on roll and the dice left, one line; once the game is over who won (outcome, a
    sentence, replaces it: e.g. a dropped double or a game stopped at a turn cap)."""
    if outcome is not None:
        return outcome
    if v["winner"] >= 0:
        w = v["winner"]
        kind = {2: " a gammon", 3: " a backgammon"}.get(v["kind"], "")
        return f"game over: player_{w} ({_SYM[w]}) won{kind}"
    t = v["turn"]
    dice = "-".join(map(str, v["dice"]))
    return f"player_{t} ({_SYM[t]}) " + (f"to play {dice}" if dice else "on roll (no dice yet)")


def _point_name(p):
    return "bar" if p == 25 else "off" if p == 0 else str(p)


def move_points(
    last_move: Mapping[str, Any] | None, perspective: int = 0
) -> tuple[int, list[tuple[int, int, bool]]]:
    """(player, moves) of a play given as the env's turn record ``{"player": 0/1, "moves": [(from,
    to, hit), ...]}`` (the player's own numbering, 25 = bar, 0 = off), the moves renumbered
    for player ``perspective``'s side (bar and off stay 25 and 0); (-1, []) for None."""
    perspective = check_perspective(perspective)
    if last_move is None:
        return -1, []
    if not isinstance(last_move, Mapping) or "player" not in last_move:
        raise TypeError(
            'last_move must be a turn record {"player": 0 or 1, "moves": [(from, to, hit), ...]}'
            f", got {last_move!r}"
        )
    player = check_perspective(last_move["player"])  # 0 or 1, as a perspective
    moves = last_move.get("moves", ())
    if not isinstance(moves, (list, tuple)):
        raise TypeError(f"last_move moves must be a list of (from, to, hit), got {moves!r}")
    out = []
    for m in moves:
        if (
            not isinstance(m, (list, tuple))
            or len(m) != 3
            or not all(is_int(q) for q in m[:2])
            or not 1 <= m[0] <= 25
            or not 0 <= m[1] < m[0]
        ):
            raise ValueError(
                "last_move: a move is (from 1..25, to 0..from-1, hit), 25 = bar, 0 = off; "
                f"got {m!r}"
            )
        a, b = int(m[0]), int(m[1])
        if player != perspective:  # the other side's numbering: p -> 25 - p
            a, b = (a if a == 25 else 25 - a), (b if b == 0 else 25 - b)
        out.append((a, b, bool(m[2])))
    return player, out


def _play_line(last_move, player, moves):
    """' last play: player_1 (O) 6-4: 24/18 13/9*' (in the viewer's numbering)."""
    dice = last_move.get("dice")
    roll = f" {max(dice)}-{min(dice)}" if dice else ""
    shown = " ".join(f"{_point_name(a)}/{_point_name(b)}{'*' if h else ''}" for a, b, h in moves)
    return f"last play: player_{player} ({_SYM[player]}){roll}: {shown or 'no move'}"


def render_text(
    state: npt.ArrayLike,
    perspective: int = 0,
    last_move: Mapping[str, Any] | None = None,
    outcome: str | None = None,
) -> str:
    """A text board from player ``perspective``'s side (0 or 1; numbering and home board at the
    bottom right are that player's) with bar, off, pips, cube, the player on roll and the dice
    (once the game is over: who won; outcome, a sentence, replaces that line), and the last play
    (last_move, the env's turn record) in that numbering."""
    v = absolute_view(state, perspective)
    player, moves = move_points(last_move, perspective)
    _check_outcome(outcome)
    top = list(range(13, 19)), list(range(19, 25))
    bottom = list(range(12, 6, -1)), list(range(6, 0, -1))
    head = " " + "".join(f"{p:>3}" for p in top[0]) + "  BAR " + "".join(f"{p:>3}" for p in top[1])
    row_t = (
        " " + "".join(_cell(v, p) for p in top[0]) + " |  | " + "".join(_cell(v, p) for p in top[1])
    )
    row_b = (
        " "
        + "".join(_cell(v, p) for p in bottom[0])
        + " |  | "
        + "".join(_cell(v, p) for p in bottom[1])
    )
    foot = (
        " "
        + "".join(f"{p:>3}" for p in bottom[0])
        + "      "
        + "".join(f"{p:>3}" for p in bottom[1])
    )
    me = v["perspective"]
    return "\n".join(
        [
            head,
            row_t,
            "",
            row_b,
            foot,
            f" bar: X {v['bar'][0]}  O {v['bar'][1]}   off: X {v['off'][0]}  O {v['off'][1]}   "
            f"pips: X {v['pips'][0]}  O {v['pips'][1]}   {_cube_text(v)}",
            *([f" {_play_line(last_move, player, moves)}"] if player >= 0 else []),
            f" {_status(v, outcome)}",
            f" points numbered for player_{me} ({_SYM[me]}): home 1-6 bottom right; "
            f"Position ID {ids.position_id(state)}",
        ]
    )


# ----------------------------------------------------------------------------- pictures
_PT, _BAR, _X0, _Y0, _BH = 44, 40, 20, 24, 400  # point width, bar width, board left/top, height
_BW = 12 * _PT + _BAR  # board width
_TRAY = _X0 + _BW + 12  # tray left edge (borne-off checkers)
_W, _H = _TRAY + 80 + 20, _Y0 + _BH + 78
_MID = _Y0 + _BH / 2
_R = 19  # checker radius
_C = PALETTE
_FRAME, _FELT, _TRAY_C, _BAR_C = _C["frame"], _C["felt"], _C["tray"], _C["bar"]
_ODD_PT, _EVEN_PT = _C["odd_point"], _C["even_point"]
_CHECKER = (_C["checker_0"], _C["checker_1"])  # player_0 (X), player_1 (O)
_CHECKER_RIM = (_C["checker_rim_0"], _C["checker_rim_1"])
_INK_ON = (_C["black_piece"], _C["white_piece"])  # text drawn on each player's checkers
_LABEL, _MARK = _C["label"], _C["last_move"]
_PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def _point_geometry(p):
    """(x_left, is_top) of the viewer's point p in the picture."""
    if p <= 12:  # bottom row, 1 at the right
        col, is_top = 12 - p, False
    else:
        col, is_top = p - 13, True
    return _X0 + col * _PT + (_BAR if col >= 6 else 0), is_top


def _stack(sc, cx, first_cy, step, n, who, shown):
    """n checkers of player who from first_cy in steps of step; at most shown drawn, the count
    written on the last one when more."""
    for k in range(min(n, shown)):
        sc.circle(cx, first_cy + step * k, _R - 1, _CHECKER[who], _CHECKER_RIM[who], 1.5)
    if n > shown:
        cy = first_cy + step * (shown - 1)
        sc.text(cx, cy + 6, str(n), 16, _INK_ON[who])


def _mark_places(sc, v, player, moves):
    """Frame the points (or the bar half, the tray half) the last play left and reached."""
    me = v["perspective"]
    bottom, top = _Y0 + _BH, _Y0
    places = {a for a, _, _ in moves} | {b for _, b, _ in moves}
    for p in sorted(places):
        if 1 <= p <= 24:
            x, is_top = _point_geometry(p)
            y = top if is_top else bottom - 170
            sc.rect(x, y, _PT, 170, None, _MARK, 3, tag=LAST_MOVE)
        elif p == 25:  # the player's checkers wait on its half of the bar
            y = _MID if player == me else top
            sc.rect(_X0 + 6 * _PT, y, _BAR, _BH / 2, None, _MARK, 3, tag=LAST_MOVE)
        else:  # borne off: its half of the tray
            y = _MID if player == me else top
            sc.rect(_TRAY, y, 80, _BH / 2, None, _MARK, 3, tag=LAST_MOVE)


def _scene(v, note="", last=(-1, []), outcome=None):
    """The Scene of an absolute_view v (drawn from v['perspective']'s side) with the last play
    (player, moves in v's numbering: move_points) marked."""
    me = v["perspective"]
    them = 1 - me
    sc = Scene(_W, _H, _FRAME)
    sc.rect(_X0, _Y0, _BW, _BH, _FELT)
    bar_x = _X0 + 6 * _PT
    sc.rect(bar_x, _Y0, _BAR, _BH, _BAR_C)
    sc.rect(_TRAY, _Y0, 80, _BH, _TRAY_C)
    bottom, top = _Y0 + _BH, _Y0
    for p in range(1, 25):  # 24 points: drawing code, not game logic
        x, is_top = _point_geometry(p)
        base, apex = (top, top + 165) if is_top else (bottom, bottom - 165)
        sc.polygon(
            [(x, base), (x + _PT, base), (x + _PT / 2, apex)], _ODD_PT if p % 2 else _EVEN_PT
        )
        sc.text(x + _PT / 2, top - 7 if is_top else bottom + 17, str(p), 12, _LABEL)
        n, who = (int(v["x"][p]), 0) if v["x"][p] else (int(v["o"][p]), 1)
        if n:
            step = 2 * _R if is_top else -2 * _R
            _stack(sc, x + _PT / 2, (top + _R if is_top else bottom - _R), step, n, who, 5)
    bx = bar_x + _BAR / 2
    # Bar: the viewer's checkers below the middle, the other player's above (at most 3 drawn).
    for who, sign in ((me, 1), (them, -1)):
        n = v["bar"][who]
        if n:
            _stack(sc, bx, _MID + sign * (20 + _R), sign * 2 * _R, n, who, 3)
    value, owner = v["cube"]
    cube_y = _MID - 16 if owner < 0 else (bottom - 36 if owner == me else top + 4)
    sc.rect(bx - 16, cube_y, 32, 32, (250, 250, 245), (40, 40, 40), 1.5)
    sc.text(bx, cube_y + 22, str(value), 16 if value < 1000 else 11, (30, 30, 30))
    # Tray: borne-off checkers as slabs from each player's edge, with the count.
    for who, at_bottom in ((me, True), (them, False)):
        n = v["off"][who]
        for k in range(n):
            y = bottom - 4 - 10 * (k + 1) if at_bottom else top + 4 + 10 * k
            sc.rect(_TRAY + 10, y, 60, 9, _CHECKER[who], _CHECKER_RIM[who], 1)
        if n:
            sc.text(
                _TRAY + 40, (bottom - 168) if at_bottom else (top + 182), f"{n} off", 13, _LABEL
            )
    # Dice on the mover's half: the right half when the viewer is on roll, else the left half.
    dice = v["dice"]
    if dice:
        t = v["turn"]
        cx = _X0 + 6 * _PT + _BAR + 3 * _PT if t == me else _X0 + 3 * _PT
        for i, d in enumerate(dice):
            dx = cx + (i - (len(dice) - 1) / 2) * 38 - 15
            sc.rect(dx, _MID - 15, 30, 30, _CHECKER[t], _CHECKER_RIM[t], 1.5)
            for px, py in _PIPS[d]:
                sc.circle(dx + 15 + 8 * px, _MID + 8 * py, 3, _INK_ON[t])
    if last[0] >= 0:
        _mark_places(sc, v, *last)
    status = _status(v, outcome) + (f"   {note}" if note else "")
    sc.text(_X0, _Y0 + _BH + 42, status, 13, _LABEL, anchor="start")
    sc.text(
        _W - 20,
        _Y0 + _BH + 42,
        f"pips X {v['pips'][0]}  O {v['pips'][1]}",
        13,
        _LABEL,
        anchor="end",
    )
    # the legend: which colour is which player
    y = _Y0 + _BH + 62
    for who in (0, 1):
        x = _X0 + 150 * who
        sc.circle(x + 8, y, 8, _CHECKER[who], _CHECKER_RIM[who], 1.5)
        sc.text(x + 22, y + 5, f"player_{who} ({_SYM[who]})", 13, _LABEL, anchor="start")
    return sc


def _check_scale(scale):
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating)):
        raise TypeError(f"scale must be a number, got {scale!r}")
    if not 0 < scale <= 100:
        raise ValueError(f"scale must be in (0, 100], got {scale!r}")
    return float(scale)


def _check_outcome(outcome):
    if outcome is not None and not isinstance(outcome, str):
        raise TypeError(f"outcome must be a str or None, got {type(outcome).__name__}")
    return outcome


def render_rgb(
    state: npt.ArrayLike,
    perspective: int = 0,
    last_move: Mapping[str, Any] | None = None,
    outcome: str | None = None,
) -> npt.NDArray[np.uint8]:
    """An RGB image (uint8[H, W, 3]) of the board from player ``perspective``'s side (0 or 1),
    with a legend and the last play (last_move, the env's turn record) marked."""
    v = absolute_view(state, perspective)
    last = move_points(last_move, perspective)
    return _scene(v, last=last, outcome=_check_outcome(outcome)).rgb()


def to_svg(
    state: npt.ArrayLike,
    scale: float = 1.0,
    perspective: int = 0,
    last_move: Mapping[str, Any] | None = None,
    outcome: str | None = None,
) -> str:
    """An SVG document (str) of the position from player ``perspective``'s side (0 or 1), with a
    legend and the last play (last_move, the env's turn record) marked (class ``last-move``);
    scale a number in (0, 100]."""
    scale = _check_scale(scale)
    v = absolute_view(state, perspective)
    last = move_points(last_move, perspective)
    return _scene(v, last=last, outcome=_check_outcome(outcome)).svg(scale)


class Board(Picture):
    """A position for notebooks and files: ``Board("4HPwATDgc/ABMA")``, ``Board(state)``.

    position: a state, a 14-character gnubg Position ID (the player on roll's view), or a gnubg
    ID ``"PositionID:MatchID"``. match_id (a 12-character Match ID) sets the player on roll (its
    dice owner), the cube value and owner, the dice and the match score; dice (a pair 1..6) sets
    or replaces the roll to play. A Position ID alone gives player_0 on roll, no dice, cube 1.
    perspective 0/1: whose side is at the bottom; last_move (a turn record ``{"player",
    "dice", "moves": [(from, to, hit), ...]}``, the player's numbering) is marked. Jupyter
    shows it as a picture (``_repr_svg_`` / ``_repr_png_``); ``svg()``, ``png()`` (bytes),
    ``rgb()``, ``save("pos.svg" or ".png")``, ``text()``; ``state`` (a copy) and
    ``position_id``."""

    def __init__(
        self,
        position: str | npt.ArrayLike,
        match_id: str | None = None,
        dice: Sequence[int] | None = None,
        perspective: int = 0,
        scale: float = 1.0,
        last_move: Mapping[str, Any] | None = None,
    ) -> None:
        note = ""
        if isinstance(position, str):
            pid, sep, mid = position.partition(":")
            if sep:
                if match_id is not None:
                    raise ValueError(
                        "give the Match ID either after the Position ID or as match_id, not both"
                    )
                match_id = mid
            state = ids.position_from_id(pid)
        elif isinstance(position, (np.ndarray, list, tuple)):
            state = check_state(position).copy()
        else:
            raise TypeError(
                "position must be a Position ID (str) or a state (int64 array), "
                f"got {type(position).__name__}"
            )
        if match_id is not None:
            m = ids.parse_match_id(match_id)
            state[TURN] = m["dice_owner"]
            state[CUBE_VALUE], state[CUBE_OWNER] = m["cube_value"], m["cube_owner"]
            if m["dice"] != (0, 0) and dice is None:
                dice = m["dice"]
            if m["match_length"]:
                s0, s1 = m["score"]
                note = f"match to {m['match_length']}, score {s0}-{s1}" + (
                    " (Crawford)" if m["crawford"] else ""
                )
            state = check_state(state)
        if dice is not None:
            if isinstance(dice, (str, bytes)) or not hasattr(dice, "__len__"):
                raise TypeError(f"dice must be two integers 1..6, got {dice!r}")
            if len(dice) != 2:
                raise ValueError(f"dice must be two integers 1..6, got {dice!r}")
            d1, d2 = check_dice(*dice)
            state = game.set_roll(state, d1, d2)
        self._state = state
        self._perspective = check_perspective(perspective)
        self._scale = _check_scale(scale)
        self._note = note
        move_points(last_move, self._perspective)  # checked
        self._last_move = last_move

    @property
    def state(self) -> npt.NDArray[np.int64]:
        """The position vector (a copy)."""
        return self._state.copy()

    @property
    def position_id(self) -> str:
        """The gnubg Position ID (the player on roll's view)."""
        return ids.position_id(self._state)

    def text(self) -> str:
        """The text board (render_text), with the match line of a Match ID with a match length
        ("match to 7, score 2-4 (Crawford)")."""
        text = render_text(self._state, self._perspective, self._last_move)
        return f"{text}\n {self._note}" if self._note else text

    def _scene(self):
        v = absolute_view(self._state, self._perspective)
        return _scene(v, self._note, move_points(self._last_move, self._perspective))

    def svg(self) -> str:
        """The picture as an SVG document (str)."""
        return self._scene().svg(self._scale)

    def rgb(self) -> npt.NDArray[np.uint8]:
        """The picture as an RGB image, uint8[H, W, 3]."""
        return self._scene().rgb(self._scale)

    def __repr__(self):
        return f"Board({self.position_id!r})"
