"""Supervised training of the backgammon model on its own rollouts (``boardgym train --algo
rollout``), in rounds, on the run lifecycle (boardgym.agents.training.lifecycle).

A run starts from a model file (``start_from``: a gnubg-input model, e.g. the shipped
backgammon-td) and repeats ``rounds`` times:

1. **Positions**: ``positions`` afterstates of the model's own 0-ply self-play
   (agents/backgammon/distill.py ``sample_positions``, with its alternative plays
   ``distill_alt``), the games' dice from the round's SplitMix64 stream (``seed``, the round).
2. **Targets**: each position rolled out (agents/backgammon/rollout.py: ``trials`` trials of at
   most ``plies`` half-moves, luck-adjusted; its dice from its own stream, by the round and its
   index) by the model as it was when the round began, in pieces of ``PIECE`` positions; after
   each piece the round's dataset ``data_<r>.npz`` (positions, targets, their standard errors,
   how many are done; compressed) is written, so a killed run loses at most one piece.
3. **Fit**: ``fit_epochs`` passes of SGD (distill.py ``fit_positions``, rate ``fit_alpha``, both
   nets) over the datasets of every round so far, in a random order, targets clipped to [0, 1].
4. **Checkpoint**: the model in ``latest.npz`` (with the round count and the settings) and
   ``round_<r>.npz`` (a weights file: ``load("backgammon-td", weights=PATH)``), after the
   model's error at 0-ply on the rollout benchmark set (agents/backgammon/benchmark.py) is
   logged in ``metrics.jsonl``.

A resumed run (``resume``) continues from ``latest.npz`` and the round's dataset: the same
positions, the same dice, the same fit, so it ends with the model an unbroken run ends with.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from boardgym.agents.files import write_atomically
from boardgym.agents.training.lifecycle import Run

__all__ = ["PIECE", "RUN_FILES", "RolloutSettings", "train_rollouts"]

#: positions rolled out between two writes of a round's dataset
PIECE = 256
#: files a rollout run writes into its directory (moved aside by --force)
RUN_FILES = ("metrics.jsonl", "latest.npz", "latest.npz.tmp*", "data_*.npz", "round_*.npz", "tb")
#: the base of the training streams (the benchmark set's seed lies elsewhere)
_SEED_BASE = 1_000_000_007


@dataclasses.dataclass
class RolloutSettings:
    """The settings a rollout run reads, with the defaults of ``boardgym train --algo rollout``
    (whose flags of the same names document them)."""

    start_from: str = ""
    rounds: int = 1
    positions: int = 10_000
    trials: int = 36
    plies: int = 9
    blocks: int = 1
    fit_epochs: int = 2
    fit_alpha: float = 0.02
    distill_alt: float = 0.5
    seed: int = 0
    ckpt_dir: str = ""
    resume: bool = False
    force: bool = False
    tensorboard: bool = True


def _round_stream(seed: int, r: int) -> np.ndarray:
    from boardgym.kernels.rng import seed_rngs

    return seed_rngs(_SEED_BASE + 1000 * int(seed) + r, 1)


def _sample(net, cfg, r):
    """The round's positions (int64[positions, STATE_LEN])."""
    from boardgym.agents.backgammon import distill
    from boardgym.kernels.backgammon.board import STATE_LEN

    rows = np.empty((cfg.positions, STATE_LEN), dtype=np.int64)
    rng = _round_stream(cfg.seed, r)
    n = 0
    while n < cfg.positions:  # sample_positions stops at a full buffer; more games if short
        n += distill.sample_positions(net, rng, 1000, cfg.distill_alt, rows[n:])
    return rows


def _write_data(path, rows, targets, se, done):
    """The round's dataset, compressed (rows as int32, targets and errors as float32)."""
    arrays = {
        "rows": rows.astype(np.int32),
        "targets": targets.astype(np.float32),
        "se": se.astype(np.float32),
        "done": np.int64(done),
    }
    write_atomically(path, lambda tmp: np.savez_compressed(tmp, **arrays), ".npz")


def _read_data(path):
    with np.load(path) as z:
        return (
            z["rows"].astype(np.int64),
            z["targets"].astype(np.float64),
            z["se"].astype(np.float64),
            int(z["done"]),
        )


def _dataset(run, net, cfg, r, log):
    """The round's (rows, targets): read, completed or made from scratch (written as it goes)."""
    from boardgym.agents.backgammon import net as td_net
    from boardgym.agents.backgammon import rollout

    path = os.path.join(run.dir, f"data_{r}.npz")
    if os.path.exists(path):
        rows, targets, se, done = _read_data(path)
    else:
        rows = _sample(net, cfg, r)
        targets = np.zeros((len(rows), td_net.N_OUT), dtype=np.float32)
        se = np.zeros((len(rows), rollout.SE_LEN), dtype=np.float32)
        done = 0
        _write_data(path, rows, targets, se, done)
    t0, start = time.perf_counter(), done
    while done < len(rows):
        k = min(PIECE, len(rows) - done)
        y, e = rollout.rollout_targets(
            net,
            rows[done : done + k],
            cfg.trials,
            cfg.plies,
            ((1000 * cfg.seed + r + 1) << 32) + done,  # position p: stream p of the round
            True,
            cfg.blocks,
        )
        targets[done : done + k] = y
        se[done : done + k] = e
        done += k
        _write_data(path, rows, targets, se, done)
        rate = (done - start) / (time.perf_counter() - t0)
        log(
            f"round {r + 1}: rolled out {done}/{len(rows)} positions, {rate:.2f}/s, "
            f"ETA {(len(rows) - done) / rate / 60:.0f} min, "
            f"mean equity se {float(se[:done, rollout.SE_EQUITY].mean()):.4f}"
        )
    return rows, np.asarray(targets, dtype=np.float64)


def _fit(net, cfg, r, run):
    """epochs of SGD over the datasets of rounds 0..r -> [equity mse before each epoch]."""
    from boardgym.agents.backgammon import distill

    parts = [_read_data(os.path.join(run.dir, f"data_{k}.npz")) for k in range(r + 1)]
    rows = np.ascontiguousarray(np.concatenate([p[0] for p in parts]))
    targets = np.ascontiguousarray(np.clip(np.concatenate([p[1] for p in parts]), 0.0, 1.0))
    g = np.random.default_rng(_SEED_BASE + 1000 * cfg.seed + r)
    return [
        distill.fit_positions(
            net,
            rows,
            targets,
            len(rows),
            g.permutation(len(rows)).astype(np.int64),
            cfg.fit_alpha,
            cfg.fit_alpha,
        )
        for _ in range(cfg.fit_epochs)
    ]


def _bench_error(net):
    """The model's 0-ply error on the shipped rollout benchmark set as metrics.jsonl fields
    (bench_memg, bench_half, bench_outside; none without the set)."""
    from boardgym.agents.backgammon import benchmark
    from boardgym.agents.backgammon.agents import TDAgent

    try:
        bench = benchmark.load_benchmark()
    except ValueError:
        return {}
    s = benchmark.summary(*benchmark.agent_errors(TDAgent(net), bench))
    return {"bench_memg": s["memg"], "bench_half": s["memg_half"], "bench_outside": s["outside"]}


def train_rollouts(
    cfg: Any,
    log: Callable[[str], object] = print,
    progress: Callable[[int, int], object] | None = None,
) -> tuple[np.ndarray, ...]:
    """A rollout-training run (module docstring) in cfg.ckpt_dir; returns the final model tuple.
    log(text): the progress lines; progress(done, total): rounds done and to do."""
    from boardgym.agents.backgammon import net as td_net
    from boardgym.agents.backgammon.weights import MODEL_NAMES, check_params, save_weights

    run = Run(cfg.ckpt_dir, "latest.npz", RUN_FILES, "round", cfg.resume, cfg.force, log)
    if cfg.resume:
        z = run.load(np.load)
        if "round" not in z.files or "hdr" not in z.files:
            raise ValueError(f"--resume: {run.checkpoint} is not a rollout run's checkpoint")
        net = check_params(tuple(z[k].copy() for k in MODEL_NAMES))
        done = int(z["round"])
        seconds = float(z["seconds"])
        saved = json.loads(str(z["settings"]))
        for key in ("positions", "trials", "plies", "seed", "distill_alt", "start_from"):
            if saved[key] != getattr(cfg, key):
                run.keep(key, f"{saved[key]} (asked {getattr(cfg, key)})")
                setattr(cfg, key, saved[key])
        log(f"resumed {run.checkpoint} after {done} rounds")
    else:
        from boardgym.agents.backgammon.agents import TDAgent

        net = td_net.without_prune(tuple(a.copy() for a in TDAgent(cfg.start_from or None).params))
        if net[0][td_net.H_KIND] != td_net.KIND_GNUBG:
            raise ValueError("--start-from must be a gnubg-input model (--model gnubg)")
        done, seconds = 0, 0.0
    settings_json = json.dumps(dataclasses.asdict(cfg))
    metrics = run.open_log(done if cfg.resume else None, cfg.tensorboard, seconds)

    def checkpoint():
        run.save_arrays(
            **dict(zip(MODEL_NAMES, net)),
            round=np.int64(done),
            settings=np.array(settings_json),
            seconds=np.float64(run.seconds()),
        )

    try:
        if not cfg.resume:
            metrics.evaluation({"round": 0, **_bench_error(net)})
            checkpoint()  # a run stopped in its first round resumes from here
        while done < cfg.rounds:
            teacher = tuple(a.copy() for a in net)
            rows, _ = _dataset(run, teacher, cfg, done, log)
            errors = _fit(net, cfg, done, run)
            done += 1
            bench = _bench_error(net)
            metrics.scalar("fit/mse", errors[-1], done)
            line = {"round": done, "positions": len(rows), "mse": errors, **bench}
            metrics.evaluation({**line, "seconds": round(run.seconds(), 1)})
            for key, value in bench.items():
                metrics.scalar(f"bench/{key}", value, done)
            shown = f", benchmark {bench['bench_memg']:.1f} mEMG/move" if bench else ""
            log(
                f"round {done}/{cfg.rounds}: fit equity mse {errors[0]:.5f} -> {errors[-1]:.5f}"
                + shown
            )
            path = os.path.join(run.dir, f"round_{done}.npz")
            save_weights(path, net, round=done, settings=dataclasses.asdict(cfg))
            checkpoint()
            if progress is not None:
                progress(done, cfg.rounds)
    finally:
        run.close()
    return net
