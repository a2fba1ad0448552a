"""The default ``backgammon-td`` decides as recorded (tests/data/backgammon_td_choices.tsv,
positions of its own 7-point matches and money games): the same play, the same number of
afterstates valued and the same stop of the 2-ply search for each position and roll, the same cube
actions; and the search's table of model outputs (search.search_values_memo) changes no value, to
the last bit. A change that makes the search cheaper must keep every decision; a change of the
shipped net or of the search's settings records them again, on purpose:
``python tests/agents/backgammon/test_backgammon_td_choices.py --record`` (the same positions,
their new decisions; the file's first comment line says when)."""

import sys
from pathlib import Path

import numpy as np
import pytest

from boardgym.agents import load
from boardgym.agents.backgammon import match_equity as met
from boardgym.agents.backgammon import search as bs
from boardgym.envs import backgammon_notation as notation
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import CUBE_LIMIT, CUBE_OWNER, CUBE_VALUE

DATA = Path(__file__).parents[2] / "data" / "backgammon_td_choices.tsv"
ACTIONS = {
    "double": game.ACTION_DOUBLE,
    "roll": game.ACTION_ROLL,
    "take": game.ACTION_TAKE,
    "drop": game.ACTION_DROP,
}


def _cases():
    lines = [x for x in DATA.read_text().splitlines() if x and not x.startswith("#")]
    head = lines[0].split("\t")
    return [dict(zip(head, x.split("\t"), strict=True)) for x in lines[1:]]


CASES = _cases()
PLAYS = [c for c in CASES if c["kind"] == "play"]
CUBES = [c for c in CASES if c["kind"] != "play"]


@pytest.fixture(scope="module")
def agent():
    return load("backgammon-td")


def _setup(agent, c):
    """The case's position (the player on roll the mover, TURN 0, no dice); agent told its match."""
    s = notation.position_from_id(c["position_id"])
    s[CUBE_VALUE], s[CUBE_OWNER], s[CUBE_LIMIT] = (
        int(c[k]) for k in ("cube_value", "cube_owner", "cube_limit")
    )
    n, me, opp, crawford = (int(c[k]) for k in ("length", "score_me", "score_opp", "crawford"))
    post = n > 0 and not crawford and (me == n - 1 or opp == n - 1)
    agent.set_match(n, me, opp, bool(crawford), post)
    return notation.check_state(s)


def test_the_data_holds_every_kind_of_decision():
    assert len(PLAYS) >= 40 and len(CUBES) >= 20
    assert {c["length"] for c in PLAYS} >= {"0", "7"}
    assert {c["expected"] for c in CUBES} == set(ACTIONS)
    assert any(c["stopped"] == "1" for c in PLAYS)  # searches the budget stops are kept too
    assert any(c["crawford"] == "1" for c in PLAYS)


def _decide(agent, c):
    """The agent's decision of case c as the data file writes it: {"expected": the chosen
    afterstate's Position ID, "valued", "stopped"} for a play, {"expected": the action's name} for
    a cube case."""
    s = _setup(agent, c)
    if c["kind"] != "play":
        action = agent.cube_action(s, c["kind"] == "take")
        return {"expected": next(k for k, v in ACTIONS.items() if v == action)}
    before = dict(agent.search_info)
    a = agent.best_afterstate(s, int(c["dice"][0]), int(c["dice"][1]))
    return {
        "expected": notation.position_id(a),
        "valued": str(agent.search_info["afterstates"] - before["afterstates"]),
        "stopped": str(agent.search_info["stopped"] - before["stopped"]),
    }


@pytest.mark.parametrize("c", PLAYS, ids=lambda c: f"{c['position_id']}-{c['dice']}")
def test_plays_as_recorded(agent, c):
    got = _decide(agent, c)
    assert got["expected"] == c["expected"]
    assert int(got["valued"]) == int(c["valued"])
    assert int(got["stopped"]) == int(c["stopped"])


@pytest.mark.parametrize("c", CUBES, ids=lambda c: f"{c['kind']}-{c['position_id']}")
def test_cube_actions_as_recorded(agent, c):
    assert ACTIONS[_decide(agent, c)["expected"]] == ACTIONS[c["expected"]]


@pytest.mark.parametrize("c", PLAYS[::4] + [c for c in PLAYS if c["stopped"] == "1"][:1])
def test_the_table_changes_no_value(agent, c):
    s = _setup(agent, c)
    rows = agent.afterstates(s, int(c["dice"][0]), int(c["dice"][1])).copy()
    n = rows.shape[0]
    n_match, me, opp = (int(c[k]) for k in ("length", "score_me", "score_opp"))
    uu = bs.MONEY_U.copy()
    if n_match > 0:  # the match utilities of the mover and its opponent (as set_match makes them)
        a, b, cube = n_match - me, n_match - opp, int(c["cube_value"])
        met.eq_weights(a, b, cube, met.TABLE, met.POST, uu[0])
        met.eq_weights(b, a, cube, met.TABLE, met.POST, uu[1])
    got = []
    # no table (every board valued by the model), the default one, one so small it fills up
    for bits in (0, bs.MEMO_BITS, 3):
        out = np.empty(n)
        info = np.zeros(bs.INFO_LEN, np.int64)
        k = bs.search_values_memo(agent.params, uu, rows, n, agent.search_settings, info, out, bits)
        got.append((k, info.tolist(), out.view(np.int64).tolist()))
    assert got[1] == got[0] and got[2] == got[0]
    assert got[0][1][0] == int(c["valued"])


def record(note: str) -> None:
    """Rewrite the data file with the decisions of today's default agent at the same positions
    (the header comment's first line replaced by note); SystemExit if no recorded 2-ply search is
    stopped by the budget any more (the tests need one: add such a position)."""
    lines = DATA.read_text().splitlines()
    comments = [x for x in lines if x.startswith("#")]
    head = next(x for x in lines if x and not x.startswith("#")).split("\t")
    td = load("backgammon-td")
    out = []
    for c in CASES:
        c = dict(c, **_decide(td, c))
        out.append("\t".join(c[k] for k in head))
    if not any(x.split("\t")[head.index("stopped")] == "1" for x in out if x.startswith("play")):
        raise SystemExit("no recorded play stops the 2-ply search any more: add such a position")
    text = "\n".join([note, *comments[1:], "\t".join(head), *out]) + "\n"
    tmp = DATA.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(DATA)


if __name__ == "__main__":
    if sys.argv[1:2] != ["--record"] or len(sys.argv) != 3:
        raise SystemExit(f"usage: python {sys.argv[0]} --record '# first comment line'")
    record(sys.argv[2])
