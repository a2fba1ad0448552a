"""The batched draughts players (agents/draughts/batch_players.py): GreedyBatch's kernel picks
what GreedyAgent picks, the recapture player's first hops are legal."""

import numpy as np

from boardgym.agents.draughts.batch_players import GreedyBatch, recapture_actions
from boardgym.envs.batch import DraughtsBatch
from boardgym.kernels.draughts import game
from boardgym.kernels.draughts.board import MAX_HOPS, MAX_MOVES, ROW_LEN
from boardgym.kernels.rng import seed_rngs


def _positions(n, seed, plies=(4, 40)):
    """obs float32 (n, OBS_LEN) of n draughts games after random plies (mover's view)."""
    core = DraughtsBatch(n, opponent=None, max_moves=300)
    core.reset(seed)
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(*plies))):
        core.step(core.random_actions())
        core.reset_done()
    return core.obs.copy(), core.masks.copy()


def test_greedy_kernel_picks_what_greedy_agent_picks():
    """Random positions, chains in progress included: the kernel's first hop starts one of
    GreedyAgent's best-scored moves (its random tie-break aside), and the kernel is deterministic
    given the streams."""
    from boardgym.agents.draughts.agents import GreedyAgent
    from boardgym.agents.draughts.search import root_children
    from boardgym.envs.draughts import state_from_observation

    obs, _ = _positions(120, seed=11)
    greedy = GreedyBatch()
    actions = greedy.actions(obs, np.arange(len(obs)), seed_rngs(5, len(obs)))
    again = greedy.actions(obs, np.arange(len(obs)), seed_rngs(5, len(obs)))
    assert np.array_equal(actions, again)
    hops = np.zeros(MAX_HOPS, np.int64)
    for k in range(len(obs)):
        s = state_from_observation(obs[k])
        agent = GreedyAgent(seed=0)
        agent.choose_move(s)
        b = agent.buffers
        n = root_children(s, b.rows, b.children)
        scores = agent._scores[:n]
        best = set()
        for j in np.flatnonzero(scores == scores.max()):
            game.route_actions(s, b.rows[j], hops)
            best.add(int(hops[0]))
        assert int(actions[k]) in best, k


def test_recapture_member_plays_legal_first_hops():
    obs, masks = _positions(60, seed=4)
    out = np.zeros(len(obs), np.int64)
    rows = np.zeros((MAX_MOVES, ROW_LEN), np.int64)
    assert recapture_actions(obs, np.arange(len(obs)), seed_rngs(1, len(obs)), rows, out) == 0
    assert masks[np.arange(len(obs)), out].all()
