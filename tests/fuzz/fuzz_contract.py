"""The contract every public entry point must keep on hostile input, and the argument record.

A call either returns normally or raises ``ValueError`` / ``TypeError`` whose message names the
problem: non-empty, and no Numba internals in it (``TypingError``, ``numba``, ``LoweringError``,
``Traceback``). It never hangs and never kills the interpreter (the subprocess runner,
tests/helpers/isolated_run.py, checks those two). When an argument is certainly invalid (a
checker count of 99, a die of 7, a state of the wrong shape ...), the call must raise: returning
normally is "accepted invalid input" — a silently wrong answer.
"""

import re
from dataclasses import dataclass

import numpy as np

ALLOWED = (ValueError, TypeError)
BANNED_WORDS = ("typingerror", "numba", "loweringerror", "traceback", "nopython")


@dataclass(frozen=True)
class Arg:
    """One drawn argument: the value, how to rebuild it (text), and why it is certainly invalid
    ("" if it may be fine: then the call may return or raise)."""

    value: object
    text: str
    invalid: str = ""


class AcceptedInvalid(Exception):
    """Raised by the drivers when a sub-call returned normally on input it had to reject."""


def describe(value, limit=1200):
    """A short, reproducible Python-ish text of value (arrays with dtype and contents)."""
    if isinstance(value, np.ndarray):
        if value.size <= 160:
            try:
                body = repr(value.tolist())
            except Exception:  # noqa: BLE001 - odd object arrays
                body = "?"
            return f"np.array({body}, dtype={value.dtype.str!r}).reshape({value.shape})"[:limit]
        return f"<{value.dtype} array of shape {value.shape}>"
    if isinstance(value, dict):
        items = ", ".join(f"{k!r}: {describe(v, 300)}" for k, v in value.items())
        return ("{" + items + "}")[:limit]
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
        inner = ", ".join(describe(v, 300) for v in value)
        return (f"[{inner}]" if isinstance(value, list) else f"({inner},)")[:limit]
    try:
        text = repr(value)
    except Exception as e:  # noqa: BLE001
        text = f"<unrepresentable {type(value).__name__}: {e}>"
    return text if len(text) <= limit else text[:limit] + "..."


def judge(exc, must_reject):
    """None if the outcome keeps the contract, else (category, text) of the violation.

    exc: the exception raised (None when the call returned); must_reject: why it had to raise
    ("" when returning is fine)."""
    if exc is None:
        return ("accepted invalid input", must_reject) if must_reject else None
    if isinstance(exc, AcceptedInvalid):
        return "accepted invalid input", str(exc)
    name = f"{type(exc).__module__}.{type(exc).__qualname__}"
    msg = str(exc)
    if not isinstance(exc, ALLOWED):
        return f"raised {name}", msg
    if type(exc).__module__.startswith("numba"):
        return f"raised Numba's {name}", msg
    if not msg.strip():
        return f"raised {name} with an empty message", msg
    low = msg.lower()
    for word in BANNED_WORDS:
        if word in low:
            return f"raised {name} with Numba internals in the message ({word})", msg
    return None


def signature(target, category, detail):
    """Dedup key of a violation: the target, what went wrong, and the first line of the message
    (or the reason the input was invalid) with its numbers blanked."""
    first = detail.strip().splitlines()[0] if detail.strip() else ""
    norm = re.sub(r"-?\d+", "N", first)[:100]
    return f"{target} | {category} | {norm}"
