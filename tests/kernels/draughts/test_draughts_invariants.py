"""Random-playout invariants, hop by hop through the action codec (25.2, G.1, G.2a hashing)."""

import numpy as np

from boardgym.kernels.bits import popcount
from boardgym.kernels.draughts.board import (
    BB_SQUARES,
    HIST_LEN,
    S_BK,
    S_BM,
    S_CAP_JUMPED,
    S_CAP_SQ,
    S_HASH,
    S_HIST,
    S_HIST_N,
    S_PLY,
    S_SIDE,
    S_WK,
    S_WM,
)
from boardgym.kernels.draughts.codec import apply_action, legal_action_mask
from boardgym.kernels.draughts.game import initial_state
from boardgym.kernels.draughts.outcome import BLACK_WON, ONGOING, WHITE_WON, game_status, hash_bb


def check(s, prev):
    bbs = [int(s[i]) for i in (S_WM, S_WK, S_BM, S_BK)]
    for i in range(4):
        assert bbs[i] & ~int(BB_SQUARES) == 0, "piece on a ghost square"
        for j in range(i + 1, 4):
            assert bbs[i] & bbs[j] == 0, "two pieces on one square"
    white, black = popcount(bbs[0] | bbs[1]), popcount(bbs[2] | bbs[3])
    pw, pb = prev
    assert white <= pw and black <= pb, "piece count increased"
    if s[S_CAP_SQ] < 0:
        assert s[S_HASH] == hash_bb(*bbs, int(s[S_SIDE])), "incremental hash drifted"
        assert s[S_HIST + (s[S_HIST_N] - 1) % HIST_LEN] == s[S_HASH]
        assert s[S_CAP_JUMPED] == 0
    else:
        # 25.2: jumped pieces stay on the board until the move ends.
        enemy = (bbs[2] | bbs[3]) if s[S_SIDE] == 0 else (bbs[0] | bbs[1])
        assert s[S_CAP_JUMPED] & ~enemy == 0
    return white, black


def test_random_playout_invariants():
    """No overlapping bitboards, piece counts never increase, hash == recomputed hash; G.1 end."""
    rng = np.random.default_rng(11)
    mask = np.empty(1024, dtype=np.int8)
    ends = {ONGOING: 0, WHITE_WON: 0, BLACK_WON: 0}
    for _game in range(60):
        s = initial_state()
        prev = (12, 12)
        for _step in range(400):
            prev = check(s, prev)
            n = legal_action_mask(s, mask)
            status = game_status(s)
            if n == 0:
                assert status == (BLACK_WON if s[S_SIDE] == 0 else WHITE_WON)  # G.1
                ends[status] += 1
                break
            if status != ONGOING:
                ends[ONGOING] += 1  # a draw rule ended the game
                break
            ply = s[S_PLY]
            s = apply_action(s, np.int64(rng.choice(np.flatnonzero(mask))))
            assert s[S_PLY] in (ply, ply + 1)
    assert ends[WHITE_WON] + ends[BLACK_WON] > 10
