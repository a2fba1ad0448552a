"""Endgames of the draughts alpha-beta engines: won table positions converted, drawn ones held.

    boardgym bench endgame                        # quick: 10 wins, 10 draws of the most pieces
    boardgym bench endgame --full                 # BENCHMARKS.md: 50 wins and 50 draws
    boardgym bench endgame --dir DIR --pieces 4 --wins 5 --draws 5 --time 0.02

The positions come from the endgame tables in ``--dir`` (``boardgym egdb build``; none: the
default directory): ``--wins`` positions of exactly ``--pieces`` pieces (none: the most the
tables hold) that the side to move wins (``--min-t``: at least that many plies from their
next conversion) and ``--draws`` drawn ones, with the draw counters at
zero and no earlier history, sampled with ``--seed`` (draughts_egdb.sample_positions: a
signature at random, a random entry, a random side to move; only positions whose side to move
has no capture). Each engine (``--agents``, registry specs; by default today's
``draughts-alphabeta`` with one thread) plays every position out against itself at ``--time``
seconds a move (``time_limit``, no depth cap, an empty transposition table at each position),
once with the tables (both sides) and once without them (``egdb=False``, both sides), until the
game core ends the game (G.1 or a draw rule G.2a-G.2e) or ``--max-plies`` plies. A win is
converted when the side that was to move wins the game; a draw is held when the game ends
without a winner (a game stopped at the cap counts as not converted and as held; the table
gives how many were stopped). The table gives, per engine and tables or none, converted /
wins and held / draws with 95% Wilson intervals, and the mean plies of the converted games.
Below it, every position not converted or not held, with how its game ended. The JIT is warmed
up before timing.
No peer: the figures are boardgym's own.
"""

import dataclasses
from dataclasses import field

from boardgym.agents.arena import matches
from boardgym.agents.arena.stats import wilson
from boardgym.agents.draughts import egdb as draughts_egdb
from boardgym.agents.registry import load_spec, parse_spec
from boardgym.envs import draughts as api
from boardgym.kernels.draughts.board import S_SIDE
from boardgym.kernels.draughts.game import (
    BLACK_WON,
    ONGOING,
    STATUS_NAMES,
    WHITE_WON,
    game_status,
)
from boardgym.scripts import cli
from boardgym.scripts.bench.timeuse import check_searchers

#: optional peers (name, module, how to install, game): none, the engine is compared with and
#: without its tables
PEERS = ()

#: today's engine, one thread
AGENTS = ["draughts-alphabeta:threads=1"]


@dataclasses.dataclass
class Settings:
    """Settings of one endgame benchmark (defaults: the quick budget; --full: BENCHMARKS.md's)."""

    dir: str | None = None
    """the tables' directory (none: $BOARDGYM_EGDB, else ~/.local/share/boardgym/egdb)"""
    pieces: int | None = None
    """pieces of every position (none: the most the tables in --dir hold)"""
    wins: int = 10
    """positions the side to move wins"""
    draws: int = 10
    """drawn positions"""
    min_t: int = 0
    """only wins at least this many plies from their next conversion by the tables (0: any)"""
    time: float = 0.1
    """seconds per move"""
    agents: list[str] = field(default_factory=lambda: list(AGENTS))
    """the engines, registry specs name:key=value,... (alpha-beta searchers)"""
    max_plies: int = 400
    """cap of a game in plies (the draw rules end a game long before in practice)"""
    seed: int = 0
    """seed of the sample and of the engines"""
    full: bool = False
    """the budget BENCHMARKS.md reports (50 wins and 50 draws); not with --wins or --draws"""

    def check(self):
        check_searchers(self.agents, "--time, --seed")
        for spec in self.agents:
            cli.require(
                "egdb" not in parse_spec(spec)[1], "--agents: egdb is the bench's own (--dir)"
            )
        cli.require(
            self.pieces is None or 2 <= self.pieces <= draughts_egdb.MAX_PIECES,
            f"--pieces must be in 2..{draughts_egdb.MAX_PIECES}, got {self.pieces}",
        )
        cli.require(0 <= self.wins <= 1000, f"--wins must be in 0..1000, got {self.wins}")
        cli.require(0 <= self.draws <= 1000, f"--draws must be in 0..1000, got {self.draws}")
        cli.require(0 <= self.min_t <= 200, f"--min-t must be in 0..200, got {self.min_t}")
        cli.require(self.wins + self.draws >= 1, "give at least one position (--wins, --draws)")
        cli.require(0 < self.time <= 60, f"--time must be in (0, 60] seconds, got {self.time}")
        cli.require(self.max_plies >= 1, f"--max-plies must be at least 1, got {self.max_plies}")
        cli.require(self.seed >= 0, f"--seed must be at least 0, got {self.seed}")
        if self.full:
            given = [f"--{k}" for k in FULL if getattr(self, k) != DEFAULTS[k]]
            cli.require(not given, f"--full sets {', '.join(given)}; give one or the other")


#: the budget of BENCHMARKS.md (``--full``)
FULL = dict(wins=50, draws=50)
DEFAULTS = {k: getattr(Settings, k) for k in FULL}


def play_out(state, seats, max_plies):
    """(status, plies): the outcome code (kernels/draughts/outcome.py; ONGOING when stopped at
    max_plies) of the game from a whole-move position vector, seats[0] moving for White and
    seats[1] for Black, and the plies (whole moves) played: the arena's one game loop
    (matches.play_game) from the position's FEN, in an env capped at max_plies."""
    env = matches.make_env("draughts", max_plies)
    matches.play_game(env, seats, None, options={"fen": api.to_fen(api.check_state(state))})
    return int(game_status(env.state)), len(env.moves)


def achieved(result, mover, status):
    """Whether a game that ended with status kept a table result: result 'win' (the side mover,
    0 White or 1 Black, was to move and wins): converted, mover won the game; 'draw': held,
    nobody won (a game still ONGOING at the cap counts as held)."""
    if result == "win":
        return status == (WHITE_WON if mover == 0 else BLACK_WON)
    if result == "draw":
        return status not in (WHITE_WON, BLACK_WON)
    raise ValueError(f"result must be 'win' or 'draw', got {result!r}")


def check_endgames(spec, tables, positions, seconds, max_plies, seed):
    """[{fen, result, achieved, status, plies}] per position of positions ([(state, result, t)],
    draughts_egdb.sample_positions), played out by spec against itself at seconds a move; tables:
    draughts_egdb.Tables for both sides, or None for none (``egdb=False``)."""
    seats = [
        load_spec(
            spec,
            "draughts",
            seed=seed + k,
            depth=None,
            time_limit=seconds,
            egdb=False if tables is None else tables,
        )
        for k in range(2)
    ]
    for agent in seats:  # warm-up (JIT)
        agent.best_move("W:W21-32:B1-12")
    out = []
    for state, result, _ in positions:
        for agent in seats:
            agent.buffers.clear()
            agent.reset()
        status, plies = play_out(state, seats, max_plies)
        out.append(
            {
                "fen": api.to_fen(state),
                "result": result,
                "achieved": achieved(result, int(state[S_SIDE]), status),
                "status": STATUS_NAMES[status],
                "plies": plies,
            }
        )
    return out


def _share(k, n):
    return f"{k / n:7.1%}" if n else f"{'-':>7s}"


def _interval(k, n):
    if n == 0:
        return "-"
    lo, hi = wilson(k, n)
    return f"[{100 * lo:.0f}, {100 * hi:.0f}]%"


def main(args=None):
    """Run with Settings or a list of command-line strings; return {(spec, with tables):
    [per position figures]}."""
    cfg = cli.settings(Settings, args, prog="boardgym bench endgame", description=__doc__)
    if cfg.full:
        cfg = dataclasses.replace(cfg, **FULL)
    directory = cfg.dir or draughts_egdb.default_dir()
    try:
        tables = draughts_egdb.load(directory)
    except FileNotFoundError as e:
        raise cli.UsageError(f"--dir: {e}") from None
    pieces = tables.max_pieces if cfg.pieces is None else cfg.pieces
    cli.require(
        pieces <= tables.max_pieces,
        f"--pieces {pieces}: the tables in {directory} go up to {tables.max_pieces} "
        f"(boardgym egdb build --pieces {pieces})",
    )
    positions = draughts_egdb.sample_positions(
        tables, pieces, cfg.wins, cfg.draws, cfg.seed, min_t=cfg.min_t
    )
    print(
        f"bench endgame: {cfg.wins} won (t >= {cfg.min_t}) and {cfg.draws} drawn positions of "
        f"{pieces} pieces from "
        f"{directory} (seed {cfg.seed}), {cfg.time:g} s a move, cap {cfg.max_plies} plies",
        flush=True,
    )
    ts = sorted(t for _, r, t in positions if r == "win")
    if ts:
        print(
            f"the wins' plies to the next conversion (tables): median {ts[len(ts) // 2]}, "
            f"max {ts[-1]}",
            flush=True,
        )
    print(
        f"{'engine':36s} {'tables':>6s} {'converted':>10s} {'share':>7s} {'95% interval':>13s} "
        f"{'plies':>6s} {'held':>8s} {'share':>7s} {'95% interval':>13s} {'capped':>6s}",
        flush=True,
    )
    out = {}
    for spec in cfg.agents:
        for use in (True, False):
            res = check_endgames(
                spec, tables if use else None, positions, cfg.time, cfg.max_plies, cfg.seed
            )
            out[(spec, use)] = res
            won = [r for r in res if r["result"] == "win"]
            drawn = [r for r in res if r["result"] == "draw"]
            kw, kd = sum(r["achieved"] for r in won), sum(r["achieved"] for r in drawn)
            conv = [r["plies"] for r in won if r["achieved"]]
            plies = f"{sum(conv) / len(conv):6.1f}" if conv else f"{'-':>6s}"
            capped = sum(r["status"] == STATUS_NAMES[ONGOING] for r in res)
            print(
                f"{spec:36s} {'yes' if use else 'no':>6s} {f'{kw}/{len(won)}':>10s} "
                f"{_share(kw, len(won))} {_interval(kw, len(won)):>13s} {plies} "
                f"{f'{kd}/{len(drawn)}':>8s} {_share(kd, len(drawn))} "
                f"{_interval(kd, len(drawn)):>13s} {capped:6d}",
                flush=True,
            )
    for (spec, use), res in out.items():
        for r in res:
            if not r["achieved"]:
                how = "not converted" if r["result"] == "win" else "lost"
                print(
                    f"  {spec} {'with' if use else 'without'} tables: {r['fen']} {how} "
                    f"({r['status']} after {r['plies']} plies)",
                    flush=True,
                )
    return out


if __name__ == "__main__":
    cli.script_main(main)
