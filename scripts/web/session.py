"""A game in the browser on the server: the person's actions, the agents' replies, undo, and the
games kept at once (the least recently used dropped from memory; with an archive, every game is
written to it after each change and taken up again from it when asked for after a restart or
once dropped, and finished games leave memory past the MAX_FINISHED most recent: the memory
the games take follows the games in play, not the games played)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from boardgym.agents.arena.archive import Recorder
from boardgym.agents.arena.sessions import BackgammonGame, DraughtsGame, archive_row, load_agent
from boardgym.envs import backgammon_ids
from boardgym.envs import draughts as dr_api
from boardgym.kernels.backgammon import game as bg_core
from boardgym.kernels.draughts import game as dr_core
from boardgym.kernels.draughts.board import S_CAP_SQ, S_SIDE
from boardgym.scripts.web import fields
from boardgym.scripts.web.boards import backgammon_board, draughts_board
from boardgym.scripts.web.fields import BadRequest
from boardgym.scripts.web.thinking import think

MAX_GAMES = 256  # games kept at once; the oldest is dropped past this
MAX_FINISHED = 16  # finished games kept in memory when the archive holds them
MAX_AGENT_STEPS = 10_000  # agent actions in one request (a game always ends well before)
# the request fields a game is started with (kept in the archive, to start it again)
SETTINGS_KEYS = (
    "game",
    "mode",
    "agent",
    "agents",
    "seat",
    "seed",
    "fen",
    "position_id",
    "dice",
    "cube",
    "match",
    "score",
    "crawford",
    "depth",
    "time_limit",
    "options",
    "agent_settings",
)


@dataclass(frozen=True)
class Limits:
    """What a client may ask of the server's agents."""

    max_depth: int = 64
    """deepest search a client may ask for (plies)"""
    max_think: float = 600.0
    """longest time per move a client may ask for (seconds)"""

    def check(self, cfgs, mode):
        """BadRequest if an agent's settings ask for more than the limits."""
        for k, c in cfgs.items():
            where = f"player_{k} ({c.agent}): " if mode == "watch" else ""
            if c.depth is not None and c.depth > self.max_depth:
                raise BadRequest(
                    f"{where}'depth' {c.depth} is more than this server allows ({self.max_depth})"
                )
            if c.time_limit is not None and c.time_limit > self.max_think:
                raise BadRequest(
                    f"{where}'time_limit' {c.time_limit:g} s is more than this server allows "
                    f"({self.max_think:g} s)"
                )


class Session:
    """One game on the server: the game (agents/arena/sessions), its agents, the undo snapshots;
    written to the archive (if any) after every change. row: an archived game to take up again
    (its actions replayed, the agents not asked)."""

    def __init__(self, body, archive=None, row=None, pool=None, limits=None):
        self.lock = threading.Lock()
        self.pool = pool
        self.client = None  # the address of the client that started it
        self.settings = {k: body[k] for k in SETTINGS_KEYS if body.get(k) is not None}
        self.game_name = fields.get(body, "game", str, "draughts", ("draughts", "backgammon"))
        self.mode = fields.get(body, "mode", str, "play", ("play", "watch"))
        if self.mode == "play":
            name = fields.get(body, "agent", str, "greedy")
            self.seat = fields.get(body, "seat", int, 0, (0, 1))
            cfgs = {1 - self.seat: fields.options(body, self.game_name, name)}
            names = ["you", "you"]
            names[1 - self.seat] = name
        else:
            pair = fields.get(body, "agents", list, ["greedy", "greedy"])
            if len(pair) != 2 or not all(isinstance(a, str) for a in pair):
                raise BadRequest("'agents' must be two agent names")
            self.seat = None
            specs = fields.watch_settings(body)
            cfgs = {
                k: fields.options(
                    body, self.game_name, pair[k], specs[k], f"player_{k} ({pair[k]}): "
                )
                for k in (0, 1)
            }
            names = list(pair)
        (limits or Limits()).check(cfgs, self.mode)
        self.cfgs = cfgs
        self.agents = {}  # the agents, in this process (with a pool: loaded to check, dropped)
        for k, c in cfgs.items():
            try:
                agent = load_agent(c)
            except (ValueError, TypeError) as e:
                where = f"player_{k} ({c.agent}): " if self.mode == "watch" else ""
                raise BadRequest(f"{where}{e}") from None
            if pool is None:
                self.agents[k] = agent
        self.names = names
        try:
            self.game = self._new_game()
        except (ValueError, TypeError) as e:
            raise BadRequest(str(e)) from None
        resolved = {
            "game": self.game_name,
            "mode": self.mode,
            "seed": fields.get(body, "seed", int, 0),
        }
        start = next(iter(cfgs.values()))
        if start.score is not None:  # the match's start score, the Crawford flag spelt out
            resolved.update(score=list(start.score), crawford=start.crawford)
        if self.mode == "play":
            resolved.update(agent=names[1 - self.seat], seat=self.seat)
        else:
            resolved["agents"] = names
        self.settings.update(resolved)  # the defaults spelt out: the same game again later
        self.log = []  # what happened, in notation
        self.history = []  # (actions, log length) before each of the person's turns
        self.over_text = None
        self.evaluation = None  # the agent's own evaluation of its last move, where it has one
        self.recorder = Recorder(archive, None if row is None else row["uid"])
        if row is None:
            self._agents_play()
            self.save()
        else:
            self._replay(row)

    @property
    def uid(self):
        return self.recorder.uid

    # -- the archive
    def save(self):
        """Write the game to the archive (a failure is kept in recorder.problem)."""
        extra = {
            "log": self.log,
            "undo": [[a, n] for a, n in self.history],
            "over_text": self.over_text,
            "evaluation": self.evaluation,
        }
        source = "web-play" if self.mode == "play" else "web-watch"
        self.recorder.save(archive_row(self.game, source, self.settings, extra))

    def _replay(self, row):
        """Take up an archived game: its actions replayed (with the undo snapshots), its log."""
        extra = row.get("extra") or {}
        try:
            self.history = [(int(a), int(n)) for a, n in extra.get("undo", [])]
            self.game = self._rebuilt(row["actions"])
        except (ValueError, TypeError, IndexError) as e:
            raise BadRequest(f"the archived game {row['uid']} cannot be replayed: {e}") from None
        self.log = [str(x) for x in extra.get("log", [])]
        self.over_text = extra.get("over_text")
        self.evaluation = extra.get("evaluation")

    def _new_game(self):
        cls = DraughtsGame if self.game_name == "draughts" else BackgammonGame
        return cls(next(iter(self.cfgs.values())), tuple(self.names))

    def _rebuilt(self, actions, notes=None):
        """The game from its start with actions played (what it was when it had played them:
        the dice come from the env's seed), everything in it already reported."""
        game = self._new_game()
        for a in actions:
            game.step(int(a))
        if notes:  # the agents' evaluations of the moves (turns) still played
            env = game.env
            n = len(env.moves) if self.game_name == "draughts" else len(env.turns)
            game.notes.update({k: v for k, v in notes.items() if k < n})
        game.news(self.seat, own=True)
        return game

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
            if winner is None:
                who = "draw" if self.game_name == "draughts" else "no winner"
            elif winner == self.seat:
                who = f"you win (player_{winner})"
            else:
                who = f"{self.names[winner]} wins (player_{winner})"
            over = "match over" if self._match_length() else "game over"
            self.over_text = f"{over}: {who}: {how}"
            self.log.append(self.over_text)

    def _match_length(self):
        """The match's length in points (0: money play or draughts)."""
        return getattr(self.game, "match_length", 0)

    def _game_number(self):
        """The number of the game in play (a match's games; 1 otherwise)."""
        return self.game.game_number() if self._match_length() else 1

    def _agent_step(self):
        """One agent action (in the pool when there is one)."""
        player = self._acting()
        if self.pool is not None:
            self._apply(player, *self.pool.think(self.cfgs[player], self.game))
        else:
            self._apply(player, *think(self.agents[player], self.game))

    def _agent_turn(self):
        """The agent's actions until the person is to act (a worker plays them in one trip, a
        quick agent one at a time), or one."""
        player = self._acting()
        if self.pool is None:
            return self._agent_step()
        for action, text in self.pool.turn(self.cfgs[player], self.game):
            self._apply(player, action, text)

    def _apply(self, player, action, text):
        """Play player's agent's action; its evaluation (where it has one) kept for the move
        list."""
        if self.game_name == "backgammon":
            index = len(self.env.turns) - 1
        else:
            index = len(self.env.moves)
        self.game.step(action)
        if text is not None:
            self.game.notes[index] = f"{self.names[player]}: {text}"
            self.evaluation = self.game.notes[index] + (
                " after its play" if self.game_name == "backgammon" else ""
            )

    def _agents_play(self):
        """In play mode, the agent's replies until the person is to act or the game ends."""
        if self.mode == "play":
            for _ in range(MAX_AGENT_STEPS):
                if self.env.is_over or self._acting() == self.seat:
                    break
                self._agent_turn()
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
        before = len(self.game.actions) if self._turn_start() else None
        number = self._game_number()
        cube = fields.get(body, "cube", str)
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
            action = fields.get(body, "action", int)
            legal = {m["action"] for m in self.legal()}
            if action not in legal:
                raise BadRequest(f"illegal move (action {action}): pick a highlighted one")
            self._play(action)
        if before is not None:
            self.history.append((before, len(self.log)))
        self._agents_play()
        if self._game_number() != number:
            self.history.clear()  # undo stays within the game of a match in play
        self.save()

    def _play(self, action):
        """Step the env with a legal action given as legal() lists it."""
        if self.game_name == "draughts":
            side = int(self.env.state[S_SIDE])  # kernel frame -> the mover's frame
            self.game.step(int(dr_core.VIEW_ACTION[side, action]))
        else:
            self.game.step(int(action))

    def step(self):
        """Watch mode: one agent action (a draughts hop, a checker move or a cube decision)."""
        if self.mode != "watch":
            raise BadRequest("step is for watched games")
        if self.env.is_over:
            raise BadRequest("the game is over")
        self._agent_step()
        self._news()
        self.save()

    def undo(self):
        if self.mode != "play":
            raise BadRequest("undo is for games you play")
        if not self.history:
            raise BadRequest("nothing to take back")
        n_actions, n = self.history.pop()
        self.game = self._rebuilt(self.game.actions[:n_actions], self.game.notes)
        del self.log[n:]
        self.over_text = None
        self.log.append("taken back")
        self.save()

    def record(self):
        """(file name, text) of the game so far: PDN or a gnubg match file."""
        try:
            text = self.game.record()
        except ValueError as e:
            raise BadRequest(f"cannot write this game: {e}") from None
        if self.game_name == "draughts":
            return "game.pdn", text
        return ("match.mat" if self._match_length() else "game.mat"), text

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
            "archive": self.recorder.problem,
            "actions": len(self.game.actions),
        }
        if self.game_name == "draughts":
            view["board"] = draughts_board(env.state, env.last_move())
            view["fen"] = env.fen() if env.state[S_CAP_SQ] < 0 else None  # none mid-chain
        else:
            view["board"] = backgammon_board(env.state, self.seat or 0, env.last_move())
            view["cube_choices"] = self.game.cube_choices() if not env.is_over else []
            view["position_id"] = backgammon_ids.position_id(env.state)
            dice = None if env.is_over else env.infos[env.agent_selection].get("dice")
            view["dice"] = list(dice) if dice else []
            view["match"] = self.match_view() if self._match_length() else None
        return view

    def match_view(self):
        """The match for the page: BackgammonGame.match_score (length, score, game, Crawford,
        post-Crawford, winner) with the gnubg Match ID and how the last finished game ended
        (sessions.game_end_line)."""
        games = self.env.games
        return {
            **self.game.match_score(),
            "match_id": self.env.match_id(),
            "last_game": self.game.game_end_line(len(games) - 1, self.seat) if games else None,
        }


class Games:
    """The games on the server, by id (least recently used dropped from memory past max_games;
    with an archive, a game not in memory is taken up again from it)."""

    def __init__(
        self, max_games=MAX_GAMES, archive=None, pool=None, limits=None, max_client_games=None
    ):
        self.max_games = max_games
        self.archive = archive
        self.pool = pool  # thinking.Pool of the agents' moves, or None: in this process
        self.limits = limits or Limits()
        self.max_client_games = max_client_games  # unfinished games in memory per client
        self.lock = threading.Lock()
        self.loading = threading.Lock()  # one game taken up from the archive at a time
        self.games = OrderedDict()

    def new(self, body, client=None):
        """A new game (Session of body) for client (its address), kept; its id. BadRequest
        (429) when client already has max_client_games unfinished games here."""
        if self.max_client_games is not None and client is not None:
            with self.lock:
                mine = sum(
                    1 for s in self.games.values() if s.client == client and not s.env.is_over
                )
            if mine >= self.max_client_games:
                raise BadRequest(
                    f"you have {mine} unfinished games on this server, its limit: finish one "
                    "or wait",
                    429,
                )
        session = Session(body, self.archive, pool=self.pool, limits=self.limits)
        session.client = client
        self._keep(session.uid, session)
        return session.uid

    def _keep(self, sid, session):
        with self.lock:
            self.games[sid] = session
            while len(self.games) > self.max_games:
                self.games.popitem(last=False)
            if self.archive is not None:
                self._drop_finished()

    def _drop_finished(self):
        """Drop from memory the finished games the archive holds, but the MAX_FINISHED most
        recently used (and any in a request now, or whose last save failed)."""
        finished = [
            sid for sid, s in self.games.items() if s.env.is_over and s.recorder.problem is None
        ]
        for sid in finished[: max(0, len(finished) - MAX_FINISHED)]:
            session = self.games[sid]
            if session.lock.acquire(blocking=False):
                try:
                    del self.games[sid]
                finally:
                    session.lock.release()

    def _find(self, sid):
        with self.lock:
            session = self.games.get(sid)
            if session is not None:
                self.games.move_to_end(sid)
            return session

    def get(self, sid):
        session = self._find(sid)
        if session is not None:
            return session
        if self.archive is not None:
            with self.loading:
                session = self._find(sid)  # taken up meanwhile by another request
                if session is not None:
                    return session
                row = self.archive.get(sid)
                if row is not None and row["source"] in ("web-play", "web-watch"):
                    session = Session(
                        row["settings"], self.archive, row, pool=self.pool, limits=self.limits
                    )
                    self._keep(sid, session)
                    return session
        raise BadRequest(f"no game {sid!r} on this server (start a new game)", 404)
