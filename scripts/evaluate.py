"""Evaluate agents against each other in the AEC envs: a match, or a round-robin with an Elo table.

    boardgym evaluate draughts-greedy random --game draughts --games 4
    boardgym evaluate backgammon-td random --game backgammon --games 4
    boardgym evaluate alphabeta-material:depth=4 greedy random --games 100
    boardgym evaluate draughts-alphabeta-material:depth=6,time_limit=0.2 draughts-greedy
    boardgym evaluate draughts-ppo:path=runs/draughts-ppo/ppo.zip draughts-greedy --games 100
    boardgym evaluate backgammon-td gnubg0 pubeval --game backgammon --games 200
    boardgym evaluate backgammon-td backgammon-greedy --match 7 --games 20

Agents are ``boardgym.agents.registry.load_spec`` specs: a registry name or a checkpoint path
with optional keyword options after a colon (``name:key=value,key=value``; values are
none/true/false, Python literals, else strings); ``--game`` defaults to the game the agents'
names give (``draughts-...``, ``backgammon-...``, an ``.npz`` checkpoint's), else draughts. For
backgammon also the external engines ``pubeval`` and ``gnubg0`` (GNU Backgammon's net at 0-ply)
of the optional ``gnubg-nn`` package (GPL-3: loaded through scripts/eval_gnubg.py, never by the
library). Every pair plays
``--games`` games (rounded up to even): each opening twice with the colours swapped. Draughts
openings are ``--opening-min``..``--opening-max`` random whole moves from a generator seeded by
``--seed``; backgammon games of a pair share ``reset(seed)``, i.e. the same dice for both colour
orders. Agents with ``act_state`` get the env's kernel state (full history); the others, or all
with ``--observation-only``, get ``act(observation, action_mask)``; two backgammon agents that
choose whole plays (``AfterstateAgent``s, the engines included) play the same games through the
game core's afterstate loop. A game that reaches ``--max-moves`` (plies for draughts, turns for
backgammon) is a draw. Matches are played by ``boardgym.agents.arena.matches`` and summarised by
``boardgym.agents.arena.stats``. On a terminal a progress bar (games, rate, ETA) runs on stderr.

Prints per pair: wins/draws/losses of the first agent, points per game, score with a Wilson 95%
interval, and the Elo difference (with the interval's Elo bounds); with three or more agents a
round-robin Elo table (maximum likelihood, a virtual draw per pair as a prior, mean 0) with 95%
intervals from the observed Fisher information (``elo_intervals``). ``--plot out.png`` draws the
Elo ratings with their intervals (three or more agents) or the pair's score with its Wilson
interval (two agents).

Backgammon pairs also print the gammon and backgammon rates of both sides, over all games and
per seat of the first agent.

``--cube`` plays backgammon money games with the doubling cube (``evaluation.play_cube_match``):
each agent answers the cube by its own cube policy, and the pair's points per game are
printed with a paired 95% interval (``stats.summarize_money``):

    boardgym evaluate backgammon-td:cube=janowski backgammon-td --cube --games 1000 --seed 1

``--match N`` plays backgammon matches to N points with the cube (``evaluation.
play_point_matches``), each agent told the score before each game; each
dice seed is played twice with the seats swapped, and the first agent's match wins are printed
with their Wilson interval.

With ``--luck td`` too, each roll's luck is counted times the cube value it was rolled at (a
finished game's exact value per cube unit, as the judge's equities are) and the luck-adjusted
points per game are printed as well.

``--luck td`` (backgammon, agents that choose whole plays) judges every roll's luck with the
shipped TD net (``evaluation.play_adjusted_match``, ``stats.luck_summary``) and prints, per pair,
the raw and the luck-adjusted points per game with their 95% intervals and per-game standard
deviations:

    boardgym evaluate backgammon-td backgammon-greedy --games 200 --luck td

``--save games.sqlite`` keeps every game played (its players, seed, moves, result and record)
in a game archive (``boardgym archive`` lists and exports it; the file the web board and
``boardgym play`` use is ``~/.local/share/boardgym/archive.sqlite``). The games then go through
the AEC env, which plays the same games as the afterstate loop (not with ``--luck``).

Learning curves of training runs (no agents are played):

    boardgym evaluate --curve runs/td80 runs/td40 --plot curve.png
    boardgym evaluate --curve runs/td80 --x seconds --y win_rate --plot curve.png

reads each ``RUN_DIR/metrics.jsonl`` written by ``boardgym train`` (one JSON object per
evaluation: ``games``, optional ``steps``, ``seconds``, and per opponent ``{"ppg", "ci95",
"win_rate"}``), prints each run's last and best value per opponent and draws, one panel per
opponent, every run's value against training progress with its 95% interval as a band (ppg:
ci95 = [low, high], or ppg +- ci95 in files from before the interval became a pair; for win_rate
a Wilson interval when the opponent entry has a ``games`` count, else none).
"""

import dataclasses
import math
import os
import time
from typing import Literal

import numpy as np

from boardgym.agents import registry
from boardgym.agents.arena import archive as archives
from boardgym.agents.arena import matches as evaluation
from boardgym.agents.arena.matches import GAMES, random_opening, summarize  # noqa: F401 (script API)
from boardgym.agents.arena.sessions import archive_row, replayed
from boardgym.agents.arena.stats import (
    elo_intervals,
    format_elo,
    format_luck,
    format_money,
    luck_summary,
    result_rates,
    summarize_money,
)
from boardgym.agents.backgammon.luck import td_judge
from boardgym.agents.training.run_log import curve_series, read_metrics
from boardgym.scripts import cli


@dataclasses.dataclass
class Settings:
    """Settings of one evaluation run."""

    agents: list[str] = dataclasses.field(default_factory=list, metadata={"positional": True})
    """two or more agent specs: a registry name or checkpoint path with optional
    ':key=value,...' options (draughts-greedy, backgammon-td, alphabeta-material:depth=4,
    random, ...)"""
    game: Literal["draughts", "backgammon"] | None = None
    """game to play; none: the game the agents' names give (draughts-..., backgammon-...),
    else draughts"""
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
    cube: bool = False
    """backgammon money games with the doubling cube: each agent answers the cube by
    its own policy (backgammon-td:cube=janowski, ...); points per game with a paired interval"""
    match: int = 0
    """backgammon matches to this many points (1..64) with the cube instead of single games:
    --games counts matches; each agent is told the score before each game"""
    luck: Literal["td", "none"] = "none"
    """backgammon luck adjustment: td judges every roll with the shipped TD net and prints the
    luck-adjusted points per game beside the raw ones (needs two agents that choose whole plays)"""
    quiet: bool = False
    """print only the summary (no progress lines or bar)"""
    curve: list[str] = dataclasses.field(default_factory=list)
    """run directories whose metrics.jsonl to read; when given, only the learning curve is made
    (agents are not played)"""
    x: Literal["games", "steps", "seconds"] = "games"
    """learning curve x axis (a key of every metrics.jsonl line)"""
    y: Literal["ppg", "win_rate"] = "ppg"
    """learning curve y axis: ppg (points per game with its ci95 interval) or win_rate"""
    plot: str = ""
    """PNG to write: the learning curve (--curve), the Elo chart (3+ agents) or the pair's score"""
    save: str | None = None
    """keep every game played in this game archive (SQLite, created on first use; boardgym
    archive lists and exports it); none: the games are not kept"""

    def __post_init__(self):
        if self.game is None and self.agents:
            self.game = infer_game(self.agents)

    def check(self):
        """ValueError naming the first bad setting."""
        if self.curve:
            cli.require(
                not self.agents, "give agents to play or --curve RUN_DIR ... to plot, not both"
            )
            cli.require(
                self.x in X_LABELS, f"unknown --x {self.x!r}; expected one of {sorted(X_LABELS)}"
            )
            cli.require(
                self.y in Y_LABELS, f"unknown --y {self.y!r}; expected one of {sorted(Y_LABELS)}"
            )
            return
        cli.require(
            len(self.agents) >= 2,
            "give at least two agents to play, or --curve "
            "RUN_DIR ... to plot a training run's learning curve",
        )
        cli.require(
            self.game in GAMES, f"unknown game {self.game!r}; expected one of {sorted(GAMES)}"
        )
        cli.require(self.games >= 1, f"--games must be positive, got {self.games}")
        cli.require(
            0 <= self.opening_min <= self.opening_max,
            f"need 0 <= --opening-min <= --opening-max, got {self.opening_min} and "
            f"{self.opening_max}",
        )
        cli.require(self.max_moves >= 1, f"--max-moves must be positive, got {self.max_moves}")
        cli.require(
            self.luck == "none" or self.game == "backgammon",
            f"--luck {self.luck} is for backgammon, not {self.game}",
        )
        cli.require(
            not self.cube or self.game == "backgammon", f"--cube is for backgammon, not {self.game}"
        )
        cli.require(
            not self.match or self.game == "backgammon",
            f"--match is for backgammon, not {self.game}",
        )
        cli.require(0 <= self.match <= 64, f"--match must be 1..64 points, got {self.match}")
        cli.require(
            not (self.match and (self.cube or self.luck != "none")),
            "--match plays matches with the cube already; --cube and --luck are for single games",
        )
        cli.require(
            self.luck == "none" or not self.observation_only,
            "--luck needs agents that choose whole plays, not --observation-only",
        )
        cli.require(
            self.save is None or self.luck == "none",
            "--save keeps games played through the env; --luck plays them through the afterstate "
            "loop: give one of them",
        )
        for spec in self.agents:
            agent = make_agent(spec, self.game, 0)  # fails early on a bad name or option
            if self.match:
                cli.require_whole_plays(agent, spec, "--match")


def infer_game(specs):
    """The game the agent specs name (registry.spec_game: "draughts-..." / "backgammon-...", an
    .npz checkpoint's; the engines pubeval and gnubg0 are backgammon's), draughts when none
    names one; ValueError when they name both."""
    named = set()
    for spec in specs:
        game = "backgammon" if parse_spec(spec)[0] in EXTERNAL else registry.spec_game(spec)
        named |= {game} - {None}
    if len(named) > 1:
        raise cli.UsageError(f"the agents {' '.join(specs)} are of different games")
    return named.pop() if named else "draughts"


# ---- agents and games -----------------------------------------------------------------------
parse_spec = registry.parse_spec  # (name, kwargs) of 'name:key=value,...' (script API)
EXTERNAL = ("pubeval", "gnubg0")  # backgammon engines of gnubg-nn (scripts/eval_gnubg.py; GPL-3)


def _external(name, game):
    """pubeval / gnubg0 as an agent, from the evaluation script eval_gnubg.py (never library
    code)."""
    if game != "backgammon":
        raise ValueError(f"{name} is a backgammon engine, not a {game} agent")
    from boardgym.scripts import eval_gnubg

    return eval_gnubg.engine_agent(name)


def make_agent(spec, game, seed):
    """A fresh agent of spec (registry.load_spec, or an external engine) for game, seeded with
    seed unless the spec gives one."""
    name = parse_spec(spec)[0]
    if name in EXTERNAL:
        return _external(name, game)
    return registry.load_spec(spec, game, seed=seed)


def make_env(cfg):
    """The raw AEC env of cfg.game capped at cfg.max_moves
    (boardgym.agents.arena.matches.make_env)."""
    return evaluation.make_env(cfg.game or infer_game(cfg.agents), cfg.max_moves)


def keeper(cfg, store, spec_a, spec_b, log=print):
    """matches.play_match's keep: each game of A against B written to the archive store (its
    players, seed, actions, result and record); an archive that fails is said once."""
    said = set()

    def keep(pair, seat, seed, actions):
        names = (spec_a, spec_b) if seat == 0 else (spec_b, spec_a)
        game = replayed(cfg.game, names, actions, seed, cfg.cube, cfg.max_moves)
        settings = {
            "agents": list(names),
            "pair": pair,
            "seed": seed,
            "cube": cfg.cube,
            "max_moves": cfg.max_moves,
        }
        recorder = archives.Recorder(store)
        recorder.save(archive_row(game, "evaluate", settings))
        if recorder.problem and recorder.problem not in said:
            said.add(recorder.problem)
            log(f"note: {recorder.problem}")

    return keep


def play_pair(cfg, spec_a, spec_b, pair_seed, log=print, bar=None, judge=None, keep=None):
    """Points of A in each game of A against B (boardgym.agents.arena.matches.play_match: each
    opening with both colour orders), with progress lines unless cfg.quiet; bar: a cli.Progress
    counting games. With a luck judge: (points, luck) of evaluation.play_adjusted_match. keep:
    called after each game (play_match's keep)."""
    a = make_agent(spec_a, cfg.game, pair_seed)
    b = make_agent(spec_b, cfg.game, pair_seed + 1)
    n_pairs = evaluation.pair_count(cfg.games)
    t0 = time.perf_counter()

    def progress(points, luck=None):
        k = len(points) // 2
        if bar is not None:
            bar.update(2)
        # every fifth of the pairs, but not at the end: the summary line says it then
        if not cfg.quiet and k % max(1, n_pairs // 5) == 0 and k < n_pairs:
            if bar is not None and bar.enabled:
                bar.clear()
            score = (
                f"points/game {points.mean():+.3f}"
                if cfg.cube
                else f"matches won {(points > 0).mean():.3f}"
                if cfg.match
                else f"score {summarize(points, cfg.game)['score']:.3f}"
            )
            log(
                f"  {spec_a} v {spec_b}: {len(points)} games, {score}, "
                f"{time.perf_counter() - t0:.1f} s"
            )

    if cfg.match:
        return evaluation.play_point_matches(
            a, b, cfg.match, cfg.games, pair_seed, cfg.max_moves, progress
        )
    if cfg.cube and judge is None:
        return evaluation.play_cube_match(
            a, b, cfg.games, pair_seed, cfg.max_moves, progress, keep=keep
        )
    if judge is not None:
        return evaluation.play_adjusted_match(
            a, b, judge, cfg.games, pair_seed, cfg.max_moves, progress, cube=cfg.cube
        )
    return evaluation.play_match(
        a,
        b,
        cfg.game,
        cfg.games,
        pair_seed,
        (cfg.opening_min, cfg.opening_max),
        cfg.max_moves,
        cfg.observation_only,
        progress,
        keep=keep,
    )


RESULT_NAMES = {1: "single", 2: "gammon", 3: "backgammon"}


def format_results(results):
    """'wins 12 single, 5 gammon; losses 9 single' when some games scored more than one point."""
    if all(abs(v) <= 1 for v in results):
        return ""
    parts = []
    for sign, word in ((1, "wins"), (-1, "losses")):
        items = [
            f"{results[v]} {RESULT_NAMES.get(int(abs(v)), f'{abs(v):g}-point')}"
            for v in sorted(results, key=abs)
            if v * sign > 0
        ]
        if items:
            parts.append(f"{word} " + ", ".join(items))
    return "  (" + "; ".join(parts) + ")"


def format_summary(spec_a, spec_b, s):
    lo, hi = s["score_interval"]
    plo, phi = s["ppg_interval"]
    elo_lo, elo_hi = s["elo_interval"]
    return (
        f"{spec_a} v {spec_b}: {s['games']} games  +{s['wins']} ={s['draws']} -{s['losses']}"
        f"{format_results(s['results'])}  "
        f"points/game {s['points_per_game']:+.3f} [{plo:+.3f}, {phi:+.3f}]  "
        f"score {s['score']:.3f} [{lo:.3f}, {hi:.3f}]  "
        f"Elo {format_elo(s['elo'], elo_lo, elo_hi)}"
    )


def format_rates(spec_a, spec_b, rates):
    """Lines of the gammon and backgammon rates of both sides (all games, and with the first
    agent as player_0 / player_1); rates: {"all"/"seat0"/"seat1": stats.result_rates}."""
    lines = []
    for label, side in ((spec_a, "won"), (spec_b, "lost")):
        parts = []
        for kind, word in ((2, "gammons"), (3, "backgammons")):
            r = {k: v[side][kind] for k, v in rates.items()}
            parts.append(
                f"{word} {r['all']:.1%} (A as player_0 {r['seat0']:.1%}, "
                f"as player_1 {r['seat1']:.1%})"
            )
        lines.append(f"  {label} won: " + ", ".join(parts))
    return "\n".join(lines)


# ---- learning curves ------------------------------------------------------------------------
X_LABELS = {"games": "self-play games", "steps": "environment steps", "seconds": "wall time (s)"}
Y_LABELS = {"ppg": "points per game", "win_rate": "win rate"}


def run_labels(run_dirs):
    """Short legend names of run directories: the last path component, the path if ambiguous."""
    names = [os.path.basename(os.path.normpath(d)) or d for d in run_dirs]
    return [n if names.count(n) == 1 else os.path.normpath(d) for n, d in zip(names, run_dirs)]


def format_curve(label, path, series, x, y):
    """Text lines: per opponent the last and the best value with their intervals."""
    n = max(len(a) for a in series.values())
    lines = [f"{label} ({path}, {n} evaluations):"]
    for name, a in series.items():
        last, best = a[-1], a[np.argmax(a[:, 1])]

        def fmt(r):
            v = "+.3f" if y == "ppg" else ".3f"
            band = "" if math.isnan(r[2]) else f" [{r[2]:{v}}, {r[3]:{v}}]"
            at = f"{r[0]:.0f}" if r[0] == int(r[0]) else f"{r[0]:.1f}"
            return f"{r[1]:{v}}{band} at {x} {at}"

        lines.append(f"  vs {name}: {y} last {fmt(last)}; best {fmt(best)}")
    return lines


# ---- plots (matplotlib imported only here, Agg canvas: no display needed) -----------------
def _figure(width, height):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path):
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fig.savefig(path, format="png")
    return path


def plot_curves(curves, x, y, path):
    """PNG of learning curves; curves: {run label: {opponent: curve_series array}}. Returns path."""
    opponents = list(dict.fromkeys(o for series in curves.values() for o in series))
    fig = _figure(5.5 * len(opponents) + 1.0, 4.5)
    axes = fig.subplots(1, len(opponents), squeeze=False)[0]
    interval = {"ppg": "95% interval", "win_rate": "95% Wilson interval where known"}[y]
    for ax, opp in zip(axes, opponents):
        for k, (label, series) in enumerate(curves.items()):
            if opp not in series:
                continue
            a = series[opp]
            colour = f"C{k % 10}"
            ax.plot(a[:, 0], a[:, 1], marker="o", markersize=3, color=colour, label=label)
            if np.isfinite(a[:, 2]).any():
                ax.fill_between(a[:, 0], a[:, 2], a[:, 3], color=colour, alpha=0.25, linewidth=0)
                ax.errorbar(
                    a[:, 0],
                    a[:, 1],
                    yerr=[a[:, 1] - a[:, 2], a[:, 3] - a[:, 1]],
                    fmt="none",
                    ecolor=colour,
                    elinewidth=0.8,
                    capsize=2,
                )
        ax.set_title(f"vs {opp}")
        ax.set_xlabel(X_LABELS[x])
        ax.set_ylabel(f"{Y_LABELS[y]} ({interval})")
        ax.grid(alpha=0.3)
        ax.legend(title="run", fontsize="small")
    fig.suptitle(
        f"learning curve: {Y_LABELS[y]} against fixed opponents, runs " + ", ".join(curves)
    )
    fig.tight_layout()
    return _save(fig, path)


def plot_elo(names, elo, low, high, title, path):
    """PNG of round-robin Elo ratings as points with horizontal 95% interval bars. Returns path."""
    order = np.argsort(elo)  # strongest at the top
    fig = _figure(8.0, 1.2 + 0.5 * len(names))
    ax = fig.subplots()
    pos = np.arange(len(names))
    e, lo, hi = elo[order], low[order], high[order]
    ax.errorbar(e, pos, xerr=[e - lo, hi - e], fmt="o", color="C0", ecolor="C0", capsize=4)
    ax.axvline(0.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_yticks(pos, [names[i] for i in order])
    ax.set_xlabel("Elo (mean 0); bars: 95% interval from the observed Fisher information")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return _save(fig, path)


def plot_pair(spec_a, spec_b, s, title, path):
    """PNG of one pair's score (draws 1/2) with its Wilson 95% interval. Returns path."""
    fig = _figure(8.0, 2.4)
    ax = fig.subplots()
    lo, hi = s["score_interval"]
    ax.errorbar(
        [s["score"]],
        [0],
        xerr=[[s["score"] - lo], [hi - s["score"]]],
        fmt="o",
        color="C0",
        capsize=6,
    )
    ax.axvline(0.5, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlim(-0.02, 1.02)
    ax.set_yticks([0], [f"{spec_a}\nv {spec_b}"])
    ax.set_xlabel(
        f"score of {spec_a} (draws 1/2), 95% Wilson interval; "
        f"+{s['wins']} ={s['draws']} -{s['losses']}"
    )
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return _save(fig, path)


def run_curves(cfg):
    """Learning-curve mode: read every run, print the summary, draw --plot if given."""
    loaded = [(d, *read_metrics(d)) for d in cfg.curve]
    curves, paths = {}, {}
    for label, (_run_dir, path, records) in zip(run_labels(cfg.curve), loaded):
        curves[label] = curve_series(path, records, cfg.x, cfg.y)
        paths[label] = path
        print("\n".join(format_curve(label, path, curves[label], cfg.x, cfg.y)))
    plots = [plot_curves(curves, cfg.x, cfg.y, cfg.plot)] if cfg.plot else []
    for p in plots:
        print(f"wrote {p}")
    return {"curves": curves, "metrics": paths, "plots": plots}


# ---- command line ---------------------------------------------------------------------------
def main(args=None):
    """Run with Settings or a list of command-line strings; return a dict of results.

    results["pairs"][(i, j)] is the summary of agents[i] against agents[j] (i < j), with
    --luck td also its stats.luck_summary under "luck", for backgammon its gammon and
    backgammon rates under "rates" ({"all", "seat0", "seat1"}: stats.result_rates of the first
    agent's points); with --cube the summary is stats.summarize_money's;
    results["elo"] the round-robin ratings (in agents order) and results["elo_interval"] their
    95% (low, high) when there are three or more; results["plots"] the PNG paths written.
    With --curve: results["curves"][run label][opponent] is curve_series' array,
    results["metrics"][run label] the file read, results["plots"] as above.
    """
    cfg = cli.settings(Settings, args, prog="boardgym evaluate", description=__doc__)
    if cfg.curve:
        return run_curves(cfg)
    k = len(cfg.agents)
    points = np.zeros((k, k))
    games = np.zeros((k, k))
    pairs = {}
    t0 = time.perf_counter()
    judge = td_judge() if cfg.luck == "td" else None
    store = None if cfg.save is None else archives.Archive(cfg.save)
    total = k * (k - 1) // 2 * 2 * evaluation.pair_count(cfg.games)
    with cli.Progress(
        total, label="games", unit="games", enabled=False if cfg.quiet else None
    ) as bar:
        for i in range(k):
            for j in range(i + 1, k):
                res = play_pair(
                    cfg,
                    cfg.agents[i],
                    cfg.agents[j],
                    cfg.seed + 1000 * (i * k + j),
                    bar=bar,
                    judge=judge,
                    keep=None
                    if store is None
                    else keeper(cfg, store, cfg.agents[i], cfg.agents[j]),
                )
                if judge is not None:
                    res, luck = res
                s = (
                    summarize_money(res)
                    if cfg.cube
                    else summarize(res, "draughts" if cfg.match else cfg.game)
                )
                if judge is not None and cfg.cube:
                    s["luck"] = summarize_money(res - luck)
                elif judge is not None:
                    s["luck"] = luck_summary(res, luck, *GAMES[cfg.game].points_range)
                pairs[(i, j)] = s
                points[i, j] = s["wins"] + 0.5 * s["draws"]
                points[j, i] = s["losses"] + 0.5 * s["draws"]
                games[i, j] = games[j, i] = s["games"]
                if bar.enabled:
                    bar.clear()
                if cfg.cube:
                    print(f"{cfg.agents[i]} v {cfg.agents[j]}: {format_money(s)}", flush=True)
                else:
                    print(format_summary(cfg.agents[i], cfg.agents[j], s), flush=True)
                if cfg.match:
                    print(
                        f"  matches to {cfg.match}: won {s['wins']} of {s['games']}, "
                        f"rate {s['score']:.1%} (95% [{s['score_interval'][0]:.1%}, "
                        f"{s['score_interval'][1]:.1%}])",
                        flush=True,
                    )
                elif cfg.game == "backgammon" and not cfg.cube:
                    s["rates"] = {
                        "all": result_rates(res),
                        "seat0": result_rates(res[0::2]),
                        "seat1": result_rates(res[1::2]),
                    }
                    print(format_rates(cfg.agents[i], cfg.agents[j], s["rates"]), flush=True)
                if judge is not None and cfg.cube:
                    print(
                        f"  luck-adjusted (judge {cfg.luck}, luck x cube value): "
                        f"{format_money(s['luck'])}",
                        flush=True,
                    )
                elif judge is not None:
                    print(format_luck(s["luck"], cfg.luck), flush=True)
    results = {"pairs": pairs, "time": time.perf_counter() - t0, "plots": []}
    n_pair = pairs[(0, 1)]["games"]
    what = f"matches to {cfg.match}" if cfg.match else "games"
    title = f"{cfg.game}, {n_pair} {what} per pair, seed {cfg.seed}"
    if k >= 3:
        elo, low, high = elo_intervals(points, games)
        results["elo"] = elo
        results["elo_interval"] = (low, high)
        print(f"\nround-robin Elo ({title}; 95% intervals, observed Fisher information):")
        for r in np.argsort(-elo):
            score = points[r].sum() / games[r].sum()
            print(
                f"  {elo[r]:+7.0f} [{low[r]:+6.0f}, {high[r]:+6.0f}]  {cfg.agents[r]:<40} "
                f"score {score:.3f}"
            )
        if cfg.plot:
            results["plots"].append(
                plot_elo(cfg.agents, elo, low, high, f"round-robin Elo: {title}", cfg.plot)
            )
    elif cfg.plot:
        results["plots"].append(
            plot_pair(
                cfg.agents[0],
                cfg.agents[1],
                pairs[(0, 1)],
                f"match: {cfg.game}, {n_pair} games, seed {cfg.seed}",
                cfg.plot,
            )
        )
    for path in results["plots"]:
        print(f"wrote {path}")
    print(f"time {results['time']:.1f} s")
    if store is not None:
        print(f"kept {store.count(source='evaluate')} games in {store.path}")
        store.close()
    return results


if __name__ == "__main__":
    cli.script_main(main)
