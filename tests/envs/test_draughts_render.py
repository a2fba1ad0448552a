"""Draughts pictures: the side to move, one drawing for SVG and image, PNG files, Board objects."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from png_decode import decode_png

from boardgym.envs import draughts as api
from boardgym.envs import draughts_render as R
from boardgym.envs import russian_draughts_v0
from boardgym.envs._draw import Scene, png_bytes

START = "W:W21-32:B1-12"


def test_svg_and_image_show_the_side_to_move():
    white = R.to_svg(api.from_fen(START))
    black = R.to_svg(api.from_fen("B:W21-32:B1-12"))
    assert "White to move" in white and "Black to move" in black
    ET.fromstring(white)  # well-formed XML
    assert white.count("<circle") == 24 + 1 + 2  # the pieces, the side to move, the legend
    a = R.render_rgb(api.from_fen(START))
    b = R.render_rgb(api.from_fen("B:W21-32:B1-12"))
    assert a.dtype == np.uint8 and a.shape == (532, 504, 3)
    assert (a != b).any()  # the marker and the text differ


def test_capture_in_progress_is_drawn():
    env = russian_draughts_v0.raw_env()
    env.reset(options={"fen": "W:W22,28:B4,11,17,18"})
    env.step(api.parse_square("c3") * 32 + api.parse_square("e5"))
    svg = R.to_svg(env.state)
    assert "capture in progress" in svg and "<line" in svg


def test_png_is_the_image_and_a_valid_file():
    img = R.render_rgb(api.initial_state())
    assert np.array_equal(decode_png(png_bytes(img)), img)
    with pytest.raises(ValueError, match="PNG"):
        png_bytes(np.zeros((4, 4), np.uint8))


def test_board_from_fen_or_state(tmp_path):
    b = R.Board(START)
    assert np.array_equal(b.state, api.initial_state())
    assert np.array_equal(R.Board(api.initial_state()).state, b.state)
    assert b.fen == api.to_fen(api.initial_state()) and repr(b).startswith("Board('W:")
    assert str(b) == R.render_text(api.initial_state()) == b.text()
    assert b._repr_svg_() == b.svg() == R.to_svg(api.initial_state())
    png = b._repr_png_()
    assert isinstance(png, bytes) and np.array_equal(decode_png(png), b.rgb())
    assert b.rgb().shape == (475, 450, 3)  # 50-pixel squares, half a square of margin, legend
    svg_path, png_path = tmp_path / "p.svg", tmp_path / "p.PNG"
    assert b.save(svg_path) == svg_path and b.save(str(png_path)) == str(png_path)
    assert svg_path.read_text() == b.svg() and png_path.read_bytes() == png
    s = b.state
    s[0] = 0  # a copy: the board keeps its position
    assert np.array_equal(b.state, api.initial_state())


@pytest.mark.parametrize(
    "args, error, match",
    [
        (("W:W21-32:B1-99",), ValueError, "FEN"),
        ((None,), TypeError, "FEN"),
        ((5,), TypeError, "FEN"),
        ((np.zeros(3, np.int64),), ValueError, "shape"),
        ((START, 2), ValueError, "cell"),
        ((START, 5.5), TypeError, "cell"),
    ],
)
def test_board_rejects_bad_input(args, error, match):
    with pytest.raises(error, match=match):
        R.Board(*args)


def test_board_save_names_a_bad_path(tmp_path):
    b = R.Board(START)
    with pytest.raises(ValueError, match=r"\.svg or \.png"):
        b.save(tmp_path / "p.jpg")
    with pytest.raises(TypeError, match="path"):
        b.save(5)


def test_envs_show_as_svg_in_notebooks():
    raw = russian_draughts_v0.raw_env()
    raw.reset()
    assert raw._repr_svg_() == R.to_svg(raw.state)
    wrapped = russian_draughts_v0.env()
    wrapped.reset()
    assert wrapped._repr_svg_().startswith("<svg")


def test_scene_draws_the_same_shapes_in_both_outputs():
    sc = Scene(40, 20, (0, 0, 0))
    sc.rect(0, 0, 20, 20, (255, 0, 0))
    sc.circle(30, 10, 6, (0, 255, 0), (0, 0, 255), 2)
    sc.polygon([(20, 20), (40, 20), (30, 14)], (1, 2, 3))
    sc.line(0, 10, 20, 10, (9, 9, 9), 2)
    sc.text(10, 8, "a<b", 10, (7, 7, 7))
    svg = sc.svg(scale=2)
    root = ET.fromstring(svg)
    assert root.get("width") == "80" and root.get("height") == "40"
    assert "a&lt;b" in svg and svg.count("<rect") == 2 and svg.count("<circle") == 1
    img = sc.rgb(scale=2)
    assert img.shape == (40, 80, 3)
    assert tuple(img[2, 2]) == (255, 0, 0) and tuple(img[20, 60]) == (0, 255, 0)
    assert tuple(img[20, 49]) == (0, 0, 255)  # the circle's outline
    assert tuple(img[20, 20]) == (9, 9, 9)  # the line
    assert tuple(img[38, 60]) == (1, 2, 3)  # the triangle
    assert (img[:20, :40] == 7).all(-1).any()  # the text


def test_png_opens_in_pillow():
    image = pytest.importorskip("PIL.Image")
    import io

    b = R.Board(START)
    with image.open(io.BytesIO(b.png())) as pic:
        assert pic.size == (450, 475) and pic.mode == "RGB"
        assert np.array_equal(np.asarray(pic), b.rgb())


def test_perspective_draws_blacks_side_at_the_bottom():
    s = api.from_fen("W:W21,22,K32:B1,K30")
    t0, t1 = R.render_text(s), R.render_text(s, perspective=1)
    assert t0.splitlines()[-2] == "   a  b  c  d  e  f  g  h"
    assert t1.splitlines()[-2] == "   h  g  f  e  d  c  b  a"
    assert t0.splitlines()[7] == "1  .     B     .     W    "  # c1 black king, g1 white king
    assert t1.splitlines()[0] == "1     W     .     B     . "  # rank 1 on top, from h to a
    a, b = R.render_rgb(s), R.render_rgb(s, perspective=1)
    assert np.array_equal(a[28:476, 28:-28], b[28:476, 28:-28][::-1, ::-1])  # the board turned
    assert R.to_svg(s, perspective=1) == R.Board(s, perspective=1).svg()
    for bad, error in ((2, ValueError), ("1", TypeError), (None, TypeError)):
        with pytest.raises(error, match="perspective"):
            R.render_text(s, perspective=bad)
        with pytest.raises(error, match="perspective"):
            R.Board(s, perspective=bad)


@settings(max_examples=300, deadline=None)
@given(
    position=st.one_of(
        st.none(),
        st.integers(),
        st.text(max_size=40),
        st.text(alphabet="WBK:,-0123456789abcdefgh", max_size=40),
        st.lists(st.integers(-3, 2**40), max_size=90),
    ),
    cell=st.one_of(st.just(50), st.integers(-5, 2000), st.floats(), st.none()),
    perspective=st.one_of(st.sampled_from([0, 1]), st.integers(), st.text(max_size=2)),
)
def test_board_raises_only_clear_errors_on_hostile_input(position, cell, perspective):
    try:
        b = R.Board(position, cell=cell, perspective=perspective)
    except (TypeError, ValueError) as e:
        assert str(e) and "numba" not in str(e).lower()
        return
    assert b.text() and b.svg().startswith("<svg")
