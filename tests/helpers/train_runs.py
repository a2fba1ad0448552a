"""A TD training run killed mid-way and resumed (shared by the TD trainers' tests)."""

import dataclasses
import json

import numpy as np
import pytest

from boardgym.agents.training import lifecycle


def killed_and_resumed_td_run(train, cfg, tmp_path, monkeypatch, opponents):
    """The TD run of settings cfg (a td.TDSettings: 80 games, checkpoints every 20, evaluations
    every 40) by train (td.train_backgammon_td or td.train_draughts_td) into tmp_path/a
    uninterrupted, and into tmp_path/b killed while writing its 4th checkpoint (after the
    evaluation at 80 games was logged), then resumed. Checks what both TD trainers promise: the
    killed run stopped at 60 games with both evaluation lines written, and the resumed run ends
    with the weights, checkpoint and metrics (wall time aside) of the uninterrupted one.
    opponents: the names of the in-kernel players each evaluation line reports.
    Returns (the uninterrupted run's params, metrics(run) -> the run's metrics lines)."""

    def run(name, **changes):
        return train(dataclasses.replace(cfg, ckpt_dir=str(tmp_path / name), **changes))

    full = run("a")
    save = lifecycle.save_npz
    calls = []

    def killed_at_the_fourth_checkpoint(path, **arrays):
        calls.append(path)
        if len(calls) == 4:
            raise KeyboardInterrupt
        save(path, **arrays)

    monkeypatch.setattr(lifecycle, "save_npz", killed_at_the_fourth_checkpoint)
    with pytest.raises(KeyboardInterrupt):
        run("b")
    monkeypatch.setattr(lifecycle, "save_npz", save)
    assert int(np.load(tmp_path / "b" / "latest.npz")["games"]) == 60
    assert len((tmp_path / "b" / "metrics.jsonl").read_text().splitlines()) == 2  # 40 and 80
    resumed = run("b", resume=True)
    for p, q in zip(full, resumed):
        assert np.array_equal(p, q)
    assert int(np.load(tmp_path / "b" / "latest.npz")["games"]) == 80

    def metrics(run):
        lines = [json.loads(t) for t in (tmp_path / run / "metrics.jsonl").read_text().splitlines()]
        for line in lines:
            del line["seconds"]
        return lines

    assert [m["games"] for m in metrics("a")] == [40, 80]
    assert metrics("a") == metrics("b")
    assert set(metrics("a")[0]) == {"games", *opponents}
    return full, metrics
