"""Self-distillation of the backgammon model (agents/backgammon/distill.py): the positions are
the model's own 0-ply self-play, the targets its 1-ply search values, the fit moves only the net
that values a position and lowers the error; rounds are reproducible."""

import numpy as np
import pytest

from boardgym.agents.backgammon import distill as D
from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon import search as bs
from boardgym.agents.backgammon.agents import TDAgent
from boardgym.agents.backgammon.features import in_bearoff, is_contact
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import OFF_ME, OFF_OPP, STATE_LEN

NET = TDAgent().params


def _model():
    return tuple(a.copy() for a in td_net.init_model(8, 5, race_hidden=4))


def _sample(net, seed, games, alt, cap=5000):
    rows = np.empty((cap, STATE_LEN), np.int64)
    n = D.sample_positions(net, np.array([seed], np.int64), games, alt, rows)
    return rows[:n].copy()


def test_positions_are_the_models_own_zero_ply_choices():
    rows = _sample(NET, 3, 2, 0.0)
    # replay the same dice with the model's 0-ply choice: the kept rows are its afterstates
    rng = np.array([3], np.int64)
    buf = np.empty((game.MAX_AFTERSTATES, STATE_LEN), np.int64)
    ys = np.empty((game.MAX_AFTERSTATES, 5))
    seen = []
    for _ in range(2):
        state, status, rolls, _ = game.start(rng, 0, game.no_passes())
        while status == game.ROLLED:
            n = game.afterstates(state, buf)
            td_net.evaluate_rows(NET, buf, n, ys)
            best = int(np.argmax([td_net.equity(y) for y in ys[:n]]))
            after = buf[best].copy()
            if after[OFF_ME] < 15 and not in_bearoff(after):
                seen.append(after)
            state, status, rolls, _ = game.finish_turn(after, rng, rolls, 0, game.no_passes())
    assert len(rows) == len(seen) > 40
    assert np.array_equal(rows, np.array(seen))


def test_alternatives_add_other_plays_and_the_buffer_bounds_the_count():
    plain = _sample(NET, 4, 3, 0.0)
    more = _sample(NET, 4, 3, 1.0)
    assert len(more) > 1.5 * len(plain)
    assert all(r[OFF_ME] < 15 and not in_bearoff(r) for r in more)
    assert len(_sample(NET, 4, 50, 1.0, cap=37)) == 37
    # deterministic in the seed
    assert np.array_equal(more, _sample(NET, 4, 3, 1.0))


def _targets_and_search(targets, cfg, seed, count, *keep):
    """targets(NET, ...) of count positions of NET's self-play (keep: targets2's), and their
    equities and values by search_values under cfg (each row a play of one decision)."""
    rows = np.ascontiguousarray(_sample(NET, seed, 1, 0.5)[:count])
    t = np.empty((len(rows), 5))
    targets(NET, rows, len(rows), *keep, t)
    v = np.empty(len(rows))
    info = np.zeros(bs.INFO_LEN, np.int64)
    bs.search_values(NET, rows, len(rows), cfg, info, v)
    return rows, t, np.array([td_net.equity(y) for y in t]), v


def test_targets_are_the_one_ply_search_values():
    # its equity is the search's 1-ply value (every play searched: no filter)
    cfg = bs.search_settings(1, 10**6, np.inf, budget=0)
    rows, t, eq, v = _targets_and_search(D.targets1, cfg, 5, 30)
    assert np.allclose(eq, v, atol=1e-12)
    # cumulative probabilities, constraints of a real outcome
    assert (t[:, 1] <= t[:, 0] + 1e-12).all() and (t[:, 2] <= t[:, 1] + 1e-12).all()
    assert (t[:, 3] <= 1 - t[:, 0] + 1e-12).all() and (t[:, 4] <= t[:, 3] + 1e-12).all()
    assert (t[rows[:, OFF_ME] > 0, 3:] == 0).all()


def test_two_ply_targets_are_the_default_searchs_two_ply_values():
    # every play searched to 2-ply with the default replies and no budget
    cfg = bs.search_settings(2, 10**6, np.inf, 10**6, np.inf, budget=0)
    assert cfg.replies == bs.REPLY_CANDIDATES
    rows, t, eq, v = _targets_and_search(D.targets2, cfg, 7, 12, 0)
    assert np.allclose(eq, v, atol=1e-12)
    one = np.empty_like(t)
    D.targets1(NET, rows, len(rows), one)
    assert not np.allclose(one, t, atol=1e-3)  # a deeper look, not the 1-ply values again
    assert (t[:, 1] <= t[:, 0] + 1e-12).all() and (t[:, 4] <= t[:, 3] + 1e-12).all()
    assert (t >= -1e-12).all() and (t <= 1 + 1e-12).all()


@pytest.mark.parametrize("keep", [1, 4])
def test_pruned_two_ply_targets_are_the_pruned_searchs_two_ply_values(keep):
    # the shipped model carries a pruning net: keep > 0 is the search with prune=keep
    cfg = bs.search_settings(2, 10**6, np.inf, 10**6, np.inf, budget=0, prune=keep)
    rows, t, eq, v = _targets_and_search(D.targets2, cfg, 7, 12, keep)
    assert np.allclose(eq, v, atol=1e-12)
    full = np.empty_like(t)
    D.targets2(NET, rows, len(rows), 0, full)
    assert not np.allclose(full, t, atol=1e-6)  # pruning left some best reply out
    assert (t >= -1e-12).all() and (t <= 1 + 1e-12).all()


def test_a_model_without_a_pruning_net_ignores_keep():
    rows = np.ascontiguousarray(_sample(NET, 9, 1, 0.0)[:6])
    plain = td_net.without_prune(NET)
    a, b = np.empty((len(rows), 5)), np.empty((len(rows), 5))
    D.targets2(plain, rows, len(rows), 0, a)
    D.targets2(plain, rows, len(rows), 3, b)
    assert np.array_equal(a, b)


def test_a_pruned_round_values_its_targets_by_the_teacher_with_the_pruning_net(monkeypatch):
    pn = td_net.main_net(td_net.as_model(td_net.init_params(3, 5)))
    seen = {}
    real = D.targets2

    def spy(net, rows, n, keep, out):
        seen["keep"], seen["hp"] = keep, net[td_net.I_PRUNE + 1].shape[0]
        real(net, rows, n, keep, out)
        seen["t"] = out.copy()
        full = np.empty_like(out)
        real(td_net.with_prune(net, pn), rows, n, 0, full)
        seen["full"] = full

    monkeypatch.setattr(D, "targets2", spy)
    a = _model()
    n, errors = D.distill_round(
        a, np.array([8], np.int64), 1, 0.0, 3, 0.01, 0.01, 200, 1, "adam", 2, 2, pn
    )
    assert n > 0 and errors[-1] < errors[0]
    assert seen["keep"] == 2 and seen["hp"] == 3
    assert not np.allclose(seen["t"], seen["full"])  # pruned: not the full 2-ply targets
    assert a[td_net.I_PRUNE].size == 0  # the pruning net serves the teacher only
    for bad, match in (
        (dict(plies=1, prune=2, prune_net=pn), "needs plies 2 and a pruning net"),
        (dict(plies=2, prune=2), "needs plies 2 and a pruning net"),
        (dict(plies=2, prune=-1), "prune must be an integer >= 0"),
    ):
        with pytest.raises(ValueError, match=match):
            D.distill_round(_model(), np.array([8], np.int64), 1, 0.0, 1, 0.01, 0.01, 200, 1, **bad)


def test_the_targets_in_chunks_report_progress_and_change_nothing(monkeypatch):
    whole = _model()
    D.distill_round(whole, np.array([8], np.int64), 2, 0.5, 2, 0.01, 0.01, 400, 1, "adam", 1)
    monkeypatch.setattr(D, "TARGET_CHUNK", 7)
    monkeypatch.setattr(D, "LOG_EVERY", 0.0)
    lines = []
    chunked = _model()
    n, _ = D.distill_round(
        chunked, np.array([8], np.int64), 2, 0.5, 2, 0.01, 0.01, 400, 1, "adam", 1, log=lines.append
    )
    for a, b in zip(whole, chunked):
        assert np.array_equal(a, b)
    assert len(lines) == (n - 1) // 7 and lines[0].startswith(f"1-ply targets: 7 of {n:,} ")


def test_a_two_ply_round_fits_its_targets_and_other_depths_are_refused():
    a = _model()
    n, errors = D.distill_round(
        a, np.array([8], np.int64), 1, 0.0, 3, 0.01, 0.01, 200, 1, "adam", 2
    )
    assert n > 0 and errors[-1] < errors[0]
    with pytest.raises(ValueError, match="plies must be one of"):
        D.distill_round(_model(), np.array([8], np.int64), 1, 0.0, 1, 0.01, 0.01, 200, 1, "adam", 3)


def test_fit_lowers_the_error_and_moves_only_the_net_that_values_the_rows():
    net = _model()
    rows = _sample(net, 6, 6, 0.5)
    contact = np.array([is_contact(r) for r in rows])
    assert contact.any() and (~contact).any()
    t = np.empty((len(rows), 5))
    D.targets1(NET, rows, len(rows), t)  # a stronger model's values: far from the fresh net's
    order = np.arange(len(rows), dtype=np.int64)
    errors = [D.fit_positions(net, rows, t, len(rows), order, 0.05, 0.05) for _ in range(6)]
    assert errors[-1] < 0.5 * errors[0]
    _only_the_valuing_net_moves(
        rows,
        t,
        lambda net, sub, ts, order: D.fit_positions(net, sub, ts, len(sub), order, 0.05, 0.05),
    )


def _only_the_valuing_net_moves(rows, t, fit):
    """fit(net, rows, targets, order) on the contact rows alone moves only the contact net, on
    the race rows alone only the race net."""
    contact = np.array([is_contact(r) for r in rows])
    assert contact.any() and (~contact).any()
    for part, keep, moved in ((contact, slice(5, 9), 1), (~contact, slice(1, 5), 5)):
        fresh = _model()
        sub = np.ascontiguousarray(rows[part])
        fit(fresh, sub, np.ascontiguousarray(t[part]), np.arange(len(sub), dtype=np.int64))
        untouched = _model()
        for a, b in zip(fresh[keep], untouched[keep]):
            assert np.array_equal(a, b)
        assert not np.array_equal(fresh[moved], untouched[moved])


def test_rounds_are_reproducible_and_change_the_model():
    a, b = _model(), _model()
    na, ea = D.distill_round(a, np.array([8], np.int64), 2, 0.5, 2, 0.05, 0.05, 2000, 1)
    nb, eb = D.distill_round(b, np.array([8], np.int64), 2, 0.5, 2, 0.05, 0.05, 2000, 1)
    assert na == nb > 0 and ea == eb and len(ea) == 2
    for p, q in zip(a, b):
        assert np.array_equal(p, q)
    assert not np.array_equal(a[1], _model()[1])


def _loss(net, rows, t):
    """The Adam fit's loss: mean over the rows the nets value of the squared error of the five
    outputs plus that of the equity, halved."""
    b = td_net.model_buffers(net)
    y = np.empty(5)
    total, k = 0.0, 0
    for r in range(len(rows)):
        ev, _ = td_net.model_eval(net, rows[r], *b, y)
        if ev == td_net.EV_EXACT:
            continue
        d = td_net.equity(t[r]) - td_net.equity(y)
        total += 0.5 * (((t[r] - y) ** 2).sum() + d * d)
        k += 1
    return total / k


def test_adam_steps_against_the_gradient_of_outputs_and_equity():
    # one minibatch of contact rows where no output constraint binds: Adam's first step moves
    # every parameter by the rate against the sign of its gradient (m / sqrt(v) = g / |g|)
    net = _model()
    net[4][:] = [0.0, -1.0, -2.0, -1.0, -2.0]  # output biases in the cumulative order
    b = td_net.model_buffers(net)
    y = np.empty(5)

    def free(r):  # contact, and the outputs as the net gives them (no constraint clipped one)
        td_net.model_eval(net, r, *b, y)
        return (
            is_contact(r)
            and r[OFF_ME] == 0
            and r[OFF_OPP] == 0
            and y[1] < y[0]
            and y[2] < y[1]
            and y[3] < 1 - y[0]
            and y[4] < y[3]
        )

    rows = np.ascontiguousarray([r for r in _sample(net, 9, 4, 0.0) if free(r)][:40])
    assert len(rows) >= 10
    t = np.empty((len(rows), 5))
    D.targets1(NET, rows, len(rows), t)
    lr = 1e-3
    after = tuple(a.copy() for a in net)
    D.fit_positions_adam(
        after,
        rows,
        t,
        len(rows),
        np.arange(len(rows), dtype=np.int64),
        len(rows),
        lr,
        D.adam_moments(after),
        np.zeros(2, np.int64),
    )
    checked = 0
    for i in (1, 2, 3, 4):
        for j in np.random.default_rng(i).choice(net[i].size, min(6, net[i].size), replace=False):
            plus, minus = [tuple(a.copy() for a in net) for _ in range(2)]
            plus[i].reshape(-1)[j] += 1e-5
            minus[i].reshape(-1)[j] -= 1e-5
            grad = (_loss(plus, rows, t) - _loss(minus, rows, t)) / 2e-5
            step = after[i].reshape(-1)[j] - net[i].reshape(-1)[j]
            if abs(grad) > 1e-3:
                assert abs(step + lr * np.sign(grad)) < 1e-3 * lr, (i, j, grad, step)
                checked += 1
    assert checked >= 12
    for a, b in zip(after[5:9], net[5:9]):  # no race row: the race net is untouched
        assert np.array_equal(a, b)


def test_adam_fit_lowers_the_error_below_sgds_and_moves_only_the_net_that_values_the_rows():
    rows = _sample(_model(), 6, 6, 0.5)
    t = np.empty((len(rows), 5))
    D.targets1(NET, rows, len(rows), t)
    order = np.arange(len(rows), dtype=np.int64)
    adam, sgd = _model(), _model()
    moments, step = D.adam_moments(adam), np.zeros(2, np.int64)
    errors = [
        D.fit_positions_adam(adam, rows, t, len(rows), order, 32, 0.01, moments, step)
        for _ in range(6)
    ]
    for _ in range(6):
        D.fit_positions(sgd, rows, t, len(rows), order, 0.05, 0.05)
    assert errors[-1] < 0.5 * errors[0]
    assert _loss(adam, rows, t) < _loss(sgd, rows, t)
    batches = -(-len(rows) // 32)
    assert step[0] == 6 * batches and 0 < step[1] <= 6 * batches  # race rows in some batches
    _only_the_valuing_net_moves(
        rows,
        t,
        lambda net, sub, ts, order: D.fit_positions_adam(
            net, sub, ts, len(sub), order, 32, 0.01, D.adam_moments(net), np.zeros(2, np.int64)
        ),
    )


def test_adam_rounds_are_reproducible_and_an_unknown_fit_is_refused():
    a, b = _model(), _model()
    na, ea = D.distill_round(a, np.array([8], np.int64), 2, 0.5, 3, 0.01, 0.01, 2000, 1, "adam")
    nb, eb = D.distill_round(b, np.array([8], np.int64), 2, 0.5, 3, 0.01, 0.01, 2000, 1, "adam")
    assert na == nb > 0 and ea == eb and len(ea) == 3 and ea[-1] < ea[0]
    for p, q in zip(a, b):
        assert np.array_equal(p, q)
    sgd = _model()
    D.distill_round(sgd, np.array([8], np.int64), 2, 0.5, 3, 0.01, 0.01, 2000, 1)
    assert not np.array_equal(a[1], sgd[1])
    assert D.adam_rate(0.01, 0, 4) == 0.01 and abs(D.adam_rate(0.01, 2, 4) - 0.005) < 1e-15
    with pytest.raises(ValueError, match="fit must be one of"):
        D.distill_round(_model(), np.array([8], np.int64), 2, 0.5, 1, 0.01, 0.01, 2000, 1, "lbfgs")


def test_round_targets_go_on_after_targets_made_before():
    rows, whole, n = D.round_targets(_model(), np.array([8], np.int64), 2, 0.5, 400)
    seen = []
    rows2, rest, n2 = D.round_targets(
        _model(),
        np.array([8], np.int64),
        2,
        0.5,
        400,
        made=whole[:9],
        keep=lambda k, t: seen.append(k),
    )
    assert n2 == n and np.array_equal(rows2[:n], rows[:n]) and np.array_equal(rest, whole)
    assert seen == [n]  # one chunk after the nine made before
    for bad in (np.zeros((n + 1, 5)), np.zeros((3, 4))):
        with pytest.raises(ValueError, match="made must be float64"):
            D.round_targets(_model(), np.array([8], np.int64), 2, 0.5, 400, made=bad)


def test_a_float32_teacher_makes_the_same_positions_and_targets_within_1e_5():
    rows, exact, n = D.round_targets(NET, np.array([8], np.int64), 2, 0.5, 400, plies=2)
    rows32, fast, n32 = D.round_targets(
        NET, np.array([8], np.int64), 2, 0.5, 400, plies=2, precision="float32"
    )
    assert n32 == n and np.array_equal(rows32[:n], rows[:n])
    assert 0 < np.abs(fast - exact).max() < 1e-5
    with pytest.raises(ValueError, match="precision must be one of"):
        D.round_targets(NET, np.array([8], np.int64), 1, 0.5, 400, precision="float16")
