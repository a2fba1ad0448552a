"""boardgym evaluate (scripts/evaluate.py): summaries of synthetic results, the agents it builds,
smoke runs, the engines' strength against random, learning curves from metrics.jsonl, Elo
intervals and plots (the statistics themselves: tests/agents/arena/test_stats.py; spec parsing:
tests/agents/test_registry.py)."""

from pathlib import Path

import numpy as np
import pytest

from boardgym.agents.arena.stats import wilson
from boardgym.scripts import cli
from boardgym.scripts import evaluate as ev


def test_summary_counts_and_intervals():
    s = ev.summarize([1] * 50 + [0] * 20 + [-1] * 30)
    assert (s["wins"], s["draws"], s["losses"], s["games"]) == (50, 20, 30, 100)
    assert s["score"] == pytest.approx(0.6) and s["points_per_game"] == pytest.approx(0.2)
    lo, hi = s["score_interval"]
    assert lo < 0.6 < hi and hi - lo == pytest.approx(0.169, abs=0.002)  # draws: less spread
    assert ev.format_results(s["results"]) == ""  # single-point games: nothing to break down
    plo, phi = s["ppg_interval"]
    assert -1 <= plo < 0.2 < phi <= 1
    s = ev.summarize([1, 1, 1, 0])  # inside the possible range, not +0.750 [+0.470, +1.030]
    assert s["ppg_interval"][1] <= 1.0
    s = ev.summarize([1, 1])  # two identical games: not +1.000 +- 0.000
    lo, hi = s["ppg_interval"]
    assert -1.0 <= lo < 0.5 and hi == 1.0
    assert f"points/game +1.000 [{lo:+.3f}, +1.000]" in ev.format_summary("a", "b", s)
    with pytest.raises(ValueError, match="lie in"):
        ev.summarize([2, -1])  # a draughts game scores at most one point
    s = ev.summarize(
        [2, -1, 3, 0, 2, -2], "backgammon"
    )  # backgammon points: gammons and backgammons
    assert s["points_per_game"] == pytest.approx(4 / 6) and s["wins"] == 3
    assert s["results"] == {-2.0: 1, -1.0: 1, 0.0: 1, 2.0: 2, 3.0: 1}
    assert (
        ev.format_results(s["results"])
        == "  (wins 2 gammon, 1 backgammon; losses 1 single, 1 gammon)"
    )


def test_smoke_match_and_round_robin(capsys):
    res = ev.main(["greedy", "random", "--games", "4", "--seed", "1"])
    out = capsys.readouterr().out
    assert "greedy v random: 4 games" in out and "Elo" in out
    assert res["pairs"][(0, 1)]["games"] == 4
    res = ev.main(
        ev.Settings(
            agents=["alphabeta-material:depth=2", "greedy", "random"],
            games=2,
            seed=2,
            quiet=True,
            observation_only=True,
        )
    )
    out = capsys.readouterr().out
    assert "round-robin Elo" in out and len(res["elo"]) == 3
    assert len(res["pairs"]) == 3


def test_a_small_match_prints_one_interval_story_and_one_progress_line(capsys):
    """4 wins of 4 printed points/game [-0.092, +1.000] beside score [0.510, 1.000], and two
    progress lines, the second the summary's twin."""
    s = ev.summarize([1, 1, 1, 1])
    line = ev.format_summary("a", "b", s)
    assert "points/game +1.000 [+0.020, +1.000]  score 1.000 [0.510, 1.000]" in line
    assert line.endswith("Elo above +7")  # no upper end: a bound, not "+inf"
    ev.main(["random", "random", "--games", "4", "--seed", "1"])
    out = capsys.readouterr().out
    assert out.count("  random v random: ") == 1 and "  random v random: 2 games" in out
    ev.main(["random", "random", "--games", "2", "--seed", "1"])
    assert "  random v random: " not in capsys.readouterr().out


def test_same_opening_for_both_colour_orders():
    cfg = ev.Settings(agents=["random", "random"])
    env = ev.make_env(cfg)
    a = ev.random_opening(env, 5, 3)
    b = ev.random_opening(env, 5, 3)
    assert a == b and len(a) >= 3
    assert len(env.moves) == 3


def test_backgammon_pair_runs_with_random_agents():
    res = ev.main(
        ["random", "random", "--game", "backgammon", "--games", "2", "--max-moves", "400"]
    )
    s = res["pairs"][(0, 1)]
    assert s["games"] == 2 and s["wins"] + s["losses"] + s["draws"] == 2


def test_external_backgammon_engines_play_through_the_env():
    """GNU Backgammon (gnubg-nn, GPL: via scripts/eval_gnubg.py) as an evaluate.py opponent."""
    pytest.importorskip("gnubg_nn")
    res = ev.main(
        ["gnubg0", "random", "pubeval", "--game", "backgammon", "--games", "4", "--quiet"]
    )
    assert res["pairs"][(0, 1)]["wins"] == 4  # gnubg0 v random
    assert res["pairs"][(1, 2)]["losses"] == 4  # random v pubeval
    with pytest.raises(ValueError, match="backgammon engine"):
        ev.main(["gnubg0", "random", "--game", "draughts"])


def test_bad_settings():
    with pytest.raises(ValueError, match="--game: invalid choice 'chess'"):
        ev.main(["random", "random", "--game", "chess"])
    with pytest.raises(ValueError, match="unknown game"):
        ev.main(ev.Settings(agents=["random", "random"], game="chess"))
    with pytest.raises(ValueError, match="different games"):
        ev.main(["backgammon-td", "draughts-greedy"])
    with pytest.raises(ValueError, match="at least two"):
        ev.main(ev.Settings(agents=["random"]))
    with pytest.raises(ValueError, match="unknown draughts agent"):
        ev.main(["random", "nope"])


# ---- strength of the draughts engines (played by the evaluate command) -----------------------
def test_alphabeta_depth4_never_loses_to_random():
    cfg = ev.Settings(agents=["alphabeta-material:depth=4", "random"], games=20, seed=3)
    points = ev.play_pair(cfg, cfg.agents[0], cfg.agents[1], pair_seed=3, log=lambda *_: None)
    assert len(points) == 20 and min(points) >= 0 and sum(points) >= 18


def test_greedy_beats_random_clearly():
    cfg = ev.Settings(agents=["greedy", "random"], games=40, seed=4, quiet=True)
    s = ev.summarize(ev.play_pair(cfg, "greedy", "random", pair_seed=4))
    assert s["score_interval"][0] > 0.75


# ---- learning curves from metrics.jsonl --------------------------------------------------------
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def write_run(folder, lines):
    """A run directory holding metrics.jsonl with the given lines (dicts, or raw strings)."""
    import json

    folder.mkdir(parents=True, exist_ok=True)
    text = "".join((ln if isinstance(ln, str) else json.dumps(ln)) + "\n" for ln in lines)
    (folder / "metrics.jsonl").write_text(text)
    return str(folder)


def synthetic_lines(n, slope, with_steps=True):
    """n evaluations of a learner improving by slope ppg per evaluation against two opponents."""
    lines = []
    for i in range(1, n + 1):
        ln = {"games": 1000 * i, "seconds": 12.5 * i}
        if with_steps:
            ln["steps"] = 60_000 * i
        ln["random"] = {
            "ppg": 0.5 + slope * i,
            "ci95": 0.1,
            "win_rate": min(0.6 + 0.03 * i, 1.0),
            "games": 400,
        }
        ln["greedy"] = {"ppg": -0.8 + slope * i, "ci95": 0.15, "win_rate": 0.3 + 0.02 * i}
        lines.append(ln)
    return lines


def assert_nontrivial_png(path, min_bytes=10_000):
    import matplotlib.image

    data = Path(path).read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert len(data) > min_bytes
    img = matplotlib.image.imread(path)
    assert img.ndim == 3 and img.shape[0] > 150 and img.shape[1] > 300
    rgb = img[..., :3].reshape(-1, 3)
    assert len(np.unique(rgb, axis=0)) > 50  # lines, bands, text: many distinct colours
    assert (rgb.min(axis=1) < 0.9).mean() > 0.01  # not a blank page


def test_curve_of_two_runs_writes_a_png(tmp_path, capsys):
    a = write_run(tmp_path / "run_a", synthetic_lines(8, 0.1))
    b = write_run(tmp_path / "run_b", synthetic_lines(5, 0.05))
    out = tmp_path / "plots" / "curve.png"
    res = ev.main(["--curve", a, b, "--plot", str(out)])
    assert res["plots"] == [str(out)]
    assert_nontrivial_png(out)
    rows = res["curves"]["run_a"]["greedy"]
    assert rows.shape == (8, 4)
    np.testing.assert_allclose(rows[:, 0], 1000 * np.arange(1, 9))
    np.testing.assert_allclose(rows[:, 1] - rows[:, 2], 0.15)  # low = ppg - ci95
    np.testing.assert_allclose(rows[:, 3] - rows[:, 1], 0.15)
    assert set(res["curves"]) == {"run_a", "run_b"} and len(res["curves"]["run_b"]["random"]) == 5
    text = capsys.readouterr().out
    assert "run_b" in text and "vs greedy: ppg last -0.550" in text and "wrote" in text
    # win rate against wall time: a Wilson interval where the entry counts its games, else none
    out2 = tmp_path / "curve_wr.png"
    res = ev.main(ev.Settings(curve=[a], x="seconds", y="win_rate", plot=str(out2)))
    assert_nontrivial_png(out2)
    r = res["curves"]["run_a"]["random"]
    np.testing.assert_allclose(r[:, 0], 12.5 * np.arange(1, 9))
    lo, hi = wilson(0.63 * 400, 400)
    assert r[0, 2] == pytest.approx(lo) and r[0, 3] == pytest.approx(hi)
    assert np.isnan(res["curves"]["run_a"]["greedy"][:, 2:]).all()


def test_curve_without_plot_only_prints(tmp_path, capsys):
    a = write_run(tmp_path / "r", synthetic_lines(3, 0.1))
    res = ev.main(["--curve", a])
    assert res["plots"] == [] and not list(tmp_path.glob("*.png"))
    assert "vs random: ppg last +0.800 [+0.700, +0.900] at games 3000" in capsys.readouterr().out


def test_curve_reads_interval_pairs(tmp_path):
    """metrics.jsonl entries written by stats.points_summary: ci95 is [low, high]."""
    lines = synthetic_lines(3, 0.1)
    for ln in lines:
        ln["random"]["ci95"] = [ln["random"]["ppg"] - 0.3, min(ln["random"]["ppg"] + 0.05, 1.0)]
    res = ev.main(["--curve", write_run(tmp_path / "r", lines)])
    rows = res["curves"]["r"]["random"]
    np.testing.assert_allclose(rows[:, 2], rows[:, 1] - 0.3)
    np.testing.assert_allclose(rows[:, 3], np.minimum(rows[:, 1] + 0.05, 1.0))
    lines[1]["random"]["ci95"] = [0.9, 1.0]  # does not contain the ppg 0.7
    with pytest.raises(ValueError, match="line 2.*does not contain"):
        ev.main(["--curve", write_run(tmp_path / "bad", lines)])


@pytest.mark.parametrize(
    "bad, message",
    [
        ('{"games": 3000, "random": {"ppg": 0.1, "ci95"', "line 3: not valid JSON"),
        ("[1, 2, 3]", "line 3: expected a JSON object"),
        ('{"games": 3000, "seconds": 1.0}', "line 3: no opponent entries"),
        ('{"games": 3000, "random": {"ppg": 0.1}}', "line 3: opponent 'random' has no 'ci95'"),
        ('{"games": "many", "random": {"ppg": 0.1, "ci95": 0.1}}', "line 3, 'games'"),
    ],
)
def test_malformed_metrics_line_is_named(tmp_path, bad, message):
    lines = synthetic_lines(2, 0.1) + [bad] + synthetic_lines(1, 0.1)
    run = write_run(tmp_path / "run", lines)
    with pytest.raises(ValueError, match=message) as err:
        ev.main(["--curve", run, "--plot", str(tmp_path / "x.png")])
    assert "metrics.jsonl" in str(err.value)
    assert not (tmp_path / "x.png").exists()


def test_curve_x_key_missing_or_unknown(tmp_path):
    run = write_run(tmp_path / "td", synthetic_lines(3, 0.1, with_steps=False))
    with pytest.raises(ValueError, match=r"line 1: no 'steps' key for --x steps"):
        ev.main(["--curve", run, "--x", "steps"])
    ev.main(["--curve", run, "--x", "seconds"])  # the keys the lines have work
    with pytest.raises(ValueError, match="--x: invalid choice 'hours'"):
        cli.parse(ev.Settings, ["--curve", run, "--x", "hours"])  # the Literal's choices
    with pytest.raises(ValueError, match="unknown --y"):
        ev.main(ev.Settings(curve=[run], y="elo"))


def test_curve_and_agent_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="no metrics.jsonl in run directory"):
        ev.main(["--curve", str(tmp_path)])
    with pytest.raises(ValueError, match="at least two agents.*--curve"):
        ev.main([])
    run = write_run(tmp_path / "r", synthetic_lines(2, 0.1))
    with pytest.raises(ValueError, match="not both"):
        ev.main(["greedy", "random", "--curve", run])
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "metrics.jsonl").write_text("\n")
    with pytest.raises(ValueError, match="no evaluations yet"):
        ev.main(["--curve", str(tmp_path / "empty")])


def test_round_robin_with_plot_writes_a_png(tmp_path, capsys):
    out = tmp_path / "elo.png"
    res = ev.main(
        [
            "random",
            "random",
            "greedy",
            "--games",
            "2",
            "--max-moves",
            "120",
            "--quiet",
            "--seed",
            "3",
            "--plot",
            str(out),
        ]
    )
    assert res["plots"] == [str(out)]
    assert_nontrivial_png(out, min_bytes=5_000)
    low, high = res["elo_interval"]
    assert ((low < res["elo"]) & (res["elo"] < high)).all()
    text = capsys.readouterr().out
    assert "95% intervals" in text and f"[{low[0]:+6.0f}, {high[0]:+6.0f}]" in text
    out2 = tmp_path / "pair.png"
    res = ev.main(["greedy", "random", "--games", "2", "--quiet", "--plot", str(out2)])
    assert res["plots"] == [str(out2)] and "elo" not in res
    assert_nontrivial_png(out2, min_bytes=5_000)


@pytest.mark.parametrize(
    "args",
    [
        ["draughts-greedy", "random", "--games", "4"],
        ["backgammon-td", "backgammon-greedy", "--games", "4"],  # the afterstate loop's games
        ["backgammon-td", "backgammon-greedy", "--games", "2", "--cube"],
    ],
    ids=["draughts", "backgammon", "cube"],
)
def test_save_keeps_every_game_and_changes_no_result(args, tmp_path):
    from boardgym.agents.arena.archive import Archive
    from boardgym.envs import records

    db = tmp_path / "games.sqlite"
    plain = ev.main([*args, "--quiet", "--seed", "3"])
    kept = ev.main([*args, "--quiet", "--seed", "3", "--save", str(db)])
    assert kept["pairs"][(0, 1)] == plain["pairs"][(0, 1)]
    with Archive(db) as store:
        games = [store.get(g["uid"]) for g in store.list()]
    n = plain["pairs"][(0, 1)]["games"]
    assert len(games) == n and all(g["source"] == "evaluate" and g["over"] for g in games)
    a, b = args[0], args[1]
    assert sorted((g["player_0"], g["player_1"]) for g in games) == sorted(
        [(a, b), (b, a)] * (n // 2)
    )
    wins = sum(g["result"] == ("player_0" if g["player_0"] == a else "player_1") for g in games)
    assert wins == plain["pairs"][(0, 1)]["wins"]
    for g in games:
        kind, frames, _ = records.record_frames(g["record"])
        assert len(frames) > 5 and g["actions"] and g["settings"]["seed"] == g["seed"]


def test_save_and_luck_are_refused_together(tmp_path):
    with pytest.raises(cli.UsageError, match="--save keeps games"):
        ev.main(
            ["backgammon-td", "backgammon-greedy", "--luck", "td", "--save", str(tmp_path / "a")]
        )
