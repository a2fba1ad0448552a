"""The luck of backgammon rolls measured by a judge (a net, or any callable valuing afterstates).

A judge is a callable ``judge(rows) -> float64[n]``: the cubeless money equity, for the player
who just moved, of afterstates ``rows`` (int64[n, STATE_LEN], mover's view before the turn
passes, as ``game.plays`` gives them); it may also have ``best_values(state) -> float64[21]``
(its value after its best play of each of ``ROLLS``) when it can choose faster than scoring
every afterstate. For every roll, lost rolls included, luck = the judge's value after its best
play of the roll rolled minus the mean of that value over the 21 distinct rolls (weights
``ROLL_WEIGHTS``: 1/36 doubles, 2/36 others), from the roller's view (``roll_luck``); the
opening roll, never a double, is measured against the 15 non-doubles (``OPENING_WEIGHTS``).
``game_luck`` sums a game's rolls (the ``rolls`` list of agents/backgammon/game_loop.py's
``play_afterstate_game``), player 0's minus player 1's, each times the cube value it was rolled
at. The judges given here value a play that ends the game exactly (1/2/3 points, O.3:
``exact_values``); ``td_judge`` is the library's judge (the TD net); GNU Backgammon's (GPL-3)
lives in scripts/eval_gnubg.py only. The luck-adjusted matches that use it are
agents/arena/matches.py's ``play_adjusted_match``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.kernels.backgammon import game as bg_game
from boardgym.kernels.backgammon.board import CUBE_VALUE, OFF_ME, STATE_LEN, TURN

__all__ = [
    "ROLLS",
    "ROLL_WEIGHTS",
    "OPENING_WEIGHTS",
    "roll_index",
    "best_values",
    "roll_luck",
    "game_luck",
    "exact_values",
    "td_judge",
]

ROLLS = np.array([(d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7)], dtype=np.int64)
"""the 21 distinct rolls (low die, high die), int64[21, 2]"""
ROLL_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 1.0, 2.0) / 36.0
"""probability of each of ROLLS: 1/36 doubles, 2/36 others"""
OPENING_WEIGHTS = np.where(ROLLS[:, 0] == ROLLS[:, 1], 0.0, 1.0) / 15.0
"""probability of each of ROLLS as the opening roll (no doubles)"""
_ROW_CHUNK = 8192


def roll_index(d1: int, d2: int) -> int:
    """Index in ROLLS of the roll d1-d2 (either order)."""
    lo, hi = min(int(d1), int(d2)), max(int(d1), int(d2))
    return (lo - 1) * 6 - (lo - 1) * (lo - 2) // 2 + (hi - lo)


@njit(cache=True)
def _roll_afterstates(state, rolls, out, starts):
    """The distinct afterstates of each roll of rolls from state, one block after another, into
    out; starts[r] = first row of roll r, starts[len] = total -> total, -1 if out is too small."""
    pos = 0
    for r in range(rolls.shape[0]):
        starts[r] = pos
        m = bg_game.plays_of_roll(state, rolls[r, 0], rolls[r, 1], out[pos:], None)
        if m < 0:
            return -1
        pos += m
    starts[rolls.shape[0]] = pos
    return pos


@njit(cache=True)
def _exact_values(rows, n, values):
    """Overwrite values[r] with the exact points per cube unit (O.3: 1, 2 or 3) of each
    afterstate that ends the game (the judges' equities are per cube unit too; game_luck
    multiplies by the cube)."""
    for r in range(n):
        if rows[r, OFF_ME] == 15:
            winner, kind, _ = bg_game.result(bg_game.pass_turn(rows[r]), bg_game.SCORING_GAMMON)
            values[r] = kind if winner == rows[r, TURN] else -kind


class _Buffers:
    rows = np.empty((_ROW_CHUNK, STATE_LEN), dtype=np.int64)
    starts = np.empty(ROLLS.shape[0] + 1, dtype=np.int64)


def best_values(
    judge: Callable[[np.ndarray], npt.ArrayLike], state: np.ndarray
) -> npt.NDArray[np.float64]:
    """float64[21]: the judge's value, for the player on roll of state (mover's view; its dice
    ignored), after its best play of each of ROLLS: one judge call over all their afterstates
    (or judge.best_values(state) when the judge has it). ValueError/TypeError on a bad state."""
    from boardgym.envs.backgammon_notation import check_state

    state = check_state(state)
    if hasattr(judge, "best_values"):
        v = np.asarray(judge.best_values(state), dtype=np.float64)
        if v.shape != (ROLLS.shape[0],) or not np.isfinite(v).all():
            raise ValueError(f"judge.best_values must return 21 finite values, got {v.shape}")
        return v
    while True:
        n = _roll_afterstates(state, ROLLS, _Buffers.rows, _Buffers.starts)
        if n >= 0:
            break
        _Buffers.rows = np.empty((2 * _Buffers.rows.shape[0], STATE_LEN), dtype=np.int64)
    rows = _Buffers.rows[:n]
    values = np.asarray(judge(rows), dtype=np.float64)
    if values.shape != (n,) or not np.isfinite(values).all():
        raise ValueError(f"the judge must return {n} finite equities, got shape {values.shape}")
    return np.maximum.reduceat(values, _Buffers.starts[:-1])


def roll_luck(
    judge: Callable[[np.ndarray], npt.ArrayLike], state: np.ndarray, opening: bool = False
) -> float:
    """Luck of the roll in state (on roll, its whole roll in DICE) for the player on roll: the
    judge's value after its best play of that roll minus the mean over the 21 rolls (ROLL_WEIGHTS,
    or OPENING_WEIGHTS for the opening roll)."""
    from boardgym.envs.backgammon_notation import check_state

    d1, d2 = bg_game.dice_of(check_state(state))
    if d1 == 0:
        raise ValueError("the position has no whole roll to play (DICE)")
    v = best_values(judge, state)
    weights = OPENING_WEIGHTS if opening else ROLL_WEIGHTS
    return float(v[roll_index(d1, d2)] - weights @ v)


def game_luck(judge: Callable[[np.ndarray], npt.ArrayLike], rolls: Iterable[np.ndarray]) -> float:
    """Luck of player 0's rolls minus player 1's in one game, each times the cube value it was
    rolled at (1 in cubeless games); rolls: every roll's position in order
    (play_afterstate_game's rolls list; the first is the opening roll)."""
    total = 0.0
    for i, state in enumerate(rolls):
        luck = roll_luck(judge, state, opening=i == 0) * int(state[CUBE_VALUE])
        total += luck if state[TURN] == 0 else -luck
    return total


def exact_values(rows: npt.NDArray[np.int64], values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """values (float64[n], a judge's equities of afterstates rows int64[n, STATE_LEN]) with the
    exact points per cube unit (O.3: 1/2/3, for the player who moved) of each afterstate that
    ends the game."""
    values = np.array(values, dtype=np.float64)
    _exact_values(rows, rows.shape[0], values)
    return values


def td_judge(
    weights: str | os.PathLike[str] | Sequence[np.ndarray] | None = None,
) -> Callable[[npt.NDArray[np.int64]], npt.NDArray[np.float64]]:
    """The TD net (backgammon_agents.TDAgent; weights: as TDAgent's, None the shipped one) as a
    luck judge: rows -> cubeless money equities for the player who moved, batched; exact points
    for the afterstates that end the game (exact_values)."""
    from boardgym.agents.backgammon.agents import TDAgent

    agent = TDAgent(weights)
    return lambda rows: exact_values(rows, agent.scores(rows))
