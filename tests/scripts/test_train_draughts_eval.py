"""Smoke test of boardgym train-eval (scripts/train_draughts_eval.py): a tiny run learns, writes
a loadable evaluation, and never writes over a shipped checkpoint or an existing file unasked."""
import math

import numpy as np

from boardgym.agents import load
from boardgym.agents.draughts_agents import state_from_observation
from boardgym.agents.draughts_eval import EVAL_MLP, Evaluation
from boardgym.kernels.draughts.board import M_CAPTURED, MAX_MOVES, ROW_LEN
from boardgym.kernels.draughts.movegen import gen_moves
from boardgym.scripts import train_draughts_eval



def test_tiny_training_run_reduces_the_error_and_plays(tmp_path):
    mod = train_draughts_eval
    out = tmp_path / "eval.npz"
    res = mod.main(["--positions", "400", "--label-depth", "2", "--play-depth", "1",
                    "--hidden", "8", "--epochs", "40", "--batch", "32", "--seed", "3",
                    "--out", str(out)])
    assert res["positions"] == 400 and math.isfinite(res["val_loss"])
    assert res["train_loss"] < 0.7 * res["baseline_loss"]  # it learns the labels
    ev = Evaluation.load(out)
    assert ev.kind == EVAL_MLP and ev.w1.shape == (8, 198)
    agent = load("draughts-alphabeta", weights=str(out), depth=2)
    assert agent.best_move("W:W21-32:B1-12") in ("a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4",
                                                  "g3-f4", "g3-h4")


def test_quiet_only_labels_only_positions_without_a_capture():
    mod = train_draughts_eval
    base = dict(positions=60, label_depth=2, play_depth=1, seed=5)
    x, y = mod.generate(mod.Settings(**base, quiet_only=True))
    buf = np.empty((MAX_MOVES, ROW_LEN), np.int64)
    for obs in x:
        assert gen_moves(state_from_observation(obs), buf) > 0 and buf[0, M_CAPTURED] == 0
    x_all, _ = mod.generate(mod.Settings(**base))
    assert any(gen_moves(state_from_observation(o), buf) and buf[0, M_CAPTURED] for o in x_all)
    # the same games: the quiet positions are a subsequence of all the labelled ones
    q = [o.tobytes() for o in x_all if gen_moves(state_from_observation(o), buf)
         and buf[0, M_CAPTURED] == 0]
    assert [o.tobytes() for o in x[:len(q)]] == q
