"""RandomAgent: a uniformly random legal action, from its own seeded generator."""

from __future__ import annotations

import numpy as np

from boardgym.kernels.backgammon.game import N_ACTIONS as _BG_ACTIONS
from boardgym.kernels.backgammon.game import N_ACTIONS_CUBE as _BG_CUBE_ACTIONS
from boardgym.kernels.draughts.codec import N_ACTIONS as _DR_ACTIONS

# the action-space sizes of the boardgym envs (draughts; backgammon without and with the cube)
MASK_LENGTHS = (_DR_ACTIONS, _BG_ACTIONS, _BG_CUBE_ACTIONS)


def _check_mask(action_mask):
    """action_mask as a 1-D 0/1 array of a boardgym action space; TypeError / ValueError else."""
    if action_mask is None or isinstance(action_mask, (str, bytes, dict)):
        raise TypeError(f"action_mask must be a 0/1 array, got {type(action_mask).__name__}")
    mask = np.asarray(action_mask)
    if mask.dtype.kind not in "biu":
        raise TypeError(f"action_mask must hold 0/1 integers or bools, got dtype {mask.dtype}")
    if mask.ndim != 1 or mask.shape[0] not in MASK_LENGTHS:
        raise ValueError(
            f"action_mask must have shape (A,) with A one of {MASK_LENGTHS} "
            f"(a boardgym action space), got {mask.shape}"
        )
    return mask


class RandomAgent:
    """Picks uniformly among the actions the mask allows; works in every boardgym env."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None = None) -> None:
        """Re-seed the agent's generator."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: object, action_mask: np.ndarray) -> int:
        """A legal action index drawn uniformly from action_mask (int8 or bool, shape (A,), A an
        action-space size of a boardgym env: MASK_LENGTHS); the observation is not read."""
        legal = np.flatnonzero(_check_mask(action_mask))
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask allows no action")
        return int(legal[self.rng.integers(legal.size)])

    def best_move(self, fen: str) -> str:
        """Draughts: a whole move (PDN string) drawn uniformly from the legal moves of fen."""
        from boardgym.envs.draughts import legal_moves

        moves = legal_moves(fen)
        if not moves:
            raise ValueError(f"no legal move in {fen!r} (the game is over)")
        return moves[int(self.rng.integers(len(moves)))]

    def best_play(self, position_id: str, die1: int, die2: int) -> str:
        """Backgammon: an afterstate Position ID drawn uniformly from the legal plays."""
        from boardgym.envs.backgammon_notation import legal_plays

        plays = legal_plays(position_id, die1, die2)
        return plays[int(self.rng.integers(len(plays)))]
