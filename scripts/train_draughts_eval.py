r"""Train a learned draughts evaluation for AlphaBetaAgent: a small MLP distilled from deep search.

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

(the first command made the first-generation net,
``agents/training/runs/draughts-eval/gen1.npz``; the second, labelled by that net's depth-10
search, the second generation, ``agents/training/runs/draughts-eval/gen2.npz``; the last two,
labelled by gen2's depth-10 search and fitted with the evaluation features, the shipped
``agents/checkpoints/draughts-alphabeta.npz``).

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

# one BLAS thread before NumPy loads: the fit's sums (and so the file's bits) depend on the count
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np

from boardgym.agents.draughts.evaluation import Evaluation
from boardgym.agents.training import eval_fit
from boardgym.scripts import cli


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
        _usage(eval_fit.check_out, self.out, self.force)


def _usage(fn, *args):
    """fn(*args), its ValueError (a bad --out, --data or --save-data) raised as a UsageError."""
    try:
        return fn(*args)
    except ValueError as exc:
        raise cli.UsageError(str(exc)) from None


def main(args=None):
    """Run with Settings or a list of command-line strings; return a dict of results."""
    cfg = cli.settings(Settings, args, prog="boardgym train-eval", description=__doc__)
    quiet = False if cfg.quiet else None
    t0 = time.perf_counter()
    say = (lambda text: None) if cfg.quiet else print
    if cfg.data:
        x, y = _usage(eval_fit.load_data, cfg.data)
        say(
            f"{len(x)} positions read from {cfg.data} (label mean {y.mean():+.2f}, "
            f"sd {y.std():.2f} men)"
        )
    else:
        store = _usage(eval_fit.chunk_store, cfg)  # another run's chunks: refused before labelling
        with cli.Progress(
            cfg.positions, label="labelled positions", unit="positions", enabled=quiet
        ) as bar:
            x, y = eval_fit.generate(cfg, progress=bar.set)
        say(
            f"{len(x)} positions labelled at depth {cfg.label_depth} in "
            f"{time.perf_counter() - t0:.1f} s (label mean {y.mean():+.2f}, sd {y.std():.2f} men)"
        )
        if cfg.save_data:
            os.makedirs(os.path.dirname(os.path.abspath(cfg.save_data)), exist_ok=True)
            eval_fit.save_data(cfg.save_data, x, y, cfg)
            if store is not None:  # our own chunk files, now all in --save-data
                import shutil

                shutil.rmtree(store)
            say(f"wrote the labelled positions to {cfg.save_data}")
    t1 = time.perf_counter()
    with cli.Progress(cfg.epochs, label="epochs", unit="epochs", enabled=quiet) as bar:

        def log(text):
            if bar.enabled:
                bar.clear()
            say(text)

        ev, lt, lv, base = eval_fit.train(x, y, cfg, log=log, progress=bar.set)
        bar.set(cfg.epochs)
    _usage(eval_fit.check_out, cfg.out, cfg.force)  # again: the file may have appeared meanwhile
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
