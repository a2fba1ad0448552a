"""Play a boardgym backgammon agent against pubeval or GNU Backgammon 0-ply (cubeless money games).

    boardgym eval-gnubg --opponent pubeval --games 5000 --seed 0
    boardgym eval-gnubg --agent backgammon-td --weights runs/td80/games_200000.npz --opponent gnubg0
    boardgym eval-gnubg --agent backgammon-greedy --opponent random --games 200
    boardgym eval-gnubg --agent backgammon-td:plies=0 --opponent gnubg0 --games 1000 --seed 1
    boardgym eval-gnubg --opponent gnubg --match 7 --games 200 --results r.jsonl
    boardgym eval-gnubg --opponent gnubg --cube --games 600 --results money.jsonl
    boardgym eval-gnubg --agent gnubg0 --opponent gnubg --games 100 --analyse-plies 2
    boardgym eval-gnubg --compare a.jsonl b.jsonl

``pubeval`` and ``gnubg0`` need the optional ``gnubg-nn`` package (``pip install gnubg-nn``;
GPL-3, for evaluation only); ``random`` needs nothing.

The opponents come from ``gnubg_nn`` (GPL-3; imported only by this evaluation script, never by
library code): ``pubeval`` is Tesauro's public linear evaluator (``gnubg_nn.pub_best_move``),
``gnubg0`` GNU Backgammon's neural net at 0-ply (``gnubg_nn.best_move``); ``random`` is the
random player of boardgym (``OPP_RANDOM``: uniformly random legal checker moves, like
RandomAgent). Conventions (checked by experiment, and every opponent play is checked to be one
of our legal afterstates): the board is ``[opponent, player on roll]``, 25 counts each from
that side's own view, bar last (``envs.backgammon_notation.board_from_state``);
``pub_best_move`` returns flat ``[from, to, ...]`` 0-based (bar 24, off -1), ``best_move``
``((from, to), ...)`` 1-based (bar 25, off 0), one step per die.

Every game is played by the one match harness (``agents.evaluation.play_match``) through the game
core's afterstate loop (``agents.backgammon.game_loop.play_afterstate_game``: opening roll, plays,
lost rolls, result). Games come in pairs that replay one dice stream (opening roll included) with
the agent first as player 0, then as player 1. Gammons and backgammons count (1/2/3 points). Prints
the agent's points per game with its 95% interval and the win rate with its Wilson interval
(``agents.stats``), and the gammon counts, the gammon and backgammon rates of both sides per seat,
and the agent's mean and largest time per play decision (ms) (at 2-ply also how many searches the
budget stopped); on a terminal a progress bar (games, rate, ETA) runs on stderr.

Match play (``--match N --opponent gnubg``): matches to N points with the cube against GNU
Backgammon's own module (``gnubg``, GPL-3, through ``scripts/gnubg_driver.py``) at
``--gnubg-plies`` with its own cube decisions; each dice seed is played twice, the agent as
player_0 and as player_1. Prints the agent's match win rate with its 95% interval over the dice
pairs (and Wilson's over matches), games per match and the agent's CPU seconds per match;
``--results FILE`` keeps every finished match, so a long run resumes where it stopped.

Money games against the same module (``--opponent gnubg`` without ``--match``): cubeless, its
checker play by cubeless equity, or with ``--cube`` the money game with the doubling cube (no
Jacoby rule, no beavers, gammons count) and its own cube decisions; in pairs on one dice seed
(the agent in each seat), each game's luck judged as ``--luck`` says (each roll's luck times the
cube value it was rolled at); prints raw and luck-adjusted points per game with their paired 95%
intervals; ``--results FILE`` keeps every finished pair. ``--agent`` may then also be an engine
(cubeless games) or ``gnubg:plies=N``, so that ``--analyse-plies`` gives any player's error rate
under one judge, the checker plays' also by phase (contact, race, bear-off: the position before
the play, ``gnubg_driver.phase_of``). ``--analyse cube`` judges the cube decisions only (the
checker plays' judging is the slow part at 2 plies); ``--cube-log FILE`` (matches or
``--cube``) appends each judged cube decision with gnubg's equities to FILE as each match or
pair finishes, for ``boardgym cube-bench`` to re-decide with other agents
(``scripts/cube_bench.py``).

Luck adjustment (``--luck``; ``agents.evaluation.play_adjusted_match``,
``agents.stats.luck_summary``): every roll's luck is judged by ``gnubg0`` (GNU Backgammon's 0-ply
net, ``GnubgJudge``: its best play of each roll by ``gnubg_nn.best_move``, valued by
``gnubg_nn.probabilities`` at 0-ply, cubeless money equity; what ``auto``, the default, picks when
gnubg-nn is installed), ``gnubg`` (GNU Backgammon's module, cubeful money equity at 0-ply,
``gnubg_driver.CubefulJudge``: what ``auto`` picks for ``--cube``, where a cubeless judge's luck
times a high cube swamps the results), ``td`` (the shipped TD net,
``agents.backgammon.luck.td_judge``) or ``none``. Prints the raw points per game beside the
adjusted ones, each with its 95% interval and per-game standard deviation.

    boardgym eval-gnubg --agent backgammon-td --opponent gnubg0 --games 1000 --seed 1 --luck gnubg0

Two agents on the same dice (``--compare A B``, no games played): two ``--results`` files of money
games against gnubg with the same ``--seed``, ``--cube`` and luck judge (and the same opponent:
the files do not record it) give each agent's luck-adjusted points per game over the dice pairs
both hold and B minus A, game by game, with its 95% interval over those dice pairs
(``gnubg_driver.compare_money``): the two agents met the same rolls, so the difference is
measured more closely than either figure alone. A side may be several files joined by commas
(runs on other seeds: ``--compare a60.jsonl,a65.jsonl b60.jsonl,b65.jsonl``), their dice pairs
together.

    boardgym eval-gnubg --weights a.npz --opponent gnubg --gnubg-plies 2 --seed 60 --results a.jsonl
    boardgym eval-gnubg --weights b.npz --opponent gnubg --gnubg-plies 2 --seed 60 --results b.jsonl
    boardgym eval-gnubg --compare a.jsonl b.jsonl
"""

import dataclasses
import time
from typing import Literal

import numpy as np

from boardgym.scripts import cli

ENGINES = (
    "pubeval",
    "gnubg0",
    "random",
)  # also accepted as --agent (e.g. the gnubg0-vs-pubeval anchor)


@dataclasses.dataclass
class Settings:
    """Settings of one evaluation against an external opponent."""

    agent: str = "backgammon-td"
    """boardgym.agents.load name of the agent with optional ':key=value,...' options
    (backgammon-td, backgammon-td:plies=2, backgammon-greedy, ...), an engine (pubeval,
    gnubg0, random), or against --opponent gnubg also gnubg:plies=N (GNU Backgammon's module)"""
    weights: str = ""
    """weights .npz for backgammon-td / expectimax (empty: the shipped checkpoint)"""
    opponent: Literal["pubeval", "gnubg0", "random", "gnubg"] = "pubeval"
    """the engine to play against (pubeval and gnubg0 need gnubg-nn; gnubg is GNU Backgammon's own
    module at --gnubg-plies: cubeless money games, or with its cube decisions --cube or --match)"""
    games: int = 1000
    """games (rounded up to even: pairs with the same dice)"""
    seed: int = 0
    """dice seed"""
    luck: Literal["auto", "gnubg0", "gnubg", "td", "none"] = "auto"
    """luck judge: gnubg0 (GNU Backgammon 0-ply, cubeless), gnubg (GNU Backgammon's module,
    cubeful 0-ply: for --cube), td (the shipped TD net), none, or auto (gnubg with --cube; else
    gnubg0 when gnubg-nn is installed, else none)"""
    quiet: bool = False
    """print only the summary (no progress lines or bar)"""
    cube: bool = False
    """with --opponent gnubg: cubeful money games (no Jacoby rule, no beavers, gammons count)
    against GNU Backgammon's module with its own cube decisions, luck-adjusted (--luck)"""
    match: int = 0
    """play matches to this many points (1..64) with the cube instead of money games; --games
    counts matches (pairs on the same dice, the agent in each seat)"""
    gnubg_plies: int = 0
    """plies of the gnubg opponent (0..4) in --match"""
    results: str = ""
    """--opponent gnubg: a JSON-lines file each finished match or pair of games is appended to; a
    run resumes from it"""
    analyse_plies: int = -1
    """--opponent gnubg: gnubg judges each checker play and cube decision of the agent at this
    many plies (0..4; -1: no analysis) and the error rates are printed in mEMG per decision"""
    analyse: Literal["all", "cube"] = "all"
    """with --analyse-plies: judge every decision (all), or the cube decisions only (cube: much
    faster at 2 plies, the checker plays not judged)"""
    cube_log: str = ""
    """with --analyse-plies and --match or --cube: a JSON-lines file each judged cube decision is
    appended to (the position, the score, the agent's action, gnubg's equities), which
    ``boardgym cube-bench`` re-decides with other agents"""
    compare: list[str] = dataclasses.field(default_factory=list)
    """two --results files A B of money games against gnubg on the same dice (each side may be
    several files joined by commas, a1.jsonl,a2.jsonl: runs on other seeds): print each one's
    luck-adjusted points per game and B minus A, dice pair by dice pair (no games are played)"""

    def check(self):
        if self.compare:
            cli.require(
                len(self.compare) == 2,
                f"--compare takes two results files, got {len(self.compare)}",
            )
            for side in self.compare:
                cli.require(all(side.split(",")), f"--compare: an empty file name in {side!r}")
            unused = [
                cli.flag_name(f.name)
                for f in dataclasses.fields(self)
                if f.name != "compare" and getattr(self, f.name) != getattr(Settings, f.name)
            ]
            cli.require(
                not unused, f"--compare plays no games: {', '.join(unused)} would be unused"
            )
            return
        cli.require(self.games > 0, f"--games must be positive, got {self.games}")
        cli.require(0 <= self.match <= 64, f"--match must be 1..64 points, got {self.match}")
        gnubg = self.opponent == "gnubg"
        cli.require(
            gnubg or not (self.match or self.cube),
            "--match N and --cube are played against --opponent gnubg",
        )
        cli.require(not (self.cube and self.match), "--cube is for money games, not --match")
        cli.require(0 <= self.gnubg_plies <= 4, f"--gnubg-plies is 0..4, got {self.gnubg_plies}")
        cli.require(gnubg or not self.results, "--results is for --opponent gnubg")
        cli.require(
            -1 <= self.analyse_plies <= 4, f"--analyse-plies is 0..4, got {self.analyse_plies}"
        )
        cli.require(gnubg or self.analyse_plies < 0, "--analyse-plies is for --opponent gnubg")
        cli.require(
            self.analyse == "all" or self.analyse_plies >= 0, "--analyse cube needs --analyse-plies"
        )
        cli.require(
            not self.cube_log or (self.analyse_plies >= 0 and (self.match or self.cube)),
            "--cube-log needs --analyse-plies and --match N or --cube",
        )
        cli.require(
            not gnubg or self.match or self.luck != "none",
            "money games against gnubg need a luck judge (--luck gnubg0 or td)",
        )
        if gnubg:
            if self.agent in ENGINES or self.luck == "gnubg0":
                _require_gnubg()
            return
        if "gnubg0" in (self.agent, self.opponent, self.luck) or "pubeval" in (
            self.agent,
            self.opponent,
        ):
            _require_gnubg()


def _opponent_play(kind, state, rows, pick, mask):
    """Index among rows (the afterstates of state, on roll with its dice) of the engine's play."""
    from boardgym.kernels.backgammon.board import BOARD_LEN
    from boardgym.kernels.backgammon.game import dice_of
    from boardgym.kernels.backgammon.movegen import do_move
    from boardgym.kernels.backgammon.opponents import random_turn

    n = rows.shape[0]
    if kind == "random":
        after = random_turn(state, pick, 0, mask)
    elif n == 1:
        return 0
    else:
        import gnubg_nn

        from boardgym.envs import backgammon_notation as notation

        d1, d2 = (int(d) for d in dice_of(state))
        board = notation.board_from_state(state)
        if kind == "pubeval":
            flat = gnubg_nn.pub_best_move(board, d1, d2)
            steps = [(flat[i] + 1, flat[i + 1] + 1) for i in range(0, len(flat), 2)]
        else:
            steps = list(gnubg_nn.best_move(board, d1, d2))
        after = state.copy()
        for fr, to in steps:  # replay gnubg's steps on a copy; matched against our plays below
            do_move(after, int(fr), int(fr) - int(to) if to > 0 else int(fr))
    k = np.flatnonzero((rows[:, :BOARD_LEN] == after[:BOARD_LEN]).all(axis=1))
    if k.size == 0:
        from boardgym.envs import backgammon_notation as notation

        raise RuntimeError(
            f"{kind}'s play for {dice_of(state)} in {notation.position_id(state)} "
            "is not one of our legal afterstates (board convention mismatch)"
        )
    return int(k[0])


def _engine_chooser(kind, pick):
    """chooser (state, rows) -> index playing engine kind (random: drawing from pick, int64[1])."""
    from boardgym.kernels.backgammon.game import N_ACTIONS

    mask = np.zeros(N_ACTIONS, np.int8)
    return lambda state, rows: _opponent_play(kind, state, rows, pick, mask)


def _require_gnubg():
    """ValueError when the optional gnubg-nn package is missing."""
    try:
        import gnubg_nn  # noqa: F401
    except ImportError:
        raise ValueError(
            "pubeval and gnubg0 need gnubg-nn, which is not installed: "
            "pip install gnubg-nn (GPL-3, evaluation only)"
        ) from None


def engine_agent(kind, seed=0):
    """pubeval / gnubg0 / random as a boardgym agent (``act_state`` and ``act`` in backgammon_v0,
    whole plays from the start of a turn), for ``boardgym evaluate``'s round-robins."""
    from boardgym.agents.backgammon.agents import AfterstateAgent
    from boardgym.kernels.rng import seed_rngs

    if kind not in ENGINES:
        raise ValueError(f"unknown engine {kind!r}; expected one of {ENGINES}")
    if kind != "random":
        _require_gnubg()

    class EngineAgent(AfterstateAgent):
        def __init__(self):
            super().__init__()
            self.kind = kind
            self.seed(seed)

        def seed(self, value):
            self._engine = _engine_chooser(kind, seed_rngs(int(value), 1))

        def _pick(self, state, rows):
            return self._engine(state, rows)

        def _choose(self, rows):
            raise ValueError(f"{kind} plays whole turns: ask it at the start of a turn")

    return EngineAgent()


def _gnubg_equity(state):
    """GNU Backgammon 0-ply cubeless money equity of the player on roll of state."""
    import gnubg_nn

    from boardgym.envs import backgammon_notation as notation

    w, wg, wbg, lg, lbg = gnubg_nn.probabilities(notation.board_from_state(state), 0)
    return 2.0 * w - 1.0 + wg + wbg - lg - lbg


class GnubgJudge:
    """GNU Backgammon's 0-ply net as a luck judge (agents.evaluation's judge interface).

    ``judge(rows)``: equities of afterstates for the player who moved (the opponent's 0-ply
    equity on roll, negated; exact points when the play ends the game); ``best_values(state)``:
    for each of the 21 rolls, the value after gnubg's own best play (``gnubg_nn.best_move``)."""

    def __init__(self):
        _require_gnubg()

    def _value(self, after):
        from boardgym.kernels.backgammon import game
        from boardgym.kernels.backgammon.board import OFF_ME, TURN

        nxt = game.pass_turn(after)
        if after[OFF_ME] == 15:  # exact points per cube unit, as the equities are
            winner, kind, _ = game.result(nxt, game.SCORING_GAMMON)
            return float(kind if winner == after[TURN] else -kind)
        return -_gnubg_equity(nxt)

    def __call__(self, rows):
        return np.array([self._value(r) for r in rows], dtype=np.float64)

    def best_values(self, state):
        import gnubg_nn

        from boardgym.agents.backgammon.luck import ROLLS
        from boardgym.envs import backgammon_notation as notation
        from boardgym.kernels.backgammon import game
        from boardgym.kernels.backgammon.movegen import do_move

        board = notation.board_from_state(state)
        out = np.empty(ROLLS.shape[0])
        for r, (d1, d2) in enumerate(ROLLS):
            after = game.set_roll(state, int(d1), int(d2))
            for fr, to in gnubg_nn.best_move(board, int(d1), int(d2)):
                do_move(after, int(fr), int(fr) - int(to) if to > 0 else int(fr))
            out[r] = self._value(after)
        return out


def make_judge(kind):
    """The luck judge named kind (gnubg0, td; none -> None)."""
    if kind == "none":
        return None
    if kind == "td":
        from boardgym.agents.backgammon.luck import td_judge

        return td_judge()
    if kind == "gnubg0":
        return GnubgJudge()
    if kind == "gnubg":
        from boardgym.scripts.gnubg_driver import CubefulJudge

        return CubefulJudge(0)
    raise ValueError(f"unknown luck judge {kind!r}; expected gnubg0, gnubg, td or none")


def default_luck():
    """gnubg0 when gnubg-nn is installed, else none."""
    try:
        _require_gnubg()
    except ValueError:
        return "none"
    return "gnubg0"


def play_games(agent, opponent, n_pairs, seed, progress=None, judge=None):
    """Points per game of agent (float64[2 * n_pairs]) and kinds (1 single, 2 gammon, 3
    backgammon) against engine ``opponent``, through the one match harness
    (boardgym.agents.arena.matches.play_match: pairs of games with the same dice, the agent first as
    player 0, then as player 1, each game by the game core's afterstate loop). agent: an
    AfterstateAgent or an engine name. progress(pairs done, points so far) after each pair.
    With a luck judge (agents.evaluation's interface) also returns the luck of each game
    (agents.evaluation.play_adjusted_match): (points, kinds, luck)."""
    from boardgym.agents.arena.matches import play_adjusted_match, play_match

    me = engine_agent(agent, seed + 1) if isinstance(agent, str) else agent
    opp = engine_agent(opponent, seed + 2)
    _time_plays(me)
    if judge is None:
        report = None if progress is None else (lambda pts: progress(pts.size // 2, pts))
        pts = play_match(me, opp, "backgammon", 2 * n_pairs, seed, max_moves=None, progress=report)
        return pts, np.abs(pts).astype(np.int64)  # cubeless, gammons counted: |points| = kind
    report = None if progress is None else (lambda pts, luck: progress(pts.size // 2, pts, luck))
    pts, luck = play_adjusted_match(me, opp, judge, 2 * n_pairs, seed, progress=report)
    return pts, np.abs(pts).astype(np.int64), luck


def _time_plays(agent):
    """Record the wall time of each of agent's play decisions in agent.play_seconds (a list)."""
    pick = agent._pick
    agent.play_seconds = []
    if getattr(agent, "search_info", None):  # count from here, not the warm-up
        agent.search_info.update(decisions=0, afterstates=0, stopped=0)

    def timed(state, rows):
        t = time.perf_counter()
        k = pick(state, rows)
        agent.play_seconds.append(time.perf_counter() - t)
        return k

    agent._pick = timed


def summarize(pts, kinds, luck=None):
    """Dict of ppg with its 95% interval (stats.mean_interval over -3..3; ci95 is its half
    width), wins with the Wilson interval, gammon/backgammon counts, "rates" (stats.result_rates
    of all games and per seat of the agent: "all", "seat0", "seat1"); with luck (float per game)
    also stats.luck_summary under "luck"."""
    from boardgym.agents.arena.stats import luck_summary, mean_interval, result_rates, wilson

    n = pts.size
    wins = int((pts > 0).sum())
    lo, hi = wilson(wins, n)
    plo, phi = mean_interval(pts, -3.0, 3.0)
    return {
        "games": n,
        "ppg": float(pts.mean()),
        "ppg_lo": plo,
        "ppg_hi": phi,
        "ci95": (phi - plo) / 2,
        "wins": wins,
        "win_rate": wins / n,
        "win_lo": lo,
        "win_hi": hi,
        "gammons_won": int(((pts > 0) & (kinds >= 2)).sum()),
        "gammons_lost": int(((pts < 0) & (kinds >= 2)).sum()),
        "backgammons": int((kinds == 3).sum()),
        "rates": {
            "all": result_rates(pts),
            "seat0": result_rates(pts[0::2]),
            "seat1": result_rates(pts[1::2]),
        },
        "luck": None if luck is None else luck_summary(pts, luck),
    }


def main(args=None):
    """Run the evaluation with Settings or a list of command-line strings; returns the summary
    dict (``summarize``)."""
    cfg = cli.settings(Settings, args, prog="boardgym eval-gnubg", description=__doc__)
    if cfg.compare:
        return _main_compare(cfg)
    if cfg.match:
        return _main_matches(cfg)
    if cfg.opponent == "gnubg":
        return _main_money_gnubg(cfg)
    from boardgym.agents.registry import parse_spec

    if cfg.agent in ENGINES:
        cli.require(
            not cfg.weights, f"--weights is for a boardgym agent, not the engine {cfg.agent}"
        )
        agent = cfg.agent
    else:
        agent = _boardgym_agent(cfg, *parse_spec(cfg.agent))
    luck = default_luck() if cfg.luck == "auto" else cfg.luck
    judge = make_judge(luck)
    n_pairs = (cfg.games + 1) // 2
    t0 = time.perf_counter()
    step = max(1, n_pairs // 10)
    bar = cli.Progress(
        2 * n_pairs, label="games", unit="games", enabled=False if cfg.quiet else None
    )

    def progress(done, pts, luck=None):
        bar.set(2 * done)
        if not cfg.quiet and (done % step == 0 or done == n_pairs):
            if bar.enabled:
                bar.clear()
            el = time.perf_counter() - t0
            adj = "" if luck is None else f"  adjusted {(pts - luck).mean():+.3f}"
            print(
                f"  {2 * done} games  ppg {pts.mean():+.3f}{adj}  {2 * done / el:.1f} games/s",
                flush=True,
            )

    if not isinstance(agent, str):
        agent.best_play("4HPwATDgc/ABMA", 3, 1)  # compile before timing
    with bar:
        played = play_games(agent, cfg.opponent, n_pairs, cfg.seed, progress, judge)
    s = summarize(*played)
    if not isinstance(agent, str) and agent.play_seconds:
        t = np.array(agent.play_seconds)
        s["play_seconds"] = {"plays": t.size, "mean": float(t.mean()), "max": float(t.max())}
        print(
            f"  {cfg.agent}: {t.size} plays, {1e3 * t.mean():.1f} ms per play on average, "
            f"at most {1e3 * t.max():.1f} ms"
        )
    info = getattr(agent, "search_info", None)
    search = getattr(agent, "search_settings", None)  # a searching agent's search.Settings
    if info and info["decisions"] and search is not None and search.plies >= 2:
        s["search_info"] = dict(info)
        budgets = f"{search.budget:,}" + (f" / {search.budget3:,}" if search.plies == 3 else "")
        print(
            f"  {cfg.agent}: {search.plies}-ply searches stopped by the budget ({budgets} "
            f"afterstates) {info['stopped']} of {info['decisions']} decisions; "
            f"{info['afterstates'] / info['decisions']:,.0f} afterstates valued per decision"
        )
    print(
        f"{cfg.agent}{' ' + cfg.weights if cfg.weights else ''} vs {cfg.opponent}: "
        f"{s['games']} games, {s['ppg']:+.3f} points per game (95% [{s['ppg_lo']:+.3f}, "
        f"{s['ppg_hi']:+.3f}]), "
        f"wins {s['win_rate']:.1%} [{s['win_lo']:.1%}, {s['win_hi']:.1%}], gammons won "
        f"{s['gammons_won']} lost {s['gammons_lost']}, backgammons {s['backgammons']}, "
        f"{time.perf_counter() - t0:.0f} s"
    )
    for side, who in (("won", cfg.agent), ("lost", cfg.opponent)):
        r = s["rates"]
        print(
            f"  {who} won: "
            + ", ".join(
                f"{word} {r['all'][side][k]:.1%} (agent as player_0 {r['seat0'][side][k]:.1%}, "
                f"as player_1 {r['seat1'][side][k]:.1%})"
                for k, word in ((2, "gammons"), (3, "backgammons"))
            )
        )
    if s["luck"] is not None:
        from boardgym.agents.arena.stats import format_luck

        print(format_luck(s["luck"], luck))
    return s


def _gnubg_match_agent(cfg):
    """The AfterstateAgent of --agent / --weights against --opponent gnubg: a boardgym agent,
    GNU Backgammon's module (gnubg:plies=N) or, in cubeless games, an engine."""
    from boardgym.agents.registry import parse_spec
    from boardgym.scripts import gnubg_driver

    cubeful = bool(cfg.match or cfg.cube)
    if cfg.agent in ENGINES:
        cli.require(not cubeful, f"{cfg.agent} has no cube: play it without --match or --cube")
        cli.require(not cfg.weights, f"--weights is for a boardgym agent, not {cfg.agent}")
        return engine_agent(cfg.agent, cfg.seed + 1)
    name, kwargs = parse_spec(cfg.agent)
    if name == "gnubg":
        cli.require(set(kwargs) <= {"plies"}, f"gnubg takes one option, plies=N: {cfg.agent}")
        return gnubg_driver.GnubgAgent(kwargs.get("plies", 0), cubeful=cubeful)
    return _boardgym_agent(cfg, name, kwargs)


def _boardgym_agent(cfg, name, kwargs):
    """The boardgym agent name with its options kwargs (and --weights), which must rank
    afterstates."""
    from boardgym.agents import load

    if cfg.weights:
        kwargs["weights"] = cfg.weights
    agent = load(name, game="backgammon", **kwargs)
    cli.require_whole_plays(agent, cfg.agent, "--agent")
    return agent


def _main_money_gnubg(cfg):
    """--opponent gnubg without --match: duplicate-dice money games, cubeless or with the cube
    (--cube), against gnubg (scripts/gnubg_driver.py), luck-adjusted."""
    from boardgym.agents.arena.stats import format_money
    from boardgym.scripts import gnubg_driver

    agent = _gnubg_match_agent(cfg)
    opponent = gnubg_driver.GnubgAgent(cfg.gnubg_plies, cubeful=cfg.cube)
    analyst = _analyst(cfg, cfg.cube)
    luck = ("gnubg" if cfg.cube else default_luck()) if cfg.luck == "auto" else cfg.luck
    cli.require(luck != "none", "money games against gnubg need a luck judge: install gnubg-nn")
    judge = make_judge(luck)
    n_pairs = (cfg.games + 1) // 2
    t0 = time.perf_counter()
    bar = cli.Progress(
        2 * n_pairs, label="games", unit="games", enabled=False if cfg.quiet else None
    )
    with bar:
        rows = gnubg_driver.play_gnubg_money(
            agent,
            opponent,
            judge,
            n_pairs,
            cfg.seed,
            cfg.results or None,
            lambda rows: bar.set(len(rows)),
            cfg.cube,
            analyst,
            luck,
            cfg.cube_log or None,
            cfg.agent,
        )
    s = gnubg_driver.summarize_money_rows(rows)
    kind = "cubeful money" if cfg.cube else "cubeless money"
    print(
        f"{cfg.agent} vs gnubg {cfg.gnubg_plies}-ply, {kind} games, "
        f"{time.perf_counter() - t0:.0f} s, agent {s['agent_seconds_per_game']:.2f} s CPU a game"
    )
    print("  raw      " + format_money(s["raw"], kind))
    print(f"  adjusted (luck judge {luck}) " + format_money(s["adjusted"], kind))
    _print_analysis(cfg, s.get("analysis"), "games")
    return s


def _main_compare(cfg):
    """--compare A B: two agents' money results on the same dice, side by side."""
    from boardgym.agents.arena.stats import format_money
    from boardgym.scripts import gnubg_driver

    a, b = cfg.compare
    try:
        c = gnubg_driver.compare_money(a.split(","), b.split(","))
    except ValueError as e:
        raise cli.UsageError(str(e)) from None
    kind = "cubeful money" if c["cube"] == [1] else "cubeless money"
    left = f" (left out, held by one side only: {c['only_a']} of A's, {c['only_b']} of B's)"
    left = left if c["only_a"] + c["only_b"] else ""
    print(f"the dice pairs A and B both hold: {c['pairs']}{left}")
    print(f"  A {a}, adjusted: " + format_money(c["a"], kind))
    print(f"  B {b}, adjusted: " + format_money(c["b"], kind))
    lo, hi = c["diff_interval"]
    print(
        f"  B minus A, dice pair by dice pair: {c['diff']:+.3f} points/game "
        f"(95% [{lo:+.3f}, {hi:+.3f}], +-{(hi - lo) / 2:.3f})"
    )
    return c


def _analyst(cfg, cubeful):
    """The gnubg judge --analyse-plies, --analyse and --cube-log ask for (None: no analysis)."""
    from boardgym.scripts import gnubg_driver

    if cfg.analyse_plies < 0:
        return None
    return gnubg_driver.Analyst(
        cfg.analyse_plies, cubeful, checker=cfg.analyse == "all", keep=bool(cfg.cube_log)
    )


def _phases_text(phases):
    """The text '; contact 6.1 over 812, race ...' (mEMG per move over plays) of an analysis'
    checker_phases ('' without them)."""
    if not phases:
        return ""
    return "; " + ", ".join(
        f"{name} {'-' if p['memg'] is None else format(p['memg'], '.1f')} over {p['decisions']}"
        for name, p in phases.items()
    )


def _print_analysis(cfg, a, unit):
    """The analysis line of a summary's "analysis" (None: nothing to print)."""
    if not a:
        return
    cube = ""
    if a["cube_decisions"] or a["cube_unjudged"]:
        memg = "-" if a["cube_memg"] is None else f"{a['cube_memg']:.1f}"
        cube = (
            f", cube {memg} mEMG per decision ({a['cube_decisions']} decisions; "
            f"{a['cube_unjudged']} more where gnubg has no double, its cube being dead: the agent "
            f"doubled in {a['cube_unjudged_doubles']})"
        )
        if a["cube_memg_close"] is not None:
            cube += (
                f"; as gnubg's statistics count them: cube {a['cube_memg_close']:.1f} mEMG per "
                f"close or actual decision ({a['cube_close_decisions']})"
            )
            if a["overall_memg"] is not None:
                cube += f", overall {a['overall_memg']:.1f} mEMG per decision"
    checker = "-" if a["checker_memg"] is None else f"{a['checker_memg']:.1f}"
    checker = (
        f"checker play {checker} mEMG per move ({a['checker_decisions']} plays with a choice"
        + _phases_text(a.get("checker_phases"))
        + ")"
        if cfg.analyse == "all"
        else "cube decisions only"
    )
    print(
        f"  gnubg {'/'.join(map(str, a['plies']))}-ply analysis of {cfg.agent} over "
        f"{a[unit]} {unit}: {checker}{cube}"
    )


def _main_matches(cfg):
    """--match: duplicate-dice matches against gnubg (scripts/gnubg_driver.py)."""
    from boardgym.scripts import gnubg_driver

    agent = _gnubg_match_agent(cfg)
    opponent = gnubg_driver.GnubgAgent(cfg.gnubg_plies)
    analyst = _analyst(cfg, True)
    n_pairs = (cfg.games + 1) // 2
    t0 = time.perf_counter()
    bar = cli.Progress(
        2 * n_pairs, label="matches", unit="matches", enabled=False if cfg.quiet else None
    )

    def progress(rows):
        bar.set(len(rows))

    with bar:
        rows = gnubg_driver.play_gnubg_matches(
            agent,
            opponent,
            cfg.match,
            n_pairs,
            cfg.seed,
            cfg.results or None,
            progress,
            analyst,
            cfg.cube_log or None,
            cfg.agent,
        )
    s = gnubg_driver.summarize_matches(rows)
    wl, wh = s["wilson"]
    paired = (
        f"paired [{s['paired'][0]:.1%}, {s['paired'][1]:.1%}] over {s['paired_pairs']} dice pairs, "
        if s["paired"]
        else ""
    )
    print(
        f"{cfg.agent} vs gnubg {cfg.gnubg_plies}-ply, matches to {cfg.match}: won {s['won']} of "
        f"{s['matches']} = {s['rate']:.1%} (95% {paired}Wilson [{wl:.1%}, {wh:.1%}]), "
        f"{s['games_per_match']:.1f} games a match, agent {s['agent_seconds_per_match']:.1f} s "
        f"CPU a match, {time.perf_counter() - t0:.0f} s"
    )
    _print_analysis(cfg, s.get("analysis"), "matches")
    return s


if __name__ == "__main__":
    cli.script_main(main)
