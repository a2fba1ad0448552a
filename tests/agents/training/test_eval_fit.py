"""The fitting of the draughts search's learned evaluation (agents/training/eval_fit.py): the
labelled self-play positions (quiet only, chunks independent of the worker count, a learned
teacher's labels, a killed run resumed from its chunks), the pattern backfit, and the checks of
data and output files."""

import types

import numpy as np
import pytest

from boardgym.agents.draughts.agents import state_from_observation
from boardgym.agents.training import eval_fit
from boardgym.kernels.draughts.board import M_CAPTURED, MAX_MOVES, ROW_LEN
from boardgym.kernels.draughts.movegen import gen_moves


def settings(**kw):
    """The fields eval_fit reads, at boardgym train-eval's defaults, with kw changed."""
    fields = dict(
        positions=100_000,
        label_depth=6,
        play_depth=2,
        random_move_prob=0.15,
        sample_prob=0.3,
        quiet_only=False,
        max_plies=200,
        teacher="",
        chunk=0,
        workers=1,
        save_data="",
        hidden=32,
        features=False,
        patterns=False,
        pattern_shrink=50.0,
        pattern_sweeps=6,
        epochs=30,
        batch=256,
        lr=3e-3,
        val_fraction=0.1,
        seed=0,
    )
    assert set(kw) <= set(fields), set(kw) - set(fields)
    return types.SimpleNamespace(**{**fields, **kw})


def test_quiet_only_labels_only_positions_without_a_capture():
    base = dict(positions=60, label_depth=2, play_depth=1, seed=5)
    x, y = eval_fit.generate(settings(**base, quiet_only=True))
    buf = np.empty((MAX_MOVES, ROW_LEN), np.int64)
    for obs in x:
        assert gen_moves(state_from_observation(obs), buf) > 0 and buf[0, M_CAPTURED] == 0
    x_all, _ = eval_fit.generate(settings(**base))
    assert any(gen_moves(state_from_observation(o), buf) and buf[0, M_CAPTURED] for o in x_all)
    # the same games: the quiet positions are a subsequence of all the labelled ones
    q = [
        o.tobytes()
        for o in x_all
        if gen_moves(state_from_observation(o), buf) and buf[0, M_CAPTURED] == 0
    ]
    assert [o.tobytes() for o in x[: len(q)]] == q


def test_chunked_labels_do_not_depend_on_the_worker_count():
    base = dict(positions=30, label_depth=2, play_depth=1, chunk=12, seed=4, quiet_only=True)
    x1, y1 = eval_fit.generate(settings(**base))
    x2, y2 = eval_fit.generate(settings(**base, workers=2))
    assert np.array_equal(x1, x2) and np.array_equal(y1, y2)
    # each chunk is its own games: the first chunk is the same whatever the total
    x3, y3 = eval_fit.generate(settings(**{**base, "positions": 12}))
    assert np.array_equal(x3, x1[:12]) and np.array_equal(y3, y1[:12])
    # and the chunks are not copies of one another
    assert not np.array_equal(x1[:12], x1[12:24])


def test_a_learned_teacher_labels_with_its_own_search(tmp_path):
    """--teacher: the labels are the learned evaluation's search scores, not material's."""
    from boardgym.agents.draughts.agents import AlphaBetaAgent
    from boardgym.agents.registry import CHECKPOINTS

    teacher = str(CHECKPOINTS / "draughts-alphabeta.npz")
    cfg = settings(
        positions=25,
        label_depth=2,
        play_depth=1,
        chunk=25,
        seed=6,
        quiet_only=True,
        teacher=teacher,
    )
    x, y = eval_fit.generate(cfg)
    _, y_material = eval_fit.generate(settings(**{**vars(cfg), "teacher": ""}))
    assert not np.array_equal(y, y_material)
    net = AlphaBetaAgent(depth=2, evaluation=teacher, egdb=False)
    for obs, label in zip(x[:5], y[:5]):
        _, score = net.search(state_from_observation(obs), depth=2)
        assert label == np.clip(score / 100.0, -eval_fit.WIN_LABEL, eval_fit.WIN_LABEL)


def test_a_killed_labelling_run_resumes_from_its_finished_chunks(tmp_path, monkeypatch):
    """--save-data with --chunk keeps each finished chunk; the same command started again labels
    only the missing ones and gives the same data; other settings are refused, never mixed."""
    data = tmp_path / "data.npz"
    cfg = settings(
        positions=30,
        label_depth=2,
        play_depth=1,
        chunk=10,
        seed=8,
        quiet_only=True,
        save_data=str(data),
    )
    x, y = eval_fit.generate(cfg)
    store = tmp_path / "data.npz.chunks"
    assert sorted(p.name for p in store.glob("chunk_*.npz")) == [
        "chunk_000000_10.npz",
        "chunk_000001_10.npz",
        "chunk_000002_10.npz",
    ]
    (store / "chunk_000001_10.npz").unlink()  # as if killed before the second chunk was kept
    labelled = []
    real = eval_fit._label_chunk
    monkeypatch.setattr(
        eval_fit, "_label_chunk", lambda c, k, size: labelled.append(k) or real(c, k, size)
    )
    x2, y2 = eval_fit.generate(cfg)
    assert labelled == [1]
    assert np.array_equal(x, x2) and np.array_equal(y, y2)
    with pytest.raises(ValueError, match="other settings"):
        eval_fit.generate(settings(**{**vars(cfg), "label_depth": 3}))


def test_fit_patterns_backfits_a_planted_pattern_and_shrinks_rare_entries():
    """On labelled positions: a residual that one window's contents explain is fitted, better
    with more sweeps; one sweep's entries are the clipped residual sums over count + shrink."""
    from boardgym.agents.draughts.evaluation import N_WINDOWS, pattern_indices_of_obs

    x, _ = eval_fit.generate(settings(positions=300, label_depth=2, play_depth=1, seed=2))
    # a residual that one window's contents explain is fitted (the windows overlap, so others
    # may carry part of it: the sum is what converges)
    idx = np.zeros((len(x), N_WINDOWS), np.int64)
    pattern_indices_of_obs(x, idx)
    planted = np.where(idx[:, 7] == idx[0, 7], 1.5, 0.0)
    assert 0 < planted.sum() < 1.5 * len(x)
    fitted = [
        eval_fit.fit_patterns(idx, planted, shrink=0.0, sweeps=k)[np.arange(N_WINDOWS), idx].sum(1)
        for k in (1, 10)
    ]
    assert np.abs(fitted[1] - planted).max() < 1e-3
    assert np.abs(fitted[1] - planted).max() < np.abs(fitted[0] - planted).max()
    # shrinkage: after one sweep the first table's entry is its positions' residual sum over
    # (their count + shrink), residuals clipped to +-PATTERN_CLIP
    noisy = planted + np.random.default_rng(0).normal(0, 3, len(x))
    one = eval_fit.fit_patterns(idx, noisy, shrink=7.0, sweeps=1)
    for v in np.unique(idx[:, 0])[:20]:
        rows = idx[:, 0] == v
        clipped = np.clip(noisy[rows], -eval_fit.PATTERN_CLIP, eval_fit.PATTERN_CLIP)
        assert one[0, v] == pytest.approx(clipped.sum() / (rows.sum() + 7.0))


def test_check_out_refuses_a_shipped_checkpoint_a_directory_and_an_existing_file(tmp_path):
    from boardgym.agents.registry import CHECKPOINTS

    with pytest.raises(ValueError, match="shipped checkpoints"):
        eval_fit.check_out(str(CHECKPOINTS / "draughts-alphabeta.npz"), force=True)
    with pytest.raises(ValueError, match="is a directory"):
        eval_fit.check_out(str(tmp_path), force=True)
    with pytest.raises(ValueError, match="must name a file"):
        eval_fit.check_out("")
    (tmp_path / "old.npz").write_bytes(b"")
    for name in ("old.npz", "old"):  # Evaluation.save adds .npz
        with pytest.raises(ValueError, match="--force"):
            eval_fit.check_out(str(tmp_path / name))
        eval_fit.check_out(str(tmp_path / name), force=True)
    eval_fit.check_out(str(tmp_path / "new.npz"))


def test_saved_data_load_again_and_other_files_are_refused(tmp_path):
    cfg = settings(positions=12, label_depth=1, play_depth=1, seed=1)
    x, y = eval_fit.generate(cfg)
    eval_fit.save_data(str(tmp_path / "data.npz"), x, y, cfg)
    x2, y2 = eval_fit.load_data(str(tmp_path / "data.npz"))
    assert x2.dtype == np.float32 and np.array_equal(x, x2) and np.array_equal(y, y2)
    np.savez(tmp_path / "junk.npz", a=np.zeros(3))
    np.savez(tmp_path / "few.npz", x=x[:5], y=y[:5])
    np.savez(tmp_path / "nan.npz", x=x, y=np.full_like(y, np.nan))
    for name, needle in (("junk", "not a file written"), ("few", "N >= 10"), ("nan", "finite")):
        with pytest.raises(ValueError, match=needle):
            eval_fit.load_data(str(tmp_path / f"{name}.npz"))
