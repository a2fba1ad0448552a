"""Evaluate agents against each other in the AEC envs: a match, or a round-robin with an Elo table.

    python scripts/evaluate.py greedy random --game draughts --games 200 --seed 0
    python scripts/evaluate.py alphabeta-material:depth=4 greedy random --games 100
    python scripts/evaluate.py draughts-alphabeta-material:depth=6,time_limit=0.2 greedy

Agents are ``boardgym.agents.load`` names with optional keyword options after a colon
(``name:key=value,key=value``; values are Python literals, else strings). Every pair plays
``--games`` games (rounded up to even): each opening twice with the colours swapped. Draughts
openings are ``--opening-min``..``--opening-max`` random whole moves from a generator seeded by
``--seed``; backgammon games of a pair share ``reset(seed)``, i.e. the same dice for both colour
orders. Agents with ``act_state`` get the env's kernel state (full history); the others, or all
with ``--observation-only``, get ``act(observation, action_mask)``. A game that reaches
``--max-moves`` (plies for draughts, turns for backgammon) is a draw.

Prints per pair: wins/draws/losses of the first agent, points per game, score with a Wilson 95%
interval, and the Elo difference (with the interval's Elo bounds); with three or more agents a
round-robin Elo table (maximum likelihood, a virtual draw per pair as a prior, mean 0).
"""
import argparse
import ast
import dataclasses
import importlib
import math
import sys
import time

import numpy as np

from boardgym.agents import load

Z95 = 1.959963984540054


@dataclasses.dataclass
class Settings:
    """Settings of one evaluation run."""

    agents: list = dataclasses.field(default_factory=lambda: ["greedy", "random"])
    """two or more agent specs: load() name with optional ':key=value,...' options"""
    game: str = "draughts"
    """draughts or backgammon"""
    games: int = 100
    """games per pair of agents (rounded up to even: each opening with both colour orders)"""
    seed: int = 0
    """seed of openings, dice and agents"""
    opening_min: int = 2
    """fewest random opening moves (draughts)"""
    opening_max: int = 4
    """most random opening moves (draughts)"""
    max_moves: int = 400
    """cap per game (draughts plies, backgammon turns); reaching it is a draw"""
    observation_only: bool = False
    """agents see only act(observation, action_mask), never the kernel state"""
    quiet: bool = False
    """print only the summary"""


@dataclasses.dataclass
class GameSpec:
    """How the harness drives one game's AEC env."""

    module: str
    cap_option: str
    options: dict
    random_opening: bool


GAMES = {
    "draughts": GameSpec("boardgym.envs.russian_draughts_v0", "max_moves", {}, True),
    "backgammon": GameSpec("boardgym.envs.backgammon_v0", "max_turns", {"scoring": "gammon"},
                           False),
}


# ---- statistics -----------------------------------------------------------------------------
def wilson_interval(score, n, z=Z95):
    """Wilson score interval (low, high) of a proportion: score successes (draws count 1/2) of n."""
    if n <= 0:
        return 0.0, 1.0
    p = score / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if score <= 0 else max(0.0, centre - half)  # exact bounds at 0 and n (no rounding)
    hi = 1.0 if score >= n else min(1.0, centre + half)
    return lo, hi


def elo_from_score(p):
    """Elo difference that predicts the score fraction p (0.5 -> 0, 0.76 -> +200; +-inf at 1, 0)."""
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / p - 1.0)


def elo_ratings(points, games, prior=1.0, iters=2000):
    """Maximum-likelihood Elo ratings (mean 0) of a round-robin.

    points[i, j]: points of i against j (win 1, draw 1/2); games[i, j]: games between them.
    prior: virtual drawn games added to each pair that met (keeps perfect scores finite).
    """
    pts = np.asarray(points, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    met = n > 0
    pts = pts + np.where(met, prior / 2, 0.0)
    n = n + np.where(met, prior, 0.0)
    k = pts.shape[0]
    gamma = np.ones(k)
    wins = pts.sum(axis=1)
    for _ in range(iters):
        denom = (n / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = np.where(denom > 0, wins / np.where(denom > 0, denom, 1.0), 1.0)
        new /= np.exp(np.mean(np.log(new)))
        if np.allclose(new, gamma, rtol=1e-12, atol=0):
            gamma = new
            break
        gamma = new
    elo = 400.0 * np.log10(gamma)
    return elo - elo.mean()


# ---- agents and games -----------------------------------------------------------------------
def parse_spec(spec):
    """(name, kwargs) of 'name:key=value,key=value'."""
    name, _, opts = spec.partition(":")
    kwargs = {}
    for item in filter(None, (s.strip() for s in opts.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"bad agent option {item!r} in {spec!r}: expected key=value")
        try:
            kwargs[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            kwargs[key.strip()] = value.strip()
    return name.strip(), kwargs


def make_agent(spec, game, seed):
    """A fresh agent of spec, seeded with seed unless the spec gives one."""
    name, kwargs = parse_spec(spec)
    agent = load(name, game=game, **kwargs)
    if "seed" not in kwargs and hasattr(agent, "seed") and callable(agent.seed):
        agent.seed(seed)
    return agent


def _choose(agent, raw, obs, observation_only):
    if not observation_only and hasattr(agent, "act_state") and hasattr(raw, "state"):
        return agent.act_state(raw.state)
    return agent.act(obs["observation"], obs["action_mask"])


def make_env(cfg):
    spec = GAMES[cfg.game]
    module = importlib.import_module(spec.module)
    return module.raw_env(**{spec.cap_option: cfg.max_moves, **spec.options})


def random_opening(env, seed, n_moves):
    """Actions of n_moves random whole moves from the start (a chain's hops are one move)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    actions, moves = [], 0
    while moves < n_moves and not env._done:
        mover = env.agent_selection
        mask = env.observe(mover)["action_mask"]
        a = int(rng.choice(np.flatnonzero(mask)))
        env.step(a)
        actions.append(a)
        if env._done or env.agent_selection != mover:
            moves += 1
    return actions


def play_game(env, seats, seed, opening=(), observation_only=False):
    """Play one game; seats: (agent of player_0, agent of player_1). Returns player_0's reward."""
    env.reset(seed=seed)
    for agent in seats:
        if hasattr(agent, "reset"):
            agent.reset()
    total = {a: 0.0 for a in env.possible_agents}
    i = 0
    for name in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[name] += reward
        if term or trunc:
            env.step(None)
            continue
        if i < len(opening):
            action = opening[i]
            i += 1
        else:
            agent = seats[env.possible_agents.index(name)]
            action = _choose(agent, env, obs, observation_only)
        env.step(action)
    return total[env.possible_agents[0]]


def play_pair(cfg, spec_a, spec_b, pair_seed, log=print):
    """Points of A in each game of A against B (each opening with both colour orders)."""
    env = make_env(cfg)
    gspec = GAMES[cfg.game]
    a = make_agent(spec_a, cfg.game, pair_seed)
    b = make_agent(spec_b, cfg.game, pair_seed + 1)
    rng = np.random.default_rng(pair_seed)
    points = []
    n_pairs = (cfg.games + 1) // 2
    t0 = time.perf_counter()
    for k in range(n_pairs):
        seed = int(rng.integers(2**31))
        opening = []
        if gspec.random_opening and cfg.opening_max > 0:
            plies = int(rng.integers(cfg.opening_min, cfg.opening_max + 1))
            opening = random_opening(env, seed, plies)
        points.append(play_game(env, (a, b), seed, opening, cfg.observation_only))
        points.append(-play_game(env, (b, a), seed, opening, cfg.observation_only))
        if not cfg.quiet and (k + 1) % max(1, n_pairs // 5) == 0:
            log(f"  {spec_a} v {spec_b}: {2 * (k + 1)} games, score "
                f"{summarize(points)['score']:.3f}, {time.perf_counter() - t0:.1f} s")
    return points


def summarize(points):
    """Wins/draws/losses, points per game, score, Wilson interval and Elo of a list of results."""
    p = np.asarray(points, dtype=np.float64)
    n = p.size
    wins, draws, losses = int((p > 0).sum()), int((p == 0).sum()), int((p < 0).sum())
    score = (wins + 0.5 * draws) / n if n else 0.5
    lo, hi = wilson_interval(wins + 0.5 * draws, n)
    ppg = float(p.mean()) if n else 0.0
    ppg_half = Z95 * float(p.std(ddof=1)) / math.sqrt(n) if n > 1 else 0.0
    return {"games": n, "wins": wins, "draws": draws, "losses": losses, "points_per_game": ppg,
            "ppg_interval": (ppg - ppg_half, ppg + ppg_half), "score": score,
            "score_interval": (lo, hi), "elo": elo_from_score(score),
            "elo_interval": (elo_from_score(lo), elo_from_score(hi))}


def _fmt_elo(x):
    return f"{x:+.0f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def format_summary(spec_a, spec_b, s):
    lo, hi = s["score_interval"]
    plo, phi = s["ppg_interval"]
    elo_lo, elo_hi = s["elo_interval"]
    return (f"{spec_a} v {spec_b}: {s['games']} games  +{s['wins']} ={s['draws']} -{s['losses']}  "
            f"points/game {s['points_per_game']:+.3f} [{plo:+.3f}, {phi:+.3f}]  "
            f"score {s['score']:.3f} [{lo:.3f}, {hi:.3f}]  "
            f"Elo {_fmt_elo(s['elo'])} [{_fmt_elo(elo_lo)}, {_fmt_elo(elo_hi)}]")


# ---- command line ---------------------------------------------------------------------------
def parse_args(argv=None):
    """Settings from a command line (list of strings; sys.argv[1:] when None)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("agents", nargs="+", help="agent specs: load() names, optional ':key=value,...'")
    for f in dataclasses.fields(Settings):
        if f.name == "agents":
            continue
        flag = "--" + f.name.replace("_", "-")
        if f.type is bool or f.type == "bool":
            p.add_argument(flag, action="store_true")
        else:
            p.add_argument(flag, type=type(f.default), default=f.default)
    return Settings(**vars(p.parse_args(argv)))


def check(cfg):
    """ValueError naming the first bad setting."""
    if cfg.game not in GAMES:
        raise ValueError(f"unknown game {cfg.game!r}; expected one of {sorted(GAMES)}")
    if len(cfg.agents) < 2:
        raise ValueError("give at least two agents")
    if cfg.games < 1:
        raise ValueError(f"games must be positive, got {cfg.games}")
    if not 0 <= cfg.opening_min <= cfg.opening_max:
        raise ValueError("need 0 <= opening_min <= opening_max")
    if cfg.max_moves < 1:
        raise ValueError(f"max_moves must be positive, got {cfg.max_moves}")
    for spec in cfg.agents:
        make_agent(spec, cfg.game, 0)  # fails early on a bad name or option


def main(args=None):
    """Run with Settings or a list of command-line strings; return a dict of results.

    results["pairs"][(i, j)] is the summary of agents[i] against agents[j] (i < j);
    results["elo"] the round-robin ratings (in agents order) when there are three or more.
    """
    cfg = args if isinstance(args, Settings) else parse_args(args)
    check(cfg)
    k = len(cfg.agents)
    points = np.zeros((k, k))
    games = np.zeros((k, k))
    pairs = {}
    t0 = time.perf_counter()
    for i in range(k):
        for j in range(i + 1, k):
            res = play_pair(cfg, cfg.agents[i], cfg.agents[j], cfg.seed + 1000 * (i * k + j))
            s = summarize(res)
            pairs[(i, j)] = s
            points[i, j] = s["wins"] + 0.5 * s["draws"]
            points[j, i] = s["losses"] + 0.5 * s["draws"]
            games[i, j] = games[j, i] = s["games"]
            print(format_summary(cfg.agents[i], cfg.agents[j], s))
    results = {"pairs": pairs, "time": time.perf_counter() - t0}
    if k >= 3:
        elo = elo_ratings(points, games)
        results["elo"] = elo
        print(f"\nround-robin Elo ({cfg.game}, {cfg.games} games per pair, seed {cfg.seed}):")
        for r in np.argsort(-elo):
            score = points[r].sum() / games[r].sum()
            print(f"  {elo[r]:+7.0f}  {cfg.agents[r]:<40} score {score:.3f}")
    print(f"time {results['time']:.1f} s")
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
