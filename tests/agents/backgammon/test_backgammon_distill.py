"""Self-distillation of the backgammon model (agents/backgammon/distill.py): the positions are
the model's own 0-ply self-play, the targets its 1-ply search values, the fit moves only the net
that values a position and lowers the error; rounds are reproducible."""

import numpy as np

from boardgym.agents.backgammon import distill as D
from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon import search as bs
from boardgym.agents.backgammon.agents import TDAgent
from boardgym.agents.backgammon.features import in_bearoff, is_contact
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import OFF_ME, STATE_LEN

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


def test_targets_are_the_one_ply_search_values():
    rows = np.ascontiguousarray(_sample(NET, 5, 1, 0.5)[:30])
    t = np.empty((len(rows), 5))
    D.targets1(NET, rows, len(rows), t)
    # its equity is the search's 1-ply value (every play searched: no filter)
    v = np.empty(len(rows))
    bs.search_values(NET, rows, len(rows), 1, 10**6, np.inf, 0, np.zeros(bs.INFO_LEN, np.int64), v)
    eq = np.array([td_net.equity(y) for y in t])
    assert np.allclose(eq, v, atol=1e-12)
    # cumulative probabilities, constraints of a real outcome
    assert (t[:, 1] <= t[:, 0] + 1e-12).all() and (t[:, 2] <= t[:, 1] + 1e-12).all()
    assert (t[:, 3] <= 1 - t[:, 0] + 1e-12).all() and (t[:, 4] <= t[:, 3] + 1e-12).all()
    assert (t[rows[:, OFF_ME] > 0, 3:] == 0).all()


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
    for part, keep in ((contact, slice(5, 9)), (~contact, slice(1, 5))):
        fresh = _model()
        sub = np.ascontiguousarray(rows[part])
        D.fit_positions(
            fresh,
            sub,
            np.ascontiguousarray(t[part]),
            len(sub),
            np.arange(len(sub), dtype=np.int64),
            0.05,
            0.05,
        )
        untouched = _model()
        for a, b in zip(fresh[keep], untouched[keep]):
            assert np.array_equal(a, b)
        moved = slice(1, 5) if keep.start == 5 else slice(5, 9)
        assert not np.array_equal(fresh[moved][0], untouched[moved][0])


def test_rounds_are_reproducible_and_change_the_model():
    a, b = _model(), _model()
    na, ea = D.distill_round(a, np.array([8], np.int64), 2, 0.5, 2, 0.05, 0.05, 2000, 1)
    nb, eb = D.distill_round(b, np.array([8], np.int64), 2, 0.5, 2, 0.05, 0.05, 2000, 1)
    assert na == nb > 0 and ea == eb and len(ea) == 2
    for p, q in zip(a, b):
        assert np.array_equal(p, q)
    assert not np.array_equal(a[1], _model()[1])
