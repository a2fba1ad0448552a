r"""Train an agent by self-play: ``--algo td`` (a TD(lambda) value net), ``--algo ppo``
(MaskablePPO with a league; needs ``pip install 'boardgym[train]'``), either game, ``--algo
rollout`` (backgammon: the model fitted to its rollouts) or ``prune`` (its pruning net).

    boardgym train --game backgammon --algo td --games 200000 --ckpt-dir runs/td
    boardgym train --game backgammon --algo td --games 400000 --ckpt-dir runs/td --resume
    boardgym train --game draughts --algo td --games 1000000 --hidden 80 --lam 0.7 \
        --seed 1 --ckpt-every 20000 --eval-every 100000 --ckpt-dir runs/draughts-td
    boardgym train --game draughts --algo ppo --ckpt-dir runs/draughts-ppo
    boardgym train --game backgammon --algo rollout --rounds 4 --ckpt-dir runs/bg-rollout
    boardgym evaluate --curve runs/td --plot curve.png
    tensorboard --logdir runs/td/tb

A run writes into --ckpt-dir: checkpoints, metrics.jsonl (one line per evaluation, always one
at the end) and TensorBoard logs in tb/; a new run refuses a non-empty one (--resume, --force).
Every --eval-every games (td) or steps (ppo), and at the end, the model plays --eval-games games
against the game's fixed players; the run ends by saying where the model is (td:
games_<N>.npz, ppo: ppo.zip). PPO's defaults are the shipped policies' recipes. Options start
with the algorithm they are for. Details, and the commands of every shipped agent: README,
"Training".
"""

import dataclasses
import functools
import importlib.util
import os
import sys
from typing import Literal

from boardgym.agents.training import td
from boardgym.scripts import cli

#: default (--ckpt-every, --eval-every) of each algorithm: TD games, PPO learner steps
EVERY = {"td": (5_000, 20_000), "ppo": (500_000, 1_000_000)}

#: --algo ppo: the settings a run takes unless given, per game: the commands of the shipped
#: ``draughts-ppo`` and ``backgammon-ppo`` (BENCHMARKS.md). Kickstarted from a search teacher
#: (cloned from 4,096 / 8,192 of its games), then PPO with the league.
PPO_RECIPES = {
    "draughts": {
        "steps": 35_000_000,
        "net_arch": "256,256",
        "teacher": "draughts-alphabeta:depth=4",
        "teacher_games": 4096,
        "teacher_epochs": 16,
        "teacher_mix": 0.5,
        "seed": 1,
        "eval_games": 200,
    },
    "backgammon": {
        "steps": 1_000_000,
        "net_arch": "256,256",
        "teacher": "backgammon-td:plies=0",
        "teacher_games": 8192,
        "teacher_epochs": 20,
        "teacher_mix": 0.5,
        "seed": 1,
        "eval_games": 200,
    },
}
#: the same settings' defaults for --algo td (or where a recipe does not apply)
PLAIN_DEFAULTS = {
    "steps": 1_000_000,
    "net_arch": "64,64",
    "teacher": "",
    "teacher_games": 1024,
    "teacher_epochs": 10,
    "teacher_mix": 0.0,
    "seed": 0,
    "eval_games": 400,
}


@dataclasses.dataclass
class Settings:
    """Settings of one training run."""

    game: Literal["backgammon", "draughts"] = "backgammon"
    """game to train on"""
    algo: Literal["td", "ppo", "rollout", "prune"] = "td"
    """td (TD(lambda)), ppo (MaskablePPO, needs boardgym[train]), rollout, prune"""
    games: int = 100_000
    """td: total self-play games of the run (a resumed run continues up to this total)"""
    hidden: int = 80
    """td: hidden units (gnubg: contact net's)"""
    model: Literal["tesauro", "gnubg"] = "tesauro"
    """td backgammon: tesauro (raw board inputs, one net) or gnubg (raw board plus hand-made
    contact features, a race net, the exact bear-off database: the shipped net's model)"""
    race_hidden: int = 64
    """td gnubg: hidden units of the race net"""
    race_alpha: float = 0.0
    """td gnubg: race net's rate (0: --alpha)"""
    alpha: float = 0.0
    """td: learning rate (0: the game's default: backgammon 0.1, draughts 0.003)"""
    alpha_steps: str = ""
    """td: rates GAMES:ALPHA,... from GAMES on"""
    lam: float = 0.0
    """td: lambda (0: the fast sparse TD(0))"""
    average_from: int = 0
    """td: mean of checkpoints from N games on"""
    distill_rounds: int = 0
    """td gnubg: rounds fitting the model to its own searched values after the TD games"""
    distill_games: int = 2000
    """td: games per distillation round"""
    distill_epochs: int = 2
    """td: fit passes per distillation round"""
    distill_alpha: float = 0.02
    """td: distillation rate (adam: initial)"""
    distill_fit: Literal["sgd", "adam"] = "sgd"
    """td: the distillation fit"""
    distill_plies: Literal[1, 2] = 1
    """td: distillation target depth"""
    distill_prune: int = 0
    """td 2-ply: replies kept a roll (0: all)"""
    distill_teacher: Literal["float64", "float32"] = "float64"
    """td: teacher precision"""
    distill_hidden: int = 0
    """td: contact units to widen to (0: keep)"""
    distill_alt: float = 0.5
    """td, rollout: chance of a 2nd good play"""
    start_from: str = ""
    """rollout, prune: start model (empty: shipped); td gnubg: weights to go on from"""
    rounds: int = 1
    """rollout: rounds of sampling and fit"""
    positions: int = 10_000
    """rollout: positions per round"""
    trials: int = 36
    """rollout: trials per position"""
    plies: int = 9
    """rollout: half-moves per trial"""
    blocks: int = 1
    """rollout: parallel blocks (cores)"""
    fit_epochs: int = 2
    """rollout: fit passes per round"""
    fit_alpha: float = 0.02
    """rollout: fit learning rate"""
    prune_hidden: int = 16
    """prune, td: the pruning net's units"""
    prune_games: int = 3000
    """prune, td: the pruning net's games"""
    epsilon: float = 0.05
    """td draughts: random-move chance"""
    init_scale: float = 0.1
    """td: initial weights uniform in [-x, x]"""
    seed: int | None = None
    """seed of the initial weights and of self-play (default: td 0, ppo 1, the recipes')"""
    ckpt_dir: str = ""
    """run directory: checkpoints, metrics.jsonl, TensorBoard logs (tb/); empty:
    runs/<game>-<algo>"""
    ckpt_every: int | None = None
    """games (td; default 5,000) or learner steps (ppo; default 500,000) between checkpoints"""
    eval_every: int | None = None
    """games (td; default 20,000) or steps (ppo; default 1,000,000) between evaluations (0: only
    the final one)"""
    eval_games: int | None = None
    """games per evaluation opponent (rounded up to even: pairs from the same start; default:
    td 400, ppo 200)"""
    resume: bool = False
    """continue the run in --ckpt-dir exactly from its latest.npz (td) or resume.pt (ppo)"""
    force: bool = False
    """start a new run in a non-empty --ckpt-dir: the previous run's files are moved into a
    replaced-<time>/ folder there (nothing is deleted)"""
    steps: int | None = None
    """ppo: total environment steps of the learner (default: the game's recipe, draughts
    35,000,000, backgammon 1,000,000)"""
    num_envs: int = 256
    """ppo: games played at once on the batched env"""
    snapshot_every: int = 200_000
    """ppo: steps between snapshots added to the league"""
    pool_size: int = 8
    """ppo: snapshots kept in the league"""
    net_arch: str | None = None
    """ppo: hidden layer sizes of the policy and value MLPs (default: the recipe's 256,256)"""
    rollout: int = 64
    """ppo: steps per game per rollout (MaskablePPO n_steps; a rollout is num_envs x rollout
    steps)"""
    batch_size: int = 2048
    """ppo: minibatch size of the PPO update"""
    epochs: int = 2
    """ppo: passes over each rollout (MaskablePPO n_epochs)"""
    league: bool = True
    """ppo: opponents from the league (fixed players and snapshots, prioritized fictitious
    self-play); --no-league: a uniform pool, one member per rollout"""
    openings: Literal["ballots", "start"] = "ballots"
    """ppo draughts: where training games start: ballots (one of the 150 three-move opening
    ballots) or start (the initial position)"""
    pfsp: Literal["hard", "var"] = "hard"
    """ppo: league weight of a member the learner scores p against: hard (1-p)^2, var p(1-p)"""
    teacher: str = "recipe"
    """ppo: clone the policy from a teacher agent's games before self-play: an agent spec (e.g.
    draughts-alphabeta:depth=4, backgammon-td:plies=0), none, or recipe (the game's recipe)"""
    teacher_games: int | None = None
    """ppo --teacher: games the teacher plays for the cloning (default: the recipe's, draughts
    4,096, backgammon 8,192, else 1,024)"""
    teacher_epochs: int | None = None
    """ppo --teacher: passes of behaviour cloning over the teacher's positions (default: the
    recipe's, draughts 16, backgammon 20, else 10)"""
    teacher_explore: float = 0.1
    """ppo --teacher: probability of a random action instead of the teacher's in its games"""
    teacher_lr: float = 1e-3
    """ppo --teacher: Adam learning rate of the cloning (PPO then uses its own)"""
    teacher_value: float = 0.5
    """ppo --teacher: weight of the value head's loss in the cloning (0: the policy only)"""
    teacher_mix: float | None = None
    """ppo --teacher: weight of a cross-entropy term toward the teacher's labels during PPO,
    decaying to 0 at --teacher-mix-steps (default: the recipe's 0.5, else 0)"""
    teacher_mix_steps: int = 2_000_000
    """ppo --teacher: learner steps over which --teacher-mix decays to 0"""
    tensorboard: bool = True
    """write TensorBoard logs to <ckpt-dir>/tb (metrics.jsonl is always written)"""
    quiet: bool = False
    """no progress lines or bar"""

    def apply_recipe(self):
        """Fill the settings left at None (and --teacher recipe/none) from PPO_RECIPES under
        --algo ppo, else from PLAIN_DEFAULTS."""
        teacher = (self.teacher or "").strip()
        recipe = PPO_RECIPES.get(self.game, {}) if self.algo == "ppo" else {}
        if teacher.lower() == "none":
            self.teacher = ""
        elif teacher.lower() == "recipe":
            self.teacher = recipe.get("teacher", "")
        for name, plain in PLAIN_DEFAULTS.items():
            if name != "teacher" and getattr(self, name) is None:
                setattr(self, name, recipe.get(name, plain))

    def check(self):
        self.apply_recipe()
        every = EVERY[self.algo] if self.algo in EVERY else EVERY["td"]
        if self.ckpt_every is None:
            self.ckpt_every = every[0]
        if self.eval_every is None:
            self.eval_every = every[1]
        for name in (
            "games",
            "hidden",
            "ckpt_every",
            "eval_games",
            "steps",
            "num_envs",
            "snapshot_every",
            "race_hidden",
            "pool_size",
            "rollout",
            "batch_size",
            "epochs",
            "distill_games",
            "distill_epochs",
            "rounds",
            "positions",
            "trials",
            "plies",
            "blocks",
            "fit_epochs",
            "prune_hidden",
            "prune_games",
        ):
            value = getattr(self, name)
            cli.require(value > 0, f"--{name.replace('_', '-')} must be positive, got {value}")
        cli.require(self.eval_every >= 0, f"--eval-every must be >= 0, got {self.eval_every}")
        cli.require(self.alpha >= 0, f"--alpha must be >= 0, got {self.alpha}")
        cli.require(self.race_alpha >= 0, f"--race-alpha must be >= 0, got {self.race_alpha}")
        cli.require(self.average_from >= 0, f"--average-from must be >= 0, got {self.average_from}")
        cli.require(
            self.distill_rounds >= 0, f"--distill-rounds must be >= 0, got {self.distill_rounds}"
        )
        cli.require(
            self.distill_prune >= 0, f"--distill-prune must be >= 0, got {self.distill_prune}"
        )
        cli.require(
            self.distill_hidden == 0
            or (self.distill_hidden >= self.hidden and self.distill_hidden % self.hidden == 0)
            or bool(self.resume or self.start_from),
            f"--distill-hidden must be 0 or a whole multiple of --hidden {self.hidden}, "
            f"got {self.distill_hidden}",
        )
        cli.require(
            self.distill_hidden >= 0 and (self.distill_hidden == 0 or self.distill_rounds > 0),
            f"--distill-hidden is for --distill-rounds > 0 (>= 0), got {self.distill_hidden}",
        )
        cli.require(
            self.distill_alpha > 0, f"--distill-alpha must be positive, got {self.distill_alpha}"
        )
        cli.require(
            self.distill_prune == 0 or self.distill_plies == 2,
            f"--distill-prune is for --distill-plies 2, got {self.distill_prune}",
        )
        cli.require(
            0.0 <= self.distill_alt <= 1.0,
            f"--distill-alt must be in [0, 1], got {self.distill_alt}",
        )
        cli.require(
            self.distill_rounds == 0 or (self.model == "gnubg" and self.algo == "td"),
            "--distill-rounds needs --game backgammon --algo td --model gnubg",
        )
        cli.require(
            self.model == "tesauro" or (self.game == "backgammon" and self.algo == "td"),
            "--model gnubg is for --game backgammon --algo td",
        )
        cli.require(
            not self.start_from or self.algo in ("rollout", "prune") or self.model == "gnubg",
            "--start-from is for --algo rollout or prune, or --algo td with --game backgammon "
            "--model gnubg",
        )
        cli.require(
            self.algo != "prune" or self.game == "backgammon", "--algo prune is for backgammon"
        )
        if self.start_from:  # a bad file is named before the run directory is made
            from boardgym.agents.backgammon.weights import load_weights

            try:
                load_weights(self.start_from)
            except ValueError as e:
                raise cli.UsageError(f"--start-from: {e}") from None
        cli.require(self.fit_alpha > 0, f"--fit-alpha must be positive, got {self.fit_alpha}")
        cli.require(
            self.algo != "rollout" or self.game == "backgammon", "--algo rollout is for backgammon"
        )
        cli.require(0.0 <= self.lam <= 1.0, f"--lam must be in [0, 1], got {self.lam}")
        cli.require(0.0 <= self.epsilon <= 1.0, f"--epsilon must be in [0, 1], got {self.epsilon}")
        cli.require(self.init_scale > 0, f"--init-scale must be positive, got {self.init_scale}")
        cli.require(
            not (self.resume and self.force),
            "--resume continues the run in --ckpt-dir, --force replaces it: not both",
        )
        cli.require(
            self.lam == 0.0 or self.model != "gnubg",
            "--model gnubg trains by TD(0): --lam must be 0",
        )
        parse_net_arch(self.net_arch)
        try:
            td.parse_alpha_steps(self.alpha_steps)
        except ValueError as e:
            raise cli.UsageError(str(e)) from None
        for name in ("teacher_games", "teacher_epochs", "teacher_mix_steps"):
            value = getattr(self, name)
            cli.require(value >= 0, f"--{name.replace('_', '-')} must be >= 0, got {value}")
        cli.require(
            0.0 <= self.teacher_explore <= 1.0,
            f"--teacher-explore must be in [0, 1], got {self.teacher_explore}",
        )
        cli.require(self.teacher_lr > 0, f"--teacher-lr must be positive, got {self.teacher_lr}")
        cli.require(
            self.teacher_value >= 0 and self.teacher_mix >= 0,
            "--teacher-value and --teacher-mix must be >= 0",
        )
        cli.require(not self.teacher or self.algo == "ppo", "--teacher is for --algo ppo")
        if self.algo == "ppo":
            missing = [m for m in ("torch", "sb3_contrib") if importlib.util.find_spec(m) is None]
            cli.require(
                not missing,
                f"--algo ppo needs {' and '.join(missing)}: pip install 'boardgym[train]'",
            )


def _bar(cfg, total, label, unit):
    """The run's progress bar (drawn on a terminal only, never with --quiet)."""
    return cli.Progress(total, label=label, unit=unit, enabled=False if cfg.quiet else None)


def _log(cfg, text, bar=None):
    """A progress line on stdout (none with --quiet), above the bar when one is drawn."""
    if cfg.quiet:
        return
    if bar is not None and bar.enabled:
        bar.clear()
    print(text, flush=True)


def _with_progress(cfg, total, unit, train):
    """train(log=..., progress=...) with the command's progress lines and bar; its result."""
    with _bar(cfg, total, f"{cfg.game} {cfg.algo}", unit) as bar:

        def progress(done, total):
            bar.total = total
            bar.set(done)

        return train(log=lambda text: _log(cfg, text, bar), progress=progress)


def train_backgammon_td(cfg):
    """TD self-play for backgammon (td.train_backgammon_td); returns the final params."""
    return _with_progress(cfg, cfg.games, "games", functools.partial(td.train_backgammon_td, cfg))


def train_draughts_td(cfg):
    """TD(lambda) self-play for Russian draughts (td.train_draughts_td); returns the final
    (w1, b1, w2, b2)."""
    return _with_progress(cfg, cfg.games, "games", functools.partial(td.train_draughts_td, cfg))


def train_ppo(cfg):
    """MaskablePPO self-play on the batched env (boardgym.agents.training.ppo.train_ppo); returns
    the model."""
    from boardgym.agents.arena.playouts import ballot_positions
    from boardgym.agents.training.ppo import train_ppo as run

    return _with_progress(
        cfg,
        cfg.steps,
        "steps",
        functools.partial(
            run,
            cfg.game,
            cfg.steps,
            cfg.ckpt_dir,
            num_envs=cfg.num_envs,
            seed=cfg.seed,
            snapshot_every=cfg.snapshot_every,
            pool_size=cfg.pool_size,
            net_arch=parse_net_arch(cfg.net_arch),
            ckpt_every=cfg.ckpt_every,
            eval_every=cfg.eval_every,
            eval_games=cfg.eval_games,
            resume=cfg.resume,
            force=cfg.force,
            tensorboard=cfg.tensorboard,
            n_steps=cfg.rollout,
            batch_size=cfg.batch_size,
            n_epochs=cfg.epochs,
            league=cfg.league,
            pfsp=cfg.pfsp,
            teacher=cfg.teacher or None,
            teacher_games=cfg.teacher_games,
            teacher_epochs=cfg.teacher_epochs,
            teacher_explore=cfg.teacher_explore,
            teacher_lr=cfg.teacher_lr,
            teacher_value=cfg.teacher_value,
            teacher_mix=cfg.teacher_mix,
            teacher_mix_steps=cfg.teacher_mix_steps,
            openings=ballot_positions()
            if cfg.game == "draughts" and cfg.openings == "ballots"
            else None,
        ),
    )


def parse_net_arch(text):
    """(64, 64) from "64,64"; ValueError naming the bad text."""
    try:
        sizes = tuple(int(x) for x in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        raise ValueError(
            f"--net-arch must be positive layer sizes separated by commas, got {text!r}"
        )
    return sizes


def train_backgammon_rollout(cfg):
    """Rollout training of the backgammon model (rollouts.train_rollouts); the final model."""
    from boardgym.agents.training.rollouts import train_rollouts

    return _with_progress(cfg, cfg.rounds, "rounds", functools.partial(train_rollouts, cfg))


def train_backgammon_prune(cfg):
    """The pruning net of a backgammon model (training/prune.train_prune); the model with it."""
    from boardgym.agents.backgammon.prune import EPOCHS
    from boardgym.agents.training.prune import train_prune

    return _with_progress(cfg, EPOCHS, "passes", functools.partial(train_prune, cfg))


TRAINERS = {
    ("backgammon", "rollout"): train_backgammon_rollout,
    ("backgammon", "prune"): train_backgammon_prune,
    ("backgammon", "td"): train_backgammon_td,
    ("draughts", "td"): train_draughts_td,
    ("draughts", "ppo"): train_ppo,
    ("backgammon", "ppo"): train_ppo,
}


def tensorboard_available():
    """Are torch and tensorboard installed (TensorBoard logs need both)?"""
    return all(importlib.util.find_spec(m) is not None for m in ("torch", "tensorboard"))


def main(args=None):
    """Run training with Settings or a list of command-line strings; returns the trainer's
    result (TD: the final (w1, b1, w2, b2); PPO: the model)."""
    cfg = cli.settings(Settings, args, prog="boardgym train", description=__doc__)
    if not cfg.ckpt_dir:
        cfg.ckpt_dir = os.path.join("runs", f"{cfg.game}-{cfg.algo}")
    if cfg.tensorboard and not tensorboard_available():
        print(
            "boardgym train: no TensorBoard logs (torch and tensorboard are not installed: "
            "pip install 'boardgym[train]'); metrics.jsonl is written",
            file=sys.stderr,
        )
        cfg.tensorboard = False
    return TRAINERS[(cfg.game, cfg.algo)](cfg)


if __name__ == "__main__":
    cli.script_main(main)
