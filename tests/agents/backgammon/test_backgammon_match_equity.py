"""The match equity table (agents/backgammon/match_equity.py) against the published Kazaross-XG2
table (tests/data/met_kazaross_xg2.tsv), its identities, the conversions and the cubeless MWC of
a model's outputs at a score, and the boundary."""

from pathlib import Path

import numpy as np
import pytest

from boardgym.agents.backgammon import match_equity as me
from boardgym.agents.backgammon.cube import CENTRED, OPP_OWNED, OWNED

DATA = Path(__file__).resolve().parents[2] / "data" / "met_kazaross_xg2.tsv"
MAX_DIFF = 0.010  # largest |ours - published| allowed, pre- and post-Crawford (1 point of MWC)
MEAN_DIFF = 0.003  # mean |ours - published| allowed over the 25 x 25 entries


def published():
    pre = np.zeros((25, 25))
    post = None
    for line in DATA.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        kind, i, *vals = line.split("\t")
        if kind == "pre":
            pre[int(i) - 1] = [float(v) for v in vals]
        else:
            post = np.array([float(v) for v in vals])
    return pre, post


def test_the_stored_table_is_gnubgs():
    gnubg = pytest.importorskip("gnubg")
    pre, post = published()
    m = gnubg.met(25)
    assert np.abs(np.array(m[0]) - pre).max() < 1e-4
    assert np.abs(np.array(m[1]) - post).max() < 1e-4


def test_table_matches_kazaross_xg2_entry_by_entry():
    pre, post = published()
    ours = me.met_table()[:25, :25]
    diff = np.abs(ours - pre)
    assert diff.max() <= MAX_DIFF, np.unravel_index(diff.argmax(), diff.shape)
    assert diff.mean() <= MEAN_DIFF
    pc = np.abs(me.post_crawford_table()[:25] - post)
    assert pc.max() <= MAX_DIFF
    for a in range(1, 26):
        for b in range(1, 26):
            assert me.met(a, b) == pytest.approx(pre[a - 1, b - 1], abs=MAX_DIFF)
        assert me.post_crawford(a) == pytest.approx(post[a - 1], abs=MAX_DIFF)


def test_table_identities():
    t = me.met_table()
    n = me.MAX_AWAY
    assert t.shape == (n, n)
    assert np.allclose(t + t.T, 1.0, atol=1e-12)
    assert np.all(np.diag(t) == 0.5)
    # needing more is worse: down each column, along each row better
    assert np.all(np.diff(t, axis=0) < 0) and np.all(np.diff(t, axis=1) > 0)
    post = me.post_crawford_table()
    assert post[0] == 0.5 and np.all(np.diff(post) < 0) and np.all(post > 0)
    # the trailer is better off post-Crawford (with the cube) than in the Crawford game
    assert np.all(post[1:] > 1.0 - t[0, 1:])
    assert me.met(1, 1) == 0.5 and me.met(1, 2) > 0.5
    assert 0.99 < me.met(1, 64) < 1.0


def test_crawford_row_is_the_cubeless_even_game():
    # Crawford game at 1-away / 2-away: the trailer's gammon wins the match, its single win
    # leads to 1-away / 1-away (1/2): met(1, 2) = 1/2 + 1/2 (1 - g) 1/2
    g = me.GAMMON_RATE
    assert me.met(1, 2) == pytest.approx(0.5 + 0.25 * (1 - g), abs=1e-12)
    pc = me.post_crawford
    b = 7
    lose = (1 - g) * (1 - pc(b - 1)) + g * (1 - pc(b - 2))
    assert me.met(1, b) == pytest.approx(0.5 + 0.5 * lose, abs=1e-12)


def test_post_crawford_free_drop():
    # 2-away trailer: the leader drops when behind (to 1-away / 1-away), so the trailer has less
    # than 1/2; 3-away: the leader always takes (a drop would leave the trailer 2-away)
    d = me.FIRST_DOUBLE_SPREAD
    assert me.post_crawford(2) == pytest.approx(0.5 * 0.5 + 0.5 * (0.5 - d), abs=1e-12)
    g = me.GAMMON_RATE
    assert me.post_crawford(3) == pytest.approx(0.5 * ((1 - g) * 0.5 + g), abs=1e-12)


def test_outcomes_cap_points_and_gammons():
    o = np.empty(6)
    me.outcome_mwcs(2, 5, 2, me.TABLE, me.POST, o)
    assert list(o[:3]) == [1.0, 1.0, 1.0]  # 2-away at cube 2: any win takes the match
    assert o[3] == pytest.approx(me.met(2, 3)) and o[4] == pytest.approx(me.met(2, 1))
    assert o[5] == 0.0
    # the Crawford game (1-away leader): its gammons are worth nothing, the trailer's single win
    # leads post-Crawford
    me.outcome_mwcs(1, 4, 1, me.TABLE, me.POST, o)
    assert list(o[:3]) == [1.0, 1.0, 1.0]
    assert o[3] == pytest.approx(1 - me.post_crawford(3))
    assert o[4] == pytest.approx(1 - me.post_crawford(2)) and o[5] == pytest.approx(0.5)
    # pre-Crawford: a game leaving a side 1-away leads to the Crawford game
    me.outcome_mwcs(2, 4, 1, me.TABLE, me.POST, o)
    assert o[0] == pytest.approx(me.met(1, 4)) and o[1] == 1.0


def test_dmp_cubeless_mwc_is_the_win_chance():
    y = np.array([0.37, 0.2, 0.05, 0.3, 0.1])
    assert me.cubeless_mwc(y, 1, 1) == pytest.approx(0.37, abs=1e-12)
    assert me.cubeless_mwc(y, 2, 2, 2) == pytest.approx(0.37, abs=1e-12)
    assert me.mwc_to_eq(0.37, 1, 1) == pytest.approx(2 * 0.37 - 1)


def test_cubeless_mwc_is_the_sum_over_outcomes():
    y = np.array([0.55, 0.2, 0.03, 0.15, 0.02])
    probs = [0.35, 0.17, 0.03, 0.30, 0.13, 0.02]  # single, gammon, backgammon; won then lost
    for a, b, c in ((5, 7, 1), (3, 2, 2), (1, 6, 1), (9, 4, 4), (4, 1, 2)):
        o = np.empty(6)
        me.outcome_mwcs(a, b, c, me.TABLE, me.POST, o)
        assert me.cubeless_mwc(y, a, b, c) == pytest.approx(float(np.dot(probs, o)), abs=1e-12)
        # eq_weights give the normalised equity of that MWC
        u = np.empty(6)
        me.eq_weights(a, b, c, me.TABLE, me.POST, u)
        assert me.utility(u, y) == pytest.approx(me.mwc_to_eq(me.cubeless_mwc(y, a, b, c), a, b, c))


def test_money_like_weights_at_a_long_match_start():
    # far from the end every point is worth about the same: normalised equity ~ money equity
    u = np.empty(6)
    me.eq_weights(60, 60, 1, me.TABLE, me.POST, u)
    assert u == pytest.approx([-1, 2, 1, 1, -1, -1], abs=0.05)


@pytest.mark.parametrize("a, b, c", [(1, 1, 1), (3, 5, 1), (5, 3, 2), (2, 9, 4), (1, 7, 1)])
def test_conversions(a, b, c):
    o = np.empty(6)
    me.outcome_mwcs(a, b, c, me.TABLE, me.POST, o)
    assert me.eq_to_mwc(1.0, a, b, c) == pytest.approx(o[0])
    assert me.eq_to_mwc(-1.0, a, b, c) == pytest.approx(o[3])
    for e in (-1.7, -0.3, 0.0, 0.45, 1.2):
        m = me.eq_to_mwc(e, a, b, c)
        assert me.mwc_to_eq(m, a, b, c) == pytest.approx(e, abs=1e-12)
        # antisymmetric: the opponent's equity of its MWC is -e
        assert me.mwc_to_eq(1 - m, b, a, c) == pytest.approx(-e, abs=1e-9)


def test_the_conversion_agrees_with_gnubgs_definition():
    gnubg = pytest.importorskip("gnubg")
    # gnubg's eq2mwc at 7-point match, score 2-4 (5-away vs 3-away), cube 1 centred, its own
    # table: the same formula up to the tables' differences
    ci = gnubg.cubeinfo(1, -1, 0, 7, (2, 4), False, 0)
    for e in (-0.8, 0.0, 0.6):
        assert me.eq_to_mwc(e, 5, 3, 1) == pytest.approx(gnubg.eq2mwc(e, ci), abs=0.01)


def test_live_cube_limits():
    y = np.array([0.6, 0.15, 0.01, 0.1, 0.01])
    for a, b, c, owner in ((5, 7, 1, CENTRED), (4, 4, 2, OWNED), (6, 3, 2, OPP_OWNED)):
        dead = me.cubeless_mwc(y, a, b, c)
        assert me.cubeful_mwc(y, 0.0, a, b, c, owner, 64, me.TABLE, me.POST) == pytest.approx(dead)
        # no cube beyond the current one: live is the dead cube
        assert me.cubeful_mwc(y, 1.0, a, b, c, owner, c, me.TABLE, me.POST) == pytest.approx(dead)


def test_live_cube_by_hand_at_two_away_two_away():
    # 2-away / 2-away, cube 1 centred, no gammons: after a double to 2 the cube is dead, so each
    # side's take point is its drop MWC met(2, 1) and the live MWC is linear between them
    tp = me.met(2, 1)
    y = np.array([0.6, 0.0, 0.0, 0.0, 0.0])
    live = me.cubeful_mwc(y, 1.0, 2, 2, 1, CENTRED, 64, me.TABLE, me.POST)
    assert live == pytest.approx(tp + (0.6 - tp) * (1 - 2 * tp) / (1 - 2 * tp))  # = 0.6
    y = np.array([0.8, 0.0, 0.0, 0.0, 0.0])
    assert me.cubeful_mwc(y, 1.0, 2, 2, 1, CENTRED, 64, me.TABLE, me.POST) == pytest.approx(1 - tp)
    y = np.array([0.1, 0.0, 0.0, 0.0, 0.0])
    assert me.cubeful_mwc(y, 1.0, 2, 2, 1, CENTRED, 64, me.TABLE, me.POST) == pytest.approx(tp)
    # owned by me: linear from (0, lose 1 point) to my cash point (1 - tp, win 1 point)
    y = np.array([0.3, 0.0, 0.0, 0.0, 0.0])
    own = me.cubeful_mwc(y, 1.0, 2, 2, 1, OWNED, 64, me.TABLE, me.POST)
    assert own == pytest.approx(tp + 0.3 * (1 - 2 * tp) / (1 - tp))


@pytest.mark.parametrize(
    "call, err",
    [
        (lambda: me.met(0, 3), ValueError),
        (lambda: me.met(3, 65), ValueError),
        (lambda: me.met(2.0, 3), TypeError),
        (lambda: me.met(True, 3), TypeError),
        (lambda: me.post_crawford(0), ValueError),
        (lambda: me.eq_to_mwc(0.1, 3, 3, 3), ValueError),
        (lambda: me.eq_to_mwc(0.1, 3, 3, 128), ValueError),
        (lambda: me.eq_to_mwc(float("nan"), 3, 3), ValueError),
        (lambda: me.eq_to_mwc("0", 3, 3), TypeError),
        (lambda: me.mwc_to_eq(0.5, 3, -1), ValueError),
        (lambda: me.cubeless_mwc([0.5, 0.6, 0, 0, 0], 3, 3), ValueError),
        (lambda: me.cubeless_mwc([0.5, 0.1, 0, 0], 3, 3), ValueError),
        (lambda: me.check_owner(3), ValueError),
    ],
)
def test_boundary(call, err):
    with pytest.raises(err):
        call()
