"""boardgym eval-gnubg (scripts/eval_gnubg.py, the GPL judge): a smoke match against pubeval and
gnubg, its summary statistics from the one statistics module, the random opponent."""

import numpy as np
import pytest

from boardgym.scripts import eval_gnubg


@pytest.mark.parametrize("opponent", ["pubeval", "gnubg0"])
def test_eval_gnubg_smoke(opponent, capsys):
    pytest.importorskip("gnubg_nn")
    ev = eval_gnubg
    s = ev.main(
        [
            "--agent",
            "backgammon-greedy",
            "--opponent",
            opponent,
            "--games",
            "6",
            "--seed",
            "1",
            "--quiet",
        ]
    )
    assert s["games"] == 6 and -3 <= s["ppg"] <= 3
    assert "points per game" in capsys.readouterr().out


def test_eval_gnubg_statistics():
    from boardgym.agents.arena.stats import mean_interval, wilson

    ev = eval_gnubg
    assert not hasattr(ev, "wilson")  # one statistics module: agents/arena/stats.py
    pts = np.array([1.0, -2.0, 3.0, -1.0])
    s = ev.summarize(pts, np.array([1, 2, 3, 1]))
    assert s["ppg"] == pytest.approx(0.25) and s["wins"] == 2
    assert (s["win_lo"], s["win_hi"]) == wilson(2, 4)
    assert (s["ppg_lo"], s["ppg_hi"]) == mean_interval(pts, -3, 3)
    assert s["gammons_won"] == 1 and s["gammons_lost"] == 1 and s["backgammons"] == 1


def test_eval_gnubg_random_opponent_is_the_random_player():
    """--opponent random is OPP_RANDOM (random checker moves), played through the one loop."""
    ev = eval_gnubg
    s = ev.main(
        [
            "--agent",
            "backgammon-greedy",
            "--opponent",
            "random",
            "--games",
            "20",
            "--seed",
            "3",
            "--quiet",
        ]
    )
    assert s["games"] == 20 and s["ppg"] > 0.5


def test_eval_gnubg_reports_the_searches_a_budget_stopped(capsys):
    """A searching agent's stopped searches are counted and printed; a 3-ply agent with a
    3-ply budget of one afterstate stops every 3-ply stage it starts (and then plays 2-ply)."""
    s = eval_gnubg.main(
        [
            "--agent",
            "backgammon-td:plies=3,threshold3=1.0,budget3=1",
            "--opponent",
            "random",
            "--games",
            "2",
            "--seed",
            "3",
            "--quiet",
        ]
    )
    info = s["search_info"]
    assert info["decisions"] > 0 and 0 < info["stopped"] <= info["decisions"]
    out = capsys.readouterr().out
    assert (
        f"3-ply searches stopped by the budget (150,000 / 1 afterstates) {info['stopped']} of"
        in out
    )


def _money_rows(path, seed, pairs, cube=0, judge="gnubg0"):
    """Write money results (play_gnubg_money's rows) for {pair: ((points, luck) seat 0, seat 1)};
    a pair of one seat only is an unfinished pair."""
    import json

    with open(path, "a", encoding="utf-8") as f:
        for pair, seats in pairs.items():
            for seat, (points, luck) in enumerate(seats):
                row = {"money": 1, "cube": cube, "seed0": seed, "pair": pair, "seat": seat}
                row.update(points=points, luck=luck, luck_judge=judge, agent_seconds=0.5)
                f.write(json.dumps(row) + "\n")


def test_compare_pairs_two_agents_game_by_game(tmp_path, capsys):
    from boardgym.scripts import gnubg_driver

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _money_rows(a, 5, {0: ((1, 0.5), (-1, 0.0)), 1: ((2, 0.0), (-1, -0.5)), 2: ((-1, 0), (1, 1))})
    _money_rows(a, 5, {3: ((1, 0.0),)})  # unfinished: left out
    _money_rows(b, 5, {1: ((1, 0.0), (-2, -1.0)), 2: ((1, 0.5), (-1, -1.0))})
    _money_rows(b, 5, {9: ((1, 0.0), (1, 0.0))})  # only in B
    _money_rows(b, 5, {0: ((3, 0.0), (3, 0.0))}, judge="td")  # another judge: other dice pairs
    _money_rows(b, 6, {0: ((3, 0.0), (3, 0.0))})  # another seed
    with open(b, "a", encoding="utf-8") as f:
        f.write('{"length": 7, "seed0": 5, "pair": 1, "seat": 0, "agent_won": 1}\n\n')  # a match
    c = gnubg_driver.compare_money(str(a), str(b))
    # pairs 1 and 2 in both; adjusted A: 2, -0.5, -1, 0; B: 1, -1, 0.5, 0; B - A: -1, -0.5, 1.5, 0
    assert c["pairs"] == 2 and c["only_a"] == 1 and c["only_b"] == 3 and c["cube"] == [0]
    assert c["a"]["points_per_game"] == pytest.approx(0.125)
    assert c["b"]["points_per_game"] == pytest.approx(0.125)
    assert c["diff"] == pytest.approx(0.0)
    # pair means of B - A: -0.75, 0.75; sd 1.06066; half-width 1.959964 * 1.06066 / sqrt(2)
    half = 1.959964 * np.std([-0.75, 0.75], ddof=1) / np.sqrt(2)
    assert c["diff_interval"] == pytest.approx((-half, half), rel=1e-5)
    out = eval_gnubg.main(["--compare", str(a), str(b)])
    assert out["pairs"] == 2
    text = capsys.readouterr().out
    left = "(left out, held by one side only: 1 of A's, 3 of B's)"
    assert f"the dice pairs A and B both hold: 2 {left}" in text
    assert f"B minus A, dice pair by dice pair: +0.000 points/game (95% [{-half:+.3f}" in text
    assert "cubeless money: 4 games" in text


def test_compare_joins_the_files_of_a_side(tmp_path, capsys):
    a1, a2, b1, b2 = (tmp_path / f"{x}.jsonl" for x in ("a1", "a2", "b1", "b2"))
    _money_rows(a1, 5, {0: ((1, 0.5), (-1, 0.0))})
    _money_rows(a2, 6, {0: ((2, 0.0), (-1, -0.5))})
    _money_rows(b1, 5, {0: ((1, 0.0), (-2, -1.0))})
    _money_rows(b2, 6, {0: ((1, 0.5), (-1, -1.0)), 1: ((1, 0.0), (1, 0.0))})
    # seed 5's pair and seed 6's pair in both sides; adjusted A: 0.5, -1, 2, -0.5; B: 1, -1, 0.5, 0
    out = eval_gnubg.main(["--compare", f"{a1},{a2}", f"{b1},{b2}"])
    assert out["pairs"] == 2 and out["only_a"] == 0 and out["only_b"] == 1
    assert out["a"]["points_per_game"] == pytest.approx(0.25)
    assert out["b"]["points_per_game"] == pytest.approx(0.125)
    assert out["diff"] == pytest.approx(-0.125)
    assert (
        "the dice pairs A and B both hold: 2 (left out, held by one side only: 0 of A's, 1 of B's)"
        in (capsys.readouterr().out)
    )
    from boardgym.scripts import gnubg_driver

    assert gnubg_driver.compare_money([str(a1), str(a2)], [str(b1), str(b2)]) == out


def test_compare_refuses_what_it_cannot_pair(tmp_path):
    from boardgym.scripts.cli import UsageError

    a, b, m = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "m.jsonl"
    _money_rows(a, 5, {0: ((1, 0.5), (-1, 0.0))})
    _money_rows(b, 7, {0: ((1, 0.5), (-1, 0.0))})
    m.write_text('{"length": 7, "seed0": 5, "pair": 0, "seat": 0}\n', encoding="utf-8")
    cases = {
        (str(a),): "--compare takes two results files, got 1",
        (str(a), str(b), str(a)): "got 3",
        (str(a), str(tmp_path / "none.jsonl")): "none.jsonl: no such results file",
        (str(a), str(m)): "m.jsonl: no complete pair of money games",
        (str(a), str(b)): "share no dice pair",
        (f"{a},{a}", str(b)): "a.jsonl: dice pair 0 of seed 5 .* in another file of the same side",
        (str(a), f"{b},"): "--compare: an empty file name in '.*b.jsonl,'",
    }
    for files, message in cases.items():
        with pytest.raises(UsageError, match=message):
            eval_gnubg.main(["--compare", *files])
    for flags in (["--seed", "60"], ["--agent", "gnubg0", "--games", "10"]):
        with pytest.raises(UsageError, match="--compare plays no games: --"):
            eval_gnubg.main(["--compare", str(a), str(a), *flags])
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"money": 1, "seed0": 5}\n', encoding="utf-8")
    with pytest.raises(UsageError, match="bad.jsonl: a money result lacks"):
        eval_gnubg.main(["--compare", str(a), str(bad)])
    bad.write_text("not json\n", encoding="utf-8")
    with pytest.raises(UsageError, match="bad.jsonl, line 1: not a JSON result line"):
        eval_gnubg.main(["--compare", str(a), str(bad)])
    bad.write_text("", encoding="utf-8")
    _money_rows(bad, 5, {0: ((1, float("nan")), (1, 0.0))})
    with pytest.raises(
        UsageError, match="bad.jsonl: a money result of seat 0, points 1.0, luck nan"
    ):
        eval_gnubg.main(["--compare", str(a), str(bad)])
