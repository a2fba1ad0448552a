"""Smoke test of scripts/train_draughts_eval.py: a tiny run learns, writes a loadable evaluation."""
import importlib.util
import math
from pathlib import Path

from boardgym.agents import load
from boardgym.agents.draughts_eval import EVAL_MLP, Evaluation

SCRIPT = Path(__file__).parents[2] / "scripts" / "train_draughts_eval.py"


def load_script():
    spec = importlib.util.spec_from_file_location("train_draughts_eval_script", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_tiny_training_run_reduces_the_error_and_plays(tmp_path):
    mod = load_script()
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
