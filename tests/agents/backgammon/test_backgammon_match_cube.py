"""Cube decisions at a match score (agents/backgammon/match_cube.py) in scenarios whose answer
match theory gives: DMP, the Crawford game, post-Crawford, 2-away / 2-away, take points from the
table, gammon-go and gammon-save, a dead cube, too good to double; the efficiency and the
boundary."""

import numpy as np
import pytest

from boardgym.agents.backgammon import match_cube as mc
from boardgym.agents.backgammon import match_equity as me
from boardgym.agents.backgammon.cube import CENTRED, OPP_OWNED, OWNED
from boardgym.envs import backgammon_notation as notation
from boardgym.kernels.backgammon.board import new_initial_state

RACE = "23YHAIC27QAAAA"  # a late race (no contact): the player on roll has 47 pips to go


def outputs(p, gw=0.0, gl=0.0):
    """P(win) p, a fraction gw of the wins and gl of the losses gammons (no backgammons)."""
    return np.array([p, p * gw, 0.0, (1 - p) * gl, 0.0])


TYPICAL = outputs(0.5, 0.27, 0.27)


def decide(y, a, b, cube=1, owner=CENTRED, x=mc.X_CONTACT, crawford=False):
    return mc.match_decision(y, a, b, cube, owner, x, crawford)


def test_dmp_no_one_doubles_and_gammons_do_not_count():
    for p in (0.55, 0.8, 0.95):
        d = decide(outputs(p, 0.5, 0.5), 1, 1)
        assert not d["double"]
        assert d["no_double"] == pytest.approx(p, abs=1e-12)  # MWC = P(win): no cube, no gammons


def test_no_double_in_the_crawford_game():
    for a, b in ((1, 3), (4, 1), (1, 2)):
        for p in (0.6, 0.85):
            d = decide(outputs(p, 0.3, 0.1), a, b, crawford=True)
            assert not d["double"]
            assert d["no_double"] == pytest.approx(me.cubeless_mwc(outputs(p, 0.3, 0.1), a, b))
    # the same position post-Crawford: the trailer doubles
    assert decide(outputs(0.6, 0.3, 0.1), 4, 1)["double"]


@pytest.mark.parametrize("a", range(2, 12))
def test_post_crawford_trailer_doubles_at_once_and_the_leader_answers_by_the_dead_cube(a):
    for p in (0.45, 0.5, 0.55):
        y = outputs(p, 0.27, 0.27)
        d = decide(y, a, 1)
        assert d["double"], (a, p)
        # the leader owns the cube at 2, dead for it: take iff the trailer's cubeless MWC at
        # cube 2 is at most what a drop gives it (one point: post_crawford(a - 1))
        dead = me.cubeless_mwc(y, a, 1, 2)
        assert d["double_take"] == pytest.approx(dead, abs=1e-12)
        assert d["double_drop"] == pytest.approx(me.post_crawford(a - 1), abs=1e-12)
        assert d["take"] == (dead <= me.post_crawford(a - 1))


def test_post_crawford_free_drop_at_two_away():
    # the trailer 2-away: any win at cube 2 takes the match, a drop leaves 1-away / 1-away
    assert not decide(outputs(0.53), 2, 1)["take"]
    assert decide(outputs(0.47), 2, 1)["take"]
    # 3-away: the leader always takes an even game (a drop would leave the trailer 2-away)
    assert decide(TYPICAL, 3, 1)["take"]


@pytest.mark.parametrize("x", [0.3, 0.5, mc.X_CONTACT, 0.9])
def test_two_away_two_away_doubles_with_any_advantage(x):
    # after a double the cube is dead (2 points are all either side needs): the cube is worth
    # more to the side that turns it first (with a fully live cube, x = 1, it would not matter)
    for p in (0.51, 0.55, 0.62):
        d = decide(outputs(p), 2, 2, x=x)
        assert d["double"] and d["take"]
        assert d["double_take"] == pytest.approx(p)
        full = decide(outputs(p), 2, 2, x=1.0)
        assert full["no_double"] == pytest.approx(full["double_take"], abs=1e-12)
    # the opponent's take point is the table's: met(2, 1) (its MWC after a drop)
    tp = mc.dead_take_point(2, 2)
    assert tp == pytest.approx(me.met(2, 1))
    for eps, take in ((-1e-7, True), (1e-7, False)):
        assert decide(outputs(1 - tp + eps), 2, 2, x=x)["take"] == take


@pytest.mark.parametrize(
    "taker, doubler, cube", [(3, 5, 1), (5, 3, 1), (4, 4, 1), (7, 2, 1), (9, 6, 2), (6, 9, 2)]
)
def test_take_points_dead_cube_follow_the_table(taker, doubler, cube):
    tp = mc.dead_take_point(taker, doubler, cube)
    assert 0.0 < tp < 0.5
    owner = CENTRED if cube == 1 else OWNED
    for eps, take in ((-1e-7, True), (1e-7, False)):
        y = outputs(1 - tp + eps)
        d = decide(y, doubler, taker, cube, owner, x=0.0)
        assert d["take"] == take


@pytest.mark.parametrize("taker, doubler", [(2, 5), (2, 9), (3, 8)])
def test_take_point_when_the_takers_cube_would_be_dead(taker, doubler):
    # the taker needs no more than the doubled cube: its cube is dead, whatever the efficiency
    # (the doubler cannot redouble a cube it does not own), so the table's take point holds
    c = 1 if taker == 2 else 2
    owner = CENTRED if c == 1 else OWNED
    tp = mc.dead_take_point(taker, doubler, c)
    for x in (0.3, 0.68, 1.0):
        for eps, take in ((-1e-7, True), (1e-7, False)):
            assert decide(outputs(1 - tp + eps), doubler, taker, c, owner, x=x)["take"] == take


def test_gammon_go_for_the_trailer_at_four_away_two_away():
    # 4-away against 2-away, cube 1: a gammon at cube 2 is the match for the trailer, at cube 1
    # only 2 points. The same P(win) is no double without gammons, a double with them.
    assert not decide(outputs(0.6), 4, 2)["double"]
    assert decide(outputs(0.6, 0.4, 0.1), 4, 2)["double"]


def test_gammon_save_the_leaders_take_at_two_away():
    # the leader 2-away doubled by the trailer 4-away: its cube at 2 is dead, a single loss
    # leaves 2-away / 2-away, a gammon loss the match. Without gammons it takes down to the
    # table's take point; the trailer's gammons make the same P(win) a drop.
    tp = mc.dead_take_point(2, 4)
    assert tp == pytest.approx((me.met(2, 3) - 0.5) / 0.5)
    assert decide(outputs(0.7), 4, 2)["take"]
    assert not decide(outputs(0.7, 0.4, 0.0), 4, 2)["take"]


def test_cube_dead_when_it_covers_what_the_owner_needs():
    for a, b, c in ((2, 5, 2), (3, 6, 4), (1, 7, 2), (4, 4, 4)):
        d = decide(outputs(0.75, 0.3, 0.2), a, b, c, OWNED)
        assert not d["double"]
        assert not mc.can_double(a, c, OWNED, me.MAX_CUBE)
    assert mc.can_double(3, 2, OWNED, me.MAX_CUBE)
    # not the owner's, or past the cube limit (MP.4)
    assert not decide(outputs(0.8), 9, 9, 2, OPP_OWNED)["double"]
    assert not mc.can_double(200, 64, OWNED, me.MAX_CUBE)


def test_too_good_to_double_plays_on_for_the_gammon():
    # 5-away / 5-away, far ahead with most wins gammons: a double would be dropped, and playing
    # on for the gammon is worth more than the point; without the gammons it doubles out
    d = decide(outputs(0.85, 0.6, 0.1), 5, 5)
    assert not d["double"] and not d["take"]
    assert d["no_double"] > d["double_drop"]
    d = decide(outputs(0.85), 5, 5)
    assert d["double"] and not d["take"]


def test_a_cube_owner_too_good_to_cash_plays_on():
    # 7-away (cube 2, owned) against 6-away, almost sure to lose a gammon (4 points at cube 2,
    # 8 at cube 4: the match): a redouble hands the opponent a cube it will not cash, it plays
    # on for the match; the live MWC after the double is no better than playing on at cube 4
    y = np.array([0.004, 0.0, 0.0, 0.983, 0.342])
    d = decide(y, 7, 6, cube=2, owner=OWNED)
    assert not d["double"]
    assert d["double_take"] <= me.cubeless_mwc(y, 7, 6, 4) + 1e-12
    assert d["no_double"] > d["double_take"] + 0.05
    # the owner's side of it: far ahead with most wins gammons, the live MWC is at least
    # playing on, not the point a cash would give
    y = outputs(0.9, 0.7, 0.1)
    d = decide(y, 5, 5, cube=2, owner=OWNED)
    assert d["no_double"] >= me.cubeless_mwc(y, 5, 5, 2) - 1e-12 > d["double_drop"]


def test_dead_efficiency_is_the_cubeless_mwc():
    y = outputs(0.62, 0.25, 0.2)
    for a, b in ((5, 7), (3, 3), (9, 2)):
        d = decide(y, a, b, x=0.0)
        assert d["no_double"] == pytest.approx(me.cubeless_mwc(y, a, b))
        assert d["double_take"] == pytest.approx(me.cubeless_mwc(y, a, b, 2))


def test_position_efficiency_contact_and_race():
    assert mc.position_efficiency(new_initial_state(), mc.X_CONTACT) == mc.X_CONTACT
    assert mc.position_efficiency(new_initial_state(), 0.5) == 0.5
    race = notation.position_from_id(RACE)
    assert mc.position_efficiency(race, 0.5) == pytest.approx(mc.race_efficiency(47))
    assert mc.race_efficiency(20) == mc.RACE_X_MIN and mc.race_efficiency(200) == mc.RACE_X_MAX
    assert mc.race_efficiency(100) == pytest.approx(0.75)
    xs = [mc.race_efficiency(p) for p in range(0, 200, 10)]
    assert all(b >= a for a, b in zip(xs, xs[1:]))


@pytest.mark.parametrize(
    "kwargs, err",
    [
        ({"outputs": [0.5, 0.1, 0, 0.1]}, ValueError),
        ({"a": 0}, ValueError),
        ({"b": 65}, ValueError),
        ({"cube": 3}, ValueError),
        ({"cube": 128}, ValueError),
        ({"owner": 5}, ValueError),
        ({"x": 1.5}, ValueError),
        ({"x": "0.5"}, TypeError),
        ({"crawford": 1}, TypeError),
        ({"crawford": True, "a": 3, "b": 3}, ValueError),
        ({"crawford": True, "a": 1, "b": 3, "cube": 2}, ValueError),
    ],
)
def test_boundary(kwargs, err):
    args = {"outputs": TYPICAL, "a": 5, "b": 5, "cube": 1, "owner": CENTRED, "x": 0.68}
    args.update(kwargs)
    crawford = args.pop("crawford", False)
    with pytest.raises(err):
        mc.match_decision(
            args["outputs"], args["a"], args["b"], args["cube"], args["owner"], args["x"], crawford
        )
