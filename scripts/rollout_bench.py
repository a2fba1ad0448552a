"""The backgammon rollout benchmark set: score agents on it, or build it.

    boardgym rollout-bench backgammon-td:plies=0 backgammon-td --first 60
    boardgym rollout-bench --build --decisions 300 --trials 72 --plies 7 --set set.npz

Scoring: each agent plays every decision of the set (the shipped one, or --set) and loses the
rollout equity of the best candidate minus its play's; the figure is the mean loss x 1000 (mEMG
per move, cubeless money) with its 95% interval, plays outside the candidates counted apart
(boardgym.agents.backgammon.benchmark). Building: self-play decisions of --net from the set's own
seed, the plays within the move filter rolled out by our own rollouts
(boardgym.agents.backgammon.rollout; never GNU Backgammon).
"""

import dataclasses
import shlex
import sys
import time
from dataclasses import field

from boardgym.scripts import cli


@dataclasses.dataclass
class Settings:
    """Score agents on the rollout benchmark set, or build a set."""

    agents: list[str] = field(default_factory=list, metadata={"positional": True})
    """agent specs to score (e.g. backgammon-td:plies=0 backgammon-td)"""
    set: str = ""
    """the set's file (empty: the shipped one; with --build: where to write it)"""
    first: int = 0
    """score the first this many decisions only (0: all)"""
    build: bool = False
    """build a set into --set instead of scoring"""
    net: str = ""
    """--build: weights of the model that plays and rolls out (empty: the shipped backgammon-td)"""
    decisions: int = 300
    """--build: decisions in the set"""
    trials: int = 72
    """--build: rollout trials per candidate play"""
    plies: int = 7
    """--build: half-moves per trial before the net's value is taken"""
    candidates: int = 8
    """--build: at most this many plays of a roll are rolled out ..."""
    threshold: float = 0.16
    """--build: ... those within this equity of the best at 0-ply"""
    seed: int = 38_000_000_000
    """--build: seed of the set's self-play games and dice (held apart from training seeds)"""
    blocks: int = 1
    """--build: candidates rolled out in this many parallel blocks (1: one core)"""

    def check(self):
        cli.require(self.threshold >= 0, f"--threshold must be >= 0, got {self.threshold}")
        for name in ("decisions", "trials", "plies", "blocks", "candidates"):
            v = getattr(self, name)
            cli.require(v > 0, f"--{name} must be positive, got {v}")
        cli.require(self.first >= 0, f"--first must be >= 0, got {self.first}")
        cli.require(not self.build or self.set, "--build needs --set (the file to write)")
        cli.require(self.build or self.agents, "give agents to score, or --build")


def main(args=None):
    """Score the agents (returns {spec: summary}) or build the set (returns its arrays)."""
    from boardgym.agents.backgammon import benchmark

    cfg = cli.settings(Settings, args, prog="boardgym rollout-bench", description=__doc__)
    if cfg.build:
        from boardgym.agents.backgammon.agents import TDAgent

        net = TDAgent(cfg.net or None).params
        t0 = time.perf_counter()
        bench = benchmark.build_benchmark(
            net,
            cfg.decisions,
            cfg.trials,
            cfg.plies,
            seed=cfg.seed,
            candidates=cfg.candidates,
            threshold=cfg.threshold,
            blocks=cfg.blocks,
            log=lambda text: print(text, flush=True),
        )
        command = "boardgym rollout-bench " + " ".join(
            shlex.quote(a) for a in (sys.argv[2:] if args is None else args)
        )
        benchmark.save_benchmark(
            cfg.set,
            bench,
            command=command,
            net=cfg.net or "backgammon-td",
            trials=cfg.trials,
            plies=cfg.plies,
            candidates=cfg.candidates,
            threshold=cfg.threshold,
            seed=cfg.seed,
            seconds=round(time.perf_counter() - t0, 1),
        )
        print(
            f"{len(bench['states'])} decisions, {len(bench['cand_rows'])} candidates -> {cfg.set}"
        )
        return bench
    from boardgym.agents.registry import load_spec

    bench = benchmark.load_benchmark(cfg.set or None)
    if cfg.first:
        k = min(cfg.first, len(bench["states"]))
        end = bench["starts"][k]
        bench = {
            **bench,
            "states": bench["states"][:k],
            "starts": bench["starts"][: k + 1],
            "cand_rows": bench["cand_rows"][:end],
            "cand_eq": bench["cand_eq"][:end],
        }
    results = {}
    for spec in cfg.agents:
        agent = load_spec(spec, "backgammon", seed=0)
        t0 = time.perf_counter()
        losses, outside = benchmark.agent_errors(agent, bench)
        s = benchmark.summary(losses, outside)
        s["seconds"] = round(time.perf_counter() - t0, 1)
        results[spec] = s
        print(
            f"{spec}: {s['memg']:.1f} ± {s['memg_half']:.1f} mEMG/move over {s['decisions']} "
            f"decisions ({s['blunders']} over 80, {s['outside']} outside the candidates; "
            f"{s['seconds']} s)",
            flush=True,
        )
    return results


if __name__ == "__main__":
    cli.script_main(main)
