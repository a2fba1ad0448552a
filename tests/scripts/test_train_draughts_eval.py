"""Smoke test of boardgym train-eval (scripts/train_draughts_eval.py): a tiny run learns, writes
a loadable evaluation, and never writes over a shipped checkpoint or an existing file unasked."""

import dataclasses
import math

import numpy as np
import pytest

from boardgym.agents import load
from boardgym.agents.draughts.agents import state_from_observation
from boardgym.agents.draughts.evaluation import EVAL_MLP, Evaluation
from boardgym.kernels.draughts.board import M_CAPTURED, MAX_MOVES, ROW_LEN
from boardgym.kernels.draughts.movegen import gen_moves
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
    q = [
        o.tobytes()
        for o in x_all
        if gen_moves(state_from_observation(o), buf) and buf[0, M_CAPTURED] == 0
    ]
    assert [o.tobytes() for o in x[: len(q)]] == q


def test_chunked_labels_do_not_depend_on_the_worker_count():
    mod = train_draughts_eval
    base = dict(positions=30, label_depth=2, play_depth=1, chunk=12, seed=4, quiet_only=True)
    x1, y1 = mod.generate(mod.Settings(**base))
    x2, y2 = mod.generate(mod.Settings(**base, workers=2))
    assert np.array_equal(x1, x2) and np.array_equal(y1, y2)
    # each chunk is its own games: the first chunk is the same whatever the total
    x3, y3 = mod.generate(mod.Settings(**{**base, "positions": 12}))
    assert np.array_equal(x3, x1[:12]) and np.array_equal(y3, y1[:12])
    # and the chunks are not copies of one another
    assert not np.array_equal(x1[:12], x1[12:24])


def test_a_learned_teacher_labels_with_its_own_search(tmp_path):
    """--teacher: the labels are the learned evaluation's search scores, not material's."""
    from boardgym.agents.draughts.agents import AlphaBetaAgent
    from boardgym.agents.registry import CHECKPOINTS

    mod = train_draughts_eval
    teacher = str(CHECKPOINTS / "draughts-alphabeta.npz")
    cfg = mod.Settings(
        positions=25,
        label_depth=2,
        play_depth=1,
        chunk=25,
        seed=6,
        quiet_only=True,
        teacher=teacher,
    )
    x, y = mod.generate(cfg)
    _, y_material = mod.generate(mod.Settings(**{**dataclasses.asdict(cfg), "teacher": ""}))
    assert not np.array_equal(y, y_material)
    net = AlphaBetaAgent(depth=2, evaluation=teacher, egdb=False)
    for obs, label in zip(x[:5], y[:5]):
        _, score = net.search(state_from_observation(obs), depth=2)
        assert label == np.clip(score / 100.0, -mod.WIN_LABEL, mod.WIN_LABEL)


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
    """--patterns: the same network (bit for bit), then tables that lower the training loss;
    the tables are the backfit of fit_patterns (checked on a planted pattern); the search loads
    and plays the file."""
    from boardgym.agents.draughts.evaluation import (
        N_WINDOWS,
        PATTERN_ENTRIES,
        pattern_indices_of_obs,
    )

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
    # a residual that one window's contents explain is fitted (the windows overlap, so others
    # may carry part of it: the sum is what converges)
    x, _ = mod.load_data(str(data))
    idx = np.zeros((len(x), N_WINDOWS), np.int64)
    pattern_indices_of_obs(x, idx)
    planted = np.where(idx[:, 7] == idx[0, 7], 1.5, 0.0)
    assert 0 < planted.sum() < 1.5 * len(x)
    fitted = [
        mod.fit_patterns(idx, planted, shrink=0.0, sweeps=k)[np.arange(N_WINDOWS), idx].sum(1)
        for k in (1, 10)
    ]
    assert np.abs(fitted[1] - planted).max() < 1e-3
    assert np.abs(fitted[1] - planted).max() < np.abs(fitted[0] - planted).max()
    # shrinkage: after one sweep the first table's entry is its positions' residual sum over
    # (their count + shrink), residuals clipped to +-PATTERN_CLIP
    noisy = planted + np.random.default_rng(0).normal(0, 3, len(x))
    one = mod.fit_patterns(idx, noisy, shrink=7.0, sweeps=1)
    for v in np.unique(idx[:, 0])[:20]:
        rows = idx[:, 0] == v
        clipped = np.clip(noisy[rows], -mod.PATTERN_CLIP, mod.PATTERN_CLIP)
        assert one[0, v] == pytest.approx(clipped.sum() / (rows.sum() + 7.0))


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


def test_a_killed_labelling_run_resumes_from_its_finished_chunks(tmp_path, monkeypatch):
    """--save-data with --chunk keeps each finished chunk; the same command started again labels
    only the missing ones and gives the same data; other settings are refused, never mixed."""
    mod = train_draughts_eval
    data = tmp_path / "data.npz"
    cfg = mod.Settings(
        positions=30,
        label_depth=2,
        play_depth=1,
        chunk=10,
        seed=8,
        quiet_only=True,
        save_data=str(data),
    )
    x, y = mod.generate(cfg)
    store = tmp_path / "data.npz.chunks"
    assert sorted(p.name for p in store.glob("chunk_*.npz")) == [
        "chunk_000000_10.npz",
        "chunk_000001_10.npz",
        "chunk_000002_10.npz",
    ]
    (store / "chunk_000001_10.npz").unlink()  # as if killed before the second chunk was kept
    labelled = []
    real = mod._label_chunk
    monkeypatch.setattr(
        mod, "_label_chunk", lambda c, k, size: labelled.append(k) or real(c, k, size)
    )
    x2, y2 = mod.generate(cfg)
    assert labelled == [1]
    assert np.array_equal(x, x2) and np.array_equal(y, y2)
    with pytest.raises(cli.UsageError, match="other settings"):
        mod.generate(dataclasses.replace(cfg, label_depth=3))


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
    x, y = mod.load_data(data)
    assert x.shape == (20, 198) and y.shape == (20,)
