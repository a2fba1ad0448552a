"""GNU Backgammon as a match opponent (scripts/gnubg_driver.py) and eval-gnubg --match."""

import gzip
import json

import numpy as np
import pytest

pytest.importorskip("gnubg")

from boardgym.agents.backgammon.agents import GreedyAgent  # noqa: E402
from boardgym.agents.backgammon.game_loop import play_afterstate_match  # noqa: E402
from boardgym.envs import backgammon_notation as bg  # noqa: E402
from boardgym.kernels.backgammon import board as B  # noqa: E402
from boardgym.kernels.backgammon import game  # noqa: E402
from boardgym.scripts import eval_gnubg  # noqa: E402
from boardgym.scripts import gnubg_driver as gd  # noqa: E402
from boardgym.scripts.cli import UsageError  # noqa: E402

pytestmark = pytest.mark.xdist_group("gnubg")  # one gnubg per worker process


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Proper cube action: No double, take (18.6%)", (False, True)),
        ("Proper cube action: Double, take", (True, True)),
        ("Proper cube action: Double, pass", (True, False)),
        ("Proper cube action: Redouble, pass", (True, False)),
        ("Proper cube action: Too good to double, pass", (False, False)),
        ("Proper cube action: No redouble, beaver", (False, True)),
        ("You cannot double.", (False, True)),
    ],
)
def test_parse_cube_hint(text, expected):
    assert gd.parse_cube_hint("Cube analysis\n" + text + "\n") == expected


def test_parse_cube_hint_refuses_other_text():
    with pytest.raises(ValueError, match="Proper cube action"):
        gd.parse_cube_hint("hint: no position")


def _race(me, opp, cube=1, owner=-1):
    """A bear-off position: the mover's home points {p: n}, the opponent's (mover's numbering)."""
    s = np.zeros(B.STATE_LEN, np.int64)
    for p, n in me.items():
        s[B.ME + p - 1] = n
    for p, n in opp.items():
        s[B.OPP + p - 1] = n
    s[B.OFF_ME] = 15 - sum(me.values())
    s[B.OFF_OPP] = 15 - sum(opp.values())
    s[B.CUBE_VALUE], s[B.CUBE_OWNER], s[B.CUBE_LIMIT] = cube, owner, B.MAX_CUBE_VALUE
    B.refresh_masks(s)
    return bg.check_state(s)


def test_gnubg_cube_decisions_know_the_score():
    g = gd.GnubgAgent(0)
    start = bg.initial_state()
    assert g.cube_hint(start) == (False, True)  # the opening position: no double, take
    # two checkers on the 1-point against fifteen far back: a certain win
    won = _race({1: 2}, {24: 15})
    g.set_match(0, 0, 0, False, False)
    assert g.cube_action(won, False) == game.ACTION_ROLL  # money: too good, plays for the gammon
    g.set_match(7, 6, 2, False, True)  # post-Crawford leader 1 away: no reason to double
    assert g.cube_action(won, False) == game.ACTION_ROLL
    g.set_match(7, 2, 6, False, True)  # the trailer post-Crawford doubles
    even = bg.initial_state()
    assert g.cube_action(even, False) == game.ACTION_DOUBLE


def test_gnubg_plays_legal_whole_matches_with_bear_offs():
    a, b = gd.GnubgAgent(0), GreedyAgent(seed=3)
    for seed in range(3):
        r = play_afterstate_match(a, b, seed, 3)
        assert max(r.score) == 3 and r.winner in (0, 1)


def test_matches_resume_from_the_results_file(tmp_path):
    f = tmp_path / "r.jsonl"
    a, g = GreedyAgent(seed=1), gd.GnubgAgent(0)
    rows = gd.play_gnubg_matches(a, g, 3, 2, 5, str(f))
    assert len(rows) == 4 and {(r["pair"], r["seat"]) for r in rows} == {
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
    }
    lines = f.read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["length"] == 3
    again = gd.play_gnubg_matches(a, g, 3, 3, 5, str(f))
    assert len(again) == 6 and len(f.read_text().splitlines()) == 6
    assert again[:4] == rows
    s = gd.summarize_matches(again)
    assert s["matches"] == 6 and 0 <= s["wilson"][0] <= s["rate"] <= s["wilson"][1] <= 1
    f.write_text("not json\n")
    with pytest.raises(ValueError, match="line 1"):
        gd.play_gnubg_matches(a, g, 3, 1, 5, str(f))


def test_eval_gnubg_match_flags(capsys):
    for args in (
        ["--match", "7"],
        ["--opponent", "gnubg", "--luck", "none"],
        ["--match", "65", "--opponent", "gnubg"],
        ["--results", "x.jsonl"],
        ["--match", "3", "--opponent", "gnubg", "--gnubg-plies", "9"],
    ):
        with pytest.raises(UsageError):
            eval_gnubg.main(args)
    s = eval_gnubg.main(
        [
            "--agent",
            "backgammon-greedy",
            "--opponent",
            "gnubg",
            "--match",
            "1",
            "--games",
            "2",
            "--quiet",
        ]
    )
    assert s["matches"] == 2
    assert "matches to 1" in capsys.readouterr().out


HINT = """Cube analysis
0-ply cubeless equity +0.018 (Money: +0.068)
Cubeful equities:
1. No double           +0.195
2. Double, pass        +1.000  (+0.805)
3. Double, take        +0.011  (-0.184)
Proper cube action: No double, take (18.6%)
"""


def test_cube_equities_and_errors():
    eq = gd.parse_cube_equities(HINT)
    assert eq == {"nd": 0.195, "dp": 1.0, "dt": 0.011}
    assert gd.cube_error(eq, False, game.ACTION_ROLL) == 0.0
    assert gd.cube_error(eq, False, game.ACTION_DOUBLE) == pytest.approx(0.184)
    assert gd.cube_error(eq, True, game.ACTION_TAKE) == 0.0
    assert gd.cube_error(eq, True, game.ACTION_DROP) == pytest.approx(0.989)
    with pytest.raises(ValueError, match="cubeful equities"):
        gd.parse_cube_equities("Proper cube action: No double, take")


@pytest.mark.parametrize(
    "eq, offered, close",
    [
        ({"nd": 0.195, "dt": 0.011, "dp": 1.0}, False, False),  # 0.184 short of a double
        ({"nd": 0.195, "dt": 0.011, "dp": 1.0}, True, True),  # an answer to a double always counts
        ({"nd": 0.100, "dt": -0.100, "dp": 1.0}, False, False),  # 0.20 short of a double
        ({"nd": 0.100, "dt": -0.050, "dp": 1.0}, False, True),  # 0.15 short: close
        ({"nd": 0.500, "dt": 0.700, "dp": 1.0}, False, True),  # a double: optimal is min(dt, dp)
        ({"nd": 0.990, "dt": 1.400, "dp": 1.0}, False, True),  # too good: dt capped at 1
        ({"nd": 1.300, "dt": 1.500, "dp": 1.0}, False, False),  # far past too good: 0.3 over
        ({"nd": -0.600, "dt": -1.200, "dp": 1.0}, False, False),  # far behind
    ],
)
def test_close_or_actual_cube_decisions(eq, offered, close):
    assert gd.is_close_cube(eq, offered) is close


def test_the_analyst_judges_every_decision_of_the_agent(tmp_path):
    f = tmp_path / "r.jsonl"
    analyst = gd.Analyst(0)
    agent = GreedyAgent(seed=2)
    rows = gd.play_gnubg_matches(agent, gd.GnubgAgent(0), 3, 1, 7, str(f), analyst=analyst)
    assert sum(r["checker_n"] for r in rows) == len(analyst.checker) > 10
    assert sum(r["cube_n"] for r in rows) == len(analyst.cube) > 0
    assert min(analyst.checker) >= 0 and min(analyst.cube) >= 0
    s = gd.summarize_matches(rows)["analysis"]
    assert s["checker_decisions"] == len(analyst.checker)
    assert s["checker_memg"] == pytest.approx(1000 * np.mean(analyst.checker), rel=1e-4)
    # the same plays by phase: every one counted once, the rates average to the whole
    phases = s["checker_phases"]
    assert list(phases) == list(gd.PHASES) and len(analyst.checker_phase) == len(analyst.checker)
    assert sum(p["decisions"] for p in phases.values()) == len(analyst.checker)
    assert phases["contact"]["decisions"] > 0
    weighted = sum(p["memg"] * p["decisions"] for p in phases.values() if p["decisions"])
    assert weighted / len(analyst.checker) == pytest.approx(s["checker_memg"], rel=1e-4)
    for i, name in enumerate(gd.PHASES):
        errs = [e for e, k in zip(analyst.checker, analyst.checker_phase) if k == i]
        assert phases[name]["decisions"] == len(errs)
    assert len(analyst.cube_close) == len(analyst.cube)
    assert (
        s["cube_close_decisions"] == sum(r["cube_close_n"] for r in rows) == sum(analyst.cube_close)
    )
    close_n = sum(analyst.cube_close)
    if close_n:
        assert s["cube_memg_close"] == pytest.approx(1000 * sum(analyst.cube) / close_n, rel=1e-4)
    n = len(analyst.checker) + close_n
    total = sum(analyst.checker) + sum(analyst.cube)
    assert s["overall_memg"] == pytest.approx(1000 * total / n, rel=1e-4)
    assert "_pick" not in agent.__dict__ and "cube_action" not in agent.__dict__
    # gnubg judged by itself loses nothing in checker play
    self_judge = gd.Analyst(0)
    g = gd.GnubgAgent(0)
    gd.play_gnubg_matches(g, gd.GnubgAgent(0), 3, 1, 8, None, analyst=self_judge)
    assert max(self_judge.checker) < 1e-9 and max(self_judge.cube) < 1e-9


def _board(me, opp):
    """A position on roll from {point: checkers} of each side in its own numbering (rest off)."""
    board = np.zeros((2, 25), dtype=np.int64)
    for side, points in ((1, me), (0, opp)):
        for p, n in points.items():
            board[side, p - 1] = n
    return bg.state_from_board(board)


def test_the_phase_of_a_position():
    assert gd.PHASES[gd.phase_of(bg.initial_state())] == "contact"
    # my rearmost checker on my 10 point, theirs on their 6 point (my 19): passed, a race
    assert gd.PHASES[gd.phase_of(_board({10: 1, 6: 14}, {6: 15}))] == "race"
    # the same, their checker on their 16 point (my 9) still behind mine: contact
    assert gd.PHASES[gd.phase_of(_board({10: 1, 6: 14}, {16: 1, 6: 14}))] == "contact"
    # a checker on the bar is contact, whatever else
    assert gd.PHASES[gd.phase_of(_board({25: 1, 1: 14}, {1: 15}))] == "contact"
    # both sides home: bear-off; one side still outside its home: race
    assert gd.PHASES[gd.phase_of(_board({6: 5, 1: 3}, {2: 15}))] == "bearoff"
    assert gd.PHASES[gd.phase_of(_board({6: 5, 7: 1}, {2: 15}))] == "race"


def test_rows_without_phase_counts_give_no_phases():
    old = {"analysis_plies": 0, "checker_n": 3, "checker_err": 0.003, "cube_n": 0, "cube_err": 0}
    assert gd._analysis([old])["checker_phases"] is None
    new = {**old, "checker_phase_n": [2, 1, 0], "checker_phase_err": [0.002, 0.001, 0.0]}
    p = gd._analysis([old, new])["checker_phases"]  # only the rows that count by phase
    assert p["contact"] == {"decisions": 2, "memg": pytest.approx(1.0)}
    assert p["race"]["memg"] == pytest.approx(1.0)
    assert p["bearoff"] == {"decisions": 0, "memg": None}


def test_a_dead_cube_is_counted_apart():
    analyst = gd.Analyst(0)
    analyst.set_match(7, 6, 2, False, True)  # post-Crawford, 1 away: one game wins the match
    analyst.judge_cube(bg.initial_state(), False, game.ACTION_DOUBLE)
    assert analyst.cube == [] and analyst.unjudged == 1 and analyst.unjudged_doubles == 1
    analyst.set_match(7, 2, 2, False, False)
    analyst.judge_cube(bg.initial_state(), False, game.ACTION_ROLL)
    assert analyst.cube == [0.0] and analyst.unjudged == 1


def test_money_games_against_gnubg_resume_and_adjust_for_luck(tmp_path):
    from boardgym.agents.backgammon.luck import td_judge

    f = tmp_path / "m.jsonl"
    a, g, judge = GreedyAgent(seed=1), gd.GnubgAgent(0), td_judge()
    rows = gd.play_gnubg_money(a, g, judge, 2, 4, str(f))
    assert [(r["pair"], r["seat"]) for r in rows] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert all(r["money"] == 1 and r["points"] != 0 for r in rows)
    again = gd.play_gnubg_money(a, g, judge, 3, 4, str(f))
    assert again[:4] == rows and len(f.read_text().splitlines()) == 6
    s = gd.summarize_money_rows(again)
    pts = np.array([r["points"] for r in again])
    luck = np.array([r["luck"] for r in again])
    assert s["raw"]["games"] == 6 and s["raw"]["points_per_game"] == pytest.approx(pts.mean())
    assert s["adjusted"]["points_per_game"] == pytest.approx((pts - luck).mean())
    assert "_pick" not in a.__dict__  # the agent's own methods again
    # money rows and match rows share a results file without mixing
    assert gd.play_gnubg_matches(a, g, 1, 1, 4, str(f))[0]["length"] == 1


def test_eval_gnubg_cube_flags(capsys):
    for args in (
        ["--cube"],
        ["--cube", "--opponent", "gnubg", "--match", "3"],
        ["--cube", "--opponent", "gnubg", "--luck", "none"],
    ):
        with pytest.raises(UsageError):
            eval_gnubg.main(args)
    s = eval_gnubg.main(
        ["--agent", "backgammon-greedy", "--opponent", "gnubg", "--cube", "--games", "2"]
        + ["--luck", "td", "--quiet"]
    )
    assert s["raw"]["games"] == 2
    out = capsys.readouterr().out
    assert "cubeful money games" in out and "adjusted (luck judge td)" in out
    for args in (["--agent", "gnubg0", "--cube"], ["--agent", "gnubg:depth=2"]):
        with pytest.raises(UsageError):
            eval_gnubg.main(args + ["--opponent", "gnubg", "--games", "2", "--luck", "td"])


def test_error_rates_of_any_player_under_one_judge(capsys, tmp_path):
    """Cubeless money games against gnubg with its 0-ply analysis: gnubg 0-ply as the agent loses
    nothing against its own judge; the greedy agent loses equity; both printed in mEMG."""
    pytest.importorskip("gnubg_nn")
    common = ["--opponent", "gnubg", "--games", "2", "--luck", "td", "--analyse-plies", "0"]
    me = eval_gnubg.main(["--agent", "gnubg:plies=0", *common, "--quiet"])
    a = me["analysis"]
    assert a["checker_decisions"] > 10 and a["checker_memg"] < 1e-6 and a["cube_decisions"] == 0
    greedy = eval_gnubg.main(["--agent", "backgammon-greedy", *common, "--quiet"])["analysis"]
    assert greedy["checker_memg"] > 1.0
    engine = eval_gnubg.main(["--agent", "gnubg0", *common, "--quiet"])["analysis"]
    assert engine["checker_decisions"] > 10  # gnubg-nn's net, judged by the module
    out = capsys.readouterr().out
    assert "cubeless money games" in out and "mEMG per move" in out
    assert "; contact " in out and ", race " in out and ", bearoff " in out


def test_the_cubeful_judge_values_plays_per_cube_unit():
    judge = gd.CubefulJudge(0)

    def plays(state, d1, d2):
        out = np.empty((game.MAX_AFTERSTATES, B.STATE_LEN), np.int64)
        return out[: game.afterstates(game.set_roll(state, d1, d2), out)]

    rows = plays(bg.initial_state(), 3, 1)
    v = judge(rows)
    assert v.shape == (rows.shape[0],) and np.isfinite(v).all() and -1 < v.max() < 1
    # the same plays with the cube at 4 on the player's side: values stay per cube unit
    owned = rows.copy()
    owned[:, B.CUBE_VALUE], owned[:, B.CUBE_OWNER] = 4, owned[:, B.TURN]
    assert np.abs(judge(owned) - v).max() < 0.3
    # a play that bears off the last checker is worth its exact points
    done = _race({1: 1}, {24: 15})  # the opponent has borne off none, none in our home: a gammon
    assert judge(plays(done, 6, 5)).max() == 2.0


def test_cubeful_luck_keeps_high_cube_games_in_bounds(tmp_path):
    """With gnubg's cubeful judge the luck of a game stays near its points (a cubeless judge's
    luck times the cube ran to +113 for a 16-point game); rows name their judge and a run with
    another judge does not resume from them."""
    f = tmp_path / "m.jsonl"
    a, g = GreedyAgent(seed=1), gd.GnubgAgent(0)
    rows = gd.play_gnubg_money(a, g, gd.CubefulJudge(0), 2, 8, str(f), judge_name="gnubg")
    assert all(r["luck_judge"] == "gnubg" for r in rows)
    for r in rows:
        assert abs(r["points"] - r["luck"]) <= 2 * max(4.0, abs(r["points"]))
    assert gd.play_gnubg_money(a, g, gd.CubefulJudge(0), 1, 8, str(f), judge_name="x") != rows[:2]


def test_a_cube_log_of_matches_and_money_games_is_re_decided_by_cube_bench(tmp_path, capsys):
    """eval-gnubg --analyse cube --cube-log: every judged cube decision of the agent in the log
    (as many as the results count), none twice when the run resumes, checker plays not judged;
    cube-bench re-decides the log, the agent that played it repeating all its actions."""
    from boardgym.scripts import cube_bench

    log, res = tmp_path / "cube.jsonl", tmp_path / "r.jsonl"
    common = ["--opponent", "gnubg", "--analyse-plies", "0", "--analyse", "cube", "--quiet"]
    common += ["--cube-log", str(log), "--results", str(res)]
    agent = ["--agent", "backgammon-td:plies=0"]
    s = eval_gnubg.main([*agent, *common, "--match", "5", "--games", "2", "--seed", "3"])
    rows = [json.loads(x) for x in res.read_text().splitlines()]
    n = sum(r["cube_n"] for r in rows)
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert n == len(lines) > 0 and s["analysis"]["checker_decisions"] == 0
    assert s["analysis"]["overall_memg"] is None
    assert {x["agent"] for x in lines} == {"backgammon-td:plies=0"}
    assert sum(x["err"] for x in lines) == pytest.approx(sum(r["cube_err"] for r in rows))
    assert "cube decisions only" in capsys.readouterr().out
    eval_gnubg.main([*agent, *common, "--match", "5", "--games", "2", "--seed", "3"])
    assert len(log.read_text().splitlines()) == n  # resumed: nothing played again
    packed = tmp_path / "cube.jsonl.gz"  # a .gz name is written gzipped, appended match by match
    eval_gnubg.main(
        [
            *agent,
            *common[:-4],
            "--cube-log",
            str(packed),
            "--results",
            str(tmp_path / "p.jsonl"),
            "--match",
            "5",
            "--games",
            "2",
            "--seed",
            "3",
        ]
    )
    with gzip.open(packed, "rt", encoding="utf-8") as f:
        assert [json.loads(x)["err"] for x in f] == [x["err"] for x in lines]
    money = [*agent, *common, "--cube", "--games", "2", "--seed", "4", "--luck", "td"]
    eval_gnubg.main(money)
    lines = gd.read_cube_log(str(log))
    assert len(lines) > n and {x["length"] for x in lines} == {5, 0}
    out = cube_bench.main(["backgammon-td:plies=0", "--log", str(log)])["backgammon-td:plies=0"]
    assert out["repeats"] == (len(lines), len(lines))
    assert out["errors"] == pytest.approx([x["err"] for x in lines], abs=1e-6)
    for args in (["--cube-log", "x.jsonl"], ["--analyse", "cube"]):
        with pytest.raises(UsageError):
            eval_gnubg.main(["--opponent", "gnubg", "--match", "3", *args])
    with pytest.raises(UsageError):  # a cube log needs cube decisions: --match or --cube
        eval_gnubg.main(["--opponent", "gnubg", "--analyse-plies", "0", "--cube-log", "x.jsonl"])
