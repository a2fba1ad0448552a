"""Match equity: the chance to win a match from a score, and what a game's outcome is worth there.

Matches as boardgym/RULES.md MP.1-MP.7 play them. A score is written as the points each side
still needs ("away"): ``a`` for the player whose chances are meant, ``b`` for its opponent.
MWC (match winning chances) are probabilities in [0, 1], always of that player.

The table (``met``, ``post_crawford``), for 1 .. ``MAX_AWAY`` away on each side, is computed at
import by this module's own model, with three parameters (``GAMMON_RATE``, ``TABLE_EFFICIENCY``,
``FIRST_DOUBLE_SPREAD``) chosen once so that the table is close to the published Kazaross-XG2
table (Neil Kazaross, 2011: XG rollouts to 9 points, extended to 25):

- **Outcomes.** Every game starts even (P(win) 1/2), and a fraction ``GAMMON_RATE`` of each
  side's wins are gammons (no backgammons). A win of k points at cube c moves the winner to
  ``a - k c``; a side at 0 or below has won (MWC 1), so points beyond what a side needs are
  worth nothing (MP.2) and gammons are worthless to a side that needs no more than the cube.
- **Post-Crawford** (the leader 1-away, the Crawford game played, MP.6): the trailer n-away
  doubles at once; the leader takes or drops (the "free drop": dropping costs it one point,
  which matters when n is even). The first double is modelled as coming when the trailer's
  P(win) is ``1/2 - d`` or ``1/2 + d`` (each half the time, ``d = FIRST_DOUBLE_SPREAD``: the
  game has moved a little before the trailer can double); the leader drops when the trailer's
  cubeless MWC at cube 2 (leader's gammons are worthless to it, it needs 1 point) is above
  ``post_crawford(n - 1)``. ``post_crawford(1) = 1/2`` (both 1-away).
- **Crawford game** (one side 1-away, no cube, MP.5): the cubeless MWC of an even game at cube 1,
  the next game being post-Crawford: ``met(1, b)``.
- **Other scores** (both sides 2-away or more): Janowski's cubeful formula generalised to match
  play (the live cube of ``cubeful_mwc`` below) at P(win) 1/2, cube 1 centred, with the
  efficiency ``TABLE_EFFICIENCY``. Entries are computed by increasing a + b (every outcome
  lowers a score), for a < b; ``met(b, a) = 1 - met(a, b)`` and ``met(a, a) = 1/2`` exactly.

The live cube (``cubeful_mwc``, for any P(win) p and gammon ratios, as a position's outputs give
them; the cube turned at most up to ``cube_limit``, MP.4): the game is seen as a continuous
process in p with the gammon ratios fixed, both players doubling exactly at the other's take
point (no market losers), so the MWC at each cube level and owner is linear in p between the
points where the game stops or the cube is turned. With the cube at value c owned by A (the
player whose MWC is meant): linear from (0, L(c)) to (A's cash point, D_A(c)), flat beyond; owned
by B: flat D_B(c) up to B's cash point, then linear up to (1, W(c)); centred: flat D_B(c), linear
between the cash points, flat D_A(c). Here W(c) / L(c) are A's MWC after winning / losing at
cube c (the gammon ratios weighting the 1, 2 and 3 point outcomes), D_A(c) / D_B(c) its MWC
after the other side drops a double from c (A wins / loses c points). A's cash point at c is
B's take point after a double to 2c: the p where the MWC with the cube at 2c owned by B equals
D_A(c); likewise B's. The recursion starts at the top level, where the cube is dead: a side's
cube is dead when its owner needs no more than the cube (a win already takes the match: turning
it gains nothing) or a double would pass ``cube_limit``; a dead cube's MWC is the cubeless one,
``p W(c) + (1 - p) L(c)``. Too good to cash: at the level the cube is at, where a side could cash
(beyond its cash point) it plays on instead when that is worth more to it, so there A's live MWC
is the better for A of the flat cash value and ``p W(c) + (1 - p) L(c)`` (or, B's cash, the worse
for A): with most of its wins gammons a side does not take one point for them. Janowski's blend:
MWC = x MWC_live + (1 - x) MWC_cubeless, x the cube efficiency (0 dead, 1 fully live).

Conversions (``eq_to_mwc``, ``mwc_to_eq``): the money-normalised equity of an MWC at a score and
cube value c is ``eq = 2 (mwc - mwc_lose) / (mwc_win - mwc_lose) - 1``, with mwc_win / mwc_lose
the MWC after winning / losing a single game at cube c: +1 is a single win of the cube, -1 a
single loss, in points per cube unit. It is antisymmetric (the opponent's eq is -eq).

Cubeless MWC of a model's five cumulative outputs y (win, win gammon, win backgammon, lose
gammon, lose backgammon; agents/backgammon/net.py) at a score and cube c (``cubeless_mwc``):
``sum`` over the six outcomes of their probabilities times the MWC after them; it is linear in y,
``u[0] + u[1:] . y`` (``mwc_weights``). Which game follows a game (the Crawford rule): a game
that leaves a side 1-away when no side was 1-away before it is followed by the Crawford game
(the table's ``met(1, b)``); a game played with a side 1-away (the Crawford game, post-Crawford
games) by a post-Crawford game.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon.cube import CENTRED, OPP_OWNED, OWNED, check_outputs
from boardgym.envs.checks import is_int
from boardgym.kernels.backgammon.match import MATCH_CUBE_LIMIT, MAX_MATCH_LENGTH

__all__ = [
    "MAX_AWAY",
    "MAX_CUBE",
    "GAMMON_RATE",
    "TABLE_EFFICIENCY",
    "FIRST_DOUBLE_SPREAD",
    "TABLE",
    "POST",
    "met",
    "post_crawford",
    "met_table",
    "post_crawford_table",
    "after_mwc",
    "outcome_mwcs",
    "mwc_weights",
    "eq_weights",
    "utility",
    "cubeless_mwc",
    "live_mwc",
    "cubeful_mwc",
    "build_tables",
    "eq_to_mwc",
    "mwc_to_eq",
    "check_away",
    "check_cube",
    "check_owner",
]

MAX_AWAY = MAX_MATCH_LENGTH  # the longest match (RULES.md MP.1): 1 .. 64 away on each side
MAX_CUBE = MATCH_CUBE_LIMIT  # the cube cannot be turned past 64 in a match (MP.4)
GAMMON_RATE = 0.28  # the table's fraction of a side's wins that are gammons
TABLE_EFFICIENCY = 0.8  # the table's cube efficiency (Janowski's x)
FIRST_DOUBLE_SPREAD = 0.025  # the trailer's P(win) is 1/2 -+ this at its first post-Crawford double
_EPS = 1e-12


# ----------------------------------------------------------------------------- kernels


@njit(cache=True)
def after_mwc(a, b, done, table, post):
    """MWC of a side a-away against b-away at the start of the next game (done: the game just
    played had a side 1-away, so a 1-away now is post-Crawford): 1 if a <= 0, 0 if b <= 0;
    table: float64[MAX_AWAY, MAX_AWAY] (met), post: float64[MAX_AWAY] (post_crawford)."""
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    if done and b == 1:
        return post[a - 1]
    if done and a == 1:
        return 1.0 - post[b - 1]
    return table[a - 1, b - 1]


@njit(cache=True)
def outcome_mwcs(a, b, cube, table, post, out):
    """out (float64[6]): the MWC of the side a-away (against b-away) after it wins 1, 2, 3 times
    cube points, then after it loses 1, 2, 3 times cube (this game's outcomes)."""
    done = a == 1 or b == 1
    for k in range(3):
        out[k] = after_mwc(a - (k + 1) * cube, b, done, table, post)
        out[3 + k] = after_mwc(a, b - (k + 1) * cube, done, table, post)


@njit(cache=True)
def mwc_weights(a, b, cube, table, post, out):
    """out (float64[6]) = u with cubeless MWC = u[0] + u[1] y[WIN] + ... + u[5] y[LOSE_BG] for
    cumulative outputs y (the module docstring)."""
    o = np.empty(6)
    outcome_mwcs(a, b, cube, table, post, o)
    out[0] = o[3]
    out[1] = o[0] - o[3]
    out[2] = o[1] - o[0]
    out[3] = o[2] - o[1]
    out[4] = o[4] - o[3]
    out[5] = o[5] - o[4]


@njit(cache=True)
def eq_weights(a, b, cube, table, post, out):
    """out (float64[6]) = weights of the money-normalised equity (eq_to_mwc's inverse) of the
    cubeless MWC: eq = u[0] + u[1:] . y; money play's weights are (-1, 2, 1, 1, -1, -1)."""
    mwc_weights(a, b, cube, table, post, out)
    o = np.empty(6)
    outcome_mwcs(a, b, cube, table, post, o)
    k = 2.0 / (o[0] - o[3])
    for i in range(6):
        out[i] *= k
    out[0] -= 1.0 + 2.0 * o[3] / (o[0] - o[3])


@njit(cache=True)
def utility(u, y):
    """u[0] + u[1] y[0] + ... + u[5] y[4] for outputs y (float64[5]), in that order."""
    return u[0] + u[1] * y[0] + u[2] * y[1] + u[3] * y[2] + u[4] * y[3] + u[5] * y[4]


@njit(cache=True)
def _ratios(y):
    """(p, gammons / wins, backgammons / wins, gammons / losses, backgammons / losses) of y."""
    p = y[td_net.WIN]
    q = 1.0 - p
    gw = y[td_net.WIN_G] / p if p > _EPS else 0.0
    bw = y[td_net.WIN_BG] / p if p > _EPS else 0.0
    gl = y[td_net.LOSE_G] / q if q > _EPS else 0.0
    bl = y[td_net.LOSE_BG] / q if q > _EPS else 0.0
    return p, gw, bw, gl, bl


@njit(cache=True)
def _line(p, lp, lv, rp, rv):
    """lv up to lp, rv from rp, linear between."""
    if p <= lp:
        return lv
    if p >= rp:
        return rv
    return lv + (p - lp) * (rv - lv) / (rp - lp)


@njit(cache=True)
def _line_inverse(t, lp, lv, rp, rv):
    """The largest p in [0, 1] at which the nondecreasing _line(p, ...) is at most t (0 if it is
    above t everywhere)."""
    if t < lv:
        return 0.0
    if t >= rv or rp - lp <= _EPS:
        return rp if t < rv else 1.0
    return lp + (t - lv) * (rp - lp) / (rv - lv)


@njit(cache=True)
def live_mwc(p, gw, bw, gl, bl, a, b, cube, owner, cube_limit, table, post):
    """MWC of the side a-away (vs b-away) with P(win) p and gammon ratios gw, bw (of its wins),
    gl, bl (of its losses), the cube at value cube and owner (CENTRED, OWNED by it, OPP_OWNED)
    fully live up to cube_limit (the module docstring's live cube)."""
    done = a == 1 or b == 1
    n = 1
    c = 2 * cube
    while c <= cube_limit and n < 20:
        n += 1
        c *= 2
    w = np.empty(n)
    l = np.empty(n)
    da = np.empty(n)
    db = np.empty(n)
    sa = np.empty(n)
    sb = np.empty(n)
    live_a = np.zeros(n, dtype=np.bool_)
    live_b = np.zeros(n, dtype=np.bool_)
    c = cube
    for j in range(n):
        w[j] = (
            (1.0 - gw) * after_mwc(a - c, b, done, table, post)
            + (gw - bw) * after_mwc(a - 2 * c, b, done, table, post)
            + bw * after_mwc(a - 3 * c, b, done, table, post)
        )
        l[j] = (
            (1.0 - gl) * after_mwc(a, b - c, done, table, post)
            + (gl - bl) * after_mwc(a, b - 2 * c, done, table, post)
            + bl * after_mwc(a, b - 3 * c, done, table, post)
        )
        da[j] = after_mwc(a - c, b, done, table, post)
        db[j] = after_mwc(a, b - c, done, table, post)
        live_a[j] = a > c and 2 * c <= cube_limit
        live_b[j] = b > c and 2 * c <= cube_limit
        c *= 2
    for j in range(n - 1, -1, -1):
        if live_a[j]:  # B's take point at 2c, B owning it: its left anchor, (1, W) on the right
            lp, lv = (sb[j + 1], db[j + 1]) if live_b[j + 1] else (0.0, l[j + 1])
            sa[j] = _line_inverse(da[j], lp, lv, 1.0, w[j + 1])
        if live_b[j]:  # A's take point at 2c, A owning it: (0, L) on the left, its right anchor
            rp, rv = (sa[j + 1], da[j + 1]) if live_a[j + 1] else (1.0, w[j + 1])
            sb[j] = _line_inverse(db[j], 0.0, l[j + 1], rp, rv)
    lp, lv = (sb[0], db[0]) if owner != OWNED and live_b[0] else (0.0, l[0])
    rp, rv = (sa[0], da[0]) if owner != OPP_OWNED and live_a[0] else (1.0, w[0])
    v = _line(p, lp, lv, rp, rv)
    dead = p * w[0] + (1.0 - p) * l[0]  # playing on at this cube, gammons and all
    if owner != OWNED and live_b[0] and p <= lp:  # B may cash: it does unless too good
        v = min(v, dead)
    if owner != OPP_OWNED and live_a[0] and p >= rp:  # A may cash: it does unless too good
        v = max(v, dead)
    return v


@njit(cache=True)
def cubeful_mwc(y, x, a, b, cube, owner, cube_limit, table, post):
    """Janowski's cubeful MWC of outputs y (float64[5]) for the side a-away (vs b-away) with the
    cube at value cube and owner, efficiency x: x live_mwc + (1 - x) cubeless MWC."""
    u = np.empty(6)
    mwc_weights(a, b, cube, table, post, u)
    dead = utility(u, y)
    if x <= 0.0:
        return dead
    p, gw, bw, gl, bl = _ratios(y)
    live = live_mwc(p, gw, bw, gl, bl, a, b, cube, owner, cube_limit, table, post)
    return x * live + (1.0 - x) * dead


@njit(cache=True)
def build_tables(n, gammon_rate, x, spread, cube_limit, table, post):
    """Fill table (float64[n, n]) and post (float64[n]) by the module docstring's model."""
    post[0] = 0.5
    y = np.zeros(td_net.N_OUT)
    u = np.empty(6)
    for k in range(2, n + 1):  # post-Crawford, the trailer k-away doubling at once
        drop = post[k - 2]
        tot = 0.0
        for s in (-1.0, 1.0):
            p = 0.5 + s * spread
            y[0], y[1], y[2], y[3], y[4] = p, p * gammon_rate, 0.0, 0.0, 0.0
            mwc_weights(k, 1, 2, table, post, u)
            tot += 0.5 * min(utility(u, y), drop)
        post[k - 1] = tot
    y[0], y[1], y[2], y[3], y[4] = 0.5, 0.5 * gammon_rate, 0.0, 0.5 * gammon_rate, 0.0
    table[0, 0] = 0.5
    for k in range(2, n + 1):  # the Crawford game: no cube
        mwc_weights(1, k, 1, table, post, u)
        table[0, k - 1] = utility(u, y)
        table[k - 1, 0] = 1.0 - table[0, k - 1]
    for s in range(4, 2 * n + 1):
        for a in range(2, n + 1):
            b = s - a
            if b < a:
                break
            if b > n:
                continue
            if a == b:
                table[a - 1, b - 1] = 0.5
                continue
            v = cubeful_mwc(y, x, a, b, 1, CENTRED, cube_limit, table, post)
            table[a - 1, b - 1] = v
            table[b - 1, a - 1] = 1.0 - v


def _build():
    table = np.zeros((MAX_AWAY, MAX_AWAY))
    post = np.zeros(MAX_AWAY)
    x, spread = TABLE_EFFICIENCY, FIRST_DOUBLE_SPREAD
    build_tables(MAX_AWAY, GAMMON_RATE, x, spread, MAX_CUBE, table, post)
    table.flags.writeable = False
    post.flags.writeable = False
    return table, post


TABLE, POST = _build()  # read-only: met and post_crawford, indexed by away - 1


# ----------------------------------------------------------------------------- boundary


def check_away(away: int, name: str = "away") -> int:
    """away as an int in 1..MAX_AWAY (points still needed); TypeError/ValueError naming it."""
    if isinstance(away, bool) or not is_int(away):
        raise TypeError(f"{name} must be an integer (points still needed), got {away!r}")
    if not 1 <= away <= MAX_AWAY:
        raise ValueError(f"{name} must be in 1..{MAX_AWAY} (points still needed), got {away!r}")
    return int(away)


def check_cube(cube: int, limit: int = MAX_CUBE) -> int:
    """cube as an int, a power of two in 1..limit; TypeError/ValueError naming it."""
    if isinstance(cube, bool) or not is_int(cube):
        raise TypeError(f"the cube value must be an integer, got {cube!r}")
    c = int(cube)
    if c < 1 or c > limit or c & (c - 1):
        raise ValueError(f"the cube value must be a power of two in 1..{limit}, got {cube!r}")
    return c


def check_owner(owner: int) -> int:
    """owner as CENTRED, OWNED or OPP_OWNED (agents/backgammon/cube.py); ValueError otherwise."""
    if isinstance(owner, bool) or not is_int(owner) or owner not in (CENTRED, OWNED, OPP_OWNED):
        raise ValueError(
            f"the cube owner must be CENTRED ({CENTRED}), OWNED ({OWNED}) or OPP_OWNED "
            f"({OPP_OWNED}), got {owner!r}"
        )
    return int(owner)


def _check_number(v, name):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {v!r}")
    v = float(v)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v!r}")
    return v


def met(away_me: int, away_opp: int) -> float:
    """Pre-Crawford MWC of the side away_me-away against away_opp-away at the start of a game
    (a 1-away side: the Crawford game; 1-away against 1-away: 1/2)."""
    a = check_away(away_me, "away_me")
    b = check_away(away_opp, "away_opp")
    return float(TABLE[a - 1, b - 1])


def post_crawford(away_trailer: int) -> float:
    """MWC of the trailer away_trailer-away against the leader 1-away in a post-Crawford game
    (at its start; 1-away: 1/2)."""
    return float(POST[check_away(away_trailer, "away_trailer") - 1])


def met_table() -> npt.NDArray[np.float64]:
    """The pre-Crawford table: float64[MAX_AWAY, MAX_AWAY], [a - 1, b - 1] = met(a, b) (a copy)."""
    return TABLE.copy()


def post_crawford_table() -> npt.NDArray[np.float64]:
    """The post-Crawford table: float64[MAX_AWAY], [n - 1] = post_crawford(n) (a copy)."""
    return POST.copy()


def _score(away_me, away_opp, cube):
    return check_away(away_me, "away_me"), check_away(away_opp, "away_opp"), check_cube(cube)


def _single_outcomes(a, b, c):
    o = np.empty(6)
    outcome_mwcs(a, b, c, TABLE, POST, o)
    return o[0], o[3]


def eq_to_mwc(eq: float, away_me: int, away_opp: int, cube: int = 1) -> float:
    """MWC of the money-normalised equity eq (points per cube unit) at the score and cube value:
    mwc_lose + (eq + 1) (mwc_win - mwc_lose) / 2 (the module docstring)."""
    e = _check_number(eq, "eq")
    win, lose = _single_outcomes(*_score(away_me, away_opp, cube))
    return float(lose + 0.5 * (e + 1.0) * (win - lose))


def mwc_to_eq(mwc: float, away_me: int, away_opp: int, cube: int = 1) -> float:
    """Money-normalised equity of mwc at the score and cube value:
    2 (mwc - mwc_lose) / (mwc_win - mwc_lose) - 1 (the module docstring)."""
    m = _check_number(mwc, "mwc")
    win, lose = _single_outcomes(*_score(away_me, away_opp, cube))
    return float(2.0 * (m - lose) / (win - lose) - 1.0)


def cubeless_mwc(outputs: npt.ArrayLike, away_me: int, away_opp: int, cube: int = 1) -> float:
    """Cubeless MWC of the five cumulative outputs (net.py's order) of the side away_me-away
    against away_opp-away at cube value cube (points capped at what each side needs)."""
    y = check_outputs(outputs)
    u = np.empty(6)
    mwc_weights(*_score(away_me, away_opp, cube), TABLE, POST, u)
    return float(utility(u, y))
