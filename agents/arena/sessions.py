"""What a game against an agent is, for every front end (``boardgym play``, ``boardgym serve``).

The agent is loaded by ``boardgym.agents.registry.load_spec`` (a name, a ``name:key=value``
spec or a checkpoint path) with its options (``depth``, ``time_limit``, ``key=value``);
``DraughtsGame`` / ``BackgammonGame`` hold one game in the AEC env (russian_draughts_v0,
backgammon_v0): the person's move in notation, the agent's move, what happened since the last
report, the outcome (G.1, G.2a-G.2e; O.3, C.2) and the record (PDN, gnubg match text); each
keeps every env action it took (``actions``), so that the game can be played again from its
settings (``replayed``) and kept in the game archive (``archive_row``, agents/arena/archive.py).
Settings are duck-typed: any object with the fields of ``boardgym play``'s Settings that a
function reads (``max_moves``, the game-length cap, is optional).

A ``BackgammonGame`` whose settings have ``match`` N > 0 is a whole match to N points
(boardgym/RULES.md MP.1-MP.8; backgammon_v0 with ``match_length=N``), from 0-0 or from the
settings' ``score`` (player_0's, player_1's) and ``crawford`` (MP.7): the env starts each next
game itself, ``news`` says how each game ended and the score, ``board`` shows the score, the
Crawford marker and the gnubg Match ID, an agent with ``set_match(length, score_me, score_opp,
crawford, post_crawford)`` is told the score from its seat before it acts, and ``record`` is the
whole match so far as a gnubg match file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from boardgym.agents import registry
from boardgym.agents.arena import archive
from boardgym.envs import backgammon_notation as bg_api
from boardgym.envs import backgammon_v0, russian_draughts_v0
from boardgym.envs import draughts as dr_api
from boardgym.kernels.backgammon import game as bg_core
from boardgym.kernels.draughts import game as dr_core
from boardgym.kernels.draughts import outcome
from boardgym.kernels.draughts.board import S_BK, S_BM, S_SIDE, S_WK, S_WM


def parse_dice(value: str | Sequence[int | str] | None) -> tuple[int, int] | None:
    """(d1, d2) of a roll as ``--dice`` gives it (``3-1``, ``31``, ``3 1``, or the two values
    ``3 1`` as two strings: backgammon_notation.parse_dice), or None for None or no values;
    ValueError naming --dice if malformed."""
    if value is None or isinstance(value, (list, tuple)) and not value:
        return None
    try:
        return bg_api.parse_dice(value)
    except ValueError as e:
        raise ValueError(f"--dice: {e}") from None


def agent_options(cfg: Any) -> dict[str, Any]:
    """Keyword options for the agent from --depth, --time-limit and --agent-option key=value
    (registry.parse_option); ValueError naming --agent-option if one is not key=value."""
    opts = {}
    if cfg.depth is not None:
        opts["depth"] = cfg.depth
    if cfg.time_limit is not None:
        opts["time_limit"] = cfg.time_limit
    for item in cfg.agent_option:
        try:
            key, value = registry.parse_option(item)
        except ValueError as e:
            raise ValueError(f"--agent-option: {e}") from None
        opts[key] = value
    return opts


# ----------------------------------------------------------------------------- the agent
def load_agent(cfg: Any) -> registry.Agent:
    """The agent of cfg (registry.load_spec of cfg.agent with agent_options, seeded by cfg.seed)
    for cfg.game; ValueError naming the problem (other game, bad options)."""
    agent = registry.load_spec(cfg.agent, cfg.game, seed=cfg.seed, **agent_options(cfg))
    _check_agent_game(agent, cfg)
    return agent


def _check_agent_game(agent, cfg):
    """ValueError if a policy's spaces are not those of the env of cfg (with or without the
    cube, money play or a match)."""
    model = getattr(agent, "model", None)  # a PPO policy: compare its spaces with the env's
    if hasattr(model, "observation_space"):  # (a TDAgent's model is the name of its inputs)
        match = int(getattr(cfg, "match", 0) or 0)
        env = (
            russian_draughts_v0.raw_env()
            if cfg.game == "draughts"
            else backgammon_v0.raw_env(match_length=match)
            if match
            else backgammon_v0.raw_env(cube=cfg.cube)
        )
        obs = env.observation_space("player_0")["observation"].shape
        n = env.action_space("player_0").n
        p_obs = tuple(getattr(model.observation_space, "shape", ()) or ())
        p_n = getattr(model.action_space, "n", None)
        if p_obs != tuple(obs) or (p_n is not None and int(p_n) != n):
            which = f"{cfg.game}{' with the cube' if cfg.cube else ''}"
            if match:
                which = "backgammon match play"
            raise ValueError(
                f"agent {cfg.agent}: the policy takes observations {p_obs} and "
                f"{p_n} actions; {which} has {tuple(obs)} and {n}: it is not a "
                f"{which} policy"
            )


# ----------------------------------------------------------------------------- the two games
class DraughtsGame:
    """A draughts game in the AEC env, with what the agent played since the last report."""

    def __init__(self, cfg: Any, names: Sequence[str]) -> None:
        self.names = names
        self.env = russian_draughts_v0.raw_env(max_moves=getattr(cfg, "max_moves", None))
        self.env.reset(seed=cfg.seed, options={"fen": cfg.fen} if cfg.fen else None)
        self.first = 0 if self.env.start_fen.lstrip("[").upper().startswith("W") else 1
        self.seen = 0
        self.notes = {}  # move index -> the agent's evaluation, shown after the move in news
        self.actions = []  # every env action so far: the game again from its settings

    def step(self, action: int) -> None:
        """Play an env action (the mover's frame) and keep it in actions."""
        self.env.step(int(action))
        self.actions.append(int(action))

    def board(self, seat: int) -> str:
        """The text board from seat's side with the last move and, once over, who won."""
        return self.env.render_text(perspective=seat)

    def prompt(self, me: int) -> str:
        return f"your move ({'White' if me == 0 else 'Black'}):"

    def legal(self) -> list[str]:
        return dr_api.legal_moves(self.env.state)

    def play_text(self, text: str) -> None:
        """Play the person's move; ValueError if it is not legal."""
        state = self.env.state
        side = int(state[S_SIDE])
        for a in dr_api.move_to_actions(state, text):  # kernel frame -> the mover's frame
            self.step(int(dr_core.VIEW_ACTION[side, a]))

    def choose(self, agent: registry.Agent) -> int:
        """The agent's action now (the game is not changed)."""
        env = self.env
        if hasattr(agent, "act_state"):
            return int(agent.act_state(env.state))
        obs = env.observe(env.agent_selection)
        return int(agent.act(obs["observation"], obs["action_mask"]))

    def agent_step(self, agent: registry.Agent) -> None:
        self.step(self.choose(agent))

    def news(self, me: int | None, own: bool = False) -> list[str]:
        """Lines saying what the agent played since the last call (me None or own: both
        sides)."""
        lines = []
        for i in range(self.seen, len(self.env.moves)):
            side = (self.first + i) % 2
            if side != me or own:
                lines.append(
                    f"{self.names[side]} ({'White' if side == 0 else 'Black'}) "
                    f"played {self.env.moves[i]}" + _note(self.notes, i)
                )
        self.seen = len(self.env.moves)
        return lines

    def outcome(self) -> tuple[int | None, str]:
        """(winner 0/1 or None, how) of the finished game."""
        code = self.env.status()
        if code in (dr_core.WHITE_WON, dr_core.BLACK_WON):
            winner = 0 if code == dr_core.WHITE_WON else 1
            s = self.env.state
            gone = (s[S_BM] | s[S_BK]) == 0 if winner == 0 else (s[S_WM] | s[S_WK]) == 0
            loser = "Black" if winner == 0 else "White"
            why = "has no pieces left" if gone else "is blocked: no legal move"
            return winner, f"{loser} {why} (G.1)"
        if code in _DRAW_TEXT:
            return None, _DRAW_TEXT[code]
        return None, "the game was stopped at the move cap (a truncation, not a result)"

    def record(self) -> str:
        return self.env.pdn(White=self.names[0], Black=self.names[1])

    def points(self) -> tuple[float | None, bool]:
        """(the winner's points or None, whether the game was stopped at the cap) of the
        finished game."""
        code = self.env.status()
        if code in (dr_core.WHITE_WON, dr_core.BLACK_WON):
            return 1.0, False
        return None, code not in _DRAW_TEXT


def _note(notes, index):
    """'  [note]' for a move or turn with a note (an agent's evaluation), else ''."""
    return f"  [{notes[index]}]" if index in notes else ""


_DRAW_TEXT = {  # outcome codes -> how the draw came
    outcome.DRAW_REPETITION: "draw by repetition: the same position for the third time (G.2a)",
    outcome.DRAW_THREE_KINGS: "draw: three kings against a lone king for 15 moves without "
    "taking it (G.2b)",
    outcome.DRAW_KINGS_ONLY: "draw: 15 moves of kings only, no man moved and nothing "
    "captured (G.2c)",
    outcome.DRAW_BALANCE: "draw: kings on both sides and no capture or crowning for 30/60 "
    "moves (G.2d)",
    outcome.DRAW_LONG_DIAGONAL: "draw: the lone king held the long diagonal a1-h8 for 5 "
    "moves (G.2e)",
}


def flip_points(text: str) -> str:
    """Play text with points renumbered from the other side (p -> 25 - p; bar, off unchanged)."""
    return re.sub(r"(?<![\d(])(\d{1,2})(?![\d)])", lambda m: str(25 - int(m.group(1))), text)


_KINDS = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


class BackgammonGame:
    """A backgammon game (a match when cfg.match > 0) in the AEC env, with what the agent did
    since the last report."""

    def __init__(self, cfg: Any, names: Sequence[str]) -> None:
        self.names = names
        self.match_length = int(getattr(cfg, "match", 0) or 0)
        cap = getattr(cfg, "max_moves", None)
        if self.match_length:
            self.env = backgammon_v0.raw_env(match_length=self.match_length, max_turns=cap)
        else:
            self.env = backgammon_v0.raw_env(scoring="gammon", cube=cfg.cube, max_turns=cap)
        options = {}
        if cfg.position_id is not None:
            options["position_id"] = cfg.position_id
        dice = parse_dice(cfg.dice)
        if dice is not None:
            options["dice"] = list(dice)
        score = getattr(cfg, "score", None)
        if self.match_length and score:  # a match from a given score (MP.7; () or None: 0-0)
            options["score"] = tuple(score)
            options["crawford"] = bool(getattr(cfg, "crawford", False))
        self.env.reset(seed=cfg.seed, options=options)
        self.seen = 0  # turns of the game being reported that news has reported
        self.reported = 0  # finished games of a match that news has reported
        self.before = {}  # turn index -> the position its play started from
        self.notes = {}  # turn index -> the agent's evaluation, shown after the turn in news
        self.actions = []  # every env action so far: the game again from its settings
        self._past = []  # (before, notes) of each finished game of a match
        self._told = {}  # id(agent) -> the match score it was last told

    def step(self, action: int) -> None:
        """Play an env action (a checker move or a cube action) and keep it in actions; in a
        match, a game it ends is put aside with its positions and notes."""
        if action < bg_core.N_ACTIONS:
            self.remember()
        self.env.step(int(action))
        self.actions.append(int(action))
        self._next_game()

    def game_number(self) -> int:
        """The number of the game in play from 1 (a finished match: its last game; money play:
        1)."""
        if not self.match_length:
            return 1
        return int(self.env.infos["player_0"]["game"])

    def board(self, seat: int) -> str:
        """The text board from seat's side (its numbering, its home at the bottom right) with
        the last play and, once over, who won; in a match with the match line."""
        if not self.match_length:
            return self.env.render_text(perspective=seat)
        return self.env.render_text(perspective=seat).rstrip() + "\n" + self.match_line(seat)

    def match_line(self, seat: int) -> str:
        """' Match ID ...; game k: you a, agent b': the gnubg Match ID (match length, score,
        Crawford flag, cube, dice) and the score from seat's side, post-Crawford said."""
        m = self.env.match
        score = [int(m[bg_core.M_SCORE]), int(m[bg_core.M_SCORE + 1])]
        if self.env.is_over and self.env.games:  # the board is the last game's: its score
            score = list(self.env.games[-1]["score"])
        mine, theirs = score[seat], score[1 - seat]
        flag = ""
        if m[bg_core.M_CRAWFORD]:
            flag = " (the Crawford game: no doubling, MP.5)"
        elif m[bg_core.M_POST]:
            flag = " (post-Crawford, MP.6)"
        return (
            f" Match ID {self.env.match_id()}; game {self.game_number()}: "
            f"you {mine}, {self.names[1 - seat]} {theirs}{flag}"
        )

    def match_score(self) -> dict[str, Any] | None:
        """The match so far (None in money play): {"length", "score" (player_0's, player_1's;
        the final score once the match is over), "game" (the number of the game in play),
        "crawford", "post_crawford" (of the game in play; False once over), "winner" (None
        until the match is over)}; what the archive keeps in its score column."""
        if not self.match_length:
            return None
        m, g = self.env.match, bg_core
        over = bool(self.env.is_over)
        return {
            "length": self.match_length,
            "score": [int(m[g.M_SCORE]), int(m[g.M_SCORE + 1])],
            "game": self.game_number(),
            "crawford": bool(m[g.M_CRAWFORD]) and not over,
            "post_crawford": bool(m[g.M_POST]) and not over,
            "winner": None if m[g.M_WINNER] < 0 else int(m[g.M_WINNER]),
        }

    def cube_choices(self) -> list[str]:
        """The cube decisions open now (C.1-C.2): ['roll', 'double'], ['take', 'drop'] or []."""
        mask = self.env.legal_mask()
        g = bg_core
        if mask.shape[0] > g.N_ACTIONS and not mask[: g.N_ACTIONS].any():
            return [
                w
                for w, a in (
                    ("roll", g.ACTION_ROLL),
                    ("double", g.ACTION_DOUBLE),
                    ("take", g.ACTION_TAKE),
                    ("drop", g.ACTION_DROP),
                )
                if mask[a]
            ]
        return []

    def prompt(self, me: int) -> str:
        choices = self.cube_choices()
        if choices == ["take", "drop"]:
            value = 2 * int(self.env.state[bg_core.CUBE_VALUE])
            return f"{self.names[1 - me]} doubles to {value}: 'take' or 'drop'?"
        if choices:
            return "before your roll: 'roll' or 'double'?"
        d1, d2 = self._dice()
        return f"you rolled {d1}-{d2}: your play (your numbering):"

    def _dice(self):
        return self.env.infos[self.env.agent_selection]["dice"]

    def legal(self) -> list[str]:
        choices = self.cube_choices()
        if choices:
            return choices
        d1, d2 = self._dice()
        state = self.env.state
        rows = np.zeros((bg_core.MAX_AFTERSTATES, state.shape[0]), np.int64)
        n = bg_core.plays_of_roll(state, d1, d2, rows, None)
        return sorted(bg_api.play_to_str(state, d1, d2, rows[k]) for k in range(n))

    def play_text(self, text: str) -> None:
        choices = self.cube_choices()
        g = bg_core
        words = {
            "roll": g.ACTION_ROLL,
            "double": g.ACTION_DOUBLE,
            "take": g.ACTION_TAKE,
            "drop": g.ACTION_DROP,
        }
        word = text.strip().lower()
        if choices:
            if word not in choices:
                raise ValueError(f"{text!r} is not a cube decision here")
            self.step(words[word])
            return
        if word in words:
            raise ValueError("no cube decision now: the dice are rolled, play them")
        d1, d2 = self._dice()
        self.remember()
        for a in bg_api.play_actions(self.env.state, d1, d2, text):  # ValueError if illegal
            self.step(a)

    def remember(self) -> None:
        """Keep the position a play starts from (to write the play in notation later)."""
        env = self.env
        if env.turns and bg_core.dice_of(env.state)[0] > 0:
            self.before.setdefault(len(env.turns) - 1, env.state.copy())

    def _next_game(self) -> None:
        """After an action in a match: when a new game has begun, keep the finished game's
        positions and notes (for its news) and start empty ones."""
        while len(self._past) < self.game_number() - 1:
            self._past.append((self.before, self.notes))
            self.before, self.notes = {}, {}

    def tell_match(self, agent: registry.Agent) -> None:
        """Tell an agent with ``set_match`` the match score from the seat it acts for (length,
        its score, the opponent's, Crawford, post-Crawford) when that changed; nothing in money
        play."""
        tell = getattr(agent, "set_match", None)
        if not self.match_length or not callable(tell):
            return
        seat = int(self.env.agent_selection[-1])
        m = self.env.match
        told = (
            self.match_length,
            int(m[bg_core.M_SCORE + seat]),
            int(m[bg_core.M_SCORE + 1 - seat]),
            bool(m[bg_core.M_CRAWFORD]),
            bool(m[bg_core.M_POST]),
        )
        if self._told.get(id(agent)) != told:
            self._told[id(agent)] = told
            tell(*told)

    def choose(self, agent: registry.Agent) -> int:
        """The agent's action now: its cube decision (its own cube policy, where it has one) or
        a checker move (the game is not changed); an agent with set_match is told the score."""
        env, g = self.env, bg_core
        self.tell_match(agent)
        mask = env.legal_mask()
        if (
            mask.shape[0] > g.N_ACTIONS
            and not mask[: g.N_ACTIONS].any()
            and hasattr(agent, "cube_action")
        ):
            # the agent's own cube policy (its ``cube`` option); one without a net never doubles
            return int(agent.cube_action(env.state, bool(mask[g.ACTION_TAKE])))
        if hasattr(agent, "act_state") and mask[: g.N_ACTIONS].any():
            return int(agent.act_state(env.state))
        obs = env.observe(env.agent_selection)
        return int(agent.act(obs["observation"], obs["action_mask"]))

    def agent_step(self, agent: registry.Agent) -> None:
        self.step(self.choose(agent))

    def _turn_text(self, k, t, me, before):
        who = self.names[t["player"]]
        cube = t.get("cube")
        s = "" if who == "you" else "s"
        if cube == "double":
            return f"{who} double{s} to {t['value']}"
        if cube in ("take", "drop"):
            return f"{who} {cube}{s}"
        d1, d2 = t["dice"]
        if not t["moves"]:
            return f"{who} rolled {d1}-{d2} and cannot move"
        raw = " ".join(
            f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}{'*' if hit else ''}"
            for a, b, hit in t["moves"]
        )
        text = raw
        if k in before:
            try:
                text = bg_api.play_to_str(before[k], d1, d2, raw)
            except ValueError:
                text = raw
        mine = (
            "" if me is None or t["player"] == me else f" ({flip_points(text)} in your numbering)"
        )
        return f"{who} rolled {d1}-{d2} and played {text}{mine}"

    def news(self, me: int | None, own: bool = False) -> list[str]:
        """Lines saying what happened since the last call but the person's own plays and cube
        answers (unless own): the agent's rolls, plays and cube actions, the person's lost rolls
        (me None: a spectator, told everything); in a match also how each game ended and the
        score after it (game_end_line)."""
        env, lines = self.env, []
        if self.match_length:
            games = env.games
            while self.reported < len(games):  # finished games not yet reported to their end
                k = self.reported
                before, notes = self._past[k] if k < len(self._past) else (self.before, self.notes)
                turns = games[k]["turns"]
                lines += self._turn_lines(turns, len(turns), me, own, before, notes)
                lines.append(self.game_end_line(k, me))
                self.reported, self.seen = k + 1, 0
            if env.is_over:
                return lines
        end = len(env.turns)
        if (
            not env.is_over
            and (me is None or env.agent_selection == f"player_{me}")
            and not self.cube_choices()
        ):
            end -= 1  # the person's (a spectator: the mover's) roll in progress
        return lines + self._turn_lines(env.turns, end, me, own, self.before, self.notes)

    def _turn_lines(self, turns, end, me, own, before, notes):
        """news' lines of turns[self.seen:end]; self.seen moves on to end."""
        lines = []
        for k in range(self.seen, end):
            t = turns[k]
            if not own and t["player"] == me and (t.get("cube") or t["moves"]):
                continue
            lines.append(self._turn_text(k, t, me, before) + _note(notes, k))
        self.seen = max(self.seen, end)
        return lines

    def game_end_line(self, k: int, me: int | None) -> str:
        """How game k (from 0) of the match ended (winner, kind, cube, points, MP.2's cap) and
        the score after it; the match's winner, or the Crawford game that comes next."""
        g = self.env.games[k]
        if g["winner"] is None:
            return (
                f"game {k + 1} stopped: neither side can ever move again (a truncation); "
                "the match ends unfinished"
            )
        winner, points, credited = g["winner"], g["points"], g["credited"]
        how = _how(self.names, winner, g["kind"], points)
        if credited < points:
            how += f", {credited} counted (all that was needed, MP.2)"
        score = list(g["score"])
        score[winner] += credited
        who = "you win" if winner == me else f"{self.names[winner]} wins"
        line = (
            f"game {k + 1} over: {who} (player_{winner}): {how}; "
            f"match to {self.match_length}, score {score[0]}-{score[1]}"
        )
        if max(score) >= self.match_length:
            return line + f"; {who} the match"
        if k + 1 < len(self.env.games):
            return line
        if self.env.match[bg_core.M_CRAWFORD]:
            line += f"; game {k + 2} is the Crawford game (no doubling, MP.5)"
        return line

    def outcome(self) -> tuple[int | None, str]:
        """(winner 0/1 or None, how) of the finished game; of a match: its winner and the final
        score."""
        if self.match_length:
            m = self.env.match
            a, b = int(m[bg_core.M_SCORE]), int(m[bg_core.M_SCORE + 1])
            winner = int(m[bg_core.M_WINNER])
            if winner < 0:
                return None, f"the match to {self.match_length} is not finished (score {a}-{b})"
            n = len(self.env.games)
            games = f"{n} game{'s' if n != 1 else ''}"
            return winner, f"the match to {self.match_length}, {a}-{b} after {games}"
        result = self.env.result
        if result is None:
            return None, "the game was stopped: neither side can ever move again (a truncation)"
        winner, kind, points = result
        return winner, _how(self.names, winner, kind, points)

    def record(self) -> str:
        """The game as gnubg match text; a match: every game so far, the one in play with a roll
        in progress as its dice alone (backgammon_v0.match_text)."""
        return self.env.match_text(names=self.names)

    def points(self) -> tuple[float | None, bool]:
        """(the winner's points or None, whether the game was stopped) of the finished game."""
        result = self.env.result
        return (None, True) if result is None else (float(result[2]), False)


def _how(names, winner, kind, points):
    """How a backgammon game was won: a dropped double (kind 0, C.2) or its kind (O.3) with the
    cube, and the points."""
    pts = f"{points} point{'s' if points != 1 else ''}"
    if kind == 0:
        return f"{names[1 - winner]} dropped the double (C.2): {pts}"
    value = points // kind
    cube = f", cube at {value}" if value > 1 else ""
    return f"{_KINDS[kind]} (O.3{cube}): {pts}"


# ----------------------------------------------------------------------------- the archive
def replayed(
    game: str,
    names: Sequence[str],
    actions: Sequence[int],
    seed: int | None = 0,
    cube: bool = False,
    max_moves: int | None = None,
) -> DraughtsGame | BackgammonGame:
    """The game of a match harness (matches.play_match's keep) again: the env's reset(seed)
    from the start, then actions; ValueError if one is not legal."""
    cfg = SimpleNamespace(
        seed=seed, fen=None, position_id=None, dice=None, cube=cube, max_moves=max_moves
    )
    out = DraughtsGame(cfg, names) if game == "draughts" else BackgammonGame(cfg, names)
    for a in actions:
        out.step(a)
    return out


def archive_row(
    game: DraughtsGame | BackgammonGame,
    source: str,
    settings: dict[str, Any],
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The archive row (``archive.Archive.save``) of a game so far: its players, settings (a
    JSON-able dict, its ``seed`` also in its own column), actions, result, the match score of
    a backgammon match (``BackgammonGame.match_score``; None otherwise) and record (None for a
    backgammon game from a Position ID, which a match file cannot start from)."""
    env = game.env
    over = bool(env.is_over)
    winner = how = points = None
    stopped = False
    if over:
        winner, how = game.outcome()
        points, stopped = game.points()
    try:
        record = game.record()
    except ValueError:
        record = None
    return {
        "game": "draughts" if isinstance(game, DraughtsGame) else "backgammon",
        "source": source,
        "player_0": str(game.names[0]),
        "player_1": str(game.names[1]),
        "settings": settings,
        "seed": settings.get("seed"),
        "actions": list(game.actions),
        "extra": extra or {},
        "over": over,
        "result": archive.result_of(winner, over, stopped),
        "how": how,
        "points": points,
        "score": game.match_score() if isinstance(game, BackgammonGame) else None,
        "record": record,
    }
