"""The validated boundary of the backgammon modules: every public function checks its input before a
kernel sees it (TypeError for a wrong type, ValueError for a wrong value, naming the problem).

The named regressions are inputs that used to hang or crash the interpreter; they run in a fresh
interpreter with a time limit, so a hang or a segfault fails the test instead of the runner.
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from boardgym.agents.backgammon.agents import GreedyAgent, TDAgent
from boardgym.envs import backgammon_match, backgammon_render, backgammon_v0
from boardgym.envs import backgammon_notation as bg
from boardgym.envs.batch import BackgammonBatch
from boardgym.kernels.backgammon import board as B

START_ID = "4HPwATDgc/ABMA"


def run_isolated(code, timeout=120):
    """Run code in a fresh interpreter; return its stdout (fails on a crash, hang or error)."""
    p = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout}\n{p.stderr[-3000:]}"
    return p.stdout


def start():
    return bg.initial_state()


# ----------------------------------------------------------------------------- named regressions


def test_position_id_of_huge_or_random_counts_raises_instead_of_hanging():
    out = run_isolated(
        """
        import numpy as np
        from boardgym.envs import backgammon_notation as bg
        s = bg.initial_state()
        s[0] = 2**62                      # looped over 2**62 times
        for state in (s, np.random.default_rng(0).integers(-2**63, 2**63 - 1, 66)):
            try:
                bg.position_id(state)
            except ValueError as e:
                print("ValueError", e)
    """,
        timeout=60,
    )
    assert out.count("ValueError") == 2 and "counts are 0..15" in out


def test_notation_on_a_state_of_the_wrong_length_raises_instead_of_crashing():
    out = run_isolated("""
        import numpy as np
        from boardgym.envs import backgammon_notation as bg
        for n in (10, 64, 65, 200):
            for call in (lambda s: bg.parse_play(s, 3, 1, "8/5 6/5"),
                         lambda s: bg.play_to_str(s, 3, 1, [(8, 5), (6, 5)]),
                         lambda s: bg.play_actions(s, 3, 1, "8/5 6/5")):
                try:
                    call(np.zeros(n, np.int64))
                except ValueError as e:
                    print("ValueError", e)
    """)
    assert out.count("ValueError") == 12 and "shape (66,)" in out


@pytest.mark.parametrize(
    "state, error",
    [
        (None, TypeError),
        ("4HPwATDgc/ABMA", TypeError),
        (np.zeros((2, 65), np.int64), ValueError),
        (np.zeros((65, 1), np.int64), ValueError),
        (np.zeros(65, np.float64), TypeError),
        (np.zeros(65, bool), TypeError),
        ([[1, 2], [3]], ValueError),
    ],
)
def test_2d_none_and_wrong_dtype_states_raise_clear_errors(state, error):
    for call in (
        bg.position_id,
        bg.board_from_state,
        bg.check_state,
        backgammon_render.render_text,
        lambda s: bg.parse_play(s, 3, 1, "8/5 6/5"),
        lambda s: bg.match_id(s),
        lambda s: GreedyAgent().act_state(s),
    ):
        with pytest.raises(error):
            call(state)


@pytest.mark.parametrize("count", [99, -5, 16])
def test_a_state_with_99_or_negative_checkers_on_a_point_is_rejected(count):
    s = start()
    s[B.ME + 5] = count  # the mover's 6 point
    B.refresh_masks(s)
    with pytest.raises(ValueError, match="point 6 is"):
        bg.check_state(s)
    with pytest.raises(ValueError, match="point 6 is"):
        bg.position_id(s)
    with pytest.raises(ValueError, match="point 6 is"):
        bg.play_to_str(s, 3, 1, "8/5 6/5")


# ----------------------------------------------------------------------------- check_state contents


def _bad(**changes):
    s = start()
    for k, v in changes.items():
        s[int(k[1:])] = v
    return s


@pytest.mark.parametrize(
    "change, message",
    [
        ({f"i{B.ME + 23}": 3}, "player on roll has 16 checkers"),  # 15 a side
        ({f"i{B.OPP}": 3}, "opponent has 16 checkers"),
        ({f"i{B.BAR_ME}": 16}, "bar of the player on roll is 16"),  # bar in range
        ({f"i{B.OFF_OPP}": -1}, "borne off by the opponent is -1"),  # off in range
        ({f"i{B.TURN}": 2}, "TURN"),
        ({f"i{B.DICE}": 5}, "5 dice of value 1"),  # 0..4 copies
        ({f"i{B.DICE}": 2, f"i{B.DICE + 1}": 1}, "not what is left of one roll"),
        (
            {f"i{B.DICE}": 1, f"i{B.DICE + 1}": 1, f"i{B.DICE + 2}": 1},
            "not what is left of one roll",
        ),
        ({f"i{B.CUBE_VALUE}": 3}, "cube value"),
        ({f"i{B.CUBE_VALUE}": 1 << 16}, "cube value"),
        ({f"i{B.CUBE_VALUE}": 0}, "cube value"),
        ({f"i{B.CUBE_OWNER}": 2}, "cube owner"),
        ({f"i{B.BB_OPP2}": 0}, "BB_OPP2"),  # occupancy words
    ],
)
def test_check_state_names_each_impossible_field(change, message):
    with pytest.raises(ValueError, match=message):
        bg.check_state(_bad(**change))


def test_check_state_shared_point_both_off_and_valid_states():
    s = start()
    s[B.ME + 23] -= 1  # a mover checker from its 24 ...
    s[B.OPP + 0] = 0  # ... and the opponent's two from its 24 (mover's point 1) ...
    s[B.OPP + 23] += 2
    s[B.ME + 0] = 1  # ... leave point 1 to the mover, point 24 shared
    B.refresh_masks(s)
    with pytest.raises(ValueError, match="both sides have checkers on point 24"):
        bg.check_state(s)
    done = np.zeros(B.STATE_LEN, np.int64)
    done[B.OFF_ME] = done[B.OFF_OPP] = 15
    done[B.CUBE_VALUE] = 1
    done[B.CUBE_LIMIT] = B.MAX_CUBE_VALUE
    with pytest.raises(ValueError, match="both sides have borne off"):
        bg.check_state(done)
    ok = [B.set_dice(start(), 6, 6), B.set_dice(start(), 5, 2), start()]
    ok[0][B.DICE + 5] = 1  # one six left of a double
    ok.append(np.array(start().tolist()))
    for s in ok:
        assert bg.check_state(s) is not None
    assert bg.check_state(ok[1]) is ok[1]  # a valid int64 array passes through unchanged
    assert bg.check_state(list(start())).dtype == np.int64
    with pytest.raises(ValueError, match=r"states\[1\]: TURN"):
        bg.check_batch(np.stack([start(), _bad(**{f"i{B.TURN}": -1})]))
    with pytest.raises(ValueError, match="shape"):
        bg.check_batch(start())


def test_dice_ids_play_text_and_sequences_are_checked():
    s = start()
    for d in (True, 1.0, "3", None, np.float32(2)):
        with pytest.raises(TypeError, match="die"):
            bg.check_dice(d, 3)
    with pytest.raises(ValueError, match="die"):
        bg.check_dice(np.int64(7), 3)
    assert bg.check_dice(np.int8(6), np.uint8(1)) == (6, 1)
    for pid in (None, 123, b"4HPwATDgc/ABMA"):
        with pytest.raises(TypeError, match="Position ID"):
            bg.position_from_id(pid)
    for mid in (None, 7):
        with pytest.raises(TypeError, match="Match ID"):
            bg.parse_match_id(mid)
    with pytest.raises(TypeError, match="play text"):
        bg.parse_play(s, 3, 1, 85)
    for bad in ([(8, 5, 1)], [("8", 5)], [(True, 5)], 5, None):
        with pytest.raises(TypeError):
            bg.play_to_str(s, 3, 1, bad)
    for bad in ([(26, 5)], [(8, -1)], [(0, 5)]):
        with pytest.raises(ValueError):
            bg.play_to_str(s, 3, 1, bad)
    with pytest.raises(ValueError, match="not reachable"):
        bg.play_to_str(s, 3, 1, s)
    assert bg.play_actions(s, 3, 1, "8/5 6/5") in ([7 * 6 + 2, 5 * 6 + 0], [5 * 6 + 0, 7 * 6 + 2])


def test_match_id_fields_are_checked():
    s = start()
    for kwargs, error in (
        ({"match_length": -1}, ValueError),
        ({"match_length": 1 << 15}, ValueError),
        ({"match_length": 2.0}, TypeError),
        ({"score": (1,)}, ValueError),
        ({"score": (3, 1), "match_length": 3}, ValueError),
        ({"score": "12"}, TypeError),
        ({"crawford": "yes"}, TypeError),
        ({"game_state": 5}, ValueError),
        ({"resign": 4}, ValueError),
        ({"turn": 2}, ValueError),
        ({"turn": 1.0}, TypeError),
        ({"dice": (7, 1)}, ValueError),
        ({"dice": (1.5, 2)}, TypeError),
        ({"dice": 31}, TypeError),
        ({"dice": (1, 2, 3)}, ValueError),
    ):
        with pytest.raises(error):
            bg.match_id(s, **kwargs)
    assert bg.match_id(s, dice=(0, 0)) == bg.match_id(s)


def test_board_and_options_are_checked():
    with pytest.raises(TypeError, match="turn"):
        bg.state_from_board([[0] * 25, [0] * 25], turn="1")
    with pytest.raises(ValueError, match="turn"):
        bg.state_from_board([[0] * 25, [0] * 25], turn=2)
    with pytest.raises(TypeError, match="board"):
        bg.state_from_board(None)
    with pytest.raises(TypeError, match="board"):
        bg.state_from_board([[0.5] * 25, [0] * 25])
    with pytest.raises(ValueError, match="0..15"):
        bg.state_from_board([[2**70] + [0] * 24, [0] * 25])
    with pytest.raises(TypeError, match="scoring"):
        bg.check_scoring(None)
    assert bg.check_max_turns(None) == 0 and bg.check_max_turns(np.int32(5)) == 5


def test_env_reset_options_and_batch_constructor_are_checked():
    env = backgammon_v0.raw_env()
    with pytest.raises(ValueError, match="max_turns"):
        backgammon_v0.raw_env(max_turns=2**64)
    for opts, error in (
        ({"dice": [True, 2]}, TypeError),
        ({"dice": [True, True]}, TypeError),
        ({"dice": [3.0, 1]}, TypeError),
        ({"dice": "31"}, TypeError),
        ({"dice": [3, 1, 2]}, ValueError),
        ({"dice": [0, 3]}, ValueError),
        ({"position_id": None}, TypeError),
        ({"position_id": "A" * 14}, ValueError),
    ):
        with pytest.raises(error):
            env.reset(seed=0, options=opts)
    for kwargs, error in (
        ({"scoring": 1}, TypeError),
        ({"scoring": "triple"}, ValueError),
        ({"max_turns": 2.5}, TypeError),
        ({"max_turns": 0}, ValueError),
        ({"max_turns": True}, TypeError),
        ({"max_turns": 2**64}, ValueError),
        ({"max_turns": float("inf")}, TypeError),
    ):
        with pytest.raises(error):
            BackgammonBatch(2, **kwargs)


def test_batch_snapshot_with_impossible_positions_or_masks_is_refused():
    core = BackgammonBatch(4, opponent="random")
    core.reset(seed=3)
    for change, message in (
        (
            lambda d: d["states"].__setitem__((1, B.ME + 5), 99),
            r"states\[1\]: checkers of the player",
        ),
        (lambda d: d["states"].__setitem__((2, B.BB_ME), 0), r"states\[2\]: occupancy word BB_ME"),
        (lambda d: d["current"].__setitem__(0, 1 - d["current"][0]), "'current' of game 0"),
        (lambda d: d["masks"].__setitem__((3, slice(None)), 0), "mask of game 3"),
    ):
        snap = core.get_state()
        change(snap)
        with pytest.raises(ValueError, match=message):
            core.set_state(snap)
    after = core.get_state()
    snap = core.get_state()
    core.set_state(snap)  # an intact snapshot is accepted
    assert all(np.array_equal(after[k], core.get_state()[k]) for k in core._state_fields)


def test_agents_and_match_records_check_their_inputs():
    td = TDAgent(hidden=4)
    with pytest.raises(TypeError, match="die"):
        td.best_play(START_ID, True, 3)
    with pytest.raises(ValueError, match="no dice"):
        td.act_state(start())
    with pytest.raises(ValueError, match="shape"):
        td.choose(np.zeros((3, 64), np.int64))
    with pytest.raises(ValueError, match="no afterstate"):
        td.scores(np.zeros((0, 66), np.int64))
    with pytest.raises(TypeError, match="action_mask"):
        td.act(np.zeros(207, np.float32), None)
    with pytest.raises(ValueError, match="action_mask"):
        td.act(np.zeros(207, np.float32), np.ones(7, np.int8))
    with pytest.raises(TypeError, match="observation"):
        td.act("obs", np.ones(150, np.int8))
    with pytest.raises(TypeError, match="match text"):
        backgammon_match.read_match_text(None)
    with pytest.raises(ValueError, match="from is 1..25"):
        backgammon_match.read_match_text("  1) 31: 99/96 6/5\n")
    with pytest.raises(ValueError, match="checkers of the player"):
        backgammon_match.read_match_text("", start_state=_bad(**{f"i{B.ME}": -1}))
    with pytest.raises(ValueError, match="turn 0"):
        backgammon_match.game_to_match_text([{"player": 3}], None)
    with pytest.raises(TypeError, match="names"):
        backgammon_match.game_to_match_text([], None, names=None)
    with pytest.raises(TypeError, match="scale"):
        backgammon_render.to_svg(start(), scale="big")


def test_td_weights_are_checked_before_the_net_kernels():
    with pytest.raises(ValueError, match="shapes"):
        TDAgent(weights=(np.zeros((3, 3)), np.zeros(3), np.zeros((3, 5)), np.zeros(5)))
    with pytest.raises(TypeError, match="tuple"):
        TDAgent(weights=(1, 2))
    bad = TDAgent(hidden=4).params
    with pytest.raises(ValueError, match="NaN"):
        TDAgent(weights=(bad[0] * np.nan, *bad[1:]))
    with pytest.raises(ValueError, match="hidden"):
        TDAgent(hidden=0)


@pytest.mark.parametrize(
    "value", ["3-1", "31", "3 1", " 3,1 ", ("3", "1"), ["3-1"], (3, 1), [np.int64(3), 1]]
)
def test_parse_dice_reads_every_form_of_a_roll(value):
    assert bg.parse_dice(value) == (3, 1)


@pytest.mark.parametrize("value", ["3-7", "3", "", "3-1-2", ("3", "1", "2"), (0, 1), (True, 1), 31])
def test_parse_dice_refuses_anything_else(value):
    with pytest.raises(ValueError, match="two dice 1..6 such as 3-1 or 3 1"):
        bg.parse_dice(value)


def test_a_position_id_given_as_a_state_says_to_use_position_from_id():
    for call in (
        lambda: bg.parse_play("4HPwATDgc/ABMA", 3, 1, "8/5 6/5"),
        lambda: bg.check_state("4HPwATDgc/ABMA"),
    ):
        with pytest.raises(TypeError, match=r"'4HPwATDgc/ABMA' use position_from_id\(id\)"):
            call()
    s = bg.parse_play(bg.position_from_id("4HPwATDgc/ABMA"), 3, 1, "8/5 6/5")
    assert s.shape == bg.initial_state().shape
