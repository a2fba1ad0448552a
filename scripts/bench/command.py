"""Benchmarks of boardgym, side by side with the peers that are installed.

    boardgym bench                           # every target, quick budget (under a minute)
    boardgym bench all --full                # the budgets BENCHMARKS.md reports
    boardgym bench movegen search --game draughts
    boardgym bench movegen --start-depth 10  # one target: its own options
    boardgym bench envs --help               # a target's options

Targets (one target takes its own options; several, or all, take the options below):
  movegen  move generation and perft against py-draughts, gnubg-nn, gym-backgammon
  envs     environment steps/s against PettingZoo chess / connect four, OpenSpiel (--batched: Pgx)
  search   the draughts alpha-beta search, nodes/s
  timeuse  the draughts engines' wall time per move in games at a fixed budget (frozen and today's)
  tactics  the share of the draughts tactics suites the engines solve in 0.1 s (frozen and today's)
  endgame  won endgame-table positions the draughts engine converts and drawn ones it holds, with
           and without its tables (needs the tables: boardgym egdb build)
  rllib    RLlib sampling throughput (needs Ray: pip install "boardgym[ray]", its own venv)
  coldstart  first use with an empty Numba cache: import -> first finished game of each game
  paths    the paths users call (legal_plays, make_vec, the AEC env, cold start), each beside
           its peer and its goal, in one run
  web      the web board under load, killed (kill -9) and fuzzed, on 127.0.0.1 (--parts)
  all      every target above but paths (whose rows repeat theirs), web, timeuse, tactics and
           endgame

Each target first lists its peers: the installed ones are measured, the missing ones are named with
how to install them (most at once: pip install "boardgym[bench]"); boardgym's own figures are
always measured. Every JIT is warmed up before timing; the very first run also compiles the
kernels (a few minutes; Numba caches them).
"""

import dataclasses
import importlib.util
import sys
from dataclasses import field
from typing import Literal

from boardgym.scripts import cli
from boardgym.scripts.bench import coldstart as bench_coldstart
from boardgym.scripts.bench import endgame as bench_endgame
from boardgym.scripts.bench import env as bench_env
from boardgym.scripts.bench import movegen as bench_movegen
from boardgym.scripts.bench import paths as bench_paths
from boardgym.scripts.bench import rllib as bench_rllib
from boardgym.scripts.bench import search as bench_search
from boardgym.scripts.bench import tactics as bench_tactics
from boardgym.scripts.bench import timeuse as bench_timeuse
from boardgym.scripts.bench import web as bench_web

#: target -> (module, one-line summary)
TARGETS = {
    "movegen": (
        bench_movegen,
        "move generation and perft against py-draughts, gnubg-nn, gym-backgammon",
    ),
    "envs": (bench_env, "environment steps/s against PettingZoo and OpenSpiel (--batched: Pgx)"),
    "search": (bench_search, "the draughts alpha-beta search, nodes/s"),
    "timeuse": (
        bench_timeuse,
        "the draughts engines' wall time per move in games at a fixed budget",
    ),
    "tactics": (
        bench_tactics,
        "the share of the draughts tactics suites solved in a time a position",
    ),
    "endgame": (
        bench_endgame,
        "the draughts engine converting won endgame-table positions and holding drawn ones",
    ),
    "rllib": (bench_rllib, "RLlib sampling throughput (needs Ray)"),
    "coldstart": (
        bench_coldstart,
        "first use with an empty Numba cache: import -> first finished game of each game",
    ),
    "paths": (bench_paths, "the paths users call, each beside its peer and its goal, in one run"),
    "web": (bench_web, "the web board under load, killed and fuzzed (a server on 127.0.0.1)"),
}
#: what ``all`` runs: every target but paths (its rows repeat the others'), web (a server),
#: timeuse (games at a fixed time a move: minutes whatever the machine), tactics (timed
#: searches: figures that depend on the machine's load) and endgame (games, and it needs the
#: endgame tables built)
ALL = tuple(t for t in TARGETS if t not in ("paths", "web", "timeuse", "tactics", "endgame"))
Target = Literal[
    "all",
    "movegen",
    "envs",
    "search",
    "timeuse",
    "tactics",
    "endgame",
    "rllib",
    "coldstart",
    "paths",
    "web",
]


@dataclasses.dataclass
class Settings:
    """Settings of a run of several targets (one target alone takes its own options)."""

    targets: list[Target] = field(default_factory=lambda: ["all"], metadata={"positional": True})
    """what to benchmark: movegen, envs, search, timeuse, tactics, endgame, rllib, coldstart,
    paths, web or all (all but paths, web, timeuse, tactics and endgame)"""
    game: Literal["all", "draughts", "backgammon"] = "all"
    """benchmark one game only"""
    full: bool = False
    """the budgets BENCHMARKS.md reports instead of the quick ones (minutes, not seconds)"""
    threads: int = 0
    """threads for movegen's multi-core rows (0 = all cores numba sees)"""

    def check(self):
        cli.require(len(self.targets) > 0, "give at least one target")
        cli.require(self.threads >= 0, f"--threads must be at least 0, got {self.threads}")


def peer_status(module, game: str = "all"):
    """([installed names], [(missing name, how to install)]) of a bench module's peers for game."""
    installed, missing = [], []
    for name, mod, how, peer_game in module.PEERS:
        if game != "all" and peer_game not in ("all", game):
            continue
        if importlib.util.find_spec(mod) is None:
            missing.append((name, how))
        else:
            installed.append(name)
    return installed, missing


def _say_peers(target: str, game: str = "all"):
    installed, missing = peer_status(TARGETS[target][0], game)
    if not installed and not missing:
        print(f"[{target}] peers: none (boardgym's own figures)", flush=True)
        return missing
    text = f"[{target}] peers installed: {', '.join(installed) or 'none'}"
    if missing:
        text += "; missing: " + "; ".join(f"{n} ({how})" for n, how in missing)
    print(text, flush=True)
    return missing


def _target_settings(target: str, cfg: Settings):
    """The target module's settings for a run of several targets (None: nothing to run for game)."""
    if target == "movegen":
        return bench_movegen.Settings(game=cfg.game, threads=cfg.threads, full=cfg.full)
    if target == "envs":
        keep = {
            "all": bench_env.ENVS,
            "draughts": ("boardgym-draughts", "pz-chess", "pz-connect-four"),
            "backgammon": (
                "boardgym-backgammon",
                "boardgym-backgammon-cube",
                "openspiel-backgammon",
                "pz-chess",
                "pz-connect-four",
            ),
        }[cfg.game]
        return bench_env.Settings(envs=list(keep), full=cfg.full)
    if target == "search":
        return None if cfg.game == "backgammon" else bench_search.Settings(full=cfg.full)
    if target == "timeuse":
        return None if cfg.game == "backgammon" else bench_timeuse.Settings(full=cfg.full)
    if target == "tactics":
        return None if cfg.game == "backgammon" else bench_tactics.Settings(full=cfg.full)
    if target == "endgame":
        return None if cfg.game == "backgammon" else bench_endgame.Settings(full=cfg.full)
    if target == "coldstart":
        return bench_coldstart.Settings(game=cfg.game, full=cfg.full)
    if target == "paths":
        return bench_paths.Settings(full=cfg.full)
    if target == "web":
        if cfg.full:
            return bench_web.Settings(full=True)
        return bench_web.Settings(parts=["load", "faults", "fuzz"], seconds=20.0)
    return bench_rllib.Settings(
        game="backgammon" if cfg.game == "backgammon" else "draughts", full=cfg.full
    )


def main(args=None):
    """Run targets with Settings or a list of command-line strings -> {target: its result}.

    ``[TARGET, options...]`` with one target (not all) runs that target with its own options."""
    if args is None:
        args = sys.argv[1:]
    if (
        isinstance(args, (list, tuple))
        and args
        and args[0] in TARGETS
        and not any(a in TARGETS or a == "all" for a in args[1:])
    ):
        target, module = args[0], TARGETS[args[0]][0]
        try:
            settings = cli.settings(
                module.Settings,
                list(args[1:]),
                prog=f"boardgym bench {target}",
                description=module.__doc__,
            )
        except cli.UsageError as e:
            raise ValueError(f"{target}: {e} (see boardgym bench {target} --help)") from None
        _say_peers(target, getattr(settings, "game", "all"))
        return {target: module.main(settings)}
    cfg = cli.settings(
        Settings,
        list(args) if isinstance(args, tuple) else args,
        prog="boardgym bench",
        description=__doc__,
    )
    names = list(ALL) if "all" in cfg.targets else list(dict.fromkeys(cfg.targets))
    results, missing = {}, {}
    for target in names:
        settings = _target_settings(target, cfg)
        if settings is None:
            print(f"[{target}] skipped: draughts only", flush=True)
            continue
        print(flush=True)
        for name, how in _say_peers(target, cfg.game):
            missing[name] = how
        results[target] = TARGETS[target][0].main(settings)
    if missing:
        print(
            "\nmissing peers (their rows were skipped): "
            + "; ".join(f"{n}: {how}" for n, how in missing.items())
            + '\nmost install at once with: pip install "boardgym[bench]"',
            flush=True,
        )
    return results


if __name__ == "__main__":
    cli.script_main(main)
