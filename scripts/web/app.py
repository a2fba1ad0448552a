"""A board in the browser: play either game against an agent, watch two agents, replay records.

    pip install "boardgym[web]"
    boardgym serve                      # http://127.0.0.1:8000/draughts and /backgammon
    boardgym serve --port 8080 --host 127.0.0.1

The page draws the board (SVG in the browser, the geometry of envs/draughts_render.py and
envs/backgammon_render.py) from what the server sends. Each game lives on the server, under an
id (one per browser tab, many at once); the page sends only actions: a draughts hop
(``from_sq32 * 32 + to_sq32``, a capture chain hop by hop, M.1-M.3, 25.1-25.7), a backgammon
checker move (``(source - 1) * 6 + (die - 1)``, B.1-B.6, bar entry E.1-E.7, bearing off O.1-O.2)
or a cube decision (``roll``/``double``/``take``/``drop``, C.1-C.2); the server checks each
against the kernels' legal mask, plays the agent's replies (agents/arena/sessions.py, the same
games as ``boardgym play``) and rolls the dice. Anything illegal or malformed is answered with
HTTP 400 and ``{"error": message}``, which the page shows; the server never fails on bad input.

Agents' settings: ``depth`` (plies), ``time_limit`` (seconds per move) and ``options``, other
keyword options of the agent as ``key=value`` (the syntax of ``boardgym play --agent-option``,
e.g. ``"tt_bits=20, use_tt=false"``); in play at the top level, in watch per agent
(``agent_settings: [{depth, time_limit, options}, {...}]``, over top-level defaults). An option
the agent does not take, or a value out of range, is an error naming the agent.

Backgammon: a click on a checker and a spot plays the move; when two dice take the same checker
to the same spot (bearing off, O.1-O.2), the page asks which die (or a die is clicked first).
``dice`` sets the first roll of a new game (with or without a Position ID). Undo takes back the
person's turn (its checker moves or its cube action) with the agent's reply.

Replay: a PDN file of one or more games, or a whole Jellyfish / gnubg match file (``.mat``, every
game, as GNU Backgammon exports it too: a lone entry is placed by the column it starts in): each
position with the move that led to it, the match score before each game, the cube's value and
owner at every step (``Doubles => n`` shown on offer, a take doubles the cube and gives it to the
taker, C.1-C.2; a drop ends the game), forwards and backwards across games.

API (JSON): ``GET /api/agents``; ``POST /api/games`` ``{game, mode: play|watch, agent, agents,
seat, seed, fen, position_id, dice, cube, depth, time_limit, options, agent_settings}``;
``GET /api/games/{id}``; ``POST /api/games/{id}/action`` ``{action}`` or ``{cube}``;
``POST /api/games/{id}/step`` (watch: one agent action); ``POST /api/games/{id}/undo``;
``GET /api/games/{id}/record`` (PDN or match file download, from play and watch);
``POST /api/replay`` ``{text}`` -> ``{game, frames, match}``. The view of a game has ``log``
(moves in notation, an agent's evaluation in brackets where it has one: a search's score and
depth, a net's equity) and ``evaluation`` (the last one). A POST from a page of another site
(its ``Origin`` header) is refused (403): only this server's own page drives its games.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
import secrets
import socket
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from boardgym.agents.arena.sessions import BackgammonGame, DraughtsGame, load_agent
from boardgym.envs import backgammon_match, backgammon_render, draughts_pdn, draughts_render
from boardgym.envs import backgammon_notation as bg_api
from boardgym.envs import draughts as dr_api
from boardgym.kernels.backgammon import game as bg_core
from boardgym.kernels.backgammon.board import CUBE_OWNER, CUBE_VALUE, TURN
from boardgym.kernels.draughts import game as dr_core
from boardgym.kernels.draughts.board import GHOST_TO_SQ32, S_CAP_JUMPED, S_CAP_SQ, S_SIDE
from boardgym.scripts import cli

WEB = Path(__file__).resolve().parent
MAX_GAMES = 256  # games kept at once; the oldest is dropped past this
MAX_BODY = 1 << 20  # bytes of one request (a pasted record)
MAX_AGENT_STEPS = 10_000  # agent actions in one request (a game always ends well before)


@dataclass
class Settings:
    """Settings of the local web server."""

    host: str = "127.0.0.1"
    """address to listen on (loopback by default: only this machine can connect)"""
    port: int = 8000
    """TCP port (0: any free port)"""
    max_games: int = MAX_GAMES
    """games kept in memory at once (the least recently used is dropped)"""

    def check(self):
        cli.require(0 <= self.port <= 65535, f"--port must be 0..65535, got {self.port}")
        cli.require(self.max_games >= 1, f"--max-games must be at least 1, got {self.max_games}")


class BadRequest(ValueError):
    """A request the server refuses (HTTP status, message)."""

    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status


# ----------------------------------------------------------------------------- request fields
_KIND_NAMES = {
    int: "an integer",
    str: "a string",
    bool: "true or false",
    list: "a list",
    (int, float): "a number",
    (list, str): "a list or a string",
}


def _get(body, key, kind, default=None, choices=None):
    """body[key] checked to be of kind (and in choices); default if absent or null."""
    value = body.get(key, default)
    if value is None:
        return default
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        name = _KIND_NAMES.get(kind, "a value of another type")
        raise BadRequest(f"{key!r} must be {name}, got {type(value).__name__}")
    if choices is not None and value not in choices:
        raise BadRequest(f"{key!r} must be one of {', '.join(map(str, choices))}, got {value!r}")
    return value


def _checked_limits(depth, limit, where):
    if depth is not None and not 1 <= depth <= 64:
        raise BadRequest(f"{where}'depth' must be 1..64, got {depth}")
    if limit is not None and not 0 < limit <= 600:
        raise BadRequest(f"{where}'time_limit' must be in (0, 600] seconds, got {limit}")


def _option_items(value, where):
    """The agent's other options as 'key=value' strings (the syntax of boardgym play's
    --agent-option): a string of them separated by commas or spaces, or a list of strings."""
    if value is None:
        return []
    if isinstance(value, str):
        items = [w for w in re.split(r"[,\s]+", value.strip()) if w]
    elif isinstance(value, list) and all(isinstance(w, str) for w in value):
        items = [w.strip() for w in value if w.strip()]
    else:
        raise BadRequest(
            f"{where}'options' must be a string of key=value or a list of them, "
            f"got {type(value).__name__}"
        )
    if len(items) > 32:
        raise BadRequest(f"{where}'options': at most 32 options, got {len(items)}")
    out = []
    for item in items:
        key, sep, val = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key.isidentifier() or not val.strip():
            raise BadRequest(
                f"{where}'options': expected key=value such as tt_bits=20, got {item!r}"
            )
        if key in ("depth", "time_limit"):
            raise BadRequest(f"{where}'options': give {key} in its own field, not as an option")
        out.append(f"{key}={val}")
    return out


def _options(body, game, agent, spec=None, where=""):
    """Settings-like object for game_session (load_agent and the game classes): the game's fields
    from body, the agent's (depth, time_limit, options) from spec (default: body)."""
    spec = body if spec is None else spec
    try:
        depth = _get(spec, "depth", int)
        limit = _get(spec, "time_limit", (int, float))
    except BadRequest as e:
        raise BadRequest(f"{where}{e}") from None
    _checked_limits(depth, limit, where)
    items = _option_items(spec.get("options"), where)
    fen = _get(body, "fen", str) or None
    pid = _get(body, "position_id", str) or None
    if fen is not None and len(fen) > 1000 or pid is not None and len(pid) > 100:
        raise BadRequest("'fen' or 'position_id' is far too long to be a position")
    if fen is not None and game != "draughts":
        raise BadRequest("'fen' is a draughts position; for backgammon give 'position_id'")
    dice = _get(body, "dice", (list, str)) or None
    if isinstance(dice, str) and len(dice) < 20:
        m = re.fullmatch(r"\s*([1-6])\s*[-, ]?\s*([1-6])\s*", dice)
        dice = [int(m.group(1)), int(m.group(2))] if m else [dice]
    if (pid is not None or body.get("cube") or dice is not None) and game != "backgammon":
        raise BadRequest("'position_id', 'dice' and 'cube' are for backgammon")
    if dice is not None and (
        len(dice) != 2
        or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)
    ):
        raise BadRequest(
            f"'dice' must be two dice 1..6 such as [6, 4] or \"6-4\" (the first "
            f"roll), got {body.get('dice')!r}"
        )
    return SimpleNamespace(
        game=game,
        agent=agent,
        seed=_get(body, "seed", int, 0),
        fen=fen,
        position_id=pid.strip() if pid else None,
        dice=None if dice is None else f"{dice[0]}-{dice[1]}",
        cube=_get(body, "cube", bool, False),
        depth=depth,
        time_limit=None if limit is None else float(limit),
        agent_option=items,
    )


def _watch_settings(body):
    """The two agents' settings of a watched game: body's 'agent_settings' (two objects with
    depth, time_limit, options; null for none) over body's own depth, time_limit, options."""
    per = _get(body, "agent_settings", list, [None, None])
    if len(per) != 2 or not all(x is None or isinstance(x, dict) for x in per):
        raise BadRequest(
            "'agent_settings' must be two objects (depth, time_limit, options) or null"
        )
    base = {k: body[k] for k in ("depth", "time_limit", "options") if body.get(k) is not None}
    return [{**base, **{k: v for k, v in (x or {}).items() if v is not None}} for x in per]


# ----------------------------------------------------------------------------- one game
class Session:
    """One game on the server: the game (game_session), its agents, the undo snapshots."""

    def __init__(self, body):
        self.lock = threading.Lock()
        self.game_name = _get(body, "game", str, "draughts", ("draughts", "backgammon"))
        self.mode = _get(body, "mode", str, "play", ("play", "watch"))
        if self.mode == "play":
            name = _get(body, "agent", str, "greedy")
            self.seat = _get(body, "seat", int, 0, (0, 1))
            cfgs = {1 - self.seat: _options(body, self.game_name, name)}
            names = ["you", "you"]
            names[1 - self.seat] = name
        else:
            pair = _get(body, "agents", list, ["greedy", "greedy"])
            if len(pair) != 2 or not all(isinstance(a, str) for a in pair):
                raise BadRequest("'agents' must be two agent names")
            self.seat = None
            specs = _watch_settings(body)
            cfgs = {
                k: _options(body, self.game_name, pair[k], specs[k], f"player_{k} ({pair[k]}): ")
                for k in (0, 1)
            }
            names = list(pair)
        self.agents = {}
        for k, c in cfgs.items():
            try:
                self.agents[k] = load_agent(c)
            except (ValueError, TypeError) as e:
                where = f"player_{k} ({c.agent}): " if self.mode == "watch" else ""
                raise BadRequest(f"{where}{e}") from None
        try:
            cls = DraughtsGame if self.game_name == "draughts" else BackgammonGame
            self.game = cls(next(iter(cfgs.values())), tuple(names))
        except (ValueError, TypeError) as e:
            raise BadRequest(str(e)) from None
        self.names = names
        self.log = []  # what happened, in notation
        self.history = []  # (game, log length) before each of the person's turns
        self.over_text = None
        self.evaluation = None  # the agent's own evaluation of its last move, where it has one
        self._agents_play()

    # -- the game
    @property
    def env(self):
        return self.game.env

    def _acting(self):
        return int(self.env.agent_selection[-1])

    def _news(self):
        self.log += self.game.news(self.seat, own=True)
        if self.env.is_over and self.over_text is None:
            winner, how = self.game.outcome()
            who = "draw" if winner is None else f"{self.names[winner]} (player_{winner}) wins"
            self.over_text = f"game over: {who}: {how}"
            self.log.append(self.over_text)

    def _agent_step(self):
        """One agent action; its evaluation (where it has one) kept for the move list."""
        player = self._acting()
        agent = self.agents[player]
        s = self.env.state
        if self.game_name == "backgammon":
            equity = self._equity(agent)
            index = len(self.env.turns) - 1
            self.game.agent_step(agent)
            text = None if equity is None else f"equity {equity:+.3f}"
        else:
            first_hop = s[S_CAP_SQ] < 0
            index = len(self.env.moves)
            if hasattr(agent, "last_info"):
                agent.last_info = {}
            self.game.agent_step(agent)
            info = getattr(agent, "last_info", None) or {}
            text = None
            if first_hop and info.get("score") is not None:  # None: a forced move, not searched
                depth = f" at depth {info['depth']}" if "depth" in info else ""
                text = f"score {info['score']:+d}{depth}"
        if text is not None:
            self.game.notes[index] = f"{self.names[player]}: {text}"
            self.evaluation = self.game.notes[index] + (
                " after its play" if self.game_name == "backgammon" else ""
            )

    def _equity(self, agent):
        """The agent's equity of its best play (agents with a net), at the start of its play."""
        s = self.env.state
        d1, d2 = bg_core.dice_of(s)
        if not getattr(agent, "has_equity", False) or d1 == 0 or not bg_core.can_move(s):
            return None
        return float(np.max(agent.scores(agent.afterstates(s, d1, d2))))

    def _agents_play(self):
        """In play mode, the agent's replies until the person is to act or the game ends."""
        if self.mode == "play":
            for _ in range(MAX_AGENT_STEPS):
                if self.env.is_over or self._acting() == self.seat:
                    break
                self._agent_step()
        self._news()

    def _turn_start(self):
        """Whether the person's next action begins a turn (an undo snapshot is taken)."""
        s = self.env.state
        if self.game_name == "draughts":
            return s[S_CAP_SQ] < 0
        return bool(self.game.cube_choices()) or bg_core.dice_of(s)[0] > 0

    def act(self, body):
        """Play the person's action ({"action": int} or {"cube": word}) and the agent's replies."""
        if self.mode != "play":
            raise BadRequest("this game is watched: use step, not action")
        if self.env.is_over:
            raise BadRequest("the game is over: start a new one (or undo)")
        if self._acting() != self.seat:
            raise BadRequest("it is not your turn")
        before = copy.deepcopy(self.game) if self._turn_start() else None
        cube = _get(body, "cube", str)
        if cube is not None:
            if self.game_name != "backgammon":
                raise BadRequest("draughts has no doubling cube")
            choices = self.game.cube_choices()
            if cube not in choices:
                raise BadRequest(
                    f"{cube!r} is not a cube decision now"
                    + (f" (choose {' or '.join(choices)})" if choices else ": play your roll")
                )
            self.game.play_text(cube)
        else:
            if "action" not in body:
                raise BadRequest("give 'action' (a legal move of the board) or 'cube'")
            action = _get(body, "action", int)
            legal = {m["action"] for m in self.legal()}
            if action not in legal:
                raise BadRequest(f"illegal move (action {action}): pick a highlighted one")
            self._play(action)
        if before is not None:
            self.history.append((before, len(self.log)))
        self._agents_play()

    def _play(self, action):
        """Step the env with a legal action given as legal() lists it."""
        if self.game_name == "draughts":
            side = int(self.env.state[S_SIDE])  # kernel frame -> the mover's frame
            self.env.step(int(dr_core.VIEW_ACTION[side, action]))
        else:
            self.game.remember()
            self.env.step(int(action))

    def step(self):
        """Watch mode: one agent action (a draughts hop, a checker move or a cube decision)."""
        if self.mode != "watch":
            raise BadRequest("step is for watched games")
        if self.env.is_over:
            raise BadRequest("the game is over")
        self._agent_step()
        self._news()

    def undo(self):
        if self.mode != "play":
            raise BadRequest("undo is for games you play")
        if not self.history:
            raise BadRequest("nothing to take back")
        self.game, n = self.history.pop()
        del self.log[n:]
        self.over_text = None
        self.log.append("taken back")

    def record(self):
        """(file name, text) of the game so far: PDN or a gnubg match file."""
        try:
            text = self.game.record()
        except ValueError as e:
            raise BadRequest(f"cannot write this game: {e}") from None
        return ("game.pdn" if self.game_name == "draughts" else "game.mat"), text

    # -- what the page sees
    def legal(self):
        """The person's legal actions: [{action, from, to}] (draughts sq32; backgammon points in
        the mover's numbering, 25 the bar, 0 off)."""
        env = self.env
        if env.is_over or self.mode != "play" or self._acting() != self.seat:
            return []
        s = env.state
        if self.game_name == "draughts":
            return [{"action": a, "from": a // 32, "to": a % 32} for a in dr_api.legal_actions(s)]
        mask = env.legal_mask()[: bg_core.N_ACTIONS]
        out = []
        for a in np.flatnonzero(mask):
            fr, to, die, hit = bg_core.move_of_action(s, int(a))
            out.append(
                {
                    "action": int(a),
                    "from": int(fr),
                    "to": int(to),
                    "die": int(die),
                    "hit": bool(hit),
                }
            )
        return out

    def view(self, sid):
        env = self.env
        view = {
            "id": sid,
            "game": self.game_name,
            "mode": self.mode,
            "seat": self.seat,
            "names": self.names,
            "over": bool(env.is_over),
            "result": self.over_text,
            "log": self.log,
            "acting": None if env.is_over else self._acting(),
            "legal": self.legal(),
            "can_undo": bool(self.history),
            "evaluation": self.evaluation,
        }
        if self.game_name == "draughts":
            view["board"] = draughts_board(env.state)
            view["fen"] = env.fen() if env.state[S_CAP_SQ] < 0 else None  # none mid-chain
        else:
            view["board"] = backgammon_board(env.state, self.seat or 0)
            view["cube_choices"] = self.game.cube_choices() if not env.is_over else []
            view["position_id"] = bg_api.position_id(env.state)
            dice = None if env.is_over else env.infos[env.agent_selection].get("dice")
            view["dice"] = list(dice) if dice else []
        return view


def draughts_board(state):
    """The page's draughts board: piece codes per sq32 (0 empty, 1/2 White man/king, 3/4 Black),
    the side to move, the capturing piece and the pieces already jumped (sq32)."""
    cap = int(state[S_CAP_SQ])
    jumped = ((int(state[S_CAP_JUMPED]) >> draughts_render.SQ32_TO_GHOST) & 1).astype(bool)
    return {
        "pieces": draughts_render.piece_codes(state).tolist(),
        "side": int(state[S_SIDE]),
        "capturing": -1 if cap < 0 else int(GHOST_TO_SQ32[cap]),
        "jumped": np.flatnonzero(jumped).tolist(),
    }


def backgammon_board(state, perspective):
    """The page's backgammon board (backgammon_render.absolute_view as JSON)."""
    v = backgammon_render.absolute_view(state, perspective)
    return {
        "x": v["x"].tolist(),
        "o": v["o"].tolist(),
        "bar": list(v["bar"]),
        "off": list(v["off"]),
        "pips": list(v["pips"]),
        "turn": v["turn"],
        "dice": v["dice"],
        "cube": list(v["cube"]),
        "perspective": v["perspective"],
    }


# ----------------------------------------------------------------------------- replay
def _record_game(text):
    # [ \t]* at a line start, not \s* (which crosses lines: quadratic on many blank lines)
    if re.search(r"point match|^[ \t]*\d+\)\s", text, re.MULTILINE):
        return "backgammon"
    return "draughts"


_MATCH_LENGTH = re.compile(r"^[ \t]*(\d+)[ \t]+point[ \t]+match\b", re.IGNORECASE | re.MULTILINE)
_GAME_LINE = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORE_LINE = re.compile(r"^\s*(\S.*?)\s*:\s*(\d+)\s{2,}(\S.*?)\s*:\s*(\d+)\s*$")
_TURN_LINE = re.compile(r"^\s*\d+\)")
_ROLL_WORD = re.compile(r"^[1-6][1-6]:$")
_COLUMN = 38  # where read_match_text (envs/backgammon_match.py) takes the right column to start
_RIGHT_FROM = 20  # a lone entry starting this far into a line is in the right column
_TURN_WORDS = ("doubles", "takes", "drops", "wins", "beavers", "raccoons")
MAX_MATCH_GAMES = 200


def _split_games(text):
    """[(number, lines)] of a match file's games ('Game N' headers; none: one game)."""
    games, current = [], None
    for line in text.splitlines():
        m = _GAME_LINE.match(line)
        if m:
            current = (int(m.group(1)), [])
            games.append(current)
            if len(games) > MAX_MATCH_GAMES:
                raise ValueError(f"more than {MAX_MATCH_GAMES} games in one match file")
        elif current is None:
            if _TURN_LINE.match(line):  # turns without a 'Game' header: one game
                current = (1, [line])
                games.append(current)
        else:
            current[1].append(line)
    return games


def _line_turns(line):
    """[(player, words)] of one line of a match file: the turns or cube actions in its columns
    (player_0's on the left, player_1's on the right; a lone entry by where it starts, as gnubg
    shifts the right column after a long play) and 'Wins N points'."""
    m = _TURN_LINE.match(line)
    if not m and not line.strip().lower().startswith("wins"):
        return []
    start = m.end() if m else 0
    segments = []
    for word in re.finditer(r"\S+", line[start:]):
        text = word.group(0)
        if _ROLL_WORD.match(text) or text.lower() in _TURN_WORDS:
            segments.append((start + word.start(), [text]))
        elif segments:
            segments[-1][1].append(text)
        else:
            raise ValueError(
                f"cannot read {line.strip()!r} (a roll such as 52: 13/8 13/11, "
                "Doubles => 2, Takes, Drops or Wins N points)"
            )
    if len(segments) > 2:
        raise ValueError(f"more than two turns in one line: {line.strip()!r}")
    if len(segments) == 2:
        return [(0, segments[0][1]), (1, segments[1][1])]
    return [(0 if at < _RIGHT_FROM else 1, words) for at, words in segments]


def _turn_line(player, words):
    """One Jellyfish turn line with words in player's column (read_match_text's layout)."""
    text = " ".join(words)
    return f"  1) {text}\n" if player == 0 else "  1) ".ljust(_COLUMN) + text + "\n"


def _game_frames(number, lines, score, names, match_length):
    """Frames of one game of a match file from the standard start (C.1-C.2 cube actions
    replayed: a take doubles the cube and gives it to the taker); ValueError naming the turn."""
    state = bg_core.initial_state()
    where = f"game {number}"
    head = f"game {number}: {names[0]} {score[0]} - {score[1]} {names[1]}"
    frames = [{"board": backgammon_board(state, 0), "caption": f"{head}: start"}]
    offered, doubler, winner, points, dropped = None, None, None, None, False
    tokens = []
    for line in lines:
        try:
            entries = _line_turns(line)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        for player, words in entries:
            if words[0].lower() == "wins":
                winner = player
                points = int(words[1]) if len(words) > 1 and words[1].isdigit() else None
            elif _TURN_LINE.match(line):
                tokens.append((player, words))

    def frame(caption, **extra):
        board = backgammon_board(state, 0)
        board.update(extra)
        frames.append({"board": board, "caption": caption})

    for player, words in tokens:
        who = names[player]
        if dropped:
            raise ValueError(f"{where}: {' '.join(words)!r} after the double was dropped")
        first = words[0].lower()
        if offered is not None and first not in ("takes", "drops", "beavers", "raccoons"):
            raise ValueError(f"{where}: {who} plays on after a double: expected Takes or Drops")
        if _ROLL_WORD.match(words[0]):
            words = [w.lower().replace("bar", "25").replace("off", "0") for w in words]
            try:
                turns, state = backgammon_match.read_match_text(_turn_line(player, words), state)
            except ValueError as e:
                raise ValueError(f"{where}: {e}") from None
            t = turns[0]
            d1, d2 = t["dice"]
            moves = (
                " ".join(
                    f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}{'*' if hit else ''}"
                    for a, b, hit in t["moves"]
                )
                or "(no move)"
            )
            frame(
                f"{who} {max(d1, d2)}{min(d1, d2)}: {moves}",
                dice=[max(d1, d2), min(d1, d2)],
                turn=player,
            )
        elif first == "doubles":
            value = int(words[-1]) if words[-1].isdigit() else -1
            if state[TURN] != player:
                state = bg_core.pass_turn(state)
            owner, cube = int(state[CUBE_OWNER]), int(state[CUBE_VALUE])
            if owner not in (-1, player):
                raise ValueError(f"{where}: {who} doubles but the cube is the other side's (C.1)")
            if value != 2 * cube:
                raise ValueError(
                    f"{where}: {who} doubles to {words[-1]} but the cube is at "
                    f"{cube} (expected Doubles => {2 * cube})"
                )
            offered, doubler = value, player
            frame(f"{who} doubles => {value}", offered=value, turn=player)
        elif first in ("takes", "drops"):
            if offered is None:
                raise ValueError(f"{where}: {who} {first} but nothing was doubled")
            if player == doubler:
                raise ValueError(f"{where}: {who} {first} its own double")
            if first == "takes":
                state = bg_core.take_double(state)
                frame(f"{who} takes: the cube is at {offered}, {who}'s (C.2)")
            else:
                pts = int(state[CUBE_VALUE])
                frame(
                    f"{who} drops: {names[1 - player]} wins {pts} point"
                    f"{'s' if pts != 1 else ''} (C.2)",
                    offered=offered,
                )
                winner, points, dropped = 1 - player, points or pts, True
            offered = None
        elif first in ("beavers", "raccoons"):
            raise ValueError(
                f"{where}: {who} {first}: no beavers in these rules (a double is "
                "taken or dropped, C.2)"
            )
        else:
            raise ValueError(
                f"{where}: cannot read {' '.join(words)!r} (a roll such as 52: 13/8 "
                "13/11, Doubles => 2, Takes or Drops)"
            )
    if winner is None or points is None:  # no 'Wins N points': the kernel's result if over
        w, kind, pts = bg_core.result(state, bg_core.SCORING_GAMMON)
        if w >= 0:
            winner, points = int(w), int(pts)
        elif not dropped:
            winner = None
    end = list(score)
    if winner is not None:
        end[winner] += points
    if winner is not None and not dropped:
        frames[-1]["caption"] += (
            f"; {names[winner]} wins {points} point{'s' if points != 1 else ''}"
        )
    for f in frames:
        f["game"] = number
        f["score"] = list(score)
        f["match_length"] = match_length
    frames[-1]["score_after"] = end
    return frames, end


def match_frames(text):
    """(frames, games) of a whole gnubg / Jellyfish match file: every position of every game
    with the cube's value and owner, the match score before each game; games is
    [{number, score, first, last}] (frame indices)."""
    m = _MATCH_LENGTH.search(text)
    match_length = int(m.group(1)) if m else 0
    games = _split_games(text)
    if not games or not any(_TURN_LINE.match(line) for _, lines in games for line in lines):
        raise ValueError("no moves found in the match file (lines such as ' 1) 31: 8/5 6/5')")
    frames, out, score, names = [], [], [0, 0], ["player_0", "player_1"]
    for number, lines in games:
        head = next(
            (m for m in (_SCORE_LINE.match(line) for line in lines if len(line) < 200) if m), None
        )
        if head:
            names = [head.group(1), head.group(3)]
            score = [int(head.group(2)), int(head.group(4))]
        game_frames, after = _game_frames(number, lines, score, names, match_length)
        out.append(
            {
                "number": number,
                "score": list(score),
                "score_after": after,
                "first": len(frames),
                "last": len(frames) + len(game_frames) - 1,
            }
        )
        frames += game_frames
        score = after
    return frames, {"kind": "match", "games": out, "names": names, "match_length": match_length}


def _split_pdn(text):
    """The games of a PDN file: a tag line after a game's moves begins the next game."""
    games, lines, moves_seen = [], [], False
    for line in text.splitlines():
        tag = line.lstrip().startswith("[")
        if tag and moves_seen:
            games.append("\n".join(lines))
            lines, moves_seen = [], False
            if len(games) >= MAX_MATCH_GAMES:
                raise ValueError(f"more than {MAX_MATCH_GAMES} games in one PDN file")
        lines.append(line)
        moves_seen = moves_seen or (not tag and bool(line.strip()))
    if any(line.strip() for line in lines):
        games.append("\n".join(lines))
    return games


def pdn_frames(text):
    """(frames, games) of a PDN file of one or more games: every position with the move that led
    to it; games is None for one game, else [{number, white, black, result, first, last}]."""
    if text.rfind("{") > text.rfind("}"):  # (and the comment scan stays linear)
        raise ValueError("a { comment is not closed by }")
    texts = _split_pdn(text)
    frames, games = [], []
    for number, one in enumerate(texts, 1):
        try:
            tags, fen, moves, result, _ = draughts_pdn.read_pdn(one)
        except ValueError as e:
            raise ValueError(f"game {number}: {e}" if len(texts) > 1 else str(e)) from None
        white, black = tags.get("White", "White"), tags.get("Black", "Black")
        head = f"game {number}: {white} - {black}: " if len(texts) > 1 else ""
        first = len(frames)
        state = dr_api.from_fen(fen)
        frames.append({"board": draughts_board(state), "caption": f"{head}start: {fen}"})
        for k, move in enumerate(moves):
            state = dr_api.apply(state, move)
            number_ = k // 2 + 1
            caption = f"{number_}. {move}" if k % 2 == 0 else f"{number_}... {move}"
            frames.append({"board": draughts_board(state), "caption": caption})
        if result and result != "*":
            frames[-1]["caption"] += f"  ({result})"
        games.append(
            {
                "number": number,
                "white": white,
                "black": black,
                "result": result,
                "first": first,
                "last": len(frames) - 1,
            }
        )
    if not frames:
        raise ValueError("no game found in the PDN text")
    return frames, (games if len(games) > 1 else None)


def replay_frames(text):
    """(game, frames, match) of a PDN file or a match file: every position with the move that led
    to it ([{board, caption}]; a match file's frames also with game, score, match_length); match
    describes the games (None for a single PDN game); ValueError naming what is wrong."""
    if _record_game(text) == "backgammon":
        frames, match = match_frames(text)
        return "backgammon", frames, match
    frames, games = pdn_frames(text)
    return "draughts", frames, None if games is None else {"kind": "pdn", "games": games}


# ----------------------------------------------------------------------------- the app
class Games:
    """The games on the server, by id (least recently used dropped past max_games)."""

    def __init__(self, max_games=MAX_GAMES):
        self.max_games = max_games
        self.lock = threading.Lock()
        self.games = OrderedDict()
        self.counter = itertools.count(1)

    def add(self, session):
        sid = f"{next(self.counter)}-{secrets.token_hex(4)}"
        with self.lock:
            self.games[sid] = session
            while len(self.games) > self.max_games:
                self.games.popitem(last=False)
        return sid

    def get(self, sid):
        with self.lock:
            session = self.games.get(sid)
            if session is None:
                raise BadRequest(f"no game {sid!r} on this server (start a new game)", 404)
            self.games.move_to_end(sid)
            return session


def _short(message, limit=400):
    """message cut to limit characters (an error quoting a huge input stays readable)."""
    return message if len(message) <= limit else message[: limit - 5] + " ...'"


def make_app(max_games=MAX_GAMES):
    """The Starlette application (routes above; static files from scripts/web)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    games = Games(max_games)

    async def body_of(request: Request):
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise BadRequest(f"request too large ({len(raw)} bytes; at most {MAX_BODY})", 413)
        if not raw:
            return {}
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as e:
            raise BadRequest(f"the request body is not JSON: {e}") from None
        if not isinstance(body, dict):
            raise BadRequest("the request body must be a JSON object")
        return body

    def same_origin(request: Request):
        """A browser's request from another site (its Origin header) is refused: a page on the
        web cannot drive this server's games."""
        origin = request.headers.get("origin")
        if request.method != "GET" and origin is not None:
            host = request.headers.get("host", "")
            if re.sub(r"^[a-z]+://", "", origin.lower()).rstrip("/") != host.lower():
                raise BadRequest(f"requests from another site ({origin}) are refused", 403)

    def endpoint(fn):
        async def handler(request: Request):
            try:
                same_origin(request)
                return await fn(request)
            except BadRequest as e:
                return JSONResponse({"error": _short(str(e))}, status_code=e.status)
            except (ValueError, TypeError) as e:
                return JSONResponse({"error": _short(str(e))}, status_code=400)
            except Exception as e:  # never let one request take the server down
                return JSONResponse(
                    {"error": _short(f"internal error: {type(e).__name__}: {e}")}, status_code=500
                )

        return handler

    def locked(sid, fn):
        session = games.get(sid)
        with session.lock:
            fn(session)
            return JSONResponse(session.view(sid))

    async def agents(request):
        from boardgym.agents import available

        return JSONResponse({g: available(g) for g in ("draughts", "backgammon")})

    async def new_game(request):
        body = await body_of(request)
        session = await run_in_threadpool(Session, body)
        sid = games.add(session)
        return JSONResponse(session.view(sid))

    async def get_game(request):
        sid = request.path_params["sid"]
        return await run_in_threadpool(locked, sid, lambda s: None)

    async def action(request):
        body = await body_of(request)
        sid = request.path_params["sid"]
        return await run_in_threadpool(locked, sid, lambda s: s.act(body))

    async def step(request):
        sid = request.path_params["sid"]
        return await run_in_threadpool(locked, sid, lambda s: s.step())

    async def undo(request):
        sid = request.path_params["sid"]
        return await run_in_threadpool(locked, sid, lambda s: s.undo())

    async def record(request):
        session = games.get(request.path_params["sid"])
        with session.lock:
            name, text = session.record()
        return Response(
            text,
            media_type="text/plain; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def replay(request):
        body = await body_of(request)
        text = _get(body, "text", str)
        if not text or not text.strip():
            raise BadRequest("paste or upload a PDN game or a match file first")
        try:
            game, frames, match = await run_in_threadpool(replay_frames, text)
        except (ValueError, TypeError) as e:
            raise BadRequest(f"cannot read this record: {e}") from None
        return JSONResponse({"game": game, "frames": frames, "match": match})

    def page(request):
        return FileResponse(WEB / "index.html")

    routes = [
        Route("/", page),
        Route("/draughts", page),
        Route("/backgammon", page),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/api/agents", endpoint(agents)),
        Route("/api/games", endpoint(new_game), methods=["POST"]),
        Route("/api/games/{sid}", endpoint(get_game)),
        Route("/api/games/{sid}/action", endpoint(action), methods=["POST"]),
        Route("/api/games/{sid}/step", endpoint(step), methods=["POST"]),
        Route("/api/games/{sid}/undo", endpoint(undo), methods=["POST"]),
        Route("/api/games/{sid}/record", endpoint(record)),
        Route("/api/replay", endpoint(replay), methods=["POST"]),
        Mount("/static", StaticFiles(directory=WEB), name="static"),
    ]

    async def not_found(request, exc):
        return JSONResponse(
            {"error": f"no such page: {request.url.path}"},
            status_code=getattr(exc, "status_code", 404),
        )

    return Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found})


def main(args=None):
    """Serve the web board (Settings or a list of command-line strings) until interrupted."""
    cfg = cli.settings(Settings, args, prog="boardgym serve", description=__doc__)
    try:
        import uvicorn
    except ImportError:
        raise cli.UsageError('the web board needs its extra: pip install "boardgym[web]"') from None
    app = make_app(cfg.max_games)
    port = cfg.port
    if port == 0:  # a free port, named before the server starts
        with socket.socket() as s:
            s.bind((cfg.host, 0))
            port = s.getsockname()[1]
    print(
        f"boardgym serve: http://{cfg.host}:{port}/draughts  and  /backgammon (Ctrl-C stops)",
        flush=True,
    )
    uvicorn.run(app, host=cfg.host, port=port, log_level="warning")
    return app


if __name__ == "__main__":
    cli.script_main(main)
