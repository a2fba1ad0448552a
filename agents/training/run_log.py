"""The files of a training run in its run directory: ``metrics.jsonl``, TensorBoard,
and ``prepare_run_dir`` (a new run never writes
into another run's files).

``metrics.jsonl`` holds one JSON object per evaluation (what ``boardgym evaluate --curve``
plots; every run ends with an evaluation, so a finished run always has one)::

    {"games": 40000, "steps": 123456, "seconds": 61.2,
     "random": {"ppg": 0.91, "ci95": [0.87, 0.94], "win_rate": 0.93, "games": 400},
     "greedy": {...}}

``games`` counts finished self-play games, ``steps`` (PPO) the learner's env steps; each
opponent's entry has the learner's points per game, its 95 % interval ``[low, high]``
(``boardgym.agents.arena.stats.mean_interval``: inside the possible range, never of zero width) and
the win rate over ``games`` evaluation games. (Files written before the interval became a pair
hold the interval's half-width as one number; ``boardgym evaluate --curve`` reads both.)
TensorBoard event files go to ``<dir>/tb`` (``tensorboard --logdir <dir>/tb``).

A resumed run opens the log at its checkpoint's step: metrics lines and TensorBoard events from
after the checkpoint (work the interrupted run lost) are dropped, so the logs of an interrupted
and resumed run read like those of an uninterrupted one.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from boardgym.agents.files import write_file_atomically

if TYPE_CHECKING:
    import numpy as np


def prepare_run_dir(
    run_dir: str | os.PathLike[str],
    resume: bool = False,
    force: bool = False,
    owned: Iterable[str] = (),
) -> str | None:
    """Make run_dir ready for a run; returns the folder the previous run's files went to, or None.

    A new run (resume False) refuses a directory that holds anything, with a ValueError naming
    ``--resume`` and ``--force``. With force, the files a run writes (``owned``: names or glob
    patterns, e.g. ``("metrics.jsonl", "latest.npz", "games_*.npz", "tb")``) are moved into
    ``<run_dir>/replaced-<UTC time>/``: nothing is deleted, and the new run's logs and checkpoints
    never mix with the old ones. Other files are left where they are. A resumed run takes the
    directory as it is (the trainer checks its checkpoint)."""
    import glob
    import shutil

    run_dir = str(run_dir)
    if os.path.exists(run_dir) and not os.path.isdir(run_dir):
        raise ValueError(f"run directory {run_dir!r} is a file, not a directory")
    if resume:
        return None
    os.makedirs(run_dir, exist_ok=True)
    entries = sorted(os.listdir(run_dir))
    if not entries:
        return None
    if not force:
        shown = ", ".join(entries[:4]) + (", ..." if len(entries) > 4 else "")
        raise ValueError(
            f"run directory {run_dir!r} is not empty ({shown}): continue that run "
            "with --resume, start over there with --force (its files are moved "
            "to a replaced-<time> folder, nothing is deleted) or give another "
            "--ckpt-dir"
        )
    ours = sorted(
        {
            os.path.basename(m)
            for pattern in owned
            for m in glob.glob(os.path.join(glob.escape(run_dir), pattern))
        }
    )
    if not ours:
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    dest = os.path.join(run_dir, f"replaced-{stamp}")
    k = 1
    while os.path.exists(dest):
        k += 1
        dest = os.path.join(run_dir, f"replaced-{stamp}-{k}")
    os.makedirs(dest)
    for name in ours:
        shutil.move(os.path.join(run_dir, name), os.path.join(dest, name))
    return dest


class RunLog:
    """Append-only metrics and scalars of one run; ``step_key`` names the x axis
    ("games"/"steps")."""

    def __init__(
        self,
        run_dir: str | os.PathLike[str],
        step_key: str,
        resume_step: int | None = None,
        tensorboard: bool = True,
    ) -> None:
        self.path = os.path.join(run_dir, "metrics.jsonl")
        self.step_key = step_key
        os.makedirs(run_dir, exist_ok=True)
        if resume_step is None:
            if os.path.exists(self.path):
                raise ValueError(
                    f"{self.path} exists: a new run never appends to another run's "
                    "log (run_log.prepare_run_dir moves it aside with force)"
                )
        else:
            self._truncate(resume_step)
        if not os.path.exists(self.path):
            open(self.path, "a").close()  # there from the start, even before an evaluation
        self.writer = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError as e:  # torch or tensorboard missing
                raise ValueError(
                    "TensorBoard logs need torch and tensorboard "
                    "(pip install 'boardgym[train]'), or turn them off "
                    "(boardgym train --no-tensorboard)"
                ) from e
            purge = None if resume_step is None else resume_step + 1
            self.writer = SummaryWriter(os.path.join(run_dir, "tb"), purge_step=purge)

    def _truncate(self, step):
        """Keep the metrics lines at or before step (written before the checkpoint was)."""
        if not os.path.exists(self.path):
            return
        with open(self.path) as f:
            lines = [ln for ln in f if ln.strip()]
        kept = [ln for ln in lines if json.loads(ln)[self.step_key] <= step]
        write_file_atomically(self.path, "".join(kept))

    def scalar(self, tag: str, value: float, step: int) -> None:
        if self.writer is not None:
            self.writer.add_scalar(tag, float(value), int(step))

    def evaluation(self, line: Mapping[str, Any]) -> None:
        """Append one evaluation (a dict as in the module docstring) and chart its figures."""
        with open(self.path, "a") as f:
            f.write(json.dumps(line) + "\n")
        step = line[self.step_key]
        for name, res in line.items():
            if isinstance(res, dict):
                for key in ("ppg", "win_rate"):
                    self.scalar(f"eval/{name}_{key}", res[key], step)
        self.flush()

    def flush(self) -> None:
        if self.writer is not None:
            self.writer.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def format_evaluation(results: Mapping[str, Mapping[str, Any]]) -> str:
    """One progress-line text of an evaluation {opponent: points_summary}."""
    return "  ".join(
        f"vs {k}: {r['ppg']:+.3f} ppg [{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}], "
        f"wins {r['win_rate']:.1%}"
        for k, r in results.items()
    )


# ---- reading metrics.jsonl (boardgym evaluate --curve) -------------------------------------
def read_metrics(run_dir: str | os.PathLike[str]) -> tuple[str, list[tuple[int, dict[str, Any]]]]:
    """(path, [(line number, record)]) of RUN_DIR/metrics.jsonl; ValueError naming a bad line."""
    path = os.path.join(run_dir, "metrics.jsonl")
    if not os.path.isfile(path):
        raise ValueError(
            f"no metrics.jsonl in run directory {run_dir!r} "
            "(boardgym train writes one line per evaluation)"
        )
    records = []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}, line {no}: not valid JSON ({e.msg})") from None
            if not isinstance(rec, dict):
                raise ValueError(
                    f"{path}, line {no}: expected a JSON object, got {type(rec).__name__}"
                )
            records.append((no, rec))
    if not records:
        raise ValueError(
            f"{path}: no evaluations yet (a run writes one every --eval-every and at its end)"
        )
    return path, records


def _number(value, where):
    import math

    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where}: expected a finite number, got {value!r}")
    return float(value)


def _ppg_band(ci95, ppg, where):
    """(low, high) of a metrics entry's ci95: a [low, high] pair, or (older files) a half-width."""
    if isinstance(ci95, list):
        if len(ci95) != 2:
            raise ValueError(f"{where}: expected [low, high], got {ci95!r}")
        lo, hi = (_number(v, where) for v in ci95)
        if not lo <= ppg <= hi:
            raise ValueError(f"{where}: interval {ci95!r} does not contain ppg {ppg!r}")
        return lo, hi
    half = _number(ci95, where)
    return ppg - half, ppg + half


def curve_series(
    path: str,
    records: Iterable[tuple[int, Mapping[str, Any]]],
    x: str = "games",
    y: str = "ppg",
) -> dict[str, np.ndarray]:
    """{opponent: (m, 4) float64 array of rows (x, y, low, high)} sorted by x.

    low/high: the ci95 interval for ppg ([low, high], or y -+ ci95 in older files); for win_rate
    the Wilson interval when the opponent entry has a 'games' count, else NaN (no interval).
    Opponents are the keys whose values are objects.
    """
    import math

    import numpy as np

    from boardgym.agents.arena.stats import wilson

    series = {}
    for no, rec in records:
        where = f"{path}, line {no}"
        if x not in rec:
            raise ValueError(f"{where}: no {x!r} key for --x {x} (the line has {sorted(rec)})")
        xv = _number(rec[x], f"{where}, {x!r}")
        opponents = {k: v for k, v in rec.items() if isinstance(v, dict)}
        if not opponents:
            raise ValueError(f"{where}: no opponent entries (objects with ppg, ci95, win_rate)")
        for name, entry in opponents.items():
            if y not in entry:
                raise ValueError(
                    f"{where}: opponent {name!r} has no {y!r} key (it has {sorted(entry)})"
                )
            yv = _number(entry[y], f"{where}, {name}.{y}")
            if y == "ppg":
                if "ci95" not in entry:
                    raise ValueError(f"{where}: opponent {name!r} has no 'ci95' key")
                lo, hi = _ppg_band(entry["ci95"], yv, f"{where}, {name}.ci95")
            elif "games" in entry:
                n = _number(entry["games"], f"{where}, {name}.games")
                lo, hi = wilson(yv * n, n)
            else:
                lo = hi = math.nan
            series.setdefault(name, []).append((xv, yv, lo, hi))
    return {name: np.array(sorted(rows, key=lambda r: r[0])) for name, rows in series.items()}
