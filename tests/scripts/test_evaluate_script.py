"""scripts/evaluate.py: statistics on known synthetic results, option parsing, smoke runs."""
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).parents[2] / "scripts" / "evaluate.py"


def load():
    spec = importlib.util.spec_from_file_location("evaluate_script", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ev = load()


def test_wilson_interval_known_values():
    lo, hi = ev.wilson_interval(50, 100)
    # p = 0.5, n = 100: centre 0.5, half-width 1.96 * sqrt(0.0025 + 0.000096) / 1.0384 = 0.0962
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    lo, hi = ev.wilson_interval(0, 10)  # no successes: [0, z^2 / (n + z^2)]
    assert lo == 0.0 and hi == pytest.approx(1.959964**2 / (10 + 1.959964**2), abs=1e-6)
    assert ev.wilson_interval(10, 10)[1] == 1.0 and ev.wilson_interval(10, 10)[0] == pytest.approx(
        10 / (10 + 1.959964**2), abs=1e-6)
    lo, hi = ev.wilson_interval(81, 100)
    # centre (0.81 + 0.0192) / 1.0384 = 0.7985, half-width 0.0763
    assert lo == pytest.approx(0.7222, abs=1e-4) and hi == pytest.approx(0.8749, abs=1e-4)


def test_elo_from_score_known_values():
    assert ev.elo_from_score(0.5) == 0.0
    assert ev.elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert ev.elo_from_score(1 / (1 + 10 ** (-200 / 400))) == pytest.approx(200.0)
    assert ev.elo_from_score(0.25) == pytest.approx(-190.85, abs=0.01)
    assert ev.elo_from_score(1.0) == math.inf and ev.elo_from_score(0.0) == -math.inf


def test_elo_ratings_recover_a_two_player_score_and_a_transitive_table():
    points = np.array([[0, 76], [24, 0]], float)
    games = np.array([[0, 100], [100, 0]], float)
    elo = ev.elo_ratings(points, games, prior=0.0)
    assert elo[0] - elo[1] == pytest.approx(ev.elo_from_score(0.76), abs=0.01)
    assert elo.sum() == pytest.approx(0.0, abs=1e-9)
    # three players with exact expected scores of ratings +200, 0, -200
    r = np.array([200.0, 0.0, -200.0])
    e = 1 / (1 + 10 ** ((r[None, :] - r[:, None]) / 400))
    n = np.full((3, 3), 1000.0) - np.eye(3) * 1000
    elo = ev.elo_ratings(e * n, n, prior=0.0)
    np.testing.assert_allclose(elo, r, atol=0.01)
    # a perfect score stays finite with the default prior
    elo = ev.elo_ratings(np.array([[0, 10], [0, 0]], float), np.array([[0, 10], [10, 0]], float))
    assert np.isfinite(elo).all()
    assert elo[0] - elo[1] == pytest.approx(ev.elo_from_score(10.5 / 11), abs=0.01)  # one virtual draw


def test_summary_counts_and_intervals():
    s = ev.summarize([1] * 50 + [0] * 20 + [-1] * 30)
    assert (s["wins"], s["draws"], s["losses"], s["games"]) == (50, 20, 30, 100)
    assert s["score"] == pytest.approx(0.6) and s["points_per_game"] == pytest.approx(0.2)
    lo, hi = s["score_interval"]
    assert lo < 0.6 < hi and hi - lo == pytest.approx(0.189, abs=0.002)
    s = ev.summarize([2, -1, 3, 0])  # backgammon points: gammons and backgammons
    assert s["points_per_game"] == pytest.approx(1.0) and s["wins"] == 2


def test_parse_spec():
    assert ev.parse_spec("alphabeta-material:depth=4,time_limit=0.5") == (
        "alphabeta-material", {"depth": 4, "time_limit": 0.5})
    assert ev.parse_spec("draughts-alphabeta:weights=w.npz") == (
        "draughts-alphabeta", {"weights": "w.npz"})
    assert ev.parse_spec("random") == ("random", {})
    with pytest.raises(ValueError, match="key=value"):
        ev.parse_spec("greedy:depth")


def test_smoke_match_and_round_robin(capsys):
    res = ev.main(["greedy", "random", "--games", "4", "--seed", "1"])
    out = capsys.readouterr().out
    assert "greedy v random: 4 games" in out and "Elo" in out
    assert res["pairs"][(0, 1)]["games"] == 4
    res = ev.main(ev.Settings(agents=["alphabeta-material:depth=2", "greedy", "random"], games=2,
                              seed=2, quiet=True, observation_only=True))
    out = capsys.readouterr().out
    assert "round-robin Elo" in out and len(res["elo"]) == 3
    assert len(res["pairs"]) == 3


def test_same_opening_for_both_colour_orders():
    cfg = ev.Settings(agents=["random", "random"])
    env = ev.make_env(cfg)
    a = ev.random_opening(env, 5, 3)
    b = ev.random_opening(env, 5, 3)
    assert a == b and len(a) >= 3
    assert len(env.moves) == 3


def test_backgammon_pair_runs_with_random_agents():
    res = ev.main(["random", "random", "--game", "backgammon", "--games", "2", "--max-moves", "400"])
    s = res["pairs"][(0, 1)]
    assert s["games"] == 2 and s["wins"] + s["losses"] + s["draws"] == 2


def test_bad_settings():
    with pytest.raises(ValueError, match="unknown game"):
        ev.main(["random", "random", "--game", "chess"])
    with pytest.raises(ValueError, match="at least two"):
        ev.main(ev.Settings(agents=["random"]))
    with pytest.raises(ValueError, match="unknown draughts agent"):
        ev.main(["random", "nope"])
