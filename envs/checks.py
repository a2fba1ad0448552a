"""The integer checks every validated entry point shares (envs, agents, scripts).

A bool is never an integer here, although Python counts it as one: ``True`` as a die, an action
count or a seed is a mistake, not a 1.
"""

from __future__ import annotations

import numbers

import numpy as np


def is_int(x: object) -> bool:
    """True for a Python or NumPy integer that is not a bool."""
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_))


def check_int(x: object, what: str) -> int:
    """x as a Python int; TypeError naming ``what`` unless it is an integer (bool is not one)."""
    if not is_int(x):
        raise TypeError(f"{what} must be an integer, got {type(x).__name__} {x!r}")
    return int(x)
