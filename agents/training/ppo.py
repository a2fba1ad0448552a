"""Training a PPOAgent: ``train_ppo`` (``boardgym train --algo ppo``), MaskablePPO by self-play on
the batched env, with its opponents (the league or ``OpponentPool``) and evaluations.
``train_ppo`` runs a ``PPORun`` of its ``PPOSettings`` on the run lifecycle
(boardgym.agents.training.lifecycle: the run directory, checkpoint, metrics log, cadences).

N games at once through the stable-baselines3 VecEnv over the batched core (boardgym.envs.vector),
the learner's opponent in each game drawn from the league (boardgym.agents.training.league: random,
the in-kernel one-ply player, draughts' GreedyAgent, and the newest ``pool_size`` frozen snapshots
of the learner — one joins every ``snapshot_every`` steps — sampled per game by prioritized
fictitious self-play), or, with ``league=False`` (and in runs that began before the league), from
the uniform ``OpponentPool`` (one member per rollout). The policy is
boardgym.agents.ppo.LegalActionPolicy (the masked policy computed over the legal actions only).
The batched core runs on one Numba thread: its parallel kernels reset the shared OpenMP thread
count that torch reads.

With ``teacher`` (an agent spec: ``boardgym train --teacher``) the run begins with a teacher phase
(boardgym.agents.training.kickstart): the teacher's labelled games (``teacher/chunk_<k>.npz`` in the
run directory), behaviour cloning of the policy and value heads on them, an evaluation of the cloned
policy at step 0, then self-play as above from the cloned weights and optimizer, optionally with a
decaying cross-entropy term toward the teacher's labels at every rollout start (``teacher_mix``).
Checkpoints after every generated chunk and every cloning epoch make a resume inside the phase exact
too.

A run directory holds ``ppo.zip`` (the latest MaskablePPO model, for PPOAgent), ``ppo_<steps>.zip``
(each evaluated model; the run ends with an evaluation), ``resume.pt`` (all a resumed run needs),
``metrics.jsonl`` and TensorBoard logs in ``tb/`` (boardgym.agents.training.run_log). A new run
refuses a directory holding anything unless ``force`` (then the previous run's files move into
``replaced-<time>/``: ``run_log.prepare_run_dir``).
Checkpoints are taken at the start of a rollout, every ``ckpt_every`` steps and at the end, and
capture the model with its optimizer, the N games in progress with their random streams, the
last observations, the league (members, scores, snapshots, slot assignment, generators) or the
opponent pool, the torch/NumPy/Python random states and the counters: ``resume=True``
continues exactly — a run killed after a checkpoint and resumed ends with the same weights as
an uninterrupted run (tested). Checkpoints written when the draughts one-ply player was called
"greedy" (now "recapture"), before the league, resume too (with their pool and settings).
"""

from __future__ import annotations

import dataclasses
import functools
import io
import os
import random
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from boardgym.agents.arena.stats import format_elo
from boardgym.agents.files import write_atomically, write_file_atomically
from boardgym.agents.ppo import _sparse_policy_class, _torch_threads
from boardgym.agents.training.lifecycle import Run, due
from boardgym.agents.training.run_log import format_evaluation

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.policies import BasePolicy

MODEL_FILE = "ppo.zip"
RESUME_FILE = "resume.pt"
#: files a run writes into its directory (moved aside by a forced new run)
RUN_FILES = ("metrics.jsonl", MODEL_FILE, "ppo_*.zip", RESUME_FILE, "*.tmp*", "tb", "teacher")
#: pool members' old names -> today's (checkpoints of older runs hold the old ones)
RENAMED_BASELINES = {"greedy": "recapture"}
#: what every resume.pt holds (checkpoints of earlier runs included)
CHECKPOINT_KEYS = ("model", "setup", "counters", "venv_seed", "last_obs", "rng")


class OpponentPool:
    """The learner's opponent in self-play: one member at a time, drawn uniformly by ``pick`` from
    the fixed players ``baselines`` ("random": uniformly random moves, "greedy": the one-ply
    heuristic of the in-kernel opponent) and the newest ``pool_size`` frozen snapshots of the
    learner. On a boardgym vector env the fixed players are played inside the kernels (the
    ``kernel_opponent`` attribute, read before every step); a snapshot answers the batched call
    ``(obs (M, O), masks (M, A)) -> actions (M,)``."""

    def __init__(
        self, seed: int = 0, pool_size: int = 8, baselines: Sequence[str] = ("random", "greedy")
    ) -> None:
        if isinstance(baselines, str) or not set(baselines) <= {"random", "greedy", "recapture"}:
            raise ValueError(
                f"baselines must be in-kernel players ('random', 'greedy', draughts "
                f"'recapture'), got {baselines!r}"
            )
        self.rng = np.random.default_rng(seed)
        self.snapshots = []
        self.pool_size = pool_size
        self.baselines = tuple(baselines)
        self.current = "random"  # a baseline's name or a snapshot

    @property
    def kernel_opponent(self) -> str | None:
        """The in-kernel player standing in for the current member (None for a snapshot)."""
        return self.current if isinstance(self.current, str) else None

    def add(self, policy: BasePolicy) -> None:
        """Freeze a copy of policy (an SB3 policy) into the pool."""
        frozen = type(policy)(**policy._get_constructor_parameters())
        frozen.load_state_dict(policy.state_dict())
        self.snapshots.append(frozen.eval())
        del self.snapshots[: -self.pool_size]

    def get_state(self) -> dict:
        """The pool's generator state, snapshot weights and current member (for a checkpoint)."""
        current = (
            self.current if isinstance(self.current, str) else self.snapshots.index(self.current)
        )
        return {
            "rng": self.rng.bit_generator.state,
            "current": current,
            "snapshots": [p.state_dict() for p in self.snapshots],
        }

    def set_state(self, state: dict, policy: BasePolicy) -> None:
        """Restore get_state() output; policy (an SB3 policy) supplies the snapshots'
        architecture."""
        self.rng.bit_generator.state = state["rng"]
        self.snapshots = []
        for weights in state["snapshots"]:
            frozen = type(policy)(**policy._get_constructor_parameters())
            frozen.load_state_dict(weights)
            self.snapshots.append(frozen.eval())
        cur = state["current"]
        if isinstance(cur, str) and cur not in self.baselines:
            cur = RENAMED_BASELINES.get(cur, cur)
            if cur not in self.baselines:
                raise ValueError(
                    f"the checkpoint's pool member {state['current']!r} is not a "
                    f"player of this pool {self.baselines}"
                )
        self.current = cur if isinstance(cur, str) else self.snapshots[cur]

    def pick(self) -> None:
        """Draw the next member uniformly from the baselines and the snapshots."""
        members = list(self.baselines) + self.snapshots
        self.current = members[int(self.rng.integers(len(members)))]

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.current == "random":  # outside a boardgym core: random actions from the pool's rng
            scores = self.rng.random(masks.shape) * masks
            return scores.argmax(1)
        if isinstance(self.current, str):
            raise ValueError(
                f"the {self.current!r} member plays inside a boardgym core's kernels "
                "(make_sb3_vec_env / the vector envs), not from observations"
            )
        import torch

        with torch.no_grad():
            actions, _, _ = self.current.forward(
                torch.as_tensor(obs), action_masks=masks.astype(bool)
            )
        return actions.numpy()


def play_vs_baseline(
    model: MaskablePPO,
    game: str,
    opponent: str = "random",
    n_games: int = 200,
    seed: int = 0,
    **core_kwargs: object,
) -> np.ndarray:
    """Points of the model's deterministic policy in n_games against an in-kernel opponent
    ("random" or "greedy"): boardgym.agents.arena.matches.play_vs_kernel_opponent (pairs of games
    on the batched core from one random stream, the learner's seat swapped)."""
    from boardgym.agents.arena.matches import play_vs_kernel_opponent

    def policy(obs, masks):
        return model.predict(obs, action_masks=masks.astype(bool), deterministic=True)[0]

    return play_vs_kernel_opponent(policy, game, opponent, n_games, seed, **core_kwargs)


def baseline_names(game: str) -> tuple[str, ...]:
    """The game's in-kernel players by name (the batched core's opponent names but None)."""
    from boardgym.envs.batch import BackgammonBatch, DraughtsBatch

    codes = (DraughtsBatch if game == "draughts" else BackgammonBatch).opponent_codes
    return tuple(k for k in codes if k not in (None, "none"))


def play_vs_greedy(
    model: MaskablePPO,
    n_games: int = 200,
    seed: int = 0,
    evaluation: object = None,
    **core_kwargs: object,
) -> np.ndarray:
    """Points of the model's deterministic policy in n_games of draughts against boardgym.agents'
    GreedyAgent (league.GreedyBatch: the same choices, ties from per-game streams of seed):
    evaluation.play_vs_batched_opponent, pairs with the seats swapped."""
    from boardgym.agents.arena.matches import play_vs_batched_opponent
    from boardgym.agents.training.league import GreedyBatch
    from boardgym.kernels.rng import seed_rngs

    greedy = GreedyBatch(evaluation)
    rngs = seed_rngs(int(seed) + 1_000_003, 2 * ((n_games + 1) // 2))

    def policy(obs, masks):
        return model.predict(obs, action_masks=masks.astype(bool), deterministic=True)[0]

    return play_vs_batched_opponent(
        policy,
        lambda obs, masks, games: greedy.actions(obs, games, rngs),
        "draughts",
        n_games,
        seed,
        **core_kwargs,
    )


def evaluate_baselines(
    model: MaskablePPO, game: str, n_games: int = 200, seed: int = 0, greedy: bool = False
) -> dict[str, dict]:
    """{opponent: points_summary + Elo} of the model against the game's in-kernel players and,
    with greedy (draughts), GreedyAgent (one point a game: the batched backgammon core scores
    single games). Each entry adds ``elo`` and ``elo_ci95``: the Elo difference to that opponent
    with its 95% interval (stats.match_elo of the score, +-1000 standing for infinity: a
    score of all or nothing measures no difference, stats.format_elo prints its bound).
    Draughts games start from positions after 2-4 random moves (evaluation.opening_positions,
    one per pair, seeded by seed), as ``boardgym evaluate``'s do: from the start position alone a
    deterministic policy is measured on a handful of lines."""
    from boardgym.agents.arena.matches import baseline_report, opening_positions
    from boardgym.agents.arena.stats import summarize_points

    def play(opp, n_pairs, s):
        kw = {"openings": opening_positions(s, n_pairs)} if game == "draughts" else {}
        if opp == "greedy" and game == "draughts":
            return play_vs_greedy(model, 2 * n_pairs, s, **kw)
        return play_vs_baseline(model, game, opp, 2 * n_pairs, s, **kw)

    names = baseline_names(game) + (("greedy",) if greedy and game == "draughts" else ())
    points = {}

    def keep(opp, n_pairs, s):
        points[opp] = play(opp, n_pairs, s)
        return points[opp]

    out = baseline_report(keep, n_games, seed, -1.0, 1.0, opponents=names)
    for opp, res in out.items():
        summ = summarize_points(points[opp], -1.0, 1.0)
        clip = lambda v: round(float(np.clip(v, -1000.0, 1000.0)), 1)  # noqa: E731
        res["elo"] = clip(summ["elo"])
        res["elo_ci95"] = [clip(v) for v in summ["elo_interval"]]
    return out


def _save_atomic(model, path):
    """model.save to a temporary file, then rename: a killed run never leaves half a checkpoint."""
    write_atomically(str(path), model.save, ".zip")


def _sb3_logger(run_log):
    """An SB3 Logger whose scalars (losses, entropy, KL, ...) go to the run's TensorBoard writer."""
    from stable_baselines3.common.logger import KVWriter, Logger

    class Bridge(KVWriter):
        def write(self, key_values, key_excluded, step=0):
            for key, value in key_values.items():
                excluded = key_excluded.get(key) or ()
                if "tensorboard" in excluded or isinstance(value, (str, bool)):
                    continue
                if isinstance(value, (int, float, np.integer, np.floating)):
                    run_log.scalar(key, value, step)

        def close(self):
            run_log.flush()

    return Logger(folder=None, output_formats=[Bridge()])


#: the settings of checkpoints written before a setting existed (what those runs used)
EARLIER_SETUP = {
    "opponents": "pool",
    "n_steps": 128,
    "batch_size": 1024,
    "n_epochs": 4,
    "pfsp": "hard",
    "openings": None,
    "teacher": None,
}


@dataclasses.dataclass
class PPOSettings:
    """The settings of a PPO run: ``train_ppo``'s arguments but its callbacks (log, progress),
    with its defaults; checked when made (ValueError naming the bad field). ``setup()`` is the
    part a checkpoint keeps and a resumed run takes from it."""

    game: str
    """"draughts" or "backgammon" (required)."""
    total_steps: int
    """The learner's env steps of the whole run, a resumed run's earlier ones included
    (required, >= 0)."""
    run_dir: str | os.PathLike
    """The run directory (required): ppo.zip, ppo_<steps>.zip, resume.pt, metrics.jsonl, tb/."""
    num_envs: int = 256
    """Games played at once, one opponent each (default 256)."""
    seed: int = 0
    """Seed of the model, the env, the opponents and the evaluations (default 0)."""
    snapshot_every: int = 200_000
    """Steps between two frozen snapshots of the learner joining the opponents (default
    200,000)."""
    pool_size: int = 8
    """Snapshots kept among the opponents, the oldest leaving (default 8)."""
    net_arch: Sequence[int] = (64, 64)
    """Hidden layer sizes of the policy and value networks (default (64, 64))."""
    ckpt_every: int = 200_000
    """Steps between checkpoints (resume.pt and ppo.zip), taken at a rollout start (default
    200,000; 0: only the last)."""
    eval_every: int = 500_000
    """Steps between evaluations (default 500,000; 0: none but the last)."""
    eval_games: int = 200
    """Games of an evaluation against each opponent (default 200)."""
    max_moves: int = 300
    """Draughts: plies after which a game is a draw (default 300)."""
    resume: bool = False
    """Continue the run in run_dir from its resume.pt (default False)."""
    tensorboard: bool = True
    """Write TensorBoard logs to run_dir/tb (default True)."""
    progress_every: float = 10.0
    """Seconds between two progress lines (default 10)."""
    force: bool = False
    """A new run in a non-empty run_dir moves the previous run's files aside (default False)."""
    n_steps: int = 64
    """MaskablePPO's steps per game slot per rollout (default 64)."""
    batch_size: int = 2048
    """MaskablePPO's minibatch size (default 2048)."""
    n_epochs: int = 2
    """MaskablePPO's epochs per rollout (default 2)."""
    league: bool = True
    """Opponents from league.League, one per game slot (default True); False: the uniform
    OpponentPool, one member per rollout."""
    pfsp: str = "hard"
    """The league's weighting, "hard" or "var" (league.pfsp_weights; default "hard")."""
    openings: Sequence[str] | None = None
    """Draughts: FENs the training games start from, one drawn per game at every reset
    (default None: the start position)."""
    teacher: str | None = None
    """An agent spec to clone before self-play (kickstart.parse_teacher; default None: none)."""
    teacher_games: int = 1024
    """The teacher's games to clone (default 1024)."""
    teacher_epochs: int = 10
    """Epochs of behaviour cloning (default 10)."""
    teacher_explore: float = 0.1
    """The teacher's exploration, in [0, 1] (default 0.1)."""
    teacher_lr: float = 1e-3
    """Learning rate of the cloning (default 0.001)."""
    teacher_value: float = 0.5
    """Weight of the value head's loss on the game results in the cloning (default 0.5)."""
    teacher_mix: float = 0.0
    """Weight of a cross-entropy term toward the teacher's labels during PPO (default 0: none)."""
    teacher_mix_steps: int = 2_000_000
    """Steps over which teacher_mix decays linearly to 0 (default 2,000,000)."""

    def __post_init__(self) -> None:
        from boardgym.agents.training.league import PFSP

        if self.game not in ("draughts", "backgammon"):
            raise ValueError(f"game must be 'draughts' or 'backgammon', got {self.game!r}")
        for name in ("num_envs", "pool_size", "eval_games", "max_moves", "n_steps", "batch_size"):
            _require(self, name, 1)
        _require(self, "n_epochs", 1)
        for name in ("total_steps", "seed", "snapshot_every", "ckpt_every", "eval_every"):
            _require(self, name, 0)
        if isinstance(self.net_arch, str) or any(int(n) < 1 for n in self.net_arch):
            raise ValueError(f"net_arch must be positive layer sizes, got {self.net_arch!r}")
        if self.pfsp not in PFSP:
            raise ValueError(f"pfsp must be one of {PFSP}, got {self.pfsp!r}")
        if self.teacher:
            self._check_teacher()

    def _check_teacher(self) -> None:
        """ValueError naming a bad teacher spec or teacher setting."""
        from boardgym.agents.training.kickstart import parse_teacher

        parse_teacher(self.game, self.teacher)
        for name in ("teacher_games", "teacher_epochs"):
            v = getattr(self, name)
            if int(v) < 0:
                raise ValueError(f"{name} must be >= 0, got {v}")
        if (
            not 0.0 <= self.teacher_explore <= 1.0
            or self.teacher_lr <= 0
            or self.teacher_value < 0
            or self.teacher_mix < 0
            or self.teacher_mix_steps < 0
        ):
            raise ValueError(
                "teacher_explore must be in [0, 1], teacher_lr > 0, teacher_value, "
                "teacher_mix and teacher_mix_steps >= 0"
            )

    def setup(self) -> dict:
        """The settings a checkpoint keeps (a resumed run takes these from it)."""
        return {
            "game": self.game,
            "num_envs": int(self.num_envs),
            "seed": int(self.seed),
            "snapshot_every": int(self.snapshot_every),
            "pool_size": int(self.pool_size),
            "net_arch": [int(n) for n in self.net_arch],
            "max_moves": int(self.max_moves),
            "n_steps": int(self.n_steps),
            "batch_size": int(self.batch_size),
            "n_epochs": int(self.n_epochs),
            "opponents": "league" if self.league else "pool",
            "pfsp": str(self.pfsp),
            "openings": None if self.openings is None else [str(f) for f in self.openings],
            "teacher": None if not self.teacher else self._teacher_setup(),
        }

    def _teacher_setup(self) -> dict:
        return {
            "spec": str(self.teacher),
            "games": int(self.teacher_games),
            "epochs": int(self.teacher_epochs),
            "explore": float(self.teacher_explore),
            "lr": float(self.teacher_lr),
            "value": float(self.teacher_value),
            "mix": float(self.teacher_mix),
            "mix_steps": int(self.teacher_mix_steps),
        }


def _require(settings: PPOSettings, name: str, low: int) -> None:
    """ValueError naming the field unless settings.name is an integer >= low."""
    value = getattr(settings, name)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")


def _kept_text(key: str, value: object, given: object) -> object:
    """How the resume note shows the checkpoint's setting key (value; given: the argument's)."""
    if key == "openings" and value:
        return f"{len(value)} positions"
    if key == "teacher" and value:
        given = given or {}
        differ = ", ".join(
            f"{k} {value[k]!r}, not the given {given.get(k)!r}"
            for k in value
            if given.get(k) != value[k]
        )
        return value["spec"] + " (" + differ + ")"
    return value


class PPORun:
    """One PPO run from its settings (see the module docstring). ``train()`` prepares the run
    directory (a new run, or a resumed one taking the settings its checkpoint keeps), builds the
    opponents, the env and the model, runs the teacher phase, learns rollout by rollout with the
    cadences of snapshots, checkpoints and evaluations, and ends with an evaluation and a
    checkpoint. log(text): the progress lines; progress(done, total): the steps done and to do
    in this call (a progress bar)."""

    def __init__(
        self,
        settings: PPOSettings,
        log: Callable[[str], None] = print,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        self.cfg = settings
        self.dir = str(settings.run_dir)
        self.log, self.progress = log, progress
        self.setup = settings.setup()
        self.teach = self.setup["teacher"]
        self.clock = {"env": 0.0, "rollout": 0.0, "update": 0.0, "mark": None}  # where time goes
        self.bc_data = {}  # the teacher's positions (kickstart.load_chunks), when cloning or mixing
        self.mixed = []  # the teacher_mix weights applied so far
        self.run = self.saved = self.run_log = None
        self.opponents = self.venv = self.model = self._step_wait = None
        self.counters = {}
        self.start, self.mark = 0, None  # the steps at learn's start; the last progress line's

    def train(self) -> MaskablePPO:
        """Run the whole run (prepare, build, teacher phase, learn, final evaluation); returns the
        model."""
        _torch_threads()
        self.prepare()
        try:
            self.build_opponents()
            self.build_env()
            self.build_model()
            self.open_log()
            self.kickstart()
            self.learn()
            self.finish()
        finally:
            self.run.close()
        return self.model

    # ---- prepare: a new run, or a resumed one with the settings its checkpoint keeps ----

    def prepare(self) -> None:
        """The run directory (lifecycle.Run); resumed, the checkpoint and the settings it keeps."""
        cfg = self.cfg
        self.run = Run(self.dir, RESUME_FILE, RUN_FILES, "steps", cfg.resume, cfg.force, self.log)
        if cfg.resume:
            self.saved = self.read_checkpoint()
            self.keep_setup({**EARLIER_SETUP, **self.saved["setup"]})

    def read_checkpoint(self) -> dict:
        """The resumed run's resume.pt; ValueError naming it when it is not a PPO checkpoint."""
        import torch

        saved = self.run.load(functools.partial(torch.load, weights_only=False))
        missing = [k for k in CHECKPOINT_KEYS if not isinstance(saved, dict) or k not in saved]
        if missing:
            raise ValueError(
                f"--resume: {self.run.checkpoint} is not a PPO run's checkpoint "
                f"(it has no {', '.join(missing)})"
            )
        return saved

    def keep_setup(self, kept: dict) -> None:
        """Take the checkpoint's settings kept, logging those that differ from the given ones."""
        for key, value in kept.items():
            if self.setup[key] != value:
                self.run.keep(key, _kept_text(key, value, self.setup[key]))
        self.setup = kept
        self.teach = kept["teacher"]

    # ---- build: opponents, env, model ----

    @property
    def use_league(self) -> bool:
        """Are the opponents a league (else the uniform OpponentPool)?"""
        return self.setup["opponents"] == "league"

    @property
    def n_actions(self) -> int:
        """The env's action count."""
        return int(self.venv.action_space.n)

    def build_opponents(self) -> None:
        """The league (one member per game slot) or the uniform OpponentPool."""
        from boardgym.agents.training.league import League

        s = self.setup
        if self.use_league:
            self.opponents = League(
                s["game"], s["num_envs"], s["seed"], s["pool_size"], pfsp=s["pfsp"]
            )
        else:
            self.opponents = OpponentPool(s["seed"], s["pool_size"], baseline_names(s["game"]))

    def build_env(self) -> None:
        """The VecEnv over the batched core playing the opponents, its env steps timed."""
        from boardgym.envs.vector import make_sb3_vec_env

        s = self.setup
        kwargs = {"max_moves": s["max_moves"]} if s["game"] == "draughts" else {}
        if s["game"] == "draughts" and s["openings"]:
            kwargs["openings"] = s["openings"]
        self.venv = make_sb3_vec_env(
            s["game"], num_envs=s["num_envs"], opponent=self.opponents, threads=1, **kwargs
        )
        if self.use_league:
            self.opponents.bind(self.venv.core)
        self._step_wait = self.venv.step_wait
        self.venv.step_wait = self._timed_step_wait

    def _timed_step_wait(self) -> tuple:
        """The VecEnv's step_wait, its time added to the clock's "env"."""
        t = time.perf_counter()
        out = self._step_wait()
        self.clock["env"] += time.perf_counter() - t
        return out

    def build_model(self) -> None:
        """A new MaskablePPO with fresh counters, or the checkpoint's with all its state."""
        if self.saved is None:
            self.new_model()
        else:
            self.restore_model()

    def new_model(self) -> None:
        """A new MaskablePPO of the setup's rollout and network settings; counters at 0."""
        from sb3_contrib import MaskablePPO

        s = self.setup
        self.model = MaskablePPO(
            _sparse_policy_class(),
            self.venv,
            n_steps=s["n_steps"],
            batch_size=s["batch_size"],
            n_epochs=s["n_epochs"],
            learning_rate=3e-4,
            gamma=0.995,
            ent_coef=0.01,
            seed=s["seed"],
            policy_kwargs={"net_arch": s["net_arch"]},
            device="cpu",
        )
        self.counters = {
            "steps": 0,
            "games": 0,
            "seconds": 0.0,
            "next_snapshot": s["snapshot_every"],
            "next_eval": self.cfg.eval_every,
            "next_ckpt": self.cfg.ckpt_every,
        }

    def restore_model(self) -> None:
        """The checkpoint's model, counters, opponents, games in progress and random states."""
        from collections import deque

        import torch
        from sb3_contrib import MaskablePPO

        saved = self.saved
        model = MaskablePPO.load(
            io.BytesIO(saved["model"]), env=self.venv, device="cpu", force_reset=False
        )
        self.model = model
        self.counters = dict(saved["counters"])
        self.opponents.set_state(saved["league" if self.use_league else "pool"], model.policy)
        self.venv._seed = saved["venv_seed"]
        if saved["last_obs"] is None:  # killed in the teacher phase: no game played yet
            model._last_obs = None
        else:
            self.venv.core.set_state(saved["core"])
            model._last_obs = saved["last_obs"].copy()
            model._last_episode_starts = saved["episode_starts"].copy()
        model.ep_info_buffer = deque(saved["ep_info"], maxlen=model._stats_window_size)
        model.ep_success_buffer = deque(maxlen=model._stats_window_size)
        torch.set_rng_state(saved["rng"]["torch"])  # last: building the pool drew from torch's
        np.random.set_state(saved["rng"]["numpy"])
        random.setstate(saved["rng"]["python"])

    def open_log(self) -> None:
        """The metrics log (a resumed run's from its checkpoint's step), SB3's scalars into it."""
        log_from = None if self.saved is None else self.counters["steps"]
        teach = self.teach
        if (
            self.saved is not None
            and teach
            and self.counters.get("teacher_epochs", 0) < teach["epochs"]
        ):
            log_from = -1  # in the cloning: its evaluation at step 0 is still to come
        self.run_log = self.run.open_log(log_from, self.cfg.tensorboard, self.counters["seconds"])
        self.model.set_logger(_sb3_logger(self.run_log))

    # ---- cadences: checkpoint, evaluation, snapshot ----

    def checkpoint(self) -> None:
        """resume.pt (all a resumed run needs) and ppo.zip, each written atomically."""
        import torch

        model, venv = self.model, self.venv
        self.counters["seconds"] = self.run.seconds()
        buf = io.BytesIO()
        model.save(buf)
        started = model._last_obs is not None  # False in the teacher phase
        state = {
            "model": buf.getvalue(),
            "setup": self.setup,
            "counters": dict(self.counters),
            "core": venv.core.get_state() if started else None,
            "venv_seed": venv._seed,
            "last_obs": np.array(model._last_obs) if started else None,
            "league" if self.use_league else "pool": self.opponents.get_state(),
            "episode_starts": np.array(model._last_episode_starts) if started else None,
            "ep_info": list(model.ep_info_buffer or ()),
            "rng": {
                "torch": torch.get_rng_state(),
                "numpy": np.random.get_state(),
                "python": random.getstate(),
            },
        }
        self.run.save(functools.partial(torch.save, state))
        write_file_atomically(os.path.join(self.dir, MODEL_FILE), state["model"])  # no 2nd save

    def evaluate_if_due(self) -> None:
        """An evaluation every eval_every steps (lifecycle.due)."""
        if due(self.counters, "next_eval", self.cfg.eval_every):
            self.evaluate()

    def evaluate(self) -> None:
        """The model against the game's players: ppo_<steps>.zip, a metrics line, Elo scalars."""
        c, s = self.counters, self.setup
        c["evaluated"] = c["steps"]
        res = evaluate_baselines(self.model, s["game"], self.cfg.eval_games, s["seed"] + 1, True)
        _torch_threads()
        _save_atomic(self.model, os.path.join(self.dir, f"ppo_{c['steps']}.zip"))
        line = {
            "games": c["games"],
            "steps": c["steps"],
            "seconds": round(self.run.seconds(), 1),
            **res,
        }
        if self.use_league:  # a list, not an object: the curve readers take objects as opponents
            line["league"] = [
                [n, round(r["score"], 4), round(r["weight"], 4), r["games"]]
                for n, r in self.opponents.table().items()
            ]
        self.run_log.evaluation(line)
        self.log_evaluation(res)

    def log_evaluation(self, res: dict) -> None:
        """An evaluation's Elo scalars and progress line."""
        steps = self.counters["steps"]
        for opp, r in res.items():
            self.run_log.scalar(f"elo/{opp}", r["elo"], steps)
            self.run_log.scalar(f"elo/{opp}_low", r["elo_ci95"][0], steps)
            self.run_log.scalar(f"elo/{opp}_high", r["elo_ci95"][1], steps)
        opp = self.opponents
        snaps = len(opp.policies) if self.use_league else len(opp.snapshots)
        self.log(
            f"steps {steps}: {format_evaluation(res)}  "
            + "  ".join(
                f"Elo vs {k} {format_elo(r['elo'], *r['elo_ci95'])}" for k, r in res.items()
            )
            + f"  pool {snaps} snapshots"
        )

    def snapshot_if_due(self) -> None:
        """Every snapshot_every steps a frozen copy of the learner joins the opponents."""
        c = self.counters
        if c["steps"] >= c["next_snapshot"]:
            if self.use_league:
                self.opponents.add_snapshot(self.model.policy, f"snap{c['steps']}")
            else:
                self.opponents.add(self.model.policy)
            c["next_snapshot"] += self.setup["snapshot_every"]

    # ---- the teacher phase (boardgym.agents.training.kickstart) ----

    def kickstart(self) -> None:
        """With a teacher: its positions chunk by chunk, then cloned epoch by epoch (a checkpoint
        after each: a resumed run continues where it stopped)."""
        from boardgym.agents.training import kickstart as ks

        if self.teach is None:
            return
        n_chunks = -(-self.teach["games"] // ks.CHUNK_GAMES)
        self.teacher_chunks(n_chunks)
        if n_chunks:
            self.bc_data.update(ks.load_chunks(self.dir, n_chunks))
        if self.bc_data:
            self.clone()

    def teacher_chunks(self, n_chunks: int) -> None:
        """Generate and save the teacher's labelled games still missing, a checkpoint after each
        chunk."""
        from boardgym.agents.training import kickstart as ks

        teach, s = self.teach, self.setup
        parsed = ks.parse_teacher(s["game"], teach["spec"])
        while self.counters.setdefault("teacher_chunks", 0) < n_chunks:
            k = self.counters["teacher_chunks"]
            t = time.perf_counter()
            n = min(ks.CHUNK_GAMES, teach["games"] - k * ks.CHUNK_GAMES)
            data = ks.teacher_chunk(
                s["game"], parsed, s["seed"], k, n, teach["explore"], s["openings"], s["max_moves"]
            )
            ks.save_chunk(self.dir, k, data)
            self.counters["teacher_chunks"] = k + 1
            self.log(
                f"teacher {teach['spec']}: chunk {k + 1}/{n_chunks}, {n} games, "
                f"{len(data['actions'])} positions, "
                f"{len(data['actions']) / (time.perf_counter() - t):.0f} positions/s"
            )
            self.checkpoint()

    def clone(self) -> None:
        """Behaviour cloning of the policy on the teacher's positions, the epochs still to do;
        the last one ends with an evaluation at step 0 (when eval_every > 0)."""
        from boardgym.agents.training import kickstart as ks

        train_idx, test_idx = ks.split(self.bc_data)
        epochs = self.teach["epochs"]
        if self.counters.setdefault("teacher_epochs", 0) == 0 and epochs:
            ce, agree = ks.held_out(self.model.policy, self.bc_data, test_idx, self.n_actions)
            self.run_log.scalar("teacher/heldout_ce", ce, -epochs)  # the phase: steps -E..0
            self.log(
                f"teacher: {train_idx.size} positions to clone, {test_idx.size} held out: "
                f"cross-entropy {ce:.3f}, agreement {agree:.3f}"
            )
        while self.counters["teacher_epochs"] < epochs:
            self.clone_epoch(train_idx, test_idx)
            if self.counters["teacher_epochs"] == epochs and self.cfg.eval_every:
                self.evaluate()  # the cloned policy, before self-play: ppo_0.zip
            self.checkpoint()

    def clone_epoch(self, train_idx: np.ndarray, test_idx: np.ndarray) -> None:
        """One epoch of cloning (kickstart.clone_epoch), its cross-entropies logged."""
        from boardgym.agents.training import kickstart as ks

        teach, policy, data = self.teach, self.model.policy, self.bc_data
        e = self.counters["teacher_epochs"]
        t = time.perf_counter()
        ce_train = ks.clone_epoch(
            policy,
            data,
            train_idx,
            self.n_actions,
            self.setup["batch_size"],
            teach["lr"],
            teach["value"],
            self.setup["seed"],
            e,
        )
        ce, agree = ks.held_out(policy, data, test_idx, self.n_actions)
        self.counters["teacher_epochs"] = e + 1
        for key, v in (("train_ce", ce_train), ("heldout_ce", ce), ("agreement", agree)):
            self.run_log.scalar(f"teacher/{key}", v, e + 1 - teach["epochs"])
        self.log(
            f"teacher: epoch {e + 1}/{teach['epochs']}  cross-entropy train {ce_train:.3f} "
            f"held-out {ce:.3f}  agreement {agree:.3f}  {time.perf_counter() - t:.0f} s"
        )

    def mix_teacher(self) -> None:
        """Cross-entropy minibatches toward the teacher's labels (teacher_mix, decaying)."""
        import torch

        from boardgym.agents.training import kickstart as ks

        teach, s, policy = self.teach, self.setup, self.model.policy
        w = ks.mix_weight(teach["mix"], teach["mix_steps"], self.counters["steps"])
        if w <= 0 or not self.bc_data:
            return
        gen = np.random.default_rng([s["seed"], self.counters["steps"], 0x313])
        idx = ks.split(self.bc_data)[0]
        opt = policy.optimizer
        policy.set_training_mode(True)
        for _ in range(ks.MIX_BATCHES):
            b = idx[gen.integers(idx.size, size=min(s["batch_size"], idx.size))]
            loss, _ = ks.bc_loss(policy, self.bc_data, b, self.n_actions)
            opt.zero_grad()
            (w * loss).backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
        policy.set_training_mode(False)
        self.mixed.append(w)

    # ---- learn: self-play by rollouts, the cadences at every rollout start ----

    def learn(self) -> None:
        """MaskablePPO's learn up to total_steps, the run called back at rollouts and steps."""
        remaining = self.cfg.total_steps - self.model.num_timesteps
        rollout = self.model.n_envs * self.model.n_steps
        if remaining > 0 and remaining % rollout:
            trained = self.model.num_timesteps + -(-remaining // rollout) * rollout
            self.log(
                f"training {trained:,} steps, not the {self.cfg.total_steps:,} asked: "
                f"MaskablePPO learns in whole rollouts of {rollout:,} steps "
                f"({self.model.n_envs} games x {self.model.n_steps} steps, --num-envs x --rollout)"
            )
        if remaining > 0:
            c = self.counters
            self.mark = (time.perf_counter(), c["steps"], c["games"])
            self.start = c["steps"]
            self.model.learn(remaining, callback=_self_play(self), reset_num_timesteps=False)
        self.counters["steps"] = self.model.num_timesteps

    def rollout_start(self, num_timesteps: int) -> None:
        """Evaluate, checkpoint, snapshot, pick the opponent (in that order, so a checkpoint holds
        the state just before the snapshot and the pick)."""
        now = time.perf_counter()
        if self.clock["mark"] is not None:
            self.clock["update"] += now - self.clock["mark"]
        self.clock["mark"] = now
        steps = self.counters["steps"] = num_timesteps
        self.evaluate_if_due()
        if due(self.counters, "next_ckpt", self.cfg.ckpt_every):
            self.checkpoint()
        self.snapshot_if_due()
        if self.teach is not None and self.teach["mix"] > 0:
            self.mix_teacher()
            if self.mixed:
                self.run_log.scalar("teacher/mix_weight", self.mixed[-1], steps)
        self.next_opponents()
        self.model.logger.record("selfplay/games", self.counters["games"])
        self.log_progress()

    def next_opponents(self) -> None:
        """The league's scalars, or the pool's next member; the snapshot count recorded."""
        opp, steps = self.opponents, self.counters["steps"]
        if self.use_league:
            for name, r in opp.table().items():
                for key in ("score", "weight"):
                    self.run_log.scalar(f"league/{key}/{name}", r[key], steps)
            self.model.logger.record("selfplay/pool_snapshots", len(opp.policies))
        else:
            opp.pick()
            self.model.logger.record("selfplay/pool_snapshots", len(opp.snapshots))

    def rollout_end(self) -> None:
        """torch back on one thread; the rollout's time added to the clock."""
        _torch_threads()  # the core's Numba calls may have reset torch's OpenMP threads
        now = time.perf_counter()
        self.clock["rollout"] += now - self.clock["mark"]
        self.clock["mark"] = now

    def step(self, dones: np.ndarray, rewards: np.ndarray, num_timesteps: int) -> None:
        """After an env step: count finished games (the league scores them), move the bar."""
        finished = np.flatnonzero(dones)
        self.counters["games"] += int(finished.size)
        if self.use_league and finished.size:
            self.opponents.record(finished, np.asarray(rewards)[finished])
        if self.progress is not None:
            self.progress(num_timesteps - self.start, max(self.cfg.total_steps - self.start, 0))

    def log_progress(self) -> None:
        """A progress line (rates, ETA, where the time went) every progress_every seconds."""
        now = time.perf_counter()
        t, s, g = self.mark
        steps, games, total = self.counters["steps"], self.counters["games"], self.cfg.total_steps
        if now - t < self.cfg.progress_every or steps == s:
            return
        rate, games_rate = (steps - s) / (now - t), (games - g) / (now - t)
        eta = (total - steps) / rate / 60 if rate > 0 else float("nan")
        self.run_log.scalar("time/steps_per_s", rate, steps)
        self.log(
            f"steps {steps}/{total}  {rate:.0f} steps/s  {games_rate:.1f} games/s  "
            f"ETA {eta:.1f} min  games {games}" + self.time_split()
        )
        self.mark = (now, steps, games)

    def time_split(self) -> str:
        """The fractions of the time in the env, the policy and the update since the last line
        (logged as scalars), as text; the clock restarts."""
        clock = self.clock
        busy = clock["rollout"] + clock["update"]
        split = {k: clock[k] / busy for k in ("env", "rollout", "update")} if busy else {}
        for key, value in split.items():
            self.run_log.scalar(f"time/{key}_fraction", value, self.counters["steps"])
        for key in ("env", "rollout", "update"):
            clock[key] = 0.0
        if not busy:
            return ""
        return (
            f"  time: env+opponents {split['env']:.0%}, policy and buffer "
            f"{split['rollout'] - split['env']:.0%}, update {split['update']:.0%}"
        )

    def finish(self) -> None:
        """The final evaluation (every run ends with one: metrics.jsonl is never empty) and
        checkpoint."""
        self.evaluate_if_due()
        if self.counters.get("evaluated") != self.counters["steps"]:
            self.evaluate()
        self.checkpoint()
        path = os.path.join(self.dir, MODEL_FILE)
        self.log(
            f"saved the model ({self.counters['steps']:,} steps) to {path}: play it with "
            f"boardgym play --game {self.cfg.game} --agent {path}"
        )


def _self_play(run: PPORun) -> BaseCallback:
    """The SB3 callback handing a PPORun its rollout starts and ends and its steps."""
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlay(BaseCallback):
        def __init__(self, ppo_run):
            super().__init__()
            self.ppo_run = ppo_run

        def _on_rollout_start(self):
            self.ppo_run.rollout_start(self.num_timesteps)

        def _on_rollout_end(self):
            self.ppo_run.rollout_end()

        def _on_step(self):
            self.ppo_run.step(self.locals["dones"], self.locals["rewards"], self.num_timesteps)
            return True

    return SelfPlay(run)


def train_ppo(
    game: str,
    total_steps: int,
    run_dir: str | os.PathLike,
    num_envs: int = 256,
    seed: int = 0,
    snapshot_every: int = 200_000,
    pool_size: int = 8,
    net_arch: Sequence[int] = (64, 64),
    ckpt_every: int = 200_000,
    eval_every: int = 500_000,
    eval_games: int = 200,
    max_moves: int = 300,
    resume: bool = False,
    tensorboard: bool = True,
    log: Callable[[str], None] = print,
    progress_every: float = 10.0,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
    n_steps: int = 64,
    batch_size: int = 2048,
    n_epochs: int = 2,
    league: bool = True,
    pfsp: str = "hard",
    openings: Sequence[str] | None = None,
    teacher: str | None = None,
    teacher_games: int = 1024,
    teacher_epochs: int = 10,
    teacher_explore: float = 0.1,
    teacher_lr: float = 1e-3,
    teacher_value: float = 0.5,
    teacher_mix: float = 0.0,
    teacher_mix_steps: int = 2_000_000,
) -> MaskablePPO:
    """Train a MaskablePPO policy by self-play into run_dir (see the module docstring): the
    PPORun of these PPOSettings (whose fields document the arguments), log(text) its progress
    lines, progress(done, total) called with the steps done and to do in this call (a progress
    bar). Returns the model.

    league: the opponents are a boardgym.agents.training.league.League (fixed players and
    snapshots, one member per game slot, sampled by prioritized fictitious self-play); False:
    the uniform OpponentPool of earlier runs, one member per rollout. The policy is
    LegalActionPolicy (the masked policy computed over the legal actions only). The batched
    core runs on one Numba thread and torch on one thread (the parallel core also resets
    torch's OpenMP thread count). teacher: an agent spec (kickstart.parse_teacher, e.g.
    "draughts-alphabeta:depth=4"): before self-play, behaviour cloning of teacher_games games of
    the teacher; teacher_mix > 0 keeps a cross-entropy term toward the teacher's labels during
    PPO, decaying linearly to 0 at teacher_mix_steps. The phase ends with an evaluation at step
    0 (when eval_every > 0). Evaluations (every eval_every steps and at the end, eval_games
    against the game's in-kernel players and, in draughts, GreedyAgent) are logged, with each
    opponent's Elo difference and interval, and appended to metrics.jsonl. A bad setting is a
    ValueError naming it, before run_dir is touched. On resume the checkpoint's game, num_envs,
    seed, pool, rollout, network, opening and teacher settings win over the arguments (a note is
    logged when they differ)."""
    settings = dict(locals())  # the arguments: the fields of PPOSettings and the two callbacks
    del settings["log"], settings["progress"]
    return PPORun(PPOSettings(**settings), log, progress).train()
