"""Engine-style queries for agents that only answer ``act(observation, action_mask)``.

``best_move(agent, fen)`` (draughts) and ``best_play(agent, position_id, die1, die2)``
(backgammon) set the position up in the AEC env, let the agent play its actions until its move
or turn is over, and report it the way the search agents do: a PDN move string (one of
``boardgym.envs.draughts.legal_moves(fen)``) or the Position ID of the afterstate (one of
``boardgym.envs.backgammon_notation.legal_plays(position_id, die1, die2)``). Legality comes from
the env, which raises on an action outside the mask.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from boardgym.envs import backgammon_notation as bg_api
from boardgym.envs import draughts as dr_api

if TYPE_CHECKING:
    from boardgym.agents.registry import Agent


def _play_while(env, agent, playing):
    """Step the agent's actions while playing() holds and the game goes on."""
    while not env.is_over and playing():
        obs = env.observe(env.agent_selection)
        env.step(int(agent.act(obs["observation"], obs["action_mask"])))


def best_move(agent: Agent, fen: str) -> str:
    """PDN string of the whole move (capture chains included) the agent plays from fen."""
    from boardgym.envs import russian_draughts_v0
    from boardgym.kernels.draughts.board import S_BK, S_BM, S_WK, S_WM

    moves = dr_api.legal_moves(fen)  # ValueError for a malformed FEN
    if not moves:
        raise ValueError(f"no legal move in {fen!r} (the game is over)")
    if len(moves) == 1:
        return moves[0]
    env = russian_draughts_v0.raw_env()
    env.reset(options={"fen": fen})
    mover = (
        env.agent_selection
    )  # a draughts move (capture chain included) ends when the turn passes
    _play_while(env, agent, lambda: env.agent_selection == mover)
    pieces = [S_WM, S_WK, S_BM, S_BK]
    end = np.asarray(env.state)[pieces]
    for m in moves:
        if np.array_equal(dr_api.apply(fen, m)[pieces], end):
            return m
    raise RuntimeError(f"internal: the agent's hops from {fen!r} match no legal move")


def best_play(agent: Agent, position_id: str, die1: int, die2: int) -> str:
    """Position ID of the afterstate the agent's checker moves reach with the roll die1-die2."""
    from boardgym.envs import backgammon_v0
    from boardgym.kernels.backgammon.board import TURN, end_turn

    d1, d2 = bg_api.check_dice(die1, die2)
    plays = bg_api.legal_plays(position_id, d1, d2)  # ValueError for a bad Position ID
    if len(plays) == 1:  # forced, or no move at all (the position itself)
        return plays[0]
    env = backgammon_v0.raw_env()
    env.reset(seed=0, options={"position_id": position_id, "dice": [d1, d2]})
    player = int(env.state[TURN])
    # The play ends when the env records the next turn (B.4-B.5: the dice are used up or nothing
    # more can move), not when the acting player changes: after the opponent's roll is lost
    # (E.3, E.7) the same player is on roll again, with a new roll it must not play here.
    turns = len(env.turns)
    _play_while(env, agent, lambda: len(env.turns) == turns)
    s = np.asarray(env.state)  # the next turn's position (board as the play left it) or the end
    after = bg_api.position_id(end_turn(s) if int(s[TURN]) != player else s)
    if after not in plays:
        raise RuntimeError(
            f"internal: the agent's play from {position_id} {d1}-{d2} is not among the legal plays"
        )
    return after
