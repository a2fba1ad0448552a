"""Backgammon cube decisions judged by GNU Backgammon, re-decided by any agent.

    boardgym cube-bench backgammon-td:cube_plies=1 backgammon-td --log decisions.jsonl.gz
    boardgym eval-gnubg --opponent gnubg --match 7 --games 200 --seed 14 --analyse-plies 2 \\
        --analyse cube --cube-log decisions.jsonl

A cube log (``eval-gnubg --cube-log``) holds every cube decision an agent met in matches or
cubeful money games against gnubg, each with gnubg's cubeful equities of no double,
double/take and double/pass at the plies it was judged at (``scripts/gnubg_driver.py``). Here
each agent given makes every decision of the log again, at the decision's score, and loses what
``gnubg_driver.cube_error`` says against those equities. No gnubg runs: the judge's equities are
in the log, so agents are compared on the same decisions in minutes, and the comparison is
paired.

Prints per agent: its error in mEMG per close or actual decision (the errors of all decisions
summed over the decisions gnubg's statistics count, ``is_close_cube``) with a 95% interval, its
doubles, takes and drops, its CPU time a decision (after ``WARM_UP`` decisions made once
untimed, so a kernel's first compile is not counted), how many of the recorded actions it
repeats when it is the agent that played the log (``agent`` in each line), and for each agent
after the first the first's error minus its own with a 95% interval over the same decisions
(``agents.arena.stats.rate_interval``).
"""

import dataclasses
import time
from dataclasses import field

import numpy as np

from boardgym.scripts import cli

#: decisions each agent makes once, untimed, before its timed pass (the kernels' first calls)
WARM_UP = 16


@dataclasses.dataclass
class Settings:
    """Re-decide the cube decisions of a cube log with agents, judged by the log's equities."""

    agents: list[str] = field(default_factory=list, metadata={"positional": True})
    """agent specs (e.g. backgammon-td:cube_plies=1 backgammon-td); the first is the baseline"""
    log: str = ""
    """the cube log (eval-gnubg --cube-log; .gz read as gzip)"""
    first: int = 0
    """re-decide the first this many decisions of the log only (0: all)"""

    def check(self):
        cli.require(self.agents, "give one or more agents to re-decide the log with")
        cli.require(self.log, "give a cube log with --log FILE (eval-gnubg --cube-log)")
        cli.require(self.first >= 0, f"--first must be >= 0, got {self.first}")


def redecide(agent, records):
    """agent's cube action on each record (its state, score and offered) -> int64[n]."""
    out = np.empty(len(records), dtype=np.int64)
    for i, r in enumerate(records):
        length, me, opp, crawford = r["match"]
        post = bool(length) and not crawford and max(me, opp) == length - 1
        agent.set_match(length, me, opp, crawford, post)
        out[i] = agent.cube_action(np.array(r["state"], dtype=np.int64), r["offered"])
    agent.set_match(0, 0, 0, False, False)
    return out


def errors(records, actions):
    """Equity lost by each action against its record's equities (gnubg_driver.cube_error)."""
    from boardgym.scripts.gnubg_driver import cube_error

    return np.array(
        [cube_error(r["eq"], r["offered"], int(a)) for r, a in zip(records, actions)],
        dtype=np.float64,
    )


def main(args=None):
    """Re-decide the log's cube decisions with each agent -> {spec: summary}."""
    from boardgym.agents.arena.stats import rate_interval
    from boardgym.agents.registry import load_spec
    from boardgym.kernels.backgammon import game
    from boardgym.scripts.gnubg_driver import is_close_cube, read_cube_log

    cfg = cli.settings(Settings, args, prog="boardgym cube-bench", description=__doc__)
    records = read_cube_log(cfg.log)
    if cfg.first:
        records = records[: cfg.first]
    cli.require(records, f"no cube decisions in {cfg.log}")
    close = sum(is_close_cube(r["eq"], r["offered"]) for r in records)
    cli.require(close, "no close or actual decision in the log: no rate to give")
    offered = np.array([r["offered"] for r in records])
    print(
        f"{len(records)} cube decisions ({int(offered.sum())} answers to a double), {close} close "
        f"or actual, judged at {sorted({r.get('plies', 2) for r in records})} plies"
    )
    results, base = {}, None
    for spec in cfg.agents:
        agent = load_spec(spec, "backgammon", seed=0)
        cli.require_whole_plays(agent, spec)
        redecide(agent, records[:WARM_UP])  # compiles or loads the kernels, not timed
        t0 = time.process_time()
        acts = redecide(agent, records)
        seconds = time.process_time() - t0
        err = errors(records, acts)
        rate, lo, hi = rate_interval(1000 * err, close)
        own = [a == r["action"] for r, a in zip(records, acts) if r.get("agent") == spec]
        s = {
            "decisions": len(records),
            "close": close,
            "memg": rate,
            "interval": (lo, hi),
            "doubles": int((acts == game.ACTION_DOUBLE).sum()),
            "takes": int((acts == game.ACTION_TAKE).sum()),
            "drops": int((acts == game.ACTION_DROP).sum()),
            "repeats": (int(sum(own)), len(own)),
            "cpu_seconds": seconds,
            "errors": err,
        }
        line = (
            f"{spec}: {rate:.2f} mEMG per close or actual decision [{lo:.2f}, {hi:.2f}]; "
            f"{s['doubles']} doubles, {s['takes']} takes, {s['drops']} drops; "
            f"{1000 * seconds / len(records):.0f} CPU-ms a decision"
        )
        if own:
            line += f"; repeats {sum(own)} of the {len(own)} actions it played in the log"
        print(line, flush=True)
        if base is None:
            base = (spec, err)
        else:
            d, dlo, dhi = rate_interval(1000 * (base[1] - err), close)
            s["gain"] = (d, dlo, dhi)
            print(f"  {base[0]} minus {spec}: {d:+.2f} mEMG [{dlo:+.2f}, {dhi:+.2f}]", flush=True)
        results[spec] = s
    return results


if __name__ == "__main__":
    cli.script_main(main)
