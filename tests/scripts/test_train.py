"""boardgym train (scripts/train.py): the run directory is never overwritten unasked, every run
ends with an evaluation in metrics.jsonl (so ``boardgym evaluate --curve`` works after any run),
settings errors name the flag, TensorBoard is optional, the PPO recipes are the defaults and the
TD defaults are the library's."""

import dataclasses
import json
import os
import typing

import numpy as np
import pytest

from boardgym.agents.training import td
from boardgym.agents.training.run_log import prepare_run_dir
from boardgym.scripts import cli, evaluate, train

TINY = [
    "--game",
    "backgammon",
    "--algo",
    "td",
    "--hidden",
    "4",
    "--ckpt-every",
    "2",
    "--eval-games",
    "2",
    "--quiet",
    "--no-tensorboard",
]


def metrics_games(run):
    return [json.loads(t)["games"] for t in (run / "metrics.jsonl").read_text().splitlines()]


def test_a_new_run_refuses_a_non_empty_directory(tmp_path):
    run = tmp_path / "run"
    train.main(TINY + ["--games", "4", "--eval-every", "0", "--ckpt-dir", str(run)])
    assert metrics_games(run) == [4]  # no periodic evaluation asked: the final one
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    with pytest.raises(ValueError, match=r"is not empty .*--resume.*--force"):
        train.main(TINY + ["--games", "4", "--ckpt-dir", str(run)])
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before  # untouched
    # --resume continues the run there
    train.main(TINY + ["--games", "6", "--eval-every", "0", "--ckpt-dir", str(run), "--resume"])
    assert metrics_games(run) == [4, 6] and int(np.load(run / "latest.npz")["games"]) == 6
    # --force starts over: the old run's files move aside, the user's own files stay
    (run / "notes.txt").write_text("mine")
    train.main(TINY + ["--games", "2", "--eval-every", "0", "--ckpt-dir", str(run), "--force"])
    (old,) = run.glob("replaced-*")
    assert sorted(p.name for p in old.iterdir()) == [
        "games_4.npz",
        "games_6.npz",
        "latest.npz",
        "metrics.jsonl",
    ]
    assert metrics_games(old) == [4, 6] and (run / "notes.txt").read_text() == "mine"
    assert metrics_games(run) == [2] and not (run / "games_4.npz").exists()
    # a folder holding only someone else's files is refused too
    other = tmp_path / "other"
    other.mkdir()
    (other / "data.csv").write_text("1,2\n")
    with pytest.raises(ValueError, match="data.csv"):
        train.main(TINY + ["--games", "2", "--ckpt-dir", str(other)])


def test_every_run_ends_with_an_evaluation_and_draws_a_curve(tmp_path, capsys):
    for game in ("backgammon", "draughts"):
        run = tmp_path / game
        args = TINY[:]
        args[1] = game
        train.main(args + ["--games", "6", "--eval-every", "4", "--ckpt-dir", str(run)])
        assert metrics_games(run) == [4, 6]  # every --eval-every games, and at the end
        assert (run / "games_6.npz").is_file()
        res = evaluate.main(["--curve", str(run)])
        assert res["curves"][game]["random"].shape == (2, 4)
        rows = res["curves"][game]["random"]
        low, high = (-3, 3) if game == "backgammon" else (-1, 1)
        assert (rows[:, 2] >= low).all() and (rows[:, 3] <= high).all()
        assert (rows[:, 3] > rows[:, 2]).all()  # never an interval of zero width
    assert "vs random: ppg last" in capsys.readouterr().out


def test_a_td_run_says_where_it_saved_the_model(tmp_path, capsys):
    run = tmp_path / "run"
    args = [a for a in TINY if a != "--quiet"]
    train.main(args + ["--games", "4", "--eval-every", "0", "--ckpt-dir", str(run)])
    path = run / "games_4.npz"
    assert (
        f"saved the model (4 games) to {path}: play it with boardgym play --game backgammon "
        f"--agent {path}"
    ) in capsys.readouterr().out


def test_metrics_file_is_there_from_the_start(tmp_path, monkeypatch):
    """A run killed before its first evaluation leaves an empty metrics.jsonl, which
    ``boardgym evaluate --curve`` reports as such."""

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(
        td,
        "_backgammon_td_game",
        lambda real=td._backgammon_td_game: dataclasses.replace(real(), evaluate=killed),
    )
    run = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        train.main(TINY + ["--games", "4", "--eval-every", "0", "--ckpt-dir", str(run)])
    assert (run / "metrics.jsonl").read_text() == ""
    with pytest.raises(ValueError, match="no evaluations yet"):
        evaluate.main(["--curve", str(run)])


def test_settings_errors_name_the_flag(tmp_path, monkeypatch):
    for args, message in (
        (["--games", "0"], "--games must be positive"),
        (["--lam", "2"], "--lam must be in"),
        (["--resume", "--force"], "not both"),
        (["--net-arch", "64,,3"], "--net-arch"),
        (["--algo", "sarsa"], "--algo: invalid choice 'sarsa'"),
    ):
        with pytest.raises(ValueError, match=message):
            train.main(args + ["--ckpt-dir", str(tmp_path / "x")])
    with pytest.raises(ValueError, match="--resume: no checkpoint"):
        train.main(TINY + ["--ckpt-dir", str(tmp_path / "y"), "--resume"])
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "sb3_contrib" else real(name, *a),
    )
    with pytest.raises(
        ValueError, match=r"--algo ppo needs sb3_contrib: pip install 'boardgym\[train\]'"
    ):
        train.main(["--algo", "ppo", "--ckpt-dir", str(tmp_path / "z")])
    assert not any((tmp_path / d).exists() for d in "xyz")  # nothing made on the way


def test_without_tensorboard_the_run_still_logs_metrics(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(train, "tensorboard_available", lambda: False)
    run = tmp_path / "run"
    args = [a for a in TINY if a != "--no-tensorboard"]
    train.main(args + ["--games", "2", "--ckpt-dir", str(run)])
    assert "no TensorBoard logs" in capsys.readouterr().err
    assert not (run / "tb").exists() and metrics_games(run) == [2]


def test_prepare_run_dir(tmp_path):
    assert prepare_run_dir(tmp_path / "new") is None and (tmp_path / "new").is_dir()
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="is a file"):
        prepare_run_dir(tmp_path / "file")
    run = tmp_path / "run"
    os.makedirs(run / "tb")
    (run / "metrics.jsonl").write_text("{}\n")
    assert prepare_run_dir(run, resume=True) is None and (run / "metrics.jsonl").exists()
    moved = prepare_run_dir(run, force=True, owned=("metrics.jsonl", "tb", "absent_*"))
    assert sorted(os.listdir(moved)) == ["metrics.jsonl", "tb"]
    assert sorted(os.listdir(run)) == [os.path.basename(moved)]


def test_a_chunk_in_several_calls_is_the_same_games(tmp_path, monkeypatch):
    """The progress bar's sub-chunks (BAR_GAMES) leave the run bit for bit the same."""
    args = TINY + ["--games", "6", "--ckpt-every", "6", "--eval-every", "0"]
    one = train.main(args + ["--ckpt-dir", str(tmp_path / "one")])
    monkeypatch.setattr(td, "BAR_GAMES", 4)
    two = train.main(args + ["--ckpt-dir", str(tmp_path / "two")])
    assert all(np.array_equal(p, q) for p, q in zip(one, two))
    a, b = (np.load(tmp_path / run / "latest.npz") for run in ("one", "two"))
    assert np.array_equal(a["rng"], b["rng"]) and np.array_equal(a["stats"], b["stats"])


def test_ppo_defaults_are_the_shipped_recipes():
    """`boardgym train --algo ppo` with no other settings runs the commands of the shipped
    policies (PPO_RECIPES); anything given wins, --teacher none turns the teacher off, and td
    keeps its own defaults."""
    pytest.importorskip("sb3_contrib")
    for game in ("draughts", "backgammon"):
        cfg = cli.parse(train.Settings, ["--game", game, "--algo", "ppo"])
        for name, value in train.PPO_RECIPES[game].items():
            assert getattr(cfg, name) == value, (game, name)
        assert (cfg.ckpt_every, cfg.eval_every) == (500_000, 1_000_000)
    cfg = cli.parse(
        train.Settings,
        [
            "--game",
            "draughts",
            "--algo",
            "ppo",
            "--teacher",
            "none",
            "--net-arch",
            "64,64",
            "--seed",
            "0",
            "--steps",
            "5000",
            "--teacher-mix",
            "0",
        ],
    )
    assert (cfg.teacher, cfg.net_arch, cfg.seed, cfg.steps, cfg.teacher_mix) == (
        "",
        "64,64",
        0,
        5000,
        0.0,
    )
    assert cfg.teacher_games == 4096  # the recipe's, unused without a teacher
    cfg = cli.parse(
        train.Settings,
        [
            "--game",
            "backgammon",
            "--algo",
            "ppo",
            "--teacher",
            "backgammon-greedy",
            "--steps",
            "None",
        ],
    )
    assert (cfg.teacher, cfg.steps) == ("backgammon-greedy", 1_000_000)
    cfg = cli.parse(train.Settings, ["--game", "backgammon"])
    assert cfg.algo == "td" and cfg.teacher == "" and cfg.seed == 0 and cfg.eval_games == 400
    assert train.PPO_RECIPES["draughts"]["teacher"] == "draughts-alphabeta:depth=4"


def test_the_td_defaults_are_the_library_ones():
    """td.TDSettings (what the library's TD runs take) has the command's TD defaults."""
    cfg = cli.parse(train.Settings, ["--algo", "td"])
    for field in dataclasses.fields(td.TDSettings):
        assert getattr(cfg, field.name) == field.default, field.name


def test_the_distill_fit_plies_and_teacher_choices_are_the_library_ones():
    from boardgym.agents.backgammon.distill import FITS, TARGET_PLIES, TEACHER_PRECISIONS

    hints = typing.get_type_hints(train.Settings)
    assert typing.get_args(hints["distill_fit"]) == FITS
    assert typing.get_args(hints["distill_plies"]) == TARGET_PLIES
    assert typing.get_args(hints["distill_teacher"]) == TEACHER_PRECISIONS


@pytest.mark.parametrize(
    "args, match",
    [
        (["--game", "chess"], "--game: invalid choice 'chess'"),
        (["--game", "draughts", "--model", "gnubg"], "--model gnubg"),
        (["--model", "gnubg", "--lam", "0.5"], "--model gnubg trains by TD.0.: --lam must be 0"),
        (["--game", "draughts", "--epsilon", "1.5"], "--epsilon must be in"),
        (["--distill-rounds", "-1"], "--distill-rounds"),
        (["--distill-rounds", "1"], "--model gnubg"),
        (["--model", "gnubg", "--distill-alt", "2"], "--distill-alt"),
        (["--model", "gnubg", "--distill-plies", "3"], "--distill-plies: invalid choice .3."),
        (["--model", "gnubg", "--distill-alpha", "0"], "--distill-alpha"),
        (["--model", "gnubg", "--distill-prune", "4"], "--distill-prune is for --distill-plies 2"),
        (["--model", "gnubg", "--distill-prune", "-1"], "--distill-prune must be >= 0"),
        (["--model", "gnubg", "--distill-hidden", "160"], "--distill-hidden is for --distill-rou"),
        (
            ["--model", "gnubg", "--distill-rounds", "1", "--hidden", "8"]
            + ["--distill-hidden", "12"],
            "--distill-hidden must be 0 or a whole multiple of --hidden 8, got 12",
        ),
        (["--model", "gnubg", "--distill-fit", "lbfgs"], "--distill-fit: invalid choice 'lbfgs'"),
        (["--teacher", "greedy"], "--teacher is for --algo ppo"),
        (["--start-from", "w.npz"], "--start-from is for --algo rollout or prune, or --algo td"),
        (["--game", "draughts", "--algo", "prune"], "--algo prune is for backgammon"),
        (["--algo", "prune", "--prune-games", "0"], "--prune-games must be positive"),
        (["--algo", "prune", "--start-from", "no-such.npz"], "--start-from: cannot read"),
        (["--game", "draughts", "--start-from", "w.npz"], "--start-from is for"),
        (["--model", "gnubg", "--start-from", "no-such.npz"], "--start-from: cannot read"),
        (["--algo", "rollout", "--start-from", "no-such.npz"], "--start-from: cannot read"),
        (["--algo", "ppo", "--teacher", "greedy", "--teacher-explore", "1.5"], "--teacher-explore"),
        (["--algo", "ppo", "--net-arch", "64,x"], "--net-arch must be"),
    ]
    + [
        (["--alpha-steps", bad], "--alpha-steps")
        for bad in ("10", "10:0", "x:0.1", "10:0.1,5:0.01", "10:nan", "-3:0.1")
    ],
)
def test_bad_flags_are_usage_errors_naming_the_flag(args, match, tmp_path):
    if "ppo" in args:
        pytest.importorskip("sb3_contrib")
    with pytest.raises(cli.UsageError, match=match):
        train.main(args + ["--ckpt-dir", str(tmp_path / "run"), "--quiet"])
    assert not (tmp_path / "run").exists()


def test_a_bad_teacher_spec_is_refused_before_the_run_directory_is_made(tmp_path):
    pytest.importorskip("sb3_contrib")
    run = tmp_path / "run"
    args = ["--game", "draughts", "--algo", "ppo", "--teacher", "draughts-nonsense"]
    with pytest.raises(ValueError, match="'draughts-nonsense' is not a draughts teacher"):
        train.main(args + ["--ckpt-dir", str(run), "--quiet"])
    assert not run.exists()
