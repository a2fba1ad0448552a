"""boardgym train --algo rollout and boardgym rollout-bench: tiny runs, the library's defaults,
flag errors naming the flag."""

import dataclasses
import json

import numpy as np
import pytest

from boardgym.agents.training import rollouts
from boardgym.scripts import cli, rollout_bench, train

TINY = ["--game", "backgammon", "--algo", "rollout", "--positions", "6", "--trials", "2"]
TINY += ["--plies", "2", "--quiet", "--no-tensorboard"]


def test_the_rollout_defaults_are_the_library_ones():
    cfg = cli.parse(train.Settings, ["--algo", "rollout"])
    for field in dataclasses.fields(rollouts.RolloutSettings):
        assert getattr(cfg, field.name) == field.default, field.name


def test_a_tiny_rollout_run_and_its_resume(tmp_path):
    run = tmp_path / "run"
    train.main(TINY + ["--ckpt-dir", str(run)])
    train.main(TINY + ["--rounds", "2", "--resume", "--ckpt-dir", str(run)])
    lines = [json.loads(t) for t in (run / "metrics.jsonl").read_text().splitlines()]
    assert [t["round"] for t in lines] == [0, 1, 2]
    assert int(np.load(run / "latest.npz")["round"]) == 2 and (run / "round_2.npz").exists()


@pytest.mark.parametrize(
    "args, match",
    [
        (["--game", "draughts", "--algo", "rollout"], "--algo rollout is for backgammon"),
        (["--algo", "rollout", "--trials", "0"], "--trials"),
        (["--algo", "rollout", "--fit-alpha", "0"], "--fit-alpha"),
    ],
)
def test_bad_rollout_flags_name_the_flag(args, match, tmp_path):
    with pytest.raises(cli.UsageError, match=match):
        train.main(args + ["--ckpt-dir", str(tmp_path / "run"), "--quiet"])


def test_rollout_bench_builds_and_scores(tmp_path, capsys):
    path = str(tmp_path / "set.npz")
    rollout_bench.main(["--build", "--decisions", "3", "--trials", "2", "--plies", "2"]
                       + ["--set", path])  # fmt: skip
    res = rollout_bench.main(["backgammon-td:plies=0", "--set", path, "--first", "2"])
    s = res["backgammon-td:plies=0"]
    assert s["decisions"] == 2 and s["memg"] >= 0
    assert "mEMG/move over 2 decisions" in capsys.readouterr().out
    with pytest.raises(cli.UsageError, match="--build needs --set"):
        rollout_bench.main(["--build"])
