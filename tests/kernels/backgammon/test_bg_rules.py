"""Rulebook tests for the backgammon kernel: one scenario per clause of boardgym/RULES.md.

Positions are drawn as ``pos(me="13:1 9:1", opp="7:2 3:2 20:11")``: ``point:count`` pairs for the
player on roll ("me") and the opponent, both in the mover's numbering (the mover moves 24 -> 1 and
enters on 25 - die); ``bar:n`` puts checkers on the bar; checkers not drawn are borne off.
Each test asserts the exact set of legal plays in gnubg notation
(boardgym.envs.backgammon_notation).
"""

import numpy as np
import pytest

from boardgym.envs.backgammon_notation import play_to_str
from boardgym.kernels.backgammon import board as B
from boardgym.kernels.backgammon.codec import (
    N_ACTIONS,
    apply_action,
    encode_action,
    has_legal_move,
    legal_action_mask,
)
from boardgym.kernels.backgammon.movegen import MAX_AFTERSTATES, gen_afterstates
from boardgym.kernels.backgammon.outcome import BACKGAMMON, GAMMON, SINGLE, game_over, outcome


def pos(me, opp, turn=0):
    """State from drawn ``point:count`` lists (mover's numbering, ``bar:n`` for the bar)."""
    s = np.zeros(B.STATE_LEN, dtype=np.int64)
    for _side, text, base, bar in (("me", me, B.ME, B.BAR_ME), ("opp", opp, B.OPP, B.BAR_OPP)):
        for item in text.split():
            p, c = item.split(":")
            if p == "bar":
                s[bar] += int(c)
            else:
                s[base + int(p) - 1] += int(c)
    s[B.OFF_ME] = 15 - s[B.ME : B.ME + 24].sum() - s[B.BAR_ME]
    s[B.OFF_OPP] = 15 - s[B.OPP : B.OPP + 24].sum() - s[B.BAR_OPP]
    assert s[B.OFF_ME] >= 0 and s[B.OFF_OPP] >= 0
    s[B.TURN] = turn
    s[B.CUBE_VALUE] = 1
    s[B.CUBE_OWNER] = -1
    s[B.CUBE_LIMIT] = B.MAX_CUBE_VALUE
    B.refresh_masks(s)
    return s


def afterstates(s, d1, d2):
    out = np.empty((MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    n = gen_afterstates(s, d1, d2, out)
    assert n >= 1
    return out[:n].copy()


def plays(s, d1, d2):
    """The legal plays of roll d1-d2 as a set of gnubg-notation strings ("" = the pass)."""
    rows = afterstates(s, d1, d2)
    texts = {play_to_str(s, d1, d2, r) for r in rows}
    assert len(texts) == len(rows)
    return texts


def mask_moves(s, d1, d2):
    """The first checker moves the mask allows, as a set of (source point, die)."""
    m = np.zeros(N_ACTIONS, dtype=np.int8)
    legal_action_mask(B.set_dice(s, d1, d2), m)
    return {(a // 6 + 1, a % 6 + 1) for a in np.flatnonzero(m)}


# ----------------------------------------------------------------------------- B: moves


def test_B1_B2_die_moves_one_checker_not_onto_a_blocked_point():
    # 13 - 3 = 10 is blocked (two opponent checkers), so the 3 can only follow the 2.
    s = pos(me="13:1", opp="10:2 20:13")
    assert plays(s, 3, 2) == {"13/8"}
    assert mask_moves(s, 3, 2) == {(13, 2)}


def test_B3_landing_on_a_blot_hits_it():
    s = pos(me="13:1", opp="11:1 20:14")
    rows = afterstates(s, 2, 1)
    assert {play_to_str(s, 2, 1, r) for r in rows} == {"13/11*/10", "13/10"}
    hit = [r for r in rows if r[B.BAR_OPP] == 1]
    assert len(hit) == 1 and hit[0][B.OPP + 10] == 0 and hit[0][B.ME + 9] == 1


def test_B4_doubles_play_four_times():
    s = pos(me="24:2", opp="1:15")
    assert plays(s, 2, 2) == {"24/16", "24/22 24/18", "24/20(2)"}


def test_B5_both_dice_must_be_played_when_some_order_allows():
    # 9/4 and 13/8 each use the 5 alone; only 13/8/2 uses both dice, so it is forced.
    s = pos(me="13:1 9:1", opp="7:2 3:2 20:11")
    assert plays(s, 6, 5) == {"13/2"}
    assert mask_moves(s, 6, 5) == {(13, 5)}


def test_B5_only_one_die_playable_the_higher_is_forced():
    # 13/7 (6) or 13/11 (2) but never both (7 - 2 = 5 and 11 - 6 = 5 are blocked): the 6 is forced.
    s = pos(me="13:1", opp="5:2 20:13")
    assert plays(s, 6, 2) == {"13/7"}
    assert mask_moves(s, 6, 2) == {(13, 6)}


def test_B5_only_the_lower_die_playable():
    s = pos(me="13:1", opp="5:2 7:2 20:11")
    assert plays(s, 6, 2) == {"13/11"}
    assert mask_moves(s, 6, 2) == {(13, 2)}


def test_B5_doubles_partly_playable_use_as_many_as_possible():
    # 3-3 from 13: 13/10/7, then 4 is blocked; two of the four 3s are played.
    s = pos(me="13:1", opp="4:2 20:13")
    assert plays(s, 3, 3) == {"13/7"}
    s2 = afterstates(s, 3, 3)[0]
    assert s2[B.ME + 6] == 1 and s2[B.OFF_ME] == 14


# Distinct plays from the opening position for each roll, counted with gnubg-nn's ``moves``
# (GNU Backgammon's move generator) -> board_from_position_key -> position_id, deduplicated.
OPENING_PLAYS = {
    "11": 42,
    "21": 15,
    "31": 16,
    "41": 14,
    "51": 8,
    "61": 10,
    "22": 75,
    "32": 17,
    "42": 18,
    "52": 8,
    "62": 14,
    "33": 73,
    "43": 17,
    "53": 9,
    "63": 14,
    "44": 52,
    "54": 9,
    "64": 14,
    "55": 4,
    "65": 7,
    "66": 11,
}


@pytest.mark.parametrize("roll", sorted(OPENING_PLAYS))
def test_B6_opening_rolls_distinct_play_counts(roll):
    hi, lo = int(roll[0]), int(roll[1])
    rows = afterstates(B.new_initial_state(), hi, lo)
    assert len(rows) == OPENING_PLAYS[roll]
    assert len({r[: B.BOARD_LEN].tobytes() for r in rows}) == len(rows)
    assert len(afterstates(B.new_initial_state(), lo, hi)) == OPENING_PLAYS[roll]


def test_B6_routes_through_an_occupied_point_are_one_play():
    # 3-2 from the start: 8/5/3, 8/6/3 and 6/3 8/6 are all the position "8/3".
    texts = [
        play_to_str(B.new_initial_state(), 3, 2, r)
        for r in afterstates(B.new_initial_state(), 3, 2)
    ]
    assert texts.count("8/3") == 1 and len(texts) == len(set(texts))
    # through a blot the routes differ: 13/10*/8 hits; 13/11/8, 11/8 13/11 do not (one play)
    s = pos(me="13:1 11:1", opp="10:1 20:14")
    assert plays(s, 3, 2) == {"13/10*/8", "13/10* 11/9", "13/8", "11/6"}


def test_B6_plays_with_the_same_result_are_one_play():
    # 13/11/10 and 13/12/10 give one position; the opening 3-1 has 16 distinct plays.
    assert plays(pos(me="13:1", opp="20:15"), 2, 1) == {"13/10"}
    assert len(afterstates(B.new_initial_state(), 3, 1)) == 16
    assert len(afterstates(B.new_initial_state(), 6, 5)) == 7


# ----------------------------------------------------------------------------- E: bar entry


def test_E1_everything_enters_before_any_other_checker_moves():
    s = pos(me="bar:1 13:14", opp="19:2 1:13")
    assert mask_moves(s, 6, 1) == {(25, 1)}  # the 6 cannot enter (19 blocked); 13/7 must wait
    assert plays(s, 6, 1) == {"bar/24 13/7", "bar/18"}


def test_E2_die_enters_on_opponents_home_point_of_its_number():
    # seed: 4-3, both A4 (mover's 21) and A3 (22) are open: enter on either.
    s = pos(me="bar:1 6:14", opp="12:15")
    assert plays(s, 4, 3) == {"bar/18", "bar/21 6/3", "bar/22 6/2"}
    assert mask_moves(s, 4, 3) == {(25, 4), (25, 3)}


def test_E3_neither_die_enters_the_turn_is_lost():
    # seed: 6-1 with A6 and A1 (mover's 19 and 24) both made.
    s = pos(me="bar:1 6:14", opp="19:2 24:2 12:11")
    assert plays(s, 6, 1) == {""}
    rows = afterstates(s, 6, 1)
    assert len(rows) == 1 and (rows[0][: B.BOARD_LEN] == s[: B.BOARD_LEN]).all()
    assert not has_legal_move(B.set_dice(s, 6, 1))
    assert mask_moves(s, 6, 1) == set()


def test_E4_entered_checker_continues_with_the_other_die():
    # seed: 4-A4—A7, i.e. bar/21/18 in the mover's numbering, played one action at a time.
    s = B.set_dice(pos(me="bar:1 6:14", opp="12:15"), 4, 3)
    s = apply_action(s, encode_action(25, 4))
    assert s[B.ME + 20] == 1 and s[B.BAR_ME] == 0 and s[B.TURN] == 0
    m = np.zeros(N_ACTIONS, dtype=np.int8)
    legal_action_mask(s, m)
    assert {(a // 6 + 1, a % 6 + 1) for a in np.flatnonzero(m)} == {(21, 3), (6, 3)}
    s = apply_action(s, encode_action(21, 3))
    assert s[B.TURN] == 1  # play complete: the turn passed and the view flipped
    assert s[B.OPP + 25 - 18 - 1] == 1  # the checker now on the mover's 18 = 7 in the new view


def test_E5_entering_may_hit_a_blot():
    # seed: 2-1, enter on A2 (mover's 23) hitting the blot there.
    s = pos(me="bar:1 6:14", opp="23:1 12:14")
    rows = afterstates(s, 2, 1)
    assert {play_to_str(s, 2, 1, r) for r in rows} == {
        "bar/23* 6/5",
        "bar/23*/22",
        "bar/24 6/4",
        "bar/22",
    }
    assert sorted(int(r[B.BAR_OPP]) for r in rows) == [0, 0, 1, 1]


def test_E6_two_on_the_bar_one_enters_the_other_die_is_lost():
    s = pos(me="bar:2 6:13", opp="19:2 12:13")
    assert plays(s, 6, 1) == {"bar/24"}
    s = pos(me="bar:2 6:13", opp="24:2 12:13")
    assert plays(s, 6, 1) == {"bar/19"}
    s = pos(me="bar:2 6:13", opp="12:15")
    assert plays(s, 4, 3) == {"bar/22 bar/21"}


def test_E7_six_closed_points_no_entry_with_any_roll():
    s = pos(me="bar:1 6:14", opp="19:2 20:2 21:2 22:2 23:2 24:2 12:3")
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            assert plays(s, d1, d2) == {""}
            assert not has_legal_move(B.set_dice(s, d1, d2))


# ----------------------------------------------------------------------------- O: bearing off


def test_O1_no_bearing_off_with_a_checker_outside_home():
    # 5/off is impossible while 7 is outside; either die first brings 7 home, then 5 bears off.
    s = pos(me="7:1 5:1", opp="20:15")
    assert plays(s, 6, 5) == {"7/1 5/off", "7/2 5/off"}
    assert mask_moves(s, 6, 5) == {(7, 6), (7, 5)}


def test_O2_exact_die_bears_off_from_its_point():
    s = pos(me="6:1 5:1", opp="20:15")
    assert plays(s, 6, 5) == {"6/off 5/off", "6/1 5/off"}


def test_O2_higher_die_bears_off_from_the_highest_point():
    s = pos(me="3:1 2:1", opp="20:15")
    assert plays(s, 6, 5) == {"3/off 2/off"}


def test_O2_higher_point_occupied_the_die_moves_inside():
    # the 5 cannot bear off from 2 while 6 is occupied: it plays 6/1 (or the 4 goes first: 6/2/off)
    s = pos(me="6:1 2:1", opp="20:15")
    assert plays(s, 5, 4) == {"6/off", "6/1 2/off"}
    assert (2, 5) not in mask_moves(s, 5, 4)


def test_O2_last_checker_uses_both_dice_strict_reading():
    # 3/off with the 6 alone is not a maximal play; 3/1* then 1/off is (GNU Backgammon agrees).
    s = pos(me="3:1", opp="1:1 20:14")
    assert plays(s, 6, 2) == {"3/1*/off"}
    assert mask_moves(s, 6, 2) == {(3, 2)}


def test_O2_double_twos_hit_then_bear_off_in_the_same_turn():
    s = pos(me="4:2", opp="2:1 20:14")
    rows = afterstates(s, 2, 2)
    assert {play_to_str(s, 2, 2, r) for r in rows} == {"4/2*/off 4/off"}
    after = B.end_turn(rows[0])
    assert game_over(after)
    assert outcome(after) == (0, BACKGAMMON)  # loser: none off and a checker on the bar


# ----------------------------------------------------------------------------- O.3 scoring


def test_O3_single_game_when_the_loser_bore_off_one():
    s = pos(me="", opp="10:14")
    assert outcome(s) == (0, SINGLE)
    assert outcome(B.end_turn(s)) == (0, SINGLE)


def test_O3_gammon_when_the_loser_bore_off_none():
    s = pos(me="", opp="10:15", turn=1)
    assert outcome(s) == (1, GAMMON)
    assert outcome(B.end_turn(s)) == (1, GAMMON)


def test_O3_backgammon_with_a_checker_in_the_winners_home_board():
    s = pos(me="", opp="10:14 3:1")
    assert outcome(s) == (0, BACKGAMMON)
    assert outcome(B.end_turn(s)) == (0, BACKGAMMON)


def test_O3_backgammon_with_a_checker_on_the_bar():
    s = pos(me="", opp="10:14 bar:1")
    assert outcome(s) == (0, BACKGAMMON)
    assert outcome(B.end_turn(s)) == (0, BACKGAMMON)


def test_O3_game_not_over():
    s = B.new_initial_state()
    assert not game_over(s) and outcome(s) == (-1, 0)
