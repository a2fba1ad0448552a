"""A fixed benchmark set of backgammon checker plays valued by our own rollouts, and the error of
an agent on it (equity lost per move against the rollout-best play, in mEMG: equity x 1000).

The set (``build_benchmark``; the shipped one in ``data/rollout_benchmark.npz``, with the command
that built it in its ``meta``):

1. **Decisions** (``sample_decisions``): self-play games of a model at 0-ply (the dice from a
   SplitMix64 stream of the set's own seed, held apart from the training seeds), each position
   on roll with two or more distinct plays kept with probability ``keep`` (drawn from a second
   stream), so the decisions spread over whole games.
2. **Candidates**: the plays of the roll within ``threshold`` equity of the best at 0-ply, at
   most ``candidates`` of them (search.py's move filter); a decision is kept when two or more
   plays pass and none ends the game or reaches the exact bear-off (those have no rollout to
   learn from).
3. **Values**: every candidate rolled out (agents/backgammon/rollout.py, luck-adjusted, the same
   model); the rollout-best play is the candidate of highest rollout equity.

The error of an agent (``agent_errors``): at each decision the agent picks a play
(``choose`` over the roll's afterstates, as AfterstateAgent has it); its loss is the best
candidate's rollout equity minus that of its play. A play outside the candidates is charged the
worst candidate's loss (a lower bound of its real loss) and counted apart. The figure
(``summary``) is the mean loss x 1000 (mEMG per move, cubeless money) with its 95% interval.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.agents.backgammon import net as td_net
from boardgym.agents.backgammon.rollout import SE_EQUITY, rollout_targets
from boardgym.agents.backgammon.search import CANDIDATES, THRESHOLD
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import OFF_ME, STATE_LEN
from boardgym.kernels.rng import rand_below, seed_rngs

__all__ = [
    "BENCH_SEED",
    "BENCH_FILE",
    "sample_decisions",
    "build_benchmark",
    "save_benchmark",
    "load_benchmark",
    "agent_errors",
    "summary",
]

#: the seed of the shipped set's games (training streams never use it)
BENCH_SEED = 38_000_000_000
BENCH_FILE = "rollout_benchmark.npz"
_KEYS = ("states", "starts", "cand_rows", "cand_eq", "cand_se")


@njit(cache=True)
def sample_decisions(net, rng, n_games, keep, out):
    """Self-play n_games of the model tuple net at 0-ply (dice from rng, int64[1], advanced);
    each position on roll with two or more plays is kept (with its dice) with probability keep
    into out (int64[N, STATE_LEN]) until it is full -> count."""
    b = td_net.model_buffers(net)
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    y = np.empty(td_net.N_OUT)
    by = np.empty(td_net.N_OUT)
    passes = game.no_passes()
    pick = np.array([~rng[0]], dtype=np.int64)
    cap = out.shape[0]
    k = 0
    for _ in range(n_games):
        state, status, rolls, _ = game.start(rng, np.int64(0), passes)
        while status == game.ROLLED and k < cap:
            n = game.afterstates(state, rows)
            if n > 1 and rand_below(pick, np.int64(0), np.int64(1 << 20)) < keep * (1 << 20):
                out[k] = state
                k += 1
            best = td_net.model_best_row(net, rows, n, b, y, by)
            state, status, rolls, _ = game.finish_turn(rows[best], rng, rolls, 0, passes)
        if k >= cap:
            break
    return k


def _candidates(net, state, candidates, threshold):
    """The afterstates of state's roll passing the move filter, best first at 0-ply, or None
    when fewer than two pass or one ends the game or is valued exactly."""
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    n = game.afterstates(state, rows)
    ys = np.empty((n, td_net.N_OUT))
    td_net.evaluate_rows(net, rows, n, ys)
    eq = 2 * ys[:, 0] - 1 + ys[:, 1] + ys[:, 2] - ys[:, 3] - ys[:, 4]
    order = np.argsort(-eq, kind="mergesort")
    keep = order[eq[order] >= eq[order[0]] - threshold][:candidates]
    picked = np.ascontiguousarray(rows[keep])
    if len(keep) < 2 or (picked[:, OFF_ME] == 15).any():
        return None
    b = td_net.model_buffers(net)
    y = np.empty(td_net.N_OUT)
    for r in picked:
        if td_net.model_eval(net, r, b[0], b[1], b[2], b[3], b[4], y)[0] == td_net.EV_EXACT:
            return None
    return picked


def build_benchmark(
    net: Sequence[np.ndarray],
    decisions: int,
    trials: int,
    plies: int,
    seed: int = BENCH_SEED,
    keep: float = 0.05,
    candidates: int = CANDIDATES,
    threshold: float = THRESHOLD,
    blocks: int = 1,
    log: Any = None,
) -> dict[str, np.ndarray]:
    """The set's arrays (module docstring) for the model tuple net: up to `decisions` decisions
    of self-play from seed, their candidates rolled out (trials, plies, blocks as
    rollout_targets') -> {states int64[N, STATE_LEN], starts int64[N + 1] (decision i's
    candidates are rows starts[i]:starts[i + 1]), cand_rows, cand_eq, cand_se}."""
    from boardgym.agents.backgammon.weights import check_params

    net = check_params(net)
    raw = np.empty((4 * decisions, STATE_LEN), dtype=np.int64)
    n = sample_decisions(net, seed_rngs(seed, 1), 100 * decisions, keep, raw)
    states, cands, starts = [], [], [0]
    for s in raw[:n]:
        c = _candidates(net, s, candidates, threshold)
        if c is None:
            continue
        states.append(s)
        cands.append(c)
        starts.append(starts[-1] + len(c))
        if len(states) == decisions:
            break
    rows = np.ascontiguousarray(np.concatenate(cands))
    eq = np.empty(len(rows))
    se = np.empty(len(rows))
    step = 64
    for i in range(0, len(rows), step):  # in pieces, for the log
        y, e = rollout_targets(net, rows[i : i + step], trials, plies, seed + 1 + i, True, blocks)
        eq[i : i + step] = 2 * y[:, 0] - 1 + y[:, 1] + y[:, 2] - y[:, 3] - y[:, 4]
        se[i : i + step] = e[:, SE_EQUITY]
        if log is not None:
            log(f"rolled out {min(i + step, len(rows))}/{len(rows)} candidates")
    return {
        "states": np.array(states),
        "starts": np.array(starts, dtype=np.int64),
        "cand_rows": rows,
        "cand_eq": eq,
        "cand_se": se,
    }


def save_benchmark(path: str | os.PathLike[str], bench: dict[str, np.ndarray], **meta: Any) -> None:
    """Write the set to path (compressed .npz, rows as int32) with JSON metadata."""
    from boardgym.agents.files import write_atomically

    arrays = {k: bench[k] for k in _KEYS}
    arrays["states"] = arrays["states"].astype(np.int32)
    arrays["cand_rows"] = arrays["cand_rows"].astype(np.int32)
    write_atomically(
        str(path),
        lambda tmp: np.savez_compressed(tmp, **arrays, meta=np.array(json.dumps(meta))),
        ".npz",
    )


def load_benchmark(path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The set at path (None: the shipped one), rows back as int64, checked; ValueError if bad."""
    from boardgym.envs.backgammon_notation import check_batch

    if path is None:
        path = resources.files("boardgym.agents.backgammon") / "data" / BENCH_FILE
    try:
        with np.load(str(path)) as z:
            bench = {k: z[k] for k in _KEYS}
            meta = json.loads(str(z["meta"])) if "meta" in z.files else {}
    except (OSError, ValueError, KeyError) as e:
        raise ValueError(f"{path} is not a rollout benchmark set ({e})") from None
    bench["states"] = check_batch(bench["states"].astype(np.int64), "states")
    bench["cand_rows"] = check_batch(bench["cand_rows"].astype(np.int64), "cand_rows")
    st = bench["starts"]
    if st.ndim != 1 or len(st) != len(bench["states"]) + 1 or st[0] != 0:
        raise ValueError(f"{path}: bad starts")
    if st[-1] != len(bench["cand_rows"]) or (np.diff(st) < 2).any():
        raise ValueError(f"{path}: bad starts")
    bench["meta"] = meta
    return bench


def agent_errors(agent: Any, bench: dict[str, Any]) -> tuple[npt.NDArray[np.float64], int]:
    """Equity lost at each decision of the set by agent (AfterstateAgent-like: afterstates(state,
    d1, d2) and choose(rows)) against the rollout-best candidate -> (losses float64[N], plays
    outside the candidates, charged the worst candidate's loss)."""
    states, starts = bench["states"], bench["starts"]
    losses = np.empty(len(states))
    outside = 0
    for i, s in enumerate(states):
        d1, d2 = game.dice_of(s)
        rows = np.array(agent.afterstates(s, int(d1), int(d2)))
        chosen = rows[agent.choose(rows)]
        cand = bench["cand_rows"][starts[i] : starts[i + 1]]
        eq = bench["cand_eq"][starts[i] : starts[i + 1]]
        hit = np.flatnonzero((cand == chosen).all(axis=1))
        if len(hit):
            losses[i] = eq.max() - eq[hit[0]]
        else:
            losses[i] = eq.max() - eq.min()
            outside += 1
    return losses, outside


def summary(losses: npt.NDArray[np.float64], outside: int) -> dict[str, float]:
    """{mEMG per move, its 95% half-width, decisions, outside, blunders (> 0.08)} of losses."""
    n = len(losses)
    half = 1.96 * losses.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
    return {
        "memg": 1000.0 * float(losses.mean()),
        "memg_half": 1000.0 * float(half),
        "decisions": n,
        "outside": int(outside),
        "blunders": int((losses > 0.08).sum()),
    }
