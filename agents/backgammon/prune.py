"""The pruning net of a backgammon model: a small net that picks the few plays of a roll worth
the model's evaluation.

A 2-ply search values the opponent's every reply to every roll at 0-ply only to keep its best:
about 20 plays a roll, and each evaluation of the gnubg-style model (agents/backgammon/net.py:
the hand-made contact features, 128 units) costs several microseconds. GNU Backgammon's published
design prunes there with small nets on the raw board (its "pruning nets"); ours is the same idea
in our own code: a net of Tesauro's form (net.encode_sparse's 196 raw inputs, a few sigmoid
units, the five outputs) fitted to the finished model's outputs, kept in the model tuple
(net.I_PRUNE) and saved with it (weights.PRUNE_NAMES). The search (search.py ``prune``) values
every reply of a roll in contact with it and the model only the best few.

The fit (``fit_prune``):

1. **Data** (``roll_plays``): positions of the model's own 0-ply self-play
   (distill.sample_positions, dice from the SplitMix64 stream of the seed), each passed to the
   opponent, one roll drawn from the same stream, and *all* the plays of that roll when the
   position is in contact and has two or more (the pruning net must rank the bad plays too,
   not only the ones the model picks). ``holdout`` games more (another stream) are kept out.
2. **Targets**: the model's outputs of each play (net.evaluate_rows).
3. **Fit**: Adam in minibatches on the outputs' and the equity's squared errors
   (distill.fit_positions_adam, the rate falling along a half cosine), a fresh permutation a
   pass from numpy's generator of the seed.
4. **Measure** (``prune_recall``): over the held-out rolls, how often the model's best play is
   among the pruning net's k best, and the equity (the model's) lost when it is not, by k.

Every kernel fills caller-owned buffers; the loops over positions, rolls and plays are Numba.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from boardgym.agents.backgammon import distill
from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon.features import is_contact
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import STATE_LEN
from boardgym.kernels.rng import rand_below

__all__ = [
    "HIDDEN",
    "GAMES",
    "HOLDOUT",
    "EPOCHS",
    "ALPHA",
    "ROWS_PER_GAME",
    "RECALL_K",
    "roll_plays",
    "prune_recall",
    "FitState",
    "fit_prune",
]

HIDDEN = 16  # the pruning net's units by default
GAMES = 3000  # self-play games whose plays are fitted, by default
HOLDOUT = 300  # more games whose plays are held out for prune_recall, by default
EPOCHS = 30  # passes of Adam, by default
ALPHA = 0.003  # Adam's rate at the first pass (falling along a half cosine), by default
ROWS_PER_GAME = 1200  # room for plays per self-play game (about 50 positions of ~21 plays)
RECALL_K = (1, 2, 3, 4, 5, 6, 8)  # the k of prune_recall's table


@dataclass
class FitState:
    """Where a fit of the pruning net stands: the pruning net being fitted (a Tesauro model
    tuple, net.as_model), Adam's moments (distill.adam_moments) and steps, the squared error of
    each pass done."""

    net: tuple[np.ndarray, ...]
    moments: tuple[np.ndarray, ...]
    step: np.ndarray
    errors: list[float]


@njit(cache=True)
def roll_plays(net, rng, n_games, out, gid):
    """The plays of one roll for each position of n_games games of the model net's 0-ply
    self-play (dice and rolls from rng, int64[1], advanced), in contact with two or more plays,
    into out (int64[N, STATE_LEN], mover's view) with the index of their roll into gid
    (int64[N]), until out is full -> (rows, rolls)."""
    cap = out.shape[0]
    pos = np.empty((n_games * distill.POSITIONS_PER_GAME, STATE_LEN), dtype=np.int64)
    n = distill.sample_positions(net, rng, n_games, 0.0, pos)
    buf = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    k = 0
    g = 0
    for i in range(n):
        s = game.pass_turn(pos[i])
        if not is_contact(s):
            continue
        r = rand_below(rng, np.int64(0), np.int64(36))
        m = game.plays_of_roll(s, r // 6 + 1, r % 6 + 1, buf, None)
        if m < 2:
            continue
        if k + m > cap:
            break
        for j in range(m):
            out[k] = buf[j]
            gid[k] = g
            k += 1
        g += 1
    return k, g


def _plays(net, seed, games):
    rng = np.array([seed], dtype=np.int64)
    out = np.empty((games * ROWS_PER_GAME, STATE_LEN), dtype=np.int64)
    gid = np.empty(games * ROWS_PER_GAME, dtype=np.int64)
    k, _ = roll_plays(net, rng, games, out, gid)
    rows, gid = out[:k].copy(), gid[:k].copy()
    ys = np.empty((k, td_net.N_OUT))
    td_net.evaluate_rows(net, rows, k, ys)
    return rows, gid, ys


@njit(cache=True)
def _recall_sums(pe, ys, gid, ks, found, lost):
    """For the rolls of rows grouped by gid (consecutive), the pruning net's equities pe and the
    model's outputs ys: found[j] (int64) += the rolls whose best play by the model is among the
    ks[j] best by pe (the first of equal pe first), lost[j] (float64) += the model's equity lost
    by the best of those against the best play -> the number of rolls."""
    n = len(gid)
    me = np.empty(n)
    for r in range(n):
        me[r] = td_net.equity(ys[r])
    rolls = 0
    a = 0
    while a < n:
        b = a + 1
        while b < n and gid[b] == gid[a]:
            b += 1
        order = np.argsort(-pe[a:b], kind="mergesort")
        best = me[a:b].max()
        for j in range(len(ks)):
            got = -np.inf
            for i in range(min(ks[j], b - a)):
                got = max(got, me[a + order[i]])
            if got == best:
                found[j] += 1
            lost[j] += best - got
        rolls += 1
        a = b
    return rolls


def prune_recall(
    net: Sequence[np.ndarray],
    rows: np.ndarray,
    gid: np.ndarray,
    ys: np.ndarray,
    ks: Sequence[int] = RECALL_K,
) -> dict[int, tuple[float, float]]:
    """For each k of ks: (the share of the rolls (rows grouped by gid, consecutive) whose best
    play by the model's outputs ys is among the k best by the model tuple net's pruning net, the
    mean equity by ys lost by the best of those k against the best play)."""
    pe = np.empty(len(rows))
    hp = net[td_net.I_PRUNE + 1].shape[0]
    if hp == 0:
        raise ValueError("the model has no pruning net")
    td_net.prune_equities(
        net,
        rows,
        len(rows),
        pe,
        np.empty(td_net.MAX_NNZ, dtype=np.int64),
        np.empty(td_net.MAX_NNZ),
        np.empty(hp),
        np.empty(td_net.N_OUT),
    )
    kk = np.array(ks, dtype=np.int64)
    found = np.zeros(len(kk), dtype=np.int64)
    lost = np.zeros(len(kk))
    n = max(_recall_sums(pe, ys, np.asarray(gid, dtype=np.int64), kk, found, lost), 1)
    return {int(k): (int(f) / n, float(x) / n) for k, f, x in zip(kk, found, lost)}


def fit_prune(
    net: Sequence[np.ndarray],
    hidden: int = HIDDEN,
    games: int = GAMES,
    holdout: int = HOLDOUT,
    epochs: int = EPOCHS,
    alpha: float = ALPHA,
    seed: int = 1,
    log: Callable[[str], object] | None = None,
    state: FitState | None = None,
    on_pass: Callable[[FitState], object] | None = None,
) -> tuple[tuple[np.ndarray, ...], dict[str, object]]:
    """The model tuple net with a pruning net of hidden units fitted to it (the module
    docstring: games of self-play for the data, holdout more kept out, epochs passes of Adam
    from the rate alpha; everything from seed) -> (the new model tuple, a report: rows, rolls,
    the squared error of each pass, prune_recall on the held-out rolls). log(text): progress;
    state: a FitState to go on from (a resumed fit: the data are made again, the same from the
    same seed); on_pass(state): called after each pass (a checkpoint)."""
    for name, v in (("hidden", hidden), ("games", games), ("holdout", holdout), ("epochs", epochs)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    if not alpha > 0:
        raise ValueError(f"alpha must be > 0, got {alpha!r}")
    base = td_net.without_prune(net)
    rows, _, ys = _plays(base, seed, games)
    vrows, vgid, vys = _plays(base, ~seed, holdout)
    if log:
        log(f"pruning net: {len(rows)} plays to fit, {len(vrows)} held out")
    if state is None:
        pm = td_net.as_model(td_net.init_params(hidden, seed))
        state = FitState(pm, distill.adam_moments(pm), np.zeros(2, dtype=np.int64), [])
    pm = state.net
    while len(state.errors) < epochs:
        e = len(state.errors)
        # each pass's order from its own generator, so a resumed fit takes the same ones
        order = np.random.default_rng([seed, e]).permutation(len(rows)).astype(np.int64)
        rate = distill.adam_rate(alpha, e, epochs)
        mse = distill.fit_positions_adam(
            pm, rows, ys, len(rows), order, distill.ADAM_BATCH, rate, state.moments, state.step
        )
        state.errors.append(float(mse))
        if log:
            log(f"pass {e + 1}/{epochs}: equity mse {mse:.5f}")
        if on_pass:
            on_pass(state)
    model = td_net.with_prune(base, td_net.main_net(pm))
    report = {
        "rows": int(len(rows)),
        "heldout_rows": int(len(vrows)),
        "heldout_rolls": int(vgid[-1] + 1) if len(vgid) else 0,
        "mse": list(state.errors),
        "recall": prune_recall(model, vrows, vgid, vys),
    }
    return model, report
