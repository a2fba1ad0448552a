"""Play an agent in the terminal, either game, either seat; moves typed in the usual notation.

    boardgym play --game draughts --agent draughts-alphabeta --seat 1 --depth 8 --save game.pdn
    boardgym play --game draughts --agent greedy --fen "W:W21,22:B1,K30"
    boardgym play --game backgammon --agent backgammon-td --seat 1 --cube --save game.mat
    boardgym play --game backgammon --agent expectimax --depth 1 --position-id 4HPwATDgc/ABMA
    boardgym play --game backgammon --agent backgammon-td --match 7 --save match.mat
    boardgym play --game backgammon --agent backgammon-td --match 7 --score 6 4 --crawford

Draughts moves: ``c3-d4``, ``c3:e5:g3`` (or ``c3xe5``, numeric ``22-17``; a capture may be given by
its start and end when that is unambiguous). Backgammon plays, in your own numbering (the board is
drawn from your side): ``24/18 13/11``, ``bar/22*``, ``6/off``, ``8/5(2)``; the dice are rolled by
the env (seeded by ``--seed``), a roll that cannot be played passes by itself. With ``--cube``
(money play with the doubling cube) you answer ``roll`` or ``double`` before your roll and
``take`` or ``drop`` when the agent doubles; the agents with a net decide by their equity, the
others never double and always take.

With ``--match N`` you play a whole match to N points, with the cube and gammons: each game's points
go to its winner up to what the match needs, no one doubles in the Crawford game, and the next game
starts by itself after a line saying how the game ended and the score. The board shows the score
(``match to 7, score 2-4 (Crawford)``, player_0's score first), the gnubg Match ID (with the score)
and the score from your side; an agent with ``set_match`` is told the score from its seat. ``undo``
takes back moves of the game in play only; ``save`` writes the whole match so far. ``--score A B``
starts the match from that score (player_0's first); with one side at N - 1 add ``--crawford``, and
the first game is the Crawford game (a match file cannot record a post-Crawford start).

After every move of the agent you see what it played (and its dice, with the play also in your
numbering). Commands: ``moves`` lists your legal moves, ``undo`` takes back your last move (and
the agent's reply), ``save [PATH]`` writes the game so far (PDN for draughts, a Jellyfish/gnubg
match file for backgammon), ``help``, ``quit``. Illegal input is answered with the legal options.
At the end you are told who won and how: no move left, or which draw rule ended the game
(repetition, the king-move counts); a single game, gammon or backgammon, or a dropped double,
with the points. ``boardgym rules`` prints the rules (``--clause G.2`` one of them: the messages
name the clause in brackets).

The agent is any name ``boardgym.agents.load`` knows for the game (``greedy``,
``draughts-alphabeta``, ``backgammon-td``, ...) or a checkpoint path: ``.zip``/``.pt`` MaskablePPO
policy, ``.npz`` learned evaluation (draughts alpha-beta search) or TD net (backgammon). Its
options: ``--depth``, ``--time-limit`` (the draughts search; ``--depth`` 1 or 2 for
backgammon-expectimax) or any ``--agent-option key=value``. An agent of the other game is refused.
Input is read line by line from standard input, so a session can be scripted.

The game is kept in the game archive as it goes (before each of your moves and at the end;
``--db``, else ``$BOARDGYM_ARCHIVE``, else ``~/.local/share/boardgym/archive.sqlite``; see
``boardgym archive``; ``--no-archive`` keeps nothing). An archive that cannot be written is
reported once and the game goes on.
"""

from __future__ import annotations

import copy
import dataclasses
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

from boardgym.agents.arena import archive as archives
from boardgym.agents.arena.sessions import (  # noqa: F401  (the shared game logic, re-exported)
    BackgammonGame,
    DraughtsGame,
    agent_options,
    archive_row,
    load_agent,
    parse_dice,
)
from boardgym.agents.files import write_file_atomically
from boardgym.envs import backgammon_checks as bg_checks
from boardgym.envs import backgammon_notation as bg_api
from boardgym.envs import draughts as dr_api
from boardgym.kernels.backgammon.match import MAX_MATCH_LENGTH
from boardgym.scripts import cli

COMMANDS_HELP = "commands: 'moves' (your legal moves), 'undo', 'save [PATH]', 'help', 'quit'"


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
    dice: tuple[str, ...] = ()
    """backgammon: the first roll, e.g. 3-1 or 3 1 (none given: rolled); with it and no
    --position-id, player_0 is on roll at the standard start"""
    cube: bool = False
    """backgammon: play with the doubling cube (money play)"""
    match: int = 0
    """backgammon: play a whole match to this many points, 1..64, with the cube; 0: one money
    game"""
    score: tuple[int, ...] = ()
    """backgammon --match: start the match from this score, player_0's then player_1's (e.g.
    --score 4 6; none: 0-0); a score with one side at N - 1 needs --crawford"""
    crawford: bool = False
    """backgammon --match --score with one side at N - 1: the first game is the Crawford game
    (a post-Crawford start cannot be written to a match file)"""
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
    db: str | None = None
    """the game archive the game is kept in as it goes (none: $BOARDGYM_ARCHIVE, else
    ~/.local/share/boardgym/archive.sqlite)"""
    archive: bool = True
    """keep the game in the archive (--no-archive: not kept)"""

    def check(self):
        cli.require(
            self.fen is None or self.game == "draughts",
            "--fen is a draughts position; for backgammon use --position-id",
        )
        cli.require(
            self.position_id is None
            and not self.dice
            and not self.cube
            or self.game == "backgammon",
            "--position-id, --dice and --cube are for --game backgammon",
        )
        cli.require(
            self.match == 0 or self.game == "backgammon", "--match is for --game backgammon"
        )
        cli.require(
            0 <= self.match <= MAX_MATCH_LENGTH,
            f"--match must be 1..{MAX_MATCH_LENGTH} points (0: one money game), got {self.match}",
        )
        cli.require(
            self.match == 0 or self.position_id is None,
            "--match plays a match from the standard start (a match file has no set-up "
            "position): leave out --position-id",
        )
        cli.require(
            self.match or not (self.score or self.crawford),
            "--score and --crawford start a match from a score: give --match too",
        )
        if self.score or self.crawford:
            cli.require(
                len(self.score) in (0, 2),
                "--score takes two numbers, player_0's score then player_1's (e.g. --score 4 6), "
                f"got {len(self.score)}",
            )
            try:
                bg_checks.recordable_start(self.match, tuple(self.score) or (0, 0), self.crawford)
            except (ValueError, TypeError) as e:
                raise cli.UsageError(f"--score/--crawford: {e}") from None
        cli.require(
            self.depth is None or self.depth >= 1, f"--depth must be at least 1, got {self.depth}"
        )
        cli.require(
            self.time_limit is None or self.time_limit > 0,
            f"--time-limit must be a positive number of seconds, got {self.time_limit}",
        )
        agent_options(self)  # key=value syntax
        if self.fen is not None:
            try:
                dr_api.from_fen(self.fen)
            except (ValueError, TypeError) as e:
                raise cli.UsageError(f"--fen: {e}") from None
        if self.position_id is not None:
            try:
                start = bg_api.check_playable(bg_api.position_from_id(self.position_id))
            except (ValueError, TypeError) as e:
                raise cli.UsageError(f"--position-id: {e}") from None
            standard = bg_api.position_id(start) == bg_api.position_id(bg_api.initial_state())
            cli.require(
                self.save is None or standard,
                "--save writes a gnubg match file, which starts from the standard "
                "position: it cannot record a game from --position-id",
            )
        parse_dice(self.dice)
        if self.save is not None:
            folder = Path(self.save).expanduser().resolve().parent
            cli.require(folder.is_dir(), f"--save: no directory {folder} to write {self.save} in")


# ----------------------------------------------------------------------------- the session
class GameEnd(NamedTuple):
    """How a session ended: rewards per agent, the winner (0/1, None for a draw or an unfinished
    game), a sentence saying how, whether the game was over, and the game record's text (PDN or
    gnubg match text; None for a backgammon game from a Position ID). Of a match (--match): the
    env's rewards (+1/-1 at its end), the match's winner, its final score, whether it was over
    and the whole match as gnubg match text."""

    rewards: dict
    winner: int | None
    how: str
    over: bool
    record: str | None


def _save(game, path, say):
    """Write the game's record to path through a temporary file (never half a file)."""
    text = game.record()
    write_file_atomically(Path(path).expanduser(), text)
    say(f"saved the {'match' if getattr(game, 'match_length', 0) else 'game'} to {path}")


def _game_number(game):
    """The number of the game in play (a match's games; 1 otherwise)."""
    return game.game_number() if hasattr(game, "game_number") else 1


class _Keeper:
    """The game's row in the archive (none with --no-archive); a failure is said once."""

    def __init__(self, cfg, say):
        self.say, self.said = say, None
        self.settings = {
            k: v
            for k, v in dataclasses.asdict(cfg).items()
            if k not in ("save", "db", "archive") and v not in (None, [], ())
        }
        store = None
        if cfg.archive:
            try:
                store = archives.Archive(cfg.db)
            except archives.ArchiveError as e:
                say(f"note: {e}; the game is not kept")
        self.recorder = archives.Recorder(store)

    def save(self, game):
        self.recorder.save(archive_row(game, "play", self.settings))
        problem = self.recorder.problem
        if problem and problem != self.said:
            self.say(f"note: {problem}")
        self.said = problem

    def close(self):
        if self.recorder.archive is not None:
            self.recorder.archive.close()


def main(args=None, stdin=None, out=None):
    """Play one game on stdin/stdout (or the given streams) with Settings or a list of
    command-line strings; return a GameEnd."""
    cfg = cli.settings(Settings, args, prog="boardgym play", description=__doc__)
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if out is None else out
    agent = load_agent(cfg)
    me = cfg.seat
    names = ["you", "you"]
    names[1 - me] = (
        cfg.agent if not cfg.agent.endswith((".zip", ".pt", ".npz")) else Path(cfg.agent).name
    )
    game = (DraughtsGame if cfg.game == "draughts" else BackgammonGame)(cfg, tuple(names))

    def say(text):
        print(text, file=out, flush=True)

    what = f"backgammon match to {cfg.match}" if cfg.match else cfg.game
    if cfg.match and cfg.score:
        what += f" from {cfg.score[0]}-{cfg.score[1]}" + (
            " (Crawford game)" if cfg.crawford else ""
        )
    say(f"{what}: you are player_{me}, {names[1 - me]} is player_{1 - me}. " + COMMANDS_HELP)
    keeper = _Keeper(cfg, say)
    try:
        return _session(cfg, game, agent, names, stdin, say, keeper)
    finally:
        keeper.close()


def _session(cfg, game, agent, names, stdin, say, keeper):
    me = cfg.seat
    history = []
    show = True  # draw the board (and what happened) before the next prompt
    while not game.env.is_over:
        if game.env.agent_selection != f"player_{me}":
            number = _game_number(game)
            game.agent_step(agent)
            if _game_number(game) != number:
                history.clear()  # undo stays within the game in play
            show = True
            continue
        if show:
            keeper.save(game)
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
                say("nothing to take back" + (" in this game" if cfg.match else ""))
        else:
            before = copy.deepcopy(game)
            number = _game_number(game)
            try:
                game.play_text(text)
            except ValueError as e:
                game = before
                listed = "legal moves:" in str(e)  # the notation's message lists them already
                say(f"illegal: {e}" + ("" if listed else f"\nlegal: {', '.join(game.legal())}"))
                continue
            if _game_number(game) == number:
                history.append(before)
            else:
                history.clear()  # the play ended the game: the next one has nothing to undo
            show = True
    keeper.save(game)
    env = game.env
    winner, how = None, "the game is not finished"
    if env.is_over:
        news = game.news(me)
        say("\n".join(news + [game.board(me)]))
        winner, how = game.outcome()
        over = "match over" if cfg.match else "game over"
        if winner is None:
            say(f"{over}: {how}")
        else:
            who = "you win" if winner == me else f"{names[winner]} wins"
            say(f"{over}: {who} (player_{winner}): {how}")
    elif cfg.match:
        how = game.outcome()[1]
    try:
        record = game.record()
    except ValueError:  # a backgammon game from a Position ID has no match-file form
        record = None
    if cfg.save:
        _save(game, cfg.save, say)
    return GameEnd(dict(env.rewards), winner, how, bool(env.is_over), record)


if __name__ == "__main__":
    cli.script_main(main)
