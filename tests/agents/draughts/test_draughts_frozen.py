"""The frozen reference engine ``draughts-alphabeta-2026`` (agents/registry.py): it searches as
``draughts-alphabeta`` did when it was frozen (tests/data/draughts_frozen_engine.tsv: moves,
scores and node counts recorded with that commit), with its own copy of the weights and the time
use of then."""

from pathlib import Path

import numpy as np
import pytest

from boardgym.agents.files import CHECKPOINTS
from boardgym.agents.registry import load, options
from boardgym.envs import draughts as api

DATA = Path(__file__).parents[2] / "data" / "draughts_frozen_engine.tsv"


def _recorded():
    rows = []
    for ln in DATA.read_text().splitlines():
        if ln and not ln.startswith("#"):
            fen, depth, lmr, move, score, nodes = ln.split("\t")
            rows.append((fen, int(depth), bool(int(lmr)), move, int(score), int(nodes)))
    return rows


@pytest.mark.parametrize("fen, depth, lmr, move, score, nodes", _recorded())
def test_frozen_engine_searches_as_recorded(fen, depth, lmr, move, score, nodes):
    a = load("draughts-alphabeta-2026", depth=depth, lmr=lmr, seed=0)
    s = api.from_fen(fen)
    row, info = a.think(s, depth=depth)
    assert (api.move_to_str(s, row), info["score"], info["nodes"]) == (move, score, nodes)


def test_frozen_engine_has_its_own_weights_and_time_use(monkeypatch):
    from boardgym.agents.draughts import agents

    read, real = [], agents._evaluation
    monkeypatch.setattr(agents, "_evaluation", lambda e: read.append(e) or real(e))
    a = load("draughts-alphabeta-2026", depth=None, time_limit=0.05)
    assert read == [str(CHECKPOINTS / "draughts-alphabeta-2026.npz")]
    with np.load(read[0]) as z:
        assert np.array_equal(a.evaluation.w1, z["w1"])
    assert not a.time_bank and not a.adaptive_time
    assert a.start_fraction == 1.0 and a.keep_partial
    for refused in ("time_bank", "adaptive_time", "evaluation", "weights"):
        assert refused not in options("draughts-alphabeta-2026")
        with pytest.raises(ValueError, match=refused):
            load("draughts-alphabeta-2026", **{refused: True})
