"""Match statistics: scores, points per game and Elo, each with a 95% interval.

One module for every evaluation in boardgym (scripts/evaluate.py, scripts/eval_gnubg.py, the
trainers' periodic evaluations through points_summary, the benchmarks):

- ``wilson(k, n)``: Wilson score interval of a score of k points in n games (a win 1, a draw
  1/2, a loss 0). Exact ends at k = 0 and k = n.
- ``mean_interval(xs, low, high)``: interval of the mean points per game when every game scores
  between ``low`` and ``high`` (draughts -1..1; cubeless backgammon with gammons -3..3), by the
  same method: Wilson's interval of the rescaled mean with the variance at a candidate mean mu
  taken as r mu (1 - mu), r the ratio of the sample's variance to the largest one its mean
  allows (a win/loss sample's), the sample counted with z^2/2 virtual games at each end of the
  range for r alone (so that identical games still leave a wide interval). For win/loss results
  r = 1 and this is exactly Wilson's interval; it stays inside the range, always contains the
  sample mean, reaches an end of the range only when every game scored it (a sample with one
  loss rules out "always wins"), never has zero width, and tends to mean +- z s / sqrt(n) as n
  grows. One method for both, so the intervals of one match never contradict each other:
  ``summarize_points`` gives the score the interval of the per-game scores (1, 1/2, 0), which in
  draughts (points -1, 0, 1) is the points-per-game interval rescaled, end for end.
- ``elo_from_score(p)``: the Elo difference whose expected score is p; ``match_elo(k, n)``: that
  difference with the Elo of the Wilson interval's ends (infinite at a score of 0 or 1:
  ``format_elo`` writes that as the bound the interval gives, "below -683").
- ``elo_ratings`` / ``elo_covariance`` / ``elo_intervals``: maximum-likelihood Elo ratings of a
  round-robin (Bradley-Terry with a virtual draw per pair as a prior), their covariance from the
  observed Fisher information, and 95% intervals.
- ``summarize_points(points, low, high)``: all of the above for one pair's list of results.
- ``summarize_money(points)``: cubeful money games (unbounded points: the cube multiplies):
  points per game with the paired normal interval (``paired_interval``), per-game standard
  deviation, wins/losses and the results' counts; ``result_rates(points)``: single / gammon /
  backgammon rates of both sides of cubeless games with gammons (points -3..3).
- ``luck_summary(points, luck)``: luck-adjusted results (points - luck, agents/arena/matches.py)
  beside the raw ones. The adjusted values are not range-bounded, so their interval is the normal
  one, mean +- z s / sqrt(m), with s the standard deviation of the m pair means (the two games of
  a pair share their dice and are not independent); the per-game standard deviations of both are
  reported to show the variance reduction.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "Z95",
    "ELO_PER_NAT",
    "wilson",
    "mean_interval",
    "format_elo",
    "elo_from_score",
    "match_elo",
    "elo_ratings",
    "elo_covariance",
    "elo_intervals",
    "summarize_points",
    "paired_interval",
    "rate_interval",
    "luck_summary",
    "format_luck",
    "summarize_money",
    "format_money",
    "result_rates",
]

Z95 = 1.959963984540054  # two-sided 95% normal quantile
ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of natural-log strength


def _count(n, name="n"):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer, float, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(n).__name__}")
    if not math.isfinite(n) or n < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {n!r}")
    return float(n)


def _z(z):
    if isinstance(z, bool) or not isinstance(z, (int, float, np.integer, np.floating)):
        raise TypeError(f"z must be a number, got {type(z).__name__}")
    if not math.isfinite(z) or z <= 0:
        raise ValueError(f"z must be a finite number > 0, got {z!r}")
    return float(z)


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval (low, high) of a score of k points in n games (draws count 1/2).

    k and n are numbers with 0 <= k <= n; with n = 0 the interval is (0, 1)."""
    k, n, z = _count(k, "k"), _count(n), _z(z)
    if k > n:
        raise ValueError(f"score k={k!r} exceeds the number of games n={n!r}")
    if n == 0:
        return 0.0, 1.0
    return _wilson(k / n, 1.0, n, z)


def _wilson(m, r, n, z):
    """Wilson's interval in [0, 1] of a mean m of n values in [0, 1] whose variance at a mean mu
    is r mu (1 - mu); exact ends at m = 0 and m = 1."""
    zz = z * z * r
    denom = 1.0 + zz / n
    centre = (m + zz / (2 * n)) / denom
    half = math.sqrt(zz * m * (1 - m) / n + zz * zz / (4 * n * n)) / denom
    lo = 0.0 if m <= 0 else max(0.0, centre - half)  # exact ends at 0 and 1 (no rounding)
    hi = 1.0 if m >= 1 else min(1.0, centre + half)
    return lo, hi


def _points(xs, low, high):
    """float64 (n,) of per-game points, checked against the range [low, high]."""
    if isinstance(low, bool) or isinstance(high, bool):
        raise TypeError("low and high must be numbers")
    low, high = float(low), float(high)
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"need finite low < high, got low={low!r}, high={high!r}")
    try:
        p = np.asarray(xs, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"points must be a sequence of numbers, got {type(xs).__name__}") from None
    if p.ndim != 1:
        raise ValueError(f"points must be one-dimensional, got shape {p.shape}")
    if not np.isfinite(p).all():
        raise ValueError("points must be finite numbers (found NaN or infinity)")
    if p.size and (p.min() < low or p.max() > high):
        raise ValueError(f"points must lie in [{low:g}, {high:g}], found {p.min():g}..{p.max():g}")
    return p, low, high


def mean_interval(
    xs: npt.ArrayLike, low: float, high: float, z: float = Z95
) -> tuple[float, float]:
    """(lo, hi): interval of the mean of xs (per-game points, each in [low, high]).

    Wilson's interval with the sample's variance ratio (the module docstring says how). With no
    games: (low, high)."""
    p, low, high = _points(xs, low, high)
    z = _z(z)
    if p.size == 0:
        return low, high
    u = (p - low) / (high - low)  # rescaled to [0, 1]
    c = z * z / 2  # virtual games at each end, for the variance ratio
    n_aug = u.size + 2 * c
    m_aug = (u.sum() + c) / n_aug
    var_aug = max((np.square(u).sum() + c) / n_aug - m_aug * m_aug, 0.0)
    r = min(1.0, var_aug / (m_aug * (1 - m_aug)))
    lo, hi = _wilson(float(u.mean()), r, u.size, z)
    return float(low + (high - low) * lo), float(low + (high - low) * hi)


def elo_from_score(p: float) -> float:
    """Elo difference that predicts the score fraction p (0.5 -> 0, 0.76 -> +200; +-inf at 1, 0)."""
    p = float(p)
    if math.isnan(p) or not 0.0 <= p <= 1.0:
        raise ValueError(f"a score fraction lies in [0, 1], got {p!r}")
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / p - 1.0)


def match_elo(k: float, n: float, z: float = Z95) -> tuple[float, float, float]:
    """(elo, low, high): the Elo difference of a score of k points in n games and the Elo of the
    Wilson interval's ends (infinite where the interval reaches 0 or 1). n = 0 gives
    (0, -inf, inf)."""
    lo, hi = wilson(k, n, z)
    elo = elo_from_score(k / n) if n > 0 else 0.0
    return elo, elo_from_score(lo), elo_from_score(hi)


def format_elo(elo: float, low: float, high: float, cap: float = 1000.0) -> str:
    """An Elo difference with its interval as text, '+123 [+50, +199]'; with a score of all or
    nothing (elo infinite, or at +-cap where a caller capped it) no difference is measured, only
    a bound: 'below -683' / 'above +512' (the interval's finite end)."""
    if elo <= -cap:
        return f"below {high:+.0f}"
    if elo >= cap:
        return f"above {low:+.0f}"
    return f"{elo:+.0f} [{low:+.0f}, {high:+.0f}]"


def _table(points, games):
    pts = np.asarray(points, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[0] != pts.shape[1] or n.shape != pts.shape:
        raise ValueError(
            f"points and games must be square (k, k) tables of one shape, got "
            f"{pts.shape} and {n.shape}"
        )
    if not (np.isfinite(pts).all() and np.isfinite(n).all()) or (pts < 0).any() or (n < 0).any():
        raise ValueError("points and games must be finite and >= 0")
    if not np.allclose(n, n.T):
        raise ValueError("games must be symmetric (games[i, j] == games[j, i])")
    if (pts > n + 1e-9).any():
        raise ValueError("points[i, j] cannot exceed games[i, j]")
    return pts, n


def elo_ratings(
    points: npt.ArrayLike, games: npt.ArrayLike, prior: float = 1.0, iters: int = 2000
) -> npt.NDArray[np.float64]:
    """Maximum-likelihood Elo ratings (float64 (k,), mean 0) of a round-robin.

    points[i, j]: points of i against j (win 1, draw 1/2); games[i, j]: games between them.
    prior: virtual drawn games added to each pair that met (keeps perfect scores finite).
    Bradley-Terry by the minorisation-maximisation iteration."""
    pts, n = _table(points, games)
    met = n > 0
    pts = pts + np.where(met, prior / 2, 0.0)
    n = n + np.where(met, prior, 0.0)
    k = pts.shape[0]
    gamma = np.ones(k)
    wins = pts.sum(axis=1)
    for _ in range(iters):
        denom = (n / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = np.where(denom > 0, wins / np.where(denom > 0, denom, 1.0), 1.0)
        new /= np.exp(np.mean(np.log(new)))
        if np.allclose(new, gamma, rtol=1e-12, atol=0):
            gamma = new
            break
        gamma = new
    elo = 400.0 * np.log10(gamma)
    return elo - elo.mean()


def elo_covariance(
    points: npt.ArrayLike, games: npt.ArrayLike, prior: float = 1.0
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(elo, cov): elo_ratings and the (k, k) covariance of those mean-0 ratings, in Elo^2.

    The same Bradley-Terry model and virtual-draw prior as elo_ratings. With theta = elo /
    ELO_PER_NAT and p_ij = 1 / (1 + exp(theta_j - theta_i)), the observed Fisher information at
    the ML estimate is I_ii = sum_j n_ij p_ij p_ji, I_ij = -n_ij p_ij p_ji (n counts the virtual
    draws; for this logistic model observed and expected information coincide). I is singular
    along (1, ..., 1), the direction the mean-0 constraint removes: the covariance of the
    constrained estimate is the Moore-Penrose pseudo-inverse of I (the same as fixing one player,
    inverting the reduced information and centring). Assumes the pairs that met connect all
    players (a round-robin does); with prior=0 a perfect score has no finite estimate or variance.
    """
    elo = elo_ratings(points, games, prior=prior)
    n = np.asarray(games, dtype=np.float64)
    n = n + np.where(n > 0, prior, 0.0)
    theta = elo / ELO_PER_NAT
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    w = n * p * p.T
    np.fill_diagonal(w, 0.0)
    info = np.diag(w.sum(axis=1)) - w
    cov = np.linalg.pinv(info, hermitian=True) * ELO_PER_NAT**2
    return elo, cov


def elo_intervals(
    points: npt.ArrayLike, games: npt.ArrayLike, prior: float = 1.0, z: float = Z95
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(elo, low, high): elo_ratings with z-sigma intervals (95% by default), each (k,) float64.

    Standard errors are the square roots of elo_covariance's diagonal (observed Fisher
    information of the Bradley-Terry likelihood, pseudo-inverse for the mean-0 constraint)."""
    elo, cov = elo_covariance(points, games, prior=prior)
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    z = _z(z)
    return elo, elo - z * se, elo + z * se


def points_summary(points: npt.ArrayLike, low: float, high: float) -> dict[str, Any]:
    """{"ppg", "ci95": [lo, hi], "win_rate", "games"} of the learner's per-game points, each in
    [low, high] (draughts -1, 1; backgammon counting gammons -3, 3)."""
    p = np.asarray(points, np.float64)
    lo, hi = mean_interval(p, low, high)
    return {
        "ppg": round(float(p.mean()), 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "win_rate": round(float((p > 0).mean()), 4),
        "games": int(p.size),
    }


def summarize_points(
    points: npt.ArrayLike, low: float = -1.0, high: float = 1.0, z: float = Z95
) -> dict[str, Any]:
    """Summary dict of one player's per-game points against one opponent, each in [low, high].

    Keys: games, wins, draws, losses (points > 0, == 0, < 0), results ({points: count}),
    points_per_game and ppg_interval (mean_interval), score (wins + draws / 2, as a fraction) and
    score_interval (mean_interval of the per-game scores 1, 1/2, 0: wilson without draws), elo
    and elo_interval (the Elo of the score and of its interval's ends)."""
    p, low, high = _points(points, low, high)
    n = p.size
    wins, draws, losses = int((p > 0).sum()), int((p == 0).sum()), int((p < 0).sum())
    k = wins + 0.5 * draws
    s_lo, s_hi = mean_interval((p > 0) + 0.5 * (p == 0), 0.0, 1.0, z)
    values, counts = np.unique(p, return_counts=True)
    return {
        "games": n,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "results": {float(v): int(c) for v, c in zip(values, counts)},
        "points_per_game": float(p.mean()) if n else 0.0,
        "ppg_interval": mean_interval(p, low, high, z),
        "score": k / n if n else 0.5,
        "score_interval": (s_lo, s_hi),
        "elo": elo_from_score(k / n) if n else 0.0,
        "elo_interval": (elo_from_score(s_lo), elo_from_score(s_hi)),
    }


def paired_interval(xs: npt.ArrayLike, z: float = Z95) -> tuple[float, float]:
    """(lo, hi): normal interval of the mean of xs (float (2m,), unbounded values, games 2k and
    2k + 1 a pair) from the standard deviation of the m pair means; (-inf, inf) below two pairs."""
    x = np.asarray(xs, dtype=np.float64)
    z = _z(z)
    if x.ndim != 1 or x.size % 2:
        raise ValueError(f"paired results are one-dimensional of even length, got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("results must be finite numbers (found NaN or infinity)")
    pairs = x.reshape(-1, 2).mean(axis=1)
    if pairs.size < 2:
        return -math.inf, math.inf
    half = z * float(pairs.std(ddof=1)) / math.sqrt(pairs.size)
    mean = float(x.mean())
    return mean - half, mean + half


def rate_interval(xs: npt.ArrayLike, per: float, z: float = Z95) -> tuple[float, float, float]:
    """(rate, lo, hi): the sum of xs (float (n,), one value per decision, unbounded: an error, or
    the difference of two players' errors on the same decision) divided by per (a count the rate
    is per, e.g. the decisions gnubg counts as close), with the normal interval of a sum of n
    independent values, sum +- z sqrt(n) s (s: the standard deviation of xs), divided by per."""
    x = np.asarray(xs, dtype=np.float64)
    z = _z(z)
    if x.ndim != 1 or not np.isfinite(x).all():
        raise ValueError("values must be a one-dimensional array of finite numbers")
    if not (isinstance(per, (int, float, np.integer, np.floating)) and per > 0):
        raise ValueError(f"a rate is per a positive count, got {per!r}")
    rate = float(x.sum()) / per
    half = z * math.sqrt(x.size) * float(x.std(ddof=1)) / per if x.size > 1 else math.inf
    return rate, rate - half, rate + half


def luck_summary(
    points: npt.ArrayLike,
    luck: npt.ArrayLike,
    low: float = -3.0,
    high: float = 3.0,
    z: float = Z95,
) -> dict[str, Any]:
    """Raw and luck-adjusted results of one player (points, luck: float (2m,), paired games).

    Keys: games; raw_mean, raw_interval (mean_interval over [low, high]), raw_sd (per game);
    adjusted_mean (mean of points - luck), adjusted_interval (paired_interval), adjusted_sd (per
    game); sd_ratio (adjusted_sd / raw_sd)."""
    p, low, high = _points(points, low, high)
    lk = np.asarray(luck, dtype=np.float64)
    if lk.shape != p.shape:
        raise ValueError(f"luck must have the shape of points {p.shape}, got {lk.shape}")
    if not np.isfinite(lk).all():
        raise ValueError("luck must be finite numbers (found NaN or infinity)")
    adj = p - lk
    n = p.size
    raw_sd = float(p.std(ddof=1)) if n > 1 else math.nan
    adj_sd = float(adj.std(ddof=1)) if n > 1 else math.nan
    return {
        "games": n,
        "raw_mean": float(p.mean()) if n else 0.0,
        "raw_interval": mean_interval(p, low, high, z),
        "raw_sd": raw_sd,
        "adjusted_mean": float(adj.mean()) if n else 0.0,
        "adjusted_interval": paired_interval(adj, z),
        "adjusted_sd": adj_sd,
        "sd_ratio": adj_sd / raw_sd if raw_sd > 0 else math.nan,
    }


def format_luck(s: Mapping[str, Any], judge: str) -> str:
    """Two lines of a luck_summary s: raw and luck-adjusted points per game with their 95%
    intervals and per-game standard deviations; judge: the luck judge's name."""
    lo, hi = s["raw_interval"]
    alo, ahi = s["adjusted_interval"]
    return (
        f"  raw      {s['raw_mean']:+.3f} (95% [{lo:+.3f}, {hi:+.3f}], +-{(hi - lo) / 2:.3f})"
        f"  per-game SD {s['raw_sd']:.3f}\n"
        f"  adjusted {s['adjusted_mean']:+.3f} (95% [{alo:+.3f}, {ahi:+.3f}], "
        f"+-{(ahi - alo) / 2:.3f})  per-game SD {s['adjusted_sd']:.3f}  "
        f"(luck judge {judge}; SD x{s['sd_ratio']:.2f})"
    )


def summarize_money(points: npt.ArrayLike, z: float = Z95) -> dict[str, Any]:
    """Summary dict of one player's cubeful money results (float (2m,), pairs of games 2k and
    2k + 1): games, wins, draws, losses, results ({points: count}), points_per_game,
    ppg_interval (paired_interval), sd (per game)."""
    p = np.asarray(points, dtype=np.float64)
    if p.ndim != 1 or not np.isfinite(p).all():
        raise ValueError("points must be a one-dimensional array of finite numbers")
    values, counts = np.unique(p, return_counts=True)
    n = p.size
    return {
        "games": n,
        "wins": int((p > 0).sum()),
        "draws": int((p == 0).sum()),
        "losses": int((p < 0).sum()),
        "results": {float(v): int(c) for v, c in zip(values, counts)},
        "points_per_game": float(p.mean()) if n else 0.0,
        "ppg_interval": paired_interval(p, z),
        "sd": float(p.std(ddof=1)) if n > 1 else math.nan,
    }


def format_money(s: Mapping[str, Any], label: str = "cubeful money") -> str:
    """One line of a summarize_money s, led by label."""
    lo, hi = s["ppg_interval"]
    return (
        f"{label}: {s['games']} games  +{s['wins']} ={s['draws']} -{s['losses']}  "
        f"points/game {s['points_per_game']:+.3f} (95% [{lo:+.3f}, {hi:+.3f}], "
        f"+-{(hi - lo) / 2:.3f})  per-game SD {s['sd']:.3f}"
    )


def result_rates(points: npt.ArrayLike) -> dict[str, dict[int, float]]:
    """{"won": {1: rate, 2: rate, 3: rate}, "lost": {...}} of one player's cubeless results with
    gammons (points per game in -3..3, 1 single, 2 gammon, 3 backgammon), rates of all games."""
    p = np.asarray(points, dtype=np.float64)
    if p.ndim != 1 or not np.isfinite(p).all():
        raise ValueError("points must be a one-dimensional array of finite numbers")
    n = max(p.size, 1)
    return {
        "won": {k: float((p == k).sum()) / n for k in (1, 2, 3)},
        "lost": {k: float((p == -k).sum()) / n for k in (1, 2, 3)},
    }
