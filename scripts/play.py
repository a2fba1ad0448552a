"""Play an agent in the terminal, either game, either seat; moves typed in the usual notation.

    boardgym play --game draughts --agent draughts-alphabeta --seat 1 --depth 8 --save game.pdn
    boardgym play --game draughts --agent greedy --fen "W:W21,22:B1,K30"
    boardgym play --game backgammon --agent backgammon-td --seat 1 --cube --save game.mat
    boardgym play --game backgammon --agent backgammon-expectimax --depth 1 --position-id 4HPwATDgc/ABMA

Draughts moves: ``c3-d4``, ``c3:e5:g3`` (or ``c3xe5``, numeric ``22-17``; a capture may be given by
its start and end when that is unambiguous). Backgammon plays, in your own numbering (the board is
drawn from your side): ``24/18 13/11``, ``bar/22*``, ``6/off``, ``8/5(2)``; the dice are rolled by
the env (seeded by ``--seed``), a roll that cannot be played passes by itself (E.3, E.7). With
``--cube`` (money play, C.1-C.2) you answer ``roll`` or ``double`` before your roll and ``take``
or ``drop`` when the agent doubles; the agents with a net decide by their equity, the others never
double and always take.

After every move of the agent you see what it played (and its dice, with the play also in your
numbering). Commands: ``moves`` lists your legal moves, ``undo`` takes back your last move (and
the agent's reply), ``save [PATH]`` writes the game so far (PDN for draughts, a Jellyfish/gnubg
match file for backgammon), ``help``, ``quit``. Illegal input is answered with the legal options.
At the end you are told who won and how (G.1 or the draw rule G.2a-G.2e; single game, gammon or
backgammon, O.3, or a dropped double, C.2, with the points).

The agent is any name ``boardgym.agents.load`` knows for the game (``greedy``,
``draughts-alphabeta``, ``backgammon-td``, ...) or a checkpoint path: ``.zip``/``.pt`` MaskablePPO
policy, ``.npz`` learned evaluation (draughts alpha-beta search) or TD net (backgammon). Its
options: ``--depth``, ``--time-limit`` (the draughts search; ``--depth`` 1 or 2 for
backgammon-expectimax) or any ``--agent-option key=value``. An agent of the other game is refused.
Input is read line by line from standard input, so a session can be scripted.
"""
from __future__ import annotations

import ast
import copy
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

import numpy as np

from boardgym.envs import backgammon_notation as bg_api
from boardgym.envs import backgammon_render, backgammon_v0, russian_draughts_v0
from boardgym.envs import draughts as dr_api
from boardgym.kernels.backgammon import game as bg_core
from boardgym.kernels.draughts import game as dr_core
from boardgym.kernels.draughts import outcome
from boardgym.kernels.draughts.board import S_BK, S_BM, S_SIDE, S_WK, S_WM
from boardgym.scripts import cli

COMMANDS_HELP = ("commands: 'moves' (your legal moves), 'undo', 'save [PATH]', 'help', 'quit'")


@dataclass
class Settings:
    """Settings of one game against an agent."""

    game: Literal["draughts", "backgammon"] = "draughts"
    """which game to play"""
    agent: str = "greedy"
    """agent name (boardgym.agents.load: e.g. greedy, draughts-alphabeta, backgammon-td) or a
    checkpoint path (.zip/.pt PPO policy, .npz learned evaluation or TD net)"""
    seat: Literal[0, 1] = 0
    """your seat: 0 (player_0: White in draughts, who moves first) or 1"""
    seed: int = 0
    """seed of the dice (backgammon) and of the agent's tie-breaks"""
    fen: str | None = None
    """draughts: start from this PDN FEN (e.g. W:W21,22:B1,K30)"""
    position_id: str | None = None
    """backgammon: start from this gnubg Position ID; its player on roll is player_0"""
    dice: str | None = None
    """backgammon: the first roll, e.g. 3-1 (none: rolled); with it and no --position-id,
    player_0 is on roll at the standard start"""
    cube: bool = False
    """backgammon: play with the doubling cube (money play, C.1-C.2)"""
    depth: int | None = None
    """agent option: search depth in plies (draughts alpha-beta; 1 or 2 for
    backgammon-expectimax)"""
    time_limit: float | None = None
    """agent option: seconds per move (draughts alpha-beta)"""
    agent_option: list[str] = field(default_factory=list)
    """further agent options as key=value (e.g. tt_bits=20 width=4)"""
    save: str | None = None
    """write the game to this file at the end (PDN for draughts, gnubg/Jellyfish .mat for
    backgammon)"""

    def check(self):
        cli.require(self.fen is None or self.game == "draughts",
                    "--fen is a draughts position; for backgammon use --position-id")
        cli.require(self.position_id is None and self.dice is None and not self.cube
                    or self.game == "backgammon",
                    "--position-id, --dice and --cube are for --game backgammon")
        cli.require(self.depth is None or self.depth >= 1,
                    f"--depth must be at least 1, got {self.depth}")
        cli.require(self.time_limit is None or self.time_limit > 0,
                    f"--time-limit must be a positive number of seconds, got {self.time_limit}")
        agent_options(self)  # key=value syntax
        if self.fen is not None:
            try:
                dr_api.from_fen(self.fen)
            except (ValueError, TypeError) as e:
                raise cli.UsageError(f"--fen: {e}") from None
        if self.position_id is not None:
            try:
                start = bg_api.position_from_id(self.position_id)
            except (ValueError, TypeError) as e:
                raise cli.UsageError(f"--position-id: {e}") from None
            standard = bg_api.position_id(start) == bg_api.position_id(bg_api.initial_state())
            cli.require(self.save is None or standard,
                        "--save writes a gnubg match file, which starts from the standard "
                        "position: it cannot record a game from --position-id")
        parse_dice(self.dice)
        if self.save is not None:
            folder = Path(self.save).expanduser().resolve().parent
            cli.require(folder.is_dir(), f"--save: no directory {folder} to write {self.save} in")


def parse_dice(text):
    """(d1, d2) of '3-1' / '31' / '3 1', or None; UsageError naming --dice if malformed."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*([1-6])\s*[-, ]?\s*([1-6])\s*", text)
    if not m:
        raise cli.UsageError(f"--dice: expected two dice 1..6 such as 3-1, got {text!r}")
    return int(m.group(1)), int(m.group(2))


def _value(text):
    """An option value: a Python literal (number, True/False/None, quoted string) or the text."""
    low = text.strip().lower()
    if low in ("none", "true", "false"):
        return {"none": None, "true": True, "false": False}[low]
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def agent_options(cfg):
    """Keyword options for the agent from --depth, --time-limit and --agent-option key=value."""
    opts = {}
    if cfg.depth is not None:
        opts["depth"] = cfg.depth
    if cfg.time_limit is not None:
        opts["time_limit"] = cfg.time_limit
    for item in cfg.agent_option:
        key, sep, val = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key.isidentifier():
            raise cli.UsageError(f"--agent-option: expected key=value, got {item!r}")
        opts[key] = _value(val)
    return opts


# ----------------------------------------------------------------------------- the agent
def _npz_game(path):
    """'draughts' (a learned evaluation), 'backgammon' (a TD net) or None for a .npz file."""
    try:
        with np.load(path) as z:
            files = set(z.files)
    except (OSError, ValueError) as e:
        raise ValueError(f"--agent {path}: cannot read it as an .npz checkpoint ({e})") from None
    if {"kind", "w1", "scale"} <= files:
        return "draughts"
    if {"w1", "b1", "w2", "b2"} <= files:
        return "backgammon"
    return None


def _construct(name, factory, opts, seed):
    """factory(**opts, seed=seed), without seed if the agent takes none; an option the agent
    does not take is named (UsageError)."""
    for kwargs in ({**opts, "seed": seed}, opts):
        try:
            return factory(**kwargs)
        except TypeError as e:
            bad = re.search(r"unexpected keyword argument '(\w+)'", str(e))
            if bad is None:
                raise
            if bad.group(1) == "seed" and "seed" not in opts and "seed" in kwargs:
                continue  # this agent draws nothing at random
            raise cli.UsageError(f"agent {name} takes no option {bad.group(1)!r}") from None


def load_agent(cfg):
    """The agent of cfg for cfg.game; ValueError naming the problem (other game, bad options)."""
    from boardgym.agents import available, load
    opts = agent_options(cfg)
    name = cfg.agent
    other = "backgammon" if cfg.game == "draughts" else "draughts"
    if name.endswith((".zip", ".pt")):
        if not Path(name).is_file():
            raise ValueError(f"--agent: no policy file at {name}")
        from boardgym.agents.ppo import PPOAgent
        agent = _construct(name, lambda **kw: PPOAgent(name, game=cfg.game, **kw), opts, None)
    elif name.endswith(".npz"):
        if not Path(name).is_file():
            raise ValueError(f"--agent: no checkpoint file at {name}")
        kind = _npz_game(name)
        if kind is None:
            raise ValueError(f"--agent {name} is neither a draughts evaluation nor a backgammon "
                             "TD net")
        if kind != cfg.game:
            raise ValueError(f"--agent {name} is a {kind} checkpoint, not a {cfg.game} agent "
                             f"(use --game {kind})")
        full = "draughts-alphabeta" if kind == "draughts" else "backgammon-td"
        agent = _construct(name, lambda **kw: load(full, weights=name, **kw), opts, cfg.seed)
    else:
        short = name[len(cfg.game) + 1:] if name.startswith(cfg.game + "-") else name
        if name.startswith(other + "-") or (short not in available(cfg.game)
                                            and short in available(other)):
            raise ValueError(f"--agent {name} is a {other} agent, not a {cfg.game} one "
                             f"(available for {cfg.game}: {', '.join(available(cfg.game))})")
        if short not in available(cfg.game):
            raise ValueError(f"unknown {cfg.game} agent {name!r} (available: "
                             f"{', '.join(available(cfg.game))}, or a checkpoint path)")
        agent = _construct(name, lambda **kw: load(short, game=cfg.game, **kw), opts, cfg.seed)
    _check_agent_game(agent, cfg)
    return agent


def _check_agent_game(agent, cfg):
    """ValueError if agent plays the other game (or other spaces) than the env of cfg."""
    game = getattr(agent, "game", None)
    if game is not None and game != cfg.game:
        raise ValueError(f"--agent {cfg.agent} plays {game}, not {cfg.game}")
    model = getattr(agent, "model", None)  # a PPO policy: compare its spaces with the env's
    if model is not None:
        env = (russian_draughts_v0.raw_env() if cfg.game == "draughts"
               else backgammon_v0.raw_env(cube=cfg.cube))
        obs = env.observation_space("player_0")["observation"].shape
        n = env.action_space("player_0").n
        p_obs = tuple(getattr(model.observation_space, "shape", ()) or ())
        p_n = getattr(model.action_space, "n", None)
        if p_obs != tuple(obs) or (p_n is not None and int(p_n) != n):
            which = f"{cfg.game}{' with the cube' if cfg.cube else ''}"
            raise ValueError(f"--agent {cfg.agent}: the policy takes observations {p_obs} and "
                             f"{p_n} actions; {which} has {tuple(obs)} and {n}: it is not a "
                             f"{which} policy")


# ----------------------------------------------------------------------------- the two games
class _Draughts:
    """A draughts game in the AEC env, with what the agent played since the last report."""

    def __init__(self, cfg, names):
        self.names = names
        self.env = russian_draughts_v0.raw_env()
        self.env.reset(seed=cfg.seed, options={"fen": cfg.fen} if cfg.fen else None)
        self.first = 0 if self.env.start_fen.lstrip("[").upper().startswith("W") else 1
        self.seen = 0

    def board(self, seat):
        return self.env.render_text(perspective=seat)

    def prompt(self, me):
        return f"your move ({'White' if me == 0 else 'Black'}):"

    def legal(self):
        return dr_api.legal_moves(self.env.state)

    def play_text(self, text):
        """Play the person's move; ValueError if it is not legal."""
        state = self.env.state
        side = int(state[S_SIDE])
        for a in dr_api.move_to_actions(state, text):  # kernel frame -> the mover's frame
            self.env.step(int(dr_core.VIEW_ACTION[side, a]))

    def agent_step(self, agent):
        env = self.env
        if hasattr(agent, "act_state"):
            action = agent.act_state(env.state)
        else:
            obs = env.observe(env.agent_selection)
            action = agent.act(obs["observation"], obs["action_mask"])
        env.step(int(action))

    def news(self, me):
        """Lines saying what the agent played since the last call."""
        lines = []
        for i in range(self.seen, len(self.env.moves)):
            side = (self.first + i) % 2
            if side != me:
                lines.append(f"{self.names[side]} ({'White' if side == 0 else 'Black'}) "
                             f"played {self.env.moves[i]}")
        self.seen = len(self.env.moves)
        return lines

    def outcome(self):
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

    def record(self):
        return self.env.pdn(White=self.names[0], Black=self.names[1])


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


def backgammon_board(state, seat):
    """The text board of a backgammon state from seat's side (its numbering, its home at the
    bottom right)."""
    return backgammon_render.render_text(state, perspective=seat)


def _flip_points(text):
    """Play text with points renumbered from the other side (p -> 25 - p; bar, off unchanged)."""
    return re.sub(r"(?<![\d(])(\d{1,2})(?![\d)])", lambda m: str(25 - int(m.group(1))), text)


_KINDS = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


class _Backgammon:
    """A backgammon game in the AEC env, with what the agent did since the last report."""

    def __init__(self, cfg, names):
        self.names = names
        self.env = backgammon_v0.raw_env(scoring="gammon", cube=cfg.cube)
        options = {}
        if cfg.position_id is not None:
            options["position_id"] = cfg.position_id
        if cfg.dice is not None:
            options["dice"] = list(parse_dice(cfg.dice))
        self.env.reset(seed=cfg.seed, options=options)
        self.seen = 0
        self.before = {}  # turn index -> the position its play started from

    def board(self, seat):
        return backgammon_board(self.env.state, seat)

    def _cube_choices(self):
        mask = self.env.legal_mask()
        g = bg_core
        if mask.shape[0] > g.N_ACTIONS and not mask[:g.N_ACTIONS].any():
            return [w for w, a in (("roll", g.ACTION_ROLL), ("double", g.ACTION_DOUBLE),
                                   ("take", g.ACTION_TAKE), ("drop", g.ACTION_DROP)) if mask[a]]
        return []

    def prompt(self, me):
        choices = self._cube_choices()
        if choices == ["take", "drop"]:
            value = 2 * int(self.env.state[bg_core.CUBE_VALUE])
            return f"{self.names[1 - me]} doubles to {value}: 'take' or 'drop'?"
        if choices:
            return "before your roll: 'roll' or 'double'?"
        d1, d2 = self._dice()
        return f"you rolled {d1}-{d2}: your play (your numbering):"

    def _dice(self):
        return self.env.infos[self.env.agent_selection]["dice"]

    def legal(self):
        choices = self._cube_choices()
        if choices:
            return choices
        d1, d2 = self._dice()
        state = self.env.state
        rows = np.zeros((bg_core.MAX_AFTERSTATES, state.shape[0]), np.int64)
        n = bg_core.plays_of_roll(state, d1, d2, rows, None)
        return sorted(bg_api.play_to_str(state, d1, d2, rows[k]) for k in range(n))

    def play_text(self, text):
        choices = self._cube_choices()
        g = bg_core
        words = {"roll": g.ACTION_ROLL, "double": g.ACTION_DOUBLE, "take": g.ACTION_TAKE,
                 "drop": g.ACTION_DROP}
        word = text.strip().lower()
        if choices:
            if word not in choices:
                raise ValueError(f"{text!r} is not a cube decision here")
            self.env.step(words[word])
            return
        if word in words:
            raise ValueError("no cube decision now: the dice are rolled, play them")
        d1, d2 = self._dice()
        self._remember()
        for a in bg_api.play_actions(self.env.state, d1, d2, text):  # ValueError if illegal
            self.env.step(a)

    def _remember(self):
        """Keep the position a play starts from (to write the play in notation later)."""
        env = self.env
        if env.turns and bg_core.dice_of(env.state)[0] > 0:
            self.before.setdefault(len(env.turns) - 1, env.state.copy())

    def agent_step(self, agent):
        env, g = self.env, bg_core
        mask = env.legal_mask()
        if mask.shape[0] > g.N_ACTIONS and not mask[:g.N_ACTIONS].any() and hasattr(
                agent, "cube_action"):
            policy = "equity" if getattr(agent, "has_equity", False) else "cubeless"
            action = agent.cube_action(env.state, bool(mask[g.ACTION_TAKE]), policy)
        elif hasattr(agent, "act_state") and mask[:g.N_ACTIONS].any():
            self._remember()
            action = agent.act_state(env.state)
        else:
            self._remember()
            obs = env.observe(env.agent_selection)
            action = agent.act(obs["observation"], obs["action_mask"])
        env.step(int(action))

    def _turn_text(self, k, t, me):
        who = self.names[t["player"]]
        cube = t.get("cube")
        if cube == "double":
            return f"{who} doubles to {t['value']}"
        if cube in ("take", "drop"):
            return f"{who} {cube}s"
        d1, d2 = t["dice"]
        if not t["moves"]:
            return f"{who} rolled {d1}-{d2} and cannot move"
        raw = " ".join(f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}{'*' if hit else ''}"
                       for a, b, hit in t["moves"])
        text = raw
        if k in self.before:
            try:
                text = bg_api.play_to_str(self.before[k], d1, d2, raw)
            except ValueError:
                text = raw
        mine = "" if t["player"] == me else f" ({_flip_points(text)} in your numbering)"
        return f"{who} rolled {d1}-{d2} and played {text}{mine}"

    def news(self, me):
        """Lines saying what happened since the last call but the person's own plays and cube
        answers: the agent's rolls, plays and cube actions, the person's lost rolls."""
        env, lines = self.env, []
        end = len(env.turns)
        if not env.is_over and env.agent_selection == f"player_{me}" and not self._cube_choices():
            end -= 1  # the person's roll in progress
        for k in range(self.seen, end):
            t = env.turns[k]
            if t["player"] == me and (t.get("cube") or t["moves"]):
                continue
            lines.append(self._turn_text(k, t, me))
        self.seen = max(self.seen, end)
        return lines

    def outcome(self):
        result = self.env.result
        if result is None:
            return None, "the game was stopped: neither side can ever move again (a truncation)"
        winner, kind, points = result
        pts = f"{points} point{'s' if points != 1 else ''}"
        if kind == 0:
            return winner, f"{self.names[1 - winner]} dropped the double (C.2): {pts}"
        value = int(self.env.state[bg_core.CUBE_VALUE])
        cube = f", cube at {value}" if value > 1 else ""
        return winner, f"{_KINDS[kind]} (O.3{cube}): {pts}"

    def record(self):
        return self.env.match_text(names=self.names)


# ----------------------------------------------------------------------------- the session
class GameEnd(NamedTuple):
    """How a session ended: rewards per agent, the winner (0/1, None for a draw or an unfinished
    game), a sentence saying how, whether the game was over, and the game record's text (PDN or
    gnubg match text; None for a backgammon game from a Position ID)."""

    rewards: dict
    winner: int | None
    how: str
    over: bool
    record: str | None


def _save(game, path, say):
    text = game.record()
    Path(path).expanduser().write_text(text)
    say(f"saved the game to {path}")


def main(args=None, stdin=None, out=None):
    """Play one game on stdin/stdout (or the given streams) with Settings or a list of
    command-line strings; return a GameEnd."""
    cfg = cli.settings(Settings, args, prog="boardgym play", description=__doc__)
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if out is None else out
    agent = load_agent(cfg)
    me = cfg.seat
    names = ["you", "you"]
    names[1 - me] = cfg.agent if not cfg.agent.endswith((".zip", ".pt", ".npz")) else Path(
        cfg.agent).name
    game = (_Draughts if cfg.game == "draughts" else _Backgammon)(cfg, tuple(names))
    history = []

    def say(text):
        print(text, file=out, flush=True)

    say(f"{cfg.game}: you are player_{me}, {names[1 - me]} is player_{1 - me}. "
        + COMMANDS_HELP)
    show = True  # draw the board (and what happened) before the next prompt
    while not game.env.is_over:
        if game.env.agent_selection != f"player_{me}":
            game.agent_step(agent)
            show = True
            continue
        if show:
            say("\n".join(game.news(me) + [game.board(me)]))
        say(game.prompt(me))
        line = stdin.readline()
        if not line:
            say("end of input")
            break
        text = line.strip()
        if text == "quit":
            break
        show = False
        cmd, _, arg = text.partition(" ")
        if text == "help":
            say(COMMANDS_HELP)
        elif text == "moves":
            say("legal: " + ", ".join(game.legal()))
        elif cmd == "save":
            path = arg.strip() or cfg.save
            if not path:
                say("save where? 'save PATH' (or start with --save PATH)")
                continue
            try:
                _save(game, path, say)
            except (OSError, ValueError) as e:
                say(f"cannot save: {e}")
        elif text == "undo":
            if history:
                game, show = history.pop(), True
                say("taken back")
            else:
                say("nothing to take back")
        else:
            before = copy.deepcopy(game)
            try:
                game.play_text(text)
            except ValueError as e:
                game = before
                say(f"illegal: {e}\nlegal: {', '.join(game.legal())}")
                continue
            history.append(before)
            show = True
    env = game.env
    winner, how = None, "the game is not finished"
    if env.is_over:
        news = game.news(me)
        say("\n".join(news + [game.board(me)]))
        winner, how = game.outcome()
        if winner is None:
            say(f"game over: {how}")
        else:
            who = "you win" if winner == me else f"{names[winner]} wins"
            say(f"game over: {who} (player_{winner}): {how}")
    try:
        record = game.record()
    except ValueError:  # a backgammon game from a Position ID has no match-file form
        record = None
    if cfg.save:
        _save(game, cfg.save, say)
    return GameEnd(dict(env.rewards), winner, how, bool(env.is_over), record)


if __name__ == "__main__":
    cli.script_main(main)
