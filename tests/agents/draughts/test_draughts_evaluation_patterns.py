"""The pattern tables of a learned draughts evaluation (draughts_eval: ``Evaluation.patterns``):
the 25 windows of 4x4 squares, their base-3 numbers against an independent reference over 8x8
arrays from both sides' view, the same numbers from the position and from its observation (what
training reads), the score against its dense formula, the Evaluation's checks, files with and
without tables, and a search with them."""

import numpy as np
import pytest
from draughts_positions import assert_dense_mlp_score  # tests/helpers
from draughts_positions import random_positions as _random_positions

from boardgym.agents import AlphaBetaAgent
from boardgym.agents.draughts.evaluation import (
    EVAL_MATERIAL,
    EVAL_MLP,
    N_INPUTS_FEATURES,
    N_WINDOWS,
    PATTERN_ENTRIES,
    WINDOW_SQUARES,
    Evaluation,
    evaluate,
    pattern_indices,
    pattern_indices_of_obs,
)
from boardgym.envs import draughts as api
from boardgym.kernels.draughts.board import S_SIDE
from boardgym.kernels.draughts.observe import OBS_LEN, encode_obs


def _square(sq):
    """(row, file) of observation square sq (a1 = 0, row-major over the dark squares)."""
    r = sq // 4
    return r, 2 * (sq % 4) + r % 2


def test_the_windows_are_every_4x4_square_of_the_board():
    assert WINDOW_SQUARES.shape == (25, 8) and PATTERN_ENTRIES == 3**8
    corners = set()
    for squares in WINDOW_SQUARES:
        assert list(squares) == sorted(set(squares.tolist()))  # 8 distinct, increasing
        rf = [_square(int(q)) for q in squares]
        r0, f0 = min(r for r, _ in rf), min(f for _, f in rf)
        assert all(r0 <= r < r0 + 4 and f0 <= f < f0 + 4 for r, f in rf)
        corners.add((r0, f0))
    assert corners == {(r, f) for r in range(5) for f in range(5)}


def _reference(obs):
    """The 25 window numbers of an observation by 8x8 arrays: for each placement of a 4x4
    square, its dark squares row by row, file by file, as base-3 digits (own 1, opponent 2)."""
    planes = obs[:192].reshape(6, 8, 4)
    board = np.zeros((8, 8), int)
    for r in range(8):
        for j in range(4):
            f = 2 * j + r % 2
            board[r, f] = (
                1
                if planes[0, r, j] or planes[1, r, j]
                else (2 if planes[2, r, j] or planes[3, r, j] else 0)
            )
    out = []
    for r0 in range(5):
        for f0 in range(5):
            n = 0
            for r in range(r0, r0 + 4):
                for f in range(f0, f0 + 4):
                    if (r + f) % 2 == 0:  # dark squares: a1 is (0, 0)
                        n = 3 * n + board[r, f]
            out.append(n)
    return out


def test_window_numbers_match_an_independent_reference_from_both_sides():
    obs = np.zeros(OBS_LEN, np.float32)
    positions = _random_positions(300, seed=8, max_plies=140)
    assert {int(p[S_SIDE]) for p in positions} == {0, 1}
    xs = np.zeros((len(positions), OBS_LEN), np.float32)
    idx = np.zeros(N_WINDOWS, np.int64)
    seen = set()
    for i, s in enumerate(positions):
        encode_obs(s, s[S_SIDE], 0, obs)
        xs[i] = obs
        pattern_indices(s, idx)
        assert idx.tolist() == _reference(obs), i
        seen.update(idx.tolist())
    batch = np.zeros((len(positions), N_WINDOWS), np.int64)
    pattern_indices_of_obs(xs, batch)  # the training data's path: the search's numbers
    for i, s in enumerate(positions):
        pattern_indices(s, idx)
        assert np.array_equal(batch[i], idx)
    assert len(seen) > 300 and max(seen) < PATTERN_ENTRIES


def test_window_numbers_counted_by_hand():
    idx = np.zeros(N_WINDOWS, np.int64)
    # window k = 5 * r0 + f0 covers rows r0..r0+3 and files f0..f0+3 (a1 is row 0, file 0)
    pattern_indices(api.from_fen("W:Wa1:Bb2"), idx)
    want = [0] * N_WINDOWS
    want[0] = 1 * 3**7 + 2 * 3**5  # a1, c1, b2, ...: a1 first, b2 third
    want[1] = 2 * 3**5  # c1, e1, b2, ...
    want[5] = want[6] = 2 * 3**7  # b2 first
    assert idx.tolist() == want
    pattern_indices(api.from_fen("B:Wa1:Bb2"), idx)  # Black's view, turned: b2 is g7, a1 h8
    want = [0] * N_WINDOWS
    want[24] = 1 * 3**2 + 2  # e5, g5, f6, h6, e7, g7, f8, h8
    want[18] = want[19] = 1  # g7 last
    want[23] = 3**2  # e5, g5, d6, f6, e7, g7, d8, f8
    assert idx.tolist() == want


def _net(rng, kind=EVAL_MLP, patterns=True):
    n_in = OBS_LEN if kind == EVAL_MLP else N_INPUTS_FEATURES
    tables = rng.normal(0, 0.2, (N_WINDOWS, PATTERN_ENTRIES)) if patterns else None
    return Evaluation.mlp(
        rng.normal(0, 0.3, (16, n_in)),
        rng.normal(0, 0.3, 16),
        rng.normal(0, 1, 16),
        0.1,
        scale=250.0,
        features=kind != EVAL_MLP,
        patterns=tables,
    )


@pytest.mark.parametrize("features", [False, True])
def test_pattern_score_is_its_dense_formula(features):
    rng = np.random.default_rng(5)
    net = _net(rng, EVAL_MLP if not features else EVAL_MLP + 1)
    plain = Evaluation.mlp(net.w1, net.b1, net.w2, net.b2[0], 250.0, features=features)
    obs = np.zeros(OBS_LEN, np.float32)
    differ = 0
    for s in _random_positions(150, seed=9, max_plies=140):
        encode_obs(s, s[S_SIDE], 0, obs)
        got = evaluate(s, net.kind, *net.arrays(), obs)
        assert_dense_mlp_score(got, net, obs)
        differ += got != evaluate(s, plain.kind, *plain.arrays(), obs)
    assert differ > 100  # the tables count
    # zero tables are no tables
    zero = Evaluation.mlp(
        net.w1,
        net.b1,
        net.w2,
        net.b2[0],
        250.0,
        features=features,
        patterns=np.zeros((N_WINDOWS, PATTERN_ENTRIES)),
    )
    for s in _random_positions(20, seed=10):
        assert evaluate(s, zero.kind, *zero.arrays(), obs) == evaluate(
            s, plain.kind, *plain.arrays(), obs
        )


def test_the_evaluation_checks_its_tables():
    rng = np.random.default_rng(1)
    net = _net(rng, patterns=False)
    assert not net.has_patterns and net.patterns.shape == (0, PATTERN_ENTRIES)
    for empty in ([], np.zeros(0), np.zeros((0, PATTERN_ENTRIES), np.float32)):  # none
        assert not Evaluation.mlp(net.w1, net.b1, net.w2, 0.0, patterns=empty).has_patterns
    # an empty array of another shape is a mistake (tables with no entries), not "none"
    for bad in (
        np.zeros((N_WINDOWS, 10)),
        np.zeros((3, PATTERN_ENTRIES)),
        np.zeros(PATTERN_ENTRIES),
        np.zeros((N_WINDOWS, 0)),
        np.zeros((0, 10)),
        np.zeros((0, 0)),
    ):
        with pytest.raises(ValueError, match=rf"patterns must have shape \({N_WINDOWS}, 6561\)"):
            Evaluation.mlp(net.w1, net.b1, net.w2, 0.0, patterns=bad)
    nan = np.zeros((N_WINDOWS, PATTERN_ENTRIES))
    nan[3, 7] = np.nan
    with pytest.raises(ValueError, match="finite"):
        Evaluation.mlp(net.w1, net.b1, net.w2, 0.0, patterns=nan)
    with pytest.raises(ValueError, match="material evaluation takes no pattern tables"):
        Evaluation(EVAL_MATERIAL, patterns=np.zeros((N_WINDOWS, PATTERN_ENTRIES)))
    # tables assigned anew reach the kernels (arrays() rebuilds and checks)
    net.patterns = np.ones((N_WINDOWS, PATTERN_ENTRIES), np.float32)
    assert net.arrays()[5].dtype == np.float64 and net.has_patterns
    net.patterns = np.ones((2, 2))
    with pytest.raises(ValueError, match="patterns must have shape"):
        net.arrays()


def test_tables_are_saved_loaded_and_searched(tmp_path):
    rng = np.random.default_rng(3)
    net = Evaluation.mlp(
        rng.normal(0, 0.1, (8, OBS_LEN)),
        np.zeros(8),
        rng.normal(0, 1, 8),
        0.0,
        scale=100.0,  # small weights: the shot below wins three men
        patterns=rng.normal(0, 0.01, (N_WINDOWS, PATTERN_ENTRIES)),
    )
    net.save(tmp_path / "p.npz")
    back = Evaluation.load(tmp_path / "p.npz")
    assert back.has_patterns and np.array_equal(back.patterns, net.patterns)
    plain = _net(rng, patterns=False)
    plain.save(tmp_path / "plain.npz")
    with np.load(tmp_path / "plain.npz") as z:
        assert "patterns" not in z.files  # files without tables stay as they were
    assert not Evaluation.load(tmp_path / "plain.npz").has_patterns
    agent = AlphaBetaAgent(depth=5, evaluation=str(tmp_path / "p.npz"), seed=0)
    assert agent.evaluation.has_patterns
    # the shot sacrifice of test_draughts_alphabeta: found whatever the evaluation
    assert agent.best_move("W:Wa1,c1,e1,b2,d2,e3,g3,h4:Ba5,c5,e5,f6,h6,c7,g7,h8") == "e3-d4"
