"""PPO self-play with a league on Ray RLlib (new API stack), for draughts or backgammon.

    boardgym train-rllib --game draughts --num-env-runners 2 --iterations 50
    boardgym train-rllib --game backgammon --num-env-runners 8 --address auto
    boardgym train-rllib --game draughts --restore --iterations 100   # continue

Needs Ray RLlib (``pip install 'boardgym[ray]'``, in its own venv: ray[rllib] pins its own
gymnasium).

Env: boardgym.envs.rllib (one game per env, agents player_0/player_1, masked Dict observations);
module: boardgym.agents.rllib_module.MaskedPPOModule. Modules: ``main`` (trained) and a league
of frozen snapshots ``league_0``, ``league_1``, ... (``league_0`` is main's initial weights).
Each episode main takes one seat (by the episode id); the other seat is main itself with
probability ``--self-play-prob``, else a uniformly drawn league member. After every iteration,
main's score (win 1, draw 1/2) in its games against the league over the last
``--score-window`` such games is read; when it passes ``--snapshot-score`` (with at least
``--min-league-games`` games), a frozen copy of main joins the league (the oldest leaves past
``--max-league``) and the score window restarts.

Every ``--eval-every`` iterations main (greedy over the masked logits) plays ``--eval-games``
games against each fixed baseline in the AEC env (``random``; for draughts also the greedy agent
boardgym.agents.load("greedy", game="draughts")), colours alternating. Every ``--checkpoint-every``
iterations and at the end the Algorithm is saved to ``<checkpoint-dir>/algo`` with ``league.json``
(league ids, iteration, history); ``--restore`` rebuilds the same league and restores from there.
A new run refuses a non-empty ``--checkpoint-dir`` unless ``--restore`` or ``--force`` (which
moves the previous run's files into ``replaced-<time>/`` there; nothing is deleted).

``ray.init()`` starts a local Ray (``--num-cpus`` caps it); ``--address`` joins a running
cluster (``auto`` or ``HOST:6379``, see README). Prints one line per iteration (and, on a
terminal, a progress bar on stderr); ``main(args)`` returns a dict with the history.
"""

import dataclasses
import importlib.util
from typing import Literal

from boardgym.agents.training import rllib
from boardgym.scripts import cli


@dataclasses.dataclass
class Settings:
    """Settings of one RLlib self-play run."""

    game: Literal["draughts", "backgammon"] = "draughts"
    """game to train on"""
    num_env_runners: int = 2
    """RLlib env runners (sampling processes; 0 samples in the driver)"""
    num_envs_per_env_runner: int = 1
    """games stepped by each env runner (one module forward pass for all of them)"""
    address: str = ""
    """Ray cluster address ("auto", "HOST:6379"); empty: start a local Ray"""
    num_cpus: int = 0
    """CPUs of the local Ray (0: all); ignored with --address"""
    iterations: int = 20
    """training iterations (one PPO update each)"""
    train_batch: int = 4000
    """env steps per iteration (train_batch_size_per_learner)"""
    minibatch: int = 512
    """PPO minibatch size"""
    epochs: int = 4
    """PPO epochs per iteration"""
    lr: float = 3e-4
    """learning rate"""
    entropy_coeff: float = 0.01
    """entropy bonus"""
    hidden: int = 256
    """width of the hidden layers"""
    layers: int = 2
    """hidden layers of the policy and value MLPs"""
    max_length: int = 400
    """game cap: plies for draughts (max_moves), rolls for backgammon (max_turns); a capped game
    is a draw"""
    self_play_prob: float = 0.5
    """probability that main's opponent is main itself (else a league member)"""
    snapshot_score: float = 0.75
    """main's score vs the league that adds a frozen snapshot of main"""
    min_league_games: int = 50
    """fewest league games before the score counts"""
    score_window: int = 200
    """league games the score is computed over"""
    max_league: int = 8
    """most league members kept (the oldest snapshot leaves)"""
    eval_every: int = 5
    """evaluate against the baselines every this many iterations (0: only at the end)"""
    eval_games: int = 40
    """games per baseline and evaluation (colours alternate)"""
    checkpoint_every: int = 5
    """checkpoint every this many iterations (and at the end)"""
    checkpoint_dir: str = "checkpoints/rllib"
    """where the Algorithm checkpoint (algo/) and league.json go"""
    restore: bool = False
    """continue from the checkpoint in --checkpoint-dir"""
    force: bool = False
    """start a new run in a non-empty --checkpoint-dir (the previous run's files are moved into
    a replaced-<time>/ folder there; nothing is deleted)"""
    seed: int = 0
    """seed of Ray's workers, the league draws and the evaluation games"""
    quiet: bool = False
    """no per-iteration lines or progress bar"""

    def check(self):
        for name in (
            "iterations",
            "train_batch",
            "minibatch",
            "epochs",
            "hidden",
            "layers",
            "eval_games",
            "max_league",
            "num_envs_per_env_runner",
            "score_window",
        ):
            value = getattr(self, name)
            cli.require(value > 0, f"--{name.replace('_', '-')} must be positive, got {value}")
        for name in (
            "num_env_runners",
            "num_cpus",
            "eval_every",
            "checkpoint_every",
            "max_length",
            "min_league_games",
        ):
            value = getattr(self, name)
            cli.require(value >= 0, f"--{name.replace('_', '-')} must be >= 0, got {value}")
        cli.require(
            0.0 <= self.self_play_prob <= 1.0,
            f"--self-play-prob must be in [0, 1], got {self.self_play_prob}",
        )
        cli.require(
            0.0 < self.snapshot_score <= 1.0,
            f"--snapshot-score must be in (0, 1], got {self.snapshot_score}",
        )
        cli.require(self.lr > 0, f"--lr must be positive, got {self.lr}")
        cli.require(
            not (self.restore and self.force),
            "--restore continues the run in --checkpoint-dir, --force replaces it: not both",
        )
        cli.require(
            importlib.util.find_spec("ray") is not None,
            "boardgym train-rllib needs Ray RLlib: pip install 'boardgym[ray]' (in its own venv)",
        )


def main(args=None):
    """Train with Settings or a list of command-line strings; returns train()'s dict."""
    cfg = cli.settings(Settings, args, prog="boardgym train-rllib", description=__doc__)
    bar = None

    def progress(done, total):
        nonlocal bar
        if bar is None:  # the bar's clock starts once Ray and the Algorithm are up
            bar = cli.Progress(
                total, label="iterations", unit="it", enabled=False if cfg.quiet else None
            )
        else:
            bar.set(done)

    def log(text):
        if bar is not None and bar.enabled:
            bar.clear()
        print(text, flush=True)

    result = rllib.train(cfg, log=log, progress=progress)
    if bar is not None:
        bar.close()
    return result


if __name__ == "__main__":
    cli.script_main(main)
