"""Truncated rollouts of backgammon afterstates with variance reduction, under a model tuple.

A rollout values an afterstate s (the position after a whole play, mover's view, the opponent on
roll next, as ``game.plays`` writes it) by playing it on many times. Trial t of a position:

- **Dice.** The first roll (the opponent's) is stratified: trial t takes outcome
  ``(offset + t) mod 36`` of the 36 ordered dice outcomes (``offset`` drawn once per position),
  so 36 trials roll each outcome once; the later rolls come from the trial's SplitMix64 stream
  (kernels/rng.py), derived from the position's seed and t alone (a position's result does not
  depend on the others, their order or the number of blocks).
- **Play.** Both sides play the model at 0-ply (the play of highest cubeless equity; a play that
  ends the game is worth its exact result), for at most ``plies`` half-moves (>= 1). The trial
  stops after ``plies`` half-moves, when the game ends (the exact outcome) or when the model
  values the position reached exactly (the bear-off database, agents/backgammon/bearoff.py);
  its value is the model's outputs of the last afterstate, turned to the root mover's view.
- **Variance reduction** (``reduce``): every half-move also values the best play of each of the
  21 distinct rolls (the luck of agents/backgammon/luck.py, by the rollout's own model): the luck
  of the roll rolled is the outputs of its best play minus the mean over the 21 rolls
  (``search.ROLL_W``), a vector of five zero-mean terms given the position before the roll; the
  trial's value minus the sum of its rolls' luck (root mover's view) keeps the rollout's mean
  and removes most of the dice's variance. Without it the trial's value is the plain one (and a
  half-move values only the plays of the roll rolled: about 21 times less work).

``rollout_rows`` (one core) and ``rollout_rows_blocks`` (``prange`` over ``blocks`` blocks of
positions, the count passed by the caller) fill caller-owned buffers: the mean of the five
cumulative outputs over the trials (net.py's order: win, win gammon, win backgammon, lose gammon,
lose backgammon; unclipped means, so a target may leave [0, 1] by its statistical error) and their
standard errors, with the standard error of the cubeless equity in column ``SE_EQUITY`` (the
sample deviation of the trials over sqrt(T): with the stratified first roll an upper bound).
``rollout_targets`` is the checked entry point.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon.search import ROLL_D1, ROLL_D2, ROLL_W
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import OFF_ME, OFF_OPP, STATE_LEN
from boardgym.kernels.backgammon.dice import roll_dice
from boardgym.kernels.backgammon.outcome import outcome
from boardgym.kernels.rng import next_u64, rand_below, seed_rngs

__all__ = [
    "SE_LEN",
    "SE_EQUITY",
    "MAX_PLIES",
    "MAX_TRIALS",
    "rollout_rows",
    "rollout_rows_blocks",
    "rollout_targets",
]

SE_EQUITY = td_net.N_OUT  # the column of the equity's standard error
SE_LEN = td_net.N_OUT + 1
MAX_PLIES = 500  # a whole game: every game ends long before
MAX_TRIALS = 1 << 20
#: the index among the 21 distinct rolls (search.ROLL_D1, ROLL_D2) of each of the 36 outcomes
FIRST_ROLL = np.array(
    [
        int(np.flatnonzero((ROLL_D1 == min(a, b)) & (ROLL_D2 == max(a, b)))[0])
        for a in range(1, 7)
        for b in range(1, 7)
    ],
    dtype=np.int64,
)


@njit(cache=True)
def _outputs(net, row, b, y):
    """The model's outputs y (float64[5]) of afterstate row for its mover, exact for a finished
    game -> td_net.EV_* (EV_EXACT: a finished game or the bear-off database)."""
    if row[OFF_ME] == 15:
        _, kind = outcome(row)
        y[td_net.WIN] = 1.0
        y[td_net.WIN_G] = 1.0 if kind >= 2 else 0.0
        y[td_net.WIN_BG] = 1.0 if kind >= 3 else 0.0
        y[td_net.LOSE_G] = 0.0
        y[td_net.LOSE_BG] = 0.0
        return td_net.EV_EXACT
    ev, _ = td_net.model_eval(net, row, b[0], b[1], b[2], b[3], b[4], y)
    return ev


@njit(cache=True)
def _best_play(net, state, d1, d2, buf, b, y, best_y):
    """Index into buf of the 0-ply best play of roll d1-d2 from state (on roll, mover's view),
    its outputs into best_y -> (index, EV_* of that play)."""
    m = game.plays_of_roll(state, d1, d2, buf, None)
    best = 0
    best_e = -1e300
    best_ev = 0
    for r in range(m):
        ev = _outputs(net, buf[r], b, y)
        e = td_net.equity(y)
        if e > best_e:
            best_e = e
            best = r
            best_ev = ev
            for o in range(td_net.N_OUT):
                best_y[o] = y[o]
    return best, best_ev


@njit(cache=True, inline="always")
def _to_root(y, side, out):
    """out = outputs y of the mover of a half-move seen by the root's mover (side 1: the
    opponent's outputs, turned round; side 0: a copy)."""
    if side == 0:
        for o in range(td_net.N_OUT):
            out[o] = y[o]
    else:
        out[td_net.WIN] = 1.0 - y[td_net.WIN]
        for o in range(1, td_net.N_OUT):
            out[o] = y[td_net.PERM[o]]


@njit(cache=True)
def _first_half_move(net, root, buf, b, y, v, va, rows1, v1, ev1, g1):
    """The opponent's best play of each of the 21 rolls from afterstate root (rows1
    int64[21, STATE_LEN], EV_* ev1 int64[21]), its outputs in the root mover's view (v1
    float64[21, 5]) and their mean over the rolls (g1): shared by every trial of the position."""
    s = game.pass_turn(root)
    for o in range(td_net.N_OUT):
        g1[o] = 0.0
    for r in range(21):
        i, ev1[r] = _best_play(net, s, ROLL_D1[r], ROLL_D2[r], buf, b, y, v)
        rows1[r] = buf[i]
        _to_root(v, 1, va)
        for o in range(td_net.N_OUT):
            v1[r, o] = va[o]
            g1[o] += ROLL_W[r] * va[o]


@njit(cache=True)
def _trial(net, r1, rows1, v1, ev1, g1, tr, plies, reduce, buf, nxt, b, y, v, g, va, ga, acc):
    """One trial whose first roll is roll r1 (an index of the 21; _first_half_move's tables),
    later dice from tr (int64[1]) -> acc (float64[5]): its luck-adjusted (reduce) or plain
    value in the root mover's view."""
    for o in range(td_net.N_OUT):
        acc[o] = v1[r1, o]
        if reduce:
            acc[o] = g1[o]  # v1 - (v1 - g1): the first roll's luck taken off
    if ev1[r1] == td_net.EV_EXACT or plies == 1:
        return
    if reduce:
        for o in range(td_net.N_OUT):
            acc[o] -= v1[r1, o]  # the value of the last afterstate is added at the end
    else:
        for o in range(td_net.N_OUT):
            acc[o] = 0.0
    s = game.pass_turn(rows1[r1])
    side = 0
    for k in range(1, plies):
        d1, d2 = roll_dice(tr)
        lo = min(d1, d2)
        hi = max(d1, d2)
        if reduce:
            for o in range(td_net.N_OUT):
                g[o] = 0.0
            ev = 0
            for r in range(21):
                i, e = _best_play(net, s, ROLL_D1[r], ROLL_D2[r], buf, b, y, va)
                w = ROLL_W[r]
                for o in range(td_net.N_OUT):
                    g[o] += w * va[o]
                if ROLL_D1[r] == lo and ROLL_D2[r] == hi:
                    ev = e
                    for o in range(td_net.N_OUT):
                        v[o] = va[o]
                    nxt[:] = buf[i]
            _to_root(v, side, va)
            _to_root(g, side, ga)
            for o in range(td_net.N_OUT):
                acc[o] -= va[o] - ga[o]
        else:
            i, ev = _best_play(net, s, lo, hi, buf, b, y, v)
            nxt[:] = buf[i]
            _to_root(v, side, va)
        if ev == td_net.EV_EXACT or k == plies - 1:
            for o in range(td_net.N_OUT):
                acc[o] += va[o]
            return
        s = game.pass_turn(nxt)
        side = 1 - side


@njit(cache=True)
def _rollout_block(net, rows, lo, hi, seeds, trials, plies, reduce, out, se):
    """rollout_rows on rows[lo:hi] (scratch of its own: one block of a parallel call)."""
    b = td_net.model_buffers(net)
    buf = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    nxt = np.empty(STATE_LEN, dtype=np.int64)
    rows1 = np.empty((21, STATE_LEN), dtype=np.int64)
    v1 = np.empty((21, td_net.N_OUT))
    ev1 = np.empty(21, dtype=np.int64)
    g1 = np.empty(td_net.N_OUT)
    y = np.empty(td_net.N_OUT)
    v = np.empty(td_net.N_OUT)
    g = np.empty(td_net.N_OUT)
    va = np.empty(td_net.N_OUT)
    ga = np.empty(td_net.N_OUT)
    acc = np.empty(td_net.N_OUT)
    s1 = np.empty(SE_LEN)
    s2 = np.empty(SE_LEN)
    tr = np.empty(1, dtype=np.int64)
    for p in range(lo, hi):
        _first_half_move(net, rows[p], buf, b, y, v, va, rows1, v1, ev1, g1)
        tr[0] = seeds[p]
        offset = rand_below(tr, np.int64(0), np.int64(36))
        s1[:] = 0.0
        s2[:] = 0.0
        for t in range(trials):
            tr[0] = seeds[p] + 1 + t
            tr[0] = next_u64(tr, np.int64(0))  # the trial's own stream
            r1 = FIRST_ROLL[(offset + t) % 36]
            args = (tr, plies, reduce, buf, nxt, b, y, v, g, va, ga, acc)
            _trial(net, r1, rows1, v1, ev1, g1, *args)
            for o in range(td_net.N_OUT):
                s1[o] += acc[o]
                s2[o] += acc[o] * acc[o]
            e = td_net.equity(acc)
            s1[SE_EQUITY] += e
            s2[SE_EQUITY] += e * e
        for o in range(SE_LEN):
            mean = s1[o] / trials
            if o < td_net.N_OUT:
                out[p, o] = mean
            var = (s2[o] - trials * mean * mean) / (trials - 1) if trials > 1 else 0.0
            se[p, o] = np.sqrt(max(var, 0.0) / trials)


@njit(cache=True)
def rollout_rows(net, rows, n, seeds, trials, plies, reduce, out, se):
    """Rollouts of the afterstates rows[:n] (int64[N, STATE_LEN], mover's view) under the model
    tuple net: trials (>= 1) trials of at most plies (>= 1) half-moves each, position p's dice
    from seeds[p] (int64[n]), luck-adjusted if reduce -> out (float64[n, 5]: mean outputs for
    the mover) and se (float64[n, SE_LEN]: their standard errors, the equity's last)."""
    _rollout_block(net, rows, 0, n, seeds, trials, plies, reduce, out, se)


@njit(parallel=True, cache=True)
def rollout_rows_blocks(net, rows, n, seeds, trials, plies, reduce, out, se, blocks):
    """rollout_rows with the positions in blocks (>= 1) blocks, one per thread: the same
    results whatever the number of blocks."""
    blocks = max(1, min(n, blocks))
    for k in prange(blocks):
        lo = k * n // blocks
        hi = (k + 1) * n // blocks
        _rollout_block(net, rows, lo, hi, seeds, trials, plies, reduce, out, se)


def _check_int(name: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer {lo}..{hi}, got {value!r}")
    return int(value)


def rollout_targets(
    net: Sequence[np.ndarray],
    rows: npt.ArrayLike,
    trials: int = 36,
    plies: int = 9,
    seed: int = 0,
    reduce: bool = True,
    blocks: int = 1,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Rollouts of afterstates rows (int64[n, STATE_LEN], mover's view, games not over) under
    the model tuple net (weights.check_params' layout): trials per position (36: the first roll
    stratified), at most plies half-moves each, dice from seed (position p's from stream p of
    ``seed_rngs(seed, n)``), luck-adjusted if reduce; blocks > 1 runs that many blocks of
    positions in parallel -> (outputs float64[n, 5], se float64[n, SE_LEN]), mover's view.
    ValueError/TypeError naming a bad argument."""
    from boardgym.agents.backgammon.weights import check_params
    from boardgym.envs.backgammon_notation import check_batch

    net = check_params(net)
    rows = check_batch(rows, "rows")
    if (rows[:, OFF_ME] == 15).any() or (rows[:, OFF_OPP] == 15).any():
        raise ValueError("rows must be afterstates of games not over (a side has 15 off)")
    trials = _check_int("trials", trials, 1, MAX_TRIALS)
    plies = _check_int("plies", plies, 1, MAX_PLIES)
    blocks = _check_int("blocks", blocks, 1, 1 << 16)
    n = rows.shape[0]
    seeds = seed_rngs(seed, n)
    out = np.zeros((n, td_net.N_OUT))
    se = np.zeros((n, SE_LEN))
    if n == 0:
        return out, se
    if blocks == 1:
        rollout_rows(net, rows, n, seeds, trials, plies, np.bool_(reduce), out, se)
    else:
        rollout_rows_blocks(net, rows, n, seeds, trials, plies, np.bool_(reduce), out, se, blocks)
    return out, se
