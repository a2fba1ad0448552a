"""Named regressions for the crashes the issue lists, each run in a fresh interpreter
(tests/helpers/isolated_run.run_snippet) so that a segfault, abort or hang fails the test
instead of killing pytest.

- ``position_id`` on a state holding large or random integers never returned (it looped over
  the counts);
- ``parse_play`` / ``play_to_str`` on a state of the wrong length aborted the interpreter
  (double free, segfault: the kernels wrote out of bounds);
- 2-D or ``None`` states surfaced as Numba ``TypingError`` / ``IndexError``;
- a state with 99 or -5 checkers on a point was accepted and returned.

Each must now raise ValueError or TypeError with a message that names the problem.
"""
import pytest

from fuzz_contract import BANNED_WORDS
from isolated_run import run_snippets

BG = """
import numpy as np
import boardgym  # noqa: F401
from boardgym.envs import backgammon_notation as bg
from boardgym.envs import draughts as dr
s0 = bg.initial_state()
d0 = dr.initial_state()
# warm-up: compile what the calls use, outside the call's time limit
bg.position_id(s0); bg.board_from_state(s0); bg.match_id(s0)
after = bg.parse_play(s0, 3, 1, "8/5 6/5"); bg.play_to_str(s0, 3, 1, after)
dr.to_fen(d0); dr.legal_moves(d0); dr.action_mask(d0)
"""


def problem(outcome):
    """"" if the call raised ValueError/TypeError with a message naming the problem, else why not."""
    if outcome.kind != "raised":
        return f"expected a ValueError/TypeError; {str(outcome)[:1500]}"
    if outcome.exc_type not in ("builtins.ValueError", "builtins.TypeError"):
        return str(outcome)[:600]
    if not outcome.message.strip():
        return f"{outcome.call!r} raised with an empty message"
    if any(w in outcome.message.lower() for w in BANNED_WORDS):
        return f"Numba internals in the message: {str(outcome)[:600]}"
    return ""


def assert_all_rejected(setup, calls, **kwargs):
    """Run the calls in one fresh interpreter; each must be rejected cleanly."""
    bad = [p for p in map(problem, run_snippets(setup, calls, **kwargs)) if p]
    assert not bad, f"{len(bad)} of {len(calls)} calls were not rejected cleanly:\n" + "\n".join(bad)


def test_position_id_of_huge_or_random_counts_does_not_hang():
    calls = [f"s = s0.copy(); s[0] = {v}; result = bg.position_id(s)"
             for v in ("2**62", "2**63 - 1", "-(2**62)", "99")]
    calls.append("s = np.random.default_rng(5).integers(-2**62, 2**62, size=s0.shape[0]); "
                 "result = bg.position_id(s)")
    assert_all_rejected(BG, calls, call_limit=10)


def test_parse_play_of_a_state_of_the_wrong_length():
    assert_all_rejected(BG, [f"result = bg.parse_play(s0[:{n}].copy(), 3, 1, '8/5 6/5')"
                             for n in (10, 30, 60, 64)] +
                        ["result = bg.parse_play(np.append(s0, [0, 0]), 3, 1, '8/5 6/5')"])


def test_play_to_str_of_a_state_of_the_wrong_length():
    assert_all_rejected(BG, [f"result = bg.play_to_str(s0[:{n}].copy(), 3, 1, [(8, 5), (6, 5)])"
                             for n in (10, 24, 60, 64)] +
                        ["result = bg.play_to_str(np.append(s0, [0, 0]), 3, 1, [(8, 5), (6, 5)])"])


def test_two_dimensional_or_none_states():
    assert_all_rejected(BG, [f"result = {c}" for c in (
        "bg.parse_play(np.stack([s0, s0]), 3, 1, '8/5 6/5')",
        "bg.play_to_str(np.stack([s0, s0]), 3, 1, [(8, 5), (6, 5)])",
        "bg.parse_play(None, 3, 1, '8/5 6/5')",
        "bg.play_to_str(None, 3, 1, [(8, 5), (6, 5)])",
        "bg.parse_play(np.int64(0), 3, 1, '8/5 6/5')",
        "bg.position_id(np.stack([s0, s0]))",
        "bg.position_id(None)",
        "bg.board_from_state(None)",
        "bg.board_from_state(np.stack([s0, s0]))",
        "bg.match_id(None)",
        "bg.match_id(np.stack([s0, s0]))",
        "dr.to_fen(None)",
        "dr.legal_moves(np.stack([d0, d0]))",
        "dr.action_mask(None)",
        "dr.apply_action(np.stack([d0, d0]), 0)",
    )])


@pytest.mark.parametrize("count", [99, -5])
def test_a_point_with_99_or_minus_5_checkers_is_rejected(count):
    """Point 6 of the player on roll holds 99 (or -5) checkers: not a position."""
    setup = BG + f"\ns = s0.copy(); s[5] = {count}\nb = bg.board_from_state(s0); b[1][5] = {count}\n"
    assert_all_rejected(setup, [
        "result = bg.position_id(s)",
        "result = bg.board_from_state(s)",
        "result = bg.match_id(s)",
        "result = bg.parse_play(s, 3, 1, '24/21 13/12')",
        "result = bg.play_to_str(s, 3, 1, [(24, 21), (13, 12)])",
        "result = bg.state_from_board(b)",
    ])
