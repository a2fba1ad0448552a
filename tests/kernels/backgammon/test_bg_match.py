"""Match play clauses MP.1-MP.8 (boardgym/RULES.md) on the match kernel and the cube limit."""

import numpy as np
import pytest

from boardgym.envs import backgammon_checks as checks
from boardgym.kernels.backgammon import board as B
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.cube import cube_action_mask


def match(length, score=(0, 0), crawford=False):
    return checks.new_match(length, score, crawford)


def award(m, winner, points):
    return int(game.match_award(m, winner, points))


def test_MP1_a_match_starts_at_love_and_counts_games():
    m = match(7)
    assert m[game.M_LENGTH] == 7 and m[game.M_SCORE] == 0 and m[game.M_SCORE + 1] == 0
    assert m[game.M_GAME] == 0 and m[game.M_WINNER] == -1 and not game.match_over(m)
    award(m, 1, 2)
    assert m[game.M_GAME] == 1 and m[game.M_SCORE + 1] == 2
    assert game.match_away(m, 0) == 7 and game.match_away(m, 1) == 5


def test_MP2_points_go_to_the_winner_capped_at_what_it_needs():
    m = match(7, (5, 2))
    assert award(m, 0, 4) == 2  # a doubled gammon when 2 away: 2 points count
    assert m[game.M_SCORE] == 7 and m[game.M_SCORE + 1] == 2
    m = match(7, (1, 2))
    assert award(m, 1, 3) == 3


def test_MP3_the_match_ends_when_a_score_reaches_the_length():
    m = match(3)
    award(m, 0, 1)
    assert not game.match_over(m)
    award(m, 0, 2)
    assert game.match_over(m) and m[game.M_WINNER] == 0
    checks.check_match(m)


def test_MP4_the_cube_stops_at_64_in_a_match():
    s = game.initial_state()
    m = match(25)
    game.set_cube_limit(s, m)
    assert s[B.CUBE_LIMIT] == game.MATCH_CUBE_LIMIT == 64
    s[B.CUBE_VALUE] = 32
    assert cube_action_mask(s, 0, np.zeros(game.N_ACTIONS_CUBE, np.int8)) == 2
    s[B.CUBE_VALUE] = 64
    s[B.CUBE_OWNER] = 0
    out = np.zeros(game.N_ACTIONS_CUBE, np.int8)
    assert cube_action_mask(s, 0, out) == 0 and out.sum() == 0
    money = game.initial_state()  # money play keeps the 2**15 limit
    assert money[B.CUBE_LIMIT] == B.MAX_CUBE_VALUE


def test_MP5_crawford_game_follows_the_first_reach_of_n_minus_one():
    m = match(5, (2, 3))
    award(m, 1, 1)  # 2-4: player_1 is 1 away -> the next game is the Crawford game
    assert m[game.M_CRAWFORD] == 1 and m[game.M_POST] == 0
    s = game.initial_state()
    game.set_cube_limit(s, m)
    assert s[B.CUBE_LIMIT] == 1
    assert cube_action_mask(s, 0, np.zeros(game.N_ACTIONS_CUBE, np.int8)) == 0
    status = game.begin_turn(s, np.array([7], np.int64), 0, 0, True, False, 0, 0, game.no_passes())
    assert status[1] == game.ROLLED  # the turn rolls at once: no cube decision
    # reaching N - 1 from further away also makes the next game Crawford's
    m = match(7, (0, 0))
    award(m, 0, 6)
    assert m[game.M_CRAWFORD] == 1


def test_MP5_only_one_crawford_game_and_none_in_a_one_point_match():
    m = match(5, (4, 2))
    m2 = match(5, (4, 2), crawford=True)
    assert m[game.M_POST] == 1 and m2[game.M_CRAWFORD] == 1
    award(m2, 1, 2)  # the trailer wins the Crawford game and reaches 4-4
    assert m2[game.M_CRAWFORD] == 0 and m2[game.M_POST] == 1
    one = match(1)
    assert one[game.M_CRAWFORD] == 0 and game.game_cube_limit(one) == 64


def test_MP6_post_crawford_games_use_the_cube_again():
    m = match(5, (4, 1), crawford=True)
    assert game.game_cube_limit(m) == 1
    award(m, 1, 1)  # 4-2 after the Crawford game
    assert m[game.M_POST] == 1 and game.game_cube_limit(m) == 64
    award(m, 1, 2)  # 4-4: still post-Crawford, no second Crawford game
    assert m[game.M_CRAWFORD] == 0 and game.game_cube_limit(m) == 64


def test_MP7_start_from_a_score_with_or_without_crawford():
    assert match(7, (6, 3), crawford=True)[game.M_CRAWFORD] == 1
    assert match(7, (6, 3))[game.M_POST] == 1
    assert match(7, (3, 3))[game.M_POST] == 0
    for bad, err in [
        (dict(length=7, score=(7, 0)), "score 7 must be 0..6"),
        (dict(length=7, score=(2, 3), crawford=True), "exactly one score at 6"),
        (dict(length=7, score=(6, 6), crawford=True), "exactly one score at 6"),
        (dict(length=0, score=(1, 0)), "money play"),
        (dict(length=65), "0..64"),
        (dict(length=-1), "0..64"),
    ]:
        with pytest.raises(ValueError, match=err):
            checks.new_match(**bad)
    for bad in [
        dict(length=7.0),
        dict(length=True),
        dict(length=7, score=7),
        dict(length=7, score=(1, "2")),
        dict(length=7, crawford=1),
    ]:
        with pytest.raises(TypeError):
            checks.new_match(**bad)


def test_MP8_resigned_points_are_credited_like_any_game():
    m = match(9, (0, 0))
    assert award(m, 0, 3 * 2) == 6  # a backgammon resigned with the cube at 2
    assert m[game.M_SCORE] == 6


def test_money_play_keeps_no_score():
    m = match(0)
    assert award(m, 0, 8) == 8 and m[game.M_SCORE] == 0 and not game.match_over(m)
    assert game.game_cube_limit(m) == B.MAX_CUBE_VALUE


def test_check_match_names_what_is_wrong():
    m = match(7, (6, 2), crawford=True)
    checks.check_match(m)
    for k, v, err in [
        (game.M_LENGTH, 99, "match length"),
        (game.M_SCORE, 8, "score"),
        (game.M_CRAWFORD, 2, "Crawford"),
        (game.M_POST, 1, "post-Crawford"),
        (game.M_WINNER, 0, "winner"),
        (game.M_GAME, -3, "game count"),
    ]:
        bad = m.copy()
        bad[k] = v
        with pytest.raises(ValueError, match=err):
            checks.check_match(bad)
    with pytest.raises(ValueError, match="shape"):
        checks.check_match(np.zeros(3, np.int64))
    with pytest.raises(TypeError):
        checks.check_match([7, 0, 0, 0, 0, 0, -1])


def test_cube_limit_is_checked_in_states():
    s = game.initial_state()
    s[B.CUBE_LIMIT] = 3
    with pytest.raises(ValueError, match="cube limit"):
        checks.check_state(s)
    s[B.CUBE_LIMIT] = 1
    s[B.CUBE_VALUE] = 2
    with pytest.raises(ValueError, match="cube limit"):
        checks.check_state(s)
