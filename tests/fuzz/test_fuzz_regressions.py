"""Named regressions for the crashes the issue lists, each run in a fresh interpreter
(tests/helpers/isolated_run.run_snippet) so that a segfault, abort or hang fails the test
instead of killing pytest.

- ``position_id`` on a state holding large or random integers never returned (it looped over
  the counts);
- ``parse_play`` / ``play_to_str`` on a state of the wrong length aborted the interpreter
  (double free, segfault: the kernels wrote out of bounds);
- 2-D or ``None`` states surfaced as Numba ``TypingError`` / ``IndexError``;
- a state with 99 or -5 checkers on a point was accepted and returned.

Each must now raise ValueError or TypeError with a message that names the problem. The shared
layers' findings follow: seeds (``np.int64(5)`` refused by Gymnasium's seeding, ``-1`` or ``3.5``
accepted by the batched cores), ``random_actions`` buffers (out-of-bounds writes), game indices,
snapshot contents, ``step(float('inf'))``, RandomAgent's mask, and ``best_play`` after a lost
roll of the opponent.
"""

import numpy as np
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
    """ "" if the call raised ValueError/TypeError with a message naming the problem, else why
    not."""
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
    assert not bad, f"{len(bad)} of {len(calls)} calls were not rejected cleanly:\n" + "\n".join(
        bad
    )


def test_position_id_of_huge_or_random_counts_does_not_hang():
    calls = [
        f"s = s0.copy(); s[0] = {v}; result = bg.position_id(s)"
        for v in ("2**62", "2**63 - 1", "-(2**62)", "99")
    ]
    calls.append(
        "s = np.random.default_rng(5).integers(-2**62, 2**62, size=s0.shape[0]); "
        "result = bg.position_id(s)"
    )
    assert_all_rejected(BG, calls, call_limit=10)


def test_parse_play_of_a_state_of_the_wrong_length():
    assert_all_rejected(
        BG,
        [f"result = bg.parse_play(s0[:{n}].copy(), 3, 1, '8/5 6/5')" for n in (10, 30, 60, 64)]
        + ["result = bg.parse_play(np.append(s0, [0, 0]), 3, 1, '8/5 6/5')"],
    )


def test_play_to_str_of_a_state_of_the_wrong_length():
    assert_all_rejected(
        BG,
        [
            f"result = bg.play_to_str(s0[:{n}].copy(), 3, 1, [(8, 5), (6, 5)])"
            for n in (10, 24, 60, 64)
        ]
        + ["result = bg.play_to_str(np.append(s0, [0, 0]), 3, 1, [(8, 5), (6, 5)])"],
    )


def test_two_dimensional_or_none_states():
    assert_all_rejected(
        BG,
        [
            f"result = {c}"
            for c in (
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
            )
        ],
    )


@pytest.mark.parametrize("count", [99, -5])
def test_a_point_with_99_or_minus_5_checkers_is_rejected(count):
    """Point 6 of the player on roll holds 99 (or -5) checkers: not a position."""
    setup = (
        BG + f"\ns = s0.copy(); s[5] = {count}\nb = bg.board_from_state(s0); b[1][5] = {count}\n"
    )
    assert_all_rejected(
        setup,
        [
            "result = bg.position_id(s)",
            "result = bg.board_from_state(s)",
            "result = bg.match_id(s)",
            "result = bg.parse_play(s, 3, 1, '24/21 13/12')",
            "result = bg.play_to_str(s, 3, 1, [(24, 21), (13, 12)])",
            "result = bg.state_from_board(b)",
        ],
    )


# ------------------------------------------------------------------ the shared layers' findings
# Seeds, the batched cores' array entry points, AEC actions and RandomAgent's mask: every call
# runs in one fresh interpreter (random_actions used to write out of bounds), shared by the
# tests below through a module fixture.

SHARED = """
import numpy as np
import boardgym  # noqa: F401
from boardgym.envs import backgammon_v0, batch, russian_draughts_v0, single_agent, vector
from boardgym.agents.random_agent import RandomAgent
from boardgym.kernels import rng as krng
aec = {"draughts": russian_draughts_v0.raw_env(), "backgammon": backgammon_v0.raw_env()}
single = {"draughts": single_agent.RussianDraughtsEnv(), "backgammon": single_agent.BackgammonEnv()}
vec = {
    "draughts": vector.DraughtsVectorEnv(num_envs=2),
    "backgammon": vector.BackgammonVectorEnv(num_envs=2),
}
core = {"draughts": batch.DraughtsBatch(3), "backgammon": batch.BackgammonBatch(3)}
for c in core.values():
    c.reset(seed=1); c.random_actions()  # warm-up: the kernel's one specialisation
n_specialisations = len(krng.batch_random_actions_serial.signatures)
"""
GAMES = ("draughts", "backgammon")
BAD_SEEDS = ("-1", "-(2**62)", "2**64", "3.5", "'x'", "[1, 2]", "True", "float('nan')")
GOOD_SEEDS = ("np.int64(5)", "np.uint64(7)", "0", "2**64 - 1", "None")


def _shared_calls():
    """{test name: ([calls that must be rejected], [calls that must return])}."""
    c = {}
    c["seeds"] = (
        [f"aec[{g!r}].reset(seed={s})" for g in GAMES for s in BAD_SEEDS]
        + [f"single[{g!r}].reset(seed={s})" for g in GAMES for s in BAD_SEEDS]
        + [f"core[{g!r}].reset(seed={s})" for g in GAMES for s in BAD_SEEDS]
        + [
            f"vec[{g!r}].reset(seed={s})"
            for g in GAMES
            for s in [s for s in BAD_SEEDS if s != "[1, 2]"]  # a list: one seed per game
            + ["[-1, 2]", "[3, -1]", "[None, 3]", "np.array([[1, 2]])", "[2.5]", "[2**64]"]
        ],
        [
            f"{env}[{g!r}].reset(seed={s})"
            for env in ("aec", "single", "core", "vec")
            for g in GAMES
            for s in GOOD_SEEDS
        ]
        + [
            f"vec[{g!r}].reset(seed={s})"
            for g in GAMES
            for s in ("[4, 5]", "[None, None]", "np.array([4, 5])", "[]")
        ],
    )
    c["random_actions"] = (
        [
            f"core[{g!r}].random_actions({r}, {o})"
            for g in GAMES
            for r, o in (
                ("5", "5"),
                ("5", "None"),
                ("None", "np.zeros(2, np.float32)"),
                ("np.zeros(100, np.int64)", "np.zeros(3, np.float64)"),
                ("np.array([9, -2630], np.int16)", "np.array([1, 2], np.int16)"),
                ("np.zeros(0, np.int16)", "np.zeros(0, np.int16)"),
                ("np.zeros((3, 2), np.int64)", "None"),
                ("np.zeros(3, np.int32)", "None"),
                ("None", "np.zeros((1, 3), np.int64)"),
                ("np.zeros(3, '>i8')", "None"),
                ("None", "np.zeros(3, np.uint64)"),
                ("[0, 0, 0]", "None"),
                ("None", "np.zeros(2, np.int64)"),
                (f"core[{g!r}].rngs", f"core[{g!r}].rngs"),
            )
        ]
        + [f"r = np.zeros(3, np.int64); core[{g!r}].random_actions(r, r)" for g in GAMES],
        [
            f"o = np.zeros(6, np.int64)[::2]; r = np.zeros(9, np.int64)[::3]; "
            f"assert core[{g!r}].random_actions(r, o) is o and (o >= -1).all() and r.any()"
            for g in GAMES
        ]
        + [
            "assert len(krng.batch_random_actions_serial.signatures) == n_specialisations, "
            "krng.batch_random_actions_serial.signatures"
        ],
    )
    c["step_subset"] = (
        [
            f"core[{g!r}].step_subset({games}, {acts})"
            for g in GAMES
            for games, acts in (
                ("[2**62]", "[0]"),
                ("0", "5"),
                ("np.array([[2**100, 'x'], [None, None]], dtype=object)", "[0]"),
                ("[3]", "[0]"),
                ("[-1]", "[0]"),
                ("[0, 0]", "[0, 0]"),
                ("[0.5]", "[0]"),
                ("[True]", "[0]"),
                ("np.array([2**63 + 1], np.uint64)", "[0]"),
                ("None", "None"),
            )
        ],
        [f"core[{g!r}].step_subset([], [])" for g in GAMES],
    )
    c["set_state"] = (
        [
            f"s = core[{g!r}].get_state(); s[{k!r}][0] = {v}; core[{g!r}].set_state(s)"
            for g in GAMES
            for k, v in (("seats", 5), ("current", -1), ("seats", 2**62))
        ]
        + [
            "s = core['backgammon'].get_state(); s['states'][0, 5] = 99; "
            "core['backgammon'].set_state(s)",
            "s = core['backgammon'].get_state(); s['states'][1, 0] = -5; "
            "core['backgammon'].set_state(s)",
        ],
        [f"core[{g!r}].set_state(core[{g!r}].get_state())" for g in GAMES],
    )
    c["aec_step"] = (
        [
            f"aec[{g!r}].reset(seed=1); aec[{g!r}].step({a})"
            for g in GAMES
            for a in (
                "float('inf')",
                "float('-inf')",
                "float('nan')",
                "2**64",
                "-1",
                "3.5",
                "'3'",
                "None",
                "[1]",
                "np.array([1, 2])",
                "np.uint64(2**63)",
            )
        ],
        [
            f"aec[{g!r}].reset(seed=1); "
            f"aec[{g!r}].step(int(np.flatnonzero(aec[{g!r}].legal_mask())[0]))"
            for g in GAMES
        ],
    )
    c["random_agent_mask"] = (
        [
            f"RandomAgent(0).act(None, {m})"
            for m in (
                "np.ones((2, 150), bool)",
                "np.ones((1024, 2), bool)",
                "np.ones(1023, np.int64)",
                "[Ellipsis]",
                "(2, 2)",
                "[(None, 10)]",
                "None",
                "np.ones(150, np.float32)",
                "'x'",
                "np.zeros(150, np.int8)",
                "np.ones((), np.int8)",
            )
        ],
        [
            f"RandomAgent(0).act(None, np.ones({n}, {t}))"
            for n in (1024, 150, 154)
            for t in ("np.int8", "bool")
        ],
    )
    return c


@pytest.fixture(scope="module")
def shared_outcomes():
    calls = _shared_calls()
    flat = [
        (name, i, call) for name, (bad, good) in calls.items() for i, call in enumerate(bad + good)
    ]
    outcomes = run_snippets(SHARED, [call for _, _, call in flat], call_limit=30)
    out = {name: ([], []) for name in calls}
    for (name, i, _), o in zip(flat, outcomes):
        out[name][0 if i < len(calls[name][0]) else 1].append(o)
    return out


def _assert_shared(shared_outcomes, name):
    bad, good = shared_outcomes[name]
    problems = [p for p in map(problem, bad) if p]
    problems += [f"expected it to return: {str(o)[:600]}" for o in good if o.kind != "returned"]
    assert not problems, f"{len(problems)} calls misbehaved:\n" + "\n".join(problems)


def test_seeds_are_integers_0_to_2_64(shared_outcomes):
    """np.int64 seeds are seeds; negative, huge, float, str, list, bool seeds raise TypeError /
    ValueError (not gymnasium.error.Error, not accepted) in every env and core."""
    _assert_shared(shared_outcomes, "seeds")


def test_random_actions_checks_its_buffers(shared_outcomes):
    """Short, wrong-dtype, 2-D, shared or non-array rngs/out are refused before the kernel (they
    wrote out of bounds, or compiled a new specialisation); strided views are filled."""
    _assert_shared(shared_outcomes, "random_actions")


def test_step_subset_checks_its_game_indices(shared_outcomes):
    _assert_shared(shared_outcomes, "step_subset")


def test_set_state_checks_contents(shared_outcomes):
    _assert_shared(shared_outcomes, "set_state")


def test_aec_step_of_infinite_or_odd_actions(shared_outcomes):
    """step(float('inf')) raised OverflowError."""
    _assert_shared(shared_outcomes, "aec_step")


def test_random_agent_checks_the_mask(shared_outcomes):
    """A mask of the wrong shape, or not an array, was accepted (an index into the flattened
    mask came back)."""
    _assert_shared(shared_outcomes, "random_agent_mask")


def test_best_play_after_the_opponents_lost_roll():
    """After the agent's play the opponent's roll may be lost (E.3, E.7): the agent is on roll
    again, and best_play used to play that next turn too and raise RuntimeError."""
    from boardgym.agents.arena.engine_query import best_play
    from boardgym.agents.random_agent import RandomAgent
    from boardgym.envs import backgammon_notation as bg

    class Highest:
        """The highest legal action: moves the back checkers first."""

        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[-1])

    # the mover has made its six home points, the opponent has a checker on the bar: after
    # 8/6 8/7 (the highest actions of 2-1) every roll of the opponent is lost
    me = [2, 2, 2, 2, 2, 2, 0, 3] + [0] * 17
    opp = [0] * 25
    opp[5], opp[7], opp[12], opp[11], opp[24] = 5, 3, 5, 1, 1
    pid = bg.position_id(bg.state_from_board([opp, me]))
    plays = bg.legal_plays(pid, 2, 1)
    assert len(plays) > 1
    after = best_play(Highest(), pid, 2, 1)
    me_after = [2, 2, 2, 2, 2, 3, 1, 1] + [0] * 17
    assert after == bg.position_id(bg.state_from_board([opp, me_after]))
    for seed in range(200):  # the position: a lost roll in about one game in seven
        assert best_play(RandomAgent(seed), "hbOEoCM2PqFgBA", 1, 1) in bg.legal_plays(
            "hbOEoCM2PqFgBA", 1, 1
        )
