"""Hop level (codec): every sequence of masked actions ends in exactly the set of gen_moves.

Covers 25.1-25.5 at the hop level: compulsory capture, chains continued hop by hop, Turkish
strike (jumped pieces block), 25.4 landing squares and crowning mid-capture.
"""

import numpy as np

from boardgym.kernels.draughts.board import (
    GHOST_TO_SQ32,
    M_CAPTURED,
    M_FROM,
    M_TO,
    MAX_MOVES,
    ROW_LEN,
    S_BK,
    S_BM,
    S_CAP_SQ,
    S_SIDE,
    S_WK,
    S_WM,
)
from boardgym.kernels.draughts.codec import apply_action, legal_action_mask
from boardgym.kernels.draughts.move import apply_move
from boardgym.kernels.draughts.movegen import gen_moves


def enemy(s, side):
    return int(s[S_BM] | s[S_BK]) if side == 0 else int(s[S_WM] | s[S_WK])


def outcomes_by_actions(state):
    """{(from_sq32, to_sq32, captured, resulting state)} over all complete action sequences."""
    side = int(state[S_SIDE])
    before = enemy(state, side)
    found = set()
    mask = np.empty(1024, dtype=np.int8)

    def walk(s, start):
        n = legal_action_mask(s, mask)
        acts = np.flatnonzero(mask)
        assert len(acts) == n
        if s[S_CAP_SQ] >= 0:
            assert n > 0, "a chain in progress must be able to continue"
            mid_chain.append(s)
        for a in acts:
            t = apply_action(s, np.int64(a))
            st = int(a) // 32 if start < 0 else start
            if t[S_CAP_SQ] >= 0:
                walk(t, st)
            else:
                found.add((st, int(a) % 32, before & ~enemy(t, side), tuple(t.tolist())))

    mid_chain = []
    walk(state, -1)
    for s in mid_chain:  # gen_moves mid-chain lists the ways to finish the chain
        assert continuations_by_moves(s) == {
            (e, c) for _, e, c, _ in outcomes_from(s, side, before)
        }
    return found


def outcomes_from(state, side, before):
    """(start, end, captured, state) reached from a mid-chain state by every action sequence."""
    found = set()
    mask = np.empty(1024, dtype=np.int8)

    def walk(s):
        legal_action_mask(s, mask)
        for a in np.flatnonzero(mask):
            t = apply_action(s, np.int64(a))
            if t[S_CAP_SQ] >= 0:
                walk(t)
            else:
                found.add((-1, int(a) % 32, before & ~enemy(t, side), tuple(t.tolist())))

    walk(state)
    return found


def continuations_by_moves(state):
    """{(end_sq32, whole captured set)} of gen_moves on a mid-chain state."""
    buf = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    k = gen_moves(state, buf)
    return {(int(GHOST_TO_SQ32[r[M_TO]]), int(r[M_CAPTURED])) for r in buf[:k]}


def outcomes_by_moves(state):
    buf = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    k = gen_moves(state, buf)
    rows = {
        (
            int(GHOST_TO_SQ32[r[M_FROM]]),
            int(GHOST_TO_SQ32[r[M_TO]]),
            int(r[M_CAPTURED]),
            tuple(apply_move(state, r).tolist()),
        )
        for r in buf[:k]
    }
    assert len(rows) == k, "gen_moves produced two rows with the same outcome"
    return rows


def test_hop_sequences_equal_gen_moves(playout_positions):
    """25.1-25.5: masked hop sequences reach exactly the legal moves (random playouts)."""
    n_capture = 0
    for s in playout_positions:
        expected = outcomes_by_moves(s)
        assert outcomes_by_actions(s) == expected
        n_capture += any(c for _, _, c, _ in expected)
    assert n_capture > 50  # the sample exercises captures


def test_hop_sequences_on_rule_examples():
    """25.2-25.5 at the hop level on the boardgym/RULES.md examples (Turkish strike, 25.4, 25.5)."""
    from boardgym.envs.draughts import from_fen

    for fen in [
        "W:WK29:B5,19,22",
        "B:W15,17,21,K23,25,26,30:BK32",
        "W:W9,21:B4,6,11",
        "B:W25,26,28:B5,23",
        "W:Wc3:Bb4,d4,b6,d6",
        "W:WKa1:Bc3,f6",
    ]:
        s = from_fen(fen)
        assert outcomes_by_actions(s) == outcomes_by_moves(s), fen


def test_king_must_land_on_continuing_square_hop_level():
    """25.4: mid-chain the mask offers only the landing squares that continue."""
    from boardgym.envs.draughts import from_fen, str_to_action

    s = from_fen("W:WK29:B5,19,22")  # a1 x c3: only e5 continues (over f4)
    mask = np.empty(1024, dtype=np.int8)
    legal_action_mask(s, mask)
    assert list(np.flatnonzero(mask)) == [str_to_action("a1-e5")]
    t = apply_action(s, np.int64(str_to_action("a1-e5")))
    assert t[S_CAP_SQ] >= 0 and t[S_SIDE] == 0  # still White's move, mid-chain
    legal_action_mask(t, mask)
    assert sorted(np.flatnonzero(mask)) == sorted([str_to_action("e5-g3"), str_to_action("e5-h2")])


def test_mid_chain_gen_moves_king_crosses_its_own_square():
    """25.3/25.4 mid-chain: the king's current square is empty for its later hops (it moves on).

    After a1-f6 the chain f6:d8:b6:d4:h8 passes f6 again on the way to h8.
    """
    from boardgym.envs.draughts import from_fen, str_to_action

    s = from_fen("W:WKa1:Ba7,c3,c5,c7,e7,g7,h6")
    t = apply_action(s, np.int64(str_to_action("a1-f6")))
    assert t[S_CAP_SQ] >= 0
    before = enemy(s, 0)
    assert continuations_by_moves(t) == {(e, c) for _, e, c, _ in outcomes_from(t, 0, before)}
    assert any(e == 31 for e, _ in continuations_by_moves(t))  # ... ending on h8
