"""Smoke test of boardgym train-eval (scripts/train_draughts_eval.py): a tiny run learns, writes
a loadable evaluation, and never writes over a shipped checkpoint or an existing file unasked."""

import math

import numpy as np
import pytest

from boardgym.agents import load
from boardgym.agents.draughts.evaluation import EVAL_MLP, Evaluation
from boardgym.agents.training import eval_fit
from boardgym.scripts import cli, train_draughts_eval


def test_tiny_training_run_reduces_the_error_and_plays(tmp_path):
    mod = train_draughts_eval
    out = tmp_path / "eval.npz"
    res = mod.main(
        [
            "--positions",
            "400",
            "--label-depth",
            "2",
            "--play-depth",
            "1",
            "--hidden",
            "8",
            "--epochs",
            "40",
            "--batch",
            "32",
            "--seed",
            "3",
            "--out",
            str(out),
        ]
    )
    assert res["positions"] == 400 and math.isfinite(res["val_loss"])
    assert res["train_loss"] < 0.7 * res["baseline_loss"]  # it learns the labels
    ev = Evaluation.load(out)
    assert ev.kind == EVAL_MLP and ev.w1.shape == (8, 198)
    agent = load("draughts-alphabeta", weights=str(out), depth=2)
    assert agent.best_move("W:W21-32:B1-12") in (
        "a3-b4",
        "c3-b4",
        "c3-d4",
        "e3-d4",
        "e3-f4",
        "g3-f4",
        "g3-h4",
    )


def test_saved_data_train_the_same_net_again(tmp_path):
    mod = train_draughts_eval
    args = [
        "--positions",
        "120",
        "--label-depth",
        "2",
        "--play-depth",
        "1",
        "--hidden",
        "4",
        "--epochs",
        "3",
        "--batch",
        "16",
        "--seed",
        "2",
        "--chunk",
        "60",
        "--quiet",
    ]
    data = tmp_path / "data.npz"
    first = mod.main(args + ["--save-data", str(data), "--out", str(tmp_path / "a.npz")])
    again = mod.main(args + ["--data", str(data), "--out", str(tmp_path / "b.npz")])
    assert first["positions"] == again["positions"] == 120
    a, b = Evaluation.load(tmp_path / "a.npz"), Evaluation.load(tmp_path / "b.npz")
    assert np.array_equal(a.w1, b.w1) and np.array_equal(a.w2, b.w2)


def test_features_train_a_feature_network_from_the_same_data(tmp_path):
    """--features: the same observations, the evaluation features computed from them, an
    EVAL_MLP_FEATURES network that the search loads and plays."""
    from boardgym.agents.draughts.evaluation import EVAL_MLP_FEATURES, N_INPUTS_FEATURES

    mod = train_draughts_eval
    args = [
        "--positions",
        "120",
        "--label-depth",
        "2",
        "--play-depth",
        "1",
        "--hidden",
        "4",
        "--epochs",
        "3",
        "--batch",
        "16",
        "--seed",
        "2",
        "--quiet",
    ]
    data = tmp_path / "data.npz"
    plain = mod.main(args + ["--save-data", str(data), "--out", str(tmp_path / "a.npz")])
    feats = mod.main(args + ["--data", str(data), "--features", "--out", str(tmp_path / "f.npz")])
    assert plain["evaluation"].kind == EVAL_MLP
    ev = Evaluation.load(tmp_path / "f.npz")
    assert ev.kind == EVAL_MLP_FEATURES and ev.w1.shape == (4, N_INPUTS_FEATURES)
    assert math.isfinite(feats["val_loss"])
    agent = load("draughts-alphabeta", weights=str(tmp_path / "f.npz"), depth=2)
    assert agent.best_move("W:W21-32:B1-12") in (
        "a3-b4",
        "c3-b4",
        "c3-d4",
        "e3-d4",
        "e3-f4",
        "g3-f4",
        "g3-h4",
    )


def test_patterns_fit_tables_to_what_the_network_leaves(tmp_path):
    """--patterns: the same network (bit for bit), then tables that lower the training loss
    (the backfit of eval_fit.fit_patterns); the search loads and plays the file."""
    from boardgym.agents.draughts.evaluation import N_WINDOWS, PATTERN_ENTRIES

    mod = train_draughts_eval
    args = [
        "--positions",
        "300",
        "--label-depth",
        "2",
        "--play-depth",
        "1",
        "--hidden",
        "4",
        "--epochs",
        "3",
        "--batch",
        "16",
        "--seed",
        "2",
        "--quiet",
    ]
    data = tmp_path / "data.npz"
    plain = mod.main(args + ["--save-data", str(data), "--out", str(tmp_path / "a.npz")])
    pat = mod.main(
        args
        + [
            "--data",
            str(data),
            "--patterns",
            "--pattern-shrink",
            "1",
            "--out",
            str(tmp_path / "p.npz"),
        ]
    )
    a, p = Evaluation.load(tmp_path / "a.npz"), Evaluation.load(tmp_path / "p.npz")
    assert np.array_equal(a.w1, p.w1) and not a.has_patterns and p.has_patterns
    assert p.patterns.shape == (N_WINDOWS, PATTERN_ENTRIES)
    assert pat["train_loss"] < plain["train_loss"]
    agent = load("draughts-alphabeta", weights=str(tmp_path / "p.npz"), depth=2)
    assert agent.best_move("W:W21-32:B1-12") in (
        "a3-b4",
        "c3-b4",
        "c3-d4",
        "e3-d4",
        "e3-f4",
        "g3-f4",
        "g3-h4",
    )


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--pattern-shrink", "-1"], "--pattern-shrink"),
        (["--pattern-sweeps", "0"], "--pattern-sweeps"),
        (["--workers", "2"], "--chunk"),
        (["--chunk", "-1"], "--chunk"),
        (["--workers", "0", "--chunk", "5"], "--workers"),
        (["--teacher", "no/such/file.npz"], "--teacher"),
        (["--data", "no/such/file.npz"], "--data"),
        (["--data", __file__, "--save-data", "new.npz"], "one of them"),
    ],
)
def test_bad_new_options_are_usage_errors(tmp_path, extra, needle):
    mod = train_draughts_eval
    with pytest.raises(cli.UsageError, match=needle):
        mod.main(["--positions", "20", "--out", str(tmp_path / "x.npz")] + extra)


def test_a_teacher_or_data_file_that_is_not_ours_is_a_usage_error(tmp_path):
    mod = train_draughts_eval
    junk = tmp_path / "junk.npz"
    np.savez(junk, a=np.zeros(3))
    for option in ("--teacher", "--data"):
        with pytest.raises(cli.UsageError, match=option):
            mod.main(
                [
                    "--positions",
                    "20",
                    "--label-depth",
                    "1",
                    "--play-depth",
                    "1",
                    "--epochs",
                    "1",
                    "--quiet",
                    "--out",
                    str(tmp_path / "x.npz"),
                    option,
                    str(junk),
                ]
            )


def test_the_chunk_files_go_once_the_data_file_is_written(tmp_path):
    mod = train_draughts_eval
    data = tmp_path / "data.npz"
    mod.main(
        [
            "--positions",
            "20",
            "--label-depth",
            "1",
            "--play-depth",
            "1",
            "--chunk",
            "10",
            "--hidden",
            "2",
            "--epochs",
            "1",
            "--quiet",
            "--save-data",
            str(data),
            "--out",
            str(tmp_path / "e.npz"),
        ]
    )
    assert data.exists() and not (tmp_path / "data.npz.chunks").exists()
    x, y = eval_fit.load_data(data)
    assert x.shape == (20, 198) and y.shape == (20,)


def test_another_runs_chunks_are_a_usage_error_before_labelling(tmp_path):
    data = tmp_path / "data.npz"
    (tmp_path / "data.npz.chunks").mkdir()
    (tmp_path / "data.npz.chunks" / "settings.json").write_text("{}")
    with pytest.raises(cli.UsageError, match="other settings"):
        train_draughts_eval.main(
            ["--positions", "20", "--chunk", "10", "--save-data", str(data), "--quiet"]
            + ["--out", str(tmp_path / "e.npz")]
        )
