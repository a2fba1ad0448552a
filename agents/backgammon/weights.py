"""Weights I/O of the backgammon models (agents/backgammon/net.py's model tuple): ``save_weights``
writes a model to an ``.npz`` file with JSON metadata, ``load_weights`` reads one back (a
gnubg-input model with its race net, or a Tesauro (w1, b1, w2, b2) net: every checkpoint written
before loads), ``check_params`` validates the arrays of a model (shapes, dtypes, finite values)
and returns its model tuple. The bear-off table of a gnubg model is not in its checkpoint: it
comes from agents/backgammon/bearoff.py (generated once, then kept in the user's cache folder).
A model's pruning net (agents/backgammon/prune.py) is saved with it when it has one
(``PRUNE_NAMES``); a file without one loads with an empty one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from boardgym.agents.backgammon import bearoff as bg_bearoff
from boardgym.agents.backgammon import net as td_net
from boardgym.agents.files import write_atomically

__all__ = [
    "MODEL_NAMES",
    "PRUNE_NAMES",
    "TESAURO_NAMES",
    "save_weights",
    "load_weights",
    "check_params",
]

#: the arrays of a model tuple saved by name (the bear-off table is generated, never saved)
MODEL_NAMES = ("hdr", "w1", "b1", "w2", "b2", "rw1", "rb1", "rw2", "rb2")
#: the pruning net's arrays (td_net.I_PRUNE on), saved by these names when it has units
PRUNE_NAMES = ("pw1", "pb1", "pw2", "pb2")
TESAURO_NAMES = ("w1", "b1", "w2", "b2")


def save_weights(path: str | os.PathLike[str], params: Sequence[np.ndarray], **meta: Any) -> None:
    """Write a model (a model tuple or a bare (w1, b1, w2, b2)) and JSON metadata to path (.npz),
    atomically (temp file + rename). A Tesauro net is written as (w1, b1, w2, b2) only, the format
    every earlier checkpoint has."""
    model = check_params(params)
    if model[0][td_net.H_KIND] == td_net.KIND_TESAURO:
        arrays = dict(zip(TESAURO_NAMES, td_net.main_net(model)))
    else:
        arrays = dict(zip(MODEL_NAMES, model))
    if model[td_net.I_PRUNE + 1].shape[0] > 0:
        arrays.update(zip(PRUNE_NAMES, model[td_net.I_PRUNE :]))
    write_atomically(
        str(path), lambda tmp: np.savez(tmp, **arrays, meta=np.array(json.dumps(meta))), ".npz"
    )


def load_weights(path: str | os.PathLike[str]) -> tuple[np.ndarray, ...]:
    """The model tuple (td_net's layout, float64) of a save_weights file or a train.py
    checkpoint (a gnubg-input model with its race net and its pruning net if saved, or a Tesauro
    (w1, b1, w2, b2) net); ValueError if bad."""
    try:
        z = np.load(str(path))
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read TD weights from {path}: {e}") from None
    names = MODEL_NAMES if "hdr" in z.files else TESAURO_NAMES
    missing = [k for k in names if k not in z.files]
    if missing:
        raise ValueError(f"{path} is not a TD weights file (missing {missing})")
    arrays = tuple(z[k] for k in names)
    if names == MODEL_NAMES and all(k in z.files for k in PRUNE_NAMES):
        arrays = (*arrays, None, *(z[k] for k in PRUNE_NAMES))
    try:
        return check_params(arrays)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: {e}") from None


def _float_arrays(params, names):
    arrays = []
    for name, p in zip(names, params):
        if not isinstance(p, np.ndarray) or p.dtype.kind not in "fiu":
            raise TypeError(f"TD weight {name} must be a float array, got {type(p).__name__}")
        arrays.append(np.ascontiguousarray(p, dtype=np.float64))
    if not all(np.isfinite(a).all() for a in arrays):
        raise ValueError("TD weights hold NaN or infinity")
    return arrays


def _check_net(w1, b1, w2, b2, n_inputs, what, allow_empty=False):
    h = b1.shape[0] if b1.ndim == 1 else -1
    if (
        (h < 1 and not (allow_empty and h == 0))
        or w1.shape != (n_inputs, h)
        or w2.shape != (h, td_net.N_OUT)
        or b2.shape != (td_net.N_OUT,)
    ):
        raise ValueError(
            f"inconsistent {what} shapes {w1.shape} {b1.shape} {w2.shape} "
            f"{b2.shape} (want ({n_inputs}, H) (H,) (H, {td_net.N_OUT}) "
            f"({td_net.N_OUT},))"
        )


def check_params(params: Sequence[np.ndarray | None]) -> tuple[np.ndarray, ...]:
    """The model tuple (td_net's layout: C-contiguous float64 arrays, all finite) of params: a
    model tuple, or its first 9 (MODEL_NAMES) or 10 arrays (the bear-off table, generated when
    left out or None; the pruning net empty when left out), or a bare Tesauro net (w1, b1, w2,
    b2) (W1 [196, H], b1 [H], W2 [H, 5], b2 [5]); TypeError / ValueError naming the problem."""
    n_model = len(MODEL_NAMES)
    if not isinstance(params, (tuple, list)) or len(params) not in (
        4,
        n_model,
        n_model + 1,
        td_net.MODEL_LEN,
    ):
        raise TypeError("TD weights are a (w1, b1, w2, b2) tuple of arrays or a td_net model tuple")
    if len(params) == 4:
        w1, b1, w2, b2 = _float_arrays(params, TESAURO_NAMES)
        _check_net(w1, b1, w2, b2, td_net.N_INPUTS, "TD weight")
        return td_net.as_model((w1, b1, w2, b2))
    arrays = _float_arrays(params[: len(MODEL_NAMES)], MODEL_NAMES)
    hdr = arrays[0]
    if hdr.shape != (td_net.HDR_LEN,) or hdr[td_net.H_KIND] not in (
        td_net.KIND_TESAURO,
        td_net.KIND_GNUBG,
    ):
        raise ValueError(f"bad model header {hdr!r}")
    gnubg = hdr[td_net.H_KIND] == td_net.KIND_GNUBG
    _check_net(*arrays[1:5], td_net.N_GNUBG_INPUTS if gnubg else td_net.N_INPUTS, "TD weight")
    _check_net(*arrays[5:9], td_net.N_RACE_INPUTS, "race net", allow_empty=True)
    table = params[td_net.I_TABLE] if len(params) > n_model else None
    if table is not None:
        if not isinstance(table, np.ndarray) or table.ndim != 2:
            raise TypeError("the bear-off table of a model is a 2-d float array")
        table = np.ascontiguousarray(table, dtype=np.float64)
        if table.shape not in ((0, 0), (bg_bearoff.N_POSITIONS, bg_bearoff.TABLE_WIDTH)):
            raise ValueError(f"bad bear-off table shape {table.shape}")
    else:
        table = bg_bearoff.table() if gnubg else np.zeros((0, 0))
    if not gnubg:
        table = np.zeros((0, 0))
    prune = td_net.no_prune()
    if len(params) == td_net.MODEL_LEN:
        prune = _float_arrays(params[td_net.I_PRUNE :], PRUNE_NAMES)
        _check_net(*prune, td_net.N_INPUTS, "pruning net", allow_empty=True)
    return (*arrays, table, *prune)
