"""A run fitting a backgammon model's pruning net (agents/backgammon/prune.py) in its run
directory, on the run lifecycle (lifecycle.Run): ``boardgym train --game backgammon --algo
prune``.

The model (``--start-from``, the shipped ``backgammon-td`` by default) is not changed: its
pruning net is fitted to it (``--prune-hidden`` units, the plays of ``--prune-games`` games of its
self-play, prune.fit_prune's passes of Adam and held-out games, everything from ``--seed``)
and the model with it is written to ``model.npz`` in the run directory (the model's metadata kept,
this run's settings and recall added as ``prune``), with the fit's report in
``metrics.jsonl`` (``recall``: rows [k, share, equity lost] of prune.prune_recall on the held-out
rolls). A checkpoint after each pass (``latest.npz``:
the pruning net, Adam's moments and steps, the errors so far) lets ``--resume`` go on exactly:
the data are made again from the seed, the same.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from boardgym.agents.training.lifecycle import Run

__all__ = ["RUN_FILES", "train_prune"]

#: the files a pruning run writes (moved aside by --force)
RUN_FILES = ("latest.npz", "model.npz", "metrics.jsonl", "tb")
#: the settings a resumed run keeps from its checkpoint
KEPT = ("start_from", "prune_hidden", "prune_games", "seed")


def _start_model(cfg):
    """(the model of --start-from or the shipped one, the metadata saved with it: {} if none)."""
    from boardgym.agents.backgammon import net as td_net
    from boardgym.agents.backgammon.agents import CHECKPOINTS, TDAgent

    path = cfg.start_from or CHECKPOINTS / "backgammon-td.npz"
    net = TDAgent(path).params
    if net[0][td_net.H_KIND] != td_net.KIND_GNUBG:
        raise ValueError("--start-from must be a gnubg-input model (--model gnubg)")
    with np.load(path) as z:
        meta = json.loads(str(z["meta"])) if "meta" in z.files else {}
    return net, meta


def train_prune(
    cfg: Any,
    log: Callable[[str], object] = print,
    progress: Callable[[int, int], object] | None = None,
) -> tuple[np.ndarray, ...]:
    """The pruning run of cfg (train.py's Settings: start_from, prune_hidden, prune_games, seed,
    ckpt_dir, resume, force, tensorboard; the passes and held-out games: prune.fit_prune's) ->
    the model tuple with its fitted pruning net (also written to model.npz)."""
    from boardgym.agents.backgammon import net as td_net
    from boardgym.agents.backgammon import prune
    from boardgym.agents.backgammon.weights import save_weights

    seed = 1 if cfg.seed is None else int(cfg.seed)
    run = Run(cfg.ckpt_dir, "latest.npz", RUN_FILES, "pass", cfg.resume, cfg.force, log)
    state = None
    seconds = 0.0
    if cfg.resume:
        z = run.load(np.load)
        if "pass_errors" not in z.files:
            raise ValueError(f"--resume: {run.checkpoint} is not a pruning run's checkpoint")
        saved = json.loads(str(z["settings"]))
        for key in KEPT:
            if saved[key] != getattr(cfg, key):
                run.keep(key, f"{saved[key]} (asked {getattr(cfg, key)})")
                setattr(cfg, key, saved[key])
        seed = 1 if cfg.seed is None else int(cfg.seed)
        pm = td_net.as_model(tuple(z[f"p{k}"].copy() for k in range(4)))
        moments = tuple(z[f"m{k}"].copy() for k in range(16))
        state = prune.FitState(pm, moments, z["step"].copy(), [float(e) for e in z["pass_errors"]])
        seconds = float(z["seconds"])
        log(f"resumed {run.checkpoint} after {len(state.errors)} passes")
    net, meta = _start_model(cfg)
    settings_json = json.dumps(dataclasses.asdict(cfg))
    metrics = run.open_log(len(state.errors) if state else None, cfg.tensorboard, seconds)

    def checkpoint(st):
        run.save_arrays(
            **{f"p{k}": a for k, a in enumerate(td_net.main_net(st.net))},
            **{f"m{k}": a for k, a in enumerate(st.moments)},
            step=st.step,
            pass_errors=np.array(st.errors),
            settings=np.array(settings_json),
            seconds=np.float64(run.seconds()),
        )
        metrics.scalar("fit/mse", st.errors[-1], len(st.errors))
        if progress is not None:
            progress(len(st.errors), prune.EPOCHS)

    try:
        model, report = prune.fit_prune(
            net,
            hidden=cfg.prune_hidden,
            games=cfg.prune_games,
            seed=seed,
            log=log,
            state=state,
            on_pass=checkpoint,
        )
        # [k, share, equity lost] rows (a list: a dict in metrics.jsonl is a match's result)
        recall = [[k, round(a, 4), round(b, 5)] for k, (a, b) in report["recall"].items()]
        metrics.evaluation(
            {
                "pass": len(report["mse"]),
                "rows": report["rows"],
                "heldout_rolls": report["heldout_rolls"],
                "recall": recall,
                "seconds": round(run.seconds(), 1),
            }
        )
        table = ", ".join(f"k={k} {a:.3f} {b:.5f}" for k, (a, b) in report["recall"].items())
        log(f"held out: the model's best play in the pruning net's k best (share, lost): {table}")
        path = os.path.join(run.dir, "model.npz")
        # the model's own metadata kept; the pruning run's beside it
        meta["prune"] = {"settings": dataclasses.asdict(cfg), "recall": recall}
        save_weights(path, model, **meta)
        log(f"wrote {path}")
    finally:
        run.close()
    return model
