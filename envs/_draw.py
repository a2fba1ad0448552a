"""One picture, two outputs: a small scene of shapes drawn as SVG text or as an RGB raster, and PNG.

The board renderers (draughts_render, backgammon_render) describe a position once as a ``Scene``
— rectangles, circles, convex polygons, lines and text in picture coordinates — and get the SVG
document (``svg()``) and the ``rgb_array`` image (``rgb()``, NumPy, no pygame, headless) from the
same description, in one palette (``PALETTE``) shared with the web board. Raster text is drawn with
Pillow's bundled TrueType font (Aileron, antialiased), the SVG's in ``FONT_FAMILY``.
``png_bytes`` writes an RGB image as a PNG file with the standard library (zlib) only.
"""

from __future__ import annotations

import functools
import os
import struct
import zlib

import numpy as np
import numpy.typing as npt

from boardgym.envs.checks import is_int

#: The one palette of every view (pictures, the web board's app.js and style.css use the same
#: colours): draughts squares and pieces, backgammon felt, points and checkers, the last-move mark.
PALETTE = {
    "frame": (0x5B, 0x3B, 0x22),
    "label": (0xF3, 0xE6, 0xC8),
    "light": (0xEF, 0xE3, 0xC4),
    "dark": (0x7A, 0x9A, 0x5C),
    "white_piece": (0xF7, 0xF3, 0xE8),
    "white_rim": (0x77, 0x77, 0x77),
    "black_piece": (0x26, 0x22, 0x20),
    "black_rim": (0x00, 0x00, 0x00),
    "king": (0xD8, 0xB4, 0x3C),
    "capture": (0xE0, 0x3C, 0x31),
    "felt": (0xE9, 0xDC, 0xB8),
    "bar": (0x6D, 0x4A, 0x2C),
    "tray": (0x4A, 0x30, 0x1C),
    "odd_point": (0xA0, 0x52, 0x2D),
    "even_point": (0x2F, 0x4F, 0x4F),
    "checker_0": (0xF7, 0xF3, 0xE8),
    "checker_1": (0x8C, 0x1C, 0x1C),
    "checker_rim_0": (0x66, 0x66, 0x66),
    "checker_rim_1": (0x3A, 0x08, 0x08),
    "last_move": (0x1E, 0x90, 0xFF),
}
#: the SVG font (Pillow's bundled Aileron draws the PNG text; sans-serif where it is missing)
FONT_FAMILY = "Aileron, sans-serif"
#: the SVG class of the last-move marks (squares or points, and a capture's path)
LAST_MOVE = "last-move"


@functools.lru_cache(maxsize=64)
def font(size):
    """Pillow's bundled TrueType font (Aileron Regular) at size pixels (an int >= 1)."""
    from PIL import ImageFont  # Pillow loads when the first picture has text

    return ImageFont.load_default(size=size)


def check_perspective(perspective):
    """perspective (whose side of the board is drawn at the bottom) as an int 0 or 1;
    TypeError / ValueError naming it."""
    if not is_int(perspective):
        raise TypeError(
            f"perspective must be 0 or 1 (the player whose side is drawn at the "
            f"bottom), got {perspective!r}"
        )
    if perspective not in (0, 1):
        raise ValueError(f"perspective must be 0 or 1, got {perspective}")
    return int(perspective)


def _hex(color):
    return "#{:02x}{:02x}{:02x}".format(*(int(c) for c in color))


def _num(x):
    """A coordinate for SVG: an integer when it is one, else two decimals."""
    x = float(x)
    return str(int(x)) if x == int(x) else f"{x:.2f}".rstrip("0")


def _escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cls(tag):
    return f' class="{tag}"' if tag else ""


class Scene:
    """Shapes in picture coordinates (x right, y down; colours are RGB tuples), in drawing order.
    A shape's tag becomes its SVG class (e.g. ``LAST_MOVE``)."""

    def __init__(self, width, height, background):
        self.width, self.height = width, height
        self.items = [("rect", 0, 0, width, height, background, None, 0, None)]

    def rect(self, x, y, w, h, fill, stroke=None, stroke_width=1.0, tag=None):
        """A rectangle with top-left corner (x, y); fill None: its outline only, inside the
        rectangle."""
        self.items.append(("rect", x, y, w, h, fill, stroke, stroke_width, tag))

    def circle(self, cx, cy, r, fill, stroke=None, stroke_width=1.0, tag=None):
        """A disc of radius r (its outline, if any, centred on the radius)."""
        self.items.append(("circle", cx, cy, r, fill, stroke, stroke_width, tag))

    def polygon(self, points, fill, stroke=None, stroke_width=1.0, tag=None):
        """A convex polygon [(x, y), ...]; fill None: its outline only."""
        self.items.append(("polygon", tuple(points), fill, stroke, stroke_width, tag))

    def line(self, x1, y1, x2, y2, stroke, width, tag=None):
        """A straight stroke of the given width (round ends)."""
        self.items.append(("line", x1, y1, x2, y2, stroke, width, tag))

    def text(self, x, y, text, size, fill, anchor="middle", tag=None):
        """text with its baseline at y; anchor 'start', 'middle' or 'end' at x; size in pixels."""
        self.items.append(("text", x, y, str(text), size, fill, anchor, tag))

    # ---- SVG ------------------------------------------------------------------------------------
    def svg(self, scale=1.0):
        """The scene as an SVG document (str), scale times its natural size."""
        w, h = self.width * scale, self.height * scale
        out = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" '
            f'viewBox="0 0 {_num(self.width)} {_num(self.height)}">'
        ]
        for item in self.items:
            kind, tag = item[0], item[-1]
            if kind == "rect":
                _, x, y, rw, rh, fill, stroke, sw, _ = item
                if fill is None:  # an outline inside the rectangle
                    x, y, rw, rh = x + sw / 2, y + sw / 2, rw - sw, rh - sw
                line = (
                    f'<rect{_cls(tag)} x="{_num(x)}" y="{_num(y)}" width="{_num(rw)}" '
                    f'height="{_num(rh)}" fill="{_paint(fill)}"'
                )
                if stroke is not None:
                    line += f' stroke="{_hex(stroke)}" stroke-width="{_num(sw)}"'
                out.append(line + "/>")
            elif kind == "circle":
                _, cx, cy, r, fill, stroke, sw, _ = item
                line = (
                    f'<circle{_cls(tag)} cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(r)}" '
                    f'fill="{_paint(fill)}"'
                )
                if stroke is not None:
                    line += f' stroke="{_hex(stroke)}" stroke-width="{_num(sw)}"'
                out.append(line + "/>")
            elif kind == "polygon":
                _, pts, fill, stroke, sw, _ = item
                line = (
                    f"<polygon{_cls(tag)} "
                    f'points="{" ".join(f"{_num(px)},{_num(py)}" for px, py in pts)}" '
                    f'fill="{_paint(fill)}"'
                )
                if stroke is not None:
                    line += (
                        f' stroke="{_hex(stroke)}" stroke-width="{_num(sw)}" '
                        'stroke-linejoin="round"'
                    )
                out.append(line + "/>")
            elif kind == "line":
                _, x1, y1, x2, y2, stroke, width, _ = item
                out.append(
                    f'<line{_cls(tag)} x1="{_num(x1)}" y1="{_num(y1)}" x2="{_num(x2)}" '
                    f'y2="{_num(y2)}" stroke="{_hex(stroke)}" stroke-width="{_num(width)}" '
                    'stroke-linecap="round"/>'
                )
            else:
                _, x, y, text, size, fill, anchor, _ = item
                out.append(
                    f'<text{_cls(tag)} x="{_num(x)}" y="{_num(y)}" font-size="{_num(size)}" '
                    f'font-family="{FONT_FAMILY}" text-anchor="{anchor}" '
                    f'fill="{_hex(fill)}">{_escape(text)}</text>'
                )
        out.append("</svg>")
        return "\n".join(out)

    # ---- raster ---------------------------------------------------------------------------------
    def rgb(self, scale=1.0):
        """The scene as an RGB image, uint8[round(H * scale), round(W * scale), 3]."""
        img = np.empty(
            (max(1, round(self.height * scale)), max(1, round(self.width * scale)), 3), np.uint8
        )
        s = float(scale)
        for item in self.items:
            kind = item[0]
            if kind == "rect":
                _, x, y, w, h, fill, stroke, sw, _ = item
                y0, x0, y1, x1, d = y * s, x * s, (y + h) * s, (x + w) * s, sw * s
                if stroke is not None and fill is None:
                    for box in (
                        (y0, x0, y0 + d, x1),
                        (y1 - d, x0, y1, x1),
                        (y0, x0, y1, x0 + d),
                        (y0, x1 - d, y1, x1),
                    ):
                        _fill_rect(img, *box, stroke)
                elif stroke is not None:
                    _fill_rect(img, y0, x0, y1, x1, stroke)
                    _fill_rect(img, y0 + d, x0 + d, y1 - d, x1 - d, fill)
                elif fill is not None:
                    _fill_rect(img, y0, x0, y1, x1, fill)
            elif kind == "circle":
                _, cx, cy, r, fill, stroke, sw, _ = item
                if stroke is not None and fill is None:
                    _fill_ring(img, cy * s, cx * s, (r + sw / 2) * s, (r - sw / 2) * s, stroke)
                elif stroke is not None:
                    _fill_circle(img, cy * s, cx * s, (r + sw / 2) * s, stroke)
                    _fill_circle(img, cy * s, cx * s, (r - sw / 2) * s, fill)
                elif fill is not None:
                    _fill_circle(img, cy * s, cx * s, r * s, fill)
            elif kind == "polygon":
                _, pts, fill, stroke, sw, _ = item
                pts = [(px * s, py * s) for px, py in pts]
                if fill is not None:
                    _fill_polygon(img, pts, fill)
                if stroke is not None:
                    for (ax, ay), (bx, by) in zip(pts, pts[1:] + pts[:1]):
                        _fill_segment(img, ax, ay, bx, by, sw * s / 2, stroke)
            elif kind == "line":
                _, x1, y1, x2, y2, stroke, width, _ = item
                _fill_segment(img, x1 * s, y1 * s, x2 * s, y2 * s, width * s / 2, stroke)
            else:
                _, x, y, text, size, fill, anchor, _ = item
                _draw_text(img, x * s, y * s, text, size * s, fill, anchor)
        return img


def _paint(fill):
    return "none" if fill is None else _hex(fill)


def _fill_rect(img, y0, x0, y1, x1, color):
    """Paint the pixels whose centres lie in [y0, y1) x [x0, x1)."""
    h, w = img.shape[:2]
    r0, r1 = max(0, round(y0)), min(h, round(y1))
    c0, c1 = max(0, round(x0)), min(w, round(x1))
    if r1 > r0 and c1 > c0:
        img[r0:r1, c0:c1] = color


def _box(img, y0, x0, y1, x1):
    h, w = img.shape[:2]
    return (
        max(0, int(np.floor(y0))),
        min(h, int(np.ceil(y1)) + 1),
        max(0, int(np.floor(x0))),
        min(w, int(np.ceil(x1)) + 1),
    )


def _fill_circle(img, cy, cx, r, color):
    if r <= 0:
        return
    r0, r1, c0, c1 = _box(img, cy - r, cx - r, cy + r, cx + r)
    if r1 <= r0 or c1 <= c0:
        return
    yy, xx = np.ogrid[r0:r1, c0:c1]
    inside = (yy + 0.5 - cy) ** 2 + (xx + 0.5 - cx) ** 2 <= r * r
    img[r0:r1, c0:c1][inside] = color


def _fill_polygon(img, pts, color):
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    r0, r1, c0, c1 = _box(img, min(ys), min(xs), max(ys), max(xs))
    if r1 <= r0 or c1 <= c0:
        return
    yy, xx = np.ogrid[r0:r1, c0:c1]
    py, px = yy + 0.5, xx + 0.5
    pos = np.ones((r1 - r0, c1 - c0), bool)
    neg = np.ones((r1 - r0, c1 - c0), bool)
    for (ax, ay), (bx, by) in zip(pts, pts[1:] + pts[:1]):
        cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
        pos &= cross >= 0
        neg &= cross <= 0
    img[r0:r1, c0:c1][pos | neg] = color


def _fill_segment(img, x1, y1, x2, y2, half, color):
    r0, r1, c0, c1 = _box(
        img, min(y1, y2) - half, min(x1, x2) - half, max(y1, y2) + half, max(x1, x2) + half
    )
    if r1 <= r0 or c1 <= c0:
        return
    yy, xx = np.ogrid[r0:r1, c0:c1]
    py, px = yy + 0.5, xx + 0.5
    dx, dy = x2 - x1, y2 - y1
    t = np.clip(((px - x1) * dx + (py - y1) * dy) / max(dx * dx + dy * dy, 1e-12), 0.0, 1.0)
    inside = (px - x1 - t * dx) ** 2 + (py - y1 - t * dy) ** 2 <= half * half
    img[r0:r1, c0:c1][inside] = color


def _fill_ring(img, cy, cx, r_out, r_in, color):
    """Paint the annulus r_in < distance <= r_out (a circle's outline without its inside)."""
    r0, r1, c0, c1 = _box(img, cy - r_out, cx - r_out, cy + r_out, cx + r_out)
    if r1 <= r0 or c1 <= c0:
        return
    yy, xx = np.ogrid[r0:r1, c0:c1]
    d2 = (yy + 0.5 - cy) ** 2 + (xx + 0.5 - cx) ** 2
    img[r0:r1, c0:c1][(d2 <= r_out * r_out) & (d2 > max(r_in, 0) ** 2)] = color


_ANCHORS = {
    "start": "ls",
    "middle": "ms",
    "end": "rs",
}  # Pillow's anchors: left/middle/right, baseline


def _draw_text(img, x, y, text, size, color, anchor):
    """Antialiased text in Pillow's bundled TrueType font, size pixels (the em, as SVG's
    font-size), baseline at y, blended into img."""
    from PIL import Image, ImageDraw

    if not text:
        return
    f = font(max(1, round(size)))
    a = _ANCHORS[anchor]
    left, top, right, bottom = f.getbbox(text, anchor=a)
    if right <= left or bottom <= top:
        return
    mask = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=f, anchor=a)
    alpha = np.asarray(mask, np.float32)[..., None] / 255.0
    gy, gx = round(y) + top, round(x) + left
    ys, xs = max(0, -gy), max(0, -gx)
    h = min(alpha.shape[0], img.shape[0] - gy)
    w = min(alpha.shape[1], img.shape[1] - gx)
    if h <= ys or w <= xs:
        return
    region = img[gy + ys : gy + h, gx + xs : gx + w]
    cut = alpha[ys:h, xs:w]
    region[...] = np.rint(region * (1.0 - cut) + np.asarray(color, np.float32) * cut).astype(
        np.uint8
    )


def png_bytes(img):
    """A PNG file (bytes) of an RGB image uint8[H, W, 3] (8-bit truecolour, no interlace)."""
    img = np.ascontiguousarray(img, dtype=np.uint8)
    if img.ndim != 3 or img.shape[2] != 3 or img.shape[0] < 1 or img.shape[1] < 1:
        raise ValueError(f"a PNG image must be (H, W, 3) uint8, got shape {img.shape}")
    h, w = img.shape[:2]
    raw = np.zeros((h, 1 + 3 * w), np.uint8)  # filter type 0 (None) before every row
    raw[:, 1:] = img.reshape(h, 3 * w)

    def chunk(kind, data):
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6))
        + chunk(b"IEND", b"")
    )


class Picture:
    """Base of the notebook display objects: a position as SVG, PNG or an RGB array.

    A subclass sets ``_scene()`` (the Scene of its position) and ``text()``; Jupyter shows it
    through ``_repr_svg_`` / ``_repr_png_``."""

    def _scene(self):
        raise NotImplementedError

    def text(self) -> str:
        """The position as a text board."""
        raise NotImplementedError

    def svg(self) -> str:
        """The picture as an SVG document (str)."""
        return self._scene().svg()

    def rgb(self) -> npt.NDArray[np.uint8]:
        """The picture as an RGB image, uint8[H, W, 3]."""
        return self._scene().rgb()

    def png(self) -> bytes:
        """The picture as PNG file bytes."""
        return png_bytes(self.rgb())

    def save(self, path: str | os.PathLike[str]) -> str | os.PathLike[str]:
        """Write the picture to path: SVG if it ends in .svg, PNG if in .png; returns path."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
        name = os.fspath(path)
        ext = os.path.splitext(name)[1].lower()
        if ext == ".svg":
            with open(name, "w", encoding="utf-8") as f:
                f.write(self.svg())
        elif ext == ".png":
            with open(name, "wb") as f:
                f.write(self.png())
        else:
            raise ValueError(f"picture file must end in .svg or .png, got {name!r}")
        return path

    def _repr_svg_(self):
        return self.svg()

    def _repr_png_(self):
        return self.png()

    def __str__(self):
        return self.text()
