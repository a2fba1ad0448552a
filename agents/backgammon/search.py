"""Play-time search for the backgammon models: expectimax over the dice with a move filter.

Plies are counted as GNU Backgammon counts them (its published "n-ply" terminology): the model
values an afterstate (the position after a whole play, mover's view, rules B.1-B.6, as
``game.plays`` writes it) directly at **0-ply**; at **1-ply** an afterstate is worth the mean
over the opponent's 21 distinct rolls (doubles 1/36, others 2/36) of minus the opponent's best
reply at 0-ply; at **2-ply** the mean over the opponent's rolls of minus its best reply at
1-ply; at **3-ply** the same over its best reply at 2-ply. (``ExpectimaxAgent``'s older
``depth`` counts one more: depth 2 is 1-ply here.)

The move filter (GNU Backgammon's idea, our own code): all plays of the roll are valued at
0-ply; at most ``candidates`` of them, those within ``threshold`` equity of the best, are searched
deeper (the best always is). At 2-ply the candidates' 1-ply values are filtered once more (at
most ``candidates2`` within ``threshold2``), and each opponent reply searched at 1-ply is
chosen the same way among the replies of its roll (at most ``replies`` within ``threshold`` at
0-ply; 1: its best reply at 0-ply, as GNU Backgammon chooses it). At 3-ply the plays' 2-ply
values are filtered a third time (at most ``candidates3`` within ``threshold3``: only the close
decisions go deeper; one play left: the 2-ply values stand), and each opponent reply, chosen as
above, is searched at 2-ply. The defaults, ``CANDIDATES_2``,
``THRESHOLD_2`` and ``REPLY_CANDIDATES``, are an agent's ``candidates2``, ``threshold2`` and
``replies`` unless it is given others. A play left out by a filter keeps its shallower value minus
``FILTERED`` (it ranks below every searched play, in its own order).

Pruning (``prune``, GNU Backgammon's pruning nets; our own code): when the model tuple has a
pruning net (net.I_PRUNE, agents/backgammon/prune.py) and ``prune`` > 0, every opponent reply
that a search values at 0-ply to choose among (1-ply values, the replies of a 2-ply or 3-ply
search) is first valued by the pruning net, and the model values only the ``prune`` best of
them (the first of equal ones first); the rest get ``PRUNED``, below any value. Only in contact
(the position before the roll) and only for a roll with more plays than ``prune``; the plays of
the decision itself (the root's 0-ply values) and the cube's outputs (``preroll_outputs*``) are
never pruned. The work budgets count every reply as before, pruned or not.

Values are cubeless money equities per cube unit for the player who made the play
(``td_net.equity`` of ``td_net.evaluate_rows``: the model is one tuple, whatever it holds). In a
search (1-ply and more) an afterstate that ends the game is worth its exact points for the
player who moved (1, 2 or 3, O.3) instead of the model's estimate; at 0-ply the plays keep the
model's values, so 0-ply is the plain net agent exactly.

``search_values_u`` and ``preroll_outputs_u`` value outputs by any linear utility instead:
``u[0] + u[1] y[0] + ... + u[5] y[4]`` (``match_equity.utility``), one row of weights for the
player who made the plays and one for its opponent (``U[0]``, ``U[1]``), and a game's exact
outcome by the same weights; the search is a negamax, so the two utilities must be opposite (one
side's value is minus the other's: true of the money-normalised equity of match play,
agents/backgammon/match_equity.py ``eq_weights``). Money play is ``MONEY_U`` = (-1, 2, 1, 1,
-1, -1) for both, which ``search_values`` and ``preroll_outputs`` use: their values are
``td_net.equity``'s to the last bit.

The 2-ply search has a work budget (``BUDGET_2``, an agent's ``budget``): the number of
afterstates the model values in the whole decision, counted as the search goes. A 2-ply search
that would pass it stops, and every play keeps its 1-ply value (the decision is then exactly the
1-ply one). The 3-ply stage has its own (``BUDGET_3``, ``budget3``), counted the same way over
the whole decision: past it every play keeps its 2-ply value. A count, not a clock: the same
position gets the same play on any machine and under any load.

A search keeps the model's outputs of the boards it values in a table for the decision
(``search_values_memo``; ``MEMO_BITS``): a board met again (by another line of play, or valued
at 0-ply and again under a 2-ply candidate) is read from it, not valued again. The model reads
nothing of an afterstate but its board, so every value is the same to the last bit; the
afterstates the budget counts are counted as if valued again, so it stops a search where it did.

One Numba call per decision (``search_values``): no Python loop over plays or rolls.
``preroll_outputs`` is the model's estimate before a roll (the mean over the 21 rolls of the
outputs of the best play of each, by equity), which the cube decisions start from;
``preroll_outputs2_u`` is the same one ply deeper (each roll's best few plays at 0-ply valued
at 1-ply, the best one's 1-ply outputs: the mean of the opponent's best replies' outputs turned
round), which a close cube decision is made on (agents/backgammon/agents.py ``cube_analysis``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon.features import is_contact
from boardgym.agents.backgammon.match_equity import utility
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import OFF_ME, STATE_LEN

__all__ = [
    "PLIES",
    "CANDIDATES",
    "THRESHOLD",
    "CANDIDATES_2",
    "THRESHOLD_2",
    "REPLY_CANDIDATES",
    "FILTERED",
    "PRUNE",
    "PRUNED",
    "BUDGET_2",
    "CANDIDATES_3",
    "THRESHOLD_3",
    "BUDGET_3",
    "INFO_LEN",
    "MEMO_BITS",
    "MEMO_GROW_3",
    "ROLL_D1",
    "ROLL_D2",
    "ROLL_W",
    "MONEY_U",
    "search_values",
    "search_values_u",
    "search_values_memo",
    "preroll_outputs",
    "preroll_outputs_u",
    "preroll_outputs2_u",
    "Settings",
    "search_settings",
]

PLIES = (0, 1, 2, 3)
CANDIDATES = 8  # plays searched past 0-ply, at most ...
THRESHOLD = 0.16  # ... within this equity of the best at 0-ply
CANDIDATES_2 = 4  # plays searched at 2-ply, at most ...
THRESHOLD_2 = 0.08  # ... within this equity of the best at 1-ply
REPLY_CANDIDATES = 1  # opponent replies searched at 1-ply inside a 2-ply search
FILTERED = 1000.0  # subtracted from the value of a play a filter left out
PRUNE = 0  # replies of a roll the model values when the pruning net picks them (0: all)
PRUNED = -1e300  # the 0-ply value of a reply the pruning net left out
BUDGET_2 = 150_000  # afterstates valued in one decision past which a 2-ply search stops
CANDIDATES_3 = 2  # plays searched at 3-ply, at most ...
THRESHOLD_3 = 0.02  # ... within this equity of the best at 2-ply
BUDGET_3 = 400_000  # afterstates valued in one decision past which a 3-ply search stops
INFO_LEN = 2  # search_values' info: afterstates valued, 1 if the 2-ply search stopped
MEMO_BITS = 17  # a search's table of model outputs has 2**MEMO_BITS slots (0: no table)
MEMO_GROW_3 = 3  # the 3-ply stage moves the table to 2**MEMO_GROW_3 times as many slots
MEMO_WORDS = 4  # int64 words of a board key: 13 checker counts (0..15) of 4 bits each
ROLL_D1 = np.array([d1 for d1 in range(1, 7) for d2 in range(d1, 7)], dtype=np.int64)
ROLL_D2 = np.array([d2 for d1 in range(1, 7) for d2 in range(d1, 7)], dtype=np.int64)
ROLL_W = np.where(ROLL_D1 == ROLL_D2, 1.0, 2.0) / 36.0  # probability of each of the 21 rolls
MONEY_U = np.array([[-1.0, 2.0, 1.0, 1.0, -1.0, -1.0]] * 2)  # money equity as a utility (both)
MONEY_U.flags.writeable = False


class Settings(NamedTuple):
    """One search's settings, as ``search_values`` takes them (build it with ``search_settings``,
    which checks each): the depth, the move filter and the 2-ply filter (the module docstring),
    and the work budget."""

    plies: int  # 0, 1, 2 or 3
    candidates: int  # plays searched past 0-ply, at most ...
    threshold: float  # ... within this equity of the best at 0-ply (also the replies' window)
    candidates2: int  # plays searched at 2-ply, at most ...
    threshold2: float  # ... within this equity of the best at 1-ply
    replies: int  # each opponent roll's best replies at 0-ply searched at 1-ply in a 2-ply search
    budget: int  # afterstates valued past which a 2-ply search stops (0: no budget)
    candidates3: int  # plays searched at 3-ply, at most ...
    threshold3: float  # ... within this equity of the best at 2-ply
    budget3: int  # afterstates valued past which a 3-ply search stops (0: no budget)
    prune: int  # replies of a roll the model values, picked by the pruning net (0: all)


def _check_count(name: str, v: int) -> int:
    """v checked as an integer >= 1; ValueError naming it."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    return int(v)


def _check_threshold(name: str, v: float) -> float:
    """v checked as a number >= 0 (finite or inf); TypeError/ValueError naming it."""
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {v!r}")
    if not v >= 0:  # also rejects NaN
        raise ValueError(f"{name} must be >= 0, got {v!r}")
    return float(v)


def search_settings(
    plies: int = 2,
    candidates: int = CANDIDATES,
    threshold: float = THRESHOLD,
    candidates2: int = CANDIDATES_2,
    threshold2: float = THRESHOLD_2,
    replies: int = REPLY_CANDIDATES,
    budget: int = BUDGET_2,
    candidates3: int = CANDIDATES_3,
    threshold3: float = THRESHOLD_3,
    budget3: int = BUDGET_3,
    prune: int = PRUNE,
) -> Settings:
    """The Settings of a search, checked: plies 0, 1, 2 or 3; candidates, candidates2,
    candidates3 and replies integers >= 1; threshold, threshold2 and threshold3 numbers >= 0
    (finite or inf); budget and budget3 integers >= 0 (afterstates; 0: none); prune an integer >=
    0 (0: no pruning). ValueError/TypeError naming the bad one."""
    if isinstance(plies, bool) or not isinstance(plies, (int, np.integer)) or plies not in PLIES:
        raise ValueError(f"plies must be 0, 1, 2 or 3, got {plies!r}")
    for name, b in (("budget", budget), ("budget3", budget3)):
        if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or b < 0:
            raise ValueError(
                f"{name} must be an integer >= 0 (afterstates valued; 0: none), got {b!r}"
            )
    if isinstance(prune, bool) or not isinstance(prune, (int, np.integer)) or prune < 0:
        raise ValueError(
            f"prune must be an integer >= 0 (replies the model values; 0: all), got {prune!r}"
        )
    return Settings(
        int(plies),
        _check_count("candidates", candidates),
        _check_threshold("threshold", threshold),
        _check_count("candidates2", candidates2),
        _check_threshold("threshold2", threshold2),
        _check_count("replies", replies),
        int(budget),
        _check_count("candidates3", candidates3),
        _check_threshold("threshold3", threshold3),
        int(budget3),
        int(prune),
    )


@njit(cache=True, inline="always")
def _kind(row):
    """1, 2 or 3 (O.3): the game kind of an afterstate ending the game, for the player who moved."""
    _, kind, _ = game.result(game.pass_turn(row), game.SCORING_GAMMON)
    return kind


@njit(cache=True, inline="always")
def _exact(u, row):
    """Utility u (float64[6]) of the exact outcome of an afterstate ending the game, for the
    player who moved: its outputs are 1 for a win and for each kind up to the game's."""
    kind = _kind(row)
    v = u[0] + u[1]
    if kind >= 2:
        v += u[2]
    if kind >= 3:
        v += u[3]
    return v


@njit(cache=True, inline="always")
def _exact_outputs(row, w, out):
    """out (float64[5]) += w times the exact outputs of an afterstate ending the game, for the
    player who moved: a win, and a gammon and a backgammon up to its kind."""
    kind = _kind(row)
    out[td_net.WIN] += w
    if kind >= 2:
        out[td_net.WIN_G] += w
    if kind >= 3:
        out[td_net.WIN_BG] += w


@njit(cache=True)
def _memo_new(bits, n):
    """A table of model outputs with 2**bits slots (bits 0: none) and the scratch of _values0 for
    batches of up to n rows: (keys, outputs, used, size, batch keys, misses, miss rows, miss
    outputs)."""
    cap = (1 << bits) if bits > 0 else 0
    if cap == 0:
        n = 0
    return (
        np.empty((cap, MEMO_WORDS), dtype=np.int64),
        np.empty((cap, td_net.N_OUT)),
        np.zeros(cap, dtype=np.bool_),
        np.zeros(1, dtype=np.int64),
        np.empty((n, MEMO_WORDS), dtype=np.int64),
        np.empty(n, dtype=np.int64),
        np.empty((n, STATE_LEN), dtype=np.int64),
        np.empty((n, td_net.N_OUT)),
    )


@njit(cache=True)
def _pruner_new(net, keep, n):
    """The pruning of _values0p for rolls of up to n plays: (keep int64[1]: plays of a roll the
    model values, 0: all of them, always 0 when the model has no pruning net; the pruning net's
    equities, the kept plays' indices, rows, outputs and values; its encoding and unit scratch).
    """
    hp = net[11].shape[0]  # the pruning net's units: net[td_net.I_PRUNE + 1]
    k = keep if hp > 0 else 0
    return (
        np.full(1, k, dtype=np.int64),
        np.empty(n),
        np.empty(k, dtype=np.int64),
        np.empty((k, STATE_LEN), dtype=np.int64),
        np.empty((k, td_net.N_OUT)),
        np.empty(k),
        np.empty(td_net.MAX_NNZ, dtype=np.int64),
        np.empty(td_net.MAX_NNZ),
        np.empty(hp),
        np.empty(td_net.N_OUT),
    )


@njit(cache=True, inline="always")
def _board_key(row, key):
    """key (int64[MEMO_WORDS]) of the board of row: its BOARD_LEN counts, 4 bits each."""
    for w in range(MEMO_WORDS):
        x = np.int64(0)
        for i in range(13):
            x |= row[13 * w + i] << (4 * i)
        key[w] = x


@njit(cache=True, inline="always")
def _slot(keys, used, key):
    """The slot of key in the table (keys, used): its own, or the empty one where it goes."""
    h = np.int64(0)
    for w in range(MEMO_WORDS):
        h = (h ^ key[w]) * np.int64(-7046029254386353131)
        h ^= h >> 29
    mask = keys.shape[0] - 1
    i = h & mask
    while used[i]:
        same = True
        for w in range(MEMO_WORDS):
            if keys[i, w] != key[w]:
                same = False
                break
        if same:
            return i
        i = (i + 1) & mask
    return i


@njit(cache=True, inline="always")
def _memo_put(keys, tys, used, size, key, y):
    """Put the outputs y of the board key into the table (keys, tys, used, size) unless there."""
    i = _slot(keys, used, key)
    if not used[i]:
        used[i] = True
        keys[i] = key
        tys[i] = y
        size[0] += 1


@njit(cache=True)
def _memo_grow(memo, bits):
    """memo with its table moved to one of 2**bits slots holding every board of it (the batch
    scratch kept)."""
    t = _memo_new(bits, 0)
    keys, tys, used = memo[0], memo[1], memo[2]
    for i in range(keys.shape[0]):
        if used[i]:
            _memo_put(t[0], t[1], t[2], t[3], keys[i], tys[i])
    return (t[0], t[1], t[2], t[3], memo[4], memo[5], memo[6], memo[7])


@njit(cache=True)
def _evaluate_memo(net, rows, n, ys, memo):
    """td_net.evaluate_rows(net, rows, n, ys), each board the model valued before in this search
    read from the table memo (_memo_new) instead: the same outputs to the last bit, as the model
    reads nothing of a row but its board (and the occupancy words made from it)."""
    keys, tys, used, size, bkeys, miss, mrows, mys = memo
    cap = keys.shape[0]
    if cap == 0:
        td_net.evaluate_rows(net, rows, n, ys)
        return
    nm = 0
    for r in range(n):
        _board_key(rows[r], bkeys[r])
        i = _slot(keys, used, bkeys[r])
        if used[i]:
            for o in range(td_net.N_OUT):
                ys[r, o] = tys[i, o]
        else:
            miss[nm] = r
            mrows[nm] = rows[r]
            nm += 1
    if nm == 0:
        return
    td_net.evaluate_rows(net, mrows, nm, mys)
    for j in range(nm):
        r = miss[j]
        for o in range(td_net.N_OUT):
            ys[r, o] = mys[j, o]
        if 4 * size[0] < 3 * cap:  # a table three quarters full takes no more
            _memo_put(keys, tys, used, size, bkeys[r], mys[j])


@njit(cache=True)
def _values0(net, u, rows, n, ys, out, exact, memo):
    """out[r] = 0-ply utility u (float64[6]) of rows[r] for its mover (exact outcome of a
    finished game if exact); the model's outputs through the table memo (_memo_new)."""
    _evaluate_memo(net, rows, n, ys, memo)
    for r in range(n):
        out[r] = utility(u, ys[r])
        if exact and rows[r, OFF_ME] == 15:
            out[r] = _exact(u, rows[r])


@njit(cache=True)
def _values0p(net, u, rows, n, ys, out, memo, pruner, contact):
    """_values0 (exact outcomes on) of the n plays of one roll, pruned when the position is in
    contact and has more than pruner's keep plays (keep > 0): the pruning net values them all,
    the model only the keep best of those (the first of equal ones first), the others get
    PRUNED (below any value; their ys are not written)."""
    keep = pruner[0][0]
    if keep == 0 or n <= keep or not contact:
        _values0(net, u, rows, n, ys, out, np.bool_(True), memo)
        return
    pe, sel, prow, pys, psc = pruner[1], pruner[2], pruner[3], pruner[4], pruner[5]
    td_net.prune_equities(net, rows, n, pe, pruner[6], pruner[7], pruner[8], pruner[9])
    for k in range(keep):
        b = 0
        for r in range(1, n):
            if pe[r] > pe[b]:
                b = r
        sel[k] = b
        pe[b] = -np.inf
        prow[k] = rows[b]
    _values0(net, u, prow, keep, pys, psc, np.bool_(True), memo)
    for r in range(n):
        out[r] = PRUNED
    for k in range(keep):
        r = sel[k]
        out[r] = psc[k]
        for o in range(td_net.N_OUT):
            ys[r, o] = pys[k, o]


@njit(cache=True)
def _filter(values, n, k_max, thr, cand):
    """Indices of at most k_max of values[:n] within thr of the best, best first (the first of
    equal values first), into cand -> count (>= 1 when n >= 1)."""
    order = np.argsort(-values[:n], kind="mergesort")
    best = values[order[0]]
    k = 0
    while k < n and k < k_max and values[order[k]] >= best - thr:
        cand[k] = order[k]
        k += 1
    return k


@njit(cache=True)
def _value1(net, uu, side, row, buf, ys, sc, info, memo, pruner, acc):
    """1-ply value of afterstate row for its mover (side 0 or 1: its row of uu, float64[2, 6]):
    the mean over the opponent's 21 rolls of minus its best reply at 0-ply; acc (float64[5]) gets
    the mean of the outputs of those replies turned to the mover's view (exact for a reply that
    ends the game; the exact outcome for a row that ends it). buf int64[MAX_AFTERSTATES,
    STATE_LEN], ys, sc: scratch; info[0] counts the afterstates valued; pruner (_pruner_new):
    each roll's replies pruned as _values0p says."""
    for o in range(td_net.N_OUT):
        acc[o] = 0.0
    if row[OFF_ME] == 15:
        _exact_outputs(row, 1.0, acc)
        return _exact(uu[side], row)
    s = game.pass_turn(row)
    contact = is_contact(s)
    tot = 0.0
    for r in range(21):
        m = game.plays_of_roll(s, ROLL_D1[r], ROLL_D2[r], buf, None)
        _values0p(net, uu[1 - side], buf, m, ys, sc, memo, pruner, contact)
        info[0] += m
        b = 0
        for k in range(1, m):
            if sc[k] > sc[b]:
                b = k
        w = ROLL_W[r]
        tot -= sc[b] * w
        if buf[b, OFF_ME] == 15:  # the opponent's reply ends the game: the mover loses
            kind = _kind(buf[b])
            if kind >= 2:
                acc[td_net.LOSE_G] += w
            if kind >= 3:
                acc[td_net.LOSE_BG] += w
        else:  # the opponent's outputs, turned round (td_net.PERM)
            acc[td_net.WIN] += w * (1.0 - ys[b, td_net.WIN])
            for o in range(1, td_net.N_OUT):
                acc[o] += w * ys[b, td_net.PERM[o]]
    return tot


@njit(cache=True)
def _replies(net, u, s, r, cfg, buf, ys, sc, cand, info, memo, pruner, contact):
    """The opponent's plays of roll r (ROLL_D1, ROLL_D2) in position s (in contact or not), into
    buf, valued at 0-ply under its utility u into sc (pruned: _values0p) and counted in info[0]
    -> how many of them a deeper search takes (cand, best first: at most cfg.replies within
    cfg.threshold)."""
    m = game.plays_of_roll(s, ROLL_D1[r], ROLL_D2[r], buf, None)
    _values0p(net, u, buf, m, ys, sc, memo, pruner, contact)
    info[0] += m
    return _filter(sc, m, cfg.replies, cfg.threshold, cand)


@njit(cache=True)
def _value2(net, uu, row, cfg, budget, buf, buf1, ys, sc, sc1, cand, info, memo, pruner, acc):
    """2-ply value of afterstate row for its mover (uu[0]'s player): the mean over the opponent's
    21 rolls of minus its best reply at 1-ply among its cfg.replies best within cfg.threshold at
    0-ply. Stops (info[1] = 1, the value meaningless) once info[0] passes budget (> 0). acc:
    _value1's scratch."""
    if row[OFF_ME] == 15:
        return _exact(uu[0], row)
    s = game.pass_turn(row)
    contact = is_contact(s)
    tot = 0.0
    for r in range(21):
        k = _replies(net, uu[1], s, r, cfg, buf, ys, sc, cand, info, memo, pruner, contact)
        best = -1e300
        for c in range(k):
            if budget > 0 and info[0] > budget:
                info[1] = 1
                return 0.0
            v = _value1(net, uu, 1, buf[cand[c]], buf1, ys, sc1, info, memo, pruner, acc)
            if v > best:
                best = v
        tot -= best * ROLL_W[r]
    return tot


@njit(cache=True)
def _value3(net, uu, uv, row, cfg, bufs, scs, cands, ys, info, memo, pruner, acc):
    """3-ply value of afterstate row for its mover (uu[0]'s player; uv: uu with its rows swapped,
    the opponent's view): the mean over the opponent's 21 rolls of minus its best reply at 2-ply
    (_value2 under uv) among its cfg.replies best within cfg.threshold at 0-ply. Stops (info[1] =
    1, the value meaningless) once info[0] passes cfg.budget3 (> 0). bufs (3 row buffers), scs (3
    score buffers), cands (2 index buffers): scratch."""
    if row[OFF_ME] == 15:
        return _exact(uu[0], row)
    s = game.pass_turn(row)
    contact = is_contact(s)
    buf = bufs[0]
    sc = scs[0]
    cand = cands[0]
    tot = 0.0
    for r in range(21):
        k = _replies(net, uu[1], s, r, cfg, buf, ys, sc, cand, info, memo, pruner, contact)
        best = -1e300
        for c in range(k):
            if cfg.budget3 > 0 and info[0] > cfg.budget3:
                info[1] = 1
                return 0.0
            v = _value2(
                net, uv, buf[cand[c]], cfg, cfg.budget3, bufs[1], bufs[2], ys, scs[1], scs[2],
                cands[1], info, memo, pruner, acc,
            )  # fmt: skip
            if info[1] == 1:
                return 0.0
            if v > best:
                best = v
        tot -= best * ROLL_W[r]
    return tot


@njit(cache=True)
def search_values_memo(net, uu, rows, n, cfg, info, out, bits):
    """search_values_u with a table of the model's outputs of 2**bits slots (bits 0: none) kept
    through the decision: a board the search meets again (the same position reached by another
    line, or valued at 0-ply then again under a 2-ply candidate) is read from the table instead of
    valued by the model again; the 3-ply stage, which values several times as many boards,
    carries the table over to one of 2**(bits + MEMO_GROW_3) slots. The values, the play chosen
    and info (the afterstates the search values, counted as without a table, so the budget stops
    a search at the same place) are the same to the last bit with any bits; the table only saves
    time. -> number of plays searched past 0-ply."""
    maxa = game.MAX_AFTERSTATES
    ys = np.empty((max(n, maxa), td_net.N_OUT))
    memo = _memo_new(bits if cfg.plies > 0 and n > 1 else 0, max(n, maxa))
    pruner = _pruner_new(net, cfg.prune if cfg.plies > 0 and n > 1 else 0, maxa)
    _values0(net, uu[0], rows, n, ys, out, cfg.plies > 0, memo)
    info[0] = n
    info[1] = 0
    if cfg.plies == 0 or n <= 1:
        return 0
    buf = np.empty((maxa, STATE_LEN), dtype=np.int64)
    buf1 = np.empty((maxa, STATE_LEN), dtype=np.int64)
    sc = np.empty(maxa)
    sc1 = np.empty(maxa)
    cand = np.empty(maxa, dtype=np.int64)
    inner = np.empty(maxa, dtype=np.int64)
    acc = np.empty(td_net.N_OUT)
    k = _filter(out, n, cfg.candidates, cfg.threshold, cand)
    for r in range(n):
        out[r] -= FILTERED
    for c in range(k):
        out[cand[c]] = _value1(net, uu, 0, rows[cand[c]], buf, ys, sc, info, memo, pruner, acc)
    if cfg.plies == 1 or k <= 1:
        return k
    one = out[:n].copy()
    k2 = _filter(out, n, cfg.candidates2, cfg.threshold2, inner)
    for r in range(n):
        out[r] -= FILTERED
    for c in range(k2):
        v = _value2(
            net, uu, rows[inner[c]], cfg, cfg.budget, buf, buf1, ys, sc, sc1, cand, info, memo,
            pruner, acc,
        )  # fmt: skip
        if info[1] == 1:
            out[:n] = one
            return k
        out[inner[c]] = v
    if cfg.plies == 2 or k2 <= 1:
        return k
    two = out[:n].copy()
    k3 = _filter(out, n, cfg.candidates3, cfg.threshold3, inner)
    if k3 <= 1:
        return k
    for r in range(n):
        out[r] -= FILTERED
    if bits > 0:  # the 3-ply stage values several times the boards the 2-ply one holds
        memo = _memo_grow(memo, bits + MEMO_GROW_3)
    uv = np.empty_like(uu)
    uv[0] = uu[1]
    uv[1] = uu[0]
    bufs = np.empty((3, maxa, STATE_LEN), dtype=np.int64)
    scs = np.empty((3, maxa))
    cands = np.empty((2, maxa), dtype=np.int64)
    for c in range(k3):
        v = _value3(net, uu, uv, rows[inner[c]], cfg, bufs, scs, cands, ys, info, memo, pruner, acc)
        if info[1] == 1:
            out[:n] = two
            return k
        out[inner[c]] = v
    return k


@njit(cache=True)
def search_values_u(net, uu, rows, n, cfg, info, out):
    """search_values with the utilities uu (float64[2, 6]: the mover's, its opponent's; opposite,
    the module docstring) in place of money equity (search_values_memo's table of MEMO_BITS)."""
    return search_values_memo(net, uu, rows, n, cfg, info, out, np.int64(MEMO_BITS))


@njit(cache=True)
def search_values(net, rows, n, cfg, info, out):
    """Values (float64[n] into out) of the plays rows[:n] (int64[N, STATE_LEN], mover's view) for
    the mover, searched as cfg (a Settings, search_settings) says: to cfg.plies (0, 1, 2) with the
    move filter (candidates, threshold; at 2-ply candidates2 within threshold2 of the best at
    1-ply, each opponent roll's replies best replies within threshold at 0-ply searched at 1-ply:
    the module docstring); the best value is the chosen play's. cfg.budget: afterstates valued
    past which a 2-ply search stops and the 1-ply values stand (0: no budget). info
    (int64[INFO_LEN], filled): afterstates valued, 1 if the 2-ply search stopped. -> number of
    plays searched past 0-ply."""
    return search_values_u(net, MONEY_U, rows, n, cfg, info, out)


@njit(cache=True)
def preroll_outputs_u(net, u, state, out):
    """preroll_outputs with the best play of each roll by the utility u (float64[6]) of the
    player on roll -> the mean utility of those plays."""
    buf = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    ys = np.empty((game.MAX_AFTERSTATES, td_net.N_OUT))
    sc = np.empty(game.MAX_AFTERSTATES)
    memo = _memo_new(np.int64(0), game.MAX_AFTERSTATES)
    for o in range(td_net.N_OUT):
        out[o] = 0.0
    eq = 0.0
    for r in range(21):
        m = game.plays_of_roll(state, ROLL_D1[r], ROLL_D2[r], buf, None)
        _values0(net, u, buf, m, ys, sc, np.bool_(True), memo)
        b = 0
        for k in range(1, m):
            if sc[k] > sc[b]:
                b = k
        w = ROLL_W[r]
        eq += w * sc[b]
        if buf[b, OFF_ME] == 15:  # the game ends: exact outcome vector
            _exact_outputs(buf[b], w, out)
        else:
            for o in range(td_net.N_OUT):
                out[o] += w * ys[b, o]
    return eq


@njit(cache=True)
def preroll_outputs(net, state, out):
    """The model's outputs (float64[5] into out: win, win gammon, win backgammon, lose gammon,
    lose backgammon, cumulative) for the player on roll of state before its roll: the mean over
    the 21 rolls of the outputs of its best play (0-ply equity; exact for a play that ends the
    game) -> the mean equity of those plays."""
    return preroll_outputs_u(net, MONEY_U[0], state, out)


@njit(cache=True)
def preroll_outputs2_u(net, uu, state, candidates, threshold, keep, out):
    """The outputs of the player on roll of state before its roll one ply deeper than
    preroll_outputs_u (float64[5] into out): for each of the 21 rolls, its plays valued at 0-ply
    by uu[0] (float64[2, 6], the player's utility and its opponent's, as search_values_u takes
    them), at most candidates of them within threshold of the best valued at 1-ply, and the
    1-ply outputs of the best of those (the mean of the opponent's best replies', turned round;
    exact for a play that ends the game) -> the mean 1-ply utility of those plays. candidates
    must be >= 1 (unchecked here: the callers pass a constant, search_settings checks a user's).
    keep: each roll's plays valued at 0-ply here and in the 1-ply values pruned as _values0p
    says, as a search with prune=keep does (0: none; the cube passes 0, the distillation targets
    may prune)."""
    maxa = game.MAX_AFTERSTATES
    buf = np.empty((maxa, STATE_LEN), dtype=np.int64)
    buf1 = np.empty((maxa, STATE_LEN), dtype=np.int64)
    ys = np.empty((maxa, td_net.N_OUT))
    sc = np.empty(maxa)
    sc1 = np.empty(maxa)
    cand = np.empty(maxa, dtype=np.int64)
    memo = _memo_new(np.int64(MEMO_BITS), maxa)
    pruner = _pruner_new(net, keep, maxa)
    info = np.zeros(INFO_LEN, dtype=np.int64)
    acc = np.empty(td_net.N_OUT)
    best_acc = np.empty(td_net.N_OUT)
    for o in range(td_net.N_OUT):
        out[o] = 0.0
    eq = 0.0
    contact = is_contact(state)
    for r in range(21):
        m = game.plays_of_roll(state, ROLL_D1[r], ROLL_D2[r], buf, None)
        _values0p(net, uu[0], buf, m, ys, sc, memo, pruner, contact)
        k = _filter(sc, m, candidates, threshold, cand)
        best = -1e300
        for c in range(k):
            v = _value1(net, uu, 0, buf[cand[c]], buf1, ys, sc1, info, memo, pruner, acc)
            if v > best:
                best = v
                best_acc[:] = acc
        w = ROLL_W[r]
        eq += w * best
        for o in range(td_net.N_OUT):
            out[o] += w * best_acc[o]
    return eq
