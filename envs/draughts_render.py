"""Pictures of a Russian draughts position: text board, RGB image, SVG.

Every function takes a position vector (checked by boardgym.envs.draughts.check_state);
``Board(fen or state)`` is the same picture as an object Jupyter displays, with ``svg()``,
``png()``, ``save(path)``. The image and the SVG come from one drawing (boardgym.envs._draw.Scene).

Boards are drawn from White's side (a1 at the lower left; ``perspective=0``, the default) or
Black's (``perspective=1``, h8 at the lower left), with a-h / 1-8 coordinates and the side to move.
Symbols: ``w`` White man, ``W`` White king, ``b`` Black man, ``B`` Black king, ``.`` empty dark
square; a piece in the middle of a capture chain is bracketed in text and ringed in pictures,
pieces it has already jumped are marked ``x``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from boardgym.envs._draw import Picture, Scene, check_perspective
from boardgym.envs.checks import is_int
from boardgym.envs.draughts import check_state, from_fen, to_fen
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


def render_text(state: npt.ArrayLike, perspective: int = 0) -> str:
    """A text board with coordinates, the side to move and any capture in progress; from White's
    side (perspective 0, a1 at the lower left) or Black's (1, h8 at the lower left)."""
    state = check_state(state)
    flip = check_perspective(perspective) == 1
    codes = piece_codes(state)
    mover, jumped = _marks(state)
    grid = np.full((8, 8), "   ", dtype=object)
    cells = np.char.add(np.char.add(" ", _CODES[codes]), " ").astype(object)
    cells[jumped] = " x "
    if mover >= 0:
        cells[mover] = "[" + _CODES[codes[mover]] + "]"
    grid[_SQ_ROW, _SQ_FILE] = cells
    rows, files = (range(8), "hgfedcba") if flip else (range(7, -1, -1), "abcdefgh")
    lines = [f"{r + 1} " + "".join(grid[r][::-1] if flip else grid[r]) for r in rows]
    lines.append("  " + "".join(f" {f} " for f in files).rstrip())
    side = "White" if state[S_SIDE] == 0 else "Black"
    lines.append(f"{side} to move" + (" (capture in progress)" if mover >= 0 else ""))
    return "\n".join(lines)


_CELL = 56  # pixels per square of the rgb_array image
_LIGHT, _DARK, _FRAME = (238, 216, 174), (150, 100, 60), (60, 60, 60)
_WHITE_PC, _BLACK_PC, _GOLD, _RED = (245, 245, 240), (30, 30, 30), (218, 165, 32), (200, 30, 30)
_INK, _RIM = (230, 230, 230), (128, 128, 128)


def _check_cell(cell):
    if not is_int(cell):
        raise TypeError(f"cell must be an integer number of pixels, got {cell!r}")
    if not 4 <= cell <= 1000:
        raise ValueError(f"cell must be 4..1000 pixels, got {cell}")
    return int(cell)


def _scene(state, cell, perspective):
    """The Scene of a validated state, cell pixels per square, a margin of half a square, from
    White's side (perspective 0) or Black's (1)."""
    codes = piece_codes(state)
    mover, jumped = _marks(state)
    m = cell // 2
    size = 8 * cell + 2 * m
    sc = Scene(size, size, _FRAME)
    flip = perspective == 1

    def col(f):  # screen column of file f, screen row of rank r (0 = top)
        return 7 - f if flip else f

    def row(r):
        return r if flip else 7 - r

    for r in range(8):  # 64 board cells: drawing code, not game logic
        for f in range(8):
            sc.rect(
                m + col(f) * cell,
                m + row(r) * cell,
                cell,
                cell,
                _DARK if (r + f) % 2 == 0 else _LIGHT,
            )
    for i in range(8):
        sc.text(m + col(i) * cell + cell / 2, size - m / 3, "abcdefgh"[i], m * 0.7, _INK)
        sc.text(m / 2, m + row(i) * cell + cell * 0.6, str(i + 1), m * 0.7, _INK)
    white = int(state[S_SIDE]) == 0
    sc.rect(
        m * 0.2, m * 0.2, m * 0.6, m * 0.6, _WHITE_PC if white else _BLACK_PC, _RIM, max(1, m / 12)
    )
    sc.text(
        m * 1.1,
        m * 0.75,
        ("White" if white else "Black")
        + " to move"
        + (" (capture in progress)" if mover >= 0 else ""),
        m * 0.7,
        _INK,
        anchor="start",
    )
    for s in np.flatnonzero(codes):
        cx = m + col(_SQ_FILE[s]) * cell + cell / 2
        cy = m + row(_SQ_ROW[s]) * cell + cell / 2
        fill = _WHITE_PC if codes[s] <= 2 else _BLACK_PC
        if s == mover:
            sc.circle(cx, cy, cell * 0.37, fill, _RED, cell * 0.06)
        else:
            sc.circle(cx, cy, cell * 0.37, fill, _RIM, cell * 0.03)
        if codes[s] in (2, 4):
            sc.circle(cx, cy, cell * 0.16, _GOLD)
        if jumped[s]:
            sc.line(cx - cell * 0.3, cy, cx + cell * 0.3, cy, _RED, cell * 0.08)
    return sc


def render_rgb(state: npt.ArrayLike, perspective: int = 0) -> npt.NDArray[np.uint8]:
    """An RGB image (uint8[H, W, 3]) of the board from White's side (perspective 0) or Black's
    (1), with coordinates and the side to move."""
    state = check_state(state)
    return _scene(state, _CELL, check_perspective(perspective)).rgb()


def to_svg(state: npt.ArrayLike, cell: int = 50, perspective: int = 0) -> str:
    """An SVG document (str) of the position from White's side (perspective 0) or Black's (1),
    with coordinates and the side to move; cell: pixels per square, an integer 4..1000."""
    state = check_state(state)
    return _scene(state, _check_cell(cell), check_perspective(perspective)).svg()


class Board(Picture):
    """A position for notebooks and files: ``Board("W:W21-32:B1-12")`` or ``Board(state)``.

    Jupyter shows it as a picture (``_repr_svg_`` / ``_repr_png_``); ``svg()`` (str), ``png()``
    (bytes), ``rgb()`` (uint8[H, W, 3]), ``save("pos.svg" or "pos.png")``, ``text()``; ``fen``
    and ``state`` (a copy) give the position back. cell: pixels per square, 4..1000;
    perspective 0 draws White's side at the bottom, 1 Black's."""

    def __init__(self, position: str | npt.ArrayLike, cell: int = 50, perspective: int = 0) -> None:
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
        return render_text(self._state, self._perspective)

    def _scene(self):
        return _scene(self._state, self._cell, self._perspective)

    def __repr__(self):
        return f"Board({self.fen!r})"
