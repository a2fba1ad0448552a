"""Play a boardgym backgammon agent against pubeval or GNU Backgammon 0-ply (cubeless money games).

    python scripts/eval_gnubg.py --weights agents/checkpoints/backgammon-td.npz \\
        --opponent pubeval --games 5000 --seed 0
    python scripts/eval_gnubg.py --agent backgammon-greedy --opponent gnubg0 --games 200

The opponents come from ``gnubg_nn`` (GPL-3; imported only by this evaluation script, never by
library code): ``pubeval`` is Tesauro's public linear evaluator (``gnubg_nn.pub_best_move``),
``gnubg0`` GNU Backgammon's neural net at 0-ply (``gnubg_nn.best_move``), ``random`` a uniformly
random afterstate. Conventions (checked by experiment, and every opponent play is checked to be
one of our legal afterstates): the board is ``[opponent, player on roll]``, 25 counts each from
that side's own view, bar last (``envs.backgammon.board_from_state``); ``pub_best_move`` returns
flat ``[from, to, ...]`` 0-based (bar 24, off -1), ``best_move`` ``((from, to), ...)`` 1-based
(bar 25, off 0), one step per die.

Games come in pairs that replay one SplitMix64 dice stream (opening roll included) with the
agent first as player 0, then as player 1. Gammons and backgammons count (1/2/3 points).
Prints the agent's points per game with a 95% interval (normal approximation over games), its
win rate with a Wilson interval, and the gammon rates.
"""
import argparse
import dataclasses
import math
import sys
import time

import numpy as np

Z95 = 1.959963984540054
ENGINES = ("pubeval", "gnubg0", "random")  # also accepted as --agent (e.g. the gnubg0-vs-pubeval anchor)


@dataclasses.dataclass
class Settings:
    """Settings of one evaluation against an external opponent."""

    agent: str = "backgammon-td"
    """boardgym.agents.load name of the agent (backgammon-td, backgammon-greedy, ...) or an engine"""
    weights: str = ""
    """weights .npz for backgammon-td / expectimax (default: the shipped checkpoint)"""
    opponent: str = "pubeval"
    """pubeval, gnubg0 or random"""
    games: int = 1000
    """games (rounded up to even: pairs with the same dice)"""
    seed: int = 0
    """dice seed"""
    quiet: bool = False
    """print only the summary"""


def wilson(k, n, z=Z95):
    """Wilson score interval (lo, hi) of k successes in n trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    hw = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return c - hw, c + hw


def _opponent_play(kind, state, d1, d2, rows, n, pick):
    """Index among rows[:n] (our afterstates of state) of the opponent's play."""
    import gnubg_nn
    from boardgym.envs import backgammon as api
    from boardgym.kernels.backgammon.board import same_board
    from boardgym.kernels.backgammon.movegen import do_move
    if kind == "random":
        return int(pick.integers(n))
    if n == 1:
        return 0
    board = api.board_from_state(state)
    if kind == "pubeval":
        flat = gnubg_nn.pub_best_move(board, int(d1), int(d2))
        steps = [(flat[i] + 1, flat[i + 1] + 1) for i in range(0, len(flat), 2)]
    else:
        steps = list(gnubg_nn.best_move(board, int(d1), int(d2)))
    s = state.copy()
    for fr, to in steps:
        do_move(s, int(fr), int(fr) - int(to) if to > 0 else int(fr))
    for k in range(n):
        if same_board(rows[k], s):
            return k
    raise RuntimeError(f"{kind} play {steps} for {d1}-{d2} in {api.position_id(state)} is not "
                       f"one of our legal afterstates (board convention mismatch)")


def _require_gnubg():
    """ValueError when the optional gnubg-nn package is missing."""
    try:
        import gnubg_nn  # noqa: F401
    except ImportError:
        raise ValueError("gnubg-nn is not installed: pip install gnubg-nn (GPL-3, evaluation only)") from None


def engine_agent(kind, seed=0):
    """pubeval / gnubg0 / random as a boardgym agent (``act_state`` and ``act`` in backgammon_v0,
    whole plays from the start of a turn), for scripts/evaluate.py's round-robins."""
    from boardgym.agents.td_gammon import AfterstateAgent

    class EngineAgent(AfterstateAgent):
        def __init__(self):
            super().__init__()
            self.kind = kind
            self.seed(seed)

        def seed(self, value):
            self.pick = np.random.default_rng(value)

        def best_afterstate(self, state, d1, d2):
            rows = self.afterstates(state, d1, d2)
            return rows[_opponent_play(kind, state, d1, d2, rows, len(rows), self.pick)].copy()

        def choose(self, rows):
            raise ValueError(f"{kind} plays whole turns: ask it at the start of a turn")

    if kind not in ENGINES:
        raise ValueError(f"unknown engine {kind!r}; expected one of {ENGINES}")
    if kind != "random":
        _require_gnubg()
    return EngineAgent()


def play_games(agent, opponent, n_pairs, seed, progress=None):
    """Points per game of agent (float64[2 * n_pairs]) and kinds; pair i replays one dice stream."""
    from boardgym.kernels.backgammon.board import STATE_LEN, TURN, end_turn
    from boardgym.kernels.backgammon.dice import roll_dice
    from boardgym.kernels.backgammon.movegen import MAX_AFTERSTATES, gen_afterstates
    from boardgym.kernels.backgammon.outcome import outcome
    from boardgym.kernels.backgammon.turns import opening
    from boardgym.kernels.rng import seed_rngs
    rows = np.empty((MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    pts = np.zeros(2 * n_pairs)
    kinds = np.zeros(2 * n_pairs, dtype=np.int64)
    pick = np.random.default_rng(seed)
    streams = seed_rngs(seed, n_pairs)
    for p in range(n_pairs):
        for seat in range(2):
            rng = streams[p:p + 1].copy()
            state, d1, d2 = opening(rng)
            while True:
                n = gen_afterstates(state, d1, d2, rows)
                if state[TURN] == seat:
                    if isinstance(agent, str):  # an external engine on this side too (anchors)
                        r = _opponent_play(agent, state, d1, d2, rows, n, pick)
                    else:
                        r = agent.choose(rows[:n])
                else:
                    r = _opponent_play(opponent, state, d1, d2, rows, n, pick)
                after = rows[r].copy()
                winner, kind = outcome(after)
                if winner >= 0:
                    pts[2 * p + seat] = kind if winner == seat else -kind
                    kinds[2 * p + seat] = kind
                    break
                state = end_turn(after)
                d1, d2 = roll_dice(rng)
        if progress is not None:
            progress(p + 1, pts[:2 * p + 2])
    return pts, kinds


def summarize(pts, kinds):
    """Dict of ppg, its 95% half-width, win rate and Wilson interval, gammon/backgammon rates."""
    n = pts.size
    wins = int((pts > 0).sum())
    lo, hi = wilson(wins, n)
    half = Z95 * pts.std(ddof=1) / math.sqrt(n) if n > 1 else float("nan")
    return {"games": n, "ppg": float(pts.mean()), "ci95": float(half), "wins": wins,
            "win_rate": wins / n, "win_lo": lo, "win_hi": hi,
            "gammons_won": int(((pts > 0) & (kinds >= 2)).sum()),
            "gammons_lost": int(((pts < 0) & (kinds >= 2)).sum()),
            "backgammons": int((kinds == 3).sum())}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agent", default=Settings.agent)
    p.add_argument("--weights", default=Settings.weights)
    p.add_argument("--opponent", choices=("pubeval", "gnubg0", "random"), default=Settings.opponent)
    p.add_argument("--games", type=int, default=Settings.games)
    p.add_argument("--seed", type=int, default=Settings.seed)
    p.add_argument("--quiet", action="store_true")
    cfg = Settings(**vars(p.parse_args(argv)))
    if cfg.games <= 0:
        p.error("--games must be positive")
    return cfg


def main(args=None):
    """Run the evaluation; returns the summary dict."""
    cfg = args if isinstance(args, Settings) else parse_args(args)
    if cfg.opponent != "random":
        try:
            _require_gnubg()
        except ValueError as e:
            raise SystemExit(str(e))
    from boardgym.agents import load
    kwargs = {"weights": cfg.weights} if cfg.weights else {}
    agent = cfg.agent if cfg.agent in ENGINES else load(cfg.agent, **kwargs)
    if not isinstance(agent, str) and not hasattr(agent, "choose"):
        raise SystemExit(f"{cfg.agent} does not rank afterstates (needs choose(rows))")
    n_pairs = (cfg.games + 1) // 2
    t0 = time.perf_counter()
    step = max(1, n_pairs // 10)

    def progress(done, pts):
        if not cfg.quiet and (done % step == 0 or done == n_pairs):
            el = time.perf_counter() - t0
            print(f"  {2 * done} games  ppg {pts.mean():+.3f}  {2 * done / el:.1f} games/s",
                  flush=True)

    pts, kinds = play_games(agent, cfg.opponent, n_pairs, cfg.seed, progress)
    s = summarize(pts, kinds)
    print(f"{cfg.agent}{' ' + cfg.weights if cfg.weights else ''} vs {cfg.opponent}: "
          f"{s['games']} games, {s['ppg']:+.3f} points per game (95% +-{s['ci95']:.3f}), "
          f"wins {s['win_rate']:.1%} [{s['win_lo']:.1%}, {s['win_hi']:.1%}], gammons won "
          f"{s['gammons_won']} lost {s['gammons_lost']}, backgammons {s['backgammons']}, "
          f"{time.perf_counter() - t0:.0f} s")
    return s


if __name__ == "__main__":
    main(sys.argv[1:])
