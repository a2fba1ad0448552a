"""The run lifecycle (boardgym.agents.training.lifecycle): a run interrupted and resumed ends
with the checkpoint and metrics of an uninterrupted one; a bad run directory, a missing,
unreadable or mismatched checkpoint is a ValueError naming it; the two cadences."""

import json

import numpy as np
import pytest

from boardgym.agents.training import lifecycle, td
from boardgym.agents.training.lifecycle import Run, chunk, due


def _quiet(train, **settings):
    return train(td.TDSettings(tensorboard=False, **settings), log=lambda text: None)


def _checkpoint(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files if k != "seconds"}


def _metrics(run):
    lines = [json.loads(t) for t in (run / "metrics.jsonl").read_text().splitlines()]
    return [{k: v for k, v in line.items() if k != "seconds"} for line in lines]


@pytest.mark.parametrize("interrupted_at", [1, 2, 3])
def test_a_resumed_run_ends_as_the_uninterrupted_one(tmp_path, monkeypatch, interrupted_at):
    """Killed while writing a checkpoint (so the run continues from the one before), resumed:
    every array of the final checkpoint but the wall time, every file and every metrics line
    are those of the run that was never interrupted."""
    settings = dict(game="draughts", hidden=4, seed=2, games=30, ckpt_every=10, eval_every=20)
    settings["eval_games"] = 4
    full = _quiet(td.train_draughts_td, ckpt_dir=str(tmp_path / "a"), **settings)
    save, calls = lifecycle.save_npz, []

    def killed(path, **arrays):
        calls.append(path)
        if len(calls) == interrupted_at:
            raise KeyboardInterrupt
        save(path, **arrays)

    monkeypatch.setattr(lifecycle, "save_npz", killed)
    with pytest.raises(KeyboardInterrupt):
        _quiet(td.train_draughts_td, ckpt_dir=str(tmp_path / "b"), **settings)
    monkeypatch.setattr(lifecycle, "save_npz", save)
    if interrupted_at > 1:
        assert int(np.load(tmp_path / "b" / "latest.npz")["games"]) == 10 * (interrupted_at - 1)
        resumed = _quiet(
            td.train_draughts_td, ckpt_dir=str(tmp_path / "b"), resume=True, **settings
        )
    else:  # no checkpoint yet: nothing to resume, the run starts over
        with pytest.raises(ValueError, match="--resume: no checkpoint .*latest.npz"):
            _quiet(td.train_draughts_td, ckpt_dir=str(tmp_path / "b"), resume=True, **settings)
        resumed = _quiet(td.train_draughts_td, ckpt_dir=str(tmp_path / "b"), force=True, **settings)
    for p, q in zip(full, resumed):
        assert np.array_equal(p, q)
    a, b = _checkpoint(tmp_path / "a" / "latest.npz"), _checkpoint(tmp_path / "b" / "latest.npz")
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a if k != "settings")
    settings_a, settings_b = (json.loads(str(c["settings"])) for c in (a, b))
    assert {**settings_a, "ckpt_dir": "", "resume": False, "force": False} == {
        **settings_b,
        "ckpt_dir": "",
        "resume": False,
        "force": False,
    }
    assert _metrics(tmp_path / "a") == _metrics(tmp_path / "b")
    assert [m["games"] for m in _metrics(tmp_path / "a")] == [20, 30]
    assert sorted(p.name for p in (tmp_path / "b").glob("games_*.npz")) == [
        "games_20.npz",
        "games_30.npz",
    ]


def test_bad_run_directories_and_checkpoints_are_value_errors_naming_them(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="run directory .*file.* is a file"):
        Run(tmp_path / "file", "latest.npz", (), "games")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("x")
    with pytest.raises(ValueError, match=r"run directory .*mine.* is not empty \(notes.txt\)"):
        Run(mine, "latest.npz", (), "games")
    run = Run(mine, "latest.npz", (), "games", resume=True)
    with pytest.raises(ValueError, match="--resume: no checkpoint .*mine/latest.npz"):
        run.load(np.load)
    (mine / "latest.npz").write_bytes(b"not an npz file")
    with pytest.raises(
        ValueError, match="--resume: .*mine/latest.npz is not a readable checkpoint"
    ):
        run.load(np.load)
    # a draughts run's checkpoint resumed as a backgammon run, a tesauro one as gnubg
    draughts = tmp_path / "draughts"
    _quiet(
        td.train_draughts_td,
        game="draughts",
        hidden=4,
        games=2,
        ckpt_every=2,
        ckpt_dir=str(draughts),
    )
    with pytest.raises(ValueError, match="draughts/latest.npz is a draughts .tesauro. run's"):
        _quiet(td.train_backgammon_td, hidden=4, games=4, ckpt_dir=str(draughts), resume=True)
    tesauro = tmp_path / "tesauro"
    _quiet(td.train_backgammon_td, hidden=4, games=2, ckpt_every=2, ckpt_dir=str(tesauro))
    with pytest.raises(ValueError, match=r"tesauro/latest.npz is a backgammon \(tesauro\) run's"):
        _quiet(
            td.train_backgammon_td,
            model="gnubg",
            hidden=4,
            games=4,
            ckpt_dir=str(tesauro),
            resume=True,
        )


def test_a_ppo_checkpoint_that_is_not_one_is_named(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from boardgym.agents.training.ppo import train_ppo

    run = tmp_path / "run"
    run.mkdir()
    torch.save({"model": b""}, run / "resume.pt")
    with pytest.raises(ValueError, match="run/resume.pt is not a PPO run's checkpoint .*setup"):
        train_ppo("draughts", 1024, run, resume=True, log=lambda text: None)
    (run / "resume.pt").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="run/resume.pt is not a readable checkpoint"):
        train_ppo("draughts", 1024, run, resume=True, log=lambda text: None)


def test_the_run_clock_carries_the_checkpoints_seconds(tmp_path):
    run = Run(tmp_path / "run", "latest.npz", (), "games")
    run.open_log(None, False, seconds=5.0)
    assert 5.0 <= run.seconds() < 65.0
    run.close()


def test_chunk_stops_at_the_next_checkpoint_evaluation_or_end():
    assert chunk(0, 100, 30, 40) == 30
    assert chunk(30, 100, 30, 40) == 10  # the evaluation at 40
    assert chunk(40, 100, 30, 40) == 30
    assert chunk(90, 100, 30, 0) == 10  # the end; no periodic evaluation
    assert chunk(0, 100, 500, 0) == 100


def test_due_moves_the_next_step_past_the_current_one():
    counters = {"steps": 0, "next": 512}
    assert not due(counters, "next", 512) and counters["next"] == 512
    counters["steps"] = 512
    assert due(counters, "next", 512) and counters["next"] == 1024
    assert not due(counters, "next", 512)
    counters["steps"] = 2100  # several periods at once: due once
    assert due(counters, "next", 512) and counters["next"] == 2560
    assert not due(counters, "next", 0)


def test_a_gnubg_td_run_goes_on_from_a_weights_file(tmp_path):
    """--start-from: the run starts from the file's model (its sizes, not --hidden's), trains it,
    says the sizes in its settings, and resumes like any run; a file that is not a gnubg-input
    model is refused by name."""
    from boardgym.agents.backgammon.agents import TDAgent
    from boardgym.agents.backgammon.weights import load_weights, save_weights

    start = tmp_path / "start.npz"
    shipped = TDAgent().params
    save_weights(start, shipped)
    common = dict(model="gnubg", start_from=str(start), alpha=0.01, games=4, ckpt_every=2)
    common["eval_games"] = 2
    net = _quiet(td.train_backgammon_td, hidden=4, ckpt_dir=str(tmp_path / "a"), **common)
    assert net[1].shape == shipped[1].shape and net[6].shape == shipped[6].shape
    assert not np.array_equal(net[1], shipped[1])  # trained
    assert np.abs(net[1] - shipped[1]).max() < 0.05  # from the file's weights, not fresh ones
    with np.load(tmp_path / "a" / "latest.npz") as z:
        saved = json.loads(str(z["settings"]))
    assert (saved["hidden"], saved["race_hidden"]) == (shipped[2].size, shipped[6].size)
    # the same run stopped at 2 games and resumed ends with the same model
    _quiet(td.train_backgammon_td, **{**common, "games": 2}, ckpt_dir=str(tmp_path / "b"))
    again = _quiet(td.train_backgammon_td, **common, ckpt_dir=str(tmp_path / "b"), resume=True)
    assert all(np.array_equal(x, y) for x, y in zip(net, again))
    assert all(
        np.array_equal(x, y) for x, y in zip(load_weights(tmp_path / "b" / "games_4.npz"), net)
    )
    tesauro = tmp_path / "tesauro.npz"
    save_weights(tesauro, (np.zeros((196, 3)), np.zeros(3), np.zeros((3, 5)), np.zeros(5)))
    with pytest.raises(ValueError, match="tesauro.npz: not a gnubg-input model"):
        _quiet(
            td.train_backgammon_td,
            **{**common, "start_from": str(tesauro)},
            ckpt_dir=str(tmp_path / "c"),
        )
