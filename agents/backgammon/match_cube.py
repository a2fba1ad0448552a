"""Cube decisions in a match: double / no double and take / drop in match winning chances (MWC).

Matches as boardgym/RULES.md MP.1-MP.7 play them; the MWC model is agents/backgammon/
match_equity.py's (its table, and Janowski's cubeful formula generalised to match play,
``cubeful_mwc``). From the five cumulative outputs ``y`` of the player on roll before its roll
(the doubler; net.py's order), its score ``a``-away against ``b``-away, the cube at value ``c``
(CENTRED or OWNED by it) and a cube efficiency ``x`` (``match_cube_decision``):

- no double: ``E_nd`` = cubeful MWC with the cube where it is;
- double / take: ``E_dt`` = cubeful MWC with the cube at 2c owned by the opponent;
- double / drop: ``E_dp`` = the MWC after winning c points (the next game's, ``after_mwc``).

It doubles when it may and ``min(E_dt, E_dp) > E_nd`` (too good, e.g. for a gammon: no double),
and the opponent takes when ``E_dt <= E_dp`` (its own MWC after a take is at least a drop's).
It may double when the cube is not the opponent's, a double stays within the cube limit (MP.4;
1 in the Crawford game, MP.5: never there), and it needs more than c points (otherwise a single
win already takes the match: the cube is dead for it, doubling can only help the other side).
A live cube level is dead the same way inside the model (a side needing no more than the cube
never redoubles). Gammons count through the MWC of each outcome: worthless to a side that needs
no more than the cube, worth the match when they reach it (gammon-go, gammon-save), none of the
leader's in the Crawford game and after it.

Post-Crawford (the leader 1-away, MP.6): the cube is dead for the leader (one point is all it
needs), so the trailer loses nothing by doubling and the rule above makes it double at once;
the leader's take is then a dead-cube decision, ``E_dt`` the trailer's cubeless MWC at cube 2
against ``E_dp`` = post_crawford(a - 1): the free drop when a is even.

Cube efficiency (``position_efficiency``, this module's own heuristic): the agent's contact
efficiency (``X_CONTACT`` by default, the money figure, 0.68) while the sides can still hit each
other (features.is_contact); in a race the cube is more efficient while the race is long (fewer
market losers per roll) and less as it ends: ``clip(0.5 + pips / 400, 0.6, 0.85)`` with ``pips``
the pip count of the player on roll.

The take point of the dead cube without gammons (``dead_take_point``): the taker a-away, the
doubler b-away, a double from c: the taker takes from P(win) ``(D - L) / (W - L)``, with D its MWC
after the drop (the doubler wins c), W / L after winning / losing 2c: the table's take point.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.agents.backgammon.cube import CENTRED, OPP_OWNED, X_MONEY, check_outputs
from boardgym.agents.backgammon.features import is_contact
from boardgym.agents.backgammon.match_equity import (
    MAX_CUBE,
    POST,
    TABLE,
    after_mwc,
    check_away,
    check_cube,
    check_owner,
    cubeful_mwc,
)
from boardgym.kernels.backgammon.board import BAR_ME, ME

__all__ = [
    "X_CONTACT",
    "RACE_X_MIN",
    "RACE_X_MAX",
    "race_efficiency",
    "position_efficiency",
    "can_double",
    "match_cube_decision",
    "match_decision",
    "dead_take_point",
]

X_CONTACT = X_MONEY  # cube efficiency while there is contact
RACE_X_MIN, RACE_X_MAX = 0.6, 0.85  # the race efficiency's range


@njit(cache=True)
def race_efficiency(pips):
    """Cube efficiency of a race whose player on roll has pips to go: clip(0.5 + pips / 400)."""
    x = 0.5 + pips / 400.0
    if x < RACE_X_MIN:
        return RACE_X_MIN
    if x > RACE_X_MAX:
        return RACE_X_MAX
    return x


@njit(cache=True)
def position_efficiency(s, contact):
    """Cube efficiency of position s (int64 state, mover's view): contact (an agent's efficiency,
    X_CONTACT by default) with contact, else race_efficiency of the mover's pip count."""
    if is_contact(s):
        return contact
    pips = 25 * s[BAR_ME]
    for i in range(24):
        pips += (i + 1) * s[ME + i]
    return race_efficiency(pips)


@njit(cache=True)
def can_double(a, cube, owner, cube_limit):
    """True when the player on roll, a-away, may usefully double the cube (value, owner) under
    cube_limit: the cube not the opponent's, 2 cube <= cube_limit, a > cube."""
    return owner != OPP_OWNED and 2 * cube <= cube_limit and a > cube


@njit(cache=True)
def match_cube_decision(y, x, a, b, cube, owner, cube_limit, table, post):
    """(E_nd, E_dt, E_dp, double, take) in MWC for the player on roll (a-away vs b-away) whose
    outputs are y, the cube at value cube and owner, efficiency x, the cube limit cube_limit
    (1: the Crawford game); double and take 0/1 (the module docstring)."""
    e_nd = cubeful_mwc(y, x, a, b, cube, owner, cube_limit, table, post)
    done = a == 1 or b == 1
    e_dp = after_mwc(a - cube, b, done, table, post)
    if 2 * cube <= cube_limit:
        e_dt = cubeful_mwc(y, x, a, b, 2 * cube, OPP_OWNED, cube_limit, table, post)
    else:
        e_dt = e_nd
    double = 1 if can_double(a, cube, owner, cube_limit) and min(e_dt, e_dp) > e_nd else 0
    take = 1 if e_dt <= e_dp else 0
    return e_nd, e_dt, e_dp, double, take


def _check_efficiency(x):
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"the cube efficiency must be a number, got {x!r}")
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"the cube efficiency must be in [0, 1], got {x!r}")
    return float(x)


def match_decision(
    outputs: npt.ArrayLike,
    away_me: int,
    away_opp: int,
    cube: int = 1,
    owner: int = CENTRED,
    efficiency: float = X_CONTACT,
    crawford: bool = False,
) -> dict[str, Any]:
    """The cube decision of the player on roll (away_me-away vs away_opp-away, outputs before its
    roll, the cube at value cube and owner CENTRED / OWNED / OPP_OWNED, crawford: this is the
    Crawford game): a dict of no_double, double_take, double_drop (MWC, its view), double (it
    should double) and take (its opponent should take). ValueError/TypeError on bad input."""
    y = check_outputs(outputs)
    a = check_away(away_me, "away_me")
    b = check_away(away_opp, "away_opp")
    c = check_cube(cube)
    o = check_owner(owner)
    x = _check_efficiency(efficiency)
    if not isinstance(crawford, (bool, np.bool_)):
        raise TypeError(f"crawford must be True or False, got {crawford!r}")
    if crawford and (a == 1) == (b == 1):
        raise ValueError("the Crawford game needs exactly one side 1-away")
    if crawford and (c != 1 or o != CENTRED):
        raise ValueError("no one doubles in the Crawford game: the cube is 1 and centred")
    limit = 1 if crawford else MAX_CUBE
    nd, dt, dp, double, take = match_cube_decision(y, x, a, b, c, o, limit, TABLE, POST)
    return {
        "no_double": float(nd),
        "double_take": float(dt),
        "double_drop": float(dp),
        "double": bool(double),
        "take": bool(take),
    }


def dead_take_point(away_taker: int, away_doubler: int, cube: int = 1) -> float:
    """The taker's P(win) from which it takes a double from cube, dead cube and no gammons:
    (D - L) / (W - L) from the table (the module docstring)."""
    a = check_away(away_taker, "away_taker")
    b = check_away(away_doubler, "away_doubler")
    c = check_cube(cube, MAX_CUBE // 2)
    done = a == 1 or b == 1
    d = after_mwc(a, b - c, done, TABLE, POST)
    w = after_mwc(a - 2 * c, b, done, TABLE, POST)
    l = after_mwc(a, b - 2 * c, done, TABLE, POST)
    return float((d - l) / (w - l))
