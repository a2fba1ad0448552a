"""A pruning-net run (agents/training/prune.py, ``boardgym train --algo prune``): it writes the
model with its pruning net and the held-out recall, leaves the model itself as it was, and a run
stopped between passes resumes to the unbroken run's pruning net."""

import json

import numpy as np
import pytest

from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon import prune
from boardgym.agents.backgammon.agents import TDAgent
from boardgym.agents.backgammon.weights import load_weights
from boardgym.agents.files import CHECKPOINTS
from boardgym.scripts import train

TINY = [
    "--game",
    "backgammon",
    "--algo",
    "prune",
    "--prune-hidden",
    "4",
    "--prune-games",
    "6",
    "--seed",
    "2",
    "--quiet",
    "--no-tensorboard",
]


def test_a_run_writes_the_model_with_its_pruning_net(tmp_path):
    run = tmp_path / "run"
    model = train.main(TINY + ["--ckpt-dir", str(run)])
    saved = load_weights(run / "model.npz")
    assert saved[td_net.I_PRUNE].shape == (td_net.N_INPUTS, 4)
    for a, b in zip(saved, model):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(saved[: td_net.I_PRUNE], TDAgent().params):
        np.testing.assert_array_equal(a, b)  # the shipped model, unchanged
    meta = json.loads(str(np.load(run / "model.npz")["meta"]))
    with np.load(CHECKPOINTS / "backgammon-td.npz") as z:
        assert meta["games"] == json.loads(str(z["meta"]))["games"]  # the model's own, kept
    assert meta["prune"]["settings"]["prune_hidden"] == 4 and len(meta["prune"]["recall"]) == 7
    last = json.loads((run / "metrics.jsonl").read_text().splitlines()[-1])
    assert last["pass"] == prune.EPOCHS and last["rows"] > 0
    shares = [share for _, share, _ in last["recall"]]
    assert shares == sorted(shares) and 0 < shares[0] <= shares[-1] <= 1


def test_a_stopped_run_resumes_to_the_same_pruning_net(tmp_path, monkeypatch):
    whole = train.main(TINY + ["--ckpt-dir", str(tmp_path / "whole")])
    from boardgym.agents.backgammon import distill

    real = distill.fit_positions_adam
    calls = []

    def flaky(*args, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kw)

    monkeypatch.setattr(distill, "fit_positions_adam", flaky)
    cut = tmp_path / "cut"
    with pytest.raises(KeyboardInterrupt):
        train.main(TINY + ["--ckpt-dir", str(cut)])
    assert not (cut / "model.npz").exists()
    with np.load(cut / "latest.npz") as z:
        assert len(z["pass_errors"]) == 2
    monkeypatch.setattr(distill, "fit_positions_adam", real)
    again = train.main(TINY + ["--ckpt-dir", str(cut), "--resume", "--prune-hidden", "9"])
    for a, b in zip(whole, again):
        np.testing.assert_array_equal(a, b)  # the checkpoint's 4 units kept, not 9
