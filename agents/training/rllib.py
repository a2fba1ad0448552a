"""PPO self-play with a league on Ray RLlib (new API stack): the driver of ``boardgym train-rllib``.

``build_config`` is the PPOConfig: env boardgym.envs.rllib (one game per env, agents
player_0/player_1, masked Dict observations), module boardgym.agents.rllib_module's
MaskedPPOModule for ``main`` (trained) and for each frozen snapshot ``league_0``, ``league_1``,
... of the league; ``LeagueMapping`` seats main and its opponent per episode, ``on_episode_end``
logs main's results against the league. ``train`` runs the loop: snapshots when main's league
score passes the threshold (``add_snapshot``), evaluations against fixed baselines in the AEC env
(``evaluate``), checkpoints of the Algorithm with ``league.json`` (``save``) and restore.
Settings are duck-typed: ``cfg`` is any object with the fields of ``boardgym train-rllib``'s
Settings that a function reads. Ray is imported only inside the functions that use it: this
module imports without Ray.
"""

from __future__ import annotations

import json
import os
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # Ray is optional: imported inside the functions that use it
    from ray.rllib.algorithms.algorithm import Algorithm
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger

    from boardgym.agents.registry import Agent
    from boardgym.agents.rllib_module import RLlibAgent

AGENTS = ("player_0", "player_1")
BASELINES = {"draughts": ("random", "greedy"), "backgammon": ("random",)}


RUN_FILES = ("algo", "league.json", "league.json.tmp*")  # what a run writes (moved by --force)


class LeagueMapping:
    """Agent -> module per episode: main on seat ``crc32(episode id) % 2``; the other seat is main
    with probability ``self_play_prob``, else a league member (both drawn from the episode id)."""

    def __init__(self, league: Iterable[str], self_play_prob: float, seed: int = 0) -> None:
        self.league = list(league)
        self.self_play_prob = float(self_play_prob)
        self.seed = int(seed)

    def __call__(self, agent_id: str, episode: MultiAgentEpisode, **kwargs: Any) -> str:
        h = zlib.crc32(f"{self.seed}:{episode.id_}".encode())
        if AGENTS.index(agent_id) == h % 2:
            return "main"
        u = (h >> 1) % 10_000 / 10_000
        if u < self.self_play_prob or not self.league:
            return "main"
        return self.league[(h >> 15) % len(self.league)]


def on_episode_end(
    *, episode: MultiAgentEpisode, metrics_logger: MetricsLogger | None = None, **kwargs: Any
) -> None:
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


def build_config(cfg: Any, league: Sequence[str]) -> PPOConfig:
    """The PPOConfig with modules main + league (a list of module ids)."""
    import ray.cloudpickle
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from boardgym.envs.rllib import register_envs

    # the workers get this module's callables (mapping, callback) by value, as the driver has them
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


def add_snapshot(algo: Algorithm, cfg: Any, league: Sequence[str], name: str) -> list[str]:
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


def digest(module_state: Mapping[str, Any]) -> str:
    """SHA-1 of a module state's tensors (to check copies and restores)."""
    import hashlib

    h = hashlib.sha1()
    for key in sorted(module_state):
        h.update(key.encode())
        h.update(np.ascontiguousarray(np.asarray(module_state[key])).tobytes())
    return h.hexdigest()


def main_agent(algo: Algorithm, cfg: Any) -> RLlibAgent:
    """The current main module (learner weights) as a greedy boardgym agent."""
    from boardgym.agents.rllib_module import RLlibAgent

    module = _module_spec(cfg).build()
    module.set_state(_main_state(algo))
    module.eval()
    return RLlibAgent(module, deterministic=True)


def play_games(
    agent: Agent,
    opponent: Agent,
    game: str,
    n_games: int,
    seed: int = 0,
    env_config: Mapping[str, Any] | None = None,
) -> float:
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


def evaluate(algo: Algorithm, cfg: Any, iteration: int) -> dict[str, float]:
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


def save(
    algo: Algorithm,
    cfg: Any,
    league: Sequence[str],
    iteration: int,
    history: Sequence[Mapping[str, Any]],
) -> str:
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


def train(
    cfg: Any,
    log: Callable[[str], object] | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> dict[str, Any]:
    """Run the league self-play loop; returns {"history", "league", "checkpoint", "iteration",
    "start_digest", "end_digest"} (digests of main's weights after setup/restore and at the end).
    log(text): the lines of the run (print by default; none with cfg.quiet); progress(done,
    total): called with 0 once Ray and the Algorithm are up, then after each iteration."""
    import ray

    from boardgym.agents.training.run_log import prepare_run_dir

    say = log if log is not None else (lambda text: print(text, flush=True))
    league, history, start = ["league_0"], [], 0
    state_path = os.path.join(os.path.abspath(cfg.checkpoint_dir), "league.json")
    moved = prepare_run_dir(cfg.checkpoint_dir, cfg.restore, cfg.force, RUN_FILES)
    if moved and not cfg.quiet:
        say(f"--force: the previous run's files are now in {moved}")
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
        if progress is not None:
            progress(0, cfg.iterations)
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
            if progress is not None:
                progress(it - start, cfg.iterations)
            if not cfg.quiet:
                say(json.dumps(row))
            if (cfg.checkpoint_every and it % cfg.checkpoint_every == 0) or last:
                ckpt = save(algo, cfg, league, it, history)
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
