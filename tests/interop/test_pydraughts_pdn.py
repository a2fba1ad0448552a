"""PDN export read back by pydraughts. pydraughts and py-draughts both install the
import name ``draughts``, so this runs in its own environment (see README, "Interop"):

    python3 -m venv .venv-pydraughts && .venv-pydraughts/bin/pip install -q -e . pydraughts pytest \
        pytest-xdist \
        && .venv-pydraughts/bin/python -m pytest tests/interop -m interop
"""

import numpy as np
import pytest

pdn_mod = pytest.importorskip("draughts.PDN", reason="needs pydraughts (not py-draughts)")

from boardgym.envs import draughts as api  # noqa: E402
from boardgym.envs import russian_draughts_v0  # noqa: E402

pytestmark = pytest.mark.interop


def _normal(fen):
    side, white, black = fen.split(":")
    return side, sorted(white[1:].split(",")), sorted(black[1:].split(","))


@pytest.mark.parametrize("seed", range(20))
def test_pydraughts_reads_and_replays_our_pdn(seed):
    from draughts import Board, Move

    env = russian_draughts_v0.raw_env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not env.is_over:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    game = pdn_mod.PDNReader(pdn_text=env.pdn(capture_sep="x")).games[0]
    assert game.variant == "russian"
    assert game.moves == [m.replace(":", "x") for m in env.moves]
    board = Board(variant="russian", fen="startpos")
    for mv in game.moves:
        board.push(Move(board, pdn_move=mv))
    assert _normal(board.fen) == _normal(api.to_fen(env.state))
