"""Mask/play consistency and random self-play invariants for the backgammon kernel.

Consistency (B.5/B.6 through the atomic codec): from random positions with random dice, every
sequence of masked actions (enumerated exhaustively) ends in one of gen_afterstates's plays, and
every play is reached. Invariants over random self-play through apply_action with the kernel's
own RNG dice: 15 checkers a side, no point shared, occupancy bitboards match the counts, a mask
is non-empty exactly when a move exists, and games end.
"""

import numpy as np
import pytest
from bg_random_games import random_cases as random_positions

from boardgym.kernels.backgammon import board as B
from boardgym.kernels.backgammon.codec import (
    N_ACTIONS,
    apply_action,
    has_legal_move,
    legal_action_mask,
)
from boardgym.kernels.backgammon.dice import new_rng, next_u64, roll_dice
from boardgym.kernels.backgammon.movegen import MAX_AFTERSTATES, gen_afterstates, max_dice_usable
from boardgym.kernels.backgammon.outcome import game_over, outcome


def reachable(s, acc):
    """Add to acc the placement each masked action sequence from s ends in (before the flip)."""
    m = np.zeros(N_ACTIONS, dtype=np.int8)
    n = legal_action_mask(s, m)
    assert n == int(m.sum())
    if n == 0:
        acc.add(s[: B.BOARD_LEN].tobytes())
        return
    for a in np.flatnonzero(m):
        t = apply_action(s, a)
        if t[B.TURN] != s[B.TURN]:
            acc.add(B.end_turn(t)[: B.BOARD_LEN].tobytes())
        else:
            reachable(t, acc)


def test_masked_sequences_reach_exactly_the_legal_plays():
    cases = random_positions(300, seed=11)
    out = np.empty((MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    with_bar = bearing_off = doubles = 0
    for s, d1, d2 in cases:
        k = gen_afterstates(s, d1, d2, out)
        legal = {out[j, : B.BOARD_LEN].tobytes() for j in range(k)}
        assert len(legal) == k  # B.6: no play listed twice
        ref = out[:k].copy()
        for j in range(k):
            B.refresh_masks(ref[j])
        assert (ref == out[:k]).all()  # bitboards of every afterstate match its counts
        assert (out[:k, B.DICE : B.DICE + 6] == 0).all()
        got = set()
        reachable(B.set_dice(s, d1, d2), got)
        assert got == legal, (s.tolist(), d1, d2)
        with_bar += s[B.BAR_ME] > 0
        bearing_off += (s[B.BB_ME] & ~B.BB_HOME) == 0 and s[B.BAR_ME] == 0
        doubles += d1 == d2
    assert with_bar >= 10 and bearing_off >= 10 and doubles >= 30


def self_play(n_moves, seed):
    """Random self-play through apply_action; returns (moves, games finished, longest game)."""
    rng = new_rng(seed)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    s = B.new_initial_state()
    s = B.set_dice(s, *roll_dice(rng))
    moves = games = game_len = longest = 0
    while moves < n_moves:
        n = legal_action_mask(s, mask)
        assert (n > 0) == bool(has_legal_move(s)) == (max_dice_usable(s) > 0)
        if n == 0:  # no legal move: the turn passes
            s = B.end_turn(s)
        else:
            acts = np.flatnonzero(mask)
            s = apply_action(s, acts[(next_u64(rng) & 0x7FFFFFFF) % n])
            moves += 1
            game_len += 1
        # invariants
        me = s[B.ME : B.ME + 24]
        op = s[B.OPP : B.OPP + 24]
        assert me.min() >= 0 and op.min() >= 0
        assert me.sum() + s[B.BAR_ME] + s[B.OFF_ME] == 15
        assert op.sum() + s[B.BAR_OPP] + s[B.OFF_OPP] == 15
        assert not np.any((me > 0) & (op > 0))
        ref = s.copy()
        B.refresh_masks(ref)
        assert (ref[B.BB_ME :] == s[B.BB_ME :]).all()
        if game_over(s):
            w, kind = outcome(s)
            assert w in (0, 1) and kind in (1, 2, 3)
            games += 1
            longest = max(longest, game_len)
            game_len = 0
            s = B.new_initial_state()
        if s[B.DICE : B.DICE + 6].sum() == 0:
            s = B.set_dice(s, *roll_dice(rng))
    return moves, games, longest


def test_self_play_invariants_100k():
    moves, games, longest = self_play(100_000, seed=1)
    assert moves == 100_000 and games >= 200 and longest < 2_000


@pytest.mark.slow
def test_self_play_invariants_1m():
    moves, games, longest = self_play(1_000_000, seed=2)
    assert games >= 2_000 and longest < 2_000


def test_scratch_variant_and_small_buffers():
    from boardgym.kernels.backgammon.movegen import gen_afterstates_scratch, scratch_size

    out = np.empty((MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    out2 = np.empty((MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    sc = np.empty(scratch_size(MAX_AFTERSTATES), dtype=np.int64)
    for s, d1, d2 in random_positions(300, seed=12):
        k = gen_afterstates(s, d1, d2, out)
        assert gen_afterstates_scratch(s, d1, d2, out2, sc) == k
        assert (out[:k] == out2[:k]).all()
    small = np.empty((3, B.STATE_LEN), dtype=np.int64)
    assert gen_afterstates(B.new_initial_state(), 3, 1, small) == -1  # 16 plays do not fit
    assert gen_afterstates(B.new_initial_state(), 4, 4, small) == -1
    assert (
        gen_afterstates_scratch(B.new_initial_state(), 3, 1, out, sc[:10]) == -1
    )  # scratch too small


def test_every_route_is_a_masked_action_sequence_reaching_its_afterstate():
    """game.plays: each afterstate comes with a route; replayed action by action it is always
    masked (B.5) and ends in that afterstate (bear-offs, the bar, doubles and partial plays)."""
    from boardgym.kernels.backgammon import game

    rows = np.empty((MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    plain = np.empty((MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    routes = np.empty((MAX_AFTERSTATES, game.MAX_MOVES, game.MV_FIELDS), dtype=np.int64)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    lengths = set()
    for s, d1, d2 in random_positions(400, seed=13):
        rolled = B.set_dice(s, d1, d2)
        n = game.plays(rolled, rows, routes)
        assert n == game.afterstates(rolled, plain) == gen_afterstates(s, d1, d2, plain)
        for k in range(n):
            t = rolled
            moves = [m for m in routes[k] if m[0] > 0]
            lengths.add(len(moves))
            assert all(m[0] == 0 for m in routes[k, len(moves) :])
            for frm, to, die, hit in moves:
                game.legal_mask(t, False, False, mask)
                a = game.encode_action(frm, die)
                assert mask[a] == 1, (s.tolist(), d1, d2, routes[k].tolist())
                assert game.move_of_action(t, a) == (frm, to, die, hit)
                t = game.apply(t, a)
            if moves:
                assert t[B.TURN] != s[B.TURN]  # the play is whole: the turn passed
                t = B.end_turn(t)
            assert (t[: B.BOARD_LEN] == rows[k, : B.BOARD_LEN]).all()
    assert lengths == {0, 1, 2, 3, 4}
