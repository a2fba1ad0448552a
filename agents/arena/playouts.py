"""The one sampler of playout positions: where benchmarks, tests and varied starts get positions.

Draughts (``draughts_positions``): games of random or one-ply greedy whole moves, from the start
or from a seeded ballot (``openings.read_ballots``), for a seeded number of plies in a range,
kept when they pass a filter (the game goes on with at least ``min_moves`` legal moves), as
int64 position vectors. A seed gives one stream of positions: the generator draws, in this
order, the greedy player's seed (greedy only), then per playout the ballot, its length and its
moves. Random moves are drawn uniformly from the game core's move rows (``order="core"``) or
from the sorted PDN strings of ``envs.draughts.legal_moves`` (``order="pdn"``).
``ballot_positions`` gives the 150 ballots' FENs; ``random_opening`` and ``opening_positions``
draw random openings action by action through the AEC env, as the match harness plays them.

Backgammon (``backgammon_rolls``): the rolls of random games played through the game core (each
turn a uniformly random distinct afterstate), as (position, dice) cases, in a Numba loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.envs import draughts as api
from boardgym.kernels.backgammon.board import STATE_LEN
from boardgym.kernels.backgammon.dice import new_rng
from boardgym.kernels.backgammon.game import ROLLED, afterstates, dice_of, finish_turn, start
from boardgym.kernels.backgammon.movegen import MAX_AFTERSTATES
from boardgym.kernels.draughts import game
from boardgym.kernels.draughts.board import M_CAPTURED, MAX_MOVES, ROW_LEN
from boardgym.kernels.rng import rand_below

if TYPE_CHECKING:
    from boardgym.envs import russian_draughts_v0

__all__ = [
    "draughts_positions",
    "ballot_positions",
    "random_opening",
    "opening_positions",
    "backgammon_rolls",
]

ORDERS = ("core", "pdn")
POLICIES = ("random", "greedy")


# ============================================================================ draughts


def _check_count(n, name="n"):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"{name} must be a positive integer, got {n!r}")


def draughts_positions(
    n: int,
    seed: int | None,
    plies: tuple[int, int],
    *,
    policy: str = "random",
    ballots: Sequence[tuple[str, Sequence[str]]] | None = None,
    order: str = "core",
    min_moves: int = 1,
    through_draws: bool = False,
    capture_every: int = 0,
) -> list[npt.NDArray[np.int64]]:
    """n draughts position vectors (list of int64[STATE_LEN]) of seeded playouts.

    plies: (fewest, most) whole moves of a playout (drawn uniformly, both included); policy:
    "random" or "greedy" (GreedyAgent, seeded from the stream); ballots: None (from the start)
    or [(name, [PDN moves])] to start each playout from one drawn at random; order: how random
    moves are listed ("core": game-core rows, "pdn": sorted PDN strings); min_moves: keep a
    position when the game goes on there with at least this many legal moves (0: keep every
    position, over or not); through_draws: play on through G.2 draws (stop only when the side
    to move has no move) instead of stopping at game over; capture_every: k > 0 makes every
    k-th position one where a capture is due (its playout goes on past its length until one is).
    """
    _check_count(n)
    lo, hi = plies
    if not (isinstance(lo, (int, np.integer)) and isinstance(hi, (int, np.integer))):
        raise TypeError(f"plies must be two integers (fewest, most), got {plies!r}")
    if not 0 <= lo <= hi:
        raise ValueError(f"need 0 <= fewest <= most plies, got {plies!r}")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    if policy == "greedy" and order != "core":
        raise ValueError("order is the random policy's; greedy play has none")
    if ballots is not None and len(ballots) == 0:
        raise ValueError("ballots must be None or a non-empty list of (name, moves)")
    if not (isinstance(min_moves, (int, np.integer)) and min_moves >= 0):
        raise ValueError(f"min_moves must be a non-negative integer, got {min_moves!r}")
    if not (isinstance(capture_every, (int, np.integer)) and capture_every >= 0):
        raise ValueError(f"capture_every must be a non-negative integer, got {capture_every!r}")
    rng = np.random.default_rng(seed)
    greedy = None
    if policy == "greedy":
        from boardgym.agents.draughts.agents import GreedyAgent

        greedy = GreedyAgent(seed=int(rng.integers(2**31)))
    buf = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    out = []
    while len(out) < n:
        s = game.initial_state()
        if ballots is not None:
            for mv in ballots[int(rng.integers(len(ballots)))][1]:
                s = api.apply(s, mv)
        stop = int(rng.integers(lo, hi + 1))
        want_capture = capture_every > 0 and len(out) % capture_every == capture_every - 1
        ply = 0
        while True:
            if not through_draws and game.game_status(s) != game.ONGOING:
                break
            k = game.gen_moves(s, buf)
            if k == 0:
                break
            if ply >= stop and (not want_capture or buf[0, M_CAPTURED] != 0):
                break
            if greedy is not None:
                s = game.play_move(s, greedy.choose_move(s)[0])
            elif order == "pdn":
                s = api.apply(s, str(rng.choice(api.legal_moves(s))))
            else:
                s = game.play_move(s, buf[int(rng.integers(k))])
            ply += 1
        if min_moves == 0 or (
            game.game_status(s) == game.ONGOING and game.gen_moves(s, buf) >= min_moves
        ):
            out.append(s)
    return out


def ballot_positions() -> list[str]:
    """FENs of the 150 three-move ballots (agents/arena/data/draughts_ballots.tsv) after their
    moves."""
    from boardgym.agents.arena.openings import read_ballots

    out = []
    for _, moves in read_ballots():
        state = api.initial_state()
        for mv in moves:
            state = api.apply(state, mv)
        out.append(api.to_fen(state))
    return out


def random_opening(env: russian_draughts_v0.raw_env, seed: int | None, n_moves: int) -> list[int]:
    """Actions of n_moves random whole moves from the start (a chain's hops are one move)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    actions, moves = [], 0
    while moves < n_moves and not env.is_over:
        mover = env.agent_selection
        a = int(rng.choice(np.flatnonzero(env.legal_mask())))
        env.step(a)
        actions.append(a)
        if env.is_over or env.agent_selection != mover:
            moves += 1
    return actions


def opening_positions(seed: int | None, n: int, opening: tuple[int, int] = (2, 4)) -> list[str]:
    """FENs of n draughts positions, each reached by a seeded number (opening: fewest, most) of
    random whole moves from the start (random_opening; positions where the side to move is
    stuck are skipped): varied starts for the batched cores (``DraughtsBatch(openings=...)``),
    drawn as ``evaluate``'s openings are."""
    from boardgym.envs.russian_draughts_v0 import raw_env

    lo, hi = opening
    if not 0 <= lo <= hi:
        raise ValueError(f"need 0 <= fewest <= most opening moves, got {opening!r}")
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    env = raw_env(max_moves=None)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        pair_seed = int(rng.integers(2**31))
        random_opening(env, pair_seed, int(rng.integers(lo, hi + 1)))
        if not env.is_over:
            out.append(api.to_fen(env.state))
    return out


# ============================================================================ backgammon


@njit(cache=True)
def _random_games(rng, states, dice, out):
    """Fill states/dice (int64[n, STATE_LEN], int64[n, 2]) with the rolls of random games played
    through the game core: each turn a uniformly random distinct afterstate (rng: int64[1])."""
    passes = np.empty((0, 3), dtype=np.int64)
    k, n = 0, states.shape[0]
    while k < n:
        s, status, rolls, _ = start(rng, 0, passes)
        while status == ROLLED and k < n:
            states[k] = s
            dice[k, 0], dice[k, 1] = dice_of(s)
            k += 1
            m = afterstates(s, out)
            s, status, rolls, _ = finish_turn(out[rand_below(rng, 0, m)], rng, rolls, 0, passes)
    return k


def backgammon_rolls(n: int, seed: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """n (position, roll) cases of seeded random backgammon games: (states int64[n, STATE_LEN],
    dice int64[n, 2]: high die first), each state on roll with those dice (mover's view)."""
    _check_count(n)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    states = np.empty((n, STATE_LEN), dtype=np.int64)
    dice = np.empty((n, 2), dtype=np.int64)
    _random_games(
        new_rng(seed), states, dice, np.empty((MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    )
    return states, dice
