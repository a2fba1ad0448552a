"""boardgym.agents: policies; legality always comes from the kernels (through the action mask).

Every agent answers ``act(observation, action_mask) -> action`` in the AEC and Gymnasium envs,
for either seat. Agents that search also answer ``act_state(state) -> action`` on the kernel
position (``env.unwrapped.state``: full repetition history and counters; the action is in the
side to move's frame, like ``act``), and draughts agents ``best_move(fen) -> str`` (PDN move).

- ``RandomAgent`` (random_agent.py): any game.
- ``DraughtsGreedyAgent``, ``AlphaBetaAgent`` (draughts/agents.py): Russian draughts; the search
  kernel is draughts/search.py, the evaluations (material/positional, linear, MLP, MLP with
  evaluation features) draughts/evaluation.py; the shipped learned evaluation is
  checkpoints/draughts-alphabeta.npz (fitted by training/eval_fit.py, ``boardgym train-eval``).
- ``TDAgent``, ``GreedyAgent``, ``ExpectimaxAgent`` for backgammon (backgammon/agents.py; the
  net in backgammon/net.py, its Numba TD(lambda) loop in backgammon/td.py; shipped net
  checkpoints/backgammon-td.npz).
- ``PPOAgent`` (ppo.py): MaskablePPO policies at play time (the self-play trainer is
  training/ppo.py); shipped checkpoints/draughts-ppo.pt.
- ``RLlibAgent``, ``MaskedPPOModule`` (rllib_module.py): Ray RLlib action-masking module.
- ``load(name, game=None, **kwargs)``, ``load_spec(spec)``, ``available(game=None)``,
  ``register`` (registry.py: the one loader of names, specs and checkpoint paths).

Matches, sessions, openings, playouts and statistics are in arena/; the training drivers on one
run lifecycle in training/.
"""

from __future__ import annotations

from boardgym.agents.random_agent import RandomAgent
from boardgym.agents.registry import available, load, load_spec, register

__all__ = [
    "RandomAgent",
    "DraughtsGreedyAgent",
    "AlphaBetaAgent",
    "Evaluation",
    "TDAgent",
    "BackgammonGreedyAgent",
    "ExpectimaxAgent",
    "PPOAgent",
    "load",
    "load_spec",
    "available",
    "register",
]


def __getattr__(name: str) -> type:
    if name in ("DraughtsGreedyAgent", "AlphaBetaAgent"):
        from boardgym.agents.draughts import agents as draughts_agents

        return getattr(draughts_agents, "GreedyAgent" if name == "DraughtsGreedyAgent" else name)
    if name == "Evaluation":
        from boardgym.agents.draughts.evaluation import Evaluation

        return Evaluation
    if name in ("TDAgent", "BackgammonGreedyAgent", "ExpectimaxAgent"):
        from boardgym.agents.backgammon import agents as backgammon_agents

        return getattr(
            backgammon_agents, "GreedyAgent" if name == "BackgammonGreedyAgent" else name
        )
    if name == "PPOAgent":
        from boardgym.agents.ppo import PPOAgent

        return PPOAgent
    raise AttributeError(f"module 'boardgym.agents' has no attribute {name!r}")
