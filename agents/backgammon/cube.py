"""Cube decisions from a model's cubeless outputs: Janowski's cubeful money equity (C.1-C.2).

Money play as the env's ``cube=True`` game (boardgym/RULES.md C.1-C.2: no Jacoby rule, no beavers).
From the five cumulative outputs ``y`` of the player on roll before its roll (``td_net``'s order:
win, win gammon, win backgammon, lose gammon, lose backgammon; ``backgammon_search.
preroll_outputs``), with the cube value taken as 1:

- ``p = y[WIN]``; ``W = (y[WIN] + y[WIN_G] + y[WIN_BG]) / p`` the mean points of a win and
  ``L = (1 - p + y[LOSE_G] + y[LOSE_BG]) / (1 - p)`` of a loss (1 when p is 1 or 0);
- dead cube (no more cube action): the cubeless equity ``E_dead = p W - (1 - p) L``;
- fully live cube (the cube can be turned at any instant, no market losers): the take point is
  ``TP = (L - 1/2) / (W + L + 1/2)`` and the cash point ``CP = (L + 1) / (W + L + 1/2)`` (the
  opponent's take point is ``1 - CP``), and the equity is linear in p between the points where
  the game stops or the cube is turned:
  owned by the player, ``-L + p (W + L + 1/2)`` below CP, 1 from CP on;
  owned by the opponent, -1 up to TP, ``-L - 1/2 + p (W + L + 1/2)`` above;
  centred, -1 up to TP, 1 from CP on, ``-1 + 2 (p - TP) / (CP - TP)`` between.
- Janowski (R. Janowski, "Take-points in money games", 1993): the cubeful equity is
  ``E = x E_live + (1 - x) E_dead`` with the cube efficiency x (0: the cube is never turned
  again with profit, 1: fully live); ``X_MONEY = 0.68`` is the one value used here for every
  money position (a rough figure for contact play; races are more efficient, and a
  position-dependent x is a possible refinement). Its take point when doubled (the taker then
  owns the cube at 2) is
  ``(L - 1/2) / (W + L + x/2)``: 25% at x = 0 and 20% at x = 1 without gammons, 21.4% at 0.68.

Decisions (``cube_decision``), for the player on roll who may double: no double is worth
``E_nd`` = E with the cube where it is; double/take ``E_dt`` = 2 E with the cube owned by the
opponent; double/drop ``E_dp = 1``. It doubles when ``min(E_dt, E_dp) > E_nd`` (so never when
too good: ``E_nd >= 1``, it plays on for the gammon), and the opponent takes when ``E_dt <= E_dp``
(its own equity -E_dt is at least the -1 a drop gives). All values per cube unit, player's view.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.agents.backgammon import net as td_net

__all__ = [
    "X_MONEY",
    "CENTRED",
    "OWNED",
    "OPP_OWNED",
    "gammon_ratios",
    "dead_equity",
    "live_equity",
    "janowski_equity",
    "take_point",
    "cube_decision",
    "check_outputs",
    "check_efficiency",
]

X_MONEY = 0.68
CENTRED, OWNED, OPP_OWNED = 0, 1, 2  # where the cube is, seen by the player on roll
_EPS = 1e-9


@njit(cache=True)
def gammon_ratios(y):
    """(p, W, L) of the outputs y (float64[5]): P(win), mean points of a win, of a loss."""
    p = y[td_net.WIN]
    w = (p + y[td_net.WIN_G] + y[td_net.WIN_BG]) / p if p > _EPS else 1.0
    q = 1.0 - p
    l = (q + y[td_net.LOSE_G] + y[td_net.LOSE_BG]) / q if q > _EPS else 1.0
    return p, w, l


@njit(cache=True)
def dead_equity(y):
    """Cubeless money equity of y (the dead cube): p W - (1 - p) L."""
    return td_net.equity(y)


@njit(cache=True)
def live_equity(y, owner):
    """Equity with a fully live cube (value 1; owner CENTRED, OWNED or OPP_OWNED)."""
    p, w, l = gammon_ratios(y)
    s = w + l + 0.5
    tp = (l - 0.5) / s
    cp = (l + 1.0) / s
    if owner == OWNED:
        return 1.0 if p >= cp else -l + p * s
    if owner == OPP_OWNED:
        return -1.0 if p <= tp else -l - 0.5 + p * s
    if p <= tp:
        return -1.0
    if p >= cp:
        return 1.0
    return -1.0 + 2.0 * (p - tp) / (cp - tp)


@njit(cache=True)
def janowski_equity(y, x, owner):
    """Janowski's cubeful money equity (cube value 1) of y with cube efficiency x and the cube
    at owner: x live_equity + (1 - x) dead_equity."""
    return x * live_equity(y, owner) + (1.0 - x) * dead_equity(y)


@njit(cache=True)
def take_point(y, x):
    """P(win) of the taker (whose outputs y's gammon ratios are) from which it takes a double:
    (L - 1/2) / (W + L + x/2)."""
    _, w, l = gammon_ratios(y)
    return (l - 0.5) / (w + l + 0.5 * x)


@njit(cache=True)
def cube_decision(y, x, owner):
    """(E_nd, E_dt, E_dp, double, take) for the player on roll whose outputs are y, cube at owner
    (CENTRED or OWNED), efficiency x; double and take are 0/1 (the module docstring)."""
    e_nd = janowski_equity(y, x, owner)
    e_dt = 2.0 * janowski_equity(y, x, np.int64(OPP_OWNED))
    e_dp = 1.0
    double = 1 if min(e_dt, e_dp) > e_nd else 0
    take = 1 if e_dt <= e_dp else 0
    return e_nd, e_dt, e_dp, double, take


def check_outputs(y: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """y as float64[5] of cumulative probabilities (0 <= gammon <= win and the like); ValueError."""
    a = np.asarray(y, dtype=np.float64)
    if a.shape != (td_net.N_OUT,):
        raise ValueError(f"outputs are float64[{td_net.N_OUT}], got shape {a.shape}")
    if not np.isfinite(a).all() or a.min() < 0.0 or a.max() > 1.0:
        raise ValueError("outputs are probabilities in [0, 1]")
    win, wg, wbg, lg, lbg = a
    if wg > win + 1e-9 or wbg > wg + 1e-9 or lg > 1.0 - win + 1e-9 or lbg > lg + 1e-9:
        raise ValueError("outputs are cumulative: backgammon <= gammon <= win (or loss)")
    return np.ascontiguousarray(a)


def check_efficiency(x: float) -> float:
    """x as a float in [0, 1]; ValueError/TypeError otherwise."""
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"the cube efficiency must be a number, got {x!r}")
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"the cube efficiency must be in [0, 1], got {x!r}")
    return float(x)
