"""Train an agent by self-play: ``--algo td`` (a TD(lambda) value net), ``--algo ppo``
(MaskablePPO) or ``--algo rollout`` (the backgammon model fitted to its own rollouts).

TD: TD-Gammon style afterstate net for backgammon, position value net for draughts; PPO: on the
batched env with an opponent pool, both games (needs the ``train`` extra:
``pip install 'boardgym[train]'``).

    boardgym train --game backgammon --algo td --games 200000 --hidden 80 \
        --alpha 0.1 --lam 0.0 --seed 1 --ckpt-dir runs/td80
    boardgym train --game backgammon --algo td --games 400000 --ckpt-dir runs/td80 --resume
    boardgym train --game backgammon --algo td --model gnubg --hidden 128 --race-hidden 64 \
        --alpha 0.1 --games 3000000 --seed 1 --ckpt-every 5000 --eval-every 25000 \
        --ckpt-dir runs/bg-gnubg/seed1
    boardgym train --game draughts --algo td --games 1000000 --hidden 80 --alpha 0.003 \
        --lam 0.7 --epsilon 0.05 --seed 1 --ckpt-every 20000 --eval-every 100000 \
        --ckpt-dir runs/draughts-td
    boardgym train --game draughts --algo ppo --ckpt-dir runs/draughts-ppo
    boardgym evaluate --curve runs/td80 --plot curve.png
    tensorboard --logdir runs/td80/tb

Both trainers run on one lifecycle (boardgym.agents.training.lifecycle) and write into
``--ckpt-dir`` (default ``runs/<game>-<algo>``): checkpoints (written to a temporary file, then
renamed), ``metrics.jsonl`` (one line per evaluation, and always one at the end of the run;
``boardgym evaluate --curve DIR`` draws it) and TensorBoard logs in ``tb/`` (``--no-tensorboard``
turns them off; without torch and tensorboard installed they are skipped with a note). A new run
refuses a directory that holds anything: ``--resume`` continues the run there, ``--force`` starts
over and moves the previous run's files into a ``replaced-<time>/`` folder beside them (nothing is
ever deleted). ``--resume`` continues exactly where the last checkpoint left off — weights,
optimizer, random states, counters and (PPO) the games in progress and the opponent pool — so a
killed run loses at most the work since its last checkpoint, and the logs drop what came after it.
On a terminal a progress bar (rate, ETA) runs on stderr.

TD (boardgym.agents.training.td: ``run_td``, one loop for both games, ``TDGame`` holds the game's
kernels): the games are played and learned from entirely inside Numba in chunks of ``--ckpt-every``
games; after each chunk the weights, the self-play generator's state and the counters go to
``latest.npz``. Every ``--eval-every`` games and at the end the net plays ``--eval-games`` games
against the game's in-kernel players (boardgym.kernels.players: random and the one-ply heuristic)
with its own evaluation seed; each evaluated net is also kept as ``games_<N>.npz``.
  backgammon (boardgym.agents.backgammon.td.train_games): afterstate net, the dice from the
  generator; opponents "random" (random checker moves) and "greedy" (the pip count/blots/made points
  heuristic, kernels/backgammon/opponents.py); ``games_<N>.npz`` loads with TDAgent
  (``load("backgammon-td", weights=PATH)``). ``--model gnubg``: the model of
  td_net.init_model (contact net on raw board + agents/backgammon/features.py inputs, race net,
  bear-off database; td.train_model_games, TD(0)); the bear-off table is generated at start
  and on resume, never saved. The end of such a run: ``--alpha-steps`` lowers the learning rate
  at given game counts, ``--average-from`` makes the model the mean of its weights over the last
  stretch, and ``--distill-rounds`` then fits it to its own 1-ply values
  (boardgym.agents.backgammon.distill; the rounds use both cores). The shipped ``backgammon-td``:

    boardgym train --game backgammon --algo td --model gnubg --hidden 128 --race-hidden 64 \
        --alpha 0.1 --games 2405000 --alpha-steps 2055000:0.03,2255000:0.01 \
        --average-from 2155000 --distill-rounds 4 --seed 1 --ckpt-every 5000 \
        --eval-every 25000 --eval-games 400 --no-tensorboard --ckpt-dir runs/bg-gnubg/seed1

  Both cores for the TD games: run two seeds side by side (two commands, two --ckpt-dir) and
  keep the one that wins a validation match (``boardgym evaluate``) on seeds of its own.
  draughts (boardgym.agents.draughts.td.train_games): value of the position for the side to
  move, epsilon-greedy whole moves (``--epsilon``), games capped at 200 plies (a draw);
  opponents "random" and "recapture" (kernels/draughts/opponents.py), colours
  alternating; ``games_<N>.npz`` is a draughts_eval.Evaluation for
  ``load("draughts-alphabeta", weights=PATH)``.

Rollout (boardgym.agents.training.rollouts.train_rollouts, backgammon): from a gnubg-input model
(``--start-from``, default the shipped backgammon-td), ``--rounds`` rounds of: ``--positions``
positions of its 0-ply self-play, each rolled out (``--trials`` luck-adjusted trials of at most
``--plies`` half-moves, agents/backgammon/rollout.py; ``--blocks`` > 1 uses more cores), the model
fitted to the rollouts of every round so far; each round's dataset (``data_<r>.npz``, written as
it goes) and model (``round_<r>.npz``, ``latest.npz``) are kept, so ``--resume`` continues inside a
round. Each round logs the model's 0-ply error on the rollout benchmark set (mEMG/move):

    boardgym train --game backgammon --algo rollout --rounds 4 --positions 25000 --trials 36 \
        --plies 9 --ckpt-dir runs/bg-rollout

PPO (boardgym.agents.training.ppo.train_ppo): ``ppo.zip`` (``load("<game>-ppo", path=PATH)``) and
``resume.pt`` every ``--ckpt-every`` learner steps (at the next rollout start); evaluations
against the in-kernel players (``ppo.baseline_names``) and, in draughts, GreedyAgent every
``--eval-every`` steps and at the end, with the Elo difference to each and its interval
(TensorBoard ``elo/<opponent>``), each evaluated model kept as ``ppo_<steps>.zip``. The
opponents come from the league (boardgym.agents.training.league: random, the in-kernel one-ply
player, GreedyAgent and ``--pool-size`` snapshots, one per game, drawn by prioritized fictitious
self-play; TensorBoard ``league/score/<member>`` and ``league/weight/<member>``). Draughts
games start from the 150 opening ballots (``--openings ballots``; evaluations from 2-4 random
moves, as ``boardgym evaluate``'s). PPO's
``--ckpt-every`` and ``--eval-every`` default to 500,000 and 1,000,000 steps.

Kickstarting (``--teacher``, boardgym.agents.training.kickstart): before self-play a teacher agent
plays ``--teacher-games`` games against itself (10% random steps), every position is labelled with
its action (each hop of a capture route, each checker step of a play) and the policy is cloned by
cross-entropy over the legal actions for ``--teacher-epochs``; PPO with the league then goes on from
it (``--teacher-mix``: a decaying cross-entropy term toward the labels). The teacher's positions are
kept in ``teacher/``; ``--resume`` continues exactly inside the teacher phase too. The cloned policy
is evaluated at step 0 (``ppo_0.zip``).

PPO's defaults are the recipes of the shipped policies (``PPO_RECIPES``): 256x256 MLPs, seed 1,
the teacher ``draughts-alphabeta:depth=4`` (4,096 games, 16 epochs) or ``backgammon-td:plies=0``
(8,192 games, 20 epochs), ``--teacher-mix 0.5``, 35,000,000 (draughts) or 1,000,000
(backgammon) steps, evaluations of 200 games every 1,000,000 steps. So

    boardgym train --game draughts --algo ppo --ckpt-dir runs/draughts-ppo
    boardgym train --game backgammon --algo ppo --ckpt-dir runs/backgammon-ppo

train ``draughts-ppo`` and ``backgammon-ppo`` again (BENCHMARKS.md: the step each was taken at
and its figures); ``--teacher none`` trains from scratch, and any setting given wins over the
recipe, e.g. ``--teacher none --net-arch 64,64 --seed 0 --steps 1000000`` (the PPO of earlier
versions).
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
    algo: Literal["td", "ppo", "rollout"] = "td"
    """learning algorithm: td (a TD(lambda) value net), ppo (MaskablePPO; needs boardgym[train])
    or rollout (backgammon: the model fitted to its own rollouts, from --start-from)"""
    games: int = 100_000
    """td: total self-play games of the run (a resumed run continues up to this total)"""
    hidden: int = 80
    """td: hidden units of the value net (backgammon gnubg: of the contact net)"""
    model: Literal["tesauro", "gnubg"] = "tesauro"
    """td backgammon: tesauro (196 raw board inputs, one net) or gnubg (raw board + the hand-crafted
    contact inputs of agents/backgammon/features.py, a race net once contact is broken, the exact
    one-sided bear-off database of agents/backgammon/bearoff.py when both sides bear off)"""
    race_hidden: int = 64
    """td backgammon gnubg: hidden units of the race net"""
    race_alpha: float = 0.0
    """td backgammon gnubg: learning rate of the race net (0: the same as --alpha)"""
    alpha: float = 0.0
    """td: learning rate (0: the game's default: backgammon 0.1, draughts 0.003)"""
    alpha_steps: str = ""
    """td: learning-rate schedule, comma-separated GAMES:ALPHA (e.g. 2000000:0.03,2300000:0.01):
    from GAMES games on the rate is ALPHA (the race net's too: scaled by the same factor when
    --race-alpha is set). A resumed run takes the schedule given to it, so a run can be resumed
    with a lower rate; the same schedule resumes exactly"""
    lam: float = 0.0
    """td: lambda (0 uses the fast sparse TD(0) path)"""
    average_from: int = 0
    """td: from this many games on, the weights at every checkpoint join a running mean (0: no
    mean); evaluations and games_<N>.npz files then hold the mean, and when the --games TD games
    end the model becomes the mean (the distillation rounds start from it). Measured: the mean
    over the last stretch of a run plays better than any one of its nets (BENCHMARKS.md)"""
    distill_rounds: int = 0
    """td backgammon gnubg: rounds of self-distillation after the --games TD games
    (agents/backgammon/distill.py): each round plays --distill-games games at 0-ply, values their
    positions at 1-ply on both cores and fits the model to those values; each round's games
    count in the run's games, and each round ends with an evaluation and a checkpoint (a run
    that finished its TD games can be resumed with rounds)"""
    distill_games: int = 2000
    """td: self-play games whose positions one distillation round labels"""
    distill_epochs: int = 2
    """td: passes of stochastic gradient descent over one round's positions"""
    distill_alpha: float = 0.02
    """td: learning rate of the distillation fit (both nets)"""
    distill_alt: float = 0.5
    """td, rollout: probability that a distillation (rollout) position also brings another of the
    0-ply best plays of its roll (the plays the net has to rank)"""
    start_from: str = ""
    """rollout: the gnubg-input model file the run starts from (empty: the shipped backgammon-td)"""
    rounds: int = 1
    """rollout: rounds of positions, rollouts and fit (a resumed run continues up to this total)"""
    positions: int = 10_000
    """rollout: self-play positions rolled out per round"""
    trials: int = 36
    """rollout: trials per position (36: the first roll stratified over the 36 outcomes)"""
    plies: int = 9
    """rollout: half-moves per trial before the net's value is taken"""
    blocks: int = 1
    """rollout: positions rolled out in this many parallel blocks (1: one core)"""
    fit_epochs: int = 2
    """rollout: passes of SGD over the datasets of all rounds so far, each round"""
    fit_alpha: float = 0.02
    """rollout: learning rate of the fit (both nets)"""
    epsilon: float = 0.05
    """td draughts: probability of a random move in self-play (exploration)"""
    init_scale: float = 0.1
    """td: initial weights uniform in [-init_scale, init_scale]"""
    seed: int | None = None
    """seed of the initial weights and of self-play (default: td 0, ppo 1 as in PPO_RECIPES)"""
    ckpt_dir: str = ""
    """run directory: checkpoints, metrics.jsonl, TensorBoard logs (tb/); empty:
    runs/<game>-<algo>"""
    ckpt_every: int | None = None
    """games (td; default 5,000) or learner steps (ppo; default 500,000) between checkpoints"""
    eval_every: int | None = None
    """games (td; default 20,000) or steps (ppo; default 2,000,000) between evaluations (0: only
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
    """ppo: steps between frozen snapshots added to the league (or the opponent pool)"""
    pool_size: int = 8
    """ppo: snapshots kept in the league (the oldest leaves)"""
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
    """ppo: opponents from the league (fixed players and snapshots per game, sampled by
    prioritized fictitious self-play: boardgym.agents.training.league); --no-league: the uniform
    pool of earlier runs (one member per rollout)"""
    openings: Literal["ballots", "start"] = "ballots"
    """ppo draughts: where training games start: 'ballots' (each game from one of the 150
    three-move opening ballots, agents/arena/data/draughts_ballots.tsv, drawn at every reset) or
    'start' (the initial position: a deterministic policy then learns a few lines)"""
    pfsp: Literal["hard", "var"] = "hard"
    """ppo: league sampling weight of a member the learner scores p against: hard (1-p)^2
    (the members it loses to), var p(1-p) (the ones it beats about half the time)"""
    teacher: str = "recipe"
    """ppo: kickstart from a teacher agent ('none': no teacher; 'recipe', the default: the game's
    recipe, draughts-alphabeta:depth=4 or backgammon-td:plies=0): before self-play the teacher plays
    --teacher-games games against itself (from the --openings in draughts), each position is
    labelled with its action (each hop of its chosen capture route, each checker step of its chosen
    play) and the policy is trained on them by cross-entropy over the legal actions
    (boardgym.agents.training.kickstart). A spec 'name:key=value,...': draughts alphabeta,
    alphabeta-material, alphabeta-td (e.g. draughts-alphabeta:depth=4), greedy; backgammon td (e.g.
    backgammon-td:plies=0), greedy, expectimax"""
    teacher_games: int | None = None
    """ppo --teacher: games the teacher plays for the cloning positions (chunks of 64; about 60
    positions a draughts game, 120 a backgammon one; default: the recipe's, draughts 4,096,
    backgammon 8,192, else 1,024)"""
    teacher_epochs: int | None = None
    """ppo --teacher: passes of behaviour cloning over the teacher's positions (default: the
    recipe's, draughts 16, backgammon 20, else 10)"""
    teacher_explore: float = 0.1
    """ppo --teacher: probability of a random legal action instead of the teacher's at each step
    of its games (the positions stay varied; the label is still the teacher's action)"""
    teacher_lr: float = 1e-3
    """ppo --teacher: Adam learning rate of the cloning (PPO then uses its own)"""
    teacher_value: float = 0.5
    """ppo --teacher: weight of the value head's squared error against the teacher games'
    results in the cloning loss (0: the policy head only)"""
    teacher_mix: float | None = None
    """ppo --teacher: weight of a cross-entropy term toward the teacher's labels during PPO (two
    minibatches at every rollout start), decaying linearly to 0 at --teacher-mix-steps (0: off;
    default: the recipe's 0.5, else 0)"""
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
            self.distill_alpha > 0, f"--distill-alpha must be positive, got {self.distill_alpha}"
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


TRAINERS = {
    ("backgammon", "rollout"): train_backgammon_rollout,
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
