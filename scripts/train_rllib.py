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
import json
import os
import sys
import time
import zlib
from typing import Literal

import numpy as np

from boardgym.scripts import cli

AGENTS = ("player_0", "player_1")
BASELINES = {"draughts": ("random", "greedy"), "backgammon": ("random",)}


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
    """game cap: plies for draughts (max_moves), rolls for backgammon (max_turns); a capped game is a draw"""
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


RUN_FILES = ("algo", "league.json", "league.json.tmp*")  # what a run writes (moved by --force)


class LeagueMapping:
    """Agent -> module per episode: main on seat ``crc32(episode id) % 2``; the other seat is main
    with probability ``self_play_prob``, else a league member (both drawn from the episode id)."""

    def __init__(self, league, self_play_prob, seed=0):
        self.league = list(league)
        self.self_play_prob = float(self_play_prob)
        self.seed = int(seed)

    def __call__(self, agent_id, episode, **kwargs):
        h = zlib.crc32(f"{self.seed}:{episode.id_}".encode())
        if AGENTS.index(agent_id) == h % 2:
            return "main"
        u = (h >> 1) % 10_000 / 10_000
        if u < self.self_play_prob or not self.league:
            return "main"
        return self.league[(h >> 15) % len(self.league)]


def on_episode_end(*, episode, metrics_logger=None, **kwargs):
    """Log main's result (1 win, 0.5 draw, 0 loss) in games against a league member."""
    modules = {a: episode.module_for(a) for a in AGENTS}
    mains = [a for a in AGENTS if modules[a] == "main"]
    if len(mains) != 1 or metrics_logger is None:
        return
    me = mains[0]
    ret = float(episode.agent_episodes[me].get_return()) if me in episode.agent_episodes else 0.0
    score = 1.0 if ret > 0 else 0.5 if ret == 0 else 0.0
    metrics_logger.log_value("main_league_score", score, reduce="sum", clear_on_reduce=True)
    metrics_logger.log_value("main_league_games", 1, reduce="sum", clear_on_reduce=True)


def _env_config(cfg):
    if cfg.game == "draughts":
        return {"game": "draughts", "max_moves": cfg.max_length or None}
    return {"game": "backgammon", "max_turns": cfg.max_length or None}


def _module_spec(cfg):
    from boardgym.agents.rllib_module import module_spec

    env_kw = {k: v for k, v in _env_config(cfg).items() if k != "game"}
    return module_spec(cfg.game, hidden=(cfg.hidden,) * cfg.layers, **env_kw)


def build_config(cfg, league):
    """The PPOConfig with modules main + league (a list of module ids)."""
    import ray.cloudpickle
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from boardgym.envs.rllib import register_envs

    if __name__ != "__main__" and __name__ in sys.modules:
        # Ray workers cannot import this script: ship its callables (mapping, callback) by value
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])

    register_envs()
    spec = _module_spec(cfg)
    modules = ["main", *league]
    return (
        PPOConfig()
        .environment(f"boardgym/{cfg.game}", env_config=_env_config(cfg))
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            num_envs_per_env_runner=cfg.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=cfg.train_batch,
            minibatch_size=cfg.minibatch,
            num_epochs=cfg.epochs,
            lr=cfg.lr,
            entropy_coeff=cfg.entropy_coeff,
        )
        .multi_agent(
            policies=set(modules),
            policy_mapping_fn=LeagueMapping(league, cfg.self_play_prob, cfg.seed),
            policies_to_train=["main"],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={m: spec for m in modules}))
        .callbacks(on_episode_end=on_episode_end)
        .debugging(seed=cfg.seed)
    )


def _main_state(algo, module_id="main"):
    """A module's state (weights) from the learner."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE

    state = algo.learner_group.get_state(
        components=f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}/{module_id}"
    )
    return state[COMPONENT_LEARNER][COMPONENT_RL_MODULE][module_id]


def _copy_module(algo, src, dst):
    """Set module dst's weights (learners and env runners) to src's."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE

    algo.set_state(
        {
            COMPONENT_LEARNER_GROUP: {
                COMPONENT_LEARNER: {COMPONENT_RL_MODULE: {dst: _main_state(algo, src)}}
            }
        }
    )


def add_snapshot(algo, cfg, league, name):
    """Freeze a copy of main as module ``name`` in the league; returns the new league list."""
    league = [*league, name]
    dropped = league[: -cfg.max_league] if len(league) > cfg.max_league else []
    league = league[-cfg.max_league :]
    mapping = LeagueMapping(league, cfg.self_play_prob, cfg.seed)
    algo.add_module(
        name,
        _module_spec(cfg),
        new_agent_to_module_mapping_fn=mapping,
        new_should_module_be_updated=["main"],
    )
    _copy_module(algo, "main", name)
    if digest(_main_state(algo, name)) != digest(_main_state(algo, "main")):
        raise RuntimeError(f"snapshot {name} does not hold main's weights")
    for old in dropped:
        algo.remove_module(
            old, new_agent_to_module_mapping_fn=mapping, new_should_module_be_updated=["main"]
        )
    return league


def digest(module_state):
    """SHA-1 of a module state's tensors (to check copies and restores)."""
    import hashlib

    h = hashlib.sha1()
    for key in sorted(module_state):
        h.update(key.encode())
        h.update(np.ascontiguousarray(np.asarray(module_state[key])).tobytes())
    return h.hexdigest()


def main_agent(algo, cfg):
    """The current main module (learner weights) as a greedy boardgym agent."""
    from boardgym.agents.rllib_module import RLlibAgent

    module = _module_spec(cfg).build()
    module.set_state(_main_state(algo))
    module.eval()
    return RLlibAgent(module, deterministic=True)


def play_games(agent, opponent, game, n_games, seed=0, env_config=None):
    """Score (win 1, draw 1/2) of agent vs opponent over n_games (rounded up to even) AEC games:
    boardgym.agents.arena.matches.play_match (pairs from one start with the seats swapped, both
    seeing observations only), capped as env_config's max_moves / max_turns."""
    from boardgym.agents.arena import matches as evaluation

    cfg = dict(env_config or {})
    cap = cfg.get("max_moves" if game == "draughts" else "max_turns")
    if hasattr(opponent, "seed"):
        opponent.seed(seed)
    points = evaluation.play_match(
        agent, opponent, game, n_games, seed, max_moves=cap, observation_only=True
    )
    return evaluation.summarize(points, game)["score"]


def evaluate(algo, cfg, iteration):
    """Main's score against each baseline: {name: score}."""
    from boardgym.agents import load

    agent = main_agent(algo, cfg)
    out = {}
    for name in BASELINES[cfg.game]:
        opp = load(name, game=cfg.game) if name != "random" else load("random")
        out[name] = play_games(
            agent,
            opp,
            cfg.game,
            cfg.eval_games,
            seed=cfg.seed * 1_000_003 + iteration * 10_007,
            env_config=_env_config(cfg),
        )
    return out


def save(algo, cfg, league, iteration, history):
    """Checkpoint the Algorithm to <dir>/algo and the league to <dir>/league.json."""
    d = os.path.abspath(cfg.checkpoint_dir)
    os.makedirs(d, exist_ok=True)
    algo.save_to_path(os.path.join(d, "algo"))
    from boardgym.agents.files import write_file_atomically

    write_file_atomically(
        os.path.join(d, "league.json"),
        json.dumps(
            {"game": cfg.game, "league": league, "iteration": iteration, "history": history}
        ),
    )
    return d


def _metric(result, key):
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS

    return float((result.get(ENV_RUNNER_RESULTS) or {}).get(key, 0.0) or 0.0)


def train(cfg):
    """Run the league self-play loop; returns {"history", "league", "checkpoint", "iteration",
    "start_digest", "end_digest"} (digests of main's weights after setup/restore and at the end)."""
    import ray

    from boardgym.agents.training.run_log import prepare_run_dir

    league, history, start = ["league_0"], [], 0
    state_path = os.path.join(os.path.abspath(cfg.checkpoint_dir), "league.json")
    moved = prepare_run_dir(cfg.checkpoint_dir, cfg.restore, cfg.force, RUN_FILES)
    if moved and not cfg.quiet:
        print(f"--force: the previous run's files are now in {moved}", flush=True)
    if cfg.restore:
        if not os.path.exists(state_path):
            raise ValueError(
                f"--restore: no checkpoint in {cfg.checkpoint_dir} (league.json missing)"
            )
        with open(state_path) as f:
            saved = json.load(f)
        if saved["game"] != cfg.game:
            raise ValueError(f"--restore: the checkpoint is for {saved['game']}, not {cfg.game}")
        league, history, start = saved["league"], saved["history"], saved["iteration"]
    started = not ray.is_initialized()
    if started:
        if cfg.address:
            ray.init(address=cfg.address)
        else:
            ray.init(num_cpus=cfg.num_cpus or None, include_dashboard=False)
    algo = None
    try:
        algo = build_config(cfg, league).build_algo()
        if cfg.restore:
            algo.restore_from_path(os.path.join(os.path.abspath(cfg.checkpoint_dir), "algo"))
        else:
            _copy_module(algo, "main", "league_0")
        start_digest = digest(_main_state(algo))
        scores, games = [], 0  # window of main's league results (score sums per iteration)
        ckpt = None
        bar = cli.Progress(
            cfg.iterations, label="iterations", unit="it", enabled=False if cfg.quiet else None
        )
        for it in range(start + 1, start + cfg.iterations + 1):
            t0 = time.time()
            result = algo.train()
            s, n = _metric(result, "main_league_score"), int(_metric(result, "main_league_games"))
            scores.append((s, n))
            while sum(k for _, k in scores[1:]) >= cfg.score_window:
                scores.pop(0)
            games = sum(k for _, k in scores)
            score = sum(v for v, _ in scores) / games if games else float("nan")
            steps = int(_metric(result, "num_env_steps_sampled"))
            row = {
                "iteration": it,
                "env_steps": steps,
                "seconds": round(time.time() - t0, 2),
                "league_score": None if games == 0 else round(score, 3),
                "league_games": games,
            }
            if games >= cfg.min_league_games and score >= cfg.snapshot_score:
                name = f"league_{int(league[-1].split('_')[1]) + 1}"
                league = add_snapshot(algo, cfg, league, name)
                row["snapshot"] = name
                scores = []
            row["league"] = list(league)
            last = it == start + cfg.iterations
            if (cfg.eval_every and it % cfg.eval_every == 0) or last:
                row["eval"] = evaluate(algo, cfg, it)
            history.append(row)
            bar.update(1)
            if not cfg.quiet:
                if bar.enabled:
                    bar.stream.write("\r\x1b[K")
                print(json.dumps(row), flush=True)
            if (cfg.checkpoint_every and it % cfg.checkpoint_every == 0) or last:
                ckpt = save(algo, cfg, league, it, history)
        bar.close()
        return {
            "history": history,
            "league": league,
            "checkpoint": ckpt,
            "iteration": start + cfg.iterations,
            "start_digest": start_digest,
            "end_digest": digest(_main_state(algo)),
        }
    finally:
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()


def main(args=None):
    """Train with Settings or a list of command-line strings; returns train()'s dict."""
    cfg = cli.settings(Settings, args, prog="boardgym train-rllib", description=__doc__)
    return train(cfg)


if __name__ == "__main__":
    cli.script_main(main)
