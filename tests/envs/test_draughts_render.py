"""Draughts pictures: the side to move, one drawing for SVG and image, PNG files, Board objects."""

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from png_decode import decode_png

from boardgym.envs import _draw, russian_draughts_v0
from boardgym.envs import draughts as api
from boardgym.envs import draughts_render as R
from boardgym.envs._draw import FONT_FAMILY, PALETTE, Scene, png_bytes

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


def _last_move_marks(svg):
    """(framed squares as (x, y) of their centres, path segments) of an SVG's last-move marks."""
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    rects = [
        (
            float(r.get("x")) + float(r.get("width")) / 2,
            float(r.get("y")) + float(r.get("height")) / 2,
        )
        for r in root.iter(ns + "rect")
        if r.get("class") == "last-move"
    ]
    lines = [r for r in root.iter(ns + "line") if r.get("class") == "last-move"]
    return rects, lines


def _centre(name, cell=50, flip=False):
    """Picture coordinates of a square's centre (half a square of margin)."""
    f, r = "abcdefgh".index(name[0]), int(name[1]) - 1
    col, row = (7 - f, r) if flip else (f, 7 - r)
    m = cell // 2
    return m + col * cell + cell / 2, m + row * cell + cell / 2


@pytest.mark.parametrize("perspective", [0, 1])
def test_the_last_move_and_its_capture_path_are_marked(perspective):
    env = russian_draughts_v0.raw_env()
    env.reset(options={"fen": "W:W22,28:B4,11,17,18"})
    for a in api.move_to_actions(env.state, "c3:e5:g7"):  # two hops, the kernel frame is White's
        env.step(a)
    assert env.last_move() == "c3:e5:g7" and env.infos["player_0"]["last_move"] == "c3:e5:g7"
    rects, lines = _last_move_marks(env.to_svg(perspective=perspective))
    flip = perspective == 1
    assert sorted(rects) == sorted(_centre(q, flip=flip) for q in ("c3", "g7"))  # from and to
    assert len(lines) == 2  # c3-e5 and e5-g7
    first = (float(lines[0].get("x1")), float(lines[0].get("y1")))
    assert first == _centre("c3", flip=flip)
    text = env.render_text(perspective=perspective)
    assert "last move: White c3:e5:g7" in text
    rows = {line[0]: line for line in text.splitlines()[:8]}
    assert "(w)" in rows["7"] and " * " in rows["3"] and " * " in rows["5"]  # e5 was a landing
    # the picture marks the same squares as the SVG: the mark's colour on c3's frame
    img = env.render_rgb(perspective=perspective)
    x, y = _centre("c3", cell=56, flip=flip)
    assert tuple(img[round(y - 27), round(x)]) == PALETTE["last_move"]
    assert R.render_text(env.state) == R.render_text(env.state, last_move=None)  # no mark given
    assert "(w)" not in R.render_text(env.state)


def test_a_board_marks_a_given_move_and_rejects_a_bad_one():
    b = R.Board("B:W18,22:B1,K30", last_move="22-18")  # c3-d4 in numbers
    rects, lines = _last_move_marks(b.svg())
    assert sorted(rects) == sorted([_centre("c3"), _centre("d4")]) and len(lines) == 1
    with pytest.raises(ValueError, match="square"):
        R.Board(START, last_move="c3-z9")
    with pytest.raises(TypeError, match="PDN text"):
        R.Board(START, last_move=[9, 13])


def test_a_finished_game_says_who_won_not_whose_move_it_is():
    s = api.from_fen("B:W21:B")  # Black has no pieces: White won (G.1)
    for shown in (R.render_text(s), R.to_svg(s), R.Board(s).text()):
        assert "game over: White won" in shown and "to move" not in shown
    blocked = api.from_fen("W:W28:B19,24")  # h2 is blocked by g3 and f4: Black won (G.1)
    assert R.render_text(blocked).splitlines()[-1] == "game over: Black won"
    # the README's loop: a random game to its end, the header names its winner
    env = russian_draughts_v0.env(render_mode="ansi")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        env.step(
            None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )
    raw = env.unwrapped
    header = raw.render().splitlines()[-1]
    code = raw.status()
    if code in (1, 2):  # outcome.WHITE_WON, BLACK_WON
        assert header == f"game over: {'White' if code == 1 else 'Black'} won"
    else:
        assert header.startswith("game over: draw")
    assert "to move" not in raw.to_svg()


def test_a_game_stopped_at_the_move_cap_says_so():
    env = russian_draughts_v0.raw_env(max_moves=2)
    env.reset(seed=0)
    while not env.is_over:
        env.step(int(np.flatnonzero(env.legal_mask())[0]))
    assert env.render_text().splitlines()[-1] == "game over: stopped at the move cap (no result)"
    assert "stopped at the move cap" in env.to_svg()


def test_pictures_name_each_colour_s_player_in_one_palette_and_one_font():
    svg = R.to_svg(api.initial_state())
    assert "White: player_0" in svg and "Black: player_1" in svg
    assert f'font-family="{FONT_FAMILY}"' in svg and 'font-family="sans-serif"' not in svg
    fills = {c.get("fill") for c in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}circle")}
    assert {"#f7f3e8", "#262220"} <= fills
    # the web board draws the pieces, squares and checkers in the same colours
    web = (Path(R.__file__).parents[1] / "scripts" / "web" / "app.js").read_text()
    for role in ("white_piece", "black_piece", "dark", "light", "frame", "checker_0", "checker_1"):
        hex_ = "#{:02x}{:02x}{:02x}".format(*PALETTE[role])
        assert hex_ in web, (role, hex_)
    css = (Path(R.__file__).parents[1] / "scripts" / "web" / "style.css").read_text()
    assert "#{:02x}{:02x}{:02x}".format(*PALETTE["last_move"]) in css


def test_png_text_is_drawn_in_a_truetype_font():
    from PIL import ImageFont

    assert isinstance(_draw.font(15), ImageFont.FreeTypeFont)
    assert _draw.font(15).getname()[0] == "Aileron"
    sc = Scene(60, 20, (0, 0, 0))
    sc.text(2, 15, "Black", 14, (255, 255, 255), anchor="start")
    img = sc.rgb()
    grey = (img[..., 0] > 0) & (img[..., 0] < 255)
    assert grey.any() and (img[..., 0] == 255).any()  # antialiased glyphs, not a bitmap font
    lower = Scene(60, 20, (0, 0, 0))
    lower.text(2, 15, "BLACK", 14, (255, 255, 255), anchor="start")
    assert not np.array_equal(lower.rgb(), img)  # lower case has its own glyphs


def test_a_game_ended_by_an_illegal_action_says_so_and_outcome_is_checked():
    env = russian_draughts_v0.raw_env()
    env.reset()
    assert env.end_text() is None
    env.end_on_illegal_action()
    assert env.render_text().splitlines()[-1] == ("game over: player_0 played an illegal action")
    env.reset()
    assert env.end_text() is None and env.render_text().splitlines()[-1] == "White to move"
    assert R.render_text(env.state, outcome="adjourned").splitlines()[-1] == "adjourned"
    for fn in (R.render_text, R.render_rgb, R.to_svg):
        with pytest.raises(TypeError, match="outcome"):
            fn(env.state, outcome=1)
