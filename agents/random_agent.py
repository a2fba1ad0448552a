"""RandomAgent: a uniformly random legal action, from its own seeded generator."""
import numpy as np


class RandomAgent:
    """Picks uniformly among the actions the mask allows; works in every boardgym env."""

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def seed(self, seed=None):
        """Re-seed the agent's generator."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation, action_mask):
        """A legal action index drawn uniformly from action_mask (int8 or bool, shape (A,))."""
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask allows no action")
        return int(legal[self.rng.integers(legal.size)])

    def best_move(self, fen):
        """Draughts: a whole move (PDN string) drawn uniformly from the legal moves of fen."""
        from boardgym.envs.draughts import legal_moves
        moves = legal_moves(fen)
        if not moves:
            raise ValueError(f"no legal move in {fen!r} (the game is over)")
        return moves[int(self.rng.integers(len(moves)))]

    def best_play(self, position_id, die1, die2):
        """Backgammon: an afterstate Position ID drawn uniformly from the legal plays."""
        from boardgym.envs.backgammon_notation import legal_plays
        plays = legal_plays(position_id, die1, die2)
        return plays[int(self.rng.integers(len(plays)))]
