"""Train a learned draughts evaluation for AlphaBetaAgent: a small MLP distilled from deeper search.

    boardgym train-eval --positions 150000 --label-depth 8 --quiet-only --hidden 64 \
        --out runs/draughts-eval/gen1.npz
    boardgym train-eval --positions 180000 --label-depth 10 --quiet-only --hidden 64 --seed 2 \
        --teacher agents/training/runs/draughts-eval/gen1.npz --chunk 2000 --workers 2 \
        --save-data runs/draughts-eval/gen2-data.npz --out runs/draughts-eval/gen2.npz
    boardgym train-eval --positions 180000 --label-depth 10 --quiet-only --hidden 64 --seed 3 \
        --teacher agents/training/runs/draughts-eval/gen2.npz --chunk 2000 --workers 2 \
        --save-data runs/draughts-eval/gen3-data.npz --out runs/draughts-eval/gen3-plain.npz
    boardgym train-eval --data runs/draughts-eval/gen3-data.npz --features --hidden 64 \
        --epochs 80 --seed 3 --out runs/draughts-eval/draughts-alphabeta.npz
    boardgym evaluate draughts-alphabeta:weights=runs/draughts-eval/draughts-alphabeta.npz \
        draughts-alphabeta --games 200

(the first command made the first-generation net, ``agents/training/runs/draughts-eval/gen1.npz``; the
second, labelled by that net's depth-10 search, the second generation,
``agents/training/runs/draughts-eval/gen2.npz``; the last two, labelled by gen2's depth-10 search and fitted
with the evaluation features, the shipped ``agents/checkpoints/draughts-alphabeta.npz``).

Supervised on self-play: games are played by a shallow AlphaBetaAgent (``--play-depth``) with
random moves mixed in (the first 4 plies and ``--random-move-prob`` of the rest); a fraction
``--sample-prob`` of the positions reached (with ``--quiet-only`` only those where the side to
move has no capture: the search evaluates no others) is labelled with the score of a deeper
material search (``--label-depth``; decided games count +-20 men). The network reads the
198-float observation of the side to move (with ``--features``, followed by the numbers of
``draughts_eval.eval_features``: mobility, pieces en prise, runaway men, balance) and predicts
that score in men: one tanh hidden layer of ``--hidden`` units, Huber loss, Adam, NumPy only
(one BLAS thread, so the same command writes the same file bit for bit). With ``--patterns`` the
fitted network is then given pattern tables (``draughts_eval``: one table per 4x4 window of the
board, 3^8 entries indexed by which of its 8 squares hold a piece of the side to move or of the
opponent), fitted by backfitting to what the network leaves unexplained on the training part
(``fit_patterns``: each entry the shrunk mean of its positions' residuals, ``--pattern-shrink``,
``--pattern-sweeps``); the search adds them to the network's output. The result is an
``boardgym.agents.draughts.evaluation.Evaluation`` (.npz, scale 100) for
``load("draughts-alphabeta", weights=PATH)``: a depth-d search then sees roughly
what the material evaluation sees at the label depth. Everything is seeded by ``--seed``.

Deeper teachers and more cores: ``--teacher PATH`` labels with the search of that learned
evaluation (an .npz Evaluation, e.g. the shipped net) at ``--label-depth`` instead of material
search, so a net can be distilled again from its own deeper search. ``--chunk K`` splits the
positions into chunks of K, each from games of its own seeded by (``--seed``, chunk number):
the data then do not depend on ``--workers``, the processes that label chunks side by side
(``--chunk 0``, the default, is one stream of games, as the shipped net was made).
``--save-data FILE`` keeps the labelled positions (a compressed .npz of observations and
labels), and ``--data FILE`` trains on such a file instead of labelling again. With ``--chunk``
each finished chunk is also kept in ``FILE.chunks/`` until FILE is written: a run that was
killed (a session's end) and is started again with the same command labels only the chunks
still missing, and gives the same data.

The file goes to ``--out``; an existing file is replaced only with ``--force``, and the
package's own checkpoints (``agents/checkpoints/``) never: to update a shipped evaluation,
write elsewhere, compare, and copy it over by hand. On a terminal progress bars (labelled
positions, epochs) run on stderr.
"""

import dataclasses
import os
import time
from pathlib import Path

# one BLAS thread before NumPy loads: the fit's sums (and so the file's bits) depend on the count
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np

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
from boardgym.scripts import cli

WIN_LABEL = 20.0  # men


@dataclasses.dataclass
class Settings:
    """Settings of one training run."""

    positions: int = 100_000
    """labelled positions to generate"""
    label_depth: int = 6
    """depth of the material search that labels a position"""
    play_depth: int = 2
    """depth of the search that plays the self-play games"""
    random_move_prob: float = 0.15
    """probability of a random move after the first 4 plies"""
    sample_prob: float = 0.3
    """probability that a position reached is labelled"""
    quiet_only: bool = False
    """label only quiet positions (no capture to make): the ones the search evaluates"""
    max_plies: int = 200
    """plies per self-play game at most"""
    teacher: str = ""
    """learned evaluation (.npz) whose search labels the positions ("": material search)"""
    chunk: int = 0
    """positions per independently seeded chunk of games (0: one stream of games)"""
    workers: int = 1
    """processes labelling chunks side by side (needs --chunk)"""
    save_data: str = ""
    """also write the labelled positions to this .npz file"""
    data: str = ""
    """train on the positions of this .npz file (written by --save-data) instead of labelling"""
    hidden: int = 32
    """hidden units"""
    features: bool = False
    """also feed the network the evaluation features (draughts_eval.eval_features: mobility,
    pieces en prise, runaway men, balance), computed from each observation: an EVAL_MLP_FEATURES
    evaluation"""
    patterns: bool = False
    """then fit pattern tables (draughts_eval: one per 4x4 window of the board, indexed by its
    contents) to what the fitted network leaves unexplained, added to its output"""
    pattern_shrink: float = 50.0
    """pattern fit: a table entry is its positions' mean residual times n / (n + this), so rare
    contents stay near 0"""
    pattern_sweeps: int = 6
    """pattern fit: passes over the 25 tables (each refitted to the others' remainder)"""
    epochs: int = 30
    """passes over the data"""
    batch: int = 256
    """minibatch size"""
    lr: float = 3e-3
    """Adam learning rate"""
    val_fraction: float = 0.1
    """share of the positions held out to report the validation loss"""
    seed: int = 0
    """seed of the games, the labels' tie-breaks and the initial weights"""
    out: str = "runs/draughts-eval/draughts-alphabeta.npz"
    """where to write the Evaluation (.npz; never one of the package's shipped checkpoints)"""
    force: bool = False
    """replace an existing --out file"""
    quiet: bool = False
    """no progress lines or bars"""

    def check(self):
        cli.require(self.positions >= 10, f"--positions must be at least 10, got {self.positions}")
        cli.require(
            self.pattern_shrink >= 0 and np.isfinite(self.pattern_shrink),
            f"--pattern-shrink must be 0 or more, got {self.pattern_shrink}",
        )
        for name in (
            "hidden",
            "epochs",
            "batch",
            "play_depth",
            "label_depth",
            "max_plies",
            "pattern_sweeps",
        ):
            value = getattr(self, name)
            cli.require(value >= 1, f"--{name.replace('_', '-')} must be at least 1, got {value}")
        for name in ("random_move_prob", "sample_prob"):
            value = getattr(self, name)
            cli.require(
                0.0 <= value <= 1.0, f"--{name.replace('_', '-')} must be in [0, 1], got {value}"
            )
        cli.require(
            self.sample_prob > 0,
            "--sample-prob must be above 0 (no position would ever be labelled)",
        )
        cli.require(
            0.0 <= self.val_fraction < 1.0,
            f"--val-fraction must be in [0, 1), got {self.val_fraction}",
        )
        cli.require(self.lr > 0, f"--lr must be positive, got {self.lr}")
        cli.require(self.chunk >= 0, f"--chunk must be 0 or more, got {self.chunk}")
        cli.require(1 <= self.workers <= 256, f"--workers must be in 1..256, got {self.workers}")
        cli.require(
            self.workers == 1 or self.chunk > 0,
            "--workers above 1 needs --chunk (the chunks are what the workers share)",
        )
        if self.teacher:
            cli.require(os.path.isfile(self.teacher), f"--teacher {self.teacher}: no such file")
            try:
                Evaluation.load(self.teacher)
            except (OSError, ValueError, KeyError) as exc:
                raise cli.UsageError(
                    f"--teacher {self.teacher} is not an evaluation file "
                    f"written by boardgym train-eval: {exc}"
                ) from None
        if self.data:
            cli.require(os.path.isfile(self.data), f"--data {self.data}: no such file")
            cli.require(
                not self.save_data,
                "--data reads labelled positions, --save-data writes new ones: give one of them",
            )
        if self.save_data:
            cli.require(
                not os.path.exists(self.save_data) or self.force,
                f"--save-data {self.save_data} exists; replace it with --force",
            )
        check_out(self.out, self.force)


def shipped_checkpoint(path):
    """Is path one of the package's shipped checkpoints (agents/checkpoints/*)?"""
    from boardgym.agents.registry import CHECKPOINTS

    target = Path(path).expanduser().resolve()
    return target.parent == CHECKPOINTS.resolve()


def check_out(path, force=False):
    """UsageError unless path may be written: never a shipped checkpoint, an existing file only
    with force, never a directory."""
    cli.require(bool(path), "--out must name a file")
    cli.require(
        not shipped_checkpoint(path),
        f"--out {path} is inside the package's shipped checkpoints; write the new "
        "evaluation elsewhere (compare it with boardgym evaluate first)",
    )
    cli.require(not os.path.isdir(path), f"--out {path} is a directory; name a .npz file")
    final = path if str(path).endswith(".npz") else f"{path}.npz"  # Evaluation.save's name
    cli.require(
        force or not os.path.exists(final),
        f"--out {final} exists; replace it with --force or give another --out",
    )


def generate(cfg, progress=None):
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


def chunk_store(cfg):
    """The directory that keeps finished chunks of a ``--save-data`` run with ``--chunk``
    (``<save-data>.chunks``; None otherwise), so that a killed run labels only what is left
    when started again with the same settings. UsageError if it holds another run's chunks."""
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
            raise cli.UsageError(
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


def save_data(path, x, y, cfg):
    """Write labelled positions (observations and labels, compressed .npz) atomically."""
    from boardgym.agents.files import write_atomically

    write_atomically(
        path,
        lambda tmp: np.savez_compressed(
            tmp, x=x, y=y, label_depth=cfg.label_depth, teacher=cfg.teacher, seed=cfg.seed
        ),
        ".npz",
    )


def load_data(path):
    """(x float32[N, OBS_LEN], y float64[N]) from a file written by save_data."""
    try:
        with np.load(path) as z:
            x, y = np.asarray(z["x"], np.float32), np.asarray(z["y"], np.float64)
    except (OSError, ValueError, KeyError) as exc:
        raise cli.UsageError(f"--data {path} is not a file written by --save-data: {exc}") from None
    if x.ndim != 2 or x.shape[1] != OBS_LEN or y.shape != (len(x),) or len(x) < 10:
        raise cli.UsageError(
            f"--data {path}: expected x (N, {OBS_LEN}) and y (N,), N >= 10; "
            f"got {x.shape} and {y.shape}"
        )
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise cli.UsageError(f"--data {path} holds values that are not finite")
    return x, y


def _huber(r):
    a = np.abs(r)
    return float(np.mean(np.where(a < 1.0, 0.5 * r * r, a - 0.5)))


PATTERN_CLIP = 3.0  # men: a residual counts at most this much in a table's mean (as Huber would)


def fit_patterns(idx, residual, shrink, sweeps):
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


def train(x, y, cfg, log=print, progress=None):
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


def main(args=None):
    """Run with Settings or a list of command-line strings; return a dict of results."""
    cfg = cli.settings(Settings, args, prog="boardgym train-eval", description=__doc__)
    quiet = False if cfg.quiet else None
    t0 = time.perf_counter()
    say = (lambda text: None) if cfg.quiet else print
    if cfg.data:
        x, y = load_data(cfg.data)
        say(
            f"{len(x)} positions read from {cfg.data} (label mean {y.mean():+.2f}, "
            f"sd {y.std():.2f} men)"
        )
    else:
        with cli.Progress(
            cfg.positions, label="labelled positions", unit="positions", enabled=quiet
        ) as bar:
            x, y = generate(cfg, progress=bar.set)
        say(
            f"{len(x)} positions labelled at depth {cfg.label_depth} in "
            f"{time.perf_counter() - t0:.1f} s (label mean {y.mean():+.2f}, sd {y.std():.2f} men)"
        )
        if cfg.save_data:
            os.makedirs(os.path.dirname(os.path.abspath(cfg.save_data)), exist_ok=True)
            save_data(cfg.save_data, x, y, cfg)
            store = chunk_store(cfg)
            if store is not None:  # our own chunk files, now all in --save-data
                import shutil

                shutil.rmtree(store)
            say(f"wrote the labelled positions to {cfg.save_data}")
    t1 = time.perf_counter()
    with cli.Progress(cfg.epochs, label="epochs", unit="epochs", enabled=quiet) as bar:

        def log(text):
            if bar.enabled:
                bar.stream.write("\r\x1b[K")
            say(text)

        ev, lt, lv, base = train(x, y, cfg, log=log, progress=bar.set)
        bar.set(cfg.epochs)
    check_out(cfg.out, cfg.force)  # again: the file may have appeared meanwhile
    folder = os.path.dirname(os.path.abspath(cfg.out))
    os.makedirs(folder, exist_ok=True)
    ev.save(cfg.out)
    print(
        f"trained in {time.perf_counter() - t1:.1f} s (loss of the constant mean {base:.4f}); "
        f"wrote {cfg.out}"
    )
    return {
        "evaluation": ev,
        "train_loss": lt,
        "val_loss": lv,
        "baseline_loss": base,
        "positions": len(x),
        "label_sd": float(y.std()),
        "out": cfg.out,
    }


if __name__ == "__main__":
    cli.script_main(main)
