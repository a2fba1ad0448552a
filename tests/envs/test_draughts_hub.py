"""Hub protocol text (envs/draughts_hub.py): positions, moves in either numbering, lines."""

import numpy as np
import pytest

from boardgym.envs import draughts as api
from boardgym.envs import draughts_hub
from boardgym.kernels.draughts.board import MAX_MOVES, ROW_LEN
from boardgym.kernels.draughts.game import gen_moves

START = "W" + "b" * 12 + "e" * 8 + "w" * 12


def _rows(state):
    buf = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    return buf[: gen_moves(state, buf)]


def test_positions_round_trip():
    s = api.from_fen("B:W21,K5,30:B1,K32,12")
    text = draughts_hub.position_to_hub(s)
    assert (
        text
        == "B" + "b" + "e" * 3 + "W" + "e" * 6 + "b" + "e" * 8 + "w" + "e" * 8 + "w" + "e" + "B"
    )
    assert (draughts_hub.position_from_hub(text)[:5] == s[:5]).all()
    assert draughts_hub.position_to_hub(api.initial_state()) == START
    for bad in ("W" + "e" * 31, "X" + "e" * 32, "W" + "q" * 32, "W" + "w" * 32):
        with pytest.raises(draughts_hub.HubError, match="bad position"):
            draughts_hub.position_from_hub(bad)


def test_moves_in_hub_notation():
    s = api.from_fen("W:W22,28:B4,11,17,18")  # RULES.md, 25.2: c3:a5, c3:e5:g7
    names = sorted(draughts_hub.move_to_hub(r) for r in _rows(s))
    assert names == ["22x13x17", "22x8x11x18"]  # c3:a5 takes b4; c3:e5:g7 takes d4 and f6
    for text in ("22x13x17", "22x13", "22x8x18x11", "22x8x11x18", "c3xa5", "c3xg7"):
        r = draughts_hub.move_from_hub(s, text)
        assert draughts_hub.move_to_hub(r) in names
    for bad, why in (
        ("22-18", "illegal"),
        ("22x8x17", "illegal"),
        ("99-1", "bad move"),
        ("22", "bad move"),
    ):
        with pytest.raises(draughts_hub.HubError, match=why):
            draughts_hub.move_from_hub(s, bad)
    with pytest.raises(ValueError, match="state"):  # a state is checked before the kernel
        draughts_hub.move_from_hub(np.zeros(3, np.int64), "22-17")
    with pytest.raises(TypeError, match="a Hub move is a string"):
        draughts_hub.move_from_hub(s, 2217)


def test_parse_and_write_lines():
    assert draughts_hub.parse_line('pos pos=W moves="22-18 11-15"') == (
        "pos",
        {"pos": "W", "moves": "22-18 11-15"},
    )
    assert draughts_hub.parse_line("go think") == ("go", {"think": ""})
    assert draughts_hub.parse_line("   ") == ("", {})
    with pytest.raises(draughts_hub.HubError):
        draughts_hub.parse_line('error message="open')
    assert draughts_hub.line("done", move="22-18", ponder=None) == "done move=22-18"
    assert (
        draughts_hub.line("info", pv="22-18 11-15", score="0.10")
        == 'info pv="22-18 11-15" score=0.10'
    )


def test_moves_numbered_from_a1():
    """move-numbering=a1 (pydraughts' Russian board): a1 = 1, c3 = 10, b4 = 13; positions stay
    standard."""
    s = api.initial_state()
    names = sorted(draughts_hub.move_to_hub(r, a1=True) for r in _rows(s))
    assert names == sorted(["9-13", "10-13", "10-14", "11-14", "11-15", "12-15", "12-16"])
    r = draughts_hub.move_from_hub(s, "10-13", a1=True)
    assert draughts_hub.move_to_hub(r) == "22-17"  # c3-b4 in the standard numbering
