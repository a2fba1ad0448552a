"""Pictures of a Russian draughts position: text board, RGB image, SVG.

Every function takes a position vector (checked by boardgym.envs.draughts.check_state);
``Board(fen or state)`` is the same picture as an object Jupyter displays, with ``svg()``,
``png()``, ``save(path)``. The image and the SVG come from one drawing (boardgym.envs._draw.Scene).

Boards are drawn from White's side (a1 at the lower left; ``perspective=0``, the default) or
Black's (``perspective=1``, h8 at the lower left), with a-h / 1-8 coordinates and a header saying
the side to move or, once the game is over, who won or how it was drawn (``outcome`` replaces it,
e.g. for a game stopped at a move cap). Pictures have a legend (White is player_0, Black
player_1) in the one palette of every view (boardgym.envs._draw.PALETTE).
Symbols: ``w`` White man, ``W`` White king, ``b`` Black man, ``B`` Black king, ``.`` empty dark
square; a piece in the middle of a capture chain is bracketed in text and ringed in pictures,
pieces it has already jumped are marked ``x``. ``last_move`` (its PDN text) is marked: in text
its piece in parentheses, the squares it left ``*`` and a line naming it; in pictures its first
and last squares framed and its path drawn (SVG class ``last-move``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from boardgym.envs._draw import LAST_MOVE, PALETTE, Picture, Scene, check_perspective
from boardgym.envs.checks import is_int
from boardgym.envs.draughts import check_state, from_fen, parse_route, to_fen
from boardgym.kernels.draughts.board import (
    GHOST_FILE,
    GHOST_ROW,
    GHOST_TO_SQ32,
    S_BK,
    S_BM,
    S_CAP_JUMPED,
    S_CAP_SQ,
    S_SIDE,
    S_WK,
    S_WM,
    SQ32_TO_GHOST,
)
from boardgym.kernels.draughts.game import (
    BLACK_WON,
    ONGOING,
    ROUTE_LEN,
    STATUS_NAMES,
    WHITE_WON,
    game_status,
)

_SQ_ROW = GHOST_ROW[SQ32_TO_GHOST]  # row (0 = White's side) and file (0 = a) of each sq32 square
_SQ_FILE = GHOST_FILE[SQ32_TO_GHOST]
_CODES = np.array(list(".wWbB"))


def piece_codes(state: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """int8[32] per sq32 square: 0 empty, 1 White man, 2 White king, 3 Black man, 4 Black king."""
    state = check_state(state)
    codes = np.zeros(32, np.int8)
    for code, idx in ((1, S_WM), (2, S_WK), (3, S_BM), (4, S_BK)):
        codes[((int(state[idx]) >> SQ32_TO_GHOST) & 1).astype(bool)] = code
    return codes


def _marks(state):
    cap = int(state[S_CAP_SQ])
    jumped = ((int(state[S_CAP_JUMPED]) >> SQ32_TO_GHOST) & 1).astype(bool)
    mover = -1 if cap < 0 else int(GHOST_TO_SQ32[cap])
    return mover, jumped


def move_squares(last_move: str | None) -> list[int]:
    """The route of a move from its PDN text (``c3:e5:g3``, ``22-17``) as sq32 squares, start
    first; [] for None. The squares are checked, not the move's legality."""
    if last_move is None:
        return []
    if not isinstance(last_move, str):
        raise TypeError(
            f"last_move must be a move's PDN text (e.g. c3:e5:g3), got {type(last_move).__name__}"
        )
    route = parse_route(last_move)
    if len(route) > ROUTE_LEN:
        raise ValueError(f"last_move {last_move!r}: a move has at most {ROUTE_LEN} squares")
    return route


def _check_outcome(outcome):
    if outcome is not None and not isinstance(outcome, str):
        raise TypeError(f"outcome must be a str or None, got {type(outcome).__name__}")
    return outcome


def header(state: npt.ArrayLike, outcome: str | None = None) -> str:
    """The board's header: who is to move (a capture in progress said), or once the position
    is over who won or how it was drawn; outcome (a sentence) replaces it, e.g. for a game
    stopped at a move cap."""
    state = check_state(state)
    if _check_outcome(outcome) is not None:
        return outcome
    code = game_status(state)
    if code == WHITE_WON:
        return "game over: White won"
    if code == BLACK_WON:
        return "game over: Black won"
    if code != ONGOING:
        name = STATUS_NAMES[code].removeprefix("draw ")
        return f"game over: draw ({name})"
    side = "White" if state[S_SIDE] == 0 else "Black"
    return f"{side} to move" + (" (capture in progress)" if state[S_CAP_SQ] >= 0 else "")


def _move_line(codes, last_move, route):
    """'last move: White c3:e5:g3' of a move whose piece now stands on its last square."""
    who = {1: "White ", 2: "White ", 3: "Black ", 4: "Black "}.get(int(codes[route[-1]]), "")
    return f"last move: {who}{last_move.strip()}"


def render_text(
    state: npt.ArrayLike,
    perspective: int = 0,
    last_move: str | None = None,
    outcome: str | None = None,
) -> str:
    """A text board with coordinates, the side to move (or the result) and any capture in
    progress; from White's side (perspective 0, a1 at the lower left) or Black's (1, h8 at the
    lower left). last_move (PDN text) is marked: its piece in parentheses, the
    squares it left ``*``, and said in a line."""
    state = check_state(state)
    flip = check_perspective(perspective) == 1
    route = move_squares(last_move)
    codes = piece_codes(state)
    mover, jumped = _marks(state)
    grid = np.full((8, 8), "   ", dtype=object)
    cells = np.char.add(np.char.add(" ", _CODES[codes]), " ").astype(object)
    for q in route[:-1]:
        if not codes[q]:
            cells[q] = " * "
    if route and codes[route[-1]]:
        cells[route[-1]] = "(" + _CODES[codes[route[-1]]] + ")"
    cells[jumped] = " x "
    if mover >= 0:
        cells[mover] = "[" + _CODES[codes[mover]] + "]"
    grid[_SQ_ROW, _SQ_FILE] = cells
    rows, files = (range(8), "hgfedcba") if flip else (range(7, -1, -1), "abcdefgh")
    lines = [f"{r + 1} " + "".join(grid[r][::-1] if flip else grid[r]) for r in rows]
    lines.append("  " + "".join(f" {f} " for f in files).rstrip())
    if route:
        lines.append(_move_line(codes, last_move, route))
    lines.append(header(state, outcome))
    return "\n".join(lines)


_CELL = 56  # pixels per square of the rgb_array image
_C = PALETTE


def _check_cell(cell):
    if not is_int(cell):
        raise TypeError(f"cell must be an integer number of pixels, got {cell!r}")
    if not 4 <= cell <= 1000:
        raise ValueError(f"cell must be 4..1000 pixels, got {cell}")
    return int(cell)


def _scene(state, cell, perspective, last_move=None, outcome=None):
    """The Scene of a validated state, cell pixels per square, a margin of half a square and a
    legend strip below, from White's side (perspective 0) or Black's (1), the last move's route
    (sq32 squares) marked."""
    codes = piece_codes(state)
    mover, jumped = _marks(state)
    route = move_squares(last_move)
    m = cell // 2
    size = 8 * cell + 2 * m
    sc = Scene(size, size + m, _C["frame"])
    flip = perspective == 1

    def col(f):  # screen column of file f, screen row of rank r (0 = top)
        return 7 - f if flip else f

    def row(r):
        return r if flip else 7 - r

    def centre(q):
        return m + col(_SQ_FILE[q]) * cell + cell / 2, m + row(_SQ_ROW[q]) * cell + cell / 2

    for r in range(8):  # 64 board cells: drawing code, not game logic
        for f in range(8):
            sc.rect(
                m + col(f) * cell,
                m + row(r) * cell,
                cell,
                cell,
                _C["dark"] if (r + f) % 2 == 0 else _C["light"],
            )
    for i in range(8):
        sc.text(m + col(i) * cell + cell / 2, size - m / 3, "abcdefgh"[i], m * 0.7, _C["label"])
        sc.text(m / 2, m + row(i) * cell + cell * 0.6, str(i + 1), m * 0.7, _C["label"])
    white = int(state[S_SIDE]) == 0
    over = game_status(state) != ONGOING or outcome is not None
    if not over:
        sc.circle(
            m * 0.5,
            m * 0.5,
            m * 0.3,
            _C["white_piece"] if white else _C["black_piece"],
            _C["white_rim"],
            max(1, m / 12),
        )
    sc.text(
        m * 1.1 if not over else m * 0.3,
        m * 0.75,
        header(state, outcome),
        m * 0.7,
        _C["label"],
        anchor="start",
    )
    for q in (route[0], route[-1]) if route else ():  # the last move: its squares, its path
        x, y = centre(q)
        sc.rect(
            x - cell / 2,
            y - cell / 2,
            cell,
            cell,
            None,
            _C["last_move"],
            cell * 0.07,
            tag=LAST_MOVE,
        )
    for a, b in zip(route, route[1:]):
        (x1, y1), (x2, y2) = centre(a), centre(b)
        sc.line(x1, y1, x2, y2, _C["last_move"], cell * 0.06, tag=LAST_MOVE)
    for q in np.flatnonzero(codes):
        cx, cy = centre(q)
        fill, rim = (
            (_C["white_piece"], _C["white_rim"])
            if codes[q] <= 2
            else (_C["black_piece"], _C["black_rim"])
        )
        if q == mover:
            sc.circle(cx, cy, cell * 0.37, fill, _C["capture"], cell * 0.06)
        else:
            sc.circle(cx, cy, cell * 0.37, fill, rim, cell * 0.03)
        if codes[q] in (2, 4):
            sc.circle(cx, cy, cell * 0.16, _C["king"])
        if jumped[q]:
            sc.line(cx - cell * 0.3, cy, cx + cell * 0.3, cy, _C["capture"], cell * 0.08)
    # the legend: which colour is which player
    y = size + m * 0.3
    for k, (name, fill, rim) in enumerate(
        (
            ("White: player_0", _C["white_piece"], _C["white_rim"]),
            ("Black: player_1", _C["black_piece"], _C["black_rim"]),
        )
    ):
        x = m + k * 3 * cell
        sc.circle(x + m * 0.3, y, m * 0.3, fill, rim, max(1, m / 12))
        sc.text(x + m * 0.8, y + m * 0.22, name, m * 0.6, _C["label"], anchor="start")
    return sc


def render_rgb(
    state: npt.ArrayLike,
    perspective: int = 0,
    last_move: str | None = None,
    outcome: str | None = None,
) -> npt.NDArray[np.uint8]:
    """An RGB image (uint8[H, W, 3]) of the board from White's side (perspective 0) or Black's
    (1), with coordinates, the side to move (or the result), a legend and last_move marked."""
    state = check_state(state)
    return _scene(
        state, _CELL, check_perspective(perspective), last_move, _check_outcome(outcome)
    ).rgb()


def to_svg(
    state: npt.ArrayLike,
    cell: int = 50,
    perspective: int = 0,
    last_move: str | None = None,
    outcome: str | None = None,
) -> str:
    """An SVG document (str) of the position from White's side (perspective 0) or Black's (1),
    with coordinates, the side to move (or the result), a legend and last_move marked (class
    ``last-move``); cell: pixels per square, an integer 4..1000."""
    state = check_state(state)
    return _scene(
        state, _check_cell(cell), check_perspective(perspective), last_move, _check_outcome(outcome)
    ).svg()


class Board(Picture):
    """A position for notebooks and files: ``Board("W:W21-32:B1-12")`` or ``Board(state)``.

    Jupyter shows it as a picture (``_repr_svg_`` / ``_repr_png_``); ``svg()`` (str), ``png()``
    (bytes), ``rgb()`` (uint8[H, W, 3]), ``save("pos.svg" or "pos.png")``, ``text()``; ``fen``
    and ``state`` (a copy) give the position back. cell: pixels per square, 4..1000;
    perspective 0 draws White's side at the bottom, 1 Black's; last_move (its PDN text) is
    marked."""

    def __init__(
        self,
        position: str | npt.ArrayLike,
        cell: int = 50,
        perspective: int = 0,
        last_move: str | None = None,
    ) -> None:
        if isinstance(position, str):
            self._state = from_fen(position)
        elif isinstance(position, (np.ndarray, list, tuple)):
            self._state = check_state(position).copy()
        else:
            raise TypeError(
                "position must be a FEN (str) or a state (int64 array), "
                f"got {type(position).__name__}"
            )
        self._cell = _check_cell(cell)
        self._perspective = check_perspective(perspective)
        move_squares(last_move)  # checked
        self._last_move = last_move

    @property
    def state(self) -> npt.NDArray[np.int64]:
        """The position vector (a copy)."""
        return self._state.copy()

    @property
    def fen(self) -> str:
        """The position as a PDN FEN."""
        return to_fen(self._state)

    def text(self) -> str:
        """The text board (render_text)."""
        return render_text(self._state, self._perspective, self._last_move)

    def _scene(self):
        return _scene(self._state, self._cell, self._perspective, self._last_move)

    def __repr__(self):
        return f"Board({self.fen!r})"
