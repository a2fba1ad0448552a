"""Pictures of a backgammon position: text board, RGB image, SVG.

Boards are drawn from player_0's side: its points 1..24 (1..6 its home, bottom right), its
checkers ``X`` (white in pictures), player_1's ``O`` (black). Bar, borne-off checkers, pip counts
and the dice still to play are shown.
"""
import numpy as np

from boardgym.envs._draw import canvas, draw_text, fill_circle, fill_rect, fill_triangle
from boardgym.envs.backgammon_notation import check_state
from boardgym.kernels.backgammon.board import (
    BAR_ME, BAR_OPP, CUBE_OWNER, CUBE_VALUE, DICE, ME, OFF_ME, OFF_OPP, OPP, TURN,
)

_P = np.arange(1, 25)


def absolute_view(state):
    """dict: x[p], o[p] (int arrays indexed by player_0's point p, index 0 unused), bars, offs,
    pips of both players, the player on roll and the dice left (list of values)."""
    s = check_state(state)
    me, opp = s[ME:ME + 24], s[OPP:OPP + 24]
    if s[TURN] == 0:
        x, o = me, opp
        bar, off = (int(s[BAR_ME]), int(s[BAR_OPP])), (int(s[OFF_ME]), int(s[OFF_OPP]))
    else:  # player_0's point p is the mover's point 25 - p
        x, o = opp[::-1], me[::-1]
        bar, off = (int(s[BAR_OPP]), int(s[BAR_ME])), (int(s[OFF_OPP]), int(s[OFF_ME]))
    xs, os_ = np.zeros(25, np.int64), np.zeros(25, np.int64)
    xs[1:], os_[1:] = x, o
    pips = (int((_P * x).sum()) + 25 * bar[0], int(((25 - _P) * o).sum()) + 25 * bar[1])
    dice = [v + 1 for v in range(6) for _ in range(int(s[DICE + v]))]
    return {"x": xs, "o": os_, "bar": bar, "off": off, "pips": pips, "turn": int(s[TURN]),
            "dice": dice, "cube": (int(s[CUBE_VALUE]), int(s[CUBE_OWNER]))}


def _cell(v, p):
    if v["x"][p]:
        return f"{v['x'][p]:>2}X"
    if v["o"][p]:
        return f"{v['o'][p]:>2}O"
    return "  ."


def render_text(state):
    """A text board from player_0's side with point numbers, bar, off, pips and dice."""
    v = absolute_view(state)
    top = list(range(13, 19)), list(range(19, 25))
    bottom = list(range(12, 6, -1)), list(range(6, 0, -1))
    head = " " + "".join(f"{p:>3}" for p in top[0]) + "  BAR " + "".join(f"{p:>3}" for p in top[1])
    row_t = " " + "".join(_cell(v, p) for p in top[0]) + " |  | " + "".join(_cell(v, p) for p in top[1])
    row_b = " " + "".join(_cell(v, p) for p in bottom[0]) + " |  | " + "".join(_cell(v, p) for p in bottom[1])
    foot = " " + "".join(f"{p:>3}" for p in bottom[0]) + "      " + "".join(f"{p:>3}" for p in bottom[1])
    cube_val, owner = v["cube"]
    cube = f"cube {cube_val}" + ("" if owner < 0 else f" owned by player_{owner}")
    dice = "-".join(map(str, v["dice"])) if v["dice"] else "none"
    return "\n".join([
        head, row_t, "", row_b, foot,
        f" bar: X {v['bar'][0]}  O {v['bar'][1]}   off: X {v['off'][0]}  O {v['off'][1]}   "
        f"pips: X {v['pips'][0]}  O {v['pips'][1]}   {cube}",
        f" player_{v['turn']} ({'XO'[v['turn']]}) on roll, dice to play: {dice}",
    ])


_W, _H, _PT, _BAR = 640, 420, 44, 40
_X_COL, _O_COL = (245, 245, 240), (30, 30, 30)


def _point_geometry(p):
    """(x_left, is_top) of player_0's point p in the picture."""
    if p <= 12:  # bottom row, 1 at the right
        col = 12 - p
        is_top = False
    else:
        col = p - 13
        is_top = True
    x = 20 + col * _PT + (_BAR if col >= 6 else 0)
    return x, is_top


def render_rgb(state):
    """An RGB image (uint8[H, W, 3]) of the board from player_0's side."""
    v = absolute_view(state)
    img = canvas(_H, _W, (90, 60, 35))
    fill_rect(img, 20, 20, _H - 20, 20 + 12 * _PT + _BAR, (200, 170, 120))
    fill_rect(img, 20, 20 + 6 * _PT, _H - 20, 20 + 6 * _PT + _BAR, (90, 60, 35))
    r = _PT * 0.42
    for p in range(1, 25):  # 24 points: drawing code, not game logic
        x, is_top = _point_geometry(p)
        colour = (150, 40, 40) if p % 2 else (60, 90, 60)
        if is_top:
            fill_triangle(img, 20 + 160, 20, x, x + _PT, colour)
        else:
            fill_triangle(img, _H - 20 - 160, _H - 20, x, x + _PT, colour)
        label = str(p)
        draw_text(img, 6 if is_top else _H - 16, x + _PT / 2 - 4 * len(label), label, (230, 230, 230))
        n, col = (v["x"][p], _X_COL) if v["x"][p] else (v["o"][p], _O_COL)
        for k in range(min(int(n), 5)):
            cy = 20 + r + 2 * r * k if is_top else _H - 20 - r - 2 * r * k
            fill_circle(img, cy, x + _PT / 2, r, (120, 120, 120))
            fill_circle(img, cy, x + _PT / 2, r - 2, col)
        if n > 5:
            cy = 20 + 9 * r if is_top else _H - 20 - 9 * r
            draw_text(img, cy - 5, x + _PT / 2 - 7, str(int(n)), (200, 30, 30))
    bx = 20 + 6 * _PT + _BAR / 2
    for who, (cnt, col) in enumerate(((v["bar"][0], _X_COL), (v["bar"][1], _O_COL))):
        for k in range(min(cnt, 4)):
            cy = _H / 2 + (1 if who == 0 else -1) * (r + 2 * r * k + 4)
            fill_circle(img, cy, bx, r - 2, col)
    ox = 20 + 12 * _PT + _BAR + 8
    for who, (cnt, col) in enumerate(((v["off"][0], _X_COL), (v["off"][1], _O_COL))):
        y = _H - 40 if who == 0 else 30
        fill_rect(img, y - 8, ox, y + 8, ox + 4 * cnt, col)
    for i, d in enumerate(v["dice"][:4]):
        y0, x0 = _H / 2 - 12, 20 + 9 * _PT + _BAR - 20 + i * 30
        fill_rect(img, y0, x0, y0 + 24, x0 + 24, (250, 250, 250) if v["turn"] == 0 else (20, 20, 20))
        draw_text(img, y0 + 7, x0 + 9, str(d), (200, 30, 30))
    return img


def to_svg(state, scale=1.0):
    """An SVG document (str) of the position from player_0's side; scale a number in (0, 100]."""
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating)):
        raise TypeError(f"scale must be a number, got {scale!r}")
    if not 0 < scale <= 100:
        raise ValueError(f"scale must be in (0, 100], got {scale!r}")
    v = absolute_view(state)
    w, h = _W * scale, _H * scale
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" '
           f'viewBox="0 0 {_W} {_H}">', f'<rect width="{_W}" height="{_H}" fill="#5a3c23"/>',
           f'<rect x="20" y="20" width="{12 * _PT + _BAR}" height="{_H - 40}" fill="#c8aa78"/>',
           f'<rect x="{20 + 6 * _PT}" y="20" width="{_BAR}" height="{_H - 40}" fill="#5a3c23"/>']
    r = _PT * 0.42
    for p in range(1, 25):
        x, is_top = _point_geometry(p)
        base, apex = (20, 180) if is_top else (_H - 20, _H - 180)
        fill = "#962828" if p % 2 else "#3c5a3c"
        out.append(f'<polygon points="{x},{base} {x + _PT},{base} {x + _PT / 2},{apex}" fill="{fill}"/>')
        out.append(f'<text x="{x + _PT / 2}" y="{14 if is_top else _H - 6}" font-size="11" '
                   f'text-anchor="middle" fill="#e6e6e6">{p}</text>')
        n, fill_c = (v["x"][p], "#f5f5f0") if v["x"][p] else (v["o"][p], "#1e1e1e")
        for k in range(min(int(n), 5)):
            cy = 20 + r + 2 * r * k if is_top else _H - 20 - r - 2 * r * k
            out.append(f'<circle cx="{x + _PT / 2}" cy="{cy}" r="{r - 1}" fill="{fill_c}" stroke="#787878"/>')
        if n > 5:
            out.append(f'<text x="{x + _PT / 2}" y="{20 + 9 * r if is_top else _H - 20 - 9 * r}" '
                       f'font-size="14" text-anchor="middle" fill="#c81e1e">{int(n)}</text>')
    out.append(f'<text x="{_W / 2}" y="{_H / 2}" font-size="12" text-anchor="middle" fill="#e6e6e6">'
               f'bar X{v["bar"][0]} O{v["bar"][1]} off X{v["off"][0]} O{v["off"][1]} '
               f'pips X{v["pips"][0]} O{v["pips"][1]}</text>')
    out.append("</svg>")
    return "\n".join(out)
