"""``boardgym train --algo ppo`` with the league from the installed wheel, as a user types it
(a tiny budget), and its error paths (one line, exit code 2)."""

import importlib.util
import json

import pytest
from wheel_install import ok, one_line_error


def test_ppo_league_run_from_the_wheel(wheel_cli, tmp_path):
    if importlib.util.find_spec("sb3_contrib") is None:
        pytest.skip("needs the [train] extra (torch, sb3-contrib)")
    ok(
        wheel_cli.run(
            "train",
            "--game",
            "draughts",
            "--algo",
            "ppo",
            "--steps",
            "1024",
            "--num-envs",
            "8",
            "--rollout",
            "64",
            "--batch-size",
            "256",
            "--epochs",
            "1",
            "--pool-size",
            "2",
            "--snapshot-every",
            "512",
            "--net-arch",
            "8",
            "--eval-games",
            "2",
            "--pfsp",
            "var",
            "--teacher",
            "none",
            "--quiet",
            "--no-tensorboard",
            "--ckpt-dir",
            "d-ppo",
            cwd=tmp_path,
        )
    )
    line = json.loads((tmp_path / "d-ppo" / "metrics.jsonl").read_text().splitlines()[-1])
    assert {"random", "recapture", "greedy"} <= set(line) and "elo_ci95" in line["greedy"]
    assert [m[0] for m in line["league"]] == ["random", "recapture", "greedy", "snap512"]
    for flag, value in (
        ("--rollout", "0"),
        ("--batch-size", "0"),
        ("--epochs", "0"),
        ("--pool-size", "0"),
    ):
        one_line_error(wheel_cli.run("train", "--algo", "ppo", flag, value, cwd=tmp_path), flag)
    one_line_error(
        wheel_cli.run("train", "--algo", "ppo", "--pfsp", "easy", cwd=tmp_path), "--pfsp"
    )
