"""End of game: G.1 and each draw rule G.2a-G.2e (kernels/draughts/outcome.py documents the
choices)."""

import numpy as np
import pytest

from boardgym.envs.draughts import apply, from_fen, game_status, initial_state
from boardgym.kernels.draughts.board import (
    S_HASH,
    S_HIST_N,
    S_KINGS_ONLY,
    S_LONG_DIAG,
    S_MATERIAL,
)
from boardgym.kernels.draughts.outcome import (
    BLACK_WON,
    DRAW_BALANCE,
    DRAW_KINGS_ONLY,
    DRAW_LONG_DIAGONAL,
    DRAW_REPETITION,
    DRAW_THREE_KINGS,
    ONGOING,
    RULE_BALANCE,
    RULE_KINGS_ONLY,
    RULE_LONG_DIAGONAL,
    RULE_REPETITION,
    RULE_THREE_KINGS,
    RULES_ALL,
    WHITE_WON,
    long_diag_balance,
)


def play(state, moves):
    """Apply moves in turn; return the list of states after each."""
    out = []
    for m in moves:
        state = apply(state, m)
        out.append(state)
    return out


def shuffle(a, b, c, d, n):
    """n plies of the four-move cycle White a-b, Black c-d, White b-a, Black d-c."""
    cycle = [f"{a}-{b}", f"{c}-{d}", f"{b}-{a}", f"{d}-{c}"]
    return [cycle[i % 4] for i in range(n)]


def test_g1_no_pieces_or_blocked_loses():
    """G.1: the side to move with no pieces, or with every piece blocked, loses."""
    assert game_status("B:Wc3:B") == WHITE_WON
    assert game_status("W:W:Bc5") == BLACK_WON
    assert game_status("W:Wa1:Bb2,c3") == BLACK_WON  # a1 blocked, b2 has no square behind
    assert game_status(initial_state()) == ONGOING
    assert game_status("W:Wa1:Bb2") == ONGOING  # capture? no (c3 empty -> a1:c3 is legal)


def test_g1_win_by_capturing_the_last_piece():
    """G.1: capturing the last enemy piece wins on the spot."""
    assert game_status(apply("W:Wc3:Bd4", "c3:e5")) == WHITE_WON


def test_g2a_threefold_repetition():
    """G.2a: the third occurrence of a position with the same side to move is a draw."""
    fen = "W:WKg1:BKb8"  # edge squares: no capture is ever possible in the shuffle
    states = play(from_fen(fen, rules=RULE_REPETITION), shuffle("g1", "h2", "b8", "a7", 8))
    assert [game_status(s) for s in states[:7]] == [ONGOING] * 7  # start position seen twice
    assert game_status(states[7]) == DRAW_REPETITION  # third time
    off = play(
        from_fen(fen, rules=RULES_ALL & ~RULE_REPETITION), shuffle("g1", "h2", "b8", "a7", 8)
    )
    assert game_status(off[-1]) == ONGOING
    assert states[3][S_HASH] == from_fen(fen)[S_HASH]


def test_g2a_history_restarts_on_irreversible_move():
    """G.2a: the history restarts at a man move (nothing before it can recur) and counts on."""
    s = from_fen("W:WKg1,c1:BKb8", rules=RULE_REPETITION)
    s = play(s, shuffle("g1", "h2", "b8", "a7", 4))[-1]
    s = apply(s, "c1-d2")
    assert s[S_HIST_N] == 1
    cycle = ["b8-a7", "g1-h2", "a7-b8", "h2-g1"]
    s = play(s, cycle)[-1]
    assert game_status(s) == ONGOING and s[S_HIST_N] == 5  # second occurrence
    s = play(s, cycle)[-1]
    assert game_status(s) == DRAW_REPETITION


def test_g2b_three_kings_against_lone_king():
    """G.2b: three kings v a lone king, not captured by the 15th move (30 plies): draw."""
    fen = "W:WKc1,Ke1,Kg1:BKa7"  # a7/b8 cannot be captured: the shuffle stays capture-free
    states = play(from_fen(fen, rules=RULE_THREE_KINGS), shuffle("g1", "h2", "a7", "b8", 30))
    assert [game_status(s) for s in states[:29]] == [ONGOING] * 29
    assert states[29][S_MATERIAL] == 30
    assert game_status(states[29]) == DRAW_THREE_KINGS
    assert (
        game_status(
            from_fen(fen, rules=RULES_ALL & ~RULE_THREE_KINGS & ~RULE_REPETITION & ~RULE_KINGS_ONLY)
        )
        == ONGOING
    )
    # Not the balance (two kings only): no G.2b draw however long.
    s = from_fen("W:WKc1,Ke1:BKa7", rules=RULE_THREE_KINGS)
    s[S_MATERIAL] = 100
    assert game_status(s) == ONGOING


def test_g2b_counter_restarts_on_capture():
    """G.2b: the count starts when the balance arises (the capture that makes it)."""
    s = from_fen("W:WKc1,Ke1,Kg1,a3:BKa7,b4", rules=RULE_THREE_KINGS)
    s[S_MATERIAL] = 50
    s = apply(s, "a3:c5")
    assert s[S_MATERIAL] == 0 and game_status(s) == ONGOING


def test_g2c_kings_only_fifteen_moves():
    """G.2c: 15 moves (30 plies) of king moves only, no man move or capture: draw."""
    fen = "W:Wa1,c1,Ke1:Bf8,h8,Kd8"
    states = play(from_fen(fen, rules=RULE_KINGS_ONLY), shuffle("e1", "f2", "d8", "e7", 30))
    assert [game_status(s) for s in states[:29]] == [ONGOING] * 29
    assert game_status(states[29]) == DRAW_KINGS_ONLY
    assert states[9][S_KINGS_ONLY] == 10
    s = apply(states[9], "a1-b2")  # a man move resets the count
    assert s[S_KINGS_ONLY] == 0
    assert (
        game_status(
            play(
                from_fen(fen, rules=RULES_ALL & ~RULE_KINGS_ONLY & ~RULE_REPETITION),
                shuffle("e1", "f2", "d8", "e7", 30),
            )[-1]
        )
        == ONGOING
    )


def test_g2d_balance_unchanged_4_5_and_6_7_pieces():
    """G.2d: both sides with kings, no capture or crowning: 30 moves (4-5 pieces), 60 (6-7)."""
    fen4 = "W:Wa1,Ke1:Bh8,Kd8"
    states = play(from_fen(fen4, rules=RULE_BALANCE), shuffle("e1", "f2", "d8", "e7", 60))
    assert [game_status(s) for s in states[:59]] == [ONGOING] * 59
    assert game_status(states[59]) == DRAW_BALANCE
    # A man move does not change the balance: the count goes on.
    s = apply(states[19], "a1-b2")
    assert s[S_MATERIAL] == 21
    s6 = from_fen("W:Wa1,c1,Ke1:Bf8,h8,Kd8", rules=RULE_BALANCE)
    s6[S_MATERIAL] = 119
    assert game_status(s6) == ONGOING
    s6[S_MATERIAL] = 120
    assert game_status(s6) == DRAW_BALANCE
    s8 = from_fen("W:Wa1,c1,e3,Ke1:Bf8,h8,Kd8,b8", rules=RULE_BALANCE)  # 8 pieces: not covered
    s8[S_MATERIAL] = 500
    assert game_status(s8) == ONGOING
    s_nok = from_fen("W:Wa1,Ke1:Bh8,f8", rules=RULE_BALANCE)  # Black has no king
    s_nok[S_MATERIAL] = 500
    assert game_status(s_nok) == ONGOING


def test_g2e_lone_king_on_long_diagonal():
    """G.2e: 3K / 2K+M / K+2M v a lone king holding a1-h8, not won by the 5th move: draw."""
    fen = "W:WKc1,Ke1,Kg1:BKa1"
    s0 = from_fen(fen, rules=RULE_LONG_DIAGONAL)
    assert s0[S_LONG_DIAG] == 0
    states = play(s0, shuffle("g1", "h2", "a1", "h8", 10))
    assert [game_status(s) for s in states[:9]] == [ONGOING] * 9
    assert game_status(states[9]) == DRAW_LONG_DIAGONAL
    # Leaving the diagonal ends the balance; coming back restarts the count.
    s = from_fen("B:WKc1,Ke1,Kg1:BKd4", rules=RULE_LONG_DIAGONAL)
    assert apply(s, "d4-c5")[S_LONG_DIAG] == -1
    assert apply(s, "d4-e5")[S_LONG_DIAG] == 1
    assert long_diag_balance(*from_fen("W:WKc1,Ke1,g3:BKa1")[:4])  # 2K + M
    assert long_diag_balance(*from_fen("W:WKc1,e3,g3:BKa1")[:4])  # K + 2M
    assert long_diag_balance(*from_fen("W:WKh8:BKc7,Ka7,Kg7")[:4])  # White lone king
    assert not long_diag_balance(*from_fen("W:WKc1,Ke1,Kg1,a3:BKa1")[:4])  # 3K + M: not listed
    assert not long_diag_balance(*from_fen("W:WKc1,Ke1,Kg1:BKa3")[:4])  # off the diagonal


@pytest.mark.parametrize(
    "rule", [RULE_REPETITION, RULE_THREE_KINGS, RULE_KINGS_ONLY, RULE_BALANCE, RULE_LONG_DIAGONAL]
)
def test_g2_each_rule_switchable(rule):
    """G.2: every draw rule is an option; all on by default, each can be switched off alone."""
    assert from_fen("W:Wc3:Bf6")[13] == RULES_ALL
    s = from_fen("W:WKc1,Ke1,Kg1:BKa1", rules=RULES_ALL & ~rule)
    s[S_MATERIAL] = s[S_KINGS_ONLY] = 200
    s[S_LONG_DIAG] = 50
    code = game_status(s)
    assert code != ONGOING  # some other rule still applies
    assert (
        code
        != {
            RULE_REPETITION: DRAW_REPETITION,
            RULE_THREE_KINGS: DRAW_THREE_KINGS,
            RULE_KINGS_ONLY: DRAW_KINGS_ONLY,
            RULE_BALANCE: DRAW_BALANCE,
            RULE_LONG_DIAGONAL: DRAW_LONG_DIAGONAL,
        }[rule]
    )
    assert isinstance(np.int64(code), np.int64)


def test_g2a_history_window_is_bounded():
    """G.2a: the repetition history is a ring of HIST_LEN = 64 plies (documented window)."""
    from boardgym.kernels.draughts.board import HIST_LEN
    from boardgym.kernels.draughts.outcome import repetition_count

    assert HIST_LEN == 64
    s = from_fen("W:WKg1:BKb8", rules=0)  # no draw rule: play on past the repetitions
    states = play(s, shuffle("g1", "h2", "b8", "a7", 100))
    assert states[-1][S_HIST_N] == 101
    assert repetition_count(states[11]) == 4  # the start, after plies 0, 4, 8 and 12
    assert repetition_count(states[-1]) == HIST_LEN // 4  # only the last 64 plies are seen
    assert game_status(states[-1]) == ONGOING  # all draw rules switched off
