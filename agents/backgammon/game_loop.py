"""The afterstate game loop of backgammon: ``play_afterstate_game(agent0, agent1, rng)`` plays a
whole game of two AfterstateAgents (agents/backgammon/agents.py) or choosers through the game
core's afterstate loop (``start`` -> ``afterstates`` -> ``finish_turn``), the one the Numba
trainers (agents/backgammon/td.py) and the evaluation scripts use; seeded like
``backgammon_v0.reset(seed=...)``. With ``cube=True`` the money game with the doubling cube
(``game.begin_turn`` stopping at each cube decision, as the env's ``cube=True`` game), the agents
answering by ``cube_action``. The result is an ``AfterstateGame``; a ``rolls`` list receives every
roll's position, lost rolls included (what a luck judge needs, agents/backgammon/luck.py).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from boardgym.agents.backgammon.agents import AfterstateAgent
from boardgym.envs import backgammon_notation as notation
from boardgym.envs.seeding import check_seed
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import STATE_LEN, TURN
from boardgym.kernels.rng import seed_rngs

__all__ = ["AfterstateGame", "play_afterstate_game"]

AfterstateGame = namedtuple("AfterstateGame", "winner kind points rolls lost_rolls truncated")
AfterstateGame.__doc__ = """One game of play_afterstate_game: winner 0/1 (-1 if truncated), kind
1/2/3 (O.3), points for player 0 (negative when player 1 won; 0 if truncated), rolls made, lost
rolls (E.3/E.7), truncated (max_turns reached)."""


def _chooser(x, name):
    if isinstance(x, AfterstateAgent):
        return x._pick
    if callable(x):
        return x
    raise TypeError(
        f"{name} must be an AfterstateAgent or a callable (state, rows) -> index, "
        f"got {type(x).__name__}"
    )


def _dice_stream(rng):
    if isinstance(rng, np.ndarray):
        if rng.dtype != np.int64 or rng.shape != (1,):
            raise ValueError(
                f"rng must be an int64[1] SplitMix64 state, got {rng.dtype} {rng.shape}"
            )
        return rng
    if not notation.is_int(rng):
        raise TypeError(f"rng must be an integer seed or an int64[1] SplitMix64 state, got {rng!r}")
    return seed_rngs(check_seed(rng), 1)  # the seeds backgammon_v0.reset takes


def play_afterstate_game(
    choose0: AfterstateAgent | Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], int],
    choose1: AfterstateAgent | Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], int],
    rng: int | npt.NDArray[np.int64],
    max_turns: int | None = None,
    scoring: str = "gammon",
    rolls: list[npt.NDArray[np.int64]] | None = None,
    cube: bool = False,
) -> AfterstateGame:
    """Play one game through the game core's afterstate loop -> AfterstateGame (cubeless, or
    with cube=True the money game with the doubling cube, C.1-C.2).

    choose0 / choose1 play player 0 / 1: an AfterstateAgent, or a callable
    ``(state, rows) -> index`` given the position on roll (int64[STATE_LEN], mover's view, its
    dice set) and the distinct afterstates of its roll (int64[n, STATE_LEN], game.afterstates).
    rng: an integer seed (the dice of ``backgammon_v0.reset(seed=rng)``) or an int64[1]
    SplitMix64 state advanced in place. max_turns: rolls before the game is truncated (None: no
    cap). scoring: "gammon" (1/2/3 points) or "single". rolls: None, or a list to which every
    roll is appended in order as the position on roll with that roll's dice set (int64[STATE_LEN],
    mover's view), lost rolls (E.3/E.7) included: what a luck judge needs. cube: before each
    roll on which the player on roll may double, an AfterstateAgent answers by its
    ``cube_action`` (its cube policy; a callable never doubles and always takes); the game's
    points are multiplied by the cube, a dropped double pays the cube's value before the double
    (kind 0), as in ``backgammon_v0.raw_env(cube=True)`` with the same seed."""
    choosers = (_chooser(choose0, "choose0"), _chooser(choose1, "choose1"))
    stream = _dice_stream(rng)
    cap = notation.check_max_turns(max_turns)
    code = notation.check_scoring(scoring)
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    passes = game.no_passes() if rolls is None else np.zeros((64, 3), np.int64)
    if cube:
        return _play_cube_game((choose0, choose1), choosers, stream, cap, code, rows, passes, rolls)
    state, status, made, lost = game.start(stream, cap, passes)
    while status == game.ROLLED:
        k = _choose(choosers, state, rows, rolls)
        state, status, made, l = game.finish_turn(rows[k], stream, made, cap, passes)
        if rolls is not None and l:
            _record_lost_rolls(rows[k], passes, l, rolls)
        lost += l
    return _finished(state, code, made, lost)


def _finished(state, code, made, lost):
    """The AfterstateGame of a game that stopped at state (scoring code): its result, or
    truncated when no one has won."""
    winner, kind, points = game.result(state, code)
    if winner < 0:
        return AfterstateGame(-1, 0, 0, int(made), int(lost), True)
    return AfterstateGame(
        int(winner), int(kind), int(points if winner == 0 else -points), int(made), int(lost), False
    )


def _choose(choosers, state, rows, rolls):
    """The index of the afterstate (into rows, filled here) the player on roll of state chooses
    (rolls: a list recording the rolled states, or None); ValueError if the chooser returns
    anything else."""
    if rolls is not None:
        rolls.append(state.copy())
    n = game.afterstates(state, rows)
    k = choosers[int(state[TURN])](state, rows[:n])
    if not notation.is_int(k) or not 0 <= k < n:
        raise ValueError(
            f"the chooser of player {int(state[TURN])} returned {k!r}, "
            f"not an index 0..{n - 1} of the afterstates"
        )
    return k


def _cube_answer(agent, state, offered):
    """The cube action of a seat (an AfterstateAgent's cube_action; a callable: cubeless)."""
    if isinstance(agent, AfterstateAgent):
        return agent.cube_action(state, offered)
    return game.ACTION_TAKE if offered else game.ACTION_ROLL


def _play_cube_game(seats, choosers, stream, cap, code, rows, passes, rolls):
    """play_afterstate_game with the doubling cube (the turn sequence of the env's cube game:
    game.begin_turn stops at CUBE_DECISION, then goes on with cube_decided)."""
    state, status, made, lost = game.start(stream, cap, passes)
    while True:
        if status == game.CUBE_DECISION:
            mover = int(state[TURN])
            if _cube_answer(seats[mover], state, False) == game.ACTION_DOUBLE:
                if _cube_answer(seats[1 - mover], state, True) == game.ACTION_DROP:
                    winner, _, points = game.dropped_result(state)
                    return AfterstateGame(
                        int(winner),
                        0,
                        int(points if winner == 0 else -points),
                        int(made),
                        int(lost),
                        False,
                    )
                state = game.take_double(state)
            before = state
            state, status, made, l = game.begin_turn(
                state, stream, 0, 0, True, True, made, cap, passes
            )
        elif status == game.ROLLED:
            k = _choose(choosers, state, rows, rolls)
            before = game.pass_turn(rows[k])
            if game.result(before, code)[0] >= 0:
                state = before
                break
            state, status, made, l = game.begin_turn(
                before, stream, 0, 0, True, False, made, cap, passes
            )
        else:
            break
        if rolls is not None and l:
            _record_passes(before, passes, l, rolls)
        lost += l
    return _finished(state, code, made, lost)


def _record_passes(s, passes, n_lost, rolls):
    """Append the positions of the n_lost lost rolls from s (on roll, before them)."""
    if n_lost > passes.shape[0]:
        raise RuntimeError(
            f"{n_lost} lost rolls in a row: more than the {passes.shape[0]} a roll record holds"
        )
    for i in range(n_lost):
        rolls.append(game.set_roll(s, int(passes[i, 1]), int(passes[i, 2])))
        s = game.pass_turn(s)


def _record_lost_rolls(afterstate, passes, n_lost, rolls):
    """Append the positions of the n_lost lost rolls that followed afterstate (passes: their
    player, die, die, as game.begin_turn records them; each lost roll passes the turn, E.3/E.7)."""
    if n_lost > passes.shape[0]:
        raise RuntimeError(
            f"{n_lost} lost rolls in a row: more than the {passes.shape[0]} a roll record holds"
        )
    s = game.pass_turn(afterstate)
    for i in range(n_lost):
        rolls.append(game.set_roll(s, int(passes[i, 1]), int(passes[i, 2])))
        s = game.pass_turn(s)
