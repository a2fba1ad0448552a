"""The batched backgammon player (agents/backgammon/batch_players.py): the greedy member plays a
best play of the in-kernel greedy player."""

import numpy as np

from boardgym.agents.backgammon.batch_players import backgammon_greedy_actions


def test_backgammon_greedy_member_plays_a_best_play_of_the_in_kernel_greedy_player():
    """Move by move (re-choosing among the ways to finish the play), the member ends its turn in
    one of the afterstates the in-kernel greedy player scores best."""
    from boardgym.envs.batch import BackgammonBatch
    from boardgym.kernels.backgammon import game as bg
    from boardgym.kernels.backgammon.board import TURN
    from boardgym.kernels.backgammon.opponents import greedy_score

    core = BackgammonBatch(24, opponent=None, max_turns=500)
    core.reset(3)
    rng = np.random.default_rng(3)
    for _ in range(int(rng.integers(10, 30))):
        core.step(core.random_actions())
        core.reset_done()
    rows = np.zeros((bg.MAX_AFTERSTATES, bg.STATE_LEN), np.int64)
    out = np.zeros(1, np.int64)
    checked = 0
    for s0 in core.states[~core.done.any(1).astype(bool)]:
        if bg.dice_left(s0) == 0 or not bg.can_move(s0):
            continue
        n = bg.afterstates(s0, rows)
        scores = np.array([greedy_score(rows[k]) for k in range(n)])
        s, mover = s0.copy(), s0[TURN]
        mask = np.zeros(bg.N_ACTIONS, np.int8)
        while s[TURN] == mover:
            assert backgammon_greedy_actions(s[None, :].copy(), out) == 0
            bg.legal_mask(s, False, False, mask)
            assert mask[out[0]] == 1
            s = bg.apply(s, out[0])
        ends = [k for k in range(n) if np.array_equal(bg.pass_turn(rows[k]), s)]
        assert ends and max(scores[ends]) == scores.max()
        checked += 1
    assert checked >= 5
