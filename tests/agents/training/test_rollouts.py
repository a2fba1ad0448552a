"""Rollout training (agents/training/rollouts.py): rounds keep their datasets and models, and a
run stopped between rounds or inside a round's rollouts resumes to the unbroken run's model."""

import dataclasses
import os

import numpy as np
import pytest

from boardgym.agents.backgammon import rollout
from boardgym.agents.training import rollouts as T


def _cfg(tmp_path, name, **kw):
    base = dict(positions=10, trials=2, plies=2, rounds=2, tensorboard=False, seed=3)
    return T.RolloutSettings(ckpt_dir=str(tmp_path / name), **{**base, **kw})


def _quiet(text):
    pass


def test_rounds_write_datasets_and_models(tmp_path):
    cfg = _cfg(tmp_path, "a")
    net = T.train_rollouts(cfg, log=_quiet)
    files = sorted(os.listdir(cfg.ckpt_dir))
    for f in ("data_0.npz", "data_1.npz", "round_1.npz", "round_2.npz", "latest.npz"):
        assert f in files
    with np.load(os.path.join(cfg.ckpt_dir, "data_1.npz")) as z:
        assert z["rows"].shape == (10, 66) and int(z["done"]) == 10
        assert z["targets"].shape == (10, 5) and (z["se"][:, rollout.SE_EQUITY] > 0).all()
    from boardgym.agents.backgammon.agents import TDAgent

    shipped = TDAgent().params
    assert not np.array_equal(net[1], shipped[1])  # the fit moved the contact net


def test_resume_between_rounds_and_inside_a_round(tmp_path, monkeypatch):
    whole = T.train_rollouts(_cfg(tmp_path, "whole"), log=_quiet)
    # stop after one round, resume to two
    part = _cfg(tmp_path, "part", rounds=1)
    T.train_rollouts(part, log=_quiet)
    resumed = T.train_rollouts(dataclasses.replace(part, rounds=2, resume=True), log=_quiet)
    for a, b in zip(whole, resumed):
        assert np.array_equal(a, b)
    # stop inside the first round's rollouts (after one piece of 4), resume
    monkeypatch.setattr(T, "PIECE", 4)
    real = rollout.rollout_targets
    calls = []

    def flaky(*args, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kw)

    cut = _cfg(tmp_path, "cut")
    monkeypatch.setattr(rollout, "rollout_targets", flaky)
    with pytest.raises(KeyboardInterrupt):
        T.train_rollouts(cut, log=_quiet)
    with np.load(os.path.join(cut.ckpt_dir, "data_0.npz")) as z:
        assert int(z["done"]) == 4
    monkeypatch.setattr(rollout, "rollout_targets", real)
    again = T.train_rollouts(dataclasses.replace(cut, resume=True), log=_quiet)
    # each position's dice come from its own stream: pieces of 4 give the targets of one piece
    for a, b in zip(whole, again):
        assert np.array_equal(a, b)
