"""The one seed check of every env and batched core, applied before anything is seeded.

A seed is ``None`` (fresh entropy) or an integer 0..2**64-1, Python or NumPy (``np.int64(5)`` is a
seed; a bool is not): what both Gymnasium's ``np_random`` and the SplitMix64 streams of
``boardgym.kernels.rng.seed_rngs`` take, and no more (``seed_rngs`` reads 64 bits).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from boardgym.envs.checks import is_int

SEED_LIMIT = 1 << 64  # seeds are 0..SEED_LIMIT - 1


def check_seed(seed: int | None) -> int | None:
    """seed as a Python int (None stays None); TypeError unless an integer, ValueError if it is
    negative or needs more than 64 bits."""
    if seed is None:
        return None
    if not is_int(seed):
        raise TypeError(f"seed must be an integer or None, got {type(seed).__name__} {seed!r}")
    s = int(seed)
    if not 0 <= s < SEED_LIMIT:
        raise ValueError(f"seed must be an integer 0..2**64-1 or None, got {s}")
    return s


def check_seeds(seeds: Sequence[int | None] | npt.NDArray[np.integer], n: int) -> list[int] | None:
    """A sequence of one seed per game (list, tuple or 1-D array) -> the n seeds as Python ints,
    or None when every item is None (or there is none: unseeded); TypeError / ValueError naming
    the bad item, the shape or the length."""
    if isinstance(seeds, np.ndarray) and seeds.ndim != 1:
        raise ValueError(f"seeds must be one per game (1-D), got shape {seeds.shape}")
    out = [check_seed(s.item() if isinstance(s, np.generic) else s) for s in seeds]
    if len({s is None for s in out}) > 1:
        raise ValueError(f"seeds must be all integers or all None, got {list(seeds)!r}")
    if not out or out[0] is None:
        return None
    if len(out) != n:
        raise ValueError(f"seeds must be one per game: {n}, got {len(out)}")
    return out
