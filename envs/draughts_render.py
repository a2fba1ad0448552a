"""Pictures of a Russian draughts position: text board, RGB image, SVG.

Every function takes a position vector (checked by boardgym.envs.draughts.check_state).

Boards are drawn from White's side (a1 at the lower left), with a-h / 1-8 coordinates.
Symbols: ``w`` White man, ``W`` White king, ``b`` Black man, ``B`` Black king, ``.`` empty dark
square; a piece in the middle of a capture chain is bracketed in text and ringed in pictures,
pieces it has already jumped are marked ``x``.
"""
import numpy as np

from boardgym.envs.checks import is_int
from boardgym.envs._draw import canvas, draw_text, fill_circle, fill_rect
from boardgym.envs.draughts import check_state
from boardgym.kernels.draughts.board import (
    GHOST_FILE, GHOST_ROW, GHOST_TO_SQ32, S_BK, S_BM, S_CAP_JUMPED, S_CAP_SQ, S_SIDE, S_WK, S_WM,
    SQ32_TO_GHOST,
)

_SQ_ROW = GHOST_ROW[SQ32_TO_GHOST]  # row (0 = White's side) and file (0 = a) of each sq32 square
_SQ_FILE = GHOST_FILE[SQ32_TO_GHOST]
_CODES = np.array(list(".wWbB"))


def piece_codes(state):
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


def render_text(state):
    """A text board with coordinates, the side to move and any capture in progress."""
    state = check_state(state)
    codes = piece_codes(state)
    mover, jumped = _marks(state)
    grid = np.full((8, 8), "   ", dtype=object)
    cells = np.char.add(np.char.add(" ", _CODES[codes]), " ").astype(object)
    cells[jumped] = " x "
    if mover >= 0:
        cells[mover] = "[" + _CODES[codes[mover]] + "]"
    grid[_SQ_ROW, _SQ_FILE] = cells
    lines = [f"{r + 1} " + "".join(grid[r]) for r in range(7, -1, -1)]
    lines.append("   a  b  c  d  e  f  g  h")
    side = "White" if state[S_SIDE] == 0 else "Black"
    lines.append(f"{side} to move" + (" (capture in progress)" if mover >= 0 else ""))
    return "\n".join(lines)


_CELL, _MARGIN = 56, 24
_LIGHT, _DARK = (238, 216, 174), (150, 100, 60)
_WHITE_PC, _BLACK_PC, _GOLD, _RED = (245, 245, 240), (30, 30, 30), (218, 165, 32), (200, 30, 30)


def render_rgb(state):
    """An RGB image (uint8[H, W, 3]) of the board from White's side, with coordinates."""
    state = check_state(state)
    size = 8 * _CELL + 2 * _MARGIN
    img = canvas(size, size, (60, 60, 60))
    for r in range(8):  # 64 board cells: drawing code, not game logic
        for f in range(8):
            y, x = _MARGIN + (7 - r) * _CELL, _MARGIN + f * _CELL
            fill_rect(img, y, x, y + _CELL, x + _CELL, _DARK if (r + f) % 2 == 0 else _LIGHT)
    for i in range(8):
        draw_text(img, size - _MARGIN + 6, _MARGIN + i * _CELL + _CELL // 2 - 3, "abcdefgh"[i],
                  (230, 230, 230))
        draw_text(img, _MARGIN + (7 - i) * _CELL + _CELL // 2 - 5, 6, str(i + 1), (230, 230, 230))
    codes = piece_codes(state)
    mover, jumped = _marks(state)
    for s in np.flatnonzero(codes):
        cy = _MARGIN + (7 - _SQ_ROW[s]) * _CELL + _CELL / 2
        cx = _MARGIN + _SQ_FILE[s] * _CELL + _CELL / 2
        if s == mover:
            fill_circle(img, cy, cx, _CELL * 0.46, _RED)
        color = _WHITE_PC if codes[s] <= 2 else _BLACK_PC
        fill_circle(img, cy, cx, _CELL * 0.38, (128, 128, 128))
        fill_circle(img, cy, cx, _CELL * 0.35, color)
        if codes[s] in (2, 4):
            fill_circle(img, cy, cx, _CELL * 0.16, _GOLD)
        if jumped[s]:
            fill_rect(img, cy - 3, cx - _CELL * 0.3, cy + 3, cx + _CELL * 0.3, _RED)
    return img


def to_svg(state, cell=50):
    """An SVG document (str) of the position from White's side, with coordinates."""
    state = check_state(state)
    if not is_int(cell):
        raise TypeError(f"cell must be an integer number of pixels, got {cell!r}")
    if not 4 <= cell <= 1000:
        raise ValueError(f"cell must be 4..1000 pixels, got {cell}")
    codes = piece_codes(state)
    mover, jumped = _marks(state)
    m = cell // 2
    size = 8 * cell + 2 * m
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
           f'viewBox="0 0 {size} {size}">', f'<rect width="{size}" height="{size}" fill="#3c3c3c"/>']
    for r in range(8):
        for f in range(8):
            colour = "#96643c" if (r + f) % 2 == 0 else "#eed8ae"
            out.append(f'<rect x="{m + f * cell}" y="{m + (7 - r) * cell}" width="{cell}" '
                       f'height="{cell}" fill="{colour}"/>')
    for i in range(8):
        out.append(f'<text x="{m + i * cell + cell / 2}" y="{size - m / 3}" font-size="{m * 0.7}" '
                   f'text-anchor="middle" fill="#e6e6e6">{"abcdefgh"[i]}</text>')
        out.append(f'<text x="{m / 2}" y="{m + (7 - i) * cell + cell * 0.6}" font-size="{m * 0.7}" '
                   f'text-anchor="middle" fill="#e6e6e6">{i + 1}</text>')
    for s in np.flatnonzero(codes):
        cx = m + _SQ_FILE[s] * cell + cell / 2
        cy = m + (7 - _SQ_ROW[s]) * cell + cell / 2
        fill = "#f5f5f0" if codes[s] <= 2 else "#1e1e1e"
        stroke = "#c81e1e" if s == mover else "#808080"
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{cell * 0.37}" fill="{fill}" '
                   f'stroke="{stroke}" stroke-width="{3 if s == mover else 1.5}"/>')
        if codes[s] in (2, 4):
            out.append(f'<circle cx="{cx}" cy="{cy}" r="{cell * 0.16}" fill="#daa520"/>')
        if jumped[s]:
            out.append(f'<line x1="{cx - cell * 0.3}" y1="{cy}" x2="{cx + cell * 0.3}" y2="{cy}" '
                       f'stroke="#c81e1e" stroke-width="4"/>')
    out.append("</svg>")
    return "\n".join(out)
