"""The pruning net of a backgammon model: its weights, its equities, the pruned search against a
Python reference, and its fit."""

import numpy as np
import pytest

from boardgym.agents import load
from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon import prune
from boardgym.agents.backgammon import search as bs
from boardgym.agents.backgammon.agents import TDAgent, TDSearchAgent
from boardgym.agents.backgammon.features import is_contact
from boardgym.agents.backgammon.weights import check_params, load_weights, save_weights
from boardgym.envs import backgammon_notation as notation
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import STATE_LEN

BASE = td_net.without_prune(TDAgent().params)  # the shipped model, its pruning net left out
# a random pruning net: the search must follow whatever it ranks, fitted or not
PRUNE_NET = td_net.init_params(8, 5, scale=0.5)
NET = td_net.with_prune(BASE, PRUNE_NET)
# the starting position: contact
START = notation.initial_state()


def _plays(state, d1, d2):
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), np.int64)
    n = game.plays_of_roll(state, d1, d2, rows, None)
    return rows[:n].copy()


def _eq(net, rows):
    ys = np.empty((rows.shape[0], 5))
    td_net.evaluate_rows(net, rows, rows.shape[0], ys)
    return 2 * ys[:, 0] - 1 + ys[:, 1] + ys[:, 2] - ys[:, 3] - ys[:, 4]


def _prune_eq(rows):
    """Python reference of the pruning net's equities: the Tesauro net of its arrays."""
    return _eq(td_net.as_model(PRUNE_NET), rows)


def _v1_pruned(row, keep):
    """Python reference: 1-ply value of afterstate row for its mover when the model values only
    the keep replies of each roll the pruning net ranks best (all of them out of contact or
    when a roll has keep or fewer)."""
    s = game.pass_turn(row)
    tot = 0.0
    for d1, d2, w in zip(bs.ROLL_D1, bs.ROLL_D2, bs.ROLL_W):
        rows = _plays(s, d1, d2)
        if keep and rows.shape[0] > keep and is_contact(s):
            rows = rows[np.argsort(-_prune_eq(rows), kind="stable")[:keep]]
        tot -= w * _eq(NET, rows).max()
    return tot


def _search(net, rows, plies, prune_keep, candidates=bs.CANDIDATES):
    out = np.empty(rows.shape[0])
    info = np.zeros(bs.INFO_LEN, np.int64)
    cfg = bs.search_settings(plies, candidates, budget=0, prune=prune_keep)
    bs.search_values(net, rows, rows.shape[0], cfg, info, out)
    return out, info


def test_prune_equities_are_the_pruning_nets_own():
    rows = _plays(game.pass_turn(START), 5, 2)
    out = np.empty(rows.shape[0])
    td_net.prune_equities(
        NET,
        rows,
        rows.shape[0],
        out,
        np.empty(td_net.MAX_NNZ, np.int64),
        np.empty(td_net.MAX_NNZ),
        np.empty(8),
        np.empty(5),
    )
    np.testing.assert_allclose(out, _prune_eq(rows), atol=1e-12)


def test_the_kernels_literal_indices_are_the_layouts():
    # Numba types a tuple's items by literal indices: the kernels write 9 and 10-13
    assert (td_net.I_TABLE, td_net.I_PRUNE, td_net.MODEL_LEN) == (9, 10, 14)
    assert NET[9].shape == BASE[9].shape and NET[11].shape == (8,)


def test_the_model_values_nothing_else_with_a_pruning_net():
    rows = _plays(START, 6, 3)
    np.testing.assert_array_equal(_eq(NET, rows), _eq(BASE, rows))


@pytest.mark.parametrize("keep", [1, 3, 6])
def test_one_ply_with_pruning_matches_the_python_reference(keep):
    rows = _plays(START, 4, 1)
    out, _ = _search(NET, rows, 1, keep, candidates=3)
    cand = np.flatnonzero(out > -bs.FILTERED / 2)
    assert len(cand) >= 2
    np.testing.assert_allclose(out[cand], [_v1_pruned(rows[c], keep) for c in cand], atol=1e-12)


def test_pruning_off_or_wider_than_every_roll_changes_nothing():
    rows = _plays(START, 2, 2)
    plain, info = _search(BASE, rows, 2, 0)
    for net, keep in ((NET, 0), (NET, game.MAX_AFTERSTATES), (BASE, 3)):
        out, info2 = _search(net, rows, 2, keep)
        np.testing.assert_array_equal(out, plain)
        np.testing.assert_array_equal(info2, info)
    pruned, _ = _search(NET, rows, 2, 3)
    assert not np.array_equal(pruned, plain)


def test_pruning_is_skipped_out_of_contact():
    race = notation.position_from_id("23YHAIC27QAAAA")
    rows = _plays(race, 6, 5)
    np.testing.assert_array_equal(_search(NET, rows, 2, 2)[0], _search(BASE, rows, 2, 0)[0])


def test_the_pruning_net_is_saved_and_loaded(tmp_path):
    path = tmp_path / "w.npz"
    save_weights(path, NET)
    got = load_weights(path)
    assert len(got) == td_net.MODEL_LEN
    for a, b in zip(got, NET):
        np.testing.assert_array_equal(a, b)
    save_weights(path, BASE)  # none: no arrays saved, an empty one loaded
    assert "pw1" not in np.load(path).files
    assert load_weights(path)[td_net.I_PRUNE + 1].shape == (0,)
    assert td_net.without_prune(NET)[td_net.I_PRUNE].shape == (td_net.N_INPUTS, 0)


def test_a_bad_pruning_net_is_refused():
    with pytest.raises(ValueError, match="pruning net"):
        check_params((*NET[: td_net.I_PRUNE], np.zeros((10, 4)), *NET[td_net.I_PRUNE + 1 :]))
    with pytest.raises(ValueError, match="NaN"):
        bad = NET[td_net.I_PRUNE + 1].copy()
        bad[0] = np.nan
        check_params((*NET[: td_net.I_PRUNE + 1], bad, *NET[td_net.I_PRUNE + 2 :]))
    with pytest.raises(ValueError, match="prune must be an integer >= 0"):
        bs.search_settings(prune=-1)
    with pytest.raises(ValueError, match="prune"):
        load("backgammon-td:prune=-2")


def test_the_agent_passes_prune_to_its_search():
    agent = TDSearchAgent(weights=NET, prune=4)
    assert agent.search_settings.prune == 4
    rows = _plays(START, 5, 3)
    out = agent.scores(rows)
    np.testing.assert_array_equal(out, _search(agent.play_params, rows, 2, 4)[0][: rows.shape[0]])


def test_a_fitted_pruning_net_ranks_better_than_a_random_one():
    model, report = prune.fit_prune(BASE, hidden=8, games=40, holdout=20, epochs=4, seed=3)
    assert model[td_net.I_PRUNE + 1].shape == (8,)
    for a, b in zip(model[: td_net.I_PRUNE], BASE):
        assert a is b  # the model itself is untouched
    assert report["mse"][-1] < report["mse"][0]
    rec = report["recall"]
    assert [rec[k][0] for k in prune.RECALL_K] == sorted(rec[k][0] for k in prune.RECALL_K)
    rows = np.empty((20 * prune.ROWS_PER_GAME, STATE_LEN), np.int64)
    gid = np.empty(len(rows), np.int64)
    k, _ = prune.roll_plays(BASE, np.array([~3], np.int64), 20, rows, gid)
    ys = np.empty((k, 5))
    td_net.evaluate_rows(BASE, rows[:k], k, ys)
    rand = prune.prune_recall(NET, rows[:k], gid[:k], ys)
    assert rec[1][0] > rand[1][0] + 0.1
    assert rec[3][1] < rand[3][1]
    with pytest.raises(ValueError, match="hidden"):
        prune.fit_prune(BASE, hidden=0)
    with pytest.raises(ValueError, match="no pruning net"):
        prune.prune_recall(BASE, rows[:k], gid[:k], ys)


def test_recall_is_the_share_of_rolls_whose_best_play_the_pruning_net_keeps():
    rows = np.empty((12 * prune.ROWS_PER_GAME, STATE_LEN), np.int64)
    gid = np.empty(len(rows), np.int64)
    k, g = prune.roll_plays(BASE, np.array([11], np.int64), 12, rows, gid)
    rows, gid = rows[:k], gid[:k]
    ys = np.empty((k, 5))
    td_net.evaluate_rows(BASE, rows, k, ys)
    pe = np.empty(k)
    hp = NET[td_net.I_PRUNE + 1].shape[0]
    scratch = (np.empty(td_net.MAX_NNZ, np.int64), np.empty(td_net.MAX_NNZ), np.empty(hp))
    td_net.prune_equities(NET, rows, k, pe, *scratch, np.empty(5))
    me = np.array([td_net.equity(y) for y in ys])
    every = game.MAX_AFTERSTATES
    rec = prune.prune_recall(NET, rows, gid, ys, ks=(1, 3, every))
    for kk in (1, 3, every):  # by hand, roll by roll
        found, lost = 0, 0.0
        for j in range(g):
            at = np.flatnonzero(gid == j)
            top = at[np.argsort(-pe[at], kind="stable")[:kk]]
            found += me[top].max() == me[at].max()
            lost += me[at].max() - me[top].max()
        assert rec[kk][0] == found / g and abs(rec[kk][1] - lost / g) < 1e-12
    assert rec[every] == (1.0, 0.0) and rec[1][0] < rec[3][0] < 1.0


def test_the_shipped_model_has_its_pruning_net():
    shipped = TDAgent().params
    assert shipped[td_net.I_PRUNE + 1].shape == (prune.HIDDEN,)
    for a, b in zip(shipped[: td_net.I_PRUNE], BASE):
        np.testing.assert_array_equal(a, b)
    rows = _plays(START, 3, 1)
    info = np.zeros(bs.INFO_LEN, np.int64)
    for keep in (0, 1):  # by default the model values every reply
        want = np.empty(rows.shape[0])
        cfg = bs.search_settings(prune=keep)
        bs.search_values(td_net.as_play(shipped), rows, rows.shape[0], cfg, info, want)
        agent = load("backgammon-td", prune=keep) if keep else load("backgammon-td")
        np.testing.assert_array_equal(agent.scores(rows), want)
    assert not np.array_equal(want, TDSearchAgent(weights=BASE).scores(rows))
