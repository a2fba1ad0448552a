"""Benchmark: steps (turns) per second of random legal play through environments, side by side.

Single-game AEC loop (issue 4): boardgym's wrapped ``env()`` for both games, PettingZoo's own
chess_v6 and connect_four_v3 (need ``pip install chess pygame``), and OpenSpiel's C++ backgammon
through pyspiel (``pip install open_spiel``), each skipped with a note when not installed. Every
env is driven the same way: ``env.last()``, a uniformly random legal action from the mask
(as PettingZoo's performance_benchmark does), ``env.step``. One process, one thread; the JIT is
warmed up before timing; CPU time (time.process_time).

    python scripts/bench_env.py                 # all envs, 5 s each
    python scripts/bench_env.py --seconds 1 --envs boardgym-draughts boardgym-backgammon
"""
import argparse
import random
import time
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Settings:
    seconds: float = 5.0
    """CPU seconds of play per environment."""
    envs: list = field(default_factory=lambda: ["boardgym-draughts", "boardgym-backgammon",
                                                "boardgym-backgammon-cube", "pz-chess",
                                                "pz-connect-four", "openspiel-backgammon"])
    """Which environments to run."""
    seed: int = 0
    """Seed for the envs and the action choices."""


def _aec_rate(make_env, seconds, seed):
    env = make_env()
    rng = random.Random(seed)
    env.reset(seed=seed)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            action = None if (term or trunc) else rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
            env.step(action)
            steps += 1
        env.reset()
    return steps / (time.process_time() - start)


def _openspiel_rate(seconds, seed):
    import pyspiel

    game = pyspiel.load_game("backgammon")
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
    return steps / (time.process_time() - start)


def _makers():
    def boardgym(name, **kw):
        def make():
            import importlib
            return importlib.import_module(f"boardgym.envs.{name}").env(**kw)
        return make

    def pz(name):
        def make():
            import importlib
            return importlib.import_module(f"pettingzoo.classic.{name}").env()
        return make

    return {"boardgym-draughts": boardgym("russian_draughts_v0"),
            "boardgym-backgammon": boardgym("backgammon_v0"),
            "boardgym-backgammon-cube": boardgym("backgammon_v0", cube=True),
            "pz-chess": pz("chess_v6"), "pz-connect-four": pz("connect_four_v3")}


def main(args=None):
    """Run the benchmark; returns {env name: steps per second or None when not installed}."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=Settings.seconds)
    p.add_argument("--envs", nargs="+", default=Settings().envs)
    p.add_argument("--seed", type=int, default=Settings.seed)
    s = Settings(**vars(p.parse_args(args)))
    makers = _makers()
    rates = {}
    for name in s.envs:
        try:
            if name == "openspiel-backgammon":
                _openspiel_rate(0.2, s.seed)
                rates[name] = _openspiel_rate(s.seconds, s.seed)
            elif name in makers:
                _aec_rate(makers[name], 0.5, s.seed)  # warm up (JIT, imports)
                rates[name] = _aec_rate(makers[name], s.seconds, s.seed)
            else:
                raise SystemExit(f"unknown env {name!r}; choose from {sorted(makers) + ['openspiel-backgammon']}")
        except ImportError as e:
            print(f"{name}: not installed ({e.name})")
            rates[name] = None
    base = {"boardgym-draughts": ("pz-chess", "pz-connect-four"),
            "boardgym-backgammon": ("openspiel-backgammon", "pz-chess", "pz-connect-four"),
            "boardgym-backgammon-cube": ("openspiel-backgammon",)}
    print(f"{'environment':28s} {'steps/s':>12s}   ratios")
    for name, rate in rates.items():
        if rate is None:
            continue
        ratios = ", ".join(f"{rate / rates[b]:.1f}x {b}" for b in base.get(name, ())
                           if rates.get(b))
        print(f"{name:28s} {rate:12,.0f}   {ratios}")
    return rates


if __name__ == "__main__":
    main()
