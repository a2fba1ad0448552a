"""RLlib sampling throughput (env steps/s) of the boardgym MultiAgentEnv with the masking module.

    boardgym bench rllib              # quick budget: 1 runner, 1000 steps x 2
    boardgym bench rllib --game draughts --num-env-runners 1 2 --envs-per-runner 1 8
    boardgym bench rllib --full       # BENCHMARKS.md: runners 1 2, 2000 steps x 3

For each (runners K, envs per runner E): builds ``boardgym train-rllib``'s PPO config (main + one
league module, mapping as in training), warms up with one sample call per runner, then times
``--rounds`` parallel ``sample(num_timesteps=--steps)`` calls on all runners (K = 0: the driver's
local runner) and reports env steps/s. Also times the bare adapter with random masked actions
(no RLlib; the adapter itself needs Ray) for reference. Without Ray it says how to install it
(``pip install "boardgym[ray]"``, in its own venv: ray pins gymnasium) and measures nothing.
Prints one JSON line per measurement; ``main(args)`` returns them.
"""

import dataclasses
import importlib
import importlib.util
import json
import os
import time
from typing import Literal

import numpy as np

from boardgym.scripts import cli

#: optional peers: (name, module to import, how to install, game);
#: `boardgym bench` reports the missing
PEERS = (
    (
        "Ray RLlib",
        "ray",
        'pip install "boardgym[ray]", in its own venv as ray pins gymnasium',
        "all",
    ),
)


@dataclasses.dataclass
class Settings:
    """Settings of one RLlib benchmark (defaults: the quick budget; --full: BENCHMARKS.md's)."""

    game: Literal["draughts", "backgammon"] = "draughts"
    """which game's environment to sample"""
    num_env_runners: tuple[int, ...] = (1,)
    """env-runner counts to measure (0 = the driver's local runner)"""
    envs_per_runner: tuple[int, ...] = (1,)
    """games per env runner to measure"""
    steps: int = 1000
    """env steps per runner per timed sample call"""
    rounds: int = 2
    """timed sample calls"""
    hidden: int = 256
    """hidden width of the module (as in training)"""
    address: str = ""
    """Ray cluster address; empty: local Ray"""
    full: bool = False
    """the budget BENCHMARKS.md reports (runners 1 2, 2000 steps, 3 rounds); not with those flags"""

    def check(self):
        cli.require(
            self.steps >= 1 and self.rounds >= 1 and self.hidden >= 1,
            "--steps, --rounds and --hidden must be at least 1",
        )
        cli.require(min(self.num_env_runners) >= 0, "--num-env-runners must be at least 0")
        cli.require(min(self.envs_per_runner) >= 1, "--envs-per-runner must be at least 1")
        if self.full:
            quick = Settings()
            given = [
                f"--{k.replace('_', '-')}" for k in FULL if getattr(self, k) != getattr(quick, k)
            ]
            cli.require(not given, f"--full sets {', '.join(given)}; give one or the other")


#: the budget of BENCHMARKS.md (``--full``)
FULL = dict(num_env_runners=(1, 2), steps=2000, rounds=3)


def _train_module():
    """``boardgym train-rllib``'s module (its Settings and build_config)."""
    return importlib.import_module(f"boardgym.scripts.{cli.COMMANDS['train-rllib'][0]}")


def bare_env_rate(game, steps=20_000, seed=0):
    """Env steps/s of the adapter alone with uniformly random legal actions."""
    from boardgym.envs.rllib import env_creator

    env = env_creator({"game": game})
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    t0, n = time.perf_counter(), 0
    while n < steps:
        ((agent, o),) = obs.items()
        obs, _, term, trunc, _ = env.step(
            {agent: int(rng.choice(np.flatnonzero(o["action_mask"])))}
        )
        n += 1
        if term["__all__"] or trunc["__all__"]:
            obs, _ = env.reset()
    return n / (time.perf_counter() - t0)


def sampling_rate(cfg, runners, envs):
    """Env steps/s of RLlib sampling with runners env runners of envs games each."""
    tr = _train_module()
    s = tr.Settings(
        game=cfg.game,
        num_env_runners=runners,
        num_envs_per_env_runner=envs,
        hidden=cfg.hidden,
        train_batch=max(cfg.steps, 512),
    )
    algo = tr.build_config(s, ["league_0"]).build_algo()
    try:
        group = algo.env_runner_group

        def sample(er, n=cfg.steps):
            return sum(e.env_steps() for e in er.sample(num_timesteps=n))

        def run():
            if runners == 0:
                return [sample(algo.env_runner)]
            return group.foreach_env_runner(sample, local_env_runner=False)

        run()  # warm-up: JIT, torch, first episodes
        t0, total = time.perf_counter(), 0
        for _ in range(cfg.rounds):
            total += sum(run())
        return total / (time.perf_counter() - t0)
    finally:
        algo.stop()


def main(args=None):
    """Run with Settings or a list of command-line strings; returns a list of result dicts."""
    cfg = cli.settings(Settings, args, prog="boardgym bench rllib", description=__doc__)
    if cfg.full:
        cfg = dataclasses.replace(cfg, **FULL)
    if importlib.util.find_spec("ray") is None:
        print(
            f"bench rllib: Ray RLlib not installed: {PEERS[0][2]}; nothing to measure", flush=True
        )
        return []
    import ray

    out = [
        {
            "game": cfg.game,
            "what": "bare adapter, random legal actions",
            "env_steps_per_s": round(bare_env_rate(cfg.game)),
        }
    ]
    print(json.dumps(out[-1]), flush=True)

    if not ray.is_initialized():
        ray.init(address=cfg.address or None, include_dashboard=False, log_to_driver=False)
    pairs = [(k, e) for k in cfg.num_env_runners for e in cfg.envs_per_runner]
    with cli.Progress(len(pairs), label="rllib", unit="configs") as bar:
        for k, e in pairs:
            row = {
                "game": cfg.game,
                "env_runners": k,
                "envs_per_runner": e,
                "env_steps_per_s": round(sampling_rate(cfg, k, e)),
                "load_avg_1min": round(os.getloadavg()[0], 2),
            }
            out.append(row)
            if bar.enabled:
                bar.clear()
            print(json.dumps(row), flush=True)
            bar.update(1)
    return out


if __name__ == "__main__":
    cli.script_main(main)
