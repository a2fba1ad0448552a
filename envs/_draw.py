"""Tiny NumPy raster primitives for the ``rgb_array`` renderers (no pygame, works headless).

Every function paints in place on an ``(H, W, 3) uint8`` image and is vectorised over pixels.
"""
import numpy as np

# 3x5 bitmap digits and the few letters the boards need ('#' = ink).
_GLYPHS = {  # five rows of three pixels each
    "0": ("###", "#.#", "#.#", "#.#", "###"), "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"), "3": ("###", "..#", "###", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"), "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"), "7": ("###", "..#", "..#", "..#", "..#"),
    "8": ("###", "#.#", "###", "#.#", "###"), "9": ("###", "#.#", "###", "..#", "###"),
    "a": (".#.", "#.#", "###", "#.#", "#.#"), "b": ("##.", "#.#", "##.", "#.#", "##."),
    "c": (".##", "#..", "#..", "#..", ".##"), "d": ("##.", "#.#", "#.#", "#.#", "##."),
    "e": ("###", "#..", "##.", "#..", "###"), "f": ("###", "#..", "##.", "#..", "#.."),
    "g": (".##", "#..", "#.#", "#.#", ".##"), "h": ("#.#", "#.#", "###", "#.#", "#.#"),
    "o": (".#.", "#.#", "#.#", "#.#", ".#."), "x": ("#.#", "#.#", ".#.", "#.#", "#.#"),
    "/": ("..#", "..#", ".#.", "#..", "#.."), "-": ("...", "...", "###", "...", "..."),
    "B": ("##.", "#.#", "##.", "#.#", "##."), "W": ("#.#", "#.#", "#.#", "###", "#.#"),
}
_GLYPH_BITS = {k: np.array([[c == "#" for c in row] for row in v], bool) for k, v in _GLYPHS.items()}


def canvas(height, width, color):
    """A new (H, W, 3) uint8 image filled with color."""
    img = np.empty((height, width, 3), np.uint8)
    img[:] = color
    return img


def fill_rect(img, y0, x0, y1, x1, color):
    """Paint the half-open rectangle [y0, y1) x [x0, x1)."""
    img[max(0, int(y0)):max(0, int(y1)), max(0, int(x0)):max(0, int(x1))] = color


def fill_circle(img, cy, cx, r, color):
    """Paint a filled disc of radius r centred at (cy, cx)."""
    y0, y1 = max(0, int(cy - r)), min(img.shape[0], int(cy + r) + 1)
    x0, x1 = max(0, int(cx - r)), min(img.shape[1], int(cx + r) + 1)
    yy, xx = np.ogrid[y0:y1, x0:x1]
    inside = (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
    img[y0:y1, x0:x1][inside] = color


def fill_triangle(img, apex_y, base_y, x_left, x_right, color):
    """Paint an isosceles triangle with its base on row base_y and apex on row apex_y."""
    top, bottom = sorted((int(apex_y), int(base_y)))
    yy, xx = np.ogrid[top:bottom, int(x_left):int(x_right)]
    half = (x_right - x_left) / 2.0
    frac = np.abs(yy - base_y) / max(1.0, abs(base_y - apex_y))  # 0 at base, 1 at apex
    inside = np.abs(xx - (x_left + half)) <= half * (1.0 - frac)
    img[top:bottom, int(x_left):int(x_right)][inside] = color


def draw_text(img, y, x, text, color, scale=2):
    """Write text (digits and the glyphs above) with a 3x5 bitmap font, top-left at (y, x)."""
    for i, ch in enumerate(text):
        glyph = _GLYPH_BITS.get(ch)
        if glyph is None:
            continue
        big = np.kron(glyph, np.ones((scale, scale), bool))
        gy, gx = int(y), int(x + i * 4 * scale)
        h = min(big.shape[0], img.shape[0] - gy)
        w = min(big.shape[1], img.shape[1] - gx)
        if h > 0 and w > 0:
            img[gy:gy + h, gx:gx + w][big[:h, :w]] = color
