"""Russian draughts engine over the Hub protocol (stdin/stdout): draughts-alphabeta for GUIs,
pydraughts and other engines' tournament managers.

    boardgym hub                        # then speak Hub on stdin/stdout
    boardgym hub --tt-size 64 --move-time 0.5
    printf 'hub\\ninit\\nlevel move-time=0.1\\ngo think\\nquit\\n' | boardgym hub   # from the start

The protocol is Hub version 2 as Scan 3.1 speaks it (its ``protocol.txt``), on the 32 squares
of Russian draughts; its text (lines, positions, moves) is boardgym.envs.draughts_hub. Lines
are ``<command> <arg>=<value> ...`` (values with a space, a ``=`` or nothing in double quotes).
The GUI sends:

- ``hub``: the engine answers ``id ...``, one ``param ...`` per parameter, then ``wait``;
- ``set-param name=N value=V``: parameters (below), usually before ``init``; ``init``: the engine
  loads its evaluation, compiles its search and answers ``ready``;
- ``pos pos=<side><32 squares> [moves="..."]``: side ``W``/``B``, then squares 1..32 in the standard
  Russian numbering (1 = b8 .. 32 = g1, boardgym/RULES.md, Notation), each ``w`` / ``b`` (men),
  ``W`` / ``B`` (kings) or ``e`` (empty); the moves played since (for the draw rules: repetitions
  and the move counters) are ``22-17`` or ``from x to x captured x ...`` (every captured square, any
  order: ``22x13x18``); algebraic squares (``c3-d4``) are accepted too;
- ``level``: ``depth=D`` | ``move-time=S`` | ``[moves=M] time=S [inc=S]`` | ``infinite`` |
  ``nodes=N`` (the limits of the next searches, until the next ``level``);
- ``go think`` | ``go ponder`` | ``go analyze``; during a search only ``ping``, ``stop`` and
  ``ponder-hit`` are read (others get an error line); the engine writes ``info depth=..
  score=.. nodes=.. time=.. nps=.. pv="..."`` after each finished iteration (score in men, a win
  in p plies as ``±(100 - p/100)``, nps in millions) and ends with ``done move=.. [ponder=..]``;
- ``stop``, ``ponder-hit``, ``new-game`` (clear the transposition table), ``ping`` (-> ``pong``),
  ``quit`` (also end of input).

Parameters (``param`` lines): ``variant`` (russian), ``tt-size`` (MiB), ``move-time`` (seconds
when no level is given), ``depth`` (cap, 0 = none), ``weights`` (evaluation file), ``threads``
(searching threads sharing the table, Lazy SMP: draughts_agents.AlphaBetaAgent), and
``move-numbering``: ``b8`` (default, the standard numbering above) or ``a1``: moves numbered from
a1 (a1 = 1, c1 = 2 .. h8 = 32) while positions stay standard, which is what pydraughts (0.6)
sends and reads for its Russian board; a pydraughts user sets
``engine.setoption("move-numbering", "a1")`` before ``init``.

Time: ``move-time`` is used in full (draughts-alphabeta stops mid-iteration at the deadline),
and what a forced move leaves is spent on the next moves of the game (``time_bank`` of
draughts_agents.AlphaBetaAgent);
``time``/``moves``/``inc`` get ``time / moves + inc`` (``moves`` unknown: 25), the increment
added before the move as the protocol says, and never more than 80% of what is on the clock
minus 50 ms. ``go ponder`` searches without a deadline until ``ponder-hit`` starts the clock (or
``stop``). ``go analyze`` searches a forced move too. Anything the engine cannot use gets one
line ``error message="..."`` and the engine goes on; it never exits on bad input.
"""

import dataclasses
import sys
import threading
from importlib.metadata import PackageNotFoundError, version
from typing import Literal

from boardgym.agents.draughts.agents import MAX_THREADS, AlphaBetaAgent
from boardgym.agents.draughts.search import MAX_PLY, WIN, WIN_BOUND
from boardgym.agents.registry import CHECKPOINTS
from boardgym.envs import draughts as api
from boardgym.envs.draughts_hub import (
    HubError,
    line,
    move_from_hub,
    move_to_hub,
    parse_line,
    position_from_hub,
)
from boardgym.kernels.draughts import game
from boardgym.scripts import cli

#: bytes per transposition-table entry (three int64)
TT_ENTRY = 24
#: moves assumed left when the level gives none
MOVES_TO_GO = 25
#: seconds kept in reserve on a running clock
CLOCK_MARGIN = 0.05


@dataclasses.dataclass
class Settings:
    """Defaults of the engine's parameters (a GUI may change them with set-param)."""

    tt_size: int = 24
    """transposition table in MiB (Hub parameter tt-size; rounded down to a power of two of
    24-byte entries)"""
    move_time: float = 1.0
    """seconds per move when the GUI sends no level (Hub parameter move-time)"""
    depth: int = 0
    """depth cap in plies, 0 = none (Hub parameter depth)"""
    weights: str = ""
    """the evaluation: '' = the shipped draughts-alphabeta net, 'material', or an .npz path
    (Hub parameter weights)"""
    threads: int = 1
    """searching threads sharing one transposition table (Hub parameter threads)"""
    move_numbering: Literal["b8", "a1"] = "b8"
    """where square 1 is in the moves' numbers: b8 = the standard Russian numbering, a1 = counted
    from a1 (pydraughts' Russian board; positions stay standard) (Hub parameter move-numbering)"""

    def check(self):
        cli.require(
            1 <= self.tt_size <= 4096, f"--tt-size must be in 1..4096 MiB, got {self.tt_size}"
        )
        cli.require(
            0 < self.move_time <= 86400,
            f"--move-time must be in (0, 86400] seconds, got {self.move_time}",
        )
        cli.require(
            0 <= self.depth <= MAX_PLY - 2, f"--depth must be in 0..{MAX_PLY - 2}, got {self.depth}"
        )
        cli.require(
            1 <= self.threads <= MAX_THREADS,
            f"--threads must be in 1..{MAX_THREADS}, got {self.threads}",
        )


def score_text(score):
    """A search score (man = 100; a win in p plies = WIN - p) in men, as Hub writes it."""
    if score is None:
        return None
    if abs(score) > WIN_BOUND:
        plies = WIN - abs(score)
        v = 100.0 - plies / 100.0
        return f"{v if score > 0 else -v:.2f}"
    return f"{score / 100.0:.2f}"


def budget_of(level):
    """Seconds for the next move under a level dict (None: no time limit)."""
    if "move-time" in level:
        return level["move-time"]
    if "time" in level:
        inc = level.get("inc", 0.0)
        avail = level["time"] + inc  # the increment is added before the move
        share = level["time"] / level.get("moves", MOVES_TO_GO) + inc
        return max(0.001, min(share, 0.8 * (avail - CLOCK_MARGIN)))
    return None


def _level_number(args, key, kind, lo, hi):
    raw = args[key]
    try:
        v = kind(raw)
    except ValueError:
        raise HubError(f"level {key}={raw!r}: expected a number") from None
    if not (lo <= v <= hi) or v != v:
        raise HubError(f"level {key}={raw!r}: must be in {lo}..{hi}")
    return v


def parse_level(args):
    """The limits of a ``level`` command's arguments; HubError if malformed."""
    if not args:
        raise HubError("level needs depth=, move-time=, time= [moves= inc=], nodes= or infinite")
    lv = {}
    if "infinite" in args:
        lv["infinite"] = True
    if "depth" in args:
        lv["depth"] = _level_number(args, "depth", int, 1, MAX_PLY - 2)
    if "nodes" in args:
        lv["nodes"] = _level_number(args, "nodes", int, 1, 1 << 60)
    if "move-time" in args:
        lv["move-time"] = _level_number(args, "move-time", float, 1e-3, 1e6)
    if "time" in args:
        lv["time"] = _level_number(args, "time", float, 0.0, 1e7)
    if "inc" in args:
        lv["inc"] = _level_number(args, "inc", float, 0.0, 1e6)
    if "moves" in args:
        lv["moves"] = _level_number(args, "moves", int, 1, 10000)
    if ("inc" in lv or "moves" in lv) and "time" not in lv:
        raise HubError("level moves= and inc= need time=")
    if not lv:
        raise HubError(
            f"level: none of depth, move-time, time, nodes, infinite in {' '.join(args)}"
        )
    return lv


# ---------------------------------------------------------------------------------- the engine
PARAMS = ("variant", "tt-size", "move-time", "depth", "weights", "threads", "move-numbering")


class HubEngine:
    """One Hub session: ``handle(line)`` for each input line; output through ``emit``.

    Searches run in a worker thread (the search kernels release the GIL) so that ``stop``,
    ``ping`` and ``ponder-hit`` are read while one runs; ``wait()`` joins it.
    """

    def __init__(self, cfg, write):
        self.cfg = cfg
        self._write = write
        self._out_lock = threading.Lock()
        self.params = {
            "variant": "russian",
            "tt-size": cfg.tt_size,
            "move-time": cfg.move_time,
            "depth": cfg.depth,
            "weights": cfg.weights,
            "threads": cfg.threads,
            "move-numbering": cfg.move_numbering,
        }
        self.agent = None
        self._agent_key = None
        self.state = api.initial_state()
        self.level = {}
        self._worker = None
        self._busy = False
        self._pondering = False
        self._budget = None
        self.quit = False

    # -- output
    def emit(self, text):
        with self._out_lock:
            self._write(text)

    def error(self, message):
        self.emit(line("error", message=" ".join(str(message).split())))

    # -- input
    def handle(self, text):
        """Carry out one input line (never raises for bad input: an error line instead)."""
        try:
            cmd, args = parse_line(text)
            if not cmd:
                return
            if self.searching() and cmd not in ("ping", "stop", "ponder-hit", "quit"):
                raise HubError(f"{cmd!r} during a search (only ping, stop, ponder-hit, quit)")
            handler = getattr(self, "_cmd_" + cmd.replace("-", "_"), None)
            if handler is None:
                raise HubError(f"unknown command {cmd!r}")
            handler(args)
        except HubError as e:
            self.error(e)
        except (ValueError, TypeError, OSError) as e:
            self.error(f"{type(e).__name__}: {e}")

    def searching(self):
        """True from ``go`` until the search's ``done`` (or error) line is written."""
        return self._busy

    def wait(self):
        """Wait for the running search (if any) to finish."""
        if self._worker is not None:
            self._worker.join()
            self._worker = None

    # -- commands
    def _cmd_hub(self, args):
        try:
            ver = version("boardgym")
        except PackageNotFoundError:
            ver = "0"
        p = self.params
        self.emit(line("id", name="boardgym", version=ver, author="boardgym", country="none"))
        self.emit(line("param", name="variant", value=p["variant"], type="enum", values="russian"))
        self.emit(line("param", name="tt-size", value=p["tt-size"], type="int", min=1, max=4096))
        self.emit(
            line("param", name="move-time", value=p["move-time"], type="real", min=0.001, max=86400)
        )
        self.emit(line("param", name="depth", value=p["depth"], type="int", min=0, max=MAX_PLY - 2))
        self.emit(line("param", name="weights", value=p["weights"], type="string"))
        self.emit(
            line("param", name="threads", value=p["threads"], type="int", min=1, max=MAX_THREADS)
        )
        self.emit(
            line(
                "param",
                name="move-numbering",
                value=p["move-numbering"],
                type="enum",
                values="b8 a1",
            )
        )
        self.emit("wait")

    def _cmd_set_param(self, args):
        name, value = args.get("name"), args.get("value")
        if name is None or value is None:
            raise HubError("set-param needs name= and value=")
        if name not in PARAMS:
            raise HubError(f"unknown parameter {name!r} (parameters: {', '.join(PARAMS)})")
        if name == "variant":
            if value != "russian":
                raise HubError(f"variant {value!r} is not played (only russian)")
        elif name == "move-numbering":
            if value not in ("b8", "a1"):
                raise HubError(f"move-numbering must be b8 or a1, got {value!r}")
        elif name in ("tt-size", "depth", "threads"):
            lo, hi = {"tt-size": (1, 4096), "depth": (0, MAX_PLY - 2), "threads": (1, MAX_THREADS)}[
                name
            ]
            try:
                v = int(value)
            except ValueError:
                raise HubError(f"{name} must be an integer, got {value!r}") from None
            if not lo <= v <= hi:
                raise HubError(f"{name} must be in {lo}..{hi}, got {v}")
            value = v
        elif name == "move-time":
            try:
                v = float(value)
            except ValueError:
                raise HubError(f"move-time must be a number, got {value!r}") from None
            if not 0 < v <= 86400:
                raise HubError(f"move-time must be in (0, 86400] seconds, got {value}")
            value = v
        self.params[name] = value

    def _make_agent(self):
        p = self.params
        tt_bits = max(4, min(28, int(p["tt-size"] * (1 << 20) // TT_ENTRY).bit_length() - 1))
        key = (tt_bits, p["weights"], p["threads"])
        if self.agent is not None and key == self._agent_key:
            return self.agent
        w = p["weights"]
        evaluation = str(CHECKPOINTS / "draughts-alphabeta.npz") if w == "" else w
        self.agent = AlphaBetaAgent(
            depth=None,
            time_limit=1.0,
            evaluation=evaluation,
            tt_bits=tt_bits,
            seed=0,
            threads=p["threads"],
        )
        self._agent_key = key
        # compile (or load from Numba's cache) before the first timed search
        start = api.initial_state()
        row, _ = self.agent.think(start, depth=2)
        self.agent.principal_variation(start, row, length=2)  # the pv of info lines, compiled too
        self.agent.buffers.clear()
        return self.agent

    def _cmd_init(self, args):
        self._make_agent()
        self.emit("ready")

    def _cmd_ping(self, args):
        self.emit("pong")

    def _cmd_new_game(self, args):
        self.state = api.initial_state()
        if self.agent is not None:
            self.agent.buffers.clear()
            self.agent.reset()  # the time banked in the last game

    def _cmd_pos(self, args):
        if "pos" not in args:
            raise HubError("pos needs pos=<side><32 squares>")
        s = position_from_hub(args["pos"])
        for mv in args.get("moves", "").split():
            if game.game_status(s) != game.ONGOING:
                raise HubError(f"move {mv!r} after the end of the game")
            s = game.play_move(s, move_from_hub(s, mv, self._a1()))
        self.state = s

    def _cmd_level(self, args):
        self.level = parse_level(args)

    def _cmd_go(self, args):
        mode = "ponder" if "ponder" in args else "analyze" if "analyze" in args else "think"
        status = game.game_status(self.state)
        if status != game.ONGOING:
            raise HubError(f"the game is over in this position ({game.STATUS_NAMES[status]})")
        agent = self._make_agent()
        lv = self.level
        depth = lv.get("depth") or self.params["depth"] or None
        if lv:
            budget = None if lv.get("infinite") else budget_of(lv)
        else:
            budget = self.params["move-time"]
        if mode == "analyze" and depth is None:
            depth = MAX_PLY - 2  # search a forced move too
        self._budget = budget
        self._pondering = mode == "ponder"
        # a fixed time a move: what a forced move leaves is spent on the next ones (time_bank);
        # a game clock carries it over by itself
        bank = mode == "think" and budget is not None and (not lv or "move-time" in lv)
        self.wait()  # the previous search's thread, which has written its last line
        agent.clear_stop()
        state = self.state.copy()
        self._busy = True
        self._worker = threading.Thread(
            target=self._search,
            name="hub-search",
            args=(state, None if self._pondering else budget, depth, lv.get("nodes"), bank),
            daemon=True,
        )
        self._worker.start()

    def _search(self, state, budget, depth, nodes, bank=False):
        agent = self.agent
        try:
            row, _ = agent.think(
                state,
                budget=budget,
                depth=depth,
                max_nodes=nodes,
                ponder=self._pondering,
                on_iteration=lambda info: self._info(state, info),
                bank=bank,
            )
            pv, _ = agent.principal_variation(state, row, length=2)
            ponder = move_to_hub(pv[1], self._a1()) if len(pv) > 1 else None
            done = line("done", move=move_to_hub(row, self._a1()), ponder=ponder)
        except Exception as e:  # the GUI waits for "done": say why there is none
            done = line("error", message=f"search failed: {type(e).__name__}: {e}")
        with self._out_lock:  # the next command may come as soon as "done" is read
            self._busy = False
            self._write(done)

    def _info(self, state, info):
        rows, _ = self.agent.principal_variation(state, info["move"])
        t = info["time"]
        self.emit(
            line(
                "info",
                depth=info["depth"],
                score=score_text(info["score"]),
                nodes=info["nodes"],
                time=f"{t:.3f}",
                nps=f"{info['nodes'] / t / 1e6:.2f}" if t > 0 else None,
                pv=" ".join(move_to_hub(r, self._a1()) for r in rows),
            )
        )

    def _a1(self):
        return self.params["move-numbering"] == "a1"

    def _cmd_stop(self, args):
        if self.searching():
            self.agent.request_stop()
        self.wait()

    def _cmd_ponder_hit(self, args):
        if self.searching() and self._pondering:
            self._pondering = False
            if self._budget is not None:
                self.agent.set_deadline(self._budget)

    def _cmd_quit(self, args):
        if self.searching():
            self.agent.request_stop()
        self.wait()
        self.quit = True


def main(args=None):
    """Run the Hub loop on stdin/stdout until quit or end of input; return the exit code 0."""
    cfg = cli.settings(Settings, args, prog="boardgym hub", description=__doc__)
    out = sys.stdout

    def write(text):
        out.write(text + "\n")
        out.flush()

    engine = HubEngine(cfg, write)
    while not engine.quit:
        raw = sys.stdin.readline()
        if raw == "":  # end of input: the GUI is gone
            engine.handle("quit")
            break
        engine.handle(raw.strip())
    return 0


if __name__ == "__main__":
    cli.script_main(main)
