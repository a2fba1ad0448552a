"""Play-time search of the backgammon models (agents/backgammon/search.py): 0/1/2/3-ply with the
move filter, against brute-force Python references built on the game core."""

import numpy as np
import pytest

from boardgym.agents import load
from boardgym.agents.backgammon import match_equity as me
from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon import search as bs
from boardgym.agents.backgammon.agents import (
    ExpectimaxAgent,
    TDAgent,
    TDSearchAgent,
    expectimax2,
)
from boardgym.agents.backgammon.game_loop import play_afterstate_game
from boardgym.agents.registry import load_spec
from boardgym.envs import backgammon_notation as notation
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import (
    CUBE_LIMIT,
    CUBE_OWNER,
    CUBE_VALUE,
    MAX_CUBE_VALUE,
    ME,
    OFF_ME,
    OFF_OPP,
    OPP,
    STATE_LEN,
    refresh_masks,
)

NET = TDAgent().play_params  # the model as the agents play it (float32 hidden layers)
# a late race: player on roll 1, 2, 2, 2, 2, 3 on its points 1-6; the other 2, 2, 2, 2, 3, 3
RACE = "23YHAIC27QAAAA"


def _rolled(state, d1, d2):
    return game.set_roll(state, d1, d2)


def _plays(state, d1, d2):
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), np.int64)
    n = game.plays_of_roll(state, d1, d2, rows, None)
    return rows[:n].copy()


def _u0(rows, u, exact=True):
    """Python reference: utility u of each of rows for its mover at 0-ply (a finished game, if
    exact: its exact outcome under u)."""
    ys = np.empty((rows.shape[0], 5))
    td_net.evaluate_rows(NET, rows, rows.shape[0], ys)
    v = np.array([me.utility(u, y) for y in ys])
    for r in range(rows.shape[0]):
        if exact and rows[r, OFF_ME] == 15:
            kind = game.result(game.pass_turn(rows[r]), game.SCORING_GAMMON)[1]
            v[r] = u[0] + u[1] + (kind >= 2) * u[2] + (kind >= 3) * u[3]
    return v


def _v0(rows, exact=True):
    """Python reference: 0-ply equities of rows (exact points for a finished game)."""
    return _u0(rows, bs.MONEY_U[0], exact)


def _vu(row, plies, uu=bs.MONEY_U, side=0, thr=bs.THRESHOLD, replies=bs.REPLY_CANDIDATES):
    """Python reference: the value at plies of afterstate row for its mover, whose utility is
    uu[side] (its opponent's uu[1 - side]; money equity by default): a finished game's exact
    outcome; at 0-ply the utility of the net's outputs; deeper, the mean over the opponent's
    rolls of minus its best reply, at 0-ply among all its plays at 1-ply, else at plies - 1 among
    the replies the filter keeps (at most replies within thr at 0-ply)."""
    if plies == 0 or row[OFF_ME] == 15:
        return _u0(row[None], uu[side])[0]
    s = game.pass_turn(row)
    tot = 0.0
    for d1, d2, w in zip(bs.ROLL_D1, bs.ROLL_D2, bs.ROLL_W):
        rows = _plays(s, d1, d2)
        v = _u0(rows, uu[1 - side])
        if plies == 1:
            tot -= w * v.max()
            continue
        order = np.argsort(-v, kind="stable")
        keep = [k for k in order[:replies] if v[k] >= v[order[0]] - thr]
        tot -= w * max(_vu(rows[k], plies - 1, uu, 1 - side, thr, replies) for k in keep)
    return tot


def _v1(row):
    return _vu(row, 1)


def _v2(row, thr=bs.THRESHOLD, replies=bs.REPLY_CANDIDATES):
    return _vu(row, 2, thr=thr, replies=replies)


def _v3(row, uu=bs.MONEY_U):
    return _vu(row, 3, uu)


DEFAULT2 = (bs.CANDIDATES_2, bs.THRESHOLD_2, bs.REPLY_CANDIDATES)  # the 2-ply filter
DEFAULT3 = (bs.CANDIDATES_3, bs.THRESHOLD_3, bs.BUDGET_3)  # the 3-ply filter and budget


def _search(
    rows,
    plies,
    candidates=bs.CANDIDATES,
    threshold=bs.THRESHOLD,
    budget=0,
    info=None,
    filter2=DEFAULT2,
):
    out = np.empty(rows.shape[0])
    info = np.zeros(bs.INFO_LEN, np.int64) if info is None else info
    cfg = bs.search_settings(plies, candidates, threshold, *filter2, budget)
    k = bs.search_values(NET, rows, rows.shape[0], cfg, info, out)
    return out, k


def test_rolls_are_the_21_with_their_probabilities():
    assert len(bs.ROLL_W) == 21 and abs(bs.ROLL_W.sum() - 1.0) < 1e-12
    assert (bs.ROLL_D1 <= bs.ROLL_D2).all()
    assert (bs.ROLL_W[bs.ROLL_D1 == bs.ROLL_D2] == 1 / 36).all()


def test_zero_ply_is_the_net_agent_exactly():
    td, s0 = TDAgent(), TDSearchAgent(plies=0)
    s = notation.initial_state()
    for d1, d2 in ((3, 1), (6, 6), (5, 2)):
        rows = _plays(s, d1, d2)
        np.testing.assert_array_equal(s0.scores(rows), td.scores(rows))
    for seed in range(3):
        assert play_afterstate_game(td, TDAgent(), seed) == play_afterstate_game(s0, td, seed)


def test_one_ply_values_the_candidates_by_the_opponents_21_rolls():
    s = notation.initial_state()
    rows = _plays(s, 4, 2)
    v0 = _v0(rows, exact=False)
    out, k = _search(rows, 1)
    order = np.argsort(-v0, kind="stable")
    cand = [c for c in order[: bs.CANDIDATES] if v0[c] >= v0[order[0]] - bs.THRESHOLD]
    assert k == len(cand) >= 1
    # the old two-ply kernel of the agents (no game can end here) gives the same values
    ref = np.empty(len(cand))
    expectimax2(True, NET, rows, np.array(cand, np.int64), len(cand), ref)
    np.testing.assert_allclose(out[cand], ref, atol=1e-12)
    np.testing.assert_allclose(out[cand], [_v1(rows[c]) for c in cand], atol=1e-12)
    others = np.setdiff1d(np.arange(rows.shape[0]), cand)
    np.testing.assert_allclose(out[others], v0[others] - bs.FILTERED)
    assert out[others].max() < out[cand].min()


def test_filter_limits():
    s = notation.initial_state()
    rows = _plays(s, 6, 5)
    v0 = _v0(rows, exact=False)
    out, k = _search(rows, 1, candidates=1)
    assert k == 1 and np.argmax(out) == np.argmax(v0)  # one candidate: the 0-ply choice
    out, k = _search(rows, 1, candidates=1000, threshold=np.inf)
    assert k == rows.shape[0]
    np.testing.assert_allclose(out, [_v1(r) for r in rows], atol=1e-12)
    out, k = _search(rows, 1, candidates=1000, threshold=0.0)
    assert k == (v0 == v0.max()).sum()


def _position(me, opp):
    """Mover's checkers {point: n} and the opponent's (mover's numbering); the rest off."""
    s = np.zeros(STATE_LEN, np.int64)
    for p, n in me.items():
        s[ME + p - 1] = n
    for p, n in opp.items():
        s[OPP + p - 1] = n
    s[OFF_ME], s[OFF_OPP] = 15 - sum(me.values()), 15 - sum(opp.values())
    s[CUBE_VALUE], s[CUBE_OWNER], s[CUBE_LIMIT] = 1, -1, MAX_CUBE_VALUE
    refresh_masks(s)
    return notation.check_state(s)


# mover: two checkers on its 1-point, one on its 6-point; the opponent two on its own 2-point
ENDGAME = _position({1: 2, 6: 1}, {23: 2})
# contact, the mover well ahead with gammons and backgammons in sight (few plays a roll)
GAMMONISH = _position({1: 2, 3: 2, 22: 2}, {4: 12, 6: 3})


def test_exact_points_below_the_root_in_a_bearoff():
    rows = _plays(ENDGAME, 2, 1)
    opp = game.pass_turn(rows[0])
    assert (_plays(opp, 6, 5)[:, OFF_ME] == 15).any()  # the opponent can end the game
    out, k = _search(rows, 1, candidates=1000, threshold=np.inf)
    np.testing.assert_allclose(out, [_v1(r) for r in rows], atol=1e-12)
    assert out.max() < 0.0


@pytest.mark.parametrize("filter2", [DEFAULT2, (2, 0.04, 2), (8, np.inf, 3)])
def test_two_ply_matches_the_python_reference_in_a_bearoff(filter2):
    for s, (d1, d2) in ((ENDGAME, (2, 1)), (notation.position_from_id(RACE), (6, 4))):
        _check_two_ply(s, d1, d2, filter2)


def _check_two_ply(s, d1, d2, filter2=DEFAULT2):
    candidates2, threshold2, replies = filter2
    rows = _plays(s, d1, d2)
    out, k = _search(rows, 2, filter2=filter2)
    v0 = _v0(rows, exact=False)
    order = np.argsort(-v0, kind="stable")
    cand = [c for c in order[: bs.CANDIDATES] if v0[c] >= v0[order[0]] - bs.THRESHOLD]
    v1 = {c: _v1(rows[c]) for c in cand}
    order1 = sorted(cand, key=lambda c: -v1[c])
    top = order1[0]
    deep = [c for c in order1[:candidates2] if v1[c] >= v1[top] - threshold2]
    for c in deep:
        assert out[c] == pytest.approx(_v2(rows[c], replies=replies), abs=1e-12)
    for c in set(cand) - set(deep):
        assert out[c] == pytest.approx(v1[c] - bs.FILTERED, abs=1e-9)


def _replies(row):
    """afterstates the model values to search afterstate row at 1-ply (0 if it ends the game)"""
    if row[OFF_ME] == 15:
        return 0
    s = game.pass_turn(row)
    return sum(len(_plays(s, d1, d2)) for d1, d2 in zip(bs.ROLL_D1, bs.ROLL_D2))


WIDE2 = (8, np.inf, bs.REPLY_CANDIDATES)  # every 1-ply candidate searched at 2-ply


def _search3(rows, candidates3=bs.CANDIDATES_3, threshold3=bs.THRESHOLD_3, budget3=0, info=None):
    """values of rows at 3-ply, WIDE2 the 2-ply filter, no 2-ply budget"""
    out = np.empty(rows.shape[0])
    info = np.zeros(bs.INFO_LEN, np.int64) if info is None else info
    cfg = bs.search_settings(
        3, bs.CANDIDATES, bs.THRESHOLD, *WIDE2, 0, candidates3, threshold3, budget3
    )
    bs.search_values(NET, rows, rows.shape[0], cfg, info, out)
    return out


@pytest.mark.parametrize("filter3", [(2, 0.5), (3, np.inf)])
def test_three_ply_matches_the_python_reference_in_a_race(filter3):
    candidates3, threshold3 = filter3
    rows = _plays(notation.position_from_id(RACE), 6, 4)
    two = _search(rows, 2, filter2=WIDE2)[0]
    out = _search3(rows, candidates3, threshold3)
    order2 = np.argsort(-two, kind="stable")
    top = order2[0]
    deep = [c for c in order2[:candidates3] if two[c] >= two[top] - threshold3]
    assert len(deep) >= 2  # the 3-ply stage runs here
    for c in deep:
        assert out[c] == pytest.approx(_v3(rows[c]), abs=1e-12)
    for c in set(range(len(rows))) - set(deep):
        assert out[c] == pytest.approx(two[c] - bs.FILTERED, abs=1e-9)
    # one play within the window: the 2-ply values stand as they are
    np.testing.assert_array_equal(_search3(rows, 1, threshold3), two)


def test_three_ply_under_match_utilities_matches_the_python_reference():
    """search_values_u at 3-ply: the opponent's replies are valued under its own row of uu
    (here 3-away / 6-away utilities, not money's), at every ply, in a position with gammons."""
    uu = np.empty((2, 6))
    me.eq_weights(3, 6, 1, me.TABLE, me.POST, uu[0])
    me.eq_weights(6, 3, 1, me.TABLE, me.POST, uu[1])
    assert not np.allclose(uu[0], uu[1])  # they differ in the gammons' weights
    rows = _plays(GAMMONISH, 3, 1)
    cfg = bs.search_settings(3, 8, np.inf, *WIDE2, 0, 2, np.inf, 0)
    out = np.empty(len(rows))
    bs.search_values_u(NET, uu, rows, len(rows), cfg, np.zeros(bs.INFO_LEN, np.int64), out)
    deep = [c for c in range(len(rows)) if out[c] > -bs.FILTERED / 2]  # searched at 3-ply
    assert len(deep) >= 2
    for c in deep:
        assert out[c] == pytest.approx(_v3(rows[c], uu), abs=1e-12)


def test_the_three_ply_stage_moves_its_table_and_changes_no_value():
    """search_values_memo at 3-ply with no table, the default one (carried over to a table
    2**MEMO_GROW_3 times larger for the 3-ply stage) and one so small both fill up: the same
    values, counts and play to the last bit, the 3-ply stage running."""
    rows = _plays(GAMMONISH, 3, 1)
    cfg = bs.search_settings(3, 8, np.inf, *WIDE2, 0, 2, np.inf, 0)
    got = []
    for bits in (0, bs.MEMO_BITS, 2):
        out = np.empty(len(rows))
        info = np.zeros(bs.INFO_LEN, np.int64)
        k = bs.search_values_memo(NET, bs.MONEY_U, rows, len(rows), cfg, info, out, bits)
        got.append((k, info.tolist(), out.view(np.int64).tolist()))
    assert got[1] == got[0] and got[2] == got[0]
    assert sum(v > -bs.FILTERED / 2 for v in out) >= 2  # searched at 3-ply


def test_a_three_ply_search_over_budget_keeps_the_two_ply_values():
    s = notation.position_from_id(RACE)
    rows = _plays(s, 6, 4)
    two = _search(rows, 2, filter2=WIDE2)[0]
    info = np.zeros(bs.INFO_LEN, np.int64)
    full = _search3(rows, 4, np.inf, info=info)
    total = int(info[0])
    assert info[1] == 0 and not np.array_equal(two, full)
    for budget3 in (total, 10**9):
        np.testing.assert_array_equal(_search3(rows, 4, np.inf, budget3, info), full)
        assert list(info) == [total, 0]
    for budget3 in (1, total // 2):
        np.testing.assert_array_equal(_search3(rows, 4, np.inf, budget3, info), two)
        assert info[1] == 1 and budget3 < info[0] < total
    # the agent: 3-ply with a tiny budget plays as 2-ply and counts the stop
    a2 = TDSearchAgent(plies=2, budget=0, candidates2=8, threshold2=np.inf)
    a3 = TDSearchAgent(
        plies=3,
        budget=0,
        candidates2=8,
        threshold2=np.inf,
        candidates3=4,
        threshold3=np.inf,
        budget3=1,
    )
    np.testing.assert_array_equal(a3.scores(rows), a2.scores(rows))
    assert a3.search_info["stopped"] == 1


def test_info_counts_the_afterstates_valued():
    s = notation.initial_state()
    rows = _plays(s, 4, 2)
    info = np.full(bs.INFO_LEN, -7, np.int64)
    _search(rows, 0, info=info)
    assert list(info) == [len(rows), 0]
    v0 = _v0(rows, exact=False)
    order = np.argsort(-v0, kind="stable")
    cand = [c for c in order[: bs.CANDIDATES] if v0[c] >= v0[order[0]] - bs.THRESHOLD]
    _search(rows, 1, info=info)
    assert list(info) == [len(rows) + sum(_replies(rows[c]) for c in cand), 0]


def test_a_two_ply_search_over_budget_keeps_the_one_ply_values():
    s = notation.initial_state()
    rows = _plays(s, 5, 3)
    one, k1 = _search(rows, 1)
    info = np.zeros(bs.INFO_LEN, np.int64)
    full, k2 = _search(rows, 2, info=info)
    total = int(info[0])
    assert info[1] == 0 and k1 == k2 and not np.array_equal(one, full)
    assert total > len(rows) + 21 * 10  # the 2-ply part valued some afterstates
    # a budget at least the whole count changes nothing
    for budget in (total, total + 1, 10**9):
        out, _ = _search(rows, 2, budget=budget, info=info)
        np.testing.assert_array_equal(out, full)
        assert list(info) == [total, 0]
    # any smaller budget gives exactly the 1-ply values, and stops past the budget
    for budget in (1, len(rows), total // 3, total - 1):
        out, k = _search(rows, 2, budget=budget, info=info)
        if info[1] == 0:  # the last check came before the budget was passed
            np.testing.assert_array_equal(out, full)
            assert budget >= total // 3
            continue
        np.testing.assert_array_equal(out, one)
        assert k == k1 and budget < info[0] < total
    out, _ = _search(rows, 2, budget=1, info=info)
    assert info[1] == 1
    # the agents: a tiny budget plays the 1-ply play and counts the stop
    a1, a2 = TDSearchAgent(plies=1), TDSearchAgent(plies=2, budget=1)
    np.testing.assert_array_equal(a2.scores(rows), a1.scores(rows))
    assert a2.search_info["decisions"] == 1 and a2.search_info["stopped"] == 1
    ex = ExpectimaxAgent(depth=3, width=bs.CANDIDATES, threshold=bs.THRESHOLD, budget=1)
    np.testing.assert_array_equal(ex.scores(rows), one)
    a0 = TDSearchAgent(plies=2, budget=0)
    np.testing.assert_array_equal(a0.scores(rows), full)
    assert a0.search_info == {"decisions": 1, "afterstates": total, "stopped": 0}


def test_search_agent_options_and_checks():
    agent = load("backgammon-td")
    assert isinstance(agent, TDSearchAgent) and isinstance(agent, TDAgent)
    assert (
        agent.search_settings
        == bs.search_settings()
        == (2, bs.CANDIDATES, bs.THRESHOLD, *DEFAULT2, bs.BUDGET_2, *DEFAULT3, bs.PRUNE)
    )
    assert agent.cube_policy == "janowski"
    assert load("backgammon-td", cube="cubeless").cube_policy == "cubeless"
    assert ExpectimaxAgent().cube_policy == "janowski"
    assert ExpectimaxAgent(evaluation="greedy").cube_policy == "cubeless"
    s = notation.initial_state()
    pid = agent.best_play(notation.position_id(s), 3, 1)
    assert pid in notation.legal_plays(notation.position_id(s), 3, 1)
    a2 = load("backgammon-td", plies=2, candidates=3, threshold=0.1)
    assert a2.best_play(notation.position_id(s), 6, 6) in notation.legal_plays(
        notation.position_id(s), 6, 6
    )
    # the 2-ply filter from a spec: the agent's values are the search's with it
    wide = load_spec("backgammon-td:candidates2=8,threshold2=0.2,replies=2,budget=0")
    rows = _plays(s, 6, 5)
    np.testing.assert_array_equal(wide.scores(rows), _search(rows, 2, filter2=(8, 0.2, 2))[0])
    for bad, match in (
        ({"plies": 4}, "plies"),
        ({"plies": True}, "plies"),
        ({"candidates": 0}, "candidates"),
        ({"candidates": 2.5}, "candidates"),
        ({"threshold": -0.1}, "threshold"),
        ({"threshold": float("nan")}, "threshold"),
        ({"threshold": "big"}, "threshold"),
        ({"budget": -1}, "budget"),
        ({"budget": 1.5}, "budget"),
        ({"budget": True}, "budget"),
        ({"candidates2": 0}, "candidates2"),
        ({"candidates2": 1.5}, "candidates2"),
        ({"threshold2": -1}, "threshold2"),
        ({"threshold2": None}, "threshold2"),
        ({"replies": 0}, "replies"),
        ({"replies": False}, "replies"),
        ({"candidates3": 0}, "candidates3"),
        ({"threshold3": -0.5}, "threshold3"),
        ({"budget3": -1}, "budget3"),
        ({"budget3": 2.5}, "budget3"),
    ):
        with pytest.raises((TypeError, ValueError), match=match):
            load("backgammon-td", **bad)


def test_expectimax_uses_the_same_search():
    s = notation.initial_state()
    rows = _plays(s, 5, 3)
    for depth, plies in ((1, 0), (2, 1), (3, 2)):
        ex = ExpectimaxAgent(depth=depth, width=8, threshold=0.16)
        np.testing.assert_array_equal(ex.scores(rows), _search(rows, plies)[0])
    ex = ExpectimaxAgent(depth=2, width=0)
    np.testing.assert_allclose(ex.scores(rows), [_v1(r) for r in rows], atol=1e-12)
    with pytest.raises(ValueError, match="greedy"):
        ExpectimaxAgent(depth=3, evaluation="greedy")
    with pytest.raises(ValueError, match="width"):
        ExpectimaxAgent(width=-1)
    with pytest.raises(ValueError, match="budget"):
        ExpectimaxAgent(depth=3, budget="many")


def test_preroll_outputs_are_the_mean_of_the_best_plays():
    s = notation.initial_state()
    out = np.empty(5)
    eq = bs.preroll_outputs(NET, s, out)
    ref_y, ref_e = np.zeros(5), 0.0
    for d1, d2, w in zip(bs.ROLL_D1, bs.ROLL_D2, bs.ROLL_W):
        rows = _plays(s, d1, d2)
        v = _v0(rows)
        b = int(np.argmax(v))
        ys = np.empty((rows.shape[0], 5))
        td_net.evaluate_rows(NET, rows, rows.shape[0], ys)
        ref_y += w * ys[b]
        ref_e += w * v[b]
    np.testing.assert_allclose(out, ref_y, atol=1e-12)
    assert eq == pytest.approx(ref_e, abs=1e-12)
    assert eq == pytest.approx(td_net.equity(out), abs=1e-12)


def test_a_play_that_wins_is_valued_exactly_by_the_search():
    # mover: one checker on its 1-point and one on its 2-point; 2-1 bears both off (a single win)
    s = _position({1: 1, 2: 1}, {23: 2})
    rows = _plays(s, 2, 1)
    out, _ = _search(rows, 1)
    win = np.flatnonzero(rows[:, OFF_ME] == 15)
    assert win.size == 1 and out[win[0]] == 1.0 and np.argmax(out) == win[0]


def _o1(row):
    """Python reference: (1-ply value, 1-ply outputs) of an afterstate for the player who moved:
    the opponent's best reply of each roll at 0-ply, its outputs turned round."""
    if row[OFF_ME] == 15:
        kind = game.result(game.pass_turn(row), game.SCORING_GAMMON)[1]
        return float(kind), np.array([1.0, kind >= 2, kind >= 3, 0.0, 0.0])
    s = game.pass_turn(row)
    value, y = 0.0, np.zeros(5)
    for d1, d2, w in zip(bs.ROLL_D1, bs.ROLL_D2, bs.ROLL_W):
        rows = _plays(s, d1, d2)
        v = _v0(rows)
        b = int(np.argmax(v))
        value -= w * v[b]
        if rows[b, OFF_ME] == 15:
            kind = game.result(game.pass_turn(rows[b]), game.SCORING_GAMMON)[1]
            y += w * np.array([0.0, 0.0, 0.0, kind >= 2, kind >= 3])
        else:
            o = np.empty((1, 5))
            td_net.evaluate_rows(NET, rows[b : b + 1], 1, o)
            y += w * o[0][[0, 3, 4, 1, 2]] * np.array([-1, 1, 1, 1, 1]) + w * np.array(
                [1.0, 0, 0, 0, 0]
            )
    return value, y


@pytest.mark.parametrize("candidates", [1, 3])
@pytest.mark.parametrize("position", ["start", "endgame"])
def test_preroll_outputs2_are_the_1ply_outputs_of_each_rolls_best_candidate(candidates, position):
    s = notation.initial_state() if position == "start" else ENDGAME
    out = np.empty(5)
    eq = bs.preroll_outputs2_u(NET, bs.MONEY_U, s, candidates, bs.THRESHOLD, 0, out)
    ref_y, ref_e = np.zeros(5), 0.0
    for d1, d2, w in zip(bs.ROLL_D1, bs.ROLL_D2, bs.ROLL_W):
        rows = _plays(s, d1, d2)
        v = _v0(rows)
        order = np.argsort(-v, kind="stable")
        keep = [k for k in order[:candidates] if v[k] >= v[order[0]] - bs.THRESHOLD]
        best = max((_o1(rows[k]) for k in keep), key=lambda t: t[0])
        ref_e += w * best[0]
        ref_y += w * best[1]
    np.testing.assert_allclose(out, ref_y, atol=1e-12)
    assert eq == pytest.approx(ref_e, abs=1e-12)
    # the money equity of the outputs is the 1-ply value, except where a play ends the game
    if position == "start":
        assert eq == pytest.approx(td_net.equity(out), abs=1e-9)
    assert 0.0 <= out[0] <= 1.0 and out[1] <= out[0] and out[3] <= 1.0 - out[0] + 1e-12


def test_preroll_outputs2_of_a_sure_win_is_exact():
    # mover: two checkers on its 1-point: every roll bears both off, a single win
    s = _position({1: 2}, {23: 2})
    out = np.empty(5)
    eq = bs.preroll_outputs2_u(NET, bs.MONEY_U, s, 3, bs.THRESHOLD, 0, out)
    np.testing.assert_allclose(out, [1.0, 0.0, 0.0, 0.0, 0.0], atol=1e-12)
    assert eq == pytest.approx(1.0, abs=1e-12)
