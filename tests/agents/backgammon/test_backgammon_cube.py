"""Janowski's cubeful money equity (agents/backgammon/cube.py) against hand-computed values, the
decisions at their boundaries, and the janowski cube policy in the env's cube game (C.1-C.2)."""

import numpy as np
import pytest

from boardgym.agents.arena import matches as evaluation
from boardgym.agents.arena import stats
from boardgym.agents.backgammon import cube as bc
from boardgym.agents.backgammon import luck as bg_luck
from boardgym.agents.backgammon.agents import GreedyAgent, TDAgent, state_from_observation
from boardgym.envs import backgammon_notation, backgammon_v0
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import CUBE_OWNER, CUBE_VALUE, TURN

RACE = "23YHAIC27QAAAA"  # a late race the player on roll leads by 33 pips (no gammons)


def plain(p):
    """Outputs of a gammonless position with P(win) p."""
    return np.array([p, 0.0, 0.0, 0.0, 0.0])


def gammonish(p):
    """P(win) p, half of the wins and half of the losses gammons: W = L = 1.5."""
    return np.array([p, p / 2, 0.0, (1 - p) / 2, 0.0])


def test_gammon_ratios():
    assert bc.gammon_ratios(plain(0.3)) == pytest.approx((0.3, 1.0, 1.0))
    assert bc.gammon_ratios(gammonish(0.4)) == pytest.approx((0.4, 1.5, 1.5))
    y = np.array([0.6, 0.3, 0.06, 0.2, 0.04])
    assert bc.gammon_ratios(y) == pytest.approx((0.6, 0.96 / 0.6, 0.64 / 0.4))
    assert bc.gammon_ratios(plain(1.0))[2] == 1.0 and bc.gammon_ratios(plain(0.0))[1] == 1.0


@pytest.mark.parametrize("x, tp", [(0.0, 0.25), (1.0, 0.20), (0.68, 0.5 / 2.34), (0.5, 0.5 / 2.25)])
def test_take_point_without_gammons(x, tp):
    # the taker's take point (L - 1/2) / (W + L + x/2): 25% dead, 20% live, 21.4% at 0.68
    assert bc.take_point(plain(0.3), x) == pytest.approx(tp, abs=1e-12)
    # the decision flips there: the doubler's P(win) is 1 - tp
    for eps, take in ((-1e-7, 1), (1e-7, 0)):
        assert bc.cube_decision(plain(1 - tp + eps), x, bc.CENTRED)[4] == take


@pytest.mark.parametrize("x, tp", [(0.0, 1.0 / 3.0), (1.0, 1.0 / 3.5)])
def test_take_point_with_gammons(x, tp):
    assert bc.take_point(gammonish(0.3), x) == pytest.approx(tp, abs=1e-12)
    for eps, take in ((-1e-7, 1), (1e-7, 0)):
        assert bc.cube_decision(gammonish(1 - tp + eps), x, bc.OWNED)[4] == take


def test_limits_dead_and_live():
    for y in (plain(0.35), gammonish(0.7), np.array([0.55, 0.2, 0.01, 0.15, 0.005])):
        for owner in (bc.CENTRED, bc.OWNED, bc.OPP_OWNED):
            assert bc.janowski_equity(y, 0.0, owner) == pytest.approx(bc.dead_equity(y))
            assert bc.janowski_equity(y, 1.0, owner) == pytest.approx(bc.live_equity(y, owner))
            e = bc.janowski_equity(y, 0.68, owner)
            assert e == pytest.approx(0.68 * bc.live_equity(y, owner) + 0.32 * bc.dead_equity(y))


def test_live_equity_by_hand_without_gammons():
    # take point 0.2, cash point 0.8
    cases = {
        bc.CENTRED: [(0.1, -1.0), (0.2, -1.0), (0.5, 0.0), (0.65, 0.5), (0.8, 1.0), (0.9, 1.0)],
        bc.OWNED: [(0.0, -1.0), (0.5, 0.25), (0.8, 1.0), (0.95, 1.0)],
        bc.OPP_OWNED: [(0.1, -1.0), (0.2, -1.0), (0.5, -0.25), (1.0, 1.0)],
    }
    for owner, pts in cases.items():
        for p, e in pts:
            assert bc.live_equity(plain(p), owner) == pytest.approx(e, abs=1e-12), (owner, p)


def test_live_equity_by_hand_with_gammons():
    # W = L = 1.5: take point 1/3.5, cash point 2.5/3.5, slope 3.5 when owned
    y = gammonish(0.5)
    assert bc.live_equity(y, bc.OWNED) == pytest.approx(-1.5 + 0.5 * 3.5)
    assert bc.live_equity(y, bc.OPP_OWNED) == pytest.approx(-2.0 + 0.5 * 3.5)
    assert bc.live_equity(y, bc.CENTRED) == pytest.approx(-1 + 2 * (0.5 - 1 / 3.5) / (1.5 / 3.5))
    assert bc.live_equity(gammonish(1.0), bc.OPP_OWNED) == pytest.approx(1.5)
    assert bc.live_equity(gammonish(0.0), bc.OWNED) == pytest.approx(-1.5)


def test_decisions_no_double_double_take_double_drop_too_good():
    x = bc.X_MONEY
    # p = 0.6, no gammons: E_nd = 0.68 * 1/3 + 0.32 * 0.2; E_dt = 2 * (0 + 0.32 * 0.2)
    nd, dt, dp, double, take = bc.cube_decision(plain(0.6), x, bc.CENTRED)
    assert (nd, dt, dp) == pytest.approx((0.68 / 3 + 0.064, 0.128, 1.0))
    assert (double, take) == (0, 1)
    # p = 0.75: E_nd = 0.68 * 5/6 + 0.32 * 0.5; E_dt = 2 * (0.68 * 0.375 + 0.32 * 0.5) = 0.83
    nd, dt, dp, double, take = bc.cube_decision(plain(0.75), x, bc.CENTRED)
    assert (nd, dt) == pytest.approx((0.68 * 5 / 6 + 0.16, 0.83))
    assert (double, take) == (1, 1)
    # p = 0.85, no gammons: double / drop
    assert bc.cube_decision(plain(0.85), x, bc.CENTRED)[3:] == (1, 0)
    # p = 0.85 with many gammons (cubeless equity 1.2): too good to double, and a drop
    nd, dt, dp, double, take = bc.cube_decision(np.array([0.85, 0.5, 0.0, 0.0, 0.0]), x, bc.CENTRED)
    assert nd == pytest.approx(0.68 + 0.32 * 1.2) and nd > 1.0
    assert (double, take) == (0, 0)


def test_owning_the_cube_is_worth_more_than_a_centred_one():
    for p in (0.3, 0.5, 0.7):
        y = gammonish(p)
        assert (
            bc.janowski_equity(y, 0.68, bc.OWNED)
            >= bc.janowski_equity(y, 0.68, bc.CENTRED)
            >= bc.janowski_equity(y, 0.68, bc.OPP_OWNED)
        )


def test_checks():
    assert bc.check_efficiency(0.68) == 0.68
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="efficiency"):
            bc.check_efficiency(bad)
    with pytest.raises(TypeError, match="efficiency"):
        bc.check_efficiency("high")
    assert bc.check_outputs([0.5, 0.1, 0.0, 0.1, 0.0]).dtype == np.float64
    for bad in (
        [0.5, 0.1],
        [0.5, 0.6, 0.0, 0.0, 0.0],
        [0.5, 0.1, 0.2, 0.0, 0.0],
        [0.9, 0.1, 0.0, 0.2, 0.0],
        [np.nan] * 5,
    ):
        with pytest.raises(ValueError, match="outputs"):
            bc.check_outputs(bad)


# ----------------------------------------------------------------------------- the agents


def test_janowski_agent_doubles_a_won_race_and_drops_it():
    agent = TDAgent(cube="janowski")
    s = backgammon_notation.position_from_id(RACE)
    d = agent.cube_analysis(s)
    assert d["double"] and not d["take"] and d["double_drop"] < d["double_take"]
    assert agent.cube_action(s, False) == game.ACTION_DOUBLE
    assert agent.cube_action(s, True) == game.ACTION_DROP
    start = backgammon_notation.initial_state()
    assert agent.cube_action(start, False) == game.ACTION_ROLL
    assert agent.cube_action(start, True) == game.ACTION_TAKE
    with pytest.raises(ValueError, match="no equity estimate"):
        GreedyAgent(cube="janowski")


def test_observation_keeps_the_cube():
    env = backgammon_v0.raw_env(cube=True)
    env.reset(seed=3, options={"position_id": RACE})
    env.step(game.ACTION_DOUBLE)
    env.step(game.ACTION_TAKE)
    obs = env.observe(env.agent_selection)["observation"]
    s = state_from_observation(obs)
    assert s[CUBE_VALUE] == 2 and s[CUBE_OWNER] == 1 - s[TURN]  # the taker (not on roll)


def test_cube_games_play_through_with_doubles_takes_and_drops():
    a, b = TDAgent(cube="janowski"), TDAgent()
    pts = evaluation.play_cube_match(a, b, 6, seed=2)
    assert pts.shape == (6,) and np.isfinite(pts).all()
    assert set(np.abs(pts)) <= {0, 1, 2, 3, 4, 6, 8, 12, 16, 24}
    s = stats.summarize_money(pts)
    assert s["games"] == 6 and s["ppg_interval"][0] <= s["points_per_game"] <= s["ppg_interval"][1]
    assert "cubeful money: 6 games" in stats.format_money(s)
    # the same match replays exactly
    np.testing.assert_array_equal(pts, evaluation.play_cube_match(a, b, 6, seed=2))
    # janowski against itself in the env, recording the cube actions
    env = backgammon_v0.raw_env(cube=True, scoring="gammon")
    seen = set()
    for seed in range(6):
        evaluation.play_game(env, (a, a), seed, observation_only=True)
        seen |= {t["cube"] for t in env.turns if "cube" in t}
    assert "double" in seen and seen & {"take", "drop"}


@pytest.mark.parametrize("seed", range(6))
def test_cube_afterstate_loop_plays_the_env_cube_game(seed):
    from boardgym.agents.backgammon.game_loop import play_afterstate_game

    a, b = TDAgent(cube="janowski"), TDAgent(cube="equity")
    env = evaluation.make_env("backgammon", 400, cube=True)
    for seats in ((a, b), (b, a)):
        p_env = evaluation.play_game(env, seats, seed, observation_only=True)
        rolls = []
        g = play_afterstate_game(*seats, seed, max_turns=400, rolls=rolls, cube=True)
        assert g.points == p_env
        assert len(rolls) == sum(1 for t in env.turns if "dice" in t)  # lost rolls included


def test_cube_luck_counts_the_cube_value():
    a, b = TDAgent(cube="janowski"), TDAgent()
    judge = bg_luck.td_judge()
    pts, luck = evaluation.play_adjusted_match(a, b, judge, 4, seed=1, cube=True)
    np.testing.assert_array_equal(pts, evaluation.play_cube_match(a, b, 4, seed=1))
    assert np.isfinite(luck).all() and luck.shape == (4,)
    rolls = []
    evaluation.play_afterstate_game((a, b), 7, rolls=rolls, cube=True)
    values = [int(r[CUBE_VALUE]) for r in rolls]
    assert values == sorted(values)  # the cube only grows
    total = sum(
        bg_luck.roll_luck(judge, r, opening=i == 0) * r[CUBE_VALUE] * (1 if r[TURN] == 0 else -1)
        for i, r in enumerate(rolls)
    )
    assert bg_luck.game_luck(judge, rolls) == pytest.approx(total)
