"""A Russian draughts engine in another process, played over the Hub protocol: any engine that
speaks Hub (``boardgym hub`` of this or an earlier boardgym, or another program) as an agent of
the match harness.

    from boardgym.agents.arena.hub_engine import HubEngine
    with HubEngine("boardgym hub", time_limit=0.1, params={"threads": 1}) as engine:
        engine.best_move("W:W21-32:B1-12")

The engine is started once (``hub``, then ``set-param`` for each of ``params``, ``init``) and
asked for each move with ``pos`` (the game's first position it saw and the whole moves played
since, so that its draw rules see the repetitions and the move counters), then ``go think``; its
``done move=..`` is checked against the legal moves of the position before it is played.
Levels: ``move-time`` (``time_limit`` seconds) or ``depth``. The opponent's moves between two of
its own are recovered from the positions (the one legal move that leads from the position after
its move to the next one it is asked about); a position that does not follow starts a new record.

Scripts make it from a spec ``hub:command='boardgym hub',threads=1`` (``from_spec``); it is not
in the agent registry, so the web board and anything else that loads registry names never start
a program. The text of the protocol (lines, positions, moves) is boardgym.envs.draughts_hub.
"""

from __future__ import annotations

import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from boardgym.agents.draughts.agents import DraughtsAgent
from boardgym.agents.draughts.search import root_children
from boardgym.envs.draughts_hub import (
    HubError,
    line,
    move_from_hub,
    move_to_hub,
    parse_line,
    position_to_hub,
)
from boardgym.kernels.draughts.board import (
    M_CAPTURED,
    M_FROM,
    M_TO,
    MAX_MOVES,
    ROW_LEN,
    S_BK,
    S_BM,
    S_CAP_SQ,
    S_HASH,
    S_SIDE,
    S_WK,
    S_WM,
    STATE_LEN,
)

#: the spec prefix scripts read as a Hub engine (``hub:command=...,name=value,...``)
SPEC_PREFIX = "hub"
#: seconds an engine may take to start (``hub`` .. ``wait``, ``init`` .. ``ready``)
START_TIMEOUT = 300.0
#: seconds a move may take beyond its level's time (a depth level: this in all)
MOVE_GRACE = 60.0


#: the position words that tell whole-move positions apart (pieces, side, Zobrist hash)
_KEY = [S_WM, S_WK, S_BM, S_BK, S_SIDE, S_HASH]
#: the words of a move row that name the move (from, to, captured set)
_MOVE = [M_FROM, M_TO, M_CAPTURED]


def _info_numbers(args):
    """depth, nodes (int) and score (float, in men) of an ``info`` line's arguments, those it
    gives in a form that reads."""
    out = {}
    for key, kind in (("depth", int), ("nodes", int), ("score", float)):
        try:
            out[key] = kind(args[key])
        except (KeyError, ValueError):
            pass
    return out


class HubEngine(DraughtsAgent):
    """A Hub engine as a draughts agent (``act``, ``act_state``, ``best_move`` of DraughtsAgent).

    command: the engine's command line (a string, split as a shell would, or a list of words);
    time_limit: seconds a move (``level move-time``; 0.1 if neither is given) or depth: plies
    (``level depth``), not both; params: the engine's parameters (``set-param name=..
    value=..``), e.g. ``{"threads": 1, "tt-size": 64}``. ValueError when the engine does not
    start, refuses a parameter or answers a move that is not legal; TimeoutError when it goes
    silent. After a move, ``last_info`` holds the depth, nodes and score (in men, as the engine
    reports it) of its last ``info`` line and the move's wall time in seconds (``time``).
    """

    def __init__(
        self,
        command: str | Sequence[str],
        time_limit: float | None = None,
        depth: int | None = None,
        params: Mapping[str, Any] | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        argv = shlex.split(command) if isinstance(command, str) else [str(w) for w in command]
        if not argv:
            raise ValueError("HubEngine: command is empty")
        if time_limit is not None and depth is not None:
            raise ValueError("HubEngine: give one of time_limit (seconds) or depth (plies)")
        if time_limit is None and depth is None:
            time_limit = 0.1
        if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0):
            raise ValueError(f"HubEngine: time_limit must be a positive number, got {time_limit!r}")
        if depth is not None and not (isinstance(depth, int) and depth >= 1):
            raise ValueError(f"HubEngine: depth must be a positive integer, got {depth!r}")
        self.command = argv
        self.time_limit = None if time_limit is None else float(time_limit)
        self.depth = depth
        self.params = dict(params or {})
        self.name = ""
        self._start = None  # the game's first position seen, its moves since, the last position
        self._moves = []
        self._after = None
        self._rows = np.zeros((MAX_MOVES, ROW_LEN), dtype=np.int64)  # _follow's moves
        self._children = np.zeros((MAX_MOVES, STATE_LEN), dtype=np.int64)
        self._lines = queue.Queue()
        try:
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as e:
            raise ValueError(f"HubEngine: cannot start {argv[0]!r} ({e})") from None
        threading.Thread(target=self._read, daemon=True).start()
        try:
            self._start_engine()
        except BaseException:
            self.close()
            raise

    # ---- the process -------------------------------------------------------------------

    def _read(self):
        for text in self._proc.stdout:
            self._lines.put(text.rstrip("\n"))
        self._lines.put(None)  # end of output: the engine exited

    def _send(self, text):
        try:
            self._proc.stdin.write(text + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise ValueError(f"HubEngine: {self.command[0]} has exited") from None

    def _until(self, command, timeout):
        """The first line of command (its args), reading past others; an ``error`` line is a
        ValueError, silence for timeout seconds a TimeoutError."""
        end = time.monotonic() + timeout
        while True:
            try:
                text = self._lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(
                    f"HubEngine: no {command!r} from {self.command[0]} in {timeout:g} s"
                ) from None
            if text is None:
                raise ValueError(f"HubEngine: {self.command[0]} exited before {command!r}")
            try:
                cmd, args = parse_line(text)
            except HubError:
                continue
            if cmd == command:
                return args
            if cmd == "error":
                raise ValueError(f"HubEngine: the engine says {args.get('message', text)!r}")
            if cmd == "info":
                self.last_info.update(_info_numbers(args))
            if cmd == "id" and "name" in args:
                self.name = args["name"]

    def _start_engine(self):
        self._send("hub")
        self._until("wait", START_TIMEOUT)
        for name, value in self.params.items():
            self._send(line("set-param", name=str(name).replace("_", "-"), value=value))
        self._send("ping")  # a refused parameter answers an error line before the pong
        self._until("pong", START_TIMEOUT)
        self._send("init")
        self._until("ready", START_TIMEOUT)
        if self.depth is not None:
            self._send(line("level", depth=self.depth))
        else:
            self._send(line("level", move_time=self.time_limit))

    def close(self) -> None:
        """Ask the engine to quit and wait for it (killed after 5 s)."""
        proc = getattr(self, "_proc", None)
        if proc is None or proc.poll() is not None:
            return
        try:
            self._send("quit")
            proc.stdin.close()
        except ValueError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def __enter__(self) -> HubEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown: nothing left to tell
            pass

    # ---- games -------------------------------------------------------------------------

    def reset(self) -> None:
        """A new game: forget the record and clear the engine's table (``new-game``)."""
        super().reset()
        self._start, self._moves, self._after = None, [], None
        self._send("new-game")

    def _follow(self, state):
        """Extend the record to state: the opponent's move from the last position, if one
        leads there; else state starts a new record."""
        if self._after is not None and self._after[S_SIDE] != state[S_SIDE]:
            n = root_children(self._after, self._rows, self._children)
            hit = np.flatnonzero((self._children[:n, _KEY] == state[_KEY]).all(axis=1))
            if hit.size:
                self._moves.append(move_to_hub(self._rows[hit[0]]))
                return
        self._start, self._moves = state.copy(), []

    def _select(self, state, n):
        if state[S_CAP_SQ] >= 0:
            raise ValueError("HubEngine: a Hub engine is asked whole-move positions only")
        self._follow(state)
        self._send(
            line("pos", pos=position_to_hub(self._start), moves=" ".join(self._moves) or None)
        )
        self.last_info = {}
        t0 = time.perf_counter()
        self._send("go think")
        grace = MOVE_GRACE + (self.time_limit or 0.0) * 3
        text = self._until("done", grace).get("move", "")
        try:
            row = move_from_hub(state, text)
        except HubError as e:
            raise ValueError(
                f"HubEngine: {self.name or self.command[0]} played {text!r}: {e}"
            ) from None
        # move_from_hub gave one of the legal rows, which the agent's buffers hold too
        i = int(np.flatnonzero((self.buffers.rows[:n, _MOVE] == row[_MOVE]).all(axis=1))[0])
        self._moves.append(move_to_hub(row))
        self._after = self.buffers.children[i].copy()
        self.last_info["time"] = time.perf_counter() - t0
        return i


def is_spec(spec: str) -> bool:
    """Is spec a Hub engine's (``hub:...``)?"""
    return isinstance(spec, str) and spec.partition(":")[0].strip() == SPEC_PREFIX


def from_spec(
    spec: str, time_limit: float | None = None, depth: int | None = None, **_ignored: Any
) -> HubEngine:
    """The HubEngine of a spec ``hub:command='...',name=value,...``: every option but command
    is an engine parameter (``set-param``); time_limit / depth are the level (time_limit wins
    when both are given; the match scripts pass both). ValueError naming the problem."""
    from boardgym.agents.registry import parse_spec

    name, opts = parse_spec(spec)
    if name != SPEC_PREFIX:
        raise ValueError(f"not a Hub engine spec: {spec!r} (expected hub:command=...)")
    command = opts.pop("command", None)
    if not isinstance(command, str) or not command.strip():
        raise ValueError(f"{spec!r}: give the engine's command, e.g. hub:command='boardgym hub'")
    if time_limit is not None:
        depth = None
    elif depth is None:
        time_limit = 0.1
    return HubEngine(command, time_limit=time_limit, depth=depth, params=opts)
