"""Benchmark: steps (turns) per second of random legal play through environments, side by side.

Single-game AEC loop: boardgym's wrapped ``env()`` for both games, PettingZoo's own
chess_v6 and connect_four_v3 (need ``pip install chess pygame``), and OpenSpiel's C++ backgammon
through pyspiel (``pip install open_spiel``), each skipped with a note when not installed. Every
env is driven the same way: ``env.last()``, a uniformly random legal action from the mask
(as PettingZoo's performance_benchmark does), ``env.step``. One process, one thread; the JIT is
warmed up before timing; CPU time (time.process_time).

    python scripts/bench_env.py                 # all envs, 5 s each
    python scripts/bench_env.py --seconds 1 --envs boardgym-draughts boardgym-backgammon

Batched self-play (``--batched``): random legal play in both seats of N games at once
through the batched cores (boardgym.envs.batch, two-player view; actions drawn by a parallel
kernel from the masks), at each N of ``--sizes`` with 1 thread and with all cores, wall-clock
time; side by side the single-game AEC loop and Pgx (JAX on CPU: ``pip install pgx``) on
backgammon where installed, with ratios.

    python scripts/bench_env.py --batched --sizes 1 64 1024 8192
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
    batched: bool = False
    """Benchmark the batched cores (and Pgx) instead of the single-game AEC envs."""
    sizes: list = field(default_factory=lambda: [1, 64, 1024, 8192])
    """Batch sizes N for --batched."""
    games: list = field(default_factory=lambda: ["draughts", "backgammon"])
    """Games for --batched."""


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


def _batched_rate(game, n, threads, seconds, seed):
    import numba

    from boardgym.envs import batch
    from boardgym.kernels.rng import seed_rngs

    numba.set_num_threads(threads)
    core = getattr(batch, {"draughts": "DraughtsBatch", "backgammon": "BackgammonBatch"}[game])(n)
    core.reset(seed=seed)
    rngs, actions = seed_rngs(seed + 1, n), np.zeros(n, np.int64)
    for _ in range(5):  # warm up (JIT, caches)
        core.random_actions(rngs, actions)
        core.step(actions)
        core.reset_done()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        core.random_actions(rngs, actions)
        core.step(actions)
        core.reset_done()
        steps += n
    return steps / (time.perf_counter() - start)


def _pgx_rate(game, n, seconds, seed):
    import jax
    import jax.numpy as jnp
    import pgx

    env = pgx.make({"backgammon": "backgammon"}[game])
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))

    @jax.jit
    def act(key, mask):
        return jax.random.categorical(key, jnp.log(mask.astype(jnp.float32)), axis=-1)

    key = jax.random.PRNGKey(seed)
    key, sub = jax.random.split(key)
    state = init(jax.random.split(sub, n))

    def one(state, key):
        k1, k2, k3 = jax.random.split(key, 3)
        state = step(state, act(k1, state.legal_action_mask), jax.random.split(k2, n))
        done = state.terminated | state.truncated
        fresh = init(jax.random.split(k3, n))
        return jax.tree_util.tree_map(
            lambda a, b: jnp.where(done.reshape((-1,) + (1,) * (a.ndim - 1)), b, a), state, fresh)

    one = jax.jit(one)
    for _ in range(3):
        key, sub = jax.random.split(key)
        state = one(state, sub)
    jax.block_until_ready(state)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        key, sub = jax.random.split(key)
        state = one(state, sub)
        steps += n
    jax.block_until_ready(state)
    return steps / (time.perf_counter() - start)


def main_batched(s):
    """Batched steps/s table; returns {(game, N, threads or 'pgx'): rate}."""
    import os

    cores = os.cpu_count() or 1
    aec = {g: _aec_rate(_makers()[f"boardgym-{g}"], min(s.seconds, 2.0), s.seed) for g in s.games}
    rates = {}
    print(f"{'game':11s} {'N':>6s} {'1 thread':>14s} {f'{cores} threads':>14s} {'Pgx (JAX CPU)':>14s}"
          f"   ratios (all cores vs AEC loop / vs Pgx)")
    for game in s.games:
        for n in s.sizes:
            r1 = _batched_rate(game, n, 1, s.seconds, s.seed)
            rall = _batched_rate(game, n, cores, s.seconds, s.seed)
            rates[(game, n, 1)], rates[(game, n, cores)] = r1, rall
            try:
                rp = _pgx_rate(game, n, s.seconds, s.seed) if game == "backgammon" else None
            except ImportError:
                rp = None
            rates[(game, n, "pgx")] = rp
            pgx_txt = f"{rp:14,.0f}" if rp else f"{'-':>14s}"
            ratio = f"{rall / aec[game]:.0f}x AEC" + (f", {rall / rp:.1f}x Pgx" if rp else "")
            print(f"{game:11s} {n:6d} {r1:14,.0f} {rall:14,.0f} {pgx_txt}   {ratio}")
    for game in s.games:
        print(f"{game}: single-game AEC loop {aec[game]:,.0f} steps/s (1 thread)")
    return rates


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
    p.add_argument("--batched", action="store_true")
    p.add_argument("--sizes", type=int, nargs="+", default=Settings().sizes)
    p.add_argument("--games", nargs="+", default=Settings().games)
    s = Settings(**vars(p.parse_args(args)))
    if s.batched:
        return main_batched(s)
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
