"""Backgammon pictures: cube, player on roll, dice, bar and borne-off counts, either player's
side."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from png_decode import decode_png

from boardgym.envs import backgammon_notation as bg
from boardgym.envs import backgammon_render as R
from boardgym.envs import backgammon_v0
from boardgym.kernels.backgammon import board as B

NS = "{http://www.w3.org/2000/svg}"
START_ID = "4HPwATDgc/ABMA"


def race_state():
    """player_1 (O) on roll: O has 2 checkers on each of its points 1-4 and 1 on the bar, 6 off;
    X has 3 on its 6 point and 2 on the bar, 10 off; cube 4 owned by player_0."""
    o_side = [2, 2, 2, 2] + [0] * 20 + [1]
    x_side = [0] * 5 + [3] + [0] * 18 + [2]
    s = bg.state_from_board([x_side, o_side], turn=1)
    s[B.CUBE_VALUE], s[B.CUBE_OWNER] = 4, 0
    return s


def parse(svg):
    root = ET.fromstring(svg)
    circles = [
        (float(c.get("cx")), float(c.get("cy")), float(c.get("r")), c.get("fill"))
        for c in root.iter(NS + "circle")
    ]
    texts = [(t.text, float(t.get("x")), float(t.get("y"))) for t in root.iter(NS + "text")]
    return circles, texts


def checkers(circles, fill):
    return [c for c in circles if c[2] > 10 and c[3] == fill]


def pips(circles):
    return [c for c in circles if c[2] < 5]


WHITE, RED = "#f7f3e8", "#8c1c1c"  # player_0's and player_1's checkers (one palette)


def test_text_shows_cube_owner_turn_dice_bar_off_and_pips():
    s = race_state()
    text = R.render_text(R.Board(s, dice=(6, 2)).state)
    assert "bar: X 2  O 1" in text and "off: X 10  O 6" in text
    assert "cube 4 owned by player_0 (X)" in text
    assert "player_1 (O) to play 6-2" in text
    assert "pips: X 68  O 45" in text
    start = R.render_text(bg.initial_state())
    assert "cube 1 centred" in start and "player_0 (X) on roll" in start and START_ID in start


def test_perspective_renumbers_the_points_and_swaps_the_sides():
    s = bg.initial_state()
    v0, v1 = R.absolute_view(s, 0), R.absolute_view(s, 1)
    assert np.array_equal(v1["x"][1:], v0["x"][24:0:-1]) and np.array_equal(
        v1["o"][1:], v0["o"][24:0:-1]
    )
    # player_1's 24 point holds 2 of its checkers: the top right in its own picture
    assert v1["o"][24] == 2 and v0["o"][1] == 2
    t0, t1 = R.render_text(s), R.render_text(s, perspective=1)
    assert t0.splitlines()[1] == "  5X  .  .  . 3O  . |  |  5O  .  .  .  . 2X"
    assert t1.splitlines()[1] == "  5O  .  .  . 3X  . |  |  5X  .  .  .  . 2O"
    assert "numbered for player_1 (O)" in t1
    assert R.render_text(s, perspective=0) == t0  # the default is player_0's side


def test_perspective_moves_bar_and_off_checkers_and_the_cube_to_the_owner_side():
    s = race_state()
    for perspective in (0, 1):
        circles, texts = parse(R.to_svg(s, perspective=perspective))
        mid = R._MID
        x_bar = [
            c
            for c in checkers(circles, WHITE)
            if R._X0 + 6 * R._PT < c[0] < R._X0 + 6 * R._PT + R._BAR
        ]
        o_bar = [
            c
            for c in checkers(circles, RED)
            if R._X0 + 6 * R._PT < c[0] < R._X0 + 6 * R._PT + R._BAR
        ]
        assert len(x_bar) == 2 and len(o_bar) == 1
        x_below = all(c[1] > mid for c in x_bar)
        assert x_below == (perspective == 0) and all(
            (c[1] > mid) == (perspective == 1) for c in o_bar
        )
        cube = [
            t
            for t in texts
            if t[0] == "4" and R._X0 + 6 * R._PT < t[1] < R._X0 + 6 * R._PT + R._BAR
        ]
        assert len(cube) == 1 and (cube[0][2] > mid) == (perspective == 0)  # at player_0's edge
        offs = {t[0]: t[2] for t in texts if t[0].endswith(" off")}
        assert set(offs) == {"10 off", "6 off"}
        assert (offs["10 off"] > offs["6 off"]) == (perspective == 0)  # X's count nearer X's edge


def test_svg_shows_the_dice_on_the_movers_half():
    s = R.Board(race_state(), dice=(6, 2)).state
    for perspective, left in ((0, True), (1, False)):  # O moves: its dice on its own half
        circles, texts = parse(R.to_svg(s, perspective=perspective))
        dots = pips(circles)
        assert len(dots) == 8 and all(c[3] == WHITE for c in dots)  # white pips on red dice
        centre = R._X0 + R._BW / 2
        assert all((c[0] < centre) == left for c in dots)
    _, texts = parse(R.to_svg(R.Board(START_ID, dice=(3, 3)).state))
    assert any("player_0 (X) to play 3-3-3-3" in t[0] for t in texts)


def test_checkers_and_counts_are_all_drawn():
    circles, texts = parse(R.to_svg(bg.initial_state()))
    assert len(checkers(circles, WHITE)) == 15 and len(checkers(circles, RED)) == 15
    assert R.to_svg(bg.initial_state()).count("<circle") == 30 + 2  # the checkers, the legend
    tall = bg.state_from_board([[0] * 5 + [15] + [0] * 19, [0] * 5 + [9] + [0] * 19], turn=0)
    circles, texts = parse(R.to_svg(tall))
    assert len(checkers(circles, WHITE)) == 5 and any(t[0] == "9" for t in texts)
    assert any(t[0] == "6 off" for t in texts)


def test_image_matches_the_svg_drawing():
    s = R.Board(race_state(), dice=(5, 5)).state
    img = R.render_rgb(s)
    assert img.dtype == np.uint8 and img.shape == (502, 700, 3)
    assert not np.array_equal(img, R.render_rgb(s, perspective=1))
    b = R.Board(s, perspective=1, scale=0.5)
    assert b.rgb().shape == (251, 350, 3) and np.array_equal(decode_png(b.png()), b.rgb())
    assert ET.fromstring(b.svg()).get("width") == "350"


def test_board_from_position_and_match_id_round_trips():
    s = race_state()
    s = R.Board(s, dice=(5, 2)).state
    mid = bg.match_id(s)
    pid = bg.position_id(s)
    for b in (R.Board(pid, match_id=mid), R.Board(f"{pid}:{mid}")):
        assert np.array_equal(b.state, s) and b.position_id == pid
    assert repr(R.Board(pid)) == f"Board({pid!r})"
    b = R.Board(START_ID)
    assert np.array_equal(b.state, bg.initial_state()) and b.text() == str(b)
    match = bg.match_id(bg.initial_state(), match_length=7, score=(2, 5))
    assert "match to 7, score 2-5" in R.Board(START_ID, match_id=match).svg()


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"position": "nonsense"}, ValueError, "Position ID"),
        ({"position": 5}, TypeError, "state"),
        ({"position": START_ID, "match_id": "x"}, ValueError, "Match ID"),
        (
            {"position": START_ID + ":cAkAAAAAAAAA", "match_id": "cAkAAAAAAAAA"},
            ValueError,
            "not both",
        ),
        ({"position": START_ID, "dice": (7, 1)}, ValueError, "1..6"),
        ({"position": START_ID, "dice": (3,)}, ValueError, "two integers"),
        ({"position": START_ID, "dice": "31"}, TypeError, "two integers"),
        ({"position": START_ID, "perspective": 2}, ValueError, "perspective"),
        ({"position": START_ID, "perspective": "1"}, TypeError, "perspective"),
        ({"position": START_ID, "perspective": True}, TypeError, "perspective"),
        ({"position": START_ID, "scale": 0}, ValueError, "scale"),
    ],
)
def test_board_rejects_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        R.Board(**kwargs)


@pytest.mark.parametrize("fn", [R.render_text, R.render_rgb, R.to_svg])
def test_renderers_check_perspective(fn):
    with pytest.raises(ValueError, match="perspective"):
        fn(bg.initial_state(), perspective=-1)
    with pytest.raises(TypeError, match="perspective"):
        fn(bg.initial_state(), perspective=None)


def test_envs_show_as_svg_in_notebooks():
    raw = backgammon_v0.raw_env()
    raw.reset(seed=0)
    assert raw._repr_svg_() == R.to_svg(raw.state)
    wrapped = backgammon_v0.env()
    wrapped.reset(seed=0)
    svg = wrapped._repr_svg_()
    assert "to play" in svg  # the opening roll is on the board


def test_env_pictures_from_either_side():
    raw = backgammon_v0.raw_env()
    raw.reset(seed=0)
    assert raw.render_text(perspective=1) == R.render_text(raw.state, perspective=1)
    assert raw.to_svg(perspective=1) == R.to_svg(raw.state, perspective=1)
    assert np.array_equal(raw.render_rgb(perspective=1), R.render_rgb(raw.state, perspective=1))
    assert raw.render_text() == R.render_text(raw.state)


_JUNK = st.one_of(
    st.none(),
    st.integers(),
    st.floats(),
    st.text(max_size=30),
    st.text(
        alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/:",
        min_size=14,
        max_size=27,
    ),
    st.lists(st.integers(-3, 20), max_size=70),
    st.tuples(st.integers(), st.integers()),
)


@settings(max_examples=300, deadline=None)
@given(
    position=_JUNK,
    match=st.one_of(st.none(), _JUNK),
    dice=st.one_of(st.none(), _JUNK),
    perspective=st.one_of(st.sampled_from([0, 1]), _JUNK),
)
def test_board_raises_only_clear_errors_on_hostile_input(position, match, dice, perspective):
    try:
        b = R.Board(position, match_id=match, dice=dice, perspective=perspective)
    except (TypeError, ValueError) as e:
        assert str(e) and "numba" not in str(e).lower()
        return
    assert b.text() and b.svg().startswith("<svg")


def _framed_points(svg):
    """The viewer's points framed as the last play's (by the rectangles' left edges and half)."""
    out = set()
    for r in ET.fromstring(svg).iter(NS + "rect"):
        if r.get("class") == "last-move":
            x, top = float(r.get("x")), float(r.get("y")) < R._MID
            out |= {
                p
                for p in range(1, 25)
                if abs(R._point_geometry(p)[0] - x) < 3 and R._point_geometry(p)[1] == top
            }
    return out


@pytest.mark.parametrize("perspective", [0, 1])
def test_the_last_play_is_marked_from_either_side(perspective):
    env = backgammon_v0.raw_env()
    env.reset(seed=0, options={"position_id": START_ID, "dice": [3, 1]})
    assert env.last_move() is None  # the roll in play, nothing moved yet
    for a in bg.play_actions(env.state, 3, 1, "8/5 6/5"):
        env.step(a)
    last = env.last_move()
    assert last == {"player": 0, "dice": (3, 1), "moves": [(8, 5, False), (6, 5, False)]}
    expected = {8, 6, 5} if perspective == 0 else {17, 19, 20}
    assert _framed_points(env.to_svg(perspective=perspective)) == expected
    text = env.render_text(perspective=perspective)
    shown = "8/5 6/5" if perspective == 0 else "17/20 19/20"
    assert f"last play: player_0 (X) 3-1: {shown}" in text
    assert _framed_points(R.to_svg(env.state, perspective=perspective)) == set()  # none given


def test_a_play_from_the_bar_and_off_frames_the_bar_and_the_tray():
    s = race_state()  # player_1 on roll; its checker on the bar enters, another bears off
    svg = R.to_svg(
        s, last_move={"player": 1, "dice": (6, 1), "moves": [(25, 24, False), (1, 0, False)]}
    )
    root = ET.fromstring(svg)
    marks = [r for r in root.iter(NS + "rect") if r.get("class") == "last-move"]
    frames = sorted((float(r.get("x")) - 1.5, float(r.get("y")) - 1.5) for r in marks)  # inset
    bar, tray = R._X0 + 6 * R._PT, R._TRAY
    # player_1's half of the bar and of the tray are the top ones from player_0's side
    assert len(marks) == 4 and (bar, R._Y0) in frames and frames[-1] == (tray, R._Y0)
    for bad, error in (
        ({"moves": []}, TypeError),
        ({"player": 0, "moves": [(3, 5, False)]}, ValueError),
    ):
        with pytest.raises(error, match="last_move"):
            R.render_text(s, last_move=bad)


def test_a_finished_game_says_who_won():
    # X (on roll) has borne off all 15; O has all its checkers in X's home board
    done = bg.state_from_board([[0] * 23 + [15, 0], [0] * 25], turn=0)
    text = R.render_text(done)
    assert "game over: player_0 (X) won a backgammon" in text and "on roll" not in text
    assert "game over: player_0 (X) won" in R.to_svg(done)
    # a dropped double: the env says so, with the points
    env = backgammon_v0.raw_env(cube=True, scoring="gammon")
    env.reset(seed=0)
    from boardgym.kernels.backgammon import game

    while not env.is_over:
        mask = env.legal_mask()
        for a in (game.ACTION_DOUBLE, game.ACTION_DROP):
            if a < mask.shape[0] and mask[a]:
                env.step(a)
                break
        else:
            env.step(int(np.flatnonzero(mask)[0]))
    line = env.render_text().splitlines()[-2]
    assert line.startswith(" game over: player_") and line.endswith(
        "won 1 point: the double was dropped"
    )
    assert "the double was dropped" in env.to_svg()


def test_pictures_name_each_colour_s_player():
    svg = R.to_svg(bg.initial_state())
    assert "player_0 (X)" in svg and "player_1 (O)" in svg
    legend = [c for c in parse(svg)[0] if 5 < c[2] < 10]
    assert [c[3] for c in legend] == [WHITE, RED]
