"""agents/arena/stats.py: Wilson scores, points-per-game intervals, Elo of a pair and of a
round-robin, checked against values worked out by hand and against independent formulas."""

import math

import numpy as np
import pytest

from boardgym.agents.arena import stats as S


def test_wilson_interval_known_values():
    lo, hi = S.wilson(50, 100)
    # p = 0.5, n = 100: centre 0.5, half-width 1.96 * sqrt(0.0025 + 0.000096) / 1.0384 = 0.0962
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    lo, hi = S.wilson(0, 10)  # no successes: [0, z^2 / (n + z^2)]
    assert lo == 0.0 and hi == pytest.approx(1.959964**2 / (10 + 1.959964**2), abs=1e-6)
    assert S.wilson(10, 10)[1] == 1.0 and S.wilson(10, 10)[0] == pytest.approx(
        10 / (10 + 1.959964**2), abs=1e-6
    )
    lo, hi = S.wilson(81, 100)
    # centre (0.81 + 0.0192) / 1.0384 = 0.7985, half-width 0.0763
    assert lo == pytest.approx(0.7222, abs=1e-4) and hi == pytest.approx(0.8749, abs=1e-4)


def test_elo_from_score_known_values():
    assert S.elo_from_score(0.5) == 0.0
    assert S.elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert S.elo_from_score(1 / (1 + 10 ** (-200 / 400))) == pytest.approx(200.0)
    assert S.elo_from_score(0.25) == pytest.approx(-190.85, abs=0.01)
    assert S.elo_from_score(1.0) == math.inf and S.elo_from_score(0.0) == -math.inf


def test_elo_ratings_recover_a_two_player_score_and_a_transitive_table():
    points = np.array([[0, 76], [24, 0]], float)
    games = np.array([[0, 100], [100, 0]], float)
    elo = S.elo_ratings(points, games, prior=0.0)
    assert elo[0] - elo[1] == pytest.approx(S.elo_from_score(0.76), abs=0.01)
    assert elo.sum() == pytest.approx(0.0, abs=1e-9)
    # three players with exact expected scores of ratings +200, 0, -200
    r = np.array([200.0, 0.0, -200.0])
    e = 1 / (1 + 10 ** ((r[None, :] - r[:, None]) / 400))
    n = np.full((3, 3), 1000.0) - np.eye(3) * 1000
    elo = S.elo_ratings(e * n, n, prior=0.0)
    np.testing.assert_allclose(elo, r, atol=0.01)
    # a perfect score stays finite with the default prior
    elo = S.elo_ratings(np.array([[0, 10], [0, 0]], float), np.array([[0, 10], [10, 0]], float))
    assert np.isfinite(elo).all()
    assert elo[0] - elo[1] == pytest.approx(
        S.elo_from_score(10.5 / 11), abs=0.01
    )  # one virtual draw


# ---- Elo intervals ---------------------------------------------------------------------------
def expected_table(ratings, n_games):
    """Points and games of a round-robin whose scores equal the Elo expectations of ratings."""
    r = np.asarray(ratings, float)
    e = 1 / (1 + 10 ** ((r[None, :] - r[:, None]) / 400))
    n = np.full((len(r), len(r)), float(n_games))
    np.fill_diagonal(n, 0.0)
    return e * n, n


def test_elo_interval_of_two_players_matches_the_delta_method():
    points = np.array([[0, 76], [24, 0]], float)
    games = np.array([[0, 100], [100, 0]], float)
    for prior in (0.0, 1.0, 4.0):
        elo, cov = S.elo_covariance(points, games, prior=prior)
        n = 100 + prior
        p = (76 + prior / 2) / n  # the virtual draws count as games and half points
        se_diff = 400 / math.log(10) / math.sqrt(n * p * (1 - p))
        assert elo[0] - elo[1] == pytest.approx(S.elo_from_score(p), abs=1e-6)
        se = math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
        assert se == pytest.approx(se_diff, rel=1e-6)
        elo2, low, high = S.elo_intervals(points, games, prior=prior)
        np.testing.assert_allclose(elo2, elo)
        # mean-0 ratings: each player carries half the difference's standard error
        np.testing.assert_allclose((high - low) / 2, S.Z95 * se_diff / 2, rtol=1e-6)
    assert se_diff == pytest.approx(39.34, abs=0.01)  # 173.72 / sqrt(104 * 0.75 * 0.25) by hand


def test_elo_covariance_is_the_inverse_hessian_of_the_likelihood():
    """Finite-difference Hessian of the negative log-likelihood; the mean-0 constraint two ways."""
    points, games = expected_table([250, 80, 0, -300], 30)
    points = points + np.array([[0, -3, 2, 0], [3, 0, 0, -1], [-2, 0, 0, 1], [0, 1, -1, 0]])
    prior = 1.0
    elo, cov = S.elo_covariance(points, games, prior=prior)
    s = points + prior / 2 * (games > 0)

    def nll(r):
        p = 1 / (1 + 10 ** ((r[None, :] - r[:, None]) / 400))
        np.fill_diagonal(p, 0.5)
        return -(s * np.log(p)).sum()  # each game counted once, from the winner's row

    k, h = len(elo), 0.5
    hess = np.empty((k, k))
    for i in range(k):
        for j in range(k):
            ei, ej = np.eye(k)[i] * h, np.eye(k)[j] * h
            hess[i, j] = (
                nll(elo + ei + ej) - nll(elo + ei - ej) - nll(elo - ei + ej) + nll(elo - ei - ej)
            ) / (4 * h * h)
    np.testing.assert_allclose(
        np.linalg.pinv(hess, rtol=1e-6, hermitian=True), cov, rtol=1e-4, atol=1e-6 * cov.max()
    )
    # fixing player 0 and centring gives the same covariance as the pseudo-inverse
    v = np.zeros((k, k))
    v[1:, 1:] = np.linalg.inv(hess[1:, 1:])
    c = np.eye(k) - 1.0 / k
    np.testing.assert_allclose(c @ v @ c, cov, rtol=1e-4, atol=1e-6 * cov.max())
    assert abs(cov.sum()) < 1e-6 * cov.max()  # the ratings' mean has no variance


def test_elo_intervals_widen_with_fewer_games_and_rank_known_strengths():
    truth = np.array([300.0, 100.0, 0.0, -400.0])
    truth -= truth.mean()
    widths = []
    for n_games in (2000, 200, 20):
        elo, low, high = S.elo_intervals(*expected_table(truth, n_games))
        assert list(np.argsort(-elo)) == [0, 1, 2, 3]
        assert ((low < elo) & (elo < high)).all()
        widths.append(high - low)
        if n_games >= 200:
            assert ((low <= truth) & (truth <= high)).all()
    assert (widths[0] < widths[1]).all() and (widths[1] < widths[2]).all()
    assert widths[1] / widths[0] == pytest.approx(math.sqrt(10), rel=0.05)  # 1/sqrt(n) scaling


# ---- points per game ---------------------------------------------------------------------------
def test_mean_interval_of_win_loss_results_is_wilson():
    for k, n in ((7, 10), (0, 5), (50, 100), (1, 1), (3, 4), (4, 4)):
        lo, hi = S.mean_interval([1.0] * k + [-1.0] * (n - k), -1, 1)
        a, b = S.wilson(k, n)
        assert lo == pytest.approx(2 * a - 1, abs=1e-12) and hi == pytest.approx(
            2 * b - 1, abs=1e-12
        )


def test_score_and_points_intervals_of_one_match_agree():
    """4 wins of 4 printed points/game [-0.092, +1.000] beside score [0.510, 1.000]: the two
    intervals of one match come from one method now, the score's the points' rescaled."""
    for points in ([1] * 4, [1, 1, 0, -1, 0, 1, 1], [0, 0], [1] * 30 + [0] * 50 + [-1] * 20):
        s = S.summarize_points(points)
        lo, hi = s["ppg_interval"]
        assert s["score_interval"] == pytest.approx(((lo + 1) / 2, (hi + 1) / 2), abs=1e-12)
    lo, hi = S.summarize_points([1] * 4)["ppg_interval"]
    assert lo == pytest.approx(2 * 0.5101 - 1, abs=1e-4) and hi == 1.0


def test_an_interval_reaches_an_end_only_when_every_game_scored_it():
    """One loss rules out "always wins" (and one win "always loses")."""
    for xs, low, high in (
        ([1] * 9 + [-1], -1, 1),
        ([1] * 200 + [0], -1, 1),
        ([3] * 50 + [2], -3, 3),
        ([-3] * 50 + [-1], -3, 3),
    ):
        lo, hi = S.mean_interval(xs, low, high)
        assert low < lo and hi < high
    assert S.mean_interval([1] * 5, -1, 1)[1] == 1.0 and S.mean_interval([-3] * 5, -3, 3)[0] == -3


def test_mean_interval_stays_in_range_and_never_collapses():
    # the flaws of the plain normal interval: past the maximum, and +-0 after identical games
    lo, hi = S.mean_interval([1, 1], -1, 1)
    assert hi == 1.0 and lo == pytest.approx(2 * S.wilson(2, 2)[0] - 1, abs=1e-12)
    lo, hi = S.mean_interval([0, 0], -1, 1)  # two draws: symmetric, wide
    assert lo == pytest.approx(-hi) and hi == pytest.approx(0.7471, abs=1e-4)
    lo, hi = S.mean_interval([1, 1, 1, 0], -1, 1)
    assert -1 <= lo < 0.75 < hi <= 1
    lo, hi = S.mean_interval([3, 3], -3, 3)  # backgammons only
    assert hi == 3.0 and lo < 1.0
    rng = np.random.default_rng(0)
    for _ in range(200):  # always inside the range, around the sample mean, of positive width
        n = int(rng.integers(1, 30))
        xs = rng.choice([-3, -2, -1, 1, 2, 3], size=n, p=rng.dirichlet(np.ones(6)))
        lo, hi = S.mean_interval(xs, -3, 3)
        assert -3 <= lo <= xs.mean() <= hi <= 3 and hi - lo > 0.1
    assert S.mean_interval([], -1, 1) == (-1.0, 1.0)


def test_mean_interval_tends_to_the_normal_interval():
    rng = np.random.default_rng(1)
    xs = rng.choice([-3, -2, -1, 1, 2, 3], size=20_000, p=[0.02, 0.1, 0.33, 0.38, 0.14, 0.03])
    lo, hi = S.mean_interval(xs, -3, 3)
    half = S.Z95 * xs.std(ddof=1) / math.sqrt(xs.size)
    assert lo == pytest.approx(xs.mean() - half, abs=0.002 * half + 1e-3)
    assert (hi - lo) / 2 == pytest.approx(half, rel=0.01)


def test_match_elo_is_the_elo_of_the_score_and_of_the_wilson_ends():
    elo, lo, hi = S.match_elo(76, 100)
    assert elo == pytest.approx(200.24, abs=0.01)
    w = S.wilson(76, 100)
    assert lo == pytest.approx(S.elo_from_score(w[0])) and hi == pytest.approx(
        S.elo_from_score(w[1])
    )
    assert lo == pytest.approx(121.20, abs=0.01) and hi == pytest.approx(279.28, abs=0.01)
    elo, lo, hi = S.match_elo(10, 10)
    assert elo == math.inf and hi == math.inf and math.isfinite(lo) and lo > 0
    assert S.match_elo(0, 0) == (0.0, -math.inf, math.inf)


def test_summarize_points():
    s = S.summarize_points([1] * 50 + [0] * 20 + [-1] * 30)
    assert (s["wins"], s["draws"], s["losses"], s["games"]) == (50, 20, 30, 100)
    assert s["score"] == pytest.approx(0.6) and s["points_per_game"] == pytest.approx(0.2)
    scores = [1] * 50 + [0.5] * 20 + [0] * 30
    assert s["score_interval"] == S.mean_interval(scores, 0, 1)
    assert S.summarize_points([1] * 60 + [-1] * 40)["score_interval"] == pytest.approx(
        S.wilson(60, 100), abs=1e-12
    )
    assert s["ppg_interval"] == S.mean_interval([1] * 50 + [0] * 20 + [-1] * 30, -1, 1)
    assert s["elo"] == pytest.approx(S.elo_from_score(0.6))
    s = S.summarize_points([2, -1, 3, 0, 2, -2], -3, 3)
    assert s["results"] == {-2.0: 1, -1.0: 1, 0.0: 1, 2.0: 2, 3.0: 1}
    assert -3 <= s["ppg_interval"][0] < 4 / 6 < s["ppg_interval"][1] <= 3


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: S.wilson(11, 10), ValueError, "exceeds"),
        (lambda: S.wilson(-1, 10), ValueError, ">= 0"),
        (lambda: S.wilson(float("nan"), 10), ValueError, "finite"),
        (lambda: S.wilson("5", 10), TypeError, "number"),
        (lambda: S.wilson(5, 10, z=0), ValueError, "z must"),
        (lambda: S.mean_interval([2], -1, 1), ValueError, r"lie in \[-1, 1\]"),
        (lambda: S.mean_interval([0.5, float("nan")], -1, 1), ValueError, "NaN"),
        (lambda: S.mean_interval([[1]], -1, 1), ValueError, "one-dimensional"),
        (lambda: S.mean_interval([1], 1, -1), ValueError, "low < high"),
        (lambda: S.mean_interval(["a"], -1, 1), TypeError, "numbers"),
        (lambda: S.elo_from_score(1.5), ValueError, r"\[0, 1\]"),
        (lambda: S.elo_ratings(np.zeros((2, 3)), np.zeros((2, 3))), ValueError, "square"),
        (lambda: S.elo_ratings([[0, 5], [0, 0]], [[0, 4], [4, 0]]), ValueError, "exceed"),
        (lambda: S.summarize_points([3], -1, 1), ValueError, "lie in"),
    ],
)
def test_bad_input_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_rate_interval_is_a_sum_per_count_with_the_normal_interval_of_a_sum():
    x = np.array([0.0, 0.0, 3.0, 1.0, 0.0, 2.0])
    rate, lo, hi = S.rate_interval(x, 4)
    assert rate == pytest.approx(6 / 4)
    half = S.Z95 * math.sqrt(6) * x.std(ddof=1) / 4
    assert (lo, hi) == pytest.approx((rate - half, rate + half))
    assert S.rate_interval([2.0], 1)[1] == -math.inf  # one value: no spread to go by
    for bad, per in (([np.nan], 1), ([[1.0]], 1), ([1.0, 2.0], 0), ([1.0], "2")):
        with pytest.raises(ValueError):
            S.rate_interval(bad, per)
