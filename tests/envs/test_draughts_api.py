"""boardgym.envs.draughts: FEN I/O, move notation, action helpers and input validation."""

import numpy as np
import pytest

from boardgym.envs import draughts as D

INITIAL_ALG = "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8"


def same_position(a, b):
    return np.array_equal(a, b)


def test_initial_state_fen_and_numbering():
    """Board and start (boardgym/RULES.md): numeric 21-32 / 1-12 is the algebraic start position."""
    assert D.to_fen(D.initial_state()) == INITIAL_ALG
    numeric = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    assert same_position(D.from_fen(numeric), D.initial_state())
    assert same_position(D.from_fen("W:W21-32:B1-12"), D.initial_state())
    assert D.legal_moves(D.initial_state()) == sorted(
        ["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"]
    )


@pytest.mark.parametrize(
    "fen",
    [
        '[FEN "W:W21,22,K5:B1,K30"]',
        '"W:W21,22,K5:B1,K30"',
        "W:W21,22,K5:B1,K30.",
        " W : W21, 22, K5 : B1, K30 ",
        "W:Wa3,c3,Ka7:Bb8,Kc1",
        "w:Wa3,c3,Ka7:Bb8,Kc1",
        "W:B1,K30:W21,22,K5",
        "W:W21-22,K5:B1,K30",
        "W:Wa3,22,KA7:B1,kc1",
    ],
)
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


@pytest.mark.parametrize(
    "fen,problem",
    [
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
    ],
)
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


@pytest.mark.parametrize(
    "move,problem",
    [
        ("c3-c4", "unknown square"),
        ("c3-e5", "illegal move"),
        ("a1:d4", "illegal move"),  # the chain must go on (25.2)
        ("a1:c3", "illegal move"),
        ("c3", "expected squares"),
        ("zz-b4", "unknown square"),
    ],
)
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
        D.str_to_action("b6-d8"),
        D.str_to_action("d8-h4"),
    ]


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


# ---- the validated boundary (check_state, check_batch, check_action and every entry point) ----
from boardgym.kernels.draughts import game as G  # noqa: E402
from boardgym.kernels.draughts.board import (  # noqa: E402
    S_BK,
    S_BM,
    S_CAP_JUMPED,
    S_CAP_MAN,
    S_CAP_SQ,
    S_CAP_START,
    S_HASH,
    S_HIST_N,
    S_KINGS_ONLY,
    S_LONG_DIAG,
    S_MATERIAL,
    S_PLY,
    S_RULES,
    S_SIDE,
    S_WK,
    S_WM,
    SQ32_TO_GHOST,
)


def _bit(name):
    return 1 << int(SQ32_TO_GHOST[D.parse_square(name)])


def _mid_chain():
    """A capture chain in progress: White c3:e5 done, e5:g7 to come (W:W22,28:B4,11,17,18)."""
    s = D.from_fen("W:W22,28:B4,11,17,18")
    return D.apply_action(s, D.str_to_action("c3-e5"))


def _set(field, value, start=None):
    def make():
        s = (D.initial_state() if start is None else start()).copy()
        s[field] = value
        return s

    return make


@pytest.mark.parametrize("value", [None, "W:W21:B1", b"abc", 5, 2.5, {"a": 1}, object()])
def test_check_state_refuses_non_arrays_with_type_error(value):
    with pytest.raises(TypeError, match="int64 array"):
        D.check_state(value)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.uint64, np.bool_, object])
def test_check_state_refuses_other_dtypes_with_type_error(dtype):
    s = D.initial_state()
    with pytest.raises(TypeError, match="int64"):
        D.check_state(s.astype(dtype))


@pytest.mark.parametrize("shape", [(79,), (81,), (1, 80), (2, 40), ()])
def test_check_state_refuses_other_shapes(shape):
    with pytest.raises(ValueError, match="shape"):
        D.check_state(np.zeros(shape, np.int64))


def test_check_state_refuses_ragged_lists_and_accepts_int_lists():
    with pytest.raises(ValueError, match="rectangular"):
        D.check_state([[1, 2], [3]])
    s = D.initial_state()
    assert np.array_equal(D.check_state(s.tolist()), s)
    view = np.stack([s, s])[:, ::1][0]  # a view: checked, returned contiguous
    assert D.check_state(view).flags.c_contiguous
    ro = s.copy()
    ro.setflags(write=False)
    assert D.check_state(ro).flags.writeable


@pytest.mark.parametrize(
    "make,problem",
    [
        (_set(S_WM, 1 << 4), "S_WM.*outside the 32 dark squares"),  # a ghost square
        (_set(S_WK, 1 << 40), "S_WK.*outside"),
        (_set(S_BM, -1), "S_BM.*outside"),
        (_set(S_BK, -(2**63)), "S_BK.*outside"),
        (_set(S_BM, _bit("a1") | _bit("h8")), "two pieces on one square"),
        (
            _set(
                S_WM,
                sum(
                    _bit(q)
                    for q in (
                        "a1",
                        "c1",
                        "e1",
                        "g1",
                        "b2",
                        "d2",
                        "f2",
                        "h2",
                        "a3",
                        "c3",
                        "e3",
                        "g3",
                        "b4",
                    )
                ),
            ),
            "more than 12 White",
        ),
        (_set(S_BK, _bit("d4"), lambda: D.from_fen("W:Wa1:B1-12")), "more than 12 Black"),
        (
            _set(S_WM, _bit("c3") | _bit("b8"), lambda: D.from_fen("W:Wc3:Bf6")),
            "White man on row 8",
        ),
        (
            _set(S_BM, _bit("f6") | _bit("c1"), lambda: D.from_fen("W:Wc3:Bf6")),
            "Black man on row 1",
        ),
        (_set(S_SIDE, 2), "side to move"),
        (_set(S_SIDE, -1), "side to move"),
        (_set(S_RULES, 32), "S_RULES"),
        (_set(S_RULES, -1), "S_RULES"),
        (_set(S_PLY, -1), "S_PLY"),
        (_set(S_PLY, 2**40), "S_PLY"),
        (_set(S_KINGS_ONLY, -3), "S_KINGS_ONLY"),
        (_set(S_MATERIAL, 2**62), "S_MATERIAL"),
        (_set(S_LONG_DIAG, -2), "S_LONG_DIAG"),
        (_set(S_HIST_N, 0), "S_HIST_N"),
        (_set(S_HIST_N, -(2**63)), "S_HIST_N"),
        (_set(S_HIST_N, 2), "history ring"),
        (_set(S_HASH, 12345), "hash"),
        (_set(S_LONG_DIAG, 3), "S_LONG_DIAG"),  # the G.2e balance does not hold at the start
        (_set(S_CAP_START, 9), "capture-chain fields set outside a chain"),
        (_set(S_CAP_JUMPED, 1), "capture-chain fields set outside a chain"),
        (_set(S_CAP_MAN, 1), "capture-chain fields set outside a chain"),
        (_set(S_CAP_SQ, 99, _mid_chain), "capture square"),
        (_set(S_CAP_SQ, -7, _mid_chain), "capture square"),
        (_set(S_CAP_SQ, 2**62, _mid_chain), "capture square"),
        (_set(S_CAP_SQ, 4, _mid_chain), "capture square"),  # a ghost square
        (
            _set(S_CAP_SQ, int(SQ32_TO_GHOST[D.parse_square("a1")]), _mid_chain),
            "capture square",
        ),  # empty
        (_set(S_CAP_START, 77, _mid_chain), "chain start"),
        (_set(S_CAP_START, int(SQ32_TO_GHOST[D.parse_square("h2")]), _mid_chain), "chain start"),
        (_set(S_CAP_JUMPED, 0, _mid_chain), "jumped pieces"),
        (_set(S_CAP_JUMPED, -1, _mid_chain), "jumped pieces"),
        (_set(S_CAP_JUMPED, _bit("h2"), _mid_chain), "jumped pieces"),  # White's own man
        (_set(S_CAP_MAN, 2, _mid_chain), "S_CAP_MAN"),
        (_set(S_CAP_MAN, 0, _mid_chain), "S_CAP_MAN"),  # a man cannot have begun as a king
        (_set(S_CAP_JUMPED, _bit("d4") | _bit("f6"), _mid_chain), "cannot go on"),
    ],
)
def test_check_state_names_each_bad_content(make, problem):
    """Every field of the position vector is checked (game.state_error), before any kernel."""
    s = make()
    with pytest.raises(ValueError, match=problem):
        D.check_state(s)
    for fn in (D.legal_actions, D.game_status, D.action_mask):  # every entry point refuses it
        with pytest.raises(ValueError, match=problem):
            fn(s)


def test_check_state_catches_bitboards_edited_without_the_hash():
    s = D.initial_state().copy()
    s[S_WM] &= ~_bit("a3")  # a man removed by hand: the hash still has it
    with pytest.raises(ValueError, match="hash"):
        D.check_state(s)


def test_positions_of_play_and_chains_pass_the_check():
    s = _mid_chain()
    assert D.check_state(s) is not None and s[S_CAP_SQ] >= 0
    rng = np.random.default_rng(5)
    states = []
    for _ in range(10):
        t = D.initial_state()
        for _ in range(int(rng.integers(0, 100))):
            acts = D.legal_actions(t)
            if not acts:
                break
            t = D.apply_action(t, acts[int(rng.integers(len(acts)))])
            states.append(t)
    assert np.array_equal(D.check_batch(np.stack(states)), np.stack(states))


def test_check_batch_names_the_bad_game():
    b = np.stack([D.initial_state()] * 5)
    b[3, S_SIDE] = 7
    with pytest.raises(ValueError, match="game 3: side to move"):
        D.check_batch(b)
    with pytest.raises(ValueError, match=r"shape \(B, 80\)"):
        D.check_batch(D.initial_state())
    with pytest.raises(ValueError, match=r"shape \(B, 80\)"):
        D.check_batch(np.zeros((2, 79), np.int64))
    with pytest.raises(TypeError, match="int64"):
        D.check_batch(b.astype(np.float64))
    with pytest.raises(TypeError):
        D.check_batch(None)
    assert D.check_batch(np.zeros((0, 80), np.int64)).shape == (0, 80)


@pytest.mark.parametrize(
    "action,exc",
    [
        (True, TypeError),
        (np.bool_(False), TypeError),
        (3.0, TypeError),
        (np.float32(2), TypeError),
        (None, TypeError),
        ("5", TypeError),
        (np.array([5]), TypeError),
        (-1, ValueError),
        (1024, ValueError),
        (2**70, ValueError),
        (np.int64(-(2**63)), ValueError),
    ],
)
def test_check_action_types_and_range(action, exc):
    with pytest.raises(exc, match="action"):
        D.check_action(action)
    with pytest.raises(exc, match="action"):
        D.apply_action(D.initial_state(), action)
    with pytest.raises(exc, match="action"):
        D.action_to_str(action)


def test_check_action_accepts_numpy_integers():
    a = D.str_to_action("c3-d4")
    for x in (a, np.int64(a), np.int32(a), np.uint16(a)):
        assert D.check_action(x) == a and isinstance(D.check_action(x), int)
    assert np.array_equal(
        D.apply_action(D.initial_state(), np.int16(a)), D.apply(D.initial_state(), "c3-d4")
    )


def test_api_entry_points_refuse_wrong_types_and_values():
    s = D.initial_state()
    for bad in (None, 3, 2.5, ["c3-d4"]):
        with pytest.raises(TypeError, match="move must be a string"):
            D.apply(s, bad)
        with pytest.raises(TypeError, match="move must be a string"):
            D.move_to_actions(s, bad)
        with pytest.raises(TypeError, match="square must be a string"):
            D.parse_square(bad)
    with pytest.raises(TypeError):
        D.legal_moves(None)
    with pytest.raises(TypeError, match="depth"):
        D.perft(s, 2.0)
    with pytest.raises(TypeError, match="depth"):
        D.perft(s, True)
    with pytest.raises(ValueError, match="depth"):
        D.perft(s, D.MAX_PERFT_DEPTH + 1)
    with pytest.raises(ValueError, match="threads"):
        D.perft(s, 2, threads=0)
    with pytest.raises(TypeError, match="threads"):
        D.perft(s, 2, threads="2")
    with pytest.raises(ValueError, match="out of range"):
        D.square_name(32)
    with pytest.raises(ValueError, match="out of range"):
        D.square_name(-1)  # not SQ32_NAMES[-1]
    with pytest.raises(TypeError):
        D.square_name(1.0)
    with pytest.raises(TypeError, match="rules"):
        D.from_fen("W:Wc3:Bf6", rules=True)
    with pytest.raises(TypeError, match="rules"):
        D.initial_state(rules=31.0)
    with pytest.raises(ValueError, match="rules"):
        D.initial_state(rules=-1)
    with pytest.raises(TypeError, match="max_moves"):
        D.check_max_moves(True)
    with pytest.raises(ValueError, match="max_moves"):
        D.check_max_moves(0)
    with pytest.raises(ValueError, match="middle of a capture"):
        D.legal_moves(_mid_chain())
    with pytest.raises(ValueError, match="middle of a capture"):
        D.perft(_mid_chain(), 2)


def test_one_move_formatter_and_move_rows():
    """format_move is the one formatter; move_to_str takes only a legal row of the position."""
    from boardgym.kernels.draughts.board import MAX_MOVES, ROW_LEN

    assert D.format_move([9, 13], False) == "c3-d4"
    assert D.format_move(np.array([9, 18, 27]), True) == "c3:e5:g7"
    with pytest.raises(ValueError, match="route"):
        D.format_move([9], False)
    with pytest.raises(ValueError, match="out of range"):
        D.format_move([9, 40], False)
    with pytest.raises(TypeError):
        D.format_move("c3d4", False)
    with pytest.raises(TypeError, match="capture"):
        D.format_move([9, 13], 1)
    s = D.from_fen("W:W22,28:B4,11,17,18")
    rows = np.zeros((MAX_MOVES, ROW_LEN), np.int64)
    n = G.gen_moves(s, rows)
    assert sorted(D.move_to_str(s, r) for r in rows[:n]) == D.legal_moves(s)
    forged = rows[0].copy()
    forged[5] = 3  # a landing square that is not the route
    with pytest.raises(ValueError, match="not a legal move"):
        D.move_to_str(s, forged)
    forged[3] = 99  # a hop count the kernel would index with
    with pytest.raises(ValueError, match="not a legal move"):
        D.move_to_str(s, forged)
    with pytest.raises(TypeError):
        D.move_to_str(s, rows[0].astype(float))
    # mid-chain: the rest of the chain, from where the piece stands
    t = _mid_chain()
    n = G.gen_moves(t, rows)
    assert [D.move_to_str(t, r) for r in rows[:n]] == ["e5:g7"]


def test_state_from_observation_checks_its_input():
    from boardgym.kernels.draughts.observe import (
        OBS_LEN,
        OBS_TO_MOVE,
        PLANE_CAPTURER,
        PLANE_JUMPED,
        PLANE_OPP_MEN,
        PLANE_OWN_MEN,
    )

    obs = np.zeros(OBS_LEN, np.float32)
    G.encode_obs(D.initial_state(), 0, 0, obs)
    assert np.array_equal(D.state_from_observation(obs)[:5], D.initial_state()[:5])
    assert np.array_equal(
        D.state_from_observation(obs.astype(np.float64))[:5], D.initial_state()[:5]
    )
    for bad in (None, "obs", 3):
        with pytest.raises(TypeError, match="observation"):
            D.state_from_observation(bad)
    with pytest.raises(TypeError, match="dtype bool"):
        D.state_from_observation(obs.astype(bool))
    with pytest.raises(ValueError, match="float32"):
        D.state_from_observation(obs[:10])
    with pytest.raises(ValueError, match="float32"):
        D.state_from_observation(obs.reshape(2, -1))
    nan = obs.copy()
    nan[5] = np.nan
    with pytest.raises(ValueError, match="0..1"):
        D.state_from_observation(nan)
    two = obs.copy()
    two[PLANE_OPP_MEN * 32 + 0] = 1.0  # an opponent man where an own man stands
    with pytest.raises(ValueError, match="two pieces"):
        D.state_from_observation(two)
    row8 = obs.copy()
    row8[PLANE_OWN_MEN * 32 + 0] = 0.0  # the a1 man moved to h8, where no opponent is left
    row8[PLANE_OWN_MEN * 32 + 31] = 1.0
    row8[PLANE_OPP_MEN * 32 + 31] = 0.0
    with pytest.raises(ValueError, match="row 8"):
        D.state_from_observation(row8)
    chain = obs.copy()
    chain[PLANE_CAPTURER * 32 + 0] = chain[PLANE_CAPTURER * 32 + 1] = 1.0
    chain[PLANE_JUMPED * 32 + 20] = 1.0
    with pytest.raises(ValueError, match="more than one piece on the capture-chain plane"):
        D.state_from_observation(chain)
    lone = obs.copy()
    lone[PLANE_JUMPED * 32 + 20] = 1.0
    with pytest.raises(ValueError, match="capturing piece"):
        D.state_from_observation(lone)
    assert D.state_from_observation(obs)[S_SIDE] == 0 and obs[OBS_TO_MOVE] == 1.0
    with pytest.raises(ValueError, match="rules"):
        D.state_from_observation(obs, rules=99)


@pytest.mark.parametrize("fen", ["W:W٢٢:B1", "W:W𝟐𝟐:B1", "W:W21-２２:B1", "W:W22:B1-١٢"])
def test_fen_squares_are_ascii_digits(fen):
    """Unicode digits that int() reads (Arabic-Indic, full-width, mathematical) are not PDN."""
    with pytest.raises(ValueError):
        D.from_fen(fen)
