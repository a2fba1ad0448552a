"""Benchmark: steps (turns) per second of random legal play through environments, side by side.

    boardgym bench envs                  # quick budget: 1 s per environment
    boardgym bench envs --full           # BENCHMARKS.md: 5 s per environment
    boardgym bench envs --seconds 1 --envs boardgym-draughts boardgym-backgammon
    boardgym bench envs --batched --sizes 1 64 1024 8192
    boardgym bench envs --vector         # and gym.make_vec at 1,024 games beside its core

Single-game AEC loop: boardgym's wrapped ``env()`` for both games, PettingZoo's own chess_v6 and
connect_four_v3 (``pip install chess pygame``), and OpenSpiel's C++ backgammon through pyspiel
(``pip install open_spiel``); a peer that is not installed is named with how to install it. Every
env is driven the same way: ``env.last()``, a uniformly random legal action from the mask (as
PettingZoo's performance_benchmark does), ``env.step``. One process, one thread; the JIT is
warmed up before timing; CPU time (time.process_time).

Batched self-play (``--batched``): random legal play in both seats of N games at once through
the batched cores (boardgym.envs.batch, two-player view; actions drawn by a parallel kernel from
the masks), at each N of ``--sizes`` with 1 thread and with all cores, wall-clock time; side by
side the single-game AEC loop and Pgx (JAX on CPU: ``pip install pgx``) on backgammon where
installed, with ratios.

Vector envs (``--vector``, after the AEC table): ``gym.make_vec(id, num_envs=1024,
vectorization_mode="vector_entry_point")`` of each game, wall time of ``step()`` only (the
learner's random legal actions are drawn from its action mask by the same kernel, untimed; the
in-kernel random opponent replies inside each step), beside its batched core at the same N
(random legal play in both seats, action draw and restarts included, as ``--batched`` times
it), all cores. The two are timed in alternating slices so that a busy machine slows both alike.
"""

import dataclasses
import importlib
import importlib.util
import os
import random
import time
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from boardgym.scripts import cli

Env = Literal[
    "boardgym-draughts",
    "boardgym-backgammon",
    "boardgym-backgammon-cube",
    "pz-chess",
    "pz-connect-four",
    "openspiel-backgammon",
]
ENVS = Env.__args__

#: optional peers: (name, module to import, how to install, game);
#: `boardgym bench` reports the missing
PEERS = (
    ("PettingZoo chess", "chess", "pip install chess", "all"),
    ("PettingZoo connect four", "pygame", "pip install pygame", "all"),
    ("OpenSpiel", "pyspiel", "pip install open_spiel", "backgammon"),
    ("Pgx (--batched)", "pgx", "pip install pgx", "backgammon"),
)
_INSTALL = {
    "pz-chess": "pip install chess",
    "pz-connect-four": "pip install pygame",
    "openspiel-backgammon": "pip install open_spiel",
}


@dataclass
class Settings:
    """Settings of one environment benchmark (defaults: the quick budget; --full:
    BENCHMARKS.md's)."""

    seconds: float = 1.0
    """CPU seconds of play per environment (wall seconds per batch size with --batched)"""
    envs: list[Env] = field(default_factory=lambda: list(ENVS))
    """environments to run (boardgym's and the peers')"""
    seed: int = 0
    """seed for the envs and the action choices"""
    batched: bool = False
    """benchmark the batched cores (and Pgx) instead of the single-game AEC envs"""
    sizes: list[int] = field(default_factory=lambda: [64, 1024])
    """batch sizes N for --batched"""
    games: list[Literal["draughts", "backgammon"]] = field(
        default_factory=lambda: ["draughts", "backgammon"]
    )
    """games for --batched"""
    vector: bool = False
    """also time gym.make_vec (1,024 games, step() only) beside its batched core"""
    full: bool = False
    """the budget BENCHMARKS.md reports (5 s each; --batched sizes 1 64 1024 8192); not with
    --seconds or --sizes"""

    def check(self):
        cli.require(0 < self.seconds <= 3600, f"--seconds must be in (0, 3600], got {self.seconds}")
        cli.require(len(self.envs) > 0, "--envs needs at least one environment")
        cli.require(
            all(1 <= n <= 1_000_000 for n in self.sizes),
            f"--sizes must be in 1..1000000, got {' '.join(map(str, self.sizes))}",
        )
        cli.require(self.seed >= 0, f"--seed must be at least 0, got {self.seed}")
        if self.full:
            quick = Settings()
            given = [f"--{k}" for k in FULL if getattr(self, k) != getattr(quick, k)]
            cli.require(not given, f"--full sets {', '.join(given)}; give one or the other")


#: the budget of BENCHMARKS.md (``--full``)
FULL = dict(seconds=5.0, sizes=[1, 64, 1024, 8192])


def _aec_rate(make_env, seconds, seed):
    env = make_env()
    rng = random.Random(seed)
    env.reset(seed=seed)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            action = (
                None if (term or trunc) else rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
            )
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


VECTOR_GAMES = 1024
_VECTOR_IDS = {"draughts": "boardgym/RussianDraughts-v0", "backgammon": "boardgym/Backgammon-v0"}


def _vector_rates(game, seconds, seed, n=VECTOR_GAMES):
    """(core, vector) steps/s of game at n games on all cores, timed in alternating slices: the
    batched core's two-player random play (draw, step, restarts) and gym.make_vec's step()."""
    import gymnasium

    import boardgym  # noqa: F401  (registers the ids)
    from boardgym.envs import batch
    from boardgym.kernels.rng import seed_rngs

    core = getattr(batch, {"draughts": "DraughtsBatch", "backgammon": "BackgammonBatch"}[game])(n)
    core.reset(seed=seed)
    env = gymnasium.make_vec(_VECTOR_IDS[game], num_envs=n, vectorization_mode="vector_entry_point")
    env.reset(seed=seed)
    learner = env.unwrapped.core  # draws the learner's actions from the env's own masks
    rngs, actions = seed_rngs(seed + 1, n), np.zeros(n, np.int64)

    def core_slice(budget):
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < budget:
            core.random_actions(rngs, actions)
            core.step(actions)
            core.reset_done()
            steps += n
        return steps, time.perf_counter() - start

    def vector_slice(budget):
        steps, spent = 0, 0.0
        while spent < budget:
            learner.random_actions(rngs, actions)
            start = time.perf_counter()
            env.step(actions)
            spent += time.perf_counter() - start
            steps += n
        return steps, spent

    core_slice(0.05)  # warm up (JIT, caches)
    vector_slice(0.05)
    totals = np.zeros((2, 2))
    slices = max(2, int(seconds / 0.25))
    for _ in range(slices):
        totals[0] += core_slice(seconds / slices)
        totals[1] += vector_slice(seconds / slices)
    return totals[0, 0] / totals[0, 1], totals[1, 0] / totals[1, 1]


def main_vector(s):
    """The make_vec rows: {(game, "core" or "vector"): steps/s}."""
    cores = os.cpu_count() or 1
    rates = {}
    print(
        f"bench envs --vector: gym.make_vec(..., num_envs={VECTOR_GAMES}, "
        f'vectorization_mode="vector_entry_point"), step() only, against the in-kernel random '
        f"opponent, beside its batched core; wall time, {cores} threads, {s.seconds:g} s each"
    )
    print(f"{'game':11s} {'core':>14s} {'make_vec step':>14s}   ratio")
    for game in s.games:
        rc, rv = _vector_rates(game, s.seconds, s.seed)
        rates[(game, "core")], rates[(game, "vector")] = rc, rv
        print(f"{game:11s} {rc:14,.0f} {rv:14,.0f}   {rv / rc:.2f}x core", flush=True)
    return rates


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
            lambda a, b: jnp.where(done.reshape((-1,) + (1,) * (a.ndim - 1)), b, a), state, fresh
        )

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
    """Batched steps/s table; returns {(game, N, threads or 'pgx'): rate (None: Pgx not
    installed)}."""
    cores = os.cpu_count() or 1
    aec = {g: _aec_rate(_makers()[f"boardgym-{g}"], min(s.seconds, 2.0), s.seed) for g in s.games}
    has_pgx = importlib.util.find_spec("pgx") is not None
    rates = {}
    lines = [
        f"bench envs --batched: random legal play in both seats of N games, wall time, "
        f"{s.seconds:g} s per row" + ("" if has_pgx else "; Pgx not installed: pip install pgx"),
        f"{'game':11s} {'N':>6s} {'1 thread':>14s} {f'{cores} threads':>14s} {'Pgx (JAX CPU)':>14s}"
        f"   ratios (all cores vs AEC loop / vs Pgx)",
    ]
    print(lines[0])
    print(lines[1])
    with cli.Progress(len(s.games) * len(s.sizes), label="envs --batched", unit="rows") as bar:
        for game in s.games:
            for n in s.sizes:
                r1 = _batched_rate(game, n, 1, s.seconds, s.seed)
                rall = _batched_rate(game, n, cores, s.seconds, s.seed)
                rates[(game, n, 1)], rates[(game, n, cores)] = r1, rall
                rp = (
                    _pgx_rate(game, n, s.seconds, s.seed)
                    if game == "backgammon" and has_pgx
                    else None
                )
                rates[(game, n, "pgx")] = rp
                pgx_txt = f"{rp:14,.0f}" if rp else f"{'-':>14s}"
                ratio = f"{rall / aec[game]:.0f}x AEC" + (f", {rall / rp:.1f}x Pgx" if rp else "")
                _say(bar, f"{game:11s} {n:6d} {r1:14,.0f} {rall:14,.0f} {pgx_txt}   {ratio}")
                bar.update(1)
    for game in s.games:
        print(f"{game}: single-game AEC loop {aec[game]:,.0f} steps/s (1 thread)")
    return rates


def _say(bar, line):
    """Print a line of the report, clearing the progress bar's line first."""
    if bar.enabled:
        bar.clear()
    print(line, flush=True)


def _makers():
    def boardgym(name, **kw):
        def make():
            return importlib.import_module(f"boardgym.envs.{name}").env(**kw)

        return make

    def pz(name):
        def make():
            return importlib.import_module(f"pettingzoo.classic.{name}").env()

        return make

    return {
        "boardgym-draughts": boardgym("russian_draughts_v0"),
        "boardgym-backgammon": boardgym("backgammon_v0"),
        "boardgym-backgammon-cube": boardgym("backgammon_v0", cube=True),
        "pz-chess": pz("chess_v6"),
        "pz-connect-four": pz("connect_four_v3"),
    }


def main(args=None):
    """Run with Settings or a list of command-line strings; returns {env name: steps per second,
    None when not installed}, with --vector also {(game, "core" / "vector"): steps per second}
    (with --batched: see main_batched)."""
    s = cli.settings(Settings, args, prog="boardgym bench envs", description=__doc__)
    if s.full:
        s = dataclasses.replace(s, **FULL)
    if s.batched:
        return main_batched(s)
    makers = _makers()
    rates, missing = {}, []
    with cli.Progress(len(s.envs) * s.seconds, label="envs", unit="s") as bar:
        for name in s.envs:
            try:
                if name == "openspiel-backgammon":
                    _openspiel_rate(0.2, s.seed)
                    rates[name] = _openspiel_rate(s.seconds, s.seed)
                else:
                    _aec_rate(makers[name], min(0.5, s.seconds), s.seed)  # warm up (JIT, imports)
                    rates[name] = _aec_rate(makers[name], s.seconds, s.seed)
            except ImportError:
                rates[name] = None
                missing.append(f"{name} (not installed: {_INSTALL[name]})")
            bar.update(s.seconds)
    base = {
        "boardgym-draughts": ("pz-chess", "pz-connect-four"),
        "boardgym-backgammon": ("openspiel-backgammon", "pz-chess", "pz-connect-four"),
        "boardgym-backgammon-cube": ("openspiel-backgammon",),
    }
    print(f"bench envs: random legal play through the AEC loop, {s.seconds:g} CPU s each, 1 thread")
    print(f"{'environment':28s} {'steps/s':>12s}   ratios")
    for name, rate in rates.items():
        if rate is None:
            continue
        ratios = ", ".join(
            f"{rate / rates[b]:.1f}x {b}" for b in base.get(name, ()) if rates.get(b)
        )
        print(f"{name:28s} {rate:12,.0f}   {ratios}")
    for line in missing:
        print(f"{'':28s} {'-':>12s}   {line}")
    if s.vector:
        rates.update(main_vector(s))
    return rates


if __name__ == "__main__":
    cli.script_main(main)
