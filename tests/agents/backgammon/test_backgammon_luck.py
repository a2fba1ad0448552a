"""The luck of a roll (agents/backgammon/luck.py) and luck-adjusted backgammon matches
(agents/arena/matches.py, agents/arena/stats.py): the luck of a roll by hand in a bear-off race
with exact equities, a constant judge adjusts nothing, seat-swapped pairs mirror each other,
every roll (lost rolls included) is judged, the adjustment cuts the variance, and the GPL
boundary (no gnubg import under kernels/, envs/, agents/)."""

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from boardgym.agents.arena import matches as ev
from boardgym.agents.arena import stats
from boardgym.agents.backgammon import luck as bg_luck
from boardgym.agents.backgammon.agents import GreedyAgent, TDAgent
from boardgym.agents.backgammon.game_loop import play_afterstate_game
from boardgym.envs import backgammon_notation as notation
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import (
    CUBE_LIMIT,
    CUBE_OWNER,
    CUBE_VALUE,
    MAX_CUBE_VALUE,
    ME,
    OFF_ME,
    OFF_OPP,
    OPP,
    STATE_LEN,
    refresh_masks,
)

ROOT = Path(__file__).resolve().parents[2]


def last_checkers(mover_point):
    """Both sides with one checker left: the mover's on its mover_point, the opponent's on its
    own 1-point (it bears off with any roll)."""
    s = np.zeros(STATE_LEN, dtype=np.int64)
    s[ME + mover_point - 1] = 1
    s[OPP + 23] = 1  # the opponent's 1-point is the mover's 24
    s[OFF_ME] = s[OFF_OPP] = 14
    s[CUBE_VALUE], s[CUBE_OWNER], s[CUBE_LIMIT] = 1, -1, MAX_CUBE_VALUE
    refresh_masks(s)
    return notation.check_state(s)


def race_judge(rows):
    """Exact in last_checkers positions: a play that bears off wins 1, any other loses 1 (the
    opponent bears off next)."""
    return bg_luck.exact_values(rows, np.full(rows.shape[0], -1.0))


def test_rolls_and_weights():
    assert bg_luck.ROLLS.shape == (21, 2) and bg_luck.ROLL_WEIGHTS.sum() == pytest.approx(1.0)
    assert bg_luck.OPENING_WEIGHTS.sum() == pytest.approx(1.0)
    assert (
        bg_luck.OPENING_WEIGHTS[bg_luck.roll_index(3, 3)] == 0
        and bg_luck.ROLL_WEIGHTS[bg_luck.roll_index(3, 3)] == 1 / 36
    )
    assert [bg_luck.roll_index(*r) for r in bg_luck.ROLLS] == list(range(21))
    assert bg_luck.roll_index(6, 5) == bg_luck.roll_index(5, 6)


def test_luck_of_a_roll_by_hand_in_a_bear_off_race():
    """One checker on the 6-point: 27 of 36 rolls bear it off (all but 1-2, 1-3, 1-4, 2-3 and
    1-1), so the mean value is 27/36 - 9/36 = 0.5, and a roll's luck is +0.5 or -1.5."""
    s = last_checkers(6)
    v = bg_luck.best_values(race_judge, s)
    off = np.array([d1 + d2 >= 6 or (d1 == d2 and d1 >= 2) for d1, d2 in bg_luck.ROLLS])
    assert np.array_equal(v, np.where(off, 1.0, -1.0))
    assert bg_luck.ROLL_WEIGHTS @ v == pytest.approx(0.5)
    for (d1, d2), want in (((6, 5), 0.5), ((1, 2), -1.5), ((1, 1), -1.5), ((2, 2), 0.5)):
        assert bg_luck.roll_luck(race_judge, game.set_roll(s, d1, d2)) == pytest.approx(want)
    # as the opening roll it is measured against the 15 non-doubles (11 of them bear off)
    assert bg_luck.roll_luck(race_judge, game.set_roll(s, 6, 5), opening=True) == pytest.approx(
        1 - 7 / 15
    )
    # the TD judge values the same finished games exactly
    assert bg_luck.best_values(bg_luck.td_judge(), s)[off] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="no whole roll"):
        bg_luck.roll_luck(race_judge, s)


def test_luck_is_per_cube_unit_at_any_cube():
    """Exact values are points per cube unit, as a judge's equities are: a roll's luck at cube
    8 is its luck at cube 1, and game_luck multiplies it by the cube (exact values times the
    cube, multiplied again, made a bear-off at cube 8 a luck of 12 per unit, 96 points)."""
    s = game.set_roll(last_checkers(6), 6, 5)
    eight = s.copy()
    eight[CUBE_VALUE], eight[CUBE_OWNER] = 8, 0
    for judge in (race_judge, bg_luck.td_judge()):
        one = bg_luck.roll_luck(judge, s)
        assert bg_luck.roll_luck(judge, eight) == pytest.approx(one)
        opening = bg_luck.roll_luck(judge, s, opening=True)  # game_luck's first roll opens
        assert bg_luck.game_luck(judge, [eight]) == pytest.approx(8 * opening, abs=1e-9)
    assert bg_luck.roll_luck(race_judge, eight) == pytest.approx(0.5)


def test_a_judge_with_best_values_is_used_as_is():
    class Fixed:
        def __call__(self, rows):
            raise AssertionError("best_values should be used")

        def best_values(self, state):
            return np.arange(21, dtype=float)

    s = game.set_roll(last_checkers(6), 6, 6)
    assert bg_luck.roll_luck(Fixed(), s) == pytest.approx(20 - bg_luck.ROLL_WEIGHTS @ np.arange(21))
    with pytest.raises(ValueError, match="judge must return"):
        bg_luck.best_values(lambda rows: np.zeros(3), s)


def test_every_roll_is_recorded_lost_rolls_included():
    lost = 0
    for seed in range(12):
        rolls = []
        g = play_afterstate_game(GreedyAgent(), GreedyAgent(), seed, rolls=rolls)
        assert len(rolls) == g.rolls and not g.truncated
        assert all(game.dice_of(r)[0] > 0 for r in rolls)
        lost += g.lost_rolls
        # the record changes nothing in the game
        assert play_afterstate_game(GreedyAgent(), GreedyAgent(), seed) == g
    assert lost > 0


def test_a_constant_judge_adjusts_nothing():
    a, b = TDAgent(), GreedyAgent()
    pts, luck = ev.play_adjusted_match(
        a, b, lambda rows: np.full(rows.shape[0], 0.25), 6, seed=2, max_moves=None
    )
    assert np.array_equal(luck, np.zeros(6))
    assert np.array_equal(pts, ev.play_match(a, b, "backgammon", 6, seed=2, max_moves=None))
    s = stats.luck_summary(pts, luck)
    assert s["adjusted_mean"] == s["raw_mean"] and s["adjusted_sd"] == s["raw_sd"]


def test_seat_swapped_pairs_mirror_each_other():
    """Two copies of one agent play each pair's dice twice with the seats swapped: the same
    game, so the points and the luck of game 2k + 1 are those of game 2k negated."""
    pts, luck = ev.play_adjusted_match(TDAgent(), TDAgent(), bg_luck.td_judge(), 8, seed=5)
    assert np.array_equal(pts[1::2], -pts[::2]) and np.allclose(luck[1::2], -luck[::2])
    assert np.abs(luck).max() > 0


def test_luck_adjustment_cuts_the_variance_on_a_seeded_match():
    pts, luck = ev.play_adjusted_match(TDAgent(), GreedyAgent(), bg_luck.td_judge(), 60, seed=1)
    s = stats.luck_summary(pts, luck)
    assert s["games"] == 60 and s["adjusted_sd"] < 0.8 * s["raw_sd"]
    lo, hi = s["adjusted_interval"]
    assert lo < s["adjusted_mean"] < hi and hi - lo < np.subtract(*s["raw_interval"][::-1])
    assert s["adjusted_mean"] > 0  # the net beats the greedy player, luck or not


def test_play_adjusted_match_refuses_other_agents_and_bad_judges():
    from boardgym.agents.random_agent import RandomAgent

    with pytest.raises(TypeError, match="judge"):
        ev.play_adjusted_match(TDAgent(), GreedyAgent(), "gnubg0", 2)
    with pytest.raises(ValueError, match="AfterstateAgents"):
        ev.play_adjusted_match(TDAgent(), RandomAgent(), bg_luck.td_judge(), 2)


def test_paired_interval_and_luck_summary():
    x = np.array([0.1, -0.1, 0.3, 0.2, -0.2, 0.0])
    pairs = x.reshape(-1, 2).mean(1)
    half = stats.Z95 * pairs.std(ddof=1) / math.sqrt(3)
    assert stats.paired_interval(x) == pytest.approx((x.mean() - half, x.mean() + half))
    assert stats.paired_interval([0.5, 0.5]) == (-math.inf, math.inf)
    with pytest.raises(ValueError, match="even length"):
        stats.paired_interval([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="finite"):
        stats.paired_interval([1.0, math.nan])
    pts = np.array([1.0, -2.0, 3.0, -1.0])
    luck = np.array([0.5, -1.5, 2.0, -0.5])
    s = stats.luck_summary(pts, luck)
    assert s["raw_mean"] == pytest.approx(0.25) and s["adjusted_mean"] == pytest.approx(0.125)
    assert s["raw_interval"] == stats.mean_interval(pts, -3, 3)
    assert s["adjusted_sd"] == pytest.approx(np.std(pts - luck, ddof=1))
    assert "adjusted +0.125" in stats.format_luck(s, "td")
    with pytest.raises(ValueError, match="shape"):
        stats.luck_summary(pts, luck[:2])
    with pytest.raises(ValueError, match="lie in"):
        stats.luck_summary([4.0, 0.0], [0.0, 0.0])


def test_library_code_never_imports_gnubg():
    """gnubg / gnubg-nn are GPL-3: only scripts/ (evaluation) and tests may import them."""
    found = []
    for folder in ("kernels", "envs", "agents"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                    if isinstance(node, ast.ImportFrom)
                    else []
                )
                found += [f"{path.relative_to(ROOT)}: {n}" for n in names if "gnubg" in n]
    assert found == []


@pytest.mark.parametrize(
    "bad, error",
    [
        (np.zeros(3, np.int64), ValueError),
        ("4HPwATDgc/ABMA", TypeError),
        (np.full(STATE_LEN, -1, np.int64), ValueError),
    ],
)
def test_bad_positions_are_refused(bad, error):
    with pytest.raises(error):
        bg_luck.roll_luck(race_judge, bad)
    with pytest.raises(error):
        bg_luck.best_values(race_judge, bad)
