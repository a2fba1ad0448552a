"""The gnubg-style backgammon model: contact features on hand-built positions with hand-computed
values, the one-sided bear-off database (hand values and a brute-force recursion), the model tuple
(old checkpoints unchanged, hard constraints, exact parts), its trainer and checkpoints."""

import dataclasses
import hashlib
import json
from functools import cache

import numpy as np
import pytest
from train_runs import killed_and_resumed_td_run

from boardgym.agents.backgammon import bearoff as bo
from boardgym.agents.backgammon import features as F
from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon import td as bg_td
from boardgym.agents.backgammon.agents import TDAgent
from boardgym.agents.backgammon.weights import (
    MODEL_NAMES,
    check_params,
    load_weights,
    save_weights,
)
from boardgym.agents.registry import CHECKPOINTS
from boardgym.agents.training import td as training_td
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import (
    BAR_ME,
    BAR_OPP,
    ME,
    OFF_ME,
    OFF_OPP,
    OPP,
    STATE_LEN,
    flip_into,
    refresh_masks,
)


def board(me, opp, bar_me=0, bar_opp=0):
    """A mover's-view state: me / opp map the mover's points (1..24) to checker counts; the rest
    of each side is borne off."""
    s = np.zeros(STATE_LEN, dtype=np.int64)
    for p, c in me.items():
        s[ME + p - 1] = c
    for p, c in opp.items():
        s[OPP + p - 1] = c
    s[BAR_ME], s[BAR_OPP] = bar_me, bar_opp
    s[OFF_ME] = 15 - sum(me.values()) - bar_me
    s[OFF_OPP] = 15 - sum(opp.values()) - bar_opp
    s[59] = 1  # CUBE_VALUE
    s[60] = -1
    s[61] = 1 << 15  # CUBE_LIMIT
    refresh_masks(s)
    return s


def feats(s):
    return F.features_of(s)


# ----------------------------------------------------------------------------- contact features


def test_escapes_by_hand():
    n = 20
    assert F.escapes(board({n: 1}, {}), n) == 36
    # one made point right in front: every roll but 1-1 passes it
    assert F.escapes(board({n: 1}, {n - 1: 2}), n) == 35
    # a 6-prime in front: nothing escapes
    assert F.escapes(board({n: 1}, {n - k: 2 for k in range(1, 7)}), n) == 0
    # a made point 6 pips in front: sums >= 7 through an open point (18 rolls) + 4-4, 5-5
    assert F.escapes(board({n: 1}, {n - 6: 2}), n) == 20
    # from the bar (point 25) the same rule
    assert F.escapes(board({}, {24: 2}, bar_me=1), 25) == 35


def test_hit_probability_and_pip_loss_by_hand():
    # my blot on 10, a hitter 6 pips away on my 4: any 6 (11), 1-5 and 2-4 (4), 2-2 and 3-3
    s = board({10: 1}, {4: 1, 24: 14})
    f = feats(s)
    assert f[F.F_P1] == pytest.approx(17 / 36)
    assert f[F.F_P2] == 0.0
    assert f[F.F_PIPLOSS] == pytest.approx(17 * (25 - 10) / (36 * 12))
    # my made point on 7 (3 pips from the hitter) stops 3-3
    s = board({10: 1, 7: 2}, {4: 1, 24: 14})
    assert feats(s)[F.F_P1] == pytest.approx(16 / 36)
    # a hitter on the bar (my point 0) hits a blot on my 3 with any 3 (11) 1-2 (2) 1-1 (1);
    # the checker on my 2 (a hitter 1 pip away) does not count while the bar is occupied
    s = board({3: 1}, {2: 1, 24: 13}, bar_opp=1)
    assert feats(s)[F.F_P1] == pytest.approx(14 / 36)
    # two blots 1 and 2 pips in front of a hitter; P2 counts rolls reaching both
    s = board({5: 1, 6: 1}, {4: 1, 24: 14})
    f = feats(s)
    # blot 5 (1 away): any 1 (11); blot 6 (2 away): any 2 (11) or 1-1; both: 1-2 (2), 1-1 (1)
    assert f[F.F_P1] == pytest.approx((11 + 11 - 2) / 36)
    assert f[F.F_P2] == pytest.approx(3 / 36)


def _hit_features(s):
    """Python reference of F_PIPLOSS, F_P1, F_P2 of the mover in s by hits_blot, roll by roll."""
    blots = [p for p in range(24, 0, -1) if s[ME + p - 1] == 1]
    loss = n1 = n2 = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1 if d1 == d2 else 2
            hit = [p for p in blots if F.hits_blot(s, p, d1, d2, s[BAR_OPP] > 0)]
            loss += w * (25 - hit[0]) if hit else 0
            n1 += w if hit else 0
            n2 += w if len(hit) >= 2 else 0
    return loss / (36.0 * 12.0), n1 / 36.0, n2 / 36.0


def test_hit_features_are_hits_blot_roll_by_roll():
    # the features count hits by bit masks; hits_blot is the rule written point by point
    rng = np.random.default_rng(11)
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    seen = 0
    for _ in range(120):
        s = game.initial_state()
        for _ in range(int(rng.integers(2, 40))):
            n = game.plays_of_roll(s, int(rng.integers(1, 7)), int(rng.integers(1, 7)), rows, None)
            s = game.pass_turn(rows[int(rng.integers(n))])
            if s[OFF_ME] == 15 or s[OFF_OPP] == 15:
                break
        for t in (s, np.empty_like(s)):
            if t is not s:
                flip_into(s, t)
            f = feats(t)
            want = _hit_features(t)
            assert (f[F.F_PIPLOSS], f[F.F_P1], f[F.F_P2]) == want
            seen += want[1] > 0 and t[BAR_OPP] > 0
    assert seen >= 3  # hits from the bar were among them


def test_contact_pips_anchors_prime_and_entering_by_hand():
    s = board({13: 2, 8: 1}, {10: 1, 24: 14})
    f = feats(s)
    assert f[F.F_BREAK] == pytest.approx(2 * (13 - 10 + 1) / 152)
    assert f[F.F_FREEPIP] == pytest.approx((8 - 6) / 100)
    assert f[F.F_PIPS] == pytest.approx((26 + 8) / 167)
    assert f[F.F_TIMING] == pytest.approx((2 * 7 + 2) / 100)
    s = board({20: 2, 5: 2, 6: 2, 7: 2, 8: 3}, {24: 2})
    f = feats(s)
    assert f[F.F_BACKANCH] == pytest.approx(20 / 24)
    assert f[F.F_FWDANCH] == pytest.approx(5 / 12)
    assert f[F.F_PRIME] == pytest.approx(4 / 6)
    s = board({6: 13}, {19: 2, 20: 2, 21: 2}, bar_me=2)
    f = feats(s)
    assert f[F.F_ENTER] == pytest.approx(2 * 3 / 12)
    assert f[F.F_ENTER2] == pytest.approx(0.25)


def test_opponent_features_are_mine_on_the_turned_board():
    s = game.initial_state()
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    n = game.plays_of_roll(s, 6, 4, rows, None)
    for r in range(n):
        f = feats(rows[r])
        t = np.empty(STATE_LEN, dtype=np.int64)
        flip_into(rows[r], t)
        g = feats(t)
        assert np.array_equal(f[F.N_SIDE :], g[: F.N_SIDE])
        assert np.array_equal(f[: F.N_SIDE], g[F.N_SIDE :])


def test_contact_and_bearoff_predicates():
    assert F.is_contact(game.initial_state())
    assert not F.is_contact(board({5: 3, 12: 1}, {13: 2}))
    assert F.is_contact(board({5: 3, 14: 1}, {13: 2}))
    assert F.is_contact(board({5: 3}, {20: 2}, bar_me=1))
    assert F.in_bearoff(board({5: 3}, {20: 2}))
    assert not F.in_bearoff(board({7: 1}, {20: 2}))
    assert not F.in_bearoff(board({5: 1}, {18: 2}))


def test_features_reject_bad_states():
    with pytest.raises(ValueError, match="int64"):
        F.features_of(np.zeros(3))


# ----------------------------------------------------------------------------- bear-off database


@pytest.fixture(scope="module")
def table():
    return bo.table()


def test_rank_is_a_bijection():
    pos, _ = bo._positions()
    assert pos.shape == (bo.N_POSITIONS, 6) == (54264, 6)
    assert np.array_equal(bo._ranks(pos), np.arange(bo.N_POSITIONS))
    assert bo.rank(np.zeros(6, np.int64)) == 0


def test_bearoff_distributions_by_hand(table):
    t = table[bo.rank(np.array([0, 0, 0, 0, 0, 1]))]
    # one checker on the 6: off in one roll unless the roll has no 6 and sums < 6 or is 1-1
    assert t[:3] == pytest.approx([0, 27 / 36, 9 / 36])
    assert t[bo.N_ROLLS] == 1.0  # 14 are off already: the first checker is off at 0 rolls
    assert table[bo.rank(np.array([1, 0, 0, 0, 0, 0])), 1] == pytest.approx(1.0)
    # 15 checkers on the 6: a first checker comes off in one roll with a 6 (11), a sum of
    # exactly 6 (1-5, 2-4), or 2-2 / 3-3
    t = table[bo.rank(np.array([0, 0, 0, 0, 0, 15]))]
    assert t[bo.N_ROLLS + 1] == pytest.approx(17 / 36)
    assert np.allclose(table[:, : bo.N_ROLLS].sum(1), 1) and np.allclose(
        table[:, bo.N_ROLLS :].sum(1), 1
    )


@cache
def _brute(counts):
    """Distribution of rolls to bear off (list), by recursion over the game core's plays,
    each roll's play minimising the mean."""
    if sum(counts) == 0:
        return (1.0,) + (0.0,) * 9
    s = board({p + 1: c for p, c in enumerate(counts) if c}, {})
    s[OFF_OPP] = 15
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    dist = np.zeros(10)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            n = game.plays_of_roll(s, d1, d2, rows, None)
            best = min(
                (_brute(tuple(int(x) for x in rows[r, :6])) for r in range(n)),
                key=lambda d: sum(k * v for k, v in enumerate(d)),
            )
            dist[1:] += (1 if d1 == d2 else 2) / 36 * np.array(best[:-1])
    return tuple(dist)


@pytest.mark.parametrize(
    "counts",
    [
        (0, 1, 0, 1, 0, 0),
        (2, 0, 0, 0, 1, 0),
        (0, 0, 1, 1, 0, 1),
        (0, 0, 0, 0, 2, 1),
        (1, 1, 1, 0, 0, 1),
    ],
)
def test_bearoff_matches_brute_force(table, counts):
    assert table[bo.rank(np.array(counts)), :10] == pytest.approx(_brute(counts), abs=1e-12)


def test_bearoff_outputs_by_hand(table):
    y = np.zeros(5)
    # both with one checker on the 1 point: the opponent rolls first and wins
    bo.bearoff_outputs(table, board({1: 1}, {24: 1}), y)
    assert y == pytest.approx([0, 0, 0, 0, 0])
    # my last checker on the 1 against 15 of the opponent on its 6 point (my 19): I win on my
    # first roll; a gammon unless its first roll takes one off (17/36, as above)
    bo.bearoff_outputs(table, board({1: 1}, {19: 15}), y)
    assert y == pytest.approx([1, 19 / 36, 0, 0, 0])


# ----------------------------------------------------------------------------- the model tuple


def _rows(seed=5, games=3):
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    rng = np.array([seed], np.int64)
    out = []
    from boardgym.agents.backgammon.agents import GreedyAgent

    g = GreedyAgent()
    for _ in range(games):
        state, status, rolls, _ = game.start(rng, 0, game.no_passes())
        while status == game.ROLLED:
            n = game.afterstates(state, rows)
            out.append(rows[:n].copy())
            state, status, rolls, _ = game.finish_turn(
                rows[g.choose(rows[:n])].copy(), rng, rolls, 0, game.no_passes()
            )
    return np.ascontiguousarray(np.concatenate(out))


def test_a_tesauro_net_in_the_model_tuple_evaluates_identically():
    raw = td_net.init_params(20, 3)
    agent = TDAgent(weights=raw)
    assert agent.model == "tesauro" and len(agent.params) == td_net.MODEL_LEN
    rows = _rows()
    a = np.empty((len(rows), 5))
    b = np.empty((len(rows), 5))
    td_net.evaluate_rows(agent.params, rows, len(rows), a)
    td_net.evaluate_rows(raw, rows, len(rows), b)
    assert np.array_equal(a, b)


def test_the_shipped_net_is_the_gnubg_model_with_its_race_net_and_bearoff_table():
    agent = TDAgent()
    assert agent.model == "gnubg" and len(agent.params) == td_net.MODEL_LEN
    assert agent.params[2].shape == (128,) and agent.params[6].shape == (64,)
    assert agent.params[9].shape[0] > 0  # the bear-off database, generated at load
    assert set(np.load(CHECKPOINTS / "backgammon-td.npz").files) >= {"w1", "rw1", "hdr"}


def test_gnubg_model_parts_and_constraints(table):
    model = td_net.init_model(8, 1, race_hidden=4)
    rows = _rows()
    ys = np.empty((len(rows), 5))
    td_net.evaluate_rows(model, rows, len(rows), ys)
    assert ((ys >= 0) & (ys <= 1)).all()
    assert (ys[:, 1] <= ys[:, 0]).all() and (ys[:, 2] <= ys[:, 1]).all()
    assert (ys[rows[:, OFF_OPP] > 0, 1:3] == 0).all()  # the opponent cannot be gammoned
    assert (ys[rows[:, OFF_ME] > 0, 3:] == 0).all()
    assert (ys[rows[:, OFF_ME] == 0, 3] > 0).any() and (ys[rows[:, OFF_OPP] == 0, 1] > 0).any()
    won = rows[:, OFF_ME] == 15
    assert won.any() and (ys[won, 0] == 1).all()
    bear = np.array([F.in_bearoff(r) and r[OFF_ME] < 15 for r in rows])
    assert bear.any()
    y = np.zeros(5)
    for r in np.nonzero(bear)[0]:
        bo.bearoff_outputs(table, rows[r], y)
        assert np.array_equal(ys[r], y)
    # the race net values exactly the race positions outside the bear-off
    race = np.array([not F.is_contact(r) and not F.in_bearoff(r) and r[OFF_ME] < 15 for r in rows])
    assert race.any()
    other = list(model)
    other[8] = model[8] + 1.0  # race net output biases
    ys2 = np.empty_like(ys)
    td_net.evaluate_rows(tuple(other), rows, len(rows), ys2)
    changed = np.any(ys2 != ys, axis=1)
    assert np.array_equal(changed, race)


def test_sigmoid_by_arithmetic_is_the_formula():
    xs = np.concatenate([np.linspace(-40, 40, 200_001), [-1e300, -1e3, -41.0, 41.0, 1e3, 1e300]])
    got = np.array([td_net._sigmoid(x) for x in xs])
    want = 1.0 / (1.0 + np.exp(-np.clip(xs, -700, 700)))
    inside = np.abs(xs) <= 40
    assert np.abs(got - want)[inside].max() < 2e-14
    assert np.abs(got - want)[~inside].max() < 5e-18  # clamped at +-40: exp(-40) ~ 4e-18


def test_a_play_model_runs_its_hidden_layers_in_float32_within_1e_6(table):
    model = TDAgent().params
    play = td_net.as_play(model)
    assert [play[i].dtype for i in (1, 2, 5, 6)] == [np.float32] * 4
    assert all(model[i].dtype == np.float64 for i in range(td_net.MODEL_LEN))  # left as it was
    assert all(play[i] is model[i] for i in (0, 3, 4, 7, 8, 9, 10, 11, 12, 13))
    rows = _rows(seed=9, games=6)
    a = np.empty((len(rows), 5))
    b = np.empty((len(rows), 5))
    td_net.evaluate_rows(model, rows, len(rows), a)
    td_net.evaluate_rows(play, rows, len(rows), b)
    d = np.abs(a - b).max(axis=1)
    assert d.max() < 1e-6
    contact = np.array([F.is_contact(r) and r[OFF_ME] < 15 for r in rows])
    race = np.array([not F.is_contact(r) and not F.in_bearoff(r) and r[OFF_ME] < 15 for r in rows])
    assert (d[contact] > 0).any() and (d[race] > 0).any()  # both nets run in float32
    assert (d[~contact & ~race] == 0).all()  # the bear-off table and finished games: exact
    assert (b[:, 1] <= b[:, 0]).all() and (b[:, 2] <= b[:, 1]).all()  # the constraints hold
    assert (b[rows[:, OFF_OPP] > 0, 1:3] == 0).all() and (b[rows[:, OFF_ME] > 0, 3:] == 0).all()


def test_a_widened_net_repeats_its_units_and_keeps_its_outputs(table):
    model = TDAgent().params
    rows = _rows(seed=13, games=3)
    a = np.empty((len(rows), 5))
    td_net.evaluate_rows(model, rows, len(rows), a)
    for k in (2, 3):
        wide = td_net.widen(model, 128 * k, seed=4)
        assert wide[1].shape == (model[1].shape[0], 128 * k) and wide[3].shape == (128 * k, 5)
        assert all(wide[i] is model[i] for i in (0, 5, 6, 7, 8, 9, 10, 11, 12, 13))
        b = np.empty_like(a)
        td_net.evaluate_rows(wide, rows, len(rows), b)
        assert np.abs(a - b).max() < 1e-12
        copies = wide[3].reshape(k, 128, 5)
        for c in range(k):  # each copy: the unit's input weights and bias, a share of w2
            assert np.array_equal(wide[1][:, 128 * c : 128 * (c + 1)], model[1])
            assert np.array_equal(wide[2][128 * c : 128 * (c + 1)], model[2])
        assert np.allclose(copies.sum(axis=0), model[3], rtol=0, atol=1e-15)
        share = copies[0, :, 0] / model[3][:, 0]
        assert 1 / k - 0.2 <= share.min() < share.max() <= 1 / k + 0.2  # tilted, not alike
    # the tilt comes from the seed; a play model stays float32
    assert np.array_equal(td_net.widen(model, 256, 4)[3], td_net.widen(model, 256, 4)[3])
    assert not np.array_equal(td_net.widen(model, 256, 4)[3], td_net.widen(model, 256, 5)[3])
    assert td_net.widen(td_net.as_play(model), 256, 1)[1].dtype == np.float32
    for bad, err, match in (
        (200, ValueError, "whole multiple of the net's 128 units, got 200"),
        (64, ValueError, "whole multiple"),
        (0, ValueError, "whole multiple"),
        (True, TypeError, "hidden must be an integer"),
        (256.0, TypeError, "hidden must be an integer"),
    ):
        with pytest.raises(err, match=match):
            td_net.widen(model, bad, 1)
    with pytest.raises(ValueError, match="tilt"):
        td_net.widen(model, 256, 1, tilt=-0.1)


def test_an_agent_plays_in_float32_unless_told_float64():
    rows = _rows(seed=11, games=2)
    exact = np.empty((len(rows), 5))
    td_net.evaluate_rows(TDAgent().params, rows, len(rows), exact)
    f64 = TDAgent(precision="float64")
    assert f64.play_params is f64.params and np.array_equal(f64.outputs(rows), exact)
    f32 = TDAgent()
    assert f32.precision == "float32" and f32.play_params[1].dtype == np.float32
    assert f32.params[1].dtype == np.float64  # what save() writes and training takes
    got = f32.outputs(rows)
    assert 0 < np.abs(got - exact).max() < 1e-6
    for bad in ("float16", "double", 32, None):
        with pytest.raises(ValueError, match="precision must be 'float32' or 'float64'"):
            TDAgent(precision=bad)


def test_gnubg_model_save_load_and_play(tmp_path):
    agent = TDAgent(hidden=8, model="gnubg", race_hidden=4, seed=2)
    assert agent.model == "gnubg" and agent.hidden == 8
    agent.save(tmp_path / "m.npz", note="x")
    back = TDAgent(tmp_path / "m.npz")
    for p, q in zip(agent.params, back.params):
        assert np.array_equal(p, q)
    assert back.best_play("4HPwATDgc/ABMA", 3, 1) == agent.best_play("4HPwATDgc/ABMA", 3, 1)
    # a Tesauro net is saved in the old four-array format
    TDAgent(hidden=3).save(tmp_path / "t.npz")
    assert set(np.load(tmp_path / "t.npz").files) == {"w1", "b1", "w2", "b2", "meta"}
    with pytest.raises(ValueError, match="header"):
        check_params((np.full(4, 7.0), *agent.params[1:9]))
    with pytest.raises(ValueError, match="race net"):
        check_params((*agent.params[:5], np.zeros((3, 2)), *agent.params[6:9]))
    with pytest.raises(ValueError, match="model"):
        TDAgent(hidden=3, model="chess")
    save_weights(tmp_path / "m2.npz", load_weights(tmp_path / "m.npz"))


def test_model_training_moves_the_nets_and_chunks_are_one_run():
    a = td_net.init_model(6, 4, race_hidden=3)
    b = tuple(x.copy() for x in a)
    st = np.zeros(bg_td.N_STATS)
    bg_td.train_model_games(a, np.array([9], np.int64), 4, 0.1, 0.1, 0.0, st)
    rng = np.array([9], np.int64)
    for _ in range(2):
        bg_td.train_model_games(b, rng, 2, 0.1, 0.1, 0.0, st)
    for p, q in zip(a, b):
        assert np.array_equal(p, q)
    fresh = td_net.init_model(6, 4, race_hidden=3)
    assert not np.array_equal(a[1], fresh[1]) and not np.array_equal(a[5], fresh[5])
    assert st[bg_td.ST_GAMES] == 8


# Produced by the code before the merge of train_games' own self-play loop into the one loop of
# train_model_games (commit 20bf9c4): init_model(hidden, seed, race_hidden), alpha 0.1, race alpha
# 0.05, TD(0); SHA-256 of the bytes of the final arrays 0..8 (the table is not trained), the final
# dice state, the stats. Numba compiles for the host CPU and the forward pass is fastmath, so
# another CPU may round differently: regenerate there with that commit before suspecting the code.
MODEL_TRAIN_PINS = [
    (
        6,
        3,
        4,
        21,
        40,
        "fd4953d5af156f896a04034c13bfc1834e20d7fc056ac2498443d34b9a2b5917",
        5591932524668855869,
        [40.0, 1952.0, 28.527739365813954, 17.0, -8.0, 6.0, 1.0],
    ),
    (
        8,
        0,
        7,
        24,
        60,
        "06a983ecaa01959ff6924807e0cba402f79f919804bab83ca2a5864977d20ef3",
        6269817706955863144,
        [60.0, 4769.0, 54.96469831137439, 29.0, -13.0, 11.0, 8.0],
    ),
]


@pytest.mark.parametrize(
    "hidden, race_hidden, seed, dice, games, digest, rng_after, stats", MODEL_TRAIN_PINS
)
def test_model_training_is_bit_identical_to_its_own_loop(
    hidden, race_hidden, seed, dice, games, digest, rng_after, stats
):
    net = td_net.init_model(hidden, seed, race_hidden=race_hidden)
    st = np.zeros(bg_td.N_STATS)
    rng = np.array([dice], np.int64)
    bg_td.train_model_games(net, rng, games, 0.1, 0.05, 0.0, st)
    h = hashlib.sha256()
    for a in net[:9]:
        h.update(a.tobytes())
    assert (h.hexdigest(), int(rng[0]), st.tolist()) == (digest, rng_after, stats)


def test_model_td_lambda_only_for_a_contact_net_alone():
    st = np.zeros(bg_td.N_STATS)
    for net in (td_net.init_model(4, 1, race_hidden=2, bearoff=False), td_net.init_model(4, 1)):
        with pytest.raises(ValueError, match="race net or a bear-off table"):
            bg_td.train_model_games(net, np.array([1], np.int64), 1, 0.1, 0.1, 0.7, st)
    # contact net alone: traces of that net; a tiny lambda is the TD(0) path
    a = td_net.init_model(6, 5, bearoff=False)
    b = tuple(x.copy() for x in a)
    bg_td.train_model_games(a, np.array([9], np.int64), 3, 0.1, 0.1, 0.0, st)
    bg_td.train_model_games(b, np.array([9], np.int64), 3, 0.1, 0.1, 1e-300, st)
    for p, q in zip(a, b):
        assert np.allclose(p, q, atol=1e-9)
    assert not np.allclose(a[1], td_net.init_model(6, 5, bearoff=False)[1])
    assert st[bg_td.ST_GAMES] == 6


#: a tiny gnubg-model run of killed_and_resumed_td_run (80 games, seed 3)
TINY_GNUBG_RUN = training_td.TDSettings(
    model="gnubg",
    hidden=6,
    race_hidden=3,
    seed=3,
    ckpt_every=20,
    eval_every=40,
    eval_games=4,
    games=80,
    tensorboard=False,
)


def _quiet(cfg):
    """The final params of the gnubg-model TD run of settings cfg, its lines unprinted."""
    return training_td.train_backgammon_td(cfg, log=lambda text: None)


def test_train_gnubg_resume_after_a_kill_matches_uninterrupted_run(tmp_path, monkeypatch):
    full, _ = killed_and_resumed_td_run(
        _quiet, TINY_GNUBG_RUN, tmp_path, monkeypatch, ("random", "greedy")
    )
    assert len(full) == td_net.MODEL_LEN
    agent = TDAgent(tmp_path / "a" / "games_80.npz")
    assert agent.model == "gnubg"
    with pytest.raises(ValueError, match="--lam must be 0"):
        _quiet(dataclasses.replace(TINY_GNUBG_RUN, lam=0.5, ckpt_dir=str(tmp_path / "c")))


def _killed_run_and_fresh_model(cfg, tmp_path, monkeypatch):
    """The run's final params (killed and resumed), and the run's fresh model, dice and stats
    to replay it by hand."""
    full, _ = killed_and_resumed_td_run(_quiet, cfg, tmp_path, monkeypatch, ("random", "greedy"))
    return (
        full,
        td_net.init_model(6, 3, race_hidden=3),
        np.array([3], np.int64),
        np.zeros(bg_td.N_STATS),
    )


def test_alpha_steps_change_the_rate_at_their_game_counts_and_resume_exactly(tmp_path, monkeypatch):
    common = dataclasses.replace(TINY_GNUBG_RUN, alpha_steps="30:0.03,50:0.01")
    full, net, rng, st = _killed_run_and_fresh_model(common, tmp_path, monkeypatch)
    # the same games by hand: 30 at 0.1, 20 at 0.03, 30 at 0.01
    for n, a in ((30, 0.1), (20, 0.03), (30, 0.01)):
        bg_td.train_model_games(net, rng, n, a, a, 0.0, st)
    for p, q in zip(full, net):
        assert np.array_equal(p, q)
    # a run resumed with a schedule it did not have continues at the new rate
    out = str(tmp_path / "c")
    _quiet(dataclasses.replace(TINY_GNUBG_RUN, games=40, ckpt_dir=out))
    resumed = _quiet(
        dataclasses.replace(
            TINY_GNUBG_RUN, games=80, ckpt_dir=out, resume=True, alpha_steps="40:0.03"
        )
    )
    net = td_net.init_model(6, 3, race_hidden=3)
    rng = np.array([3], np.int64)
    for n, a in ((40, 0.1), (40, 0.03)):
        bg_td.train_model_games(net, rng, n, a, a, 0.0, st)
    for p, q in zip(resumed, net):
        assert np.array_equal(p, q)


@pytest.mark.parametrize("bad", ["10", "10:0", "x:0.1", "10:0.1,5:0.01", "10:nan", "-3:0.1"])
def test_alpha_steps_are_checked(bad):
    with pytest.raises(ValueError, match="--alpha-steps"):
        training_td.parse_alpha_steps(bad)


def test_distill_rounds_follow_the_td_games_and_resume_round_by_round(tmp_path):
    common = dataclasses.replace(
        TINY_GNUBG_RUN, eval_every=0, games=40, distill_games=3, distill_epochs=2
    )
    full = _quiet(dataclasses.replace(common, distill_rounds=2, ckpt_dir=str(tmp_path / "a")))
    lines = [json.loads(t) for t in (tmp_path / "a" / "metrics.jsonl").read_text().splitlines()]
    assert [m["games"] for m in lines] == [40, 43, 46]
    assert [m.get("round") for m in lines] == [None, 1, 2] and lines[1]["positions"] > 50
    assert TDAgent(tmp_path / "a" / "games_46.npz").model == "gnubg"
    # the same run in three calls: the TD games, then one round at a time
    b = str(tmp_path / "b")
    _quiet(dataclasses.replace(common, ckpt_dir=b))
    _quiet(dataclasses.replace(common, distill_rounds=1, ckpt_dir=b, resume=True))
    resumed = _quiet(dataclasses.replace(common, distill_rounds=2, ckpt_dir=b, resume=True))
    for p, q in zip(full, resumed):
        assert np.array_equal(p, q)
    z = np.load(tmp_path / "b" / "latest.npz")
    assert int(z["games"]) == 46 and int(z["rounds"]) == 2
    # the distillation moved the model
    td_only = TDAgent(tmp_path / "a" / "games_40.npz").params
    assert not np.array_equal(td_only[1], full[1])
    # rounds added to the finished run with the Adam fit: the same TD games, another model
    c = str(tmp_path / "c")
    _quiet(dataclasses.replace(common, ckpt_dir=c))
    adam = _quiet(
        dataclasses.replace(
            common,
            distill_rounds=2,
            distill_fit="adam",
            distill_alpha=0.001,
            ckpt_dir=c,
            resume=True,
        )
    )
    z = np.load(tmp_path / "c" / "latest.npz")
    assert int(z["games"]) == 46 and int(z["rounds"]) == 2
    assert not np.array_equal(adam[1], full[1]) and not np.array_equal(adam[1], td_only[1])


def test_a_pruned_two_ply_round_fits_a_pruning_net_to_its_teacher_first(tmp_path, monkeypatch):
    from boardgym.agents.backgammon import distill, prune

    common = dataclasses.replace(
        TINY_GNUBG_RUN, eval_every=0, games=40, distill_games=2, distill_epochs=2
    )
    _quiet(dataclasses.replace(common, ckpt_dir=str(tmp_path / "a")))
    seen = {}
    real_fit, real_round = prune.fit_prune, distill.round_targets

    def fit(net, **kw):
        seen["fit"] = kw
        seen["teacher"] = [a.copy() for a in net]
        return real_fit(net, **kw)

    def round_(*args):
        seen["round"] = args[6:8]
        return real_round(*args)

    monkeypatch.setattr(prune, "fit_prune", fit)
    monkeypatch.setattr(distill, "round_targets", round_)
    lines = []
    run = dataclasses.replace(
        common,
        distill_rounds=1,
        distill_plies=2,
        distill_prune=2,
        prune_hidden=3,
        prune_games=2,
        ckpt_dir=str(tmp_path / "a"),
        resume=True,
    )
    out = training_td.train_backgammon_td(run, log=lines.append)
    assert seen["fit"] == {"hidden": 3, "games": 2, "holdout": 1, "seed": 3 * 1_000_003}
    keep, net = seen["round"]
    assert keep == 2 and [a.shape for a in net] == [a.shape for a in td_net.init_params(3, 0)]
    # the teacher is the model as the round found it, and the round moved the model
    assert not np.array_equal(seen["teacher"][1], out[1])
    assert any("pruning net for the round's 2-ply targets" in t for t in lines)
    assert out[td_net.I_PRUNE].size == 0  # the run's model keeps no pruning net


def test_distill_hidden_widens_the_net_after_the_targets_and_resumes_at_its_size(
    tmp_path, monkeypatch
):
    from boardgym.agents.backgammon import distill

    common = dataclasses.replace(
        TINY_GNUBG_RUN, eval_every=0, games=40, distill_games=2, distill_epochs=2
    )
    a = str(tmp_path / "a")
    _quiet(dataclasses.replace(common, distill_rounds=1, ckpt_dir=a))
    z = np.load(tmp_path / "a" / "latest.npz")
    before = check_params(tuple(z[k] for k in MODEL_NAMES))
    rng = z["rng"].copy()
    lines = []
    wide = training_td.train_backgammon_td(
        dataclasses.replace(common, distill_rounds=2, distill_hidden=12, ckpt_dir=a, resume=True),
        log=lines.append,
    )
    assert wide[1].shape[1] == wide[2].shape[0] == wide[3].shape[0] == 12
    assert any("widened from 6 to 12 units" in t for t in lines)
    # by hand: the round's targets from the 6-unit net, then the widened net fitted to them
    seed = 3 * 1_000_003 + 1
    cap = int(distill.POSITIONS_PER_GAME * 2 * 1.5)
    rows, targets, n = distill.round_targets(before, rng, 2, 0.5, cap)
    net = td_net.widen(before, 12, seed)
    distill.fit_round(net, rows, targets, n, 2, 0.02, 0.02, seed)
    for p, q in zip(wide, net):
        assert np.array_equal(p, q)
    # the checkpoint and the round's file say the new size; a resume keeps it
    z = np.load(tmp_path / "a" / "latest.npz")
    assert json.loads(str(z["settings"]))["hidden"] == 12
    assert TDAgent(tmp_path / "a" / "games_44.npz").params[2].shape == (12,)
    lines = []
    again = training_td.train_backgammon_td(
        dataclasses.replace(common, distill_rounds=3, distill_hidden=12, ckpt_dir=a, resume=True),
        log=lines.append,
    )
    assert again[2].shape == (12,) and not any("widened" in t for t in lines)
    # a size it cannot widen to is refused before the round's targets are made
    monkeypatch.setattr(distill, "round_targets", lambda *a: pytest.fail("targets made"))
    for bad in (18, 6):
        with pytest.raises(ValueError, match=f"--distill-hidden {bad}: the contact net has 12"):
            training_td.train_backgammon_td(
                dataclasses.replace(
                    common, distill_rounds=4, distill_hidden=bad, ckpt_dir=a, resume=True
                )
            )


def test_a_killed_round_goes_on_after_the_targets_it_saved(tmp_path, monkeypatch):
    from boardgym.agents.backgammon import distill

    common = dataclasses.replace(
        TINY_GNUBG_RUN, eval_every=0, games=40, distill_games=3, distill_epochs=2
    )
    whole = _quiet(dataclasses.replace(common, distill_rounds=1, ckpt_dir=str(tmp_path / "a")))
    assert not (tmp_path / "a" / training_td.ROUND_FILE).exists()
    b = tmp_path / "b"
    _quiet(dataclasses.replace(common, ckpt_dir=str(b)))
    monkeypatch.setattr(distill, "TARGET_CHUNK", 20)
    monkeypatch.setattr(training_td, "PARTIAL_EVERY", 0.0)
    real, made = distill.targets1, []

    def targets1(net, rows, n, out):
        if len(made) == 3:
            raise KeyboardInterrupt  # killed while making the fourth chunk
        made.append(n)
        real(net, rows, n, out)

    monkeypatch.setattr(distill, "targets1", targets1)
    run = dataclasses.replace(common, distill_rounds=1, ckpt_dir=str(b), resume=True)
    with pytest.raises(KeyboardInterrupt):
        _quiet(run)
    with np.load(b / training_td.ROUND_FILE) as z:
        assert z["targets"].shape == (60, 5)
    made.clear()
    monkeypatch.setattr(distill, "targets1", lambda *a: (made.append(a[2]), real(*a)))
    lines = []
    resumed = training_td.train_backgammon_td(run, log=lines.append)
    assert any("goes on after the 60 targets made before" in t for t in lines)
    n = int(json.loads((b / "metrics.jsonl").read_text().splitlines()[-1])["positions"])
    assert sum(made) == n - 60 > 0  # only the positions after them
    for p, q in zip(whole, resumed):
        assert np.array_equal(p, q)
    assert not (b / training_td.ROUND_FILE).exists()  # the round is in the checkpoint
    # another round's file is not used; an unreadable one is named
    c = tmp_path / "c"
    _quiet(dataclasses.replace(common, ckpt_dir=str(c)))
    np.savez(c / training_td.ROUND_FILE, key=np.array("other"), targets=np.zeros((5, 5)))
    lines = []
    other = training_td.train_backgammon_td(
        dataclasses.replace(run, ckpt_dir=str(c)), log=lines.append
    )
    assert any("holds another round's targets" in t for t in lines)
    assert np.array_equal(other[1], whole[1])
    d = tmp_path / "d"
    _quiet(dataclasses.replace(common, ckpt_dir=str(d)))
    (d / training_td.ROUND_FILE).write_text("not an npz")
    with pytest.raises(ValueError, match="round_targets.npz is not a readable file"):
        _quiet(dataclasses.replace(run, ckpt_dir=str(d)))


def test_average_from_makes_the_model_the_mean_of_its_checkpoints(tmp_path, monkeypatch):
    common = dataclasses.replace(TINY_GNUBG_RUN, average_from=40)
    full, net, rng, st = _killed_run_and_fresh_model(common, tmp_path, monkeypatch)
    # by hand: the weights after 40, 60 and 80 games, averaged
    seen = []
    for n in (40, 20, 20):
        bg_td.train_model_games(net, rng, n, 0.1, 0.1, 0.0, st)
        seen.append([a.copy() for a in net[:9]])
    for k in range(1, 9):
        mean = (seen[0][k] + seen[1][k] + seen[2][k]) / 3
        assert np.allclose(full[k], mean, rtol=0, atol=1e-12)
    assert np.array_equal(full[0], net[0])
    # the evaluation at 80 games played the mean, and its file holds it
    saved = TDAgent(tmp_path / "a" / "games_80.npz").params
    for p, q in zip(saved, full):
        assert np.array_equal(p, q)
    # at 40 games the mean is the weights themselves
    at40 = TDAgent(tmp_path / "a" / "games_40.npz").params
    assert np.array_equal(at40[1], seen[0][1])
