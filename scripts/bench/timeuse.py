"""Time use of the draughts alpha-beta engines: wall time per move in games at a fixed budget.

    boardgym bench timeuse                      # quick: one game per engine at 0.1 s a move
    boardgym bench timeuse --full               # BENCHMARKS.md: 10 games at 0.1 s, 2 at 1 s
    boardgym bench timeuse --agents draughts-alphabeta:threads=2 --budgets 0.05 --games 3

Each engine (``--agents``, registry specs; by default the frozen ``draughts-alphabeta-2026``
and today's ``draughts-alphabeta``, one thread each unless the spec says otherwise) plays
``--games`` games against a second copy of itself at each of ``--budgets`` seconds a move
(``time_limit``, no depth cap), from opening ballots chosen by ``--seed``
(agents/arena/data/draughts_ballots.tsv), through the arena's ``play_game``, capped at
``--max-moves`` plies. Every whole move a seat chooses is timed (the hops of a capture chain it
already chose are not moves); the table gives, per engine and budget, the moves, the share of
forced moves (one legal move), the mean, 95th percentile and maximum wall time as fractions of
the budget, the moves that took over twice the budget, and the mean over the moves that were not
forced. The engines take turns game by
game (each plays ballot k before any plays ballot k + 1), so that they share the machine's load.
The JIT is warmed up before timing.
No peer: the figures are boardgym's own.
"""

import dataclasses
import time
from dataclasses import field

import numpy as np

from boardgym.agents.arena import matches
from boardgym.agents.arena.openings import ballot_actions, legal_rows, read_ballots
from boardgym.agents.registry import load_spec, parse_spec
from boardgym.kernels.draughts.board import S_CAP_SQ
from boardgym.scripts import cli

#: optional peers (name, module, how to install, game): none, the engines are compared
PEERS = ()

#: the frozen engine and today's, one thread each
AGENTS = ["draughts-alphabeta-2026:threads=1", "draughts-alphabeta:threads=1"]


@dataclasses.dataclass
class Settings:
    """Settings of one time-use benchmark (defaults: the quick budget; --full: BENCHMARKS.md's)."""

    agents: list[str] = field(default_factory=lambda: list(AGENTS))
    """the engines, registry specs name:key=value,... (alpha-beta searchers)"""
    budgets: tuple[float, ...] = (0.1,)
    """seconds per move measured"""
    games: int = 1
    """games per engine at the first budget"""
    games_long: int = 1
    """games per engine at every later budget (the long ones)"""
    max_moves: int = 200
    """game cap in plies (a capped game is a draw)"""
    seed: int = 0
    """seed of the ballot choice and of the engines"""
    full: bool = False
    """the budget BENCHMARKS.md reports (0.1 s and 1 s; 10 and 2 games per engine); not with
    --budgets, --games or --games-long"""

    def check(self):
        check_searchers(self.agents, "--budgets, --seed")
        cli.require(len(self.budgets) >= 1, "give at least one budget with --budgets")
        cli.require(
            all(0 < b <= 60 for b in self.budgets),
            f"--budgets must be in (0, 60] seconds, got {self.budgets}",
        )
        cli.require(1 <= self.games <= 150, f"--games must be in 1..150, got {self.games}")
        cli.require(
            1 <= self.games_long <= 150, f"--games-long must be in 1..150, got {self.games_long}"
        )
        cli.require(self.max_moves >= 10, f"--max-moves must be at least 10, got {self.max_moves}")
        cli.require(self.seed >= 0, f"--seed must be at least 0, got {self.seed}")
        if self.full:
            given = [f"--{k.replace('_', '-')}" for k in FULL if getattr(self, k) != DEFAULTS[k]]
            cli.require(not given, f"--full sets {', '.join(given)}; give one or the other")


#: the budget of BENCHMARKS.md (``--full``)
FULL = dict(budgets=(0.1, 1.0), games=10, games_long=2)
DEFAULTS = {k: getattr(Settings, k) for k in FULL}


def check_searchers(specs, own):
    """Usage errors unless specs are one or more draughts alpha-beta specs leaving depth, time
    and seed to the bench (own: the bench's flags that set them, for the message)."""
    cli.require(len(specs) >= 1, "give at least one engine with --agents")
    for spec in specs:
        try:
            name, opts = parse_spec(spec)
        except ValueError as e:
            raise cli.UsageError(f"--agents: {e}") from None
        cli.require(
            name.startswith("draughts-alphabeta"),
            f"--agents must be alpha-beta searchers (draughts-alphabeta...), got {name!r}",
        )
        fixed = {"depth", "time_limit", "seed"} & set(opts)
        cli.require(not fixed, f"--agents: {', '.join(sorted(fixed))} is the bench's own ({own})")


class _Timed:
    """A seat that times each whole move its agent chooses (``times``, ``forced``)."""

    def __init__(self, agent):
        self.agent = agent
        self.game = agent.game
        self.times, self.forced = [], []

    def reset(self):
        self.agent.reset()

    def act_state(self, state):
        if state[S_CAP_SQ] >= 0:  # a hop of a chain already chosen (or its completion)
            return self.agent.act_state(state)
        t0 = time.perf_counter()
        action = self.agent.act_state(state)
        self.times.append(time.perf_counter() - t0)
        self.forced.append(len(legal_rows(state)) == 1)
        return action

    def act(self, observation, action_mask):
        return self.agent.act(observation, action_mask)


def time_use(specs, budget, n_games, ballots, max_moves, seed):
    """{spec: {moves, forced, mean, p95, max, over2, mean_searched}} of each engine's moves
    (fractions of budget; over2: how many took over twice it) in n_games games against itself
    from ballots; the engines take turns game by game, so that a change in the machine's load
    falls on all of them alike."""
    seats = {
        spec: [
            _Timed(load_spec(spec, "draughts", seed=seed + k, depth=None, time_limit=budget))
            for k in range(2)
        ]
        for spec in specs
    }
    for pair in seats.values():  # warm-up: the search kernel and the move path, before timing
        for s in pair:
            s.agent.best_move("W:W21-32:B1-12")
    env = matches.make_env("draughts", max_moves)
    for g in range(n_games):
        _, moves = ballots[g % len(ballots)]
        for pair in seats.values():
            order = pair if g % 2 == 0 else pair[::-1]
            matches.play_game(env, order, seed + g, ballot_actions(moves))
    out = {}
    for spec, pair in seats.items():
        t = np.array([x for s in pair for x in s.times]) / budget
        forced = np.array([x for s in pair for x in s.forced], dtype=bool)
        out[spec] = {
            "moves": int(t.size),
            "forced": float(forced.mean()),
            "mean": float(t.mean()),
            "p95": float(np.percentile(t, 95)),
            "max": float(t.max()),
            "over2": int((t > 2).sum()),
            "mean_searched": float(t[~forced].mean()) if (~forced).any() else float("nan"),
        }
    return out


def main(args=None):
    """Run with Settings or a list of command-line strings; return {(spec, budget): figures}."""
    cfg = cli.settings(Settings, args, prog="boardgym bench timeuse", description=__doc__)
    if cfg.full:
        cfg = dataclasses.replace(cfg, **FULL)
    rng = np.random.default_rng(cfg.seed)
    every = read_ballots()
    n = max(cfg.games, cfg.games_long)
    ballots = [every[i] for i in rng.choice(len(every), size=min(n, len(every)), replace=False)]
    budgets = ", ".join(f"{b:g}" for b in cfg.budgets)
    print(
        f"bench timeuse: {len(cfg.agents)} engines, budgets {budgets} s, {cfg.games} games at "
        f"the first budget, {cfg.games_long} at the others, seed {cfg.seed}",
        flush=True,
    )
    print(
        f"{'engine':42s} {'T s':>6s} {'moves':>6s} {'forced':>7s} {'mean/T':>7s} {'p95/T':>7s} "
        f"{'max/T':>7s} {'>2T':>4s} {'searched mean/T':>16s}",
        flush=True,
    )
    out = {}
    for i, budget in enumerate(cfg.budgets):
        games = cfg.games if i == 0 else cfg.games_long
        res = time_use(cfg.agents, budget, games, ballots, cfg.max_moves, cfg.seed)
        for spec, r in res.items():
            out[(spec, budget)] = r
            print(
                f"{spec:42s} {budget:6g} {r['moves']:6d} {r['forced']:7.3f} {r['mean']:7.3f} "
                f"{r['p95']:7.3f} {r['max']:7.3f} {r['over2']:4d} {r['mean_searched']:16.3f}",
                flush=True,
            )
    return out


if __name__ == "__main__":
    cli.script_main(main)
