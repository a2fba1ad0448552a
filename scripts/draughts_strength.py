"""Strength of draughts-alphabeta by our own means: matches from opening ballots, Elo with
intervals, a tactics suite, and how well a time budget is kept.

    python -m boardgym.scripts.draughts_strength                     # all parts, quick budget
    python -m boardgym.scripts.draughts_strength --parts timing --positions 200 --budgets 0.1 1
    python -m boardgym.scripts.draughts_strength --parts previous material --time 0.1 --pairs 20
    python -m boardgym.scripts.draughts_strength --make-tactics 40    # rebuild the tactics suite

Parts (``--parts``):

- ``previous``: the current engine (``--current``) against a previous version (``--previous``,
  by default the same net with the time use of the version before the clock-driven time
  manager: ``start_fraction=0.5, keep_partial=False``), both ``--time`` seconds per move.
  Either may be an engine in another process spoken to over the Hub protocol,
  ``hub:command='...',param=value,...`` (agents/arena/hub_engine.py; the other options are its
  Hub parameters), e.g. an earlier boardgym's ``boardgym hub`` installed in its own venv:
  ``--previous "hub:command='/path/old/.venv/bin/boardgym hub',threads=1,tt_size=6"``;
- ``material``: the current engine at ``--time`` against material alpha-beta (``--material``,
  by default ``draughts-alphabeta-material``) at ``--material-factor`` times that;
- ``tactics``: the share of the tactics suite (agents/arena/data/draughts_tactics.tsv) solved at
  ``--tactics-time`` seconds per position;
- ``timing``: ``best_move`` with ``time_limit`` = each of ``--budgets`` over ``--positions``
  seeded positions (ballots, then 4..30 moves of one-ply greedy self-play; at least two legal
  moves): mean, median, 95th percentile and maximum of the wall time, as fractions of the
  budget, and the mean over the positions whose search did not prove a win or loss (those
  return as soon as it does).

Matches: each ballot of agents/arena/data/draughts_ballots.tsv (the 150 three-move ballots of
Russian draughts; ``--pairs`` of them, seeded) is played twice, each engine White once, through
the one harness (agents/arena/matches.py, ``play_game``), a game capped at ``--max-moves`` plies
(a draw); results, score and Elo with 95% intervals come from agents/arena/stats.py.

The tactics suite holds positions of one-ply greedy self-play from seeded ballots (4..30 whole
moves; near-balanced, the kind of position a shallow player walks into) where a deep material search
(``--tactics-depth`` plies, searching every move) finds one move at least ``1`` man better
than every other, that wins material (``>= 1`` man), and that a ``--tactics-shallow``-ply
search (3) does not choose. It is built by ``--make-tactics N`` with material search only; the
learned evaluation is never fitted to it.
"""

import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

from boardgym.agents.arena import hub_engine, openings
from boardgym.agents.arena import matches as evaluation
from boardgym.agents.arena.openings import ballot_match, read_ballots, read_tactics
from boardgym.agents.arena.playouts import draughts_positions
from boardgym.agents.draughts.agents import AlphaBetaAgent
from boardgym.agents.registry import load_spec
from boardgym.envs import draughts as api
from boardgym.kernels.draughts import game
from boardgym.scripts import cli

PARTS = ("previous", "material", "tactics", "timing")
#: the time use of the version before the clock-driven time manager
PREVIOUS = "draughts-alphabeta:start_fraction=0.5,keep_partial=False"
#: a tactic's best move beats every other by this much, and wins at least WIN_MARGIN
GAP, WIN_MARGIN = 100, 100


@dataclasses.dataclass
class Settings:
    """What to measure and at which budget (defaults: a quick run of a few minutes)."""

    parts: tuple[str, ...] = PARTS
    """which parts to run: previous, material, tactics, timing"""
    current: str = "draughts-alphabeta"
    """the engine measured: a registry name with options, name:key=value,... (or a Hub
    engine, hub:command=...)"""
    previous: str = PREVIOUS
    """the previous version it plays at equal time (name:key=value,..., or a Hub engine
    hub:command='...',param=value,...)"""
    time: float = 0.1
    """seconds per move of the current engine (and of the previous version)"""
    material: str = "draughts-alphabeta-material"
    """the material search it plays (name:key=value,..., e.g. with threads=1 to match a
    one-thread --current)"""
    material_factor: float = 4.0
    """material search gets this many times --time"""
    pairs: int = 10
    """ballots per match (each played with both colours)"""
    max_moves: int = 200
    """game cap in plies (a capped game is a draw)"""
    tactics_time: float = 0.5
    """seconds per tactics position"""
    budgets: tuple[float, ...] = (0.1, 1.0)
    """timing: the time limits measured"""
    positions: int = 40
    """timing: positions per budget"""
    seed: int = 0
    """seed of the ballot choice and the timing positions"""
    make_tactics: int = 0
    """build a tactics suite of this many positions instead (0: measure)"""
    tactics_depth: int = 10
    """--make-tactics: depth of the proving material search"""
    tactics_shallow: int = 3
    """--make-tactics: depth of the material search that must not find the shot"""
    tactics_file: str = str(openings.TACTICS_FILE)
    """the tactics suite (read, or written by --make-tactics)"""

    def check(self):
        bad = [p for p in self.parts if p not in PARTS]
        cli.require(not bad, f"--parts must be among {', '.join(PARTS)}, got {', '.join(bad)}")
        cli.require(self.time > 0, f"--time must be positive, got {self.time}")
        cli.require(
            self.material_factor > 0,
            f"--material-factor must be positive, got {self.material_factor}",
        )
        cli.require(1 <= self.pairs <= 150, f"--pairs must be in 1..150, got {self.pairs}")
        cli.require(self.max_moves >= 10, f"--max-moves must be at least 10, got {self.max_moves}")
        cli.require(
            self.tactics_time > 0, f"--tactics-time must be positive, got {self.tactics_time}"
        )
        cli.require(
            all(b > 0 for b in self.budgets), f"--budgets must be positive, got {self.budgets}"
        )
        cli.require(self.positions >= 1, f"--positions must be at least 1, got {self.positions}")
        cli.require(self.seed >= 0, f"--seed must be at least 0, got {self.seed}")
        cli.require(
            self.make_tactics >= 0, f"--make-tactics must be 0 or more, got {self.make_tactics}"
        )
        cli.require(
            2 <= self.tactics_depth <= 30,
            f"--tactics-depth must be in 2..30, got {self.tactics_depth}",
        )
        cli.require(
            1 <= self.tactics_shallow < self.tactics_depth,
            f"--tactics-shallow must be in 1..{self.tactics_depth - 1} (below --tactics-depth), "
            f"got {self.tactics_shallow}",
        )


def make_agent(spec, time_limit, seed):
    """A draughts agent of spec (registry.load_spec) thinking time_limit seconds per move (no
    depth cap) unless the spec says otherwise, seeded with seed unless it gives one; a
    ``hub:command=...`` spec is an engine in another process (agents/arena/hub_engine.py)."""
    if hub_engine.is_spec(spec):
        return hub_engine.from_spec(spec, time_limit=time_limit)
    return load_spec(spec, "draughts", seed=seed, depth=None, time_limit=time_limit)


def _progress_line(points, total, seconds):
    """One line of a running match: games played, +wins =draws -losses and the score."""
    w, d, l = int((points > 0).sum()), int((points == 0).sum()), int((points < 0).sum())
    return (
        f"  {len(points)}/{total} games: +{w} ={d} -{l}, score "
        f"{100 * (w + 0.5 * d) / len(points):.1f}% ({seconds:.0f} s)"
    )


def _summary_line(label, s, seconds):
    lo, hi = s["elo_interval"]
    slo, shi = s["score_interval"]
    return (
        f"{label}: +{s['wins']} ={s['draws']} -{s['losses']} of {s['games']}, score "
        f"{100 * s['score']:.1f}% [{100 * slo:.1f}, {100 * shi:.1f}], Elo {s['elo']:+.0f} "
        f"[{lo:+.0f}, {hi:+.0f}] ({seconds:.0f} s)"
    )


# ---------------------------------------------------------------------------- positions
#: the seeded positions of the timing runs and the tactics search: from a ballot, 4..30 whole
#: moves of one-ply greedy self-play, the game going on with at least two legal moves
GREEDY = dict(plies=(4, 30), policy="greedy", min_moves=2)


def timing(cfg, log):
    """{budget: stats of best_move's wall time as fractions of the budget}: over all positions,
    and over those not decided (a search that proves a win or loss returns at once)."""
    from boardgym.agents.draughts.search import WIN_BOUND

    agent = make_agent(cfg.current, 0.05, cfg.seed)
    agent.best_move("W:W21-32:B1-12")  # compile
    fens = [
        api.to_fen(s)
        for s in draughts_positions(cfg.positions, cfg.seed, ballots=read_ballots(), **GREEDY)
    ]
    out = {}
    for budget in cfg.budgets:
        agent.time_limit = float(budget)
        ts, decided = [], []
        for fen in fens:
            agent.buffers.clear()
            agent.reset()  # independent positions: no time banked from the one before
            t0 = time.perf_counter()
            agent.best_move(fen)
            ts.append(time.perf_counter() - t0)
            sc = agent.last_info["score"]
            decided.append(sc is not None and abs(sc) > WIN_BOUND)
        r = np.array(ts) / budget
        open_ = r[~np.array(decided)]
        out[budget] = {
            "mean": float(r.mean()),
            "median": float(np.median(r)),
            "p95": float(np.percentile(r, 95)),
            "max": float(r.max()),
            "n": len(ts),
            "decided": int(np.sum(decided)),
            "mean_open": float(open_.mean()) if open_.size else float("nan"),
        }
        log(
            f"timing {budget:g} s: mean {r.mean():.3f}, median {np.median(r):.3f}, p95 "
            f"{np.percentile(r, 95):.3f}, max {r.max():.3f} of the budget over {len(ts)} "
            "positions; "
            f"{int(np.sum(decided))} decided (returned at once), the others mean "
            f"{out[budget]['mean_open']:.3f}"
        )
    return out


# ---------------------------------------------------------------------------- tactics
def move_scores(agent, state, depth):
    """[(PDN move, mover's score)] of every legal move, each searched depth - 1 plies after it."""
    out = []
    for r in openings.legal_rows(state):
        child = game.play_move(state, r)
        status = game.game_status(child)
        if status != game.ONGOING:
            v = int(game.reward(status, 1 - child[game.S_SIDE])) * 100_000
        else:
            agent.buffers.clear()
            v = -agent.search(child, depth - 1)[1]
        out.append((api.move_to_str(state, r), v))
    return sorted(out, key=lambda x: -x[1])


def make_tactics(cfg, log):
    """Search seeded positions for unique winning shots; write cfg.tactics_file; return them."""
    deep = AlphaBetaAgent(depth=cfg.tactics_depth, seed=0, tt_bits=20)
    low = cfg.tactics_shallow
    shallow = AlphaBetaAgent(depth=low, seed=0)
    found, tried = [], 0
    seed = cfg.seed
    ballots = read_ballots()
    head = [
        "# Draughts tactics (FEN<TAB>best move<TAB>proof): positions of one-ply greedy self-play "
        "from seeded ballots",
        f"# where material alpha-beta at depth {cfg.tactics_depth}, searching every move, finds "
        f"one move at least {GAP / 100:g} man",
        f"# better than every other and winning >= {WIN_MARGIN / 100:g} man, which a {low}-ply "
        "search does not choose.",
        "# Built by: python -m boardgym.scripts.draughts_strength --make-tactics N "
        f"--tactics-depth {cfg.tactics_depth} --tactics-shallow {low} (seed {cfg.seed}); never "
        "used to fit an evaluation.",
    ]
    while len(found) < cfg.make_tactics:
        for s in draughts_positions(50, seed, ballots=ballots, **GREEDY):
            tried += 1
            if any(api.to_fen(s) == f for f, _, _ in found):
                continue
            if tried % 50 == 0:
                print(f"{tried} positions tried, {len(found)} tactics", file=sys.stderr, flush=True)
            fen = api.to_fen(s)
            shallow.buffers.clear()
            qi, qv = shallow.search(s, low)
            if qv >= WIN_MARGIN:
                continue  # already won at the shallow depth
            deep.buffers.clear()
            di, dv = deep.search(s, cfg.tactics_depth)
            if dv < WIN_MARGIN or di == qi:
                continue  # no win, or the shallow search plays it too
            scores = move_scores(deep, s, cfg.tactics_depth)
            best, v = scores[0]
            if v < WIN_MARGIN or v - scores[1][1] < GAP:
                continue  # not a unique winning move
            found.append(
                (
                    fen,
                    best,
                    f"depth {cfg.tactics_depth}: {v / 100:+.2f} vs "
                    f"{scores[1][1] / 100:+.2f} ({scores[1][0]})",
                )
            )
            log(f"tactic {len(found)}: {fen} {best} ({found[-1][2]}; {tried} tried)")
            # written as found: a long build can be stopped and keeps what it has
            Path(cfg.tactics_file).write_text(
                "\n".join(head + ["\t".join(t) for t in found]) + "\n"
            )
            if len(found) >= cfg.make_tactics:
                break
        seed += 1
    return found


def tactics(cfg, log):
    """(solved, total) of the tactics suite at cfg.tactics_time seconds each."""
    suite = read_tactics(cfg.tactics_file)
    agent = make_agent(cfg.current, cfg.tactics_time, cfg.seed)
    agent.best_move("W:W21-32:B1-12")
    solved = 0
    for fen, best, _ in suite:
        agent.buffers.clear()
        solved += agent.best_move(fen) == best
    log(f"tactics: {solved}/{len(suite)} solved at {cfg.tactics_time:g} s per position")
    return solved, len(suite)


# ---------------------------------------------------------------------------- main
def main(args=None):
    """Run the chosen parts; return {part: result}."""
    cfg = cli.settings(
        Settings, args, prog="python -m boardgym.scripts.draughts_strength", description=__doc__
    )

    def log(text):
        print(text, flush=True)

    if cfg.make_tactics:
        return {"make_tactics": make_tactics(cfg, log)}
    out = {}
    rng = np.random.default_rng(cfg.seed)
    all_ballots = read_ballots()
    pick = rng.choice(len(all_ballots), size=cfg.pairs, replace=False)
    ballots = [all_ballots[i] for i in sorted(pick)]
    if "timing" in cfg.parts:
        out["timing"] = timing(cfg, log)
    if "tactics" in cfg.parts:
        out["tactics"] = tactics(cfg, log)
    for part in ("previous", "material"):
        if part not in cfg.parts:
            continue
        a = make_agent(cfg.current, cfg.time, cfg.seed)
        if part == "previous":
            b = make_agent(cfg.previous, cfg.time, cfg.seed + 1)
            label = f"{cfg.current} vs {cfg.previous}, {cfg.time:g} s each"
        else:
            b = make_agent(cfg.material, cfg.time * cfg.material_factor, cfg.seed + 1)
            label = (
                f"{cfg.current} at {cfg.time:g} s vs {cfg.material} at "
                f"{cfg.time * cfg.material_factor:g} s"
            )
        t0 = time.perf_counter()
        total = 2 * len(ballots)

        def progress(points, total=total, t0=t0):  # a line every 20 games and at the end
            if len(points) % 20 == 0 and len(points) < total:
                log(_progress_line(points, total, time.perf_counter() - t0))

        try:
            points = ballot_match(a, b, ballots, cfg.max_moves, progress)
        finally:
            for engine in (a, b):  # a Hub engine's process ends with its match
                if isinstance(engine, hub_engine.HubEngine):
                    engine.close()
        s = evaluation.summarize(points)
        log(_summary_line(label, s, time.perf_counter() - t0))
        out[part] = s
    return out


if __name__ == "__main__":
    cli.script_main(main)
