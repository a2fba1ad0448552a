"""`boardgym hub` driven by pydraughts' Hub client (``draughts.engine.HubEngine``), the way
pydraughts-based tools run engines. pydraughts and py-draughts both install the import name
``draughts``, so this runs in its own environment (see README, "Interop"):

    python3 -m venv .venv-pydraughts && .venv-pydraughts/bin/pip install -q -e . pydraughts pytest \
        pytest-xdist \
        && .venv-pydraughts/bin/python -m pytest tests/interop -m interop
"""

import sys
import threading
import time
from pathlib import Path

import pytest

engine_mod = pytest.importorskip("draughts.engine", reason="needs pydraughts (not py-draughts)")

pytestmark = pytest.mark.interop

# the environment's `boardgym` script (pydraughts resolves symlinks in the command's first word,
# so `python -m` would leave the virtual environment)
CMD = [str(Path(sys.executable).parent / "boardgym"), "hub", "--tt-size", "4"]


@pytest.fixture(scope="module")
def engine():
    e = engine_mod.HubEngine(CMD)
    e.setoption("variant", "russian")
    e.setoption("move-numbering", "a1")  # pydraughts numbers Russian moves from a1
    e.init()
    yield e
    e.quit()
    e.p.wait(timeout=30)


def _legal(board):
    """pydraughts' legal moves (its Hub text, from-to and sorted captures)."""
    return {m.hub_position_move for m in board.legal_moves()}


def test_hub_handshake(engine):
    assert engine.id["name"] == "boardgym"
    assert {
        "variant",
        "tt-size",
        "move-time",
        "depth",
        "weights",
        "move-numbering",
    } <= engine.options
    assert engine.variants == {"russian"}
    engine.ping()


def test_engine_plays_legal_games_at_fixed_time_per_move(engine):
    from draughts import Board

    board = Board(variant="russian")
    times = []
    for _ in range(40):
        if board.is_over():
            break
        legal = _legal(board)
        t0 = time.perf_counter()
        res = engine.play(board, engine_mod.Limit(movetime=0.05), ponder=False)
        times.append(time.perf_counter() - t0)
        assert res.move.hub_position_move in legal
        if len(legal) > 1:  # a forced move is played without a search (no info line)
            assert res.info["depth"] >= 1 and res.info["nodes"] >= 1 and "pv" in res.info
        board.push(res.move)
    assert len(board.move_stack) >= 20
    assert max(times) < 2.0


def test_time_controls_depth_and_nodes(engine):
    from draughts import Board

    from boardgym.envs import draughts as api

    # algebraic squares: pydraughts reads numbers in a Russian FEN in its own (a1 = 1) numbering
    fen = api.to_fen(api.from_fen("W:W22,25,26,27,28,30,31,32:B2,6,7,9,10,11,12,14"))
    board = Board(variant="russian", fen=fen)
    for limit in (
        engine_mod.Limit(time=5, inc=0.1),
        engine_mod.Limit(time=3),
        engine_mod.Limit(depth=4),
        engine_mod.Limit(nodes=20000),
    ):
        res = engine.play(board, limit, ponder=False)
        assert res.move.hub_position_move in _legal(board)
        if limit.depth:
            assert res.info["depth"] == 4


def test_ponder_then_ponder_hit(engine):
    from draughts import Board

    board = Board(variant="russian")
    out = {}
    th = threading.Thread(
        target=lambda: out.update(r=engine.play(board, engine_mod.Limit(movetime=0.1), ponder=True))
    )
    th.start()
    time.sleep(0.3)
    engine.ponderhit()
    th.join(timeout=30)
    assert not th.is_alive() and out["r"].move.hub_position_move in _legal(board)


def test_game_history_is_sent_and_used(engine):
    """A capture sequence in the move list, in the engine's numbering, replayed by the engine."""
    from draughts import Board, Move

    board = Board(variant="russian")
    for mv in ("c3-d4", "f6-g5", "d4-e5"):
        board.push(Move(board, pdn_move=mv))
    res = engine.play(board, engine_mod.Limit(depth=3), ponder=False)
    assert res.move.hub_position_move in _legal(board)  # a forced capture: d6:f4 or f6:d4
    assert "x" in res.move.hub_move
