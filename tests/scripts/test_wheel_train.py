"""``boardgym train / evaluate / eval-gnubg / train-eval`` from the installed wheel (no checkout on
the path), exactly as a user types them, and their error paths (one line, exit code 2)."""

import importlib.util
import json

from wheel_install import ok, one_line_error


def test_evaluate_as_the_readme_writes_it(wheel_cli):
    out = ok(
        wheel_cli.run("evaluate", "draughts-greedy", "random", "--game", "draughts", "--games", "4")
    )
    assert "draughts-greedy v random: 4 games" in out and "points/game" in out
    out = ok(
        wheel_cli.run("evaluate", "backgammon-td", "random", "--game", "backgammon", "--games", "4")
    )
    assert "backgammon-td v random: 4 games" in out and "Elo" in out


def test_train_then_curve_then_refusal_resume_force(wheel_cli, tmp_path):
    tiny = ["--hidden", "4", "--ckpt-every", "2", "--eval-games", "2", "--no-tensorboard"]
    ok(
        wheel_cli.run(
            "train", "--game", "draughts", "--algo", "td", "--games", "4", *tiny, cwd=tmp_path
        )
    )
    run = tmp_path / "runs" / "draughts-td"  # the default run directory
    lines = [json.loads(t) for t in (run / "metrics.jsonl").read_text().splitlines()]
    assert [m["games"] for m in lines] == [4]  # a short run still ends with an evaluation
    out = ok(wheel_cli.run("evaluate", "--curve", "runs/draughts-td", cwd=tmp_path))
    assert "vs random: ppg last" in out and "vs recapture" in out
    before = (run / "metrics.jsonl").read_bytes()
    r = wheel_cli.run(
        "train", "--game", "draughts", "--algo", "td", "--games", "4", *tiny, cwd=tmp_path
    )
    one_line_error(r, "is not empty", "--resume", "--force")
    assert (run / "metrics.jsonl").read_bytes() == before
    ok(
        wheel_cli.run(
            "train",
            "--game",
            "draughts",
            "--algo",
            "td",
            "--games",
            "6",
            *tiny,
            "--resume",
            "--quiet",
            cwd=tmp_path,
        )
    )
    assert len((run / "metrics.jsonl").read_text().splitlines()) == 2
    ok(
        wheel_cli.run(
            "train",
            "--game",
            "draughts",
            "--algo",
            "td",
            "--games",
            "2",
            *tiny,
            "--force",
            "--quiet",
            cwd=tmp_path,
        )
    )
    assert len(list(run.glob("replaced-*/metrics.jsonl"))) == 1


def test_eval_gnubg_against_the_random_player(wheel_cli):
    out = ok(
        wheel_cli.run(
            "eval-gnubg",
            "--agent",
            "backgammon-greedy",
            "--opponent",
            "random",
            "--games",
            "4",
            "--quiet",
        )
    )
    assert "backgammon-greedy vs random: 4 games" in out and "points per game (95% [" in out
    if importlib.util.find_spec("gnubg_nn") is not None:
        out = ok(wheel_cli.run("eval-gnubg", "--opponent", "pubeval", "--games", "2", "--quiet"))
        assert "backgammon-td vs pubeval: 2 games" in out


def test_train_eval_writes_its_own_file_never_a_shipped_one(wheel_cli, tmp_path):
    tiny = [
        "--positions",
        "20",
        "--label-depth",
        "1",
        "--play-depth",
        "1",
        "--epochs",
        "1",
        "--hidden",
        "4",
        "--quiet",
    ]
    out = ok(wheel_cli.run("train-eval", *tiny, "--out", "eval.npz", cwd=tmp_path))
    assert "wrote eval.npz" in out and (tmp_path / "eval.npz").is_file()
    one_line_error(
        wheel_cli.run("train-eval", *tiny, "--out", "eval.npz", cwd=tmp_path), "exists", "--force"
    )
    shipped = wheel_cli.python_code(
        "from boardgym.agents.registry import CHECKPOINTS; "
        "print(CHECKPOINTS / 'draughts-alphabeta.npz')"
    ).stdout.strip()
    assert "site-packages/boardgym/agents/checkpoints" in shipped
    one_line_error(
        wheel_cli.run("train-eval", *tiny, "--out", shipped, "--force"), "shipped checkpoints"
    )


def test_bad_arguments_one_line_exit_2(wheel_cli, tmp_path):
    one_line_error(wheel_cli.run("train", "--game", "chess"), "--game", "chess")
    one_line_error(wheel_cli.run("train", "--games", "-5"), "--games")
    one_line_error(
        wheel_cli.run("train", "--resume", "--ckpt-dir", str(tmp_path / "none")), "no checkpoint"
    )
    one_line_error(wheel_cli.run("evaluate", "draughts-nope", "random"), "nope")
    one_line_error(wheel_cli.run("evaluate", "random"), "at least two agents")
    one_line_error(wheel_cli.run("evaluate", "--curve", str(tmp_path)), "no metrics.jsonl")
    one_line_error(wheel_cli.run("eval-gnubg", "--games", "0"), "--games")
    one_line_error(
        wheel_cli.run("eval-gnubg", "--opponent", "random", "--agent", "draughts-greedy"),
        "draughts",
    )
    one_line_error(wheel_cli.run("train-eval", "--positions", "3"), "--positions")
    out = ok(wheel_cli.run("train", "--help"))
    assert "--force" in out and "(default: 100000)" in out and "--resume" in out


def test_ppo_train_and_load_by_name_with_a_path(wheel_cli, tmp_path):
    if importlib.util.find_spec("sb3_contrib") is None:
        import pytest

        pytest.skip("needs the [train] extra (torch, sb3-contrib)")
    ok(
        wheel_cli.run(
            "train",
            "--game",
            "backgammon",
            "--algo",
            "ppo",
            "--steps",
            "1024",
            "--num-envs",
            "8",
            "--net-arch",
            "8",
            "--eval-games",
            "2",
            "--teacher",
            "none",
            "--quiet",
            "--no-tensorboard",
            "--ckpt-dir",
            "bg-ppo",
            cwd=tmp_path,
        )
    )
    assert len((tmp_path / "bg-ppo" / "metrics.jsonl").read_text().splitlines()) == 1
    out = ok(
        wheel_cli.run(
            "evaluate",
            "backgammon-ppo:path=bg-ppo/ppo.zip",
            "random",
            "--games",
            "2",
            "--quiet",
            cwd=tmp_path,
        )
    )
    assert "backgammon-ppo:path=bg-ppo/ppo.zip v random: 2 games" in out
    one_line_error(
        wheel_cli.run("evaluate", "draughts-ppo:path=bg-ppo/ppo.zip", "random", cwd=tmp_path),
        "bg-ppo/ppo.zip is a backgammon policy",
    )
