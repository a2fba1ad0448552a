"""Shared by the draughts search and evaluation tests: seeded random positions, and a learned
evaluation's score by its plain dense formula in float64 (the reference for the kernel's sparse
float32 sums)."""

import math

import numpy as np

from boardgym.agents.arena.playouts import draughts_positions
from boardgym.agents.draughts.evaluation import (
    EVAL_MLP_FEATURES,
    N_FEATURES,
    N_WINDOWS,
    SCORE_LIMIT,
    features_of_obs,
    pattern_indices_of_obs,
)


def random_positions(n, seed, max_plies=80):
    """n positions (game not over) after up to max_plies random moves from the start."""
    return draughts_positions(n, seed, (0, max_plies - 1), through_draws=True)


def dense_mlp_value(ev, obs):
    """The MLP's score before rounding, by the plain formula in float64 (the weights as given,
    math.tanh), summed densely over all its inputs in index order (the 198 of the observation,
    then for a feature network its features, as float32, the way training reads them), then the
    pattern tables' entries if it has them; clipped to +-SCORE_LIMIT."""
    x = obs
    if ev.kind == EVAL_MLP_FEATURES:
        extra = np.zeros((1, N_FEATURES), np.float32)
        features_of_obs(obs[None], extra)
        x = np.concatenate([obs, extra[0]])
    y = float(ev.b2[0])
    for h in range(ev.w1.shape[0]):
        z = float(ev.b1[h])
        for i in range(ev.n_inputs):
            z += float(ev.w1[h, i]) * float(x[i])
        y += float(ev.w2[h]) * math.tanh(z)
    if ev.has_patterns:  # then the pattern tables' entries, in window order
        idx = np.zeros((1, N_WINDOWS), np.int64)
        pattern_indices_of_obs(obs[None], idx)
        for k in range(N_WINDOWS):
            y += float(ev.patterns[k, idx[0, k]])
    return min(max(ev.scale * y, -SCORE_LIMIT), SCORE_LIMIT)


def float32_margin(ev):
    """How far the kernel's float32 hidden layer may move a score from dense_mlp_value: each
    hidden unit's sum and tanh within 2e-5 (weights and inputs rounded to float32, float32
    sums of about 40 terms, tanh within 4e-6), times the output weights and the scale."""
    return 2e-5 * ev.scale * float(np.abs(ev.w2).sum())


def assert_dense_mlp_score(score, ev, obs):
    """score is the dense formula's value rounded, give or take the float32 margin."""
    value = dense_mlp_value(ev, obs)
    assert abs(score - value) <= 0.5 + float32_margin(ev), (score, value)
