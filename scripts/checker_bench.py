"""Backgammon checker plays compared where agents differ, judged by GNU Backgammon.

    boardgym checker-bench backgammon-td:plies=1 backgammon-td --games 120 --seed 9100
    boardgym checker-bench backgammon-td "backgammon-td:candidates2=8,threshold2=0.16" \\
        --judge-plies 3 --cache judged.json

The positions: every roll of ``--games`` cubeless money games of ``--net`` (the shipped net
alone by default) against itself, on the dice of seeds ``--seed``, ``--seed`` + 1, ...
(``game_loop.play_afterstate_game``), that has two or more distinct plays; every ``--every``-th
of them is kept. Each agent chooses its play in each position. Where the agents do not all choose
the same play, GNU Backgammon values each play chosen at ``--judge-plies`` (its cubeless money
equity of the position after the play, the opponent on roll, for the player who played; a play
that ends the game is worth its points, 1, 2 or 3). An agent's figure is the mean over all the
positions of its play's value minus the first agent's (0 where they agree), in mEMG (equity per
decision x 1000) with a 95% interval over the positions (``agents.arena.stats.rate_interval``):
a paired comparison that spends the judge's time only on the decisions where they differ, so a
change of net or search is screened in minutes where matches take hours.

Prints per agent its CPU time a decision (mean and most, after ``WARM_UP`` decisions made once
untimed: a kernel's first compile is not counted) and, for each agent after the first, the
decisions where its play is not the first's and its gain over the first. ``--cache FILE`` keeps
the judge's values (by position and play, for ``--judge-plies``) so that a later run on the same
positions values only the plays not judged before; the file is replaced whole, never left half
written. GNU Backgammon is the judge only (GPL-3, evaluation only: this command, not the library).
"""

import dataclasses
import hashlib
import json
import os
import time
from dataclasses import field

import numpy as np

from boardgym.scripts import cli

#: decisions each agent makes once, untimed, before its timed pass (the kernels' first calls)
WARM_UP = 4
#: plays judged between two writes of --cache
SAVE_EVERY = 200


@dataclasses.dataclass
class Settings:
    """Compare backgammon agents' checker plays where they differ, judged by GNU Backgammon."""

    agents: list[str] = field(default_factory=list, metadata={"positional": True})
    """agent specs (two or more; the first is the baseline the others are compared with)"""
    games: int = 120
    """self-play games of --net whose rolls are the positions"""
    seed: int = 9100
    """the dice seed of the first game (game g plays seed + g)"""
    every: int = 2
    """keep every this-many-th position with two or more plays"""
    net: str = "backgammon-td:plies=0"
    """the agent that plays the games the positions come from (both sides)"""
    judge_plies: int = 3
    """GNU Backgammon's evaluation depth (0..4) for the plays where the agents differ"""
    cache: str = ""
    """a JSON file of judged plays, read and extended (empty: none)"""

    def check(self):
        cli.require(len(self.agents) >= 2, "give two or more agents to compare")
        cli.require(self.games > 0, f"--games must be positive, got {self.games}")
        cli.require(self.seed >= 0, f"--seed must be >= 0, got {self.seed}")
        cli.require(self.every >= 1, f"--every must be >= 1, got {self.every}")
        cli.require(
            0 <= self.judge_plies <= 4, f"--judge-plies must be 0..4, got {self.judge_plies}"
        )
        where = os.path.dirname(os.path.abspath(self.cache))
        cli.require(
            not self.cache or os.path.isdir(where), f"--cache {self.cache}: no directory {where}"
        )


def _agent(spec, flag=""):
    """The agent of spec (flag: the option it came from, named in a refusal; none for the
    positional agents, whose message names the spec itself)."""
    from boardgym.agents.registry import load_spec

    try:
        agent = load_spec(spec, "backgammon", seed=0)
    except (TypeError, ValueError) as e:
        raise cli.UsageError(f"{flag or spec}: {e}") from None
    cli.require_whole_plays(agent, spec, flag)
    return agent


def positions(net, games, seed, every):
    """The rolled positions (int64[m, STATE_LEN], mover's view, its dice set) with two or more
    distinct plays of games self-play games of net (an AfterstateAgent) on dice seeds seed,
    seed + 1, ...; every every-th of them."""
    from boardgym.agents.backgammon.game_loop import play_afterstate_game
    from boardgym.kernels.backgammon import game
    from boardgym.kernels.backgammon.board import STATE_LEN

    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    keep = []
    for g in range(games):
        rolls = []
        play_afterstate_game(net, net, seed + g, rolls=rolls)
        keep += [s for s in rolls if game.afterstates(s, rows) >= 2]
    return np.array(keep[::every], dtype=np.int64).reshape(-1, STATE_LEN)


def choices(agent, states):
    """agent's chosen play (index into game.afterstates of each state) and its CPU seconds for
    each of states -> (int64[m], float64[m])."""
    from boardgym.kernels.backgammon import game
    from boardgym.kernels.backgammon.board import STATE_LEN

    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    for s in states[:WARM_UP]:
        agent.choose(rows[: game.afterstates(s, rows)])
    picks = np.empty(len(states), dtype=np.int64)
    secs = np.empty(len(states))
    for i, s in enumerate(states):
        n = game.afterstates(s, rows)
        t0 = time.process_time()
        picks[i] = agent.choose(rows[:n])
        secs[i] = time.process_time() - t0
    return picks, secs


def play_key(state, row):
    """The cache's key of the play row (an afterstate) from the rolled position state."""
    return hashlib.sha1(state.tobytes() + row.tobytes()).hexdigest()


def read_cache(path, plies):
    """{key: value} of the judged plays in path (none when path is empty or not there yet);
    UsageError when the file is not a cache of this command or was judged at other plies."""
    if not path or not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        values, got = data["values"], data["judge_plies"]
        assert isinstance(values, dict) and all(isinstance(v, float) for v in values.values())
    except (OSError, ValueError, KeyError, TypeError, AssertionError):
        raise cli.UsageError(f"--cache {path}: not a checker-bench cache") from None
    cli.require(got == plies, f"--cache {path} holds plays judged at {got} plies, not {plies}")
    return values


def write_cache(path, plies, values):
    """Replace path by the cache of values judged at plies (a temporary file renamed over it)."""
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"judge_plies": plies, "values": values}, f)
    os.replace(tmp, path)


def judge(states, picks, plies, cache, save=None):
    """Values (float64[agents, m]) of each agent's play in each position for the player who
    played, where the picks (int64[agents, m]) differ (0 where all agree): GNU Backgammon's
    cubeless money equity at plies, or the points of a play that ends the game; cache (dict by
    play_key) is read and extended; save() is called every SAVE_EVERY new values."""
    from boardgym.kernels.backgammon import game
    from boardgym.kernels.backgammon.board import OFF_ME, STATE_LEN
    from boardgym.scripts.gnubg_driver import play_equities

    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    values = np.zeros(picks.shape)
    new = 0
    for i in np.flatnonzero((picks != picks[0]).any(axis=0)):
        game.afterstates(states[i], rows)
        ks = sorted(set(picks[:, i].tolist()))
        keys = {k: play_key(states[i], rows[k]) for k in ks}
        live = [k for k in ks if keys[k] not in cache and rows[k, OFF_ME] < 15]
        for k in ks:
            if rows[k, OFF_ME] == 15:
                _, kind, _ = game.result(game.pass_turn(rows[k]), game.SCORING_GAMMON)
                cache[keys[k]] = float(kind)
        if live:
            eq = play_equities(states[i], rows[live], (0, 0, 0, False), plies, cubeful=False)
            for k, e in zip(live, eq):
                cache[keys[k]] = float(e)
            new += len(live)
            if save is not None and new >= SAVE_EVERY:
                save()
                new = 0
        for c in range(picks.shape[0]):
            values[c, i] = cache[keys[int(picks[c, i])]]
    return values


def main(args=None):
    """Compare the agents' plays on the positions -> {spec: summary}."""
    from boardgym.agents.arena.stats import rate_interval

    cfg = cli.settings(Settings, args, prog="boardgym checker-bench", description=__doc__)
    from boardgym.scripts.gnubg_driver import gnubg_module

    gnubg_module(cfg.judge_plies)  # the judge first: without gnubg, say so before any work
    agents = [_agent(spec) for spec in cfg.agents]
    cache = read_cache(cfg.cache, cfg.judge_plies)
    states = positions(_agent(cfg.net, "--net"), cfg.games, cfg.seed, cfg.every)
    cli.require(len(states), "the games gave no position with two or more plays")
    picks, secs = zip(*(choices(a, states) for a in agents))
    picks = np.array(picks)
    differ = int((picks != picks[0]).any(axis=0).sum())
    print(
        f"{len(states)} positions from {cfg.games} games of {cfg.net} (seeds {cfg.seed}-"
        f"{cfg.seed + cfg.games - 1}, every {cfg.every}); the agents differ on {differ}, "
        f"judged by GNU Backgammon at {cfg.judge_plies} plies",
        flush=True,
    )

    def save():
        if cfg.cache:
            write_cache(cfg.cache, cfg.judge_plies, cache)

    values = judge(states, picks, cfg.judge_plies, cache, save)
    save()
    results = {}
    for c, spec in enumerate(cfg.agents):
        s = {
            "positions": len(states),
            "ms_mean": 1000 * float(np.mean(secs[c])),
            "ms_max": 1000 * float(np.max(secs[c])),
            "values": values[c],
        }
        line = f"{spec}: {s['ms_mean']:.1f} CPU-ms a decision (at most {s['ms_max']:.0f})"
        if c:
            s["differ"] = int((picks[c] != picks[0]).sum())
            s["gain"] = rate_interval(1000 * (values[c] - values[0]), len(states))
            g, lo, hi = s["gain"]
            line += (
                f"; plays otherwise than {cfg.agents[0]} in {s['differ']} of {len(states)}: "
                f"{g:+.3f} mEMG a decision [{lo:+.3f}, {hi:+.3f}]"
            )
        print(line, flush=True)
        results[spec] = s
    return results


if __name__ == "__main__":
    cli.script_main(main)
