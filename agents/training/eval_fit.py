"""Fitting the draughts search's learned evaluation: labelled self-play positions, then a small
MLP (and pattern tables) distilled from a deeper search; the library of ``boardgym train-eval``.

``generate`` plays self-play games with a shallow AlphaBetaAgent (random moves mixed in) and
labels a fraction of the positions reached with the score of a deeper search (material, or a
learned ``teacher`` evaluation), in men; one stream of games or independently seeded chunks,
labelled by worker processes and kept in ``<save-data>.chunks/`` until the data file is
written. ``save_data`` / ``load_data`` keep the labelled positions; ``train`` fits the MLP
(Huber loss, Adam, NumPy only) and with ``patterns`` the pattern tables (``fit_patterns``) and
returns an ``Evaluation``. ``check_out`` says whether an output path may be written (never a
shipped checkpoint). Settings are duck-typed: ``cfg`` is any object with the fields of
``boardgym train-eval``'s Settings that a function reads. Bad input is a ValueError naming it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from boardgym.agents.draughts.agents import AlphaBetaAgent
from boardgym.agents.draughts.evaluation import (
    N_FEATURES,
    N_WINDOWS,
    PATTERN_ENTRIES,
    Evaluation,
    features_of_obs,
    pattern_indices_of_obs,
)
from boardgym.agents.draughts.search import WIN_BOUND
from boardgym.kernels.draughts.board import M_CAPTURED, MAX_MOVES, ROW_LEN, S_SIDE
from boardgym.kernels.draughts.game import (
    OBS_LEN,
    ONGOING,
    encode_obs,
    game_status,
    gen_moves,
    initial_state,
    play_move,
)

WIN_LABEL = 20.0  # men


def shipped_checkpoint(path: str | os.PathLike[str]) -> bool:
    """Is path one of the package's shipped checkpoints (agents/checkpoints/*)?"""
    from boardgym.agents.registry import CHECKPOINTS

    target = Path(path).expanduser().resolve()
    return target.parent == CHECKPOINTS.resolve()


def check_out(path: str | os.PathLike[str], force: bool = False) -> None:
    """ValueError unless path may be written: never a shipped checkpoint, an existing file only
    with force, never a directory."""
    if not path:
        raise ValueError("--out must name a file")
    if shipped_checkpoint(path):
        raise ValueError(
            f"--out {path} is inside the package's shipped checkpoints; write the new "
            "evaluation elsewhere (compare it with boardgym evaluate first)"
        )
    if os.path.isdir(path):
        raise ValueError(f"--out {path} is a directory; name a .npz file")
    final = path if str(path).endswith(".npz") else f"{path}.npz"  # Evaluation.save's name
    if not force and os.path.exists(final):
        raise ValueError(f"--out {final} exists; replace it with --force or give another --out")


def generate(
    cfg: Any, progress: Callable[[int], object] | None = None
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float64]]:
    """(X float32[N, OBS_LEN], y float64[N]) labelled self-play positions: one stream of games
    (``cfg.chunk`` 0) or chunks of games, labelled by ``cfg.workers`` processes.
    progress(positions labelled so far)."""
    if cfg.chunk <= 0:
        return _label_games(cfg, cfg.positions, np.random.default_rng(cfg.seed), cfg.seed, progress)
    sizes = [min(cfg.chunk, cfg.positions - i) for i in range(0, cfg.positions, cfg.chunk)]
    x = np.zeros((cfg.positions, OBS_LEN), np.float32)
    y = np.zeros(cfg.positions)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    store = chunk_store(cfg)
    done = 0
    todo = []
    for k, size in enumerate(sizes):
        kept = None if store is None else _read_chunk(store, k, size)
        if kept is None:
            todo.append(k)
        else:
            x[starts[k] : starts[k + 1]], y[starts[k] : starts[k + 1]] = kept
            done += size
    if progress is not None and done:
        progress(done)

    def finished(k, xc, yc):
        nonlocal done
        x[starts[k] : starts[k + 1]], y[starts[k] : starts[k + 1]] = xc, yc
        if store is not None:
            _write_chunk(store, k, xc, yc)
        done += sizes[k]
        if progress is not None:
            progress(done)

    if cfg.workers == 1:
        for k in todo:
            finished(k, *_label_chunk(cfg, k, sizes[k]))
        return x, y
    import concurrent.futures
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")  # no fork of a process with Numba threads
    with concurrent.futures.ProcessPoolExecutor(cfg.workers, mp_context=ctx) as pool:
        futures = {pool.submit(_label_chunk, cfg, k, sizes[k]): k for k in todo}
        for fut in concurrent.futures.as_completed(futures):
            finished(futures[fut], *fut.result())
    return x, y


#: the settings that decide a chunk's positions and labels (a resumed run must share them)
CHUNK_SETTINGS = (
    "seed",
    "chunk",
    "label_depth",
    "play_depth",
    "random_move_prob",
    "sample_prob",
    "quiet_only",
    "max_plies",
)


def chunk_store(cfg: Any) -> Path | None:
    """The directory that keeps finished chunks of a ``--save-data`` run with ``--chunk``
    (``<save-data>.chunks``; None otherwise), so that a killed run labels only what is left
    when started again with the same settings. ValueError if it holds another run's chunks."""
    if not (cfg.save_data and cfg.chunk > 0):
        return None
    import hashlib
    import json

    store = Path(cfg.save_data + ".chunks")
    meta = {name: getattr(cfg, name) for name in CHUNK_SETTINGS}
    meta["teacher_sha256"] = (
        hashlib.sha256(Path(cfg.teacher).read_bytes()).hexdigest() if cfg.teacher else ""
    )
    info = store / "settings.json"
    if store.exists():
        try:
            old = json.loads(info.read_text())
        except (OSError, ValueError):
            old = None
        if old != meta:
            raise ValueError(
                f"{store} holds chunks labelled with other settings (or is not ours); move it "
                f"away or give another --save-data (this run: {meta})"
            )
    else:
        store.mkdir(parents=True)
        info.write_text(json.dumps(meta, indent=1))
    return store


def _chunk_path(store, k, size):
    return store / f"chunk_{k:06d}_{size}.npz"


def _write_chunk(store, k, x, y):
    from boardgym.agents.files import write_atomically

    write_atomically(
        str(_chunk_path(store, k, len(y))), lambda tmp: np.savez_compressed(tmp, x=x, y=y), ".npz"
    )


def _read_chunk(store, k, size):
    """(x, y) of chunk k kept by an earlier run, or None (not there, another size, unreadable)."""
    path = _chunk_path(store, k, size)
    if not path.exists():
        return None
    try:
        with np.load(path) as z:
            x, y = np.asarray(z["x"], np.float32), np.asarray(z["y"], np.float64)
    except (OSError, ValueError, KeyError):
        return None
    return (x, y) if x.shape == (size, OBS_LEN) and y.shape == (size,) else None


def _label_chunk(cfg, k, size):
    """Chunk k of cfg.chunk positions: games of its own, seeded by (cfg.seed, k)."""
    return _label_games(
        cfg,
        size,
        np.random.default_rng([cfg.seed, k]),
        int(np.random.SeedSequence([cfg.seed, k]).generate_state(1)[0]),
        None,
    )


def _label_games(cfg, positions, rng, seed, progress):
    buf = np.empty((MAX_MOVES, ROW_LEN), np.int64)
    player = AlphaBetaAgent(depth=cfg.play_depth, seed=seed, tt_bits=12, egdb=False)
    labeler = AlphaBetaAgent(
        depth=cfg.label_depth, seed=seed, tt_bits=18, egdb=False, evaluation=cfg.teacher or None
    )
    x = np.zeros((positions, OBS_LEN), np.float32)
    y = np.zeros(positions)
    n = 0
    while n < positions:
        s = initial_state()
        for ply in range(cfg.max_plies):
            if ply < 4 or rng.random() < cfg.random_move_prob:
                k = gen_moves(s, buf)
                s = play_move(s, buf[int(rng.integers(k))])
            else:
                row, _ = player.choose_move(s)
                s = play_move(s, row)
            if game_status(s) != ONGOING:
                break
            if rng.random() < cfg.sample_prob:
                if cfg.quiet_only and gen_moves(s, buf) and buf[0, M_CAPTURED] != 0:
                    continue  # the search never evaluates a position with a capture to make
                _, score = labeler.search(s, depth=cfg.label_depth)
                if abs(score) > WIN_BOUND:
                    y[n] = np.sign(score) * WIN_LABEL
                else:
                    y[n] = np.clip(score / 100.0, -WIN_LABEL, WIN_LABEL)
                encode_obs(s, s[S_SIDE], 0, x[n])
                n += 1
                if progress is not None:
                    progress(n)
                if n == positions:
                    break
    return x, y


def save_data(path: str | os.PathLike[str], x: np.ndarray, y: np.ndarray, cfg: Any) -> None:
    """Write labelled positions (observations and labels, compressed .npz) atomically."""
    from boardgym.agents.files import write_atomically

    write_atomically(
        path,
        lambda tmp: np.savez_compressed(
            tmp, x=x, y=y, label_depth=cfg.label_depth, teacher=cfg.teacher, seed=cfg.seed
        ),
        ".npz",
    )


def load_data(
    path: str | os.PathLike[str],
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float64]]:
    """(x float32[N, OBS_LEN], y float64[N]) from a file written by save_data; ValueError naming
    --data if it is not one."""
    try:
        with np.load(path) as z:
            x, y = np.asarray(z["x"], np.float32), np.asarray(z["y"], np.float64)
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"--data {path} is not a file written by --save-data: {exc}") from None
    if x.ndim != 2 or x.shape[1] != OBS_LEN or y.shape != (len(x),) or len(x) < 10:
        raise ValueError(
            f"--data {path}: expected x (N, {OBS_LEN}) and y (N,), N >= 10; "
            f"got {x.shape} and {y.shape}"
        )
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError(f"--data {path} holds values that are not finite")
    return x, y


def _huber(r):
    a = np.abs(r)
    return float(np.mean(np.where(a < 1.0, 0.5 * r * r, a - 0.5)))


PATTERN_CLIP = 3.0  # men: a residual counts at most this much in a table's mean (as Huber would)


def fit_patterns(
    idx: npt.NDArray[np.int64], residual: np.ndarray, shrink: float, sweeps: int
) -> npt.NDArray[np.float64]:
    """Pattern tables (N_WINDOWS, PATTERN_ENTRIES) whose sum over a position's windows fits the
    residuals: idx (n, N_WINDOWS) the windows' numbers (pattern_indices_of_obs), residual (n,)
    what the network leaves. Backfitting: each sweep refits every table in turn to the residual
    less the other tables, an entry being the mean of its positions' remainders (clipped to
    +-PATTERN_CLIP) times n / (n + shrink)."""
    tables = np.zeros((N_WINDOWS, PATTERN_ENTRIES))
    fit = np.zeros(len(residual))
    counts = [np.bincount(idx[:, k], minlength=PATTERN_ENTRIES) for k in range(N_WINDOWS)]
    for _ in range(sweeps):
        for k in range(N_WINDOWS):
            fit -= tables[k, idx[:, k]]
            rest = np.clip(residual - fit, -PATTERN_CLIP, PATTERN_CLIP)
            tables[k] = np.bincount(idx[:, k], weights=rest, minlength=PATTERN_ENTRIES) / (
                counts[k] + shrink + 1e-12
            )
            fit += tables[k, idx[:, k]]
    return tables


def train(
    x: np.ndarray,
    y: np.ndarray,
    cfg: Any,
    log: Callable[[str], object] = print,
    progress: Callable[[int], object] | None = None,
) -> tuple[Evaluation, float, float, float]:
    """Fit the MLP (and with cfg.patterns then the pattern tables); return (Evaluation, train
    loss, validation loss, loss of the constant mean). progress(epochs done) before each epoch."""
    rng = np.random.default_rng(cfg.seed + 1)
    windows = None
    if cfg.patterns:
        windows = np.zeros((len(x), N_WINDOWS), dtype=np.int64)
        pattern_indices_of_obs(np.ascontiguousarray(x, dtype=np.float32), windows)
    if cfg.features:
        extra = np.zeros((len(x), N_FEATURES), dtype=np.float32)
        features_of_obs(x, extra)
        x = np.concatenate([x, extra], axis=1)
    n_in = x.shape[1]
    n_val = int(len(x) * cfg.val_fraction)
    perm = rng.permutation(len(x))
    xv, yv = x[perm[:n_val]].astype(np.float64), y[perm[:n_val]]
    xt, yt = x[perm[n_val:]].astype(np.float64), y[perm[n_val:]]
    h = cfg.hidden
    params = [
        rng.normal(0, 1 / np.sqrt(n_in), (h, n_in)),
        np.zeros(h),
        rng.normal(0, 1 / np.sqrt(h), h),
        np.zeros(1),
    ]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    b1_, b2_, eps = 0.9, 0.999, 1e-8
    step = 0

    def predict(xx):
        a = np.tanh(xx @ params[0].T + params[1])
        return a @ params[2] + params[3][0], a

    for ep in range(cfg.epochs):
        if progress is not None:
            progress(ep)
        order = rng.permutation(len(xt))
        for i in range(0, len(xt), cfg.batch):
            idx = order[i : i + cfg.batch]
            xb, yb = xt[idx], yt[idx]
            p, a = predict(xb)
            g = np.clip(p - yb, -1.0, 1.0) / len(idx)  # Huber gradient
            dz = np.outer(g, params[2]) * (1 - a * a)
            grads = [dz.T @ xb, dz.sum(0), a.T @ g, np.array([g.sum()])]
            step += 1
            for k in range(4):
                m[k] = b1_ * m[k] + (1 - b1_) * grads[k]
                v[k] = b2_ * v[k] + (1 - b2_) * grads[k] ** 2
                mh = m[k] / (1 - b1_**step)
                vh = v[k] / (1 - b2_**step)
                params[k] -= cfg.lr * mh / (np.sqrt(vh) + eps)
        if (ep + 1) % max(1, cfg.epochs // 6) == 0 or ep + 1 == cfg.epochs:
            lt = _huber(predict(xt)[0] - yt)
            lv = _huber(predict(xv)[0] - yv) if n_val else float("nan")
            log(f"epoch {ep + 1:3d}  train loss {lt:.4f}  validation loss {lv:.4f}")
    pt = predict(xt)[0]
    lt = _huber(pt - yt)
    pv = predict(xv)[0] if n_val else None
    lv = _huber(pv - yv) if n_val else float("nan")
    tables = None
    if cfg.patterns:
        it, iv = windows[perm[n_val:]], windows[perm[:n_val]]
        tables = fit_patterns(it, yt - pt, cfg.pattern_shrink, cfg.pattern_sweeps)
        lt = _huber(pt + tables[np.arange(N_WINDOWS), it].sum(1) - yt)
        lv0, lv = (
            lv,
            (_huber(pv + tables[np.arange(N_WINDOWS), iv].sum(1) - yv) if n_val else float("nan")),
        )
        log(
            f"pattern tables: train loss {lt:.4f}  validation loss {lv:.4f} (the network "
            f"alone: {lv0:.4f})"
        )
    base = _huber(yt - yt.mean())
    return (
        Evaluation.mlp(
            params[0],
            params[1],
            params[2],
            params[3][0],
            scale=100.0,
            features=cfg.features,
            patterns=tables,
        ),
        lt,
        lv,
        base,
    )
