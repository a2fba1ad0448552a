"""AlphaBetaAgent: tactics, mate distance, draws (G.1, G.2), TT consistency, time budget and
learned-evaluation hook (its strength against RandomAgent, played by boardgym evaluate:
tests/scripts/test_evaluate_script.py).

Tactical positions were found by a seeded random-playout search and checked by hand with the
kernel's legal_moves (lines in the comments)."""

import time

import numpy as np
import pytest
from draughts_positions import assert_dense_mlp_score, dense_mlp_value  # tests/helpers
from draughts_positions import random_positions as _random_positions

from boardgym.agents import AlphaBetaAgent, Evaluation
from boardgym.agents.draughts.evaluation import KING, MAN, evaluate, material_eval
from boardgym.agents.draughts.search import WIN, WIN_BOUND
from boardgym.envs import draughts as api
from boardgym.kernels.bits import popcount
from boardgym.kernels.draughts.board import S_HASH, S_MATERIAL, S_SIDE
from boardgym.kernels.draughts.observe import OBS_LEN


def _score(fen_or_state, depth, **kw):
    agent = AlphaBetaAgent(depth=depth, seed=0, tt_bits=16, **kw)
    s = api.from_fen(fen_or_state) if isinstance(fen_or_state, str) else fen_or_state
    i, score = agent.search(s, depth=depth)
    return agent, score


def test_shot_sacrifice_forces_a_multi_capture():
    # e3-d4! gives a man: c5:e3 is answered by d2:f4:d6:b8 (three men, crowning), e5:c3 by
    # b2:d4:b6:d8:g5 (four) or d2:b4:d6:b8. Material after the exchanges: at least three men up.
    fen = "W:Wa1,c1,e1,b2,d2,e3,g3,h4:Ba5,c5,e5,f6,h6,c7,g7,h8"
    after = api.apply(fen, "e3-d4")
    assert api.legal_moves(after) == ["c5:e3", "e5:c3"]
    assert api.legal_moves(api.apply(after, "c5:e3")) == ["d2:f4:d6:b8"]
    for depth in (3, 5):
        agent = AlphaBetaAgent(depth=depth, seed=0, tt_bits=16)
        assert agent.best_move(fen) == "e3-d4"
        assert agent.last_info["score"] >= 3 * MAN


def test_forced_win_with_shortest_distance():
    # G.1: f4-e3! leaves White's last man g5 only g5-f6, and g7:e5 takes it: White (to move,
    # no pieces) loses at ply 3. Deeper searches keep the same mate distance.
    fen = "B:Wg5:Bf4,b6,h6,a7,g7,b8,f8,h8"
    assert api.legal_moves(api.apply(fen, "f4-e3")) == ["g5-f6"]
    for depth in (3, 5, 8):
        agent = AlphaBetaAgent(depth=depth, seed=0, tt_bits=16)
        assert agent.best_move(fen) == "f4-e3"
        assert agent.last_info["score"] == WIN - 3


def test_deep_forced_win_found_at_depth_9():
    # d4-c3! forces a won ending; material-only search at depth 3 prefers f6-g5.
    fen = "B:Wc1,f4,g7:Bd4,b6,f6,c7,e7,h8"
    _, score = _score(fen, 9)
    assert score > WIN_BOUND
    _, shallow = _score(fen, 3)
    assert shallow < WIN_BOUND


def test_win_in_one_and_loss_in_one_scores():
    # the only move c3:e5 takes Black's last piece: Black cannot move (G.1)
    _, score = _score("W:Wc3:Bd4", 2)
    assert score == WIN - 1
    # Black's only man d4 goes to c3 or e3 and is taken (b2:d4 or f2:d4): lost at ply 2
    _, score = _score("B:Wb2,f2:Bd4", 4)
    assert score == -(WIN - 2)


def test_draw_rules_g2_are_scored_as_draws():
    # G.2b: three kings against a lone king; the 15-move count is one ply from running out, so
    # every move (none captures) ends in a draw.
    s = api.from_fen("W:WKa1,Kc1,Ke1:BKh4")
    _, score = _score(s, 4)
    assert score > 3 * MAN
    s[S_MATERIAL] = 29
    _, score = _score(s, 4)
    assert score == 0


def test_transposition_table_does_not_change_the_score():
    for s in _random_positions(12, seed=11):
        for depth in (3, 5):
            _, with_tt = _score(s, depth)
            _, without = _score(s, depth, use_tt=False)
            assert with_tt == without


def test_late_move_reductions_option_and_effect():
    """lmr: on by default only without a depth cap; with it the search reaches deeper on the
    same node budget, still finds the tactics above, and reports what it reduced."""
    assert AlphaBetaAgent(depth=None, time_limit=0.1).lmr
    assert (
        not AlphaBetaAgent(depth=6).lmr
        and not AlphaBetaAgent(depth=None, time_limit=1, lmr=False).lmr
    )
    assert AlphaBetaAgent(depth=6, lmr=True).lmr
    with pytest.raises(ValueError, match="lmr must be True, False or None"):
        AlphaBetaAgent(depth=6, lmr="yes")
    # the same node budget per iteration: the reduced search finishes deeper iterations
    fen = "W:Wa1,c1,e1,b2,d2,f2,h2,c3,e3,g3:Ba5,c5,e5,b6,f6,h6,c7,g7,d8"
    depths = {}
    for lmr in (False, True):
        agent = AlphaBetaAgent(depth=30, max_nodes=300_000, seed=0, lmr=lmr)
        agent.best_move(fen)
        info = agent.last_info
        depths[lmr] = info["depth"]
        if lmr:
            assert info["reduced"] > 0 and 0 < info["researched"] < info["reduced"]
        else:
            assert info["reduced"] == info["researched"] == 0
    assert depths[True] >= depths[False] + 1
    # the shot sacrifice and the shortest forced win are still found (quiet moves aside,
    # captures and the first moves are never reduced)
    for depth in (5, 7):
        agent = AlphaBetaAgent(depth=depth, seed=0, tt_bits=16, lmr=True)
        assert agent.best_move("W:Wa1,c1,e1,b2,d2,e3,g3,h4:Ba5,c5,e5,f6,h6,c7,g7,h8") == "e3-d4"
        assert agent.best_move("B:Wg5:Bf4,b6,h6,a7,g7,b8,f8,h8") == "f4-e3"
        assert agent.last_info["score"] == WIN - 3
    _, score = _score("B:Wc1,f4,g7:Bd4,b6,f6,c7,e7,h8", 9, lmr=True)
    assert score > WIN_BOUND


def test_lazy_smp_threads_share_the_table():
    """threads=2: a helper searches beside the main search through the shared table; the move
    is legal and the tactic still found; bad values are refused."""
    import os

    from boardgym.agents.draughts.agents import MAX_THREADS, default_threads

    fen = "W:Wa1,c1,e1,b2,d2,e3,g3,h4:Ba5,c5,e5,f6,h6,c7,g7,h8"
    agent = AlphaBetaAgent(depth=None, time_limit=0.2, threads=2, seed=0)
    assert agent._helpers[0].tt is agent.buffers.tt
    assert agent.best_move(fen) == "e3-d4"
    assert agent.last_info["helper_nodes"] > 0 and agent.last_info["depth"] >= 5
    opening = "W:W21-32:B1-12"
    assert agent.best_move(opening) in api.legal_moves(opening)
    fixed = AlphaBetaAgent(depth=7, threads=2, seed=0)
    assert fixed.best_move(fen) == "e3-d4" and fixed.last_info["depth"] == 7
    single = AlphaBetaAgent(depth=7, seed=0, threads=1)
    single.best_move(fen)
    assert single.last_info["helper_nodes"] == 0
    for bad in (0, MAX_THREADS + 1, 1.5, "2"):
        with pytest.raises(ValueError, match="threads must be None or an integer"):
            AlphaBetaAgent(depth=6, threads=bad)
    # by default: one thread at a fixed depth, default_threads() for a timed search
    assert AlphaBetaAgent(depth=6).threads == 1
    assert AlphaBetaAgent(depth=6, time_limit=0.1).threads == 1
    timed = AlphaBetaAgent(depth=None, time_limit=0.1)
    assert timed.threads == default_threads() and len(timed._helpers) == timed.threads - 1
    assert default_threads() == (2 if len(os.sched_getaffinity(0)) >= 2 else 1)


def test_tt_entry_half_written_is_a_miss():
    """Entries are checked word by word: one whose data word another thread has just changed
    (key ^ data ^ move no longer the key) is not read, so the expected line stops there."""
    from boardgym.agents.draughts.search import _tt_entry

    agent = AlphaBetaAgent(depth=6, seed=0, tt_bits=16)
    s = api.from_fen("W:Wa1,c1,e1,b2,d2,f2,h2,c3,e3,g3:Ba5,c5,e5,b6,f6,h6,c7,g7,d8")
    i, _ = agent.search(s)
    row = agent.buffers.rows[i].copy()
    rows, states = agent.principal_variation(s, row)
    assert len(rows) >= 3
    tt = agent.buffers.tt
    h = int(states[1][S_HASH])
    slot = h & (tt.shape[0] - 1)
    data, move = _tt_entry(tt, slot, h)
    assert data != 0 and move >= 0
    tt[slot, 1] ^= 1 << 21  # a torn write: the depth field changed, the check word not
    assert _tt_entry(tt, slot, h) == (0, -1)
    assert len(agent.principal_variation(s, row)[0]) == 1


def test_time_limit_is_kept():
    agent = AlphaBetaAgent(depth=None, time_limit=0.2, seed=0)
    agent.best_move("W:W21-32:B1-12")  # warm-up
    t0 = time.perf_counter()
    move = agent.best_move("W:Wa1,c1,e1,b2,d2,f2,h2,c3,e3,g3:Ba5,c5,e5,b6,f6,h6,c7,g7,d8")
    dt = time.perf_counter() - t0
    # generous bound for a loaded CI machine; without the time control it would search to depth 62
    assert dt < 1.0 and agent.last_info["depth"] >= 3
    assert move in api.legal_moves("W:Wa1,c1,e1,b2,d2,f2,h2,c3,e3,g3:Ba5,c5,e5,b6,f6,h6,c7,g7,d8")
    capped = AlphaBetaAgent(depth=30, max_nodes=2000, seed=0)
    capped.best_move("W:W21-32:B1-12")
    assert 1 <= capped.last_info["depth"] < 30


def _material_linear():
    """A linear evaluation of plain material: own men +1, own kings +3, the opponent's minus."""
    w = np.zeros(OBS_LEN)
    w[0:32], w[32:64], w[64:96], w[96:128] = 1.0, 3.0, -1.0, -3.0
    return Evaluation.linear(w, 0.0, scale=MAN)


def test_learned_evaluation_hook(tmp_path):
    lin = _material_linear()
    s = api.from_fen("W:Wa1,c1,e1,b2,d2,e3,g3,h4:Ba5,c5,e5,f6,h6,c7,g7,h8")
    agent = AlphaBetaAgent(depth=5, evaluation=lin, seed=0)
    assert agent.best_move(api.to_fen(s)) == "e3-d4"
    # the linear score of a position is its plain material from the side to move's view
    obs = np.zeros(OBS_LEN, np.float32)
    for pos in _random_positions(20, seed=2):
        own, opp = (0, 2) if pos[S_SIDE] == 0 else (2, 0)
        material = MAN * (popcount(pos[own]) - popcount(pos[opp])) + KING * (
            popcount(pos[own + 1]) - popcount(pos[opp + 1])
        )
        assert evaluate(pos, lin.kind, *lin.arrays(), obs) == material
    # MLP: random small network, save/load round trip gives the same search result
    rng = np.random.default_rng(0)
    mlp = Evaluation.mlp(
        rng.normal(0, 0.1, (8, OBS_LEN)),
        rng.normal(0, 0.1, 8),
        rng.normal(0, 1, 8),
        0.0,
        scale=100.0,
    )
    path = tmp_path / "mlp.npz"
    mlp.save(path)
    a = AlphaBetaAgent(depth=3, evaluation=mlp, seed=0)
    b = AlphaBetaAgent(depth=3, evaluation=str(path), seed=0)
    fen = "W:W21-32:B1-12"
    assert a.best_move(fen) == b.best_move(fen)
    assert a.last_info["score"] == b.last_info["score"]
    mlp.save(tmp_path / "noext")  # np.savez's convention: .npz appended; no temporary file left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mlp.npz", "noext.npz"]
    with pytest.raises(ValueError, match="w1 must have shape"):
        Evaluation.mlp(np.zeros((2, 5)), np.zeros(2), np.zeros(2), 0.0)
    from boardgym.agents.draughts.evaluation import HIDDEN_MAX

    h = HIDDEN_MAX + 1  # more than the search's hidden-layer scratch holds
    with pytest.raises(ValueError, match=f"at most {HIDDEN_MAX} hidden units"):
        Evaluation.mlp(np.zeros((h, OBS_LEN)), np.zeros(h), np.zeros(h), 0.0)


def _shipped_evaluation():
    from boardgym.agents import load

    return load("draughts-alphabeta", threads=1, depth=1).evaluation


def test_the_evaluation_cache_gives_the_evaluations_score():
    """A leaf's score read from the evaluation cache is evaluate_into's: cold and warm, for
    positions that differ only in a counter the evaluation reads (their own entries), and with
    one slot that every key shares (each evaluation overwrites the last)."""
    from boardgym.agents.draughts.evaluation import evaluate_into
    from boardgym.agents.draughts.search import SearchBuffers, _cached_eval
    from boardgym.kernels.draughts.outcome import repetition_count

    b = SearchBuffers(tt_bits=4)
    kind, *arrays, hidden, ecache = b.evaluation_args(_shipped_evaluation())
    positions = []
    for s in _random_positions(40, seed=31):
        other = s.copy()
        other[S_MATERIAL] += 9  # plies since a capture or crowning: an input of the network
        positions += [s, other]
    exact = [evaluate_into(s, kind, *arrays, hidden) for s in positions]
    assert sum(exact[i] != exact[i + 1] for i in range(0, len(exact), 2)) >= 10
    one_slot = np.zeros(1, np.int64)
    for cache in (ecache, one_slot):
        for _ in range(2):  # cold, then warm (the large cache holds them all)
            for s, v in zip(positions, exact):
                rep = repetition_count(s)
                assert _cached_eval(s, rep, cache, kind, *arrays, hidden) == v
    assert np.count_nonzero(ecache) == len(positions)


def test_the_evaluation_cache_is_emptied_for_another_evaluation():
    """SearchBuffers.evaluation_args keeps the cache for the evaluation it holds scores of and
    empties it for another one (another scale, another array); a search after the agent's
    evaluation is replaced is the search of a fresh agent with the new one."""
    from boardgym.agents.draughts.search import SearchBuffers

    ev = _shipped_evaluation()
    b = SearchBuffers(tt_bits=4)
    b.evaluation_args(ev)
    b.ecache[5] = 1234
    b.evaluation_args(ev)
    assert b.ecache[5] == 1234
    ev.scale = ev.scale * 2
    b.evaluation_args(ev)
    assert not b.ecache.any()
    b.ecache[5] = 1234
    ev.w2 = -ev.w2
    assert b.evaluation_args(ev)[3] is ev.arrays()[2] and not b.ecache.any()
    s = api.from_fen("W:Wa1,c1,e1,b2,d2,f2,h2,c3,e3,g3:Ba5,c5,e5,b6,f6,h6,c7,g7,d8")
    searches = []
    for empty_by_hand in (False, True):
        agent = AlphaBetaAgent(depth=6, seed=0, evaluation=_material_linear())
        agent.search(s, depth=6)
        assert agent.buffers.ecache.any()
        agent.evaluation = _shipped_evaluation()
        b = agent.buffers
        b.tt[:] = 0  # what the table learnt is kept on purpose: not the question here
        b.killers[:] = -1
        b.history[:] = 0
        if empty_by_hand:
            b.ecache[:] = 0
        searches.append((*agent.search(s, depth=6), agent.last_info["nodes"]))
    assert searches[0] == searches[1]


def test_the_evaluation_tanh_is_np_tanh_within_4e_6_in_float32():
    """net_eval's tanh is float32 arithmetic (it vectorises): within 4e-6 of tanh everywhere,
    exactly odd, and exactly +-1 from +-9 on (no overflow, no NaN)."""
    from numba import njit

    from boardgym.agents.draughts.evaluation import _tanh

    @njit
    def many(x, out):
        for i in range(x.shape[0]):
            out[i] = _tanh(x[i])

    x = np.concatenate(
        [np.linspace(-40.0, 40.0, 400_001), [0.0, 1e-30, -1e-30, 3e38, -3e38]]
    ).astype(np.float32)
    out = np.empty_like(x)
    many(x, out)
    assert out.dtype == np.float32
    assert np.abs(out - np.tanh(x.astype(np.float64))).max() < 4e-6
    assert np.array_equal(out[x >= 9.0], np.ones((x >= 9.0).sum(), np.float32))
    assert np.array_equal(out[x <= -9.0], -np.ones((x <= -9.0).sum(), np.float32))
    mirrored = np.empty_like(x)
    many(-x, mirrored)
    assert np.array_equal(mirrored, -out)


def test_sparse_mlp_eval_is_the_dense_formula():
    """net_eval sums only the ~30 non-zero inputs, over the transposed first layer in float32;
    the score must be the dense float64 formula's rounded (give or take the float32 margin, and
    exactly in almost every position), for the shipped net (a feature network) and a random one
    (observation only), on positions that include chains in progress (the chain planes) and
    draw counters (the scalars)."""
    from boardgym.agents.registry import load
    from boardgym.kernels.draughts.observe import encode_obs

    rng = np.random.default_rng(11)
    random_net = Evaluation.mlp(
        rng.normal(0, 0.3, (16, OBS_LEN)),
        rng.normal(0, 0.3, 16),
        rng.normal(0, 1, 16),
        0.1,
        scale=250.0,
    )
    shipped = load("draughts-alphabeta").evaluation
    obs, ref_obs = np.zeros(OBS_LEN, np.float32), np.zeros(OBS_LEN, np.float32)
    positions = _random_positions(60, seed=8, max_plies=120)
    assert any(p[S_MATERIAL] > 0 for p in positions)
    exact = 0
    for ev in (random_net, shipped):
        for pos in positions:
            encode_obs(pos, pos[S_SIDE], 0, ref_obs)
            got = evaluate(pos, ev.kind, *ev.arrays(), obs)
            assert_dense_mlp_score(got, ev, ref_obs)
            exact += got == round(dense_mlp_value(ev, ref_obs))
    assert exact >= 0.95 * 2 * len(positions)
    # the kernels get w1 transposed, w1 b1 w2 in float32; assigning new weights rebuilds them
    w1t, b1, w2 = random_net.arrays()[:3]
    assert w1t.shape == (OBS_LEN, 16) and w1t.flags.c_contiguous
    assert w1t.dtype == b1.dtype == w2.dtype == np.float32
    assert np.array_equal(w1t, random_net.w1.T.astype(np.float32))
    random_net.w1 = np.zeros((16, OBS_LEN))
    assert not random_net.arrays()[0].any()
    random_net.w2 = np.ones(16)
    assert np.array_equal(random_net.arrays()[2], np.ones(16, np.float32))


def test_material_eval_is_antisymmetric():
    for s in _random_positions(20, seed=5):
        t = s.copy()
        t[4] = 1 - t[4]  # same pieces, other side to move
        assert material_eval(s) == -material_eval(t)
    assert material_eval(api.from_fen("W:WKa1:Bb8")) > KING - MAN - 50
