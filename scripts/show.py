"""Draw a position of either game: a FEN, a Position ID or a game record, to SVG, PNG or text.

    boardgym show W:W21,22:B1,K30 --out position.svg
    boardgym show 4HPwATDgc/ABMA --dice 3 1 --out start.png
    boardgym show 4HPwATDgc/ABMA:cAkAAAAAAAAA --perspective 1
    boardgym show game.pdn --ply 12 --out ply12.png
    boardgym show game.mat --ply 7 --out turn7.svg
    boardgym show match.mat --game 2 --ply 3

POSITION is a Russian draughts FEN (``W:W21-32:B1-12``, numeric or algebraic squares), a gnubg
Position ID (14 characters; its player on roll is player_0 unless a Match ID says otherwise), a
gnubg ID ``PositionID:MatchID``, or a file: a PDN game (``.pdn``) or a Jellyfish / gnubg match
file (``.mat``). A record is replayed through the rules (envs/records.py); ``--game K`` picks the
K-th game of a record of several (a match file's ``Game K``; by default the first) and ``--ply
N`` the position after N plies of it (draughts moves, backgammon turns with the cube actions
after them; the roll of the next turn is drawn when the record has it), by default the final
one. A position of a match is drawn with the match length, the score before its game and the
Crawford marker (``match to 7, score 2-4 (Crawford)``) beside the cube. A position of a record
has the move (play) that led to it marked: its squares and capture path (points, bar, tray)
framed in the picture, named on the text board. Without ``--out`` the text board is printed,
after a line saying which game and ply it is and what was played there.
"""

import dataclasses
import os
import re
from typing import Literal

from boardgym.envs import (
    backgammon_checks,
    backgammon_ids,
    backgammon_render,
    draughts_render,
    records,
)
from boardgym.scripts import cli

KINDS = ("auto", "draughts", "backgammon")


@dataclasses.dataclass
class Settings:
    """What to draw and where."""

    position: str = dataclasses.field(metadata={"positional": True})
    """a draughts FEN, a backgammon Position ID or PositionID:MatchID, or a .pdn / .mat game file"""
    out: str | None = None
    """picture file to write, ending in .svg or .png (none: print the text board)"""
    ply: int | None = None
    """for a game record: the position after this many plies (draughts moves, backgammon turns);
    none: the final position"""
    game: str = "auto"
    """auto, draughts or backgammon: which game POSITION belongs to (auto: told from its form or
    the file's name and text); or a number K: the K-th game of a record file (1 = the first)"""
    match_id: str | None = None
    """backgammon: a gnubg Match ID giving the player on roll, the cube, the dice and the score"""
    dice: tuple[str, ...] = ()
    """backgammon: the roll to play, two dice 1..6 (e.g. --dice 3-1 or --dice 3 1)"""
    perspective: Literal[0, 1] = 0
    """whose side is at the bottom: 0 = draughts White / backgammon player_0, 1 = Black /
    player_1 (in backgammon also whose point numbers are shown)"""
    scale: float = 1.0
    """picture size, a multiple of the natural size, 0.1..10"""

    @property
    def kind(self) -> str:
        """--game as the game's kind: auto, draughts or backgammon (a game number: auto)."""
        return self.game if self.game in KINDS else "auto"

    @property
    def number(self) -> int | None:
        """--game as the number of a record's game (None when it names the kind)."""
        return None if self.game in KINDS else int(self.game)

    def check(self):
        cli.require(
            self.game in KINDS or re.fullmatch(r"[0-9]+", self.game.strip()) is not None,
            "--game must be auto, draughts, backgammon or the number of a record's game "
            f"(1, 2, ...), got {self.game!r}",
        )
        cli.require(
            self.number is None or self.number >= 1,
            f"--game {self.game}: games are numbered from 1",
        )
        cli.require(0.1 <= self.scale <= 10, f"--scale must be in 0.1..10, got {self.scale}")
        cli.require(self.ply is None or self.ply >= 0, f"--ply must be 0 or more, got {self.ply}")
        _dice(self.dice)
        if self.out is not None:
            cli.require(
                os.path.splitext(self.out)[1].lower() in (".svg", ".png"),
                f"--out must end in .svg or .png, got {self.out!r}",
            )


def _dice(values):
    """(d1, d2) of --dice (3-1, 31 or 3 1), None if not given; UsageError naming --dice."""
    if not values:
        return None
    try:
        return backgammon_checks.parse_dice(values)
    except ValueError as e:
        raise cli.UsageError(f"--dice: {e}") from None


def _draughts_board(cfg, replayed):
    if replayed is None:
        return draughts_render.Board(
            cfg.position, cell=round(50 * cfg.scale), perspective=cfg.perspective
        )
    state, _, frame = replayed
    return draughts_render.Board(
        state,
        cell=round(50 * cfg.scale),
        perspective=cfg.perspective,
        last_move=frame.get("last_move"),
    )


def _backgammon_board(cfg, replayed):
    dice = _dice(cfg.dice)
    if replayed is None:
        return backgammon_render.Board(
            cfg.position,
            match_id=cfg.match_id,
            dice=dice,
            perspective=cfg.perspective,
            scale=cfg.scale,
        )
    state, following, frame = replayed
    match_id = cfg.match_id
    if frame.get("match_length"):  # a match's position: its score and Crawford flag
        match_id = backgammon_ids.match_id(
            state,
            dice=(0, 0),
            match_length=frame["match_length"],
            score=frame["score"],
            crawford=bool(frame.get("crawford")),
        )
    return backgammon_render.Board(
        state,
        match_id=match_id,
        dice=dice or following,
        perspective=cfg.perspective,
        scale=cfg.scale,
        last_move=frame.get("last_move"),
    )


def _replay(cfg, text, game):
    """(state, the next roll or None, the frame shown) of the record text at --game and --ply
    (envs/records.py)."""
    _, frames, _ = records.record_frames(text, game)
    count = records.games(frames)
    number = cfg.number
    if number is not None and number > count:
        raise cli.UsageError(
            f"--game {number} is past the end of the record "
            f"({count} game{'s' if count != 1 else ''})"
        )
    n = records.plies(frames, number)
    if cfg.ply is not None and cfg.ply > n:
        what = "plies" if game == "draughts" else "turns"
        which = "the game" if count == 1 else f"game {number or 1}"
        raise cli.UsageError(f"--ply {cfg.ply} is past the end of {which} ({n} {what})")
    state, dice = records.position_at(frames, cfg.ply, number)
    frame = records.frame_at(frames, cfg.ply, number)
    return state, dice, {**frame, "index": number or 1, "games": count, "plies": n}


def _where(frame):
    """'game K of N, ply P of M: caption' of the frame shown (a match game's last frame: with
    the score after it)."""
    after = frame.get("score_after")
    end = "" if after is None else f"; score {after[0]}-{after[1]} after the game"
    return (
        f"game {frame['index']} of {frame['games']}, ply {frame['ply']} of "
        f"{frame['plies']}: {frame.get('caption', '')}{end}"
    )


def main(args=None):
    """Draw the position of Settings or a list of command-line strings; return its Board
    (boardgym.envs.draughts_render.Board or boardgym.envs.backgammon_render.Board)."""
    cfg = cli.settings(Settings, args, prog="boardgym show", description=__doc__)
    record = None
    if os.path.isfile(cfg.position):
        with open(cfg.position, encoding="utf-8") as f:
            record = f.read()
        game = records.record_kind(record, cfg.position) if cfg.kind == "auto" else cfg.kind
    elif os.path.splitext(cfg.position)[1].lower() in (*records.SUFFIXES, ".txt"):
        raise cli.UsageError(f"no such game record file: {cfg.position}")
    else:
        game = records.position_kind(cfg.position) if cfg.kind == "auto" else cfg.kind
        if game is None:
            raise cli.UsageError(
                f"cannot tell which game {cfg.position!r} is: expected a draughts FEN "
                "(W:W21-32:B1-12), a backgammon Position ID (14 characters, e.g. 4HPwATDgc/ABMA) "
                "or PositionID:MatchID, or a .pdn / .mat file (or say --game)"
            )
    if game == "draughts":
        for flag, value, default in (("--match-id", cfg.match_id, None), ("--dice", cfg.dice, ())):
            cli.require(value == default, f"{flag} is for backgammon positions, not draughts")
    else:
        cli.require(
            record is None or cfg.match_id is None,
            "--match-id is for a Position ID, not a match file",
        )
    if record is None:
        cli.require(cfg.ply is None, "--ply is for a game record file (.pdn / .mat)")
        cli.require(cfg.number is None, f"--game {cfg.game} (a game number) is for a record file")
    replayed = None if record is None else _replay(cfg, record, game)
    board = (
        _draughts_board(cfg, replayed) if game == "draughts" else _backgammon_board(cfg, replayed)
    )
    if cfg.out is None:
        if replayed is not None:
            print(_where(replayed[-1]))
        print(board.text())
    else:
        board.save(cfg.out)
        print(f"wrote {cfg.out}")
    return board


if __name__ == "__main__":
    cli.script_main(main)
