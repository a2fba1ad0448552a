"""Rulebook: one test per clause of boardgym/RULES.md (M.1-M.3, 25.1-25.7); FEN -> exact legal
set."""

import pytest

from boardgym.envs.draughts import apply, legal_moves, to_fen

# The worked-examples table of boardgym/RULES.md, verbatim.
RULES_TABLE = [
    ("25.2 men capture backwards", "W:W15,28:B4,18", ["e5:c3"]),
    ("25.2 free choice, no majority", "W:W22,28:B4,11,17,18", ["c3:a5", "c3:e5:g7"]),
    (
        "25.3/25.4 king must land where the capture continues",
        "W:WK29:B5,19,22",
        ["a1:e5:g3", "a1:e5:h2"],
    ),
    (
        "25.2/25.4 Turkish strike: jumped pieces block",
        "B:W15,17,21,K23,25,26,30:BK32",
        ["g1:d4:a1", "g1:d4:f6", "g1:d4:g7", "g1:d4:h8"],
    ),
    ("25.5 crowned mid-capture, continues as king", "W:W9,21:B4,6,11", ["b6:d8:g5", "b6:d8:h4"]),
    ("25.5 the same for Black", "B:W25,26,28:B5,23", ["e3:c1:a3"]),
    ("25.6 quiet promotion, no capture that move", "W:W6:B4", ["c7-b8", "c7-d8"]),
]


@pytest.mark.parametrize("clause,fen,expected", RULES_TABLE, ids=[r[0] for r in RULES_TABLE])
def test_rules_md_worked_examples(clause, fen, expected):
    """Each row of the boardgym/RULES.md worked-examples table gives exactly its legal set."""
    assert legal_moves(fen) == sorted(expected)


def moves(fen):
    return legal_moves(fen)


def test_m1_man_moves_one_square_forward():
    """M.1: a man moves one square diagonally forward onto an empty square (both colours)."""
    assert moves("W:Wc3:Bh8") == ["c3-b4", "c3-d4"]
    assert moves("W:Wc3,d4:Bh8") == ["c3-b4", "d4-c5", "d4-e5"]  # own piece blocks
    assert moves("W:Wa3:Bh8") == ["a3-b4"]  # board edge
    assert moves("B:Wa1:Bf6") == ["f6-e5", "f6-g5"]  # Black moves down the board
    assert moves("W:Wa1:Bb2,c3") == []  # blocked man, nothing to capture


def test_m2_king_moves_any_distance():
    """M.2: a king slides any number of empty squares along each diagonal."""
    assert moves("W:WKd4:Bh8") == sorted(
        [
            "d4-a1",
            "d4-b2",
            "d4-c3",
            "d4-a7",
            "d4-b6",
            "d4-c5",
            "d4-e3",
            "d4-f2",
            "d4-g1",
            "d4-e5",
            "d4-f6",
            "d4-g7",
        ]
    )
    assert moves("B:Wh4:BKe1") == sorted(["e1-d2", "e1-c3", "e1-b4", "e1-a5", "e1-f2", "e1-g3"])


def test_m2_king_stops_before_pieces():
    """M.2: a king's slide stops before any piece (its own or an uncapturable enemy)."""
    # h8 is on the edge: nothing behind it, so it cannot be captured and blocks the ray.
    assert "d4-h8" not in moves("W:WKd4:Bh8")
    assert moves("W:WKa1,c3:Bh8") == sorted(["a1-b2", "c3-b4", "c3-d4"])


def test_m3_quiet_promotion_both_colours():
    """M.3: a man ending a quiet move on the far row becomes a king at once."""
    assert to_fen(apply("W:Wc7:Bh2", "c7-d8")) == "B:WKd8:Bh2"
    assert moves("B:Wh2:Bb2") == ["b2-a1", "b2-c1"]
    assert to_fen(apply("B:Wh2:Bb2", "b2-a1")) == "W:Wh2:BKa1"


def test_25_1_capture_is_compulsory():
    """25.1: a man must capture an adjacent enemy piece with an empty square behind it."""
    assert moves("W:Wc3,g3:Bd4") == ["c3:e5"]  # g3 may not make a quiet move
    assert moves("W:Wc3:Bd4,e5") == ["c3-b4"]  # square behind occupied: no capture
    assert to_fen(apply("W:Wc3,g3:Bd4", "c3:e5")) == "B:Wg3,e5:B"


def test_25_2_whole_chain_backwards_and_free_choice():
    """25.2: men capture backwards, must go on capturing, and choose freely among chains."""
    assert moves("W:Wa1:Bb2,d4") == ["a1:c3:e5"]  # may not stop on c3
    assert moves("W:Wc3,g3,a1:Bb4,f4") == ["c3:a5", "g3:e5"]
    assert moves("W:We5:Bd4") == ["e5:c3"]  # backwards
    assert moves("B:Wd4:Bc3") == ["c3:e5"]  # backwards for Black


def test_25_2_no_piece_jumped_twice_and_loop_is_one_move():
    """25.2: a chain around four pieces returns to its start and may not re-jump d4
    (Turkish strike).

    Both directions round the loop reach the same outcome: one move, smallest path printed.
    """
    assert moves("W:Wc3:Bb4,d4,b6,d6") == ["c3:a5:c7:e5:c3"]
    assert to_fen(apply("W:Wc3:Bb4,d4,b6,d6", "c3:e5:c7:a5:c3")) == "B:Wc3:B"


def test_25_3_king_several_landing_squares():
    """25.3: a flying king captures at a distance and may stop on any empty square behind."""
    assert moves("W:WKa1:Bc3") == ["a1:d4", "a1:e5", "a1:f6", "a1:g7", "a1:h8"]
    assert moves("B:Wd4:Bc5,Kh8") == ["c5:e3", "h8:a1", "h8:b2", "h8:c3"]


def test_25_4_king_must_land_where_capture_continues():
    """25.4: when some landing squares continue the capture, the king must use one of them."""
    # From e5 only the crossing diagonal continues (over f4): d4, f6, g7, h8 are not allowed.
    assert moves("W:WKa1:Bc3,f4") == ["a1:e5:g3", "a1:e5:h2"]
    # Straight on: d4 and e5 both continue over f6; one outcome per end square.
    assert moves("W:WKa1:Bc3,f6") == ["a1:d4:g7", "a1:d4:h8"]
    assert to_fen(apply("W:WKa1:Bc3,f6", "a1:e5:h8")) == "B:WKh8:B"  # another route, same move


def test_25_5_crowned_mid_capture_both_colours():
    """25.5: a man reaching the far row during a capture is crowned and continues as a king."""
    assert moves("W:Wd6:Be7") == ["d6:f8"]
    assert to_fen(apply("W:Wd6:Be7", "d6:f8")) == "B:WKf8:B"
    assert to_fen(apply("W:W9,21:B4,6,11", "b6:d8:h4")) == "B:Wa3,Kh4:Bh8"
    assert to_fen(apply("B:W25,26,28:B5,23", "e3:c1:a3")) == "W:Wh2:BKa3,a7"


def test_25_6_quiet_promotion_waits_a_move():
    """25.6: crowned by a quiet move, the new king captures only on its next move."""
    s = apply("W:Wc7,h2:Bf6,a5", "c7-d8")  # d8-h4 over f6 would be a king capture
    assert to_fen(s) == "B:Wh2,Kd8:Ba5,f6"
    s = apply(s, "a5-b4")
    assert moves(s) == ["d8:g5", "d8:h4"]


def test_25_7_man_or_king_capture_free_choice():
    """25.7: when a man and a king can both capture, the capturer chooses."""
    assert moves("W:Wc3,Kh2:Bd4,f4") == ["c3:e5:g3", "h2:b8", "h2:c7", "h2:d6", "h2:e5"]
