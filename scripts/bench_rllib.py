"""RLlib sampling throughput (env steps/s) of the boardgym MultiAgentEnv with the masking module.

    python scripts/bench_rllib.py --game draughts --num-env-runners 1 2 --envs-per-runner 1 8

For each (runners K, envs per runner E): builds train_rllib's PPO config (main + one league
module, mapping as in training), warms up with one sample call per runner, then times
``--rounds`` parallel ``sample(num_timesteps=--steps)`` calls on all runners (K = 0: the driver's
local runner) and reports env steps/s. Also times the bare adapter with random masked actions
(no RLlib) for reference. Prints one JSON line per measurement; ``main(args)`` returns them.
"""
import argparse
import dataclasses
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

import numpy as np


@dataclasses.dataclass
class Settings:
    """Settings of one benchmark run."""

    game: str = "draughts"
    """draughts or backgammon"""
    num_env_runners: tuple = (1, 2)
    """env-runner counts to measure"""
    envs_per_runner: tuple = (1,)
    """games per env runner to measure"""
    steps: int = 2000
    """env steps per runner per timed sample call"""
    rounds: int = 3
    """timed sample calls"""
    hidden: int = 256
    """hidden width of the module (as in training)"""
    address: str = ""
    """Ray cluster address; empty: local Ray"""


def _train_module():
    path = Path(__file__).with_name("train_rllib.py")
    spec = importlib.util.spec_from_file_location("train_rllib_for_bench", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def bare_env_rate(game, steps=20_000, seed=0):
    """Env steps/s of the adapter alone with uniformly random legal actions."""
    from boardgym.envs.rllib import env_creator
    env = env_creator({"game": game})
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    t0, n = time.perf_counter(), 0
    while n < steps:
        (agent, o), = obs.items()
        obs, _, term, trunc, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        n += 1
        if term["__all__"] or trunc["__all__"]:
            obs, _ = env.reset()
    return n / (time.perf_counter() - t0)


def sampling_rate(cfg, runners, envs):
    """Env steps/s of RLlib sampling with runners env runners of envs games each."""
    tr = _train_module()
    s = tr.Settings(game=cfg.game, num_env_runners=runners, num_envs_per_env_runner=envs,
                    hidden=cfg.hidden, train_batch=max(cfg.steps, 512))
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
    """Run the measurements; returns a list of result dicts."""
    import ray
    cfg = args if isinstance(args, Settings) else parse_args(args)
    out = [{"game": cfg.game, "what": "bare adapter, random legal actions",
            "env_steps_per_s": round(bare_env_rate(cfg.game))}]
    print(json.dumps(out[-1]), flush=True)
    if not ray.is_initialized():
        ray.init(address=cfg.address or None, include_dashboard=False, log_to_driver=False)
    for k in cfg.num_env_runners:
        for e in cfg.envs_per_runner:
            row = {"game": cfg.game, "env_runners": k, "envs_per_runner": e,
                   "env_steps_per_s": round(sampling_rate(cfg, k, e)),
                   "load_avg_1min": round(os.getloadavg()[0], 2)}
            out.append(row)
            print(json.dumps(row), flush=True)
    return out


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=("draughts", "backgammon"), default="draughts")
    p.add_argument("--num-env-runners", type=int, nargs="+", default=[1, 2])
    p.add_argument("--envs-per-runner", type=int, nargs="+", default=[1])
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--address", default="")
    ns = p.parse_args(argv)
    if ns.steps <= 0 or ns.rounds <= 0 or min(ns.num_env_runners) < 0 or min(ns.envs_per_runner) < 1:
        p.error("need --steps, --rounds, --envs-per-runner > 0 and --num-env-runners >= 0")
    return Settings(game=ns.game, num_env_runners=tuple(ns.num_env_runners),
                    envs_per_runner=tuple(ns.envs_per_runner), steps=ns.steps, rounds=ns.rounds,
                    hidden=ns.hidden, address=ns.address)


if __name__ == "__main__":
    main(sys.argv[1:])
