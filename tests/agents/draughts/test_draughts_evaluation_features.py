"""The evaluation features of ``EVAL_MLP_FEATURES`` (draughts_eval.eval_features): values counted
by hand, an independent reference over 8x8 arrays on random positions from both sides' view,
the same numbers from the position and from its observation (what training reads), the
network's score against its dense formula, and the Evaluation's checks of the input width."""

import numpy as np
import pytest
from draughts_positions import float32_margin  # tests/helpers
from draughts_positions import random_positions as _random_positions

from boardgym.agents import AlphaBetaAgent
from boardgym.agents.draughts.evaluation import (
    EVAL_MLP,
    EVAL_MLP_FEATURES,
    FEATURE_NAMES,
    FEATURE_SCALES,
    N_FEATURES,
    N_INPUTS_FEATURES,
    Evaluation,
    evaluate,
    features_of_obs,
    side_features,
)
from boardgym.envs import draughts as api
from boardgym.kernels.draughts.board import S_SIDE
from boardgym.kernels.draughts.observe import OBS_LEN, encode_obs


def _features(fen):
    """The unscaled counts of a FEN's side to move, by name."""
    f = np.array(side_features(api.from_fen(fen))) * FEATURE_SCALES
    return dict(zip(FEATURE_NAMES, np.round(f).astype(int)))


def test_features_counted_by_hand():
    f = _features("W:Wc3:Bf6")  # c3 may go to b4, d4; f6 to e5, g5; each in the other's cone
    assert f["own men's moves"] == 2 and f["opponent men's moves"] == 2
    assert f["own runaway men"] == f["opponent runaway men"] == 0
    assert f["own pieces en prise"] == 0
    assert f["own men's left-right imbalance"] == f["opponent men's left-right imbalance"] == 1
    f = _features("W:Wc3:Bh6")  # h6 is outside c3's cone (5 files off, 3 rows ahead): both free
    assert f["own runaway men"] == f["opponent runaway men"] == 1
    assert f["own most advanced runaway"] == 3 and f["opponent most advanced runaway"] == 3
    f = _features("B:Wc3:Bh6")  # the same from Black's side
    assert f["own runaway men"] == f["opponent runaway men"] == 1
    assert f["own men's moves"] == 1 and f["opponent men's moves"] == 2  # h6-g5 only
    assert _features("W:Wc3:Bd4")["own pieces en prise"] == 1  # d4xb2 (men take backwards too)
    assert _features("W:Wc3,b2:Bd4")["own pieces en prise"] == 0  # b2 is taken: no landing
    assert _features("W:Wc3:BKh8")["own pieces en prise"] == 1  # the king from afar: h8xb2
    assert _features("W:Wc3,e5:BKh8")["own pieces en prise"] == 1  # e5 (h8xd4), c3 behind it
    assert _features("W:Wc3,e5,f6:BKh8")["own pieces en prise"] == 0  # f6 shields, e5 behind
    f = _features("W:WKa1:Bh8")  # a1-g7 (h8 stands): 6 squares; h8-g7 the only man's move
    assert f["own kings' moves"] == 6 and f["opponent men's moves"] == 1
    assert f["opponent kings' moves"] == 0 and f["own men's moves"] == 0


def _taken(r, f, a, b, pm, pk, empty):
    """Can the opponent take the piece on (r, f) moving in direction (a, b) at once?"""
    on = lambda r, f: 0 <= r < 8 and 0 <= f < 8  # noqa: E731
    if not (on(r + a, f + b) and empty[r + a, f + b]):
        return False  # nowhere to land
    k = 1
    while on(r - k * a, f - k * b):
        sq = (r - k * a, f - k * b)
        if (pm[sq] and k == 1) or pk[sq]:
            return True
        if not empty[sq]:
            return False
        k += 1
    return False


def _reference(obs):
    """The features of an observation (its owner moves up), written independently of the
    kernel: 8x8 arrays, squares visited one by one."""
    board = np.zeros((4, 8, 8), bool)
    for plane in range(4):
        for sq in range(32):
            r = sq // 4
            board[plane, r, 2 * (sq % 4) + r % 2] = obs[plane * 32 + sq] > 0.5
    om, ok, pm, pk = board
    empty = ~board.any(0)
    on = lambda r, f: 0 <= r < 8 and 0 <= f < 8  # noqa: E731
    diag = ((1, 1), (1, -1), (-1, 1), (-1, -1))
    men_moves = [0, 0]
    king_moves = [0, 0]
    prise = 0
    run = [0, 0]
    best = [0, 0]
    for r in range(8):
        for f in range(8):
            for who, men, kings, dr in ((0, om, ok, 1), (1, pm, pk, -1)):
                if men[r, f]:
                    men_moves[who] += sum(
                        on(r + dr, f + df) and empty[r + dr, f + df] for df in (-1, 1)
                    )
                    enemy = (pm | pk) if who == 0 else (om | ok)
                    ahead = [
                        (r2, f2)
                        for r2 in range(8)
                        for f2 in range(8)
                        if (r2 - r) * dr > 0 and abs(f2 - f) <= abs(r2 - r)
                    ]
                    if not any(enemy[a] for a in ahead):
                        run[who] += 1
                        best[who] = max(best[who], 8 - ((7 - r) if dr == 1 else r))
                if kings[r, f]:
                    for a, b in diag:
                        k = 1
                        while on(r + k * a, f + k * b) and empty[r + k * a, f + k * b]:
                            king_moves[who] += 1
                            k += 1
            if om[r, f] or ok[r, f]:
                prise += any(_taken(r, f, a, b, pm, pk, empty) for a, b in diag)
    bal = [abs(int(m[:, :4].sum()) - int(m[:, 4:].sum())) for m in (om, pm)]
    counts = [
        men_moves[0],
        men_moves[1],
        king_moves[0],
        king_moves[1],
        prise,
        run[0],
        best[0],
        run[1],
        best[1],
        bal[0],
        bal[1],
    ]
    return np.array(counts) / FEATURE_SCALES


def test_features_match_an_independent_reference_from_both_sides():
    obs = np.zeros(OBS_LEN, np.float32)
    positions = _random_positions(400, seed=4, max_plies=140)
    assert {int(p[S_SIDE]) for p in positions} == {0, 1}
    xs = np.zeros((len(positions), OBS_LEN), np.float32)
    for i, s in enumerate(positions):
        encode_obs(s, s[S_SIDE], 0, obs)
        xs[i] = obs
        assert np.allclose(side_features(s), _reference(obs), rtol=0, atol=1e-12), i
    # the training data's path (observations) gives the search's numbers, rounded to float32
    batch = np.zeros((len(positions), N_FEATURES), np.float32)
    features_of_obs(xs, batch)
    for i, s in enumerate(positions):
        assert np.array_equal(batch[i], np.float32(side_features(s)))
    assert (batch.max(0) > 0).all()  # every feature occurs


def test_feature_network_score_is_its_dense_formula():
    rng = np.random.default_rng(2)
    net = Evaluation.mlp(
        rng.normal(0, 0.3, (16, N_INPUTS_FEATURES)),
        rng.normal(0, 0.3, 16),
        rng.normal(0, 1, 16),
        0.1,
        scale=250.0,
        features=True,
    )
    assert net.kind == EVAL_MLP_FEATURES and net.n_inputs == OBS_LEN + N_FEATURES
    obs = np.zeros(OBS_LEN, np.float32)
    extra = np.zeros((1, N_FEATURES), np.float32)
    for s in _random_positions(200, seed=6, max_plies=140):
        encode_obs(s, s[S_SIDE], 0, obs)
        features_of_obs(obs[None], extra)
        x = np.concatenate([obs, extra[0]]).astype(np.float64)
        y = 250.0 * (np.tanh(net.w1 @ x + net.b1) @ net.w2 + 0.1)
        # the kernel's hidden layer is float32 (float32_margin)
        assert abs(evaluate(s, net.kind, *net.arrays(), obs) - y) <= 0.5 + float32_margin(net)
    # without the features the same weights are another network: the widths are checked
    with pytest.raises(ValueError, match=rf"w1 must have shape \(H, {OBS_LEN}\)"):
        Evaluation(EVAL_MLP, net.w1, net.b1, net.w2, net.b2, 1.0)
    with pytest.raises(ValueError, match=rf"w1 must have shape \(H, {N_INPUTS_FEATURES}\)"):
        Evaluation(EVAL_MLP_FEATURES, net.w1[:, :OBS_LEN], net.b1, net.w2, net.b2, 1.0)


def test_a_feature_network_is_saved_loaded_and_searched(tmp_path):
    rng = np.random.default_rng(3)
    net = Evaluation.mlp(
        rng.normal(0, 0.1, (8, N_INPUTS_FEATURES)),
        np.zeros(8),
        rng.normal(0, 1, 8),
        0.0,
        scale=100.0,
        features=True,
    )
    net.save(tmp_path / "f.npz")
    back = Evaluation.load(tmp_path / "f.npz")
    assert back.kind == EVAL_MLP_FEATURES and np.array_equal(back.w1, net.w1)
    agent = AlphaBetaAgent(depth=5, evaluation=str(tmp_path / "f.npz"), seed=0)
    # the shot sacrifice of test_draughts_alphabeta: found whatever the evaluation
    assert agent.best_move("W:Wa1,c1,e1,b2,d2,e3,g3,h4:Ba5,c5,e5,f6,h6,c7,g7,h8") == "e3-d4"
