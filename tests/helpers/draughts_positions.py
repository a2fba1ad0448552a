"""Shared by the draughts search and evaluation tests: seeded random positions, and a learned
evaluation's score by its plain dense formula (the reference for the kernel's sparse sums)."""

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


def dense_mlp_score(ev, obs):
    """The MLP's score by the plain formula, summed densely over all its inputs in index order
    (the 198 of the observation, then for a feature network its features, as float32, the way
    training reads them; pure Python floats: the same operations, in the same order, as one
    sum of the kernel), then the pattern tables' entries if it has them."""
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
        y += float(ev.w2[h]) * float(np.tanh(z))
    if ev.has_patterns:  # then the pattern tables' entries, in window order
        idx = np.zeros((1, N_WINDOWS), np.int64)
        pattern_indices_of_obs(obs[None], idx)
        for k in range(N_WINDOWS):
            y += float(ev.patterns[k, idx[0, k]])
    return int(np.round(min(max(ev.scale * y, -SCORE_LIMIT), SCORE_LIMIT)))
