"""Training a PPOAgent: ``train_ppo`` (``boardgym train --algo ppo``), MaskablePPO by self-play on
the batched env, with its opponents (the league or ``OpponentPool``) and evaluations.

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

import io
import os
import random
import time

import numpy as np

from boardgym.agents.files import write_atomically, write_file_atomically
from boardgym.agents.ppo import _sparse_policy_class, _torch_threads
from boardgym.agents.training.lifecycle import Run, due
from boardgym.agents.training.run_log import format_evaluation

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

    def __init__(self, seed=0, pool_size=8, baselines=("random", "greedy")):
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
    def kernel_opponent(self):
        """The in-kernel player standing in for the current member (None for a snapshot)."""
        return self.current if isinstance(self.current, str) else None

    def add(self, policy):
        """Freeze a copy of policy (an SB3 policy) into the pool."""
        frozen = type(policy)(**policy._get_constructor_parameters())
        frozen.load_state_dict(policy.state_dict())
        self.snapshots.append(frozen.eval())
        del self.snapshots[: -self.pool_size]

    def get_state(self):
        """The pool's generator state, snapshot weights and current member (for a checkpoint)."""
        current = (
            self.current if isinstance(self.current, str) else self.snapshots.index(self.current)
        )
        return {
            "rng": self.rng.bit_generator.state,
            "current": current,
            "snapshots": [p.state_dict() for p in self.snapshots],
        }

    def set_state(self, state, policy):
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

    def pick(self):
        """Draw the next member uniformly from the baselines and the snapshots."""
        members = list(self.baselines) + self.snapshots
        self.current = members[int(self.rng.integers(len(members)))]

    def __call__(self, obs, masks):
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


def play_vs_baseline(model, game, opponent="random", n_games=200, seed=0, **core_kwargs):
    """Points of the model's deterministic policy in n_games against an in-kernel opponent
    ("random" or "greedy"): boardgym.agents.arena.matches.play_vs_kernel_opponent (pairs of games
    on the batched core from one random stream, the learner's seat swapped)."""
    from boardgym.agents.arena.matches import play_vs_kernel_opponent

    def policy(obs, masks):
        return model.predict(obs, action_masks=masks.astype(bool), deterministic=True)[0]

    return play_vs_kernel_opponent(policy, game, opponent, n_games, seed, **core_kwargs)


def baseline_names(game):
    """The game's in-kernel players by name (the batched core's opponent names but None)."""
    from boardgym.envs.batch import BackgammonBatch, DraughtsBatch

    codes = (DraughtsBatch if game == "draughts" else BackgammonBatch).opponent_codes
    return tuple(k for k in codes if k not in (None, "none"))


def play_vs_greedy(model, n_games=200, seed=0, evaluation=None, **core_kwargs):
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


def evaluate_baselines(model, game, n_games=200, seed=0, greedy=False):
    """{opponent: points_summary + Elo} of the model against the game's in-kernel players and,
    with greedy (draughts), GreedyAgent (one point a game: the batched backgammon core scores
    single games). Each entry adds ``elo`` and ``elo_ci95``: the Elo difference to that opponent
    with its 95% interval (stats.match_elo of the score, +-1000 standing for infinity).
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


def train_ppo(
    game,
    total_steps,
    run_dir,
    num_envs=256,
    seed=0,
    snapshot_every=200_000,
    pool_size=8,
    net_arch=(64, 64),
    ckpt_every=200_000,
    eval_every=500_000,
    eval_games=200,
    max_moves=300,
    resume=False,
    tensorboard=True,
    log=print,
    progress_every=10.0,
    force=False,
    progress=None,
    n_steps=64,
    batch_size=2048,
    n_epochs=2,
    league=True,
    pfsp="hard",
    openings=None,
    teacher=None,
    teacher_games=1024,
    teacher_epochs=10,
    teacher_explore=0.1,
    teacher_lr=1e-3,
    teacher_value=0.5,
    teacher_mix=0.0,
    teacher_mix_steps=2_000_000,
):
    """Train a MaskablePPO policy by self-play into run_dir (see the module docstring).

    league: the opponents are a boardgym.agents.training.league.League (fixed players and
    snapshots, one member per game slot, sampled by prioritized fictitious self-play); False:
    the uniform OpponentPool of earlier runs, one member per rollout; pfsp: the league's
    weighting ("hard" or "var", league.pfsp_weights); openings (draughts): FENs the training
    games start from, one drawn per game at every reset (DraughtsBatch(openings=...)), None:
    the start position. n_steps (steps per game slot per rollout), batch_size and n_epochs are
    MaskablePPO's; the policy is LegalActionPolicy (the masked policy computed over the legal
    actions only). The batched core runs on one Numba thread and torch on one thread (the
    parallel core also resets torch's OpenMP thread count).
    teacher: an agent spec (boardgym.agents.training.kickstart.parse_teacher, e.g.
    "draughts-alphabeta:depth=4"): before self-play, behaviour cloning of teacher_games games of
    the teacher (exploration teacher_explore) for teacher_epochs epochs at learning rate
    teacher_lr, the value head on the game results weighted teacher_value; teacher_mix > 0
    keeps a cross-entropy term toward the teacher's labels during PPO, decaying linearly to 0
    at teacher_mix_steps (boardgym.agents.training.kickstart). The phase ends with an
    evaluation at step 0 (when eval_every > 0).
    Evaluations (every eval_every steps (0: none but the last) and at the end, eval_games
    against the game's in-kernel players and, in draughts, GreedyAgent) are logged, with each
    opponent's Elo difference and interval, and appended to metrics.jsonl. A new run refuses a
    non-empty run_dir unless force (``run_log.prepare_run_dir``). On resume the checkpoint's
    game, num_envs, seed, pool, rollout and network settings win over the arguments (a note is
    logged when they differ); total_steps is the total of the whole run. progress(done,
    total): called with the steps done and to do in this call (a progress bar). Returns the
    model."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from boardgym.agents.training.league import League
    from boardgym.envs.vector import make_sb3_vec_env

    _torch_threads()
    run_dir = str(run_dir)
    if teacher:
        from boardgym.agents.training.kickstart import parse_teacher

        parse_teacher(game, teacher)  # ValueError naming a bad spec, before anything is moved
    setup = {
        "game": game,
        "num_envs": int(num_envs),
        "seed": int(seed),
        "snapshot_every": int(snapshot_every),
        "pool_size": int(pool_size),
        "net_arch": [int(n) for n in net_arch],
        "max_moves": int(max_moves),
        "n_steps": int(n_steps),
        "batch_size": int(batch_size),
        "n_epochs": int(n_epochs),
        "opponents": "league" if league else "pool",
        "pfsp": str(pfsp),
        "openings": None if openings is None else [str(f) for f in openings],
        "teacher": None,
    }
    if teacher:
        for name, v in (("teacher_games", teacher_games), ("teacher_epochs", teacher_epochs)):
            if int(v) < 0:
                raise ValueError(f"{name} must be >= 0, got {v}")
        if (
            not 0.0 <= teacher_explore <= 1.0
            or teacher_lr <= 0
            or teacher_value < 0
            or teacher_mix < 0
            or teacher_mix_steps < 0
        ):
            raise ValueError(
                "teacher_explore must be in [0, 1], teacher_lr > 0, teacher_value, "
                "teacher_mix and teacher_mix_steps >= 0"
            )
        setup["teacher"] = {
            "spec": str(teacher),
            "games": int(teacher_games),
            "epochs": int(teacher_epochs),
            "explore": float(teacher_explore),
            "lr": float(teacher_lr),
            "value": float(teacher_value),
            "mix": float(teacher_mix),
            "mix_steps": int(teacher_mix_steps),
        }
    run = Run(run_dir, RESUME_FILE, RUN_FILES, "steps", resume, force, log)
    saved = None
    if resume:
        saved = run.load(lambda path: torch.load(path, weights_only=False))
        missing = [k for k in CHECKPOINT_KEYS if not isinstance(saved, dict) or k not in saved]
        if missing:
            raise ValueError(
                f"--resume: {run.checkpoint} is not a PPO run's checkpoint "
                f"(it has no {', '.join(missing)})"
            )
        old = {
            "opponents": "pool",
            "n_steps": 128,
            "batch_size": 1024,
            "n_epochs": 4,
            "pfsp": "hard",
            "openings": None,
            "teacher": None,
        }
        kept = {**old, **saved["setup"]}  # checkpoints of earlier runs: their settings
        for key, value in kept.items():
            if setup[key] != value:
                shown = f"{len(value)} positions" if key == "openings" and value else value
                if key == "teacher" and value:
                    given = setup[key] or {}
                    shown = (
                        value["spec"]
                        + " ("
                        + ", ".join(
                            f"{k} {value[k]!r}, not the given {given.get(k)!r}"
                            for k in value
                            if given.get(k) != value[k]
                        )
                        + ")"
                    )
                run.keep(key, shown)
        setup = kept
    game, snapshot_every = setup["game"], setup["snapshot_every"]
    use_league = setup["opponents"] == "league"
    if use_league:
        opponents = League(
            game, setup["num_envs"], setup["seed"], setup["pool_size"], pfsp=setup["pfsp"]
        )
    else:
        opponents = OpponentPool(setup["seed"], setup["pool_size"], baseline_names(game))
    kwargs = {"max_moves": setup["max_moves"]} if game == "draughts" else {}
    if game == "draughts" and setup["openings"]:
        kwargs["openings"] = setup["openings"]
    venv = make_sb3_vec_env(
        game, num_envs=setup["num_envs"], opponent=opponents, threads=1, **kwargs
    )
    if use_league:
        opponents.bind(venv.core)
    clock = {"env": 0.0, "rollout": 0.0, "update": 0.0, "mark": None}  # where the time goes
    step_wait = venv.step_wait

    def timed_step_wait():
        t = time.perf_counter()
        out = step_wait()
        clock["env"] += time.perf_counter() - t
        return out

    venv.step_wait = timed_step_wait
    if saved is None:
        model = MaskablePPO(
            _sparse_policy_class(),
            venv,
            n_steps=setup["n_steps"],
            batch_size=setup["batch_size"],
            n_epochs=setup["n_epochs"],
            learning_rate=3e-4,
            gamma=0.995,
            ent_coef=0.01,
            seed=setup["seed"],
            policy_kwargs={"net_arch": setup["net_arch"]},
            device="cpu",
        )
        counters = {
            "steps": 0,
            "games": 0,
            "seconds": 0.0,
            "next_snapshot": snapshot_every,
            "next_eval": eval_every,
            "next_ckpt": ckpt_every,
        }
    else:
        model = MaskablePPO.load(
            io.BytesIO(saved["model"]), env=venv, device="cpu", force_reset=False
        )
        counters = dict(saved["counters"])
        opponents.set_state(saved["league" if use_league else "pool"], model.policy)
        venv._seed = saved["venv_seed"]
        if saved["last_obs"] is None:  # killed in the teacher phase: no game played yet
            model._last_obs = None
        else:
            venv.core.set_state(saved["core"])
            model._last_obs = saved["last_obs"].copy()
            model._last_episode_starts = saved["episode_starts"].copy()
        from collections import deque

        model.ep_info_buffer = deque(saved["ep_info"], maxlen=model._stats_window_size)
        model.ep_success_buffer = deque(maxlen=model._stats_window_size)
        torch.set_rng_state(saved["rng"]["torch"])  # last: building the pool drew from torch's
        np.random.set_state(saved["rng"]["numpy"])
        random.setstate(saved["rng"]["python"])
    log_from = None if saved is None else counters["steps"]
    if (
        saved is not None
        and setup["teacher"]
        and counters.get("teacher_epochs", 0) < setup["teacher"]["epochs"]
    ):
        log_from = -1  # in the cloning: its evaluation at step 0 is still to come
    run_log = run.open_log(log_from, tensorboard, counters["seconds"])
    model.set_logger(_sb3_logger(run_log))

    def checkpoint():
        counters["seconds"] = run.seconds()
        buf = io.BytesIO()
        model.save(buf)
        started = model._last_obs is not None  # False in the teacher phase
        state = {
            "model": buf.getvalue(),
            "setup": setup,
            "counters": dict(counters),
            "core": venv.core.get_state() if started else None,
            "venv_seed": venv._seed,
            "last_obs": np.array(model._last_obs) if started else None,
            "league" if use_league else "pool": opponents.get_state(),
            "episode_starts": np.array(model._last_episode_starts) if started else None,
            "ep_info": list(model.ep_info_buffer or ()),
            "rng": {
                "torch": torch.get_rng_state(),
                "numpy": np.random.get_state(),
                "python": random.getstate(),
            },
        }
        run.save(lambda tmp: torch.save(state, tmp))
        write_file_atomically(os.path.join(run_dir, MODEL_FILE), state["model"])  # no second save

    def evaluate_if_due():
        if due(counters, "next_eval", eval_every):
            evaluate()

    def evaluate():
        counters["evaluated"] = counters["steps"]
        res = evaluate_baselines(model, game, eval_games, setup["seed"] + 1, greedy=True)
        _torch_threads()
        _save_atomic(model, os.path.join(run_dir, f"ppo_{counters['steps']}.zip"))
        line = {
            "games": counters["games"],
            "steps": counters["steps"],
            "seconds": round(run.seconds(), 1),
            **res,
        }
        if use_league:  # a list, not an object: the curve readers take objects as opponents
            line["league"] = [
                [n, round(r["score"], 4), round(r["weight"], 4), r["games"]]
                for n, r in opponents.table().items()
            ]
        run_log.evaluation(line)
        for opp, r in res.items():
            run_log.scalar(f"elo/{opp}", r["elo"], counters["steps"])
            run_log.scalar(f"elo/{opp}_low", r["elo_ci95"][0], counters["steps"])
            run_log.scalar(f"elo/{opp}_high", r["elo_ci95"][1], counters["steps"])
        snaps = len(opponents.policies) if use_league else len(opponents.snapshots)
        log(
            f"steps {counters['steps']}: {format_evaluation(res)}  "
            + "  ".join(f"Elo vs {k} {r['elo']:+.0f}" for k, r in res.items())
            + f"  pool {snaps} snapshots"
        )

    class SelfPlay(BaseCallback):
        """At each rollout start: evaluate, checkpoint, snapshot, pick the opponent (in that order,
        so a checkpoint holds the state just before the snapshot and the pick)."""

        def __init__(self):
            super().__init__()
            self.mark = (time.perf_counter(), counters["steps"], counters["games"])  # last line
            self.start = counters["steps"]

        def _on_rollout_start(self):
            now = time.perf_counter()
            if clock["mark"] is not None:
                clock["update"] += now - clock["mark"]
            clock["mark"] = now
            counters["steps"] = self.num_timesteps
            evaluate_if_due()
            if due(counters, "next_ckpt", ckpt_every):
                checkpoint()
            if counters["steps"] >= counters["next_snapshot"]:
                if use_league:
                    opponents.add_snapshot(self.model.policy, f"snap{counters['steps']}")
                else:
                    opponents.add(self.model.policy)
                counters["next_snapshot"] += snapshot_every
            if teach is not None and teach["mix"] > 0:
                mix_teacher()
                if self_play_mix:
                    run_log.scalar("teacher/mix_weight", self_play_mix[-1], counters["steps"])
            if use_league:
                for name, r in opponents.table().items():
                    for key in ("score", "weight"):
                        run_log.scalar(f"league/{key}/{name}", r[key], counters["steps"])
                self.logger.record("selfplay/pool_snapshots", len(opponents.policies))
            else:
                opponents.pick()
                self.logger.record("selfplay/pool_snapshots", len(opponents.snapshots))
            self.logger.record("selfplay/games", counters["games"])
            self.log_progress()

        def _on_rollout_end(self):
            _torch_threads()  # the core's Numba calls may have reset torch's OpenMP threads
            now = time.perf_counter()
            clock["rollout"] += now - clock["mark"]
            clock["mark"] = now

        def log_progress(self):
            now = time.perf_counter()
            t, s, g = self.mark
            if now - t < progress_every or counters["steps"] == s:
                return
            rate, games_rate = (
                (counters["steps"] - s) / (now - t),
                (counters["games"] - g) / (now - t),
            )
            eta = (total_steps - counters["steps"]) / rate / 60 if rate > 0 else float("nan")
            busy = clock["rollout"] + clock["update"]
            split = {k: clock[k] / busy for k in ("env", "rollout", "update")} if busy else {}
            for key, value in split.items():
                run_log.scalar(f"time/{key}_fraction", value, counters["steps"])
            run_log.scalar("time/steps_per_s", rate, counters["steps"])
            if busy:
                split_text = (
                    f"  time: env+opponents {split['env']:.0%}, policy and buffer "
                    f"{split['rollout'] - split['env']:.0%}, update {split['update']:.0%}"
                )
            log(
                f"steps {counters['steps']}/{total_steps}  {rate:.0f} steps/s  "
                f"{games_rate:.1f} games/s  ETA {eta:.1f} min  games {counters['games']}"
                + (split_text if busy else "")
            )
            for key in ("env", "rollout", "update"):
                clock[key] = 0.0
            self.mark = (now, counters["steps"], counters["games"])

        def _on_step(self):
            dones = self.locals["dones"]
            finished = np.flatnonzero(dones)
            counters["games"] += int(finished.size)
            if use_league and finished.size:
                opponents.record(finished, np.asarray(self.locals["rewards"])[finished])
            if progress is not None:
                progress(self.num_timesteps - self.start, max(total_steps - self.start, 0))
            return True

    n_actions = int(venv.action_space.n)
    teach = setup["teacher"]
    bc_data = {}  # the teacher's positions (kickstart.load_chunks), when cloning or mixing

    def teacher_phase():
        """Generate the teacher's positions chunk by chunk, then clone them epoch by epoch
        (a checkpoint after each: a resumed run continues where it stopped)."""
        from boardgym.agents.training import kickstart as ks

        parsed = ks.parse_teacher(game, teach["spec"])
        n_chunks = -(-teach["games"] // ks.CHUNK_GAMES)
        while counters.setdefault("teacher_chunks", 0) < n_chunks:
            k = counters["teacher_chunks"]
            t = time.perf_counter()
            n = min(ks.CHUNK_GAMES, teach["games"] - k * ks.CHUNK_GAMES)
            data = ks.teacher_chunk(
                game,
                parsed,
                setup["seed"],
                k,
                n,
                teach["explore"],
                setup["openings"],
                setup["max_moves"],
            )
            ks.save_chunk(run_dir, k, data)
            counters["teacher_chunks"] = k + 1
            log(
                f"teacher {teach['spec']}: chunk {k + 1}/{n_chunks}, {n} games, "
                f"{len(data['actions'])} positions, "
                f"{len(data['actions']) / (time.perf_counter() - t):.0f} positions/s"
            )
            checkpoint()
        if n_chunks:
            bc_data.update(ks.load_chunks(run_dir, n_chunks))
        if not bc_data:
            return
        train_idx, test_idx = ks.split(bc_data)
        if counters.setdefault("teacher_epochs", 0) == 0 and teach["epochs"]:
            ce, agree = ks.held_out(model.policy, bc_data, test_idx, n_actions)
            run_log.scalar("teacher/heldout_ce", ce, -teach["epochs"])  # the phase: steps -E..0
            log(
                f"teacher: {train_idx.size} positions to clone, {test_idx.size} held out: "
                f"cross-entropy {ce:.3f}, agreement {agree:.3f}"
            )
        while counters["teacher_epochs"] < teach["epochs"]:
            e = counters["teacher_epochs"]
            t = time.perf_counter()
            ce_train = ks.clone_epoch(
                model.policy,
                bc_data,
                train_idx,
                n_actions,
                setup["batch_size"],
                teach["lr"],
                teach["value"],
                setup["seed"],
                e,
            )
            ce, agree = ks.held_out(model.policy, bc_data, test_idx, n_actions)
            counters["teacher_epochs"] = e + 1
            for key, v in (("train_ce", ce_train), ("heldout_ce", ce), ("agreement", agree)):
                run_log.scalar(f"teacher/{key}", v, e + 1 - teach["epochs"])
            log(
                f"teacher: epoch {e + 1}/{teach['epochs']}  cross-entropy train {ce_train:.3f} "
                f"held-out {ce:.3f}  agreement {agree:.3f}  {time.perf_counter() - t:.0f} s"
            )
            if counters["teacher_epochs"] == teach["epochs"] and eval_every:
                evaluate()  # the cloned policy, before self-play: ppo_0.zip
            checkpoint()

    def mix_teacher():
        """Cross-entropy minibatches toward the teacher's labels (teacher_mix, decaying)."""
        from boardgym.agents.training import kickstart as ks

        w = ks.mix_weight(teach["mix"], teach["mix_steps"], counters["steps"])
        if w <= 0 or not bc_data:
            return
        gen = np.random.default_rng([setup["seed"], counters["steps"], 0x313])
        idx = ks.split(bc_data)[0]
        opt = model.policy.optimizer
        model.policy.set_training_mode(True)
        for _ in range(ks.MIX_BATCHES):
            b = idx[gen.integers(idx.size, size=min(setup["batch_size"], idx.size))]
            loss, _ = ks.bc_loss(model.policy, bc_data, b, n_actions)
            opt.zero_grad()
            (w * loss).backward()
            torch.nn.utils.clip_grad_norm_(model.policy.parameters(), 0.5)
            opt.step()
        model.policy.set_training_mode(False)
        self_play_mix.append(w)

    self_play_mix = []
    try:
        if teach is not None:
            teacher_phase()
        remaining = total_steps - model.num_timesteps
        if remaining > 0:
            model.learn(remaining, callback=SelfPlay(), reset_num_timesteps=False)
        counters["steps"] = model.num_timesteps
        evaluate_if_due()
        if counters.get("evaluated") != counters["steps"]:
            evaluate()  # every run ends with an evaluation (metrics.jsonl is never empty)
        checkpoint()
    finally:
        run.close()
    return model
