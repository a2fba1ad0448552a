"""boardgym.envs.draughts: FEN I/O, move notation, action helpers and input validation."""
import numpy as np
import pytest

from boardgym.envs import draughts as D

INITIAL_ALG = "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8"


def same_position(a, b):
    return np.array_equal(a, b)


def test_initial_state_fen_and_numbering():
    """Board and start (RULES.md): numeric 21-32 / 1-12 is the algebraic start position."""
    assert D.to_fen(D.initial_state()) == INITIAL_ALG
    numeric = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    assert same_position(D.from_fen(numeric), D.initial_state())
    assert same_position(D.from_fen("W:W21-32:B1-12"), D.initial_state())
    assert D.legal_moves(D.initial_state()) == sorted(
        ["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"])


@pytest.mark.parametrize("fen", [
    '[FEN "W:W21,22,K5:B1,K30"]', '"W:W21,22,K5:B1,K30"', "W:W21,22,K5:B1,K30.",
    " W : W21, 22, K5 : B1, K30 ", "W:Wa3,c3,Ka7:Bb8,Kc1", "w:Wa3,c3,Ka7:Bb8,Kc1",
    "W:B1,K30:W21,22,K5", "W:W21-22,K5:B1,K30", "W:Wa3,22,KA7:B1,kc1"])
def test_fen_variants_parse_alike(fen):
    """PDN FEN: numeric and algebraic squares, brackets, quotes, trailing '.', whitespace."""
    assert D.to_fen(D.from_fen(fen)) == "W:Wa3,c3,Ka7:BKc1,b8"


def test_fen_round_trip_random_positions():
    """to_fen/from_fen round-trip the pieces and side of random playout positions."""
    rng = np.random.default_rng(3)
    for _ in range(100):
        s = D.initial_state()
        for _ in range(int(rng.integers(0, 80))):
            moves = D.legal_moves(s)
            if not moves:
                break
            s = D.apply(s, moves[int(rng.integers(len(moves)))])
        fen = D.to_fen(s)
        t = D.from_fen(fen)
        assert D.to_fen(t) == fen
        assert np.array_equal(t[:5], s[:5])
        assert D.legal_moves(t) == D.legal_moves(s)


@pytest.mark.parametrize("fen,problem", [
    ("W:W21,22:B22", "two pieces on square"),
    ("W:W21,21:B1", "two pieces on square"),
    ("W:W33:B1", "unknown square"),
    ("W:W0:B1", "unknown square"),
    ("W:Wa2:B1", "not a dark"),
    ("W:Wi1:B1", "unknown square"),
    ("W:Wb8:B1", "promotion row"),  # White man on row 8
    ("B:W21:Bc1", "promotion row"),  # Black man on row 1
    ("W:W1-13:B32", "at most 12"),
    ("X:W21:B1", "side to move"),
    ("W:W21", "expected"),
    ("W:W21:W22", "given twice"),
    ("W:X21:B1", "must start with W or B"),
    ("hello", "expected"),
    ("", "expected"),
    ("W:W21,,22:B1", "empty entry"),
    ("W:W5-3:B1", "range"),
])
def test_malformed_fen_raises_value_error(fen, problem):
    """Malformed FENs raise ValueError naming the problem."""
    with pytest.raises(ValueError, match=problem):
        D.from_fen(fen)


def test_non_string_inputs_raise():
    with pytest.raises(TypeError, match="FEN must be a string"):
        D.from_fen(123)
    with pytest.raises(ValueError, match="rules"):
        D.from_fen("W:Wc3:Bf6", rules=64)
    with pytest.raises(ValueError, match=r"shape \(80,\)"):
        D.legal_moves(np.zeros(5, dtype=np.int64))


def test_apply_accepts_other_routes_and_numeric_notation():
    """apply: canonical string, another route to the same outcome, numeric squares, 'x'."""
    fen = "W:WKa1:Bc3,f6"
    want = D.apply(fen, "a1:d4:h8")
    assert same_position(D.apply(fen, "a1:e5:h8"), want)
    assert same_position(D.apply(fen, "29x4"), want)  # start and end only: unambiguous
    assert same_position(D.apply(fen, "29:18:4"), want)
    assert same_position(D.apply(D.initial_state(), "22-17"), D.apply(D.initial_state(), "c3-b4"))
    assert same_position(D.apply("W:W15,28:B4,18", "15x22"), D.apply("W:W15,28:B4,18", "e5:c3"))


@pytest.mark.parametrize("move,problem", [
    ("c3-c4", "unknown square"),
    ("c3-e5", "illegal move"),
    ("a1:d4", "illegal move"),  # the chain must go on (25.2)
    ("a1:c3", "illegal move"),
    ("c3", "expected squares"),
    ("zz-b4", "unknown square"),
])
def test_illegal_move_strings_raise(move, problem):
    """Illegal or malformed move strings raise ValueError naming the move."""
    with pytest.raises(ValueError, match=problem):
        D.apply("W:WKa1:Bc3,f6" if move.startswith("a1") else D.initial_state(), move)


def test_ambiguous_abbreviated_capture_raises():
    """Start-end only is refused when two captured sets lead from the same start to the same end."""
    fen = "W:WKc3:Bb4,d4,b6,g3"
    assert D.legal_moves(fen) == ["c3:a5:c7:h2", "c3:e5:h2"]
    with pytest.raises(ValueError, match="ambiguous"):
        D.apply(fen, "c3:h2")
    assert D.to_fen(D.apply(fen, "c3:e5:h2")) == "B:WKh2:Bb4,b6"


def test_action_helpers():
    """Action codec helpers: from*32+to, readable strings, validated mask/apply."""
    a = D.str_to_action("c3-d4")
    assert a == 9 * 32 + 13 and D.action_to_str(a) == "c3-d4"
    assert D.str_to_action("22-18") == a
    s = D.initial_state()
    mask = D.action_mask(s)
    assert mask.dtype == np.int8 and mask.shape == (1024,) and mask.sum() == 7
    assert D.legal_actions(s) == sorted(D.str_to_action(m) for m in D.legal_moves(s))
    t = D.apply_action(s, a)
    assert same_position(t, D.apply(s, "c3-d4"))
    with pytest.raises(ValueError, match="illegal action 0"):
        D.apply_action(s, 0)
    with pytest.raises(ValueError, match="out of range"):
        D.apply_action(s, 1024)
    with pytest.raises(ValueError, match="out of range"):
        D.action_to_str(-1)
    with pytest.raises(ValueError, match="one hop"):
        D.str_to_action("a1:c3:e5")


def test_mid_chain_via_actions():
    """25.5 via actions: crowned on d8 mid-chain, the chain continues as a king."""
    s = D.from_fen("W:W9,21:B4,6,11")
    s = D.apply_action(s, D.str_to_action("b6-d8"))
    assert s[4] == 0  # still White to move
    with pytest.raises(ValueError, match="middle of a capture"):
        D.to_fen(s)
    assert D.legal_actions(s) == sorted([D.str_to_action("d8-g5"), D.str_to_action("d8-h4")])
    s = D.apply_action(s, D.str_to_action("d8-h4"))
    assert D.to_fen(s) == "B:Wa3,Kh4:Bh8"
    assert D.move_to_actions("W:W9,21:B4,6,11", "b6:d8:h4") == [
        D.str_to_action("b6-d8"), D.str_to_action("d8-h4")]


def test_perft_api_threads_and_depths():
    """perft through the API: depth 0 is 1; threads=2 agrees with threads=1."""
    s = D.initial_state()
    assert D.perft(s, 0) == 1
    assert D.perft(INITIAL_ALG, 5) == 7482
    assert D.perft(s, 6, threads=2) == D.perft(s, 6) == 37986
    with pytest.raises(ValueError):
        D.perft(s, -1)


def test_game_status_names():
    assert D.STATUS_NAMES[D.game_status(D.initial_state())] == "ongoing"


def test_garbage_state_vectors_raise():
    """Inconsistent position vectors are refused before reaching a kernel."""
    s = D.initial_state().copy()
    s[0] |= 1 << 4  # a ghost square
    with pytest.raises(ValueError, match="outside"):
        D.legal_moves(s)
    s = D.initial_state().copy()
    s[2] |= 1  # Black man on a1, where a White man stands
    with pytest.raises(ValueError, match="two pieces"):
        D.action_mask(s)
    s = D.initial_state().copy()
    s[4] = 2
    with pytest.raises(ValueError, match="side to move"):
        D.game_status(s)
    s = D.initial_state().copy()
    s[5] = 35  # capture square without a piece of the mover
    with pytest.raises(ValueError, match="capture square"):
        D.apply_action(s, 0)
