"""The lifecycle of one training run in its run directory, shared by every trainer
(boardgym.agents.training.td, boardgym.agents.training.ppo).

``Run`` prepares the directory (a new run never writes into another run's files:
run_log.prepare_run_dir), reads the checkpoint a resumed run continues from (a missing or
unreadable one is a ValueError naming it) and logs the settings the checkpoint keeps, opens the
metrics log (run_log.RunLog, from the checkpoint's step on when resumed) with the run's clock
(seconds carried over from the checkpoint), and writes checkpoints atomically (agents/files.py:
a killed writer never leaves half a file). ``chunk`` and ``due`` are the two cadences of
evaluations and checkpoints: a trainer that chooses how far to go (TD: games played in Numba)
stops at the next checkpoint or evaluation, one that is called back (PPO: at every rollout start)
asks whether one is due.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np

from boardgym.agents.files import write_atomically
from boardgym.agents.training.run_log import RunLog, prepare_run_dir

_T = TypeVar("_T")


def save_npz(path: str | os.PathLike, **arrays: np.ndarray) -> None:
    """np.savez of arrays to path through a temporary file (agents/files.write_atomically)."""
    write_atomically(str(path), lambda tmp: np.savez(tmp, **arrays), ".npz")


class Run:
    """One run in run_dir: its checkpoint file, metrics log and clock.

    checkpoint: the file name of the run's latest checkpoint; owned: names or glob patterns of
    the files the run writes (moved aside by force); step_key: the metrics' x axis ("games",
    "steps"); log(text): the run's progress lines. A new run (resume False) refuses a non-empty
    run_dir unless force; a resumed one takes the directory as it is."""

    def __init__(
        self,
        run_dir: str | os.PathLike,
        checkpoint: str,
        owned: Iterable[str],
        step_key: str,
        resume: bool = False,
        force: bool = False,
        log: Callable[[str], None] = print,
    ) -> None:
        self.dir = str(run_dir)
        self.checkpoint = os.path.join(self.dir, checkpoint)
        self.step_key = step_key
        self.resume = bool(resume)
        self.log = log
        self.metrics = None
        self.seconds0, self.t0 = 0.0, time.perf_counter()
        moved = prepare_run_dir(self.dir, resume, force, owned)
        if moved:
            log(f"force: the previous run's files are now in {moved}")

    def load(self, read: Callable[[str], _T]) -> _T:
        """read(path) of the checkpoint a resumed run continues from; ValueError naming the file
        when it is missing or read cannot read it."""
        import pickle
        import zipfile

        if not os.path.exists(self.checkpoint):
            raise ValueError(f"--resume: no checkpoint {self.checkpoint}")
        try:
            return read(self.checkpoint)
        except (OSError, EOFError, ValueError, zipfile.BadZipFile, pickle.UnpicklingError) as e:
            raise ValueError(
                f"--resume: {self.checkpoint} is not a readable checkpoint "
                f"({' '.join(str(e).split())})"
            ) from None

    def keep(self, key: str, shown: object) -> None:
        """Log that the resumed run keeps its checkpoint's setting key (shown: its value)."""
        self.log(f"resume: keeping the checkpoint's {key}={shown}")

    def open_log(self, resume_step: int | None, tensorboard: bool, seconds: float = 0.0) -> RunLog:
        """Open the metrics log (a resumed run's from resume_step on, None: a new run's) and
        start the clock at seconds (the checkpoint's); returns the RunLog."""
        self.metrics = RunLog(self.dir, self.step_key, resume_step, tensorboard)
        self.seconds0, self.t0 = float(seconds), time.perf_counter()
        return self.metrics

    def seconds(self) -> float:
        """Seconds the run has taken, its checkpoint's included."""
        return self.seconds0 + time.perf_counter() - self.t0

    def save(self, write: Callable[[str], Any], suffix: str = "") -> None:
        """Write the checkpoint by write(tmp) on a temporary file, then rename it."""
        write_atomically(self.checkpoint, write, suffix)

    def save_arrays(self, **arrays: np.ndarray) -> None:
        """The checkpoint as an .npz of arrays (save_npz)."""
        save_npz(self.checkpoint, **arrays)

    def close(self) -> None:
        """Close the metrics log (when open)."""
        if self.metrics is not None:
            self.metrics.close()


def chunk(done: int, total: int, ckpt_every: int, eval_every: int) -> int:
    """Steps to go from done: to the next checkpoint (ckpt_every on), the next multiple of
    eval_every (0: no periodic evaluation) or total, whichever comes first."""
    n = min(ckpt_every, total - done)
    if eval_every > 0:
        n = min(n, eval_every - done % eval_every)
    return n


def due(counters: dict[str, Any], key: str, every: int) -> bool:
    """Has counters["steps"] reached counters[key] (the next due step)? If so, move counters[key]
    past the step by multiples of every (0: never due)."""
    if not every or counters["steps"] < counters[key]:
        return False
    while counters[key] <= counters["steps"]:
        counters[key] += every
    return True
