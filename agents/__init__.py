"""boardgym.agents: policies; legality always comes from the kernels (through the action mask).

Every agent answers ``act(observation, action_mask) -> action``.
"""
from boardgym.agents.random_agent import RandomAgent

__all__ = ["RandomAgent"]
