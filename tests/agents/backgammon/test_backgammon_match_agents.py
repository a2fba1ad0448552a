"""The backgammon agents in a match (AfterstateAgent.set_match): checker play by match winning
chances, cube actions by the match decisions, money play unchanged, the boundary."""

import numpy as np
import pytest

from boardgym.agents import load_spec
from boardgym.agents.backgammon import cube as bc
from boardgym.agents.backgammon import match_cube as mc
from boardgym.agents.backgammon import match_equity as me
from boardgym.agents.backgammon import search as bs
from boardgym.agents.backgammon.agents import (
    ExpectimaxAgent,
    TDAgent,
    TDSearchAgent,
    net_equities,
)
from boardgym.agents.backgammon.game_loop import play_afterstate_game, play_afterstate_match
from boardgym.envs import backgammon_notation as notation
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import CUBE_OWNER, CUBE_VALUE, TURN, new_initial_state

# 3-3 here: money play's best play (by equity) goes for the gammon; another play wins more often
GAMMON_PLAY = ("2TwbgEDv3QGAAA", 3, 3)
RACE = "23YHAIC27QAAAA"  # a late race the player on roll leads by 33 pips (no gammons)


@pytest.fixture(scope="module")
def td():
    return TDAgent(cube="janowski")


def _plays(agent, pid, d1, d2):
    return agent.afterstates(notation.position_from_id(pid), d1, d2).copy()


def test_money_play_is_the_default_and_unchanged(td):
    rows = _plays(td, *GAMMON_PLAY)
    assert td.match is None
    money = td.scores(rows)
    ref = np.empty(len(rows))
    net_equities(td.play_params, rows, len(rows), ref)
    assert np.array_equal(money, ref)
    td.set_match(7, 2, 3)
    assert td.match == {"length": 7, "away_me": 5, "away_opp": 4, "crawford": False}
    assert not np.array_equal(td.scores(rows), money)
    td.set_match(0)
    assert td.match is None and np.array_equal(td.scores(rows), money)


def test_money_utility_search_is_search_values_to_the_bit(td):
    rows = _plays(td, *GAMMON_PLAY)
    n = len(rows)
    for plies in (0, 1):
        a, b = np.empty(n), np.empty(n)
        ia, ib = np.zeros(bs.INFO_LEN, np.int64), np.zeros(bs.INFO_LEN, np.int64)
        cfg = bs.search_settings(plies, 8, 0.16, budget=0)
        ka = bs.search_values(td.play_params, rows, n, cfg, ia, a)
        kb = bs.search_values_u(td.play_params, bs.MONEY_U, rows, n, cfg, ib, b)
        assert ka == kb and np.array_equal(a, b) and np.array_equal(ia, ib)


def test_dmp_checker_play_maximises_the_win_chance_not_money_equity(td):
    rows = _plays(td, *GAMMON_PLAY)
    y = td.outputs(rows)
    money_pick = int(np.argmax([2 * v[0] - 1 + v[1] + v[2] - v[3] - v[4] for v in y]))
    win_pick = int(np.argmax(y[:, 0]))
    assert money_pick != win_pick  # the position tells the two apart
    td.set_match(0)
    assert td.choose(rows) == money_pick
    td.set_match(5, 4, 4, post_crawford=True)  # 1-away / 1-away: double match point
    try:
        assert td.choose(rows) == win_pick
        assert np.allclose(td.scores(rows), 2 * y[:, 0] - 1)  # MWC = P(win), normalised
    finally:
        td.set_match(0)


def test_match_checker_play_ranks_by_cubeless_mwc(td):
    rows = _plays(td, *GAMMON_PLAY)
    y = td.outputs(rows)
    td.set_match(9, 3, 6)
    try:
        mwc = [me.cubeless_mwc(v, 6, 3, 1) for v in y]
        assert td.choose(rows) == int(np.argmax(mwc))
        want = [me.mwc_to_eq(m, 6, 3, 1) for m in mwc]
        assert np.allclose(td.scores(rows), want, atol=1e-12)
    finally:
        td.set_match(0)


@pytest.mark.parametrize("agent", ["search1", "expectimax2"])
def test_searching_agents_play_for_the_match(agent):
    # 1-ply search at double match point values the plays by the searched win chance
    a = TDSearchAgent(plies=1) if agent == "search1" else ExpectimaxAgent(depth=2, width=4)
    rows = _plays(a, *GAMMON_PLAY)
    money = a.scores(rows)
    a.set_match(3, 2, 2, post_crawford=True)
    dmp = a.scores(rows)
    assert not np.allclose(money, dmp)
    n = len(rows)
    out = np.empty(n)
    uu = np.array([[-1.0, 2.0, 0, 0, 0, 0]] * 2)  # 2 P(win) - 1 for either side
    assert a.search_settings.plies == 1
    bs.search_values_u(
        a.play_params, uu, rows, n, a.search_settings, np.zeros(bs.INFO_LEN, np.int64), out
    )
    assert np.allclose(dmp, out, atol=1e-12)


def _leading_race():
    s = notation.position_from_id(RACE)
    assert s[TURN] == 0 and s[CUBE_OWNER] == -1
    return s


def test_no_double_in_the_crawford_game(td):
    s = _leading_race()
    for score in ((4, 0), (0, 4), (4, 2)):
        td.set_match(5, *score, crawford=True)
        assert td.cube_action(s, False) == game.ACTION_ROLL
        assert not td.cube_analysis(s)["double"]
    td.set_match(5, 0, 0)
    assert td.cube_action(s, False) == game.ACTION_DOUBLE  # the same race at 5-away / 5-away
    td.set_match(0)


def test_post_crawford_trailer_doubles_at_once_and_the_leader_uses_the_free_drop(td):
    s0 = new_initial_state()
    for trailer_score in (0, 1, 2, 3):
        td.set_match(5, trailer_score, 4, post_crawford=True)
        assert td.cube_action(s0, False) == game.ACTION_DOUBLE
    # the leader's answer is the dead-cube comparison with the free drop
    for trailer_score in (1, 2, 3):
        td.set_match(5, 4, trailer_score, post_crawford=True)
        d = td.cube_analysis(s0, offered=True)
        a = 5 - trailer_score
        dead = me.cubeless_mwc(d["outputs"], a, 1, 2)
        assert d["double_take"] == pytest.approx(dead, abs=1e-12)
        assert d["take"] == (dead <= me.post_crawford(a - 1))
        want = game.ACTION_TAKE if d["take"] else game.ACTION_DROP
        assert td.cube_action(s0, True) == want
    # trailer 2-away on roll at the start (P(win) above 1/2): the leader drops; 3-away: takes
    td.set_match(5, 4, 3, post_crawford=True)
    assert td.cube_action(s0, True) == game.ACTION_DROP
    td.set_match(5, 4, 2, post_crawford=True)
    assert td.cube_action(s0, True) == game.ACTION_TAKE
    td.set_match(0)


def test_no_double_at_dmp_or_when_the_cube_covers_the_match(td):
    s = _leading_race()
    td.set_match(7, 6, 6, post_crawford=True)
    assert td.cube_action(s, False) == game.ACTION_ROLL
    s2 = s.copy()
    s2[CUBE_VALUE], s2[CUBE_OWNER] = 2, 0  # owned by the player on roll, who is 2-away
    td.set_match(7, 5, 0)
    assert td.cube_action(s2, False) == game.ACTION_ROLL
    td.set_match(7, 3, 0)  # 4-away: the double to 4 is live
    assert td.cube_action(s2, False) == game.ACTION_DOUBLE
    td.set_match(0)


def test_the_cube_efficiency_option_sets_money_and_contact_efficiency():
    a = load_spec("backgammon-td:plies=0,cube_plies=1,cube_efficiency=0.5", "backgammon")
    s = new_initial_state()
    s[TURN] = 0
    d = a.cube_analysis(s)
    nd, dt, dp, _, _ = bc.cube_decision(d["outputs"], 0.5, bc.CENTRED)
    assert (d["no_double"], d["double_take"]) == pytest.approx((nd, dt))
    assert bc.cube_decision(d["outputs"], bc.X_MONEY, bc.CENTRED)[1] != pytest.approx(dt)
    a.set_match(7, 2, 4)
    assert a.cube_analysis(s)["efficiency"] == 0.5  # contact: the agent's efficiency
    race = _leading_race()
    assert a.cube_analysis(race)["efficiency"] == pytest.approx(mc.position_efficiency(race, 0.7))
    a.set_match(0)
    for bad, err in ((1.5, ValueError), (-0.1, ValueError), ("x", TypeError)):
        with pytest.raises(err, match="cube efficiency"):
            TDSearchAgent(plies=0, cube_efficiency=bad)


def test_match_take_follows_the_analysis_and_efficiency_is_the_positions(td):
    s = _leading_race()
    td.set_match(7, 2, 4)  # the taker (this agent) 5-away, the doubler 3-away
    d = td.cube_analysis(s, offered=True)
    assert d["efficiency"] == pytest.approx(mc.position_efficiency(s, mc.X_CONTACT))
    assert d["efficiency"] != mc.X_CONTACT
    want = mc.match_decision(d["outputs"], 3, 5, 1, 0, d["efficiency"])
    assert d["double_take"] == pytest.approx(want["double_take"])
    assert td.cube_action(s, True) == (game.ACTION_TAKE if want["take"] else game.ACTION_DROP)
    td.set_match(0)


def test_cubeless_policy_stays_cubeless_in_a_match():
    a = TDAgent()
    a.set_match(5, 0, 4, post_crawford=True)
    assert a.cube_action(new_initial_state(), False) == game.ACTION_ROLL
    assert a.cube_action(new_initial_state(), True) == game.ACTION_TAKE


def test_registry_cube_policies_take_a_match():
    a = load_spec("backgammon-td:plies=0,cube=janowski")
    a.set_match(5, 0, 4, post_crawford=True)
    assert a.cube_action(new_initial_state(), False) == game.ACTION_DOUBLE
    e = load_spec("backgammon-td:plies=0,cube=equity")
    e.set_match(5, 0, 4, post_crawford=True)
    assert e.cube_action(new_initial_state(), False) == game.ACTION_DOUBLE


def test_a_match_game_through_the_game_loop(td):
    other = TDAgent(cube="janowski")
    td.set_match(3, 0, 1)
    other.set_match(3, 1, 0)
    try:
        g = play_afterstate_game(td, other, 7, cube=True)
        assert not g.truncated and g.points != 0
    finally:
        td.set_match(0)


def test_a_whole_match_of_net_agents_with_the_cube():
    class Recording(TDAgent):
        def __init__(self):
            super().__init__(cube="janowski")
            self.doubles = []  # (match as told, cube value) of each double

        def cube_action(self, state, offered, policy=None):
            a = super().cube_action(state, offered, policy)
            if not offered and a == game.ACTION_DOUBLE:
                self.doubles.append((self.match, int(state[CUBE_VALUE])))
            return a

    a, b = Recording(), Recording()
    r = play_afterstate_match(a, b, 5, 5)  # seed 5: doubles, takes and a Crawford game
    assert r.winner in (0, 1) and r.score[r.winner] == 5
    assert any(r.crawford) and a.doubles + b.doubles
    assert a.match is None and b.match is None  # told money play after the match
    for told, cube in a.doubles + b.doubles:
        assert not told["crawford"]  # MP.5
        assert told["away_me"] > cube  # never a double the cube already covers
    for g, crawford in zip(r.games, r.crawford):
        if crawford:
            assert abs(g.points) <= 3  # the cube stayed at 1


@pytest.mark.parametrize(
    "args, err",
    [
        ((65, 0, 0), ValueError),
        ((-1, 0, 0), ValueError),
        ((7, 7, 0), ValueError),
        ((7, 0, -1), ValueError),
        ((0, 1, 0), ValueError),
        ((7.0, 0, 0), TypeError),
        ((True, 0, 0), TypeError),
        ((7, 0, 0, True), ValueError),  # Crawford needs a score at 6
        ((7, 6, 6, True), ValueError),  # ... exactly one
        ((7, 2, 3, False, True), ValueError),  # post-Crawford needs a score at 6
        ((7, 6, 0, True, True), ValueError),
        ((7, 6, 0, 1), TypeError),
        ((0, 0, 0, True), ValueError),
    ],
)
def test_set_match_boundary(td, args, err):
    with pytest.raises(err):
        td.set_match(*args)
    assert td.match is None


def test_score_money_ignores_the_match():
    from boardgym.agents import load

    money = load("backgammon-td", plies=0, score="money")
    match = load("backgammon-td", plies=0)
    for agent in (money, match):
        agent.set_match(7, 6, 2, False, True)
    assert money.match is None and match.match is not None
    with pytest.raises(ValueError, match="score must be"):
        load("backgammon-td", plies=0, score="points")


def _uu(a, b, c):
    uu = np.empty((2, 6))
    me.eq_weights(a, b, c, me.TABLE, me.POST, uu[0])
    me.eq_weights(b, a, c, me.TABLE, me.POST, uu[1])
    return uu


def test_close_cube_decisions_are_made_again_on_2ply_outputs(td):
    deep = TDAgent(cube="janowski", cube_plies=2)
    assert TDSearchAgent().cube_plies == 2 and td.cube_plies == 1
    s = _leading_race()
    y2 = np.empty(5)
    # money play: the answer to a double is close by definition: 2-ply outputs, money utility
    d1, d2 = td.cube_analysis(s, offered=True), deep.cube_analysis(s, offered=True)
    assert d1["plies"] == 1 and d2["plies"] == 2
    bs.preroll_outputs2_u(td.play_params, bs.MONEY_U, s, 3, bs.THRESHOLD, 0, y2)
    np.testing.assert_array_equal(d2["outputs"], y2)
    assert not np.array_equal(d1["outputs"], y2)
    nd, dt, dp, _, take = bc.cube_decision(y2, td.cube_efficiency, bc.CENTRED)
    assert (d2["no_double"], d2["double_take"], d2["double_drop"]) == (nd, dt, dp)
    assert d2["take"] == bool(take)
    # a match: the doubler 3-away, the taker (this agent) 5-away; the outputs by their utilities
    for a in (td, deep):
        a.set_match(7, 2, 4)
    d2 = deep.cube_analysis(s, offered=True)
    bs.preroll_outputs2_u(td.play_params, _uu(3, 5, 1), s, 3, bs.THRESHOLD, 0, y2)
    np.testing.assert_array_equal(d2["outputs"], y2)
    ref = mc.match_decision(y2, 3, 5, 1, 0, d2["efficiency"])
    assert d2["take"] == ref["take"] and d2["double_take"] == pytest.approx(ref["double_take"])
    assert deep.cube_action(s, True) == (game.ACTION_TAKE if ref["take"] else game.ACTION_DROP)
    # the doubler's own decision: 2-ply only where 1-ply doubles; a no double stands
    d1 = td.cube_analysis(s)
    assert d1["double"]
    assert deep.cube_analysis(s)["plies"] == 2
    s0 = new_initial_state()
    assert not td.cube_analysis(s0)["double"]
    d0 = deep.cube_analysis(s0)
    assert d0["plies"] == 1 and not d0["double"]
    np.testing.assert_array_equal(d0["outputs"], td.cube_analysis(s0)["outputs"])
    for a in (td, deep):
        a.set_match(0)


@pytest.mark.parametrize("bad", [0, 3, -1, 1.5, "2", True, None, [2]])
def test_cube_plies_must_be_1_or_2(bad):
    with pytest.raises(ValueError, match="cube_plies must be 1 or 2"):
        TDAgent(cube="janowski", cube_plies=bad)
    with pytest.raises(ValueError, match="cube_plies must be 1 or 2"):
        TDSearchAgent(cube_plies=bad)


def test_registry_takes_cube_plies():
    assert load_spec("backgammon-td").cube_plies == 2
    assert load_spec("backgammon-td:cube_plies=1").cube_plies == 1
