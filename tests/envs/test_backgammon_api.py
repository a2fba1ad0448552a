"""Game API and notation of boardgym.envs.backgammon_notation: Position ID, Match ID, legal_plays,
gnubg-style play notation, and rejection of malformed input (ValueError with a reason)."""

import base64
import re

import numpy as np
import pytest
from bg_random_games import random_cases

from boardgym.envs import backgammon_notation as bg
from boardgym.kernels.backgammon import board as B
from boardgym.kernels.backgammon.movegen import MAX_AFTERSTATES, gen_afterstates

START_ID = "4HPwATDgc/ABMA"  # the starting position (gnubg manual)


def id_from_bits(bits):
    bits = list(bits) + [0] * (80 - len(bits))
    key = bytes(sum(bits[8 * k + j] << j for j in range(8)) for k in range(10))
    return base64.b64encode(key).decode()[:14]


def runs(counts):
    bits = []
    for c in counts:
        bits += [1] * c + [0]
    return bits


# ----------------------------------------------------------------------------- Position ID


def test_initial_position_id():
    assert bg.position_id(bg.initial_state()) == START_ID
    s = bg.position_from_id(START_ID)
    assert (s[: B.BOARD_LEN] == bg.initial_state()[: B.BOARD_LEN]).all()


def test_position_id_block_order_mover_second():
    # first block: opponent (14 on its ace point, 1 on its 6); second block: mover, 15 on its 13.
    pid = id_from_bits(runs([14, 0, 0, 0, 0, 1] + [0] * 19) + runs([0] * 12 + [15] + [0] * 12))
    s = bg.position_from_id(pid)
    assert s[B.ME + 12] == 15 and s[B.OPP + 23] == 14 and s[B.OPP + 18] == 1
    assert bg.position_id(s) == pid


def test_position_id_round_trip_random_positions():
    for s, _, _ in random_cases(300, seed=3):
        pid = bg.position_id(s)
        t = bg.position_from_id(pid)
        assert (t[: B.BOARD_LEN] == s[: B.BOARD_LEN]).all()
        assert (t[B.BB_ME :] == s[B.BB_ME :]).all()


def test_position_id_matches_gnubg():
    g = pytest.importorskip("gnubg_nn")
    for s, _, _ in random_cases(300, seed=4):
        board = bg.board_from_state(s)
        pid = bg.position_id(s)
        assert pid == g.position_id(board)
        assert [list(x) for x in g.board_from_position_id(pid)] == board


# ----------------------------------------------------------------------------- legal_plays


def test_legal_plays_opening():
    assert len(bg.legal_plays(START_ID, 3, 1)) == 16
    assert bg.legal_plays(START_ID, 3, 1) == sorted(bg.legal_plays(START_ID, 1, 3))


def test_legal_plays_pass_is_the_unchanged_position():
    s = bg.state_from_board(
        [[2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 3] + [0] * 12, [0] * 5 + [14] + [0] * 18 + [1]]
    )
    pid = bg.position_id(s)
    assert bg.legal_plays(pid, 6, 1) == [pid]


def test_legal_plays_match_gnubg():
    g = pytest.importorskip("gnubg_nn")
    for s, d1, d2 in random_cases(400, seed=5):
        pid = bg.position_id(s)
        keys = g.moves(g.board_from_position_id(pid), d1, d2)
        want = sorted(
            {g.position_id([list(x) for x in g.board_from_position_key(k)]) for k in keys}
        ) or [pid]
        assert bg.legal_plays(pid, d1, d2) == want, (pid, d1, d2)


def test_legal_plays_are_the_sorted_ids_of_legal_afterstates():
    for s, d1, d2 in random_cases(300, seed=7):
        pid = bg.position_id(s)
        rows = bg.legal_afterstates(bg.position_from_id(pid), d1, d2)
        assert bg.legal_plays(pid, d1, d2) == sorted(bg.position_ids(rows)), (pid, d1, d2)


def test_legal_plays_give_the_same_answers_from_several_threads():
    import threading

    cases = [(bg.position_id(s), d1, d2) for s, d1, d2 in random_cases(200, seed=8)]
    want = [bg.legal_plays(*c) for c in cases]
    got = {}

    def run(t):
        got[t] = [bg.legal_plays(*c) for c in cases]

    threads = [threading.Thread(target=run, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(got[t] == want for t in range(4))


def test_legal_afterstates_are_the_game_cores_plays():
    out = np.empty((MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    for s, d1, d2 in random_cases(200, seed=9):
        rows = bg.legal_afterstates(s, d1, d2)
        assert rows.dtype == np.int64 and rows.ndim == 2 and rows.shape[1] == B.STATE_LEN
        n = gen_afterstates(s, d1, d2, out)
        assert sorted(r.tobytes() for r in rows) == sorted(r.tobytes() for r in out[:n])
        again = bg.legal_afterstates(s, d2, d1)
        assert (again == rows).all()  # the same order whatever the order of the dice
        rows[:] = -1  # a fresh array: the next call does not see this
        assert (bg.legal_afterstates(s, d1, d2) == again).all()


def test_position_ids_of_a_batch():
    states = np.stack([s for s, _, _ in random_cases(40, seed=10)])
    assert bg.position_ids(states) == [bg.position_id(s) for s in states]
    assert bg.position_ids(np.zeros((0, B.STATE_LEN), np.int64)) == []
    assert bg.position_ids(states.astype(np.int32)) == bg.position_ids(states)
    bad = states.copy()
    bad[3, B.ME] += 1
    with pytest.raises(ValueError, match=r"states\[3\]"):
        bg.position_ids(bad)
    with pytest.raises(ValueError, match="shape"):
        bg.position_ids(states[0])
    with pytest.raises(TypeError):
        bg.position_ids("4HPwATDgc/ABMA")


# ----------------------------------------------------------------------------- notation


def test_play_notation_round_trip_random_positions():
    out = np.empty((MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    for s, d1, d2 in random_cases(300, seed=6):
        k = gen_afterstates(s, d1, d2, out)
        texts = set()
        for j in range(k):
            text = bg.play_to_str(s, d1, d2, out[j])
            texts.add(text)
            back = bg.parse_play(s, d1, d2, text)
            assert (back[: B.BOARD_LEN] == out[j, : B.BOARD_LEN]).all(), (text, d1, d2)
        assert len(texts) == k


def test_play_notation_forms():
    s = bg.initial_state()
    a = bg.parse_play(s, 3, 3, "8/5(2) 6/3(2)")
    b = bg.parse_play(s, 3, 3, "8/5 8/5 6/3 6/3")
    assert (a == b).all()
    assert bg.play_to_str(s, 3, 3, a) == "8/5(2) 6/3(2)"
    c = bg.parse_play(s, 6, 5, "24/18/13")
    assert (c == bg.parse_play(s, 6, 5, "24/13")).all()
    assert (c == bg.parse_play(s, 6, 5, "24/18 18/13")).all()
    assert bg.play_to_str(s, 6, 5, c) == "24/13"
    assert bg.play_to_str(s, 3, 1, [(8, 5), (6, 5)]) == "8/5 6/5"


def test_play_notation_bar_hit_and_off():
    s = bg.state_from_board(
        [
            [0] * 22 + [1, 0, 0] if False else [0, 1] + [0] * 10 + [14] + [0] * 12,
            [0] * 5 + [14] + [0] * 18 + [1],
        ]
    )
    # opponent blot on its 2 point = the mover's 23
    t = bg.parse_play(s, 2, 1, "bar/23* 6/5")
    assert t[B.BAR_OPP] == 1 and bg.play_to_str(s, 2, 1, t) == "bar/23* 6/5"
    assert (bg.parse_play(s, 2, 1, "25/23* 6/5") == t).all()
    home = bg.state_from_board([[0] * 12 + [15] + [0] * 12, [1, 1] + [0] * 23])
    off = bg.parse_play(home, 6, 5, "2/off 1/off")
    assert off[B.OFF_ME] == 15 and bg.play_to_str(home, 6, 5, off) == "2/off 1/off"
    assert (bg.parse_play(home, 6, 5, "2/0 1/0") == off).all()


def test_parse_play_rejects_illegal_and_malformed():
    s = bg.initial_state()
    for text in ("24/20 24/21", "24/21", "13/10 13/12 6/5", "8/5 6/5 6/5"):
        with pytest.raises(ValueError, match="illegal"):
            bg.parse_play(s, 3, 1, text)
    for text in ("24-21 24/23", "x/y", "24/21/25", "off/3", "3*/1 8/7", "24/26 6/5"):
        with pytest.raises(ValueError):
            bg.parse_play(s, 3, 1, text)
    with pytest.raises(ValueError, match="pass"):
        bg.parse_play(s, 3, 1, "")


# ----------------------------------------------------------------------------- Match ID


def test_match_id_known_gnubg_id():
    # From a GNU Backgammon session posted to bug-gnubg (2009-07): g9vBASSYZ8wBBg:cIkmAQAAAAAA
    d = bg.parse_match_id("cIkmAQAAAAAA")
    assert d["match_length"] == 9 and d["dice"] == (5, 1) and d["cube_value"] == 1
    assert (
        d["cube_owner"] == -1 and d["dice_owner"] == 1 and d["turn"] == 1 and d["game_state"] == 1
    )
    s = bg.initial_state()
    s[B.TURN] = 1
    assert bg.match_id(s, dice=(5, 1), match_length=9) == "cIkmAQAAAAAA"


def test_match_id_round_trip():
    s = B.set_dice(bg.initial_state(), 6, 6)
    s[B.CUBE_VALUE] = 8
    s[B.CUBE_OWNER] = 1
    mid = bg.match_id(s, match_length=7, score=(3, 5), crawford=True)
    assert len(mid) == 12
    d = bg.parse_match_id(mid)
    assert d == {
        "cube_value": 8,
        "cube_owner": 1,
        "dice_owner": 0,
        "crawford": True,
        "game_state": 1,
        "turn": 0,
        "double_offered": False,
        "resign": 0,
        "dice": (6, 6),
        "match_length": 7,
        "score": (3, 5),
    }


def test_match_id_rejects_malformed():
    for mid, why in (
        ("cIkmAQAAAAA", "12 characters"),
        ("cIkmAQAAAA!A", "base64"),
        ("cIkmAQAAAAAg", "beyond bit 66"),
    ):
        with pytest.raises(ValueError, match=why):
            bg.parse_match_id(mid)
    bad_owner = bg.match_id(bg.initial_state())
    bits = int.from_bytes(base64.b64decode(bad_owner), "little") & ~(3 << 4) | (2 << 4)
    with pytest.raises(ValueError, match="cube owner"):
        bg.parse_match_id(base64.b64encode(bits.to_bytes(9, "little")).decode())
    with pytest.raises(ValueError):
        bg.match_id(bg.initial_state(), dice=(7, 1))


# ----------------------------------------------------------------------------- invalid input


def test_position_id_rejects_malformed():
    with pytest.raises(ValueError, match="14 characters"):
        bg.position_from_id("4HPwATDgc/ABM")
    with pytest.raises(ValueError, match="base64"):
        bg.position_from_id("4HPwATDgc/AB-A")
    with pytest.raises(TypeError, match="string"):
        bg.position_from_id(12345678901234)
    with pytest.raises(ValueError, match="16 checkers"):
        bg.position_from_id(id_from_bits(runs([16] + [0] * 24) + runs([15] + [0] * 24)))
    with pytest.raises(ValueError, match="runs out|checkers"):
        bg.position_from_id(id_from_bits([1] * 80))
    with pytest.raises(ValueError, match="padding"):
        bg.position_from_id(START_ID[:-1] + "B")
    with pytest.raises(ValueError, match="base64"):
        bg.position_from_id("4HPwATDgc/AB\u00e9A")


def test_legal_plays_word_a_bad_id_as_position_from_id_does():
    bad = [
        "4HPwATDgc/ABM",
        "4HPwATDgc/AB-A",
        START_ID[:-1] + "B",
        "4HPwATDgc/AB\u00e9A",
        id_from_bits([1] * 80),
        id_from_bits(runs([16] + [0] * 24) + runs([15] + [0] * 24)),
        id_from_bits(runs([2] + [0] * 24) + runs([0] * 23 + [2, 0])),
        id_from_bits(runs([0] * 25) + runs([0] * 25)),
        id_from_bits(runs([1] + [0] * 24) * 2 + [1]),
        12345678901234,
        None,
        b"4HPwATDgc/ABMA",
    ]
    for pid in bad:
        with pytest.raises((ValueError, TypeError)) as want:
            bg.position_from_id(pid)
        with pytest.raises(want.type, match=re.escape(str(want.value))):
            bg.legal_plays(pid, 3, 1)


def test_impossible_positions_rejected():
    # both sides on one point: opponent's own 1 point is the mover's 24
    both = id_from_bits(runs([2] + [0] * 24) + runs([0] * 23 + [2, 0]))
    with pytest.raises(ValueError, match="both sides"):
        bg.position_from_id(both)
    with pytest.raises(ValueError, match="both sides have borne off"):
        bg.position_from_id(id_from_bits(runs([0] * 25) + runs([0] * 25)))
    with pytest.raises(ValueError, match="16 checkers"):
        bg.state_from_board([[16] + [0] * 24, [0] * 25])
    with pytest.raises(ValueError, match="25 integers"):
        bg.state_from_board([[0] * 24, [0] * 25])


def test_dice_outside_range_rejected():
    for d1, d2 in ((0, 1), (7, 1), (3, -1)):
        with pytest.raises(ValueError, match="die"):
            bg.legal_plays(START_ID, d1, d2)
        with pytest.raises(ValueError, match="die"):
            bg.parse_play(bg.initial_state(), d1, d2, "24/21 24/23")
    for d1, d2 in ((1.5, 2), ("3", 1), (True, 2), (None, 3), (3.0, 1)):  # dice are ints
        with pytest.raises(TypeError, match="die"):
            bg.legal_plays(START_ID, d1, d2)
        with pytest.raises(TypeError, match="die"):
            bg.legal_afterstates(bg.initial_state(), d1, d2)
        with pytest.raises(TypeError, match="die"):
            bg.parse_play(bg.initial_state(), d1, d2, "24/21 24/23")
