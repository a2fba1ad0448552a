"""Backgammon matches played here, game by game, as match records (envs/backgammon_match.py).

Two agents: each seat plays its checkers greedily (the backgammon-greedy agent) or at random
(``players``, default greedy against random); both decide the cube at random (double, take) with
the given rates. The score is the game core's match state (MP.1-MP.6): a game's points are the
env's result (gammons count, times the cube), the Crawford game is played without the cube, and
no one doubles past the match's cube limit. A game may end in a resignation instead: the side
to act gives up 1, 2 or 3 times the cube (resign_rate per turn).
"""

import random

import numpy as np

from boardgym.agents import registry
from boardgym.envs import backgammon_v0
from boardgym.envs.backgammon_checks import new_match
from boardgym.kernels.backgammon import game as core
from boardgym.kernels.backgammon.board import CUBE_VALUE

_GREEDY = None


def _greedy():
    global _GREEDY
    if _GREEDY is None:
        _GREEDY = registry.load("backgammon-greedy")
    return _GREEDY


def play_game(
    seed,
    cube=True,
    double_rate=0.1,
    take_rate=0.7,
    resign_rate=0.0,
    players=("greedy", "random"),
    rng=None,
    cube_limit=core.MATCH_CUBE_LIMIT,
):
    """(env, record) of one game: record is {turns, winner, points} (points None while a
    game is unfinished), winner/points of a resignation when one happened."""
    rng = rng or random.Random(seed)
    env = backgammon_v0.raw_env(scoring="gammon", cube=cube)
    env.reset(seed=seed)
    while not env.is_over:
        mask = env.legal_mask()
        offered = mask.shape[0] > core.N_ACTIONS and mask[core.ACTION_TAKE]
        if resign_rate and not offered and len(env.turns) > 2 and rng.random() < resign_rate:
            loser = int(env.agent_selection[-1])
            points = rng.choice((1, 2, 3)) * int(env.state[CUBE_VALUE])
            record = env.game_record()
            record.update(winner=1 - loser, points=points)
            return env, record
        if mask.shape[0] > core.N_ACTIONS and not mask[: core.N_ACTIONS].any():
            if offered:
                action = core.ACTION_TAKE if rng.random() < take_rate else core.ACTION_DROP
            elif (
                mask[core.ACTION_DOUBLE]
                and env.state[CUBE_VALUE] < cube_limit
                and rng.random() < double_rate
            ):
                action = core.ACTION_DOUBLE
            else:
                action = core.ACTION_ROLL
        elif players[int(env.agent_selection[-1])] == "greedy":
            action = _greedy().act_state(env.state)
        else:
            action = rng.choice(np.flatnonzero(mask[: core.N_ACTIONS]).tolist())
        env.step(int(action))
    return env, env.game_record()


def play_match(match_length, seed, **rates):
    """The game records of one match to match_length points (each with its score before it)."""
    rng = random.Random(seed)
    games, m = [], new_match(match_length)
    while not core.match_over(m):
        limit = int(core.game_cube_limit(m))
        record = {"winner": None}
        while record["winner"] is None:  # a position where no side can ever move: play again
            _, record = play_game(
                seed * 1000 + len(games), cube=limit > 1, rng=rng, cube_limit=limit, **rates
            )
        games.append({**record, "score": [int(m[core.M_SCORE + p]) for p in (0, 1)]})
        core.match_award(m, record["winner"], record["points"])
    return games
