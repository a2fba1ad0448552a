"""Backgammon games and matches as Jellyfish match text (``.mat``), the format GNU Backgammon
imports and exports.

A game's turns are the env's records (``raw_env.turns``): ``{"player": 0/1, "dice": (d1, d2),
"moves": [(from, to, hit)]}`` for a roll, ``{"player", "cube": "double", "value": v}``,
``{"player", "cube": "take"}`` or ``{"player", "cube": "drop"}``; points from the mover's own
view, 25 = the bar, 0 = off. A game of a match is ``{"turns": [...], "score": (s0, s1)`` before
the game, ``"winner": 0/1`` (None while unfinished), ``"points"`` it won (as gnubg writes them:
1, 2 or 3 times the cube, or the cube's value for a dropped double; None while unfinished)``}``.

Writing: ``game_to_match_text`` (one money game, ``0 point match``) and ``match_to_text`` (an N
point match: every ``Game N`` with its score line, ``Doubles => 2``, ``Takes``, ``Drops``, ``Wins
N points`` and, for the game that ends the match, ``Wins N points and the match``). The turn
numbering pairs player_0's turn (left column) with player_1's (right column), as Jellyfish does;
a roll whose play is not made yet is written as its dice alone (``53:``), as gnubg writes it.
Both read their text back before returning it: a record that does not replay is a ValueError
and never becomes a file.

Reading: ``read_match`` gives the games back in the writer's form, ``match_frames`` every
position of every game, ``read_match_text`` the first game's turns and final position. Every
roll is replayed through the game core (a move that is not legal, a play that stops while a die
can still be played, a roll by the side not on turn: ValueError naming the line, the game, the
move number and the roll); a lone entry is placed by the column it starts in, as gnubg shifts
the right column after a long play; a lost roll is a roll with no moves; only the last entry
of a game may be a roll not yet played. Cube actions are checked and replayed (C.1: a double
to twice the cube by the side on roll, before its roll, with the cube centred or its own; in a
match never past 64, MP.4, nor in the Crawford game, MP.5; C.2: a take doubles the cube and
gives it to the taker, a drop ends the game; no beavers). Score lines follow the game core's
match state (MP.1-MP.7): the score before a game is the score before the previous one plus the
points it won, credited up to what the winner needed; no game follows one without a result or
the end of the match; a money session (``0 point match``) adds up every game's points. ``Wins``
agrees with the game (the game core's result, with or without gammons, the dropped cube, or a
resignation of 1, 2 or 3 times the cube when the game is not over, MP.8; in a match also the
points capped at what the winner needed).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from boardgym.envs.backgammon_checks import check_dice, check_match_length, check_state, new_match
from boardgym.envs.checks import is_int
from boardgym.kernels.backgammon import game as core
from boardgym.kernels.backgammon.board import CUBE_LIMIT, CUBE_OWNER, CUBE_VALUE, TURN

_COL = 33
_COLUMN = _COL + 5  # where the right column starts in the text we write
_RIGHT_FROM = 20  # a lone entry starting this far into a line is in the right column
MAX_GAMES = 200  # games in one match file

_MATCH_LENGTH = re.compile(r"^[ \t]*(\d+)[ \t]+point[ \t]+match\b", re.IGNORECASE | re.MULTILINE)
_GAME_LINE = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORE_LINE = re.compile(r"^\s*(\S.*?)\s*:\s*(\d+)\s{2,}(\S.*?)\s*:\s*(\d+)\s*$")
_TURN_LINE = re.compile(r"^\s*(\d+)\)")
_ROLL_WORD = re.compile(r"^([1-6])([1-6]):$")
_MOVE = re.compile(r"^(\d+)/(\d+)(\*?)$")
_WINS = re.compile(r"^wins\s+(\d+)\s+points?(\s+and\s+the\s+match)?$", re.IGNORECASE)
_TURN_WORDS = ("doubles", "takes", "drops", "wins", "beavers", "raccoons")


def _plural(points):
    return f"{points} point{'s' if points != 1 else ''}"


# ----------------------------------------------------------------------------- match scores
class _Score:
    """The score of a match game by game: the game core's match state (MP.1-MP.7: each game's
    points credited up to what its winner needs, the Crawford game, the end of the match); a
    money session (length 0) adds every game's points, as its score lines do. A record starting
    at a score with one side at N - 1 starts with the Crawford game (the format has no flag)."""

    def __init__(self, length, score):
        self.length, self.money = length, list(score)
        at = [s == length - 1 for s in score]
        self.m = new_match(length, tuple(score), length > 1 and sum(at) == 1) if length else None

    @property
    def score(self):
        return self.money if self.m is None else [int(self.m[core.M_SCORE + p]) for p in (0, 1)]

    @property
    def crawford(self):
        return self.m is not None and bool(self.m[core.M_CRAWFORD])

    @property
    def over(self):
        return self.m is not None and bool(core.match_over(self.m))

    def start(self):
        """The standard start with this game's cube limit (MP.4-MP.6)."""
        state = core.initial_state()
        if self.m is not None:
            core.set_cube_limit(state, self.m)
        return state

    def award(self, winner, points):
        if winner is None:
            return
        if self.m is None:
            self.money[winner] += points
        else:
            core.match_award(self.m, winner, points)


# ----------------------------------------------------------------------------- writing
def _moves_text(moves):
    return " ".join(f"{a}/{b}{'*' if hit else ''}" for a, b, hit in moves)


def _turn_text(turn):
    cube = turn.get("cube")
    if cube == "double":
        return f"Doubles => {turn['value']}"
    if cube == "take":
        return "Takes"
    if cube == "drop":
        return "Drops"
    d1, d2 = turn["dice"]
    return f"{max(d1, d2)}{min(d1, d2)}: {_moves_text(turn['moves'])}".rstrip()


def _check_turns(turns, where=""):
    """TypeError / ValueError naming what is wrong with a list of turn records."""
    if not isinstance(turns, (list, tuple)):
        raise TypeError(f"{where}turns must be a list of turn records, got {type(turns).__name__}")
    for k, t in enumerate(turns):
        if not isinstance(t, Mapping) or t.get("player") not in (0, 1):
            raise ValueError(f"{where}turn {k}: a record is a dict with player 0 or 1, got {t!r}")
        cube = t.get("cube")
        if cube is not None:
            if cube not in ("double", "take", "drop"):
                raise ValueError(
                    f"{where}turn {k}: cube must be 'double', 'take' or 'drop', got {cube!r}"
                )
            if cube == "double" and not is_int(t.get("value")):
                raise ValueError(f"{where}turn {k}: a double records the new cube value")
            continue
        dice, moves = t.get("dice"), t.get("moves")
        if not isinstance(dice, (list, tuple)) or len(dice) != 2:
            raise ValueError(f"{where}turn {k}: dice must be a pair, got {dice!r}")
        check_dice(*dice)
        if not isinstance(moves, (list, tuple)) or any(
            not isinstance(m, (list, tuple))
            or len(m) != 3
            or not is_int(m[0])
            or not is_int(m[1])
            or not 1 <= m[0] <= 25
            or not 0 <= m[1] < m[0]
            for m in moves
        ):
            raise ValueError(
                f"{where}turn {k}: moves must be (from 1..25, to below it, hit) triples"
            )


def _check_names(names):
    if (
        not isinstance(names, (list, tuple))
        or len(names) != 2
        or not all(isinstance(n, str) for n in names)
    ):
        raise TypeError(f"names must be two strings, got {names!r}")
    for n in names:
        if not re.fullmatch(r"\S(?:[^\r\n\t]*\S)?", n) or "  " in n or _TURN_LINE.match(n):
            raise ValueError(
                f"player name {n!r}: a name is one line without tabs or two spaces in a row, "
                "does not start or end with a space nor with a turn number such as '1)'"
            )


def _score_line(names, score):
    head = f" {names[0]} : {score[0]}"
    return (head.ljust(_COLUMN) if len(head) <= _COLUMN - 2 else head + "  ") + (
        f"{names[1]} : {score[1]}"
    )


def _game_lines(number, turns, score, names, winner, wins):
    """The lines of one game: header, score line, the turns in two columns, the Wins line."""
    lines = [f" Game {number}", _score_line(names, score)]
    row, num = None, 1
    for turn in turns:
        text = _turn_text(turn)
        if turn["player"] == 0:
            if row is not None:  # a row whose right column stays empty
                lines.append(row.rstrip())
                num += 1
            row = f"{num:3d}) {text}".ljust(_COLUMN)
        else:
            row = (f"{num:3d}) ".ljust(_COLUMN) if row is None else row) + text
            lines.append(row)
            row, num = None, num + 1
    if wins is not None and row is not None and winner == 1:
        row, wins = row + wins, None  # the right column of the open row (as gnubg writes it)
    if row is not None:
        lines.append(row.rstrip())
    if wins is not None:
        lines.append((" " * 6 if winner == 0 else " " * _COLUMN) + wins)
    return lines


def _comparable(turns):
    """Turn records reduced to what match text holds (for comparing a record with its reading)."""
    out = []
    for t in turns:
        if t.get("cube") is not None:
            out.append((t["player"], t["cube"], t.get("value")))
        else:
            d1, d2 = t["dice"]
            moves = tuple((int(a), int(b), bool(h)) for a, b, h in t["moves"])
            out.append((t["player"], (max(d1, d2), min(d1, d2)), moves))
    return out


def _read_back(text, games, match_length, names):
    """ValueError unless text reads back as games (the writer's check of its own output)."""
    try:
        got = read_match(text)
    except ValueError as e:
        raise ValueError(f"the record does not replay: {e}") from None
    if got["names"] != list(names):
        raise ValueError(f"player names {names!r} do not survive the score line")
    for k, (mine, theirs) in enumerate(zip(games, got["games"], strict=True)):
        if _comparable(mine["turns"]) != _comparable(theirs["turns"]):
            raise ValueError(f"game {k + 1}: the turns do not read back as written")
        if (mine["winner"], mine["points"]) != (theirs["winner"], theirs["points"]):
            raise ValueError(
                f"game {k + 1}: the record says winner {mine['winner']} with {mine['points']} "
                f"points, the game replays to winner {theirs['winner']} with {theirs['points']}"
            )


def _check_games(games, match_length):
    """TypeError / ValueError naming what is wrong with a match's game records."""
    check_match_length(match_length)
    if not isinstance(games, (list, tuple)) or not games:
        raise TypeError(f"games must be a non-empty list of game records, got {games!r:.80}")
    if len(games) > MAX_GAMES:
        raise ValueError(f"more than {MAX_GAMES} games in one match")
    walk = None
    for k, g in enumerate(games):
        where = f"game {k + 1}: "
        if not isinstance(g, Mapping) or not {"turns", "score", "winner", "points"} <= set(g):
            raise TypeError(f"{where}a game record is a dict with turns, score, winner, points")
        _check_turns(g["turns"], where)
        score, winner, points = g["score"], g["winner"], g["points"]
        if (
            not isinstance(score, (list, tuple))
            or len(score) != 2
            or not all(is_int(s) and s >= 0 for s in score)
        ):
            raise ValueError(f"{where}score must be two non-negative integers, got {score!r}")
        if match_length and max(score) >= match_length:
            raise ValueError(
                f"{where}score {score[0]}-{score[1]} is not below the match length {match_length}"
            )
        if walk is None:
            walk = _Score(match_length, [int(x) for x in score])
        elif list(score) != walk.score:
            raise ValueError(
                f"{where}the score before it is {score[0]}-{score[1]}, but game {k} left it at "
                f"{walk.score[0]}-{walk.score[1]}"
            )
        if (winner is None) != (points is None):
            raise ValueError(f"{where}winner and points are both given or both None")
        if winner is not None and (winner not in (0, 1) or not is_int(points) or points < 1):
            raise ValueError(f"{where}winner must be 0 or 1 and points a positive integer")
        if winner is None and k + 1 < len(games):
            raise ValueError(f"{where}only the last game of a match may be unfinished")
        walk.award(winner, points)
        if walk.over and k + 1 < len(games):
            raise ValueError(f"{where}it ends the match, yet game {k + 2} follows")


def _wins_text(score, winner, points, match_length):
    if winner is None:
        return None
    end = match_length and score[winner] + points >= match_length
    return f"Wins {_plural(points)}" + (" and the match" if end else "")


def match_to_text(
    games: Sequence[Mapping[str, Any]],
    match_length: int,
    names: Sequence[str] = ("player_0", "player_1"),
) -> str:
    """Jellyfish match text of a match (every game from the standard start): games are
    {turns, score, winner, points} records (module docstring), match_length 0 for a money
    session. TypeError / ValueError naming the game and the problem (a score that does not
    follow from the games before, a record that does not replay)."""
    _check_games(games, match_length)
    _check_names(names)
    lines = [f" {match_length} point match", ""]
    for k, g in enumerate(games):
        score = [int(s) for s in g["score"]]
        wins = _wins_text(score, g["winner"], g["points"], match_length)
        lines += _game_lines(k + 1, g["turns"], score, names, g["winner"], wins) + [""]
    text = "\n".join(lines)
    _read_back(text, games, match_length, names)
    return text


def game_to_match_text(
    turns: Sequence[dict[str, Any]],
    result: Sequence[int] | None,
    names: Sequence[str] = ("player_0", "player_1"),
    game: int = 1,
) -> str:
    """Jellyfish match text of one money game from the standard start; result is
    (winner, kind, points) or None. GNU Backgammon imports it (``import mat``; tested with its
    Jacoby rule off, as our money games have none). ValueError if the turns do not replay."""
    _check_turns(turns)
    if result is not None and (
        not isinstance(result, (list, tuple))
        or len(result) != 3
        or result[0] not in (0, 1)
        or not is_int(result[2])
        or result[2] < 1
    ):
        raise ValueError(f"result must be None or (winner 0/1, kind, points), got {result!r}")
    _check_names(names)
    if not is_int(game) or game < 1:
        raise ValueError(f"game must be a positive integer, got {game!r}")
    winner, points = (None, None) if result is None else (result[0], int(result[2]))
    wins = _wins_text((0, 0), winner, points, 0)
    lines = [" 0 point match", ""] + _game_lines(game, turns, (0, 0), names, winner, wins)
    text = "\n".join(lines) + "\n"
    _read_back(text, [{"turns": turns, "winner": winner, "points": points}], 0, names)
    return text


# ----------------------------------------------------------------------------- reading
class _Entry(NamedTuple):
    """One column entry of a match file: a roll, a cube action or Wins."""

    line: int  # its line in the file, from 1
    move: int | None  # the number of its turn line ("N)"); None on a line without one
    player: int
    words: list[str]


def _split_games(text):
    """[(number, line of its header, [(line number, line)])] of a match file's games ('Game N'
    headers; turn lines without one: game 1)."""
    games, current = [], None
    for i, line in enumerate(text.splitlines(), 1):
        m = _GAME_LINE.match(line)
        if m:
            current = (int(m.group(1)), i, [])
            games.append(current)
            if len(games) > MAX_GAMES:
                raise ValueError(f"more than {MAX_GAMES} games in one match file")
        elif current is None:
            if _TURN_LINE.match(line):  # turns without a 'Game' header: one game
                current = (1, i, [(i, line)])
                games.append(current)
        else:
            current[2].append((i, line))
    return games


def _line_entries(number, line):
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
                f"line {number}: cannot read {line.strip()!r:.80} (a roll such as 52: 13/8 "
                "13/11, Doubles => 2, Takes, Drops or Wins N points)"
            )
    if len(segments) > 2:
        raise ValueError(f"line {number}: more than two turns in one line: {line.strip()!r:.80}")
    if len(segments) == 2:
        return [(0, segments[0][1]), (1, segments[1][1])]
    return [(0 if at < _RIGHT_FROM else 1, words) for at, words in segments]


def _parse_game(lines):
    """(entries, wins entry or None, (line, names, score) or None) of one game's lines."""
    entries, wins, head = [], None, None
    for number, line in lines:
        if head is None and not entries and len(line) < 200:
            m = _SCORE_LINE.match(line)
            if m and not _TURN_LINE.match(line):
                head = (number, [m.group(1), m.group(3)], [int(m.group(2)), int(m.group(4))])
                continue
        turn = _TURN_LINE.match(line)
        for player, words in _line_entries(number, line):
            entry = _Entry(number, int(turn.group(1)) if turn else None, player, words)
            if words[0].lower() == "wins":
                if wins is not None:
                    raise ValueError(f"line {number}: a second 'Wins' in one game")
                wins = entry
            elif wins is not None:
                raise ValueError(f"line {number}: {' '.join(words)!r} after 'Wins'")
            else:
                entries.append(entry)
    return entries, wins, head


def _where(game, e):
    return f"line {e.line} (game {game}{'' if e.move is None else f', move {e.move}'})"


class _Game:
    """One game replayed from its entries: its turns, frames, result and final state."""

    def __init__(self, number, score, names, match_length, crawford, start):
        self.number, self.score, self.names = number, list(score), names
        self.match_length, self.crawford = match_length, crawford
        self.state = start
        self.turns, self.ply = [], 0
        self.last = None  # the latest roll's play, as pictures mark it (a turn record)
        self.frames = [
            {"state": self.state, "caption": f"{self._head()}: start", "ply": 0, "last_move": None}
        ]
        self.offered = self.doubler = None
        self.dropped = self.pending = False
        self._mask = np.zeros(core.N_ACTIONS_CUBE, np.int8)

    def _head(self):
        s, n = self.score, self.names
        return f"game {self.number}: {n[0]} {s[0]} - {s[1]} {n[1]}" + (
            " (Crawford)" if self.crawford else ""
        )

    def _frame(self, caption, **extra):
        self.frames.append(
            {
                "state": self.state,
                "caption": caption,
                "ply": self.ply,
                "last_move": self.last,
                **extra,
            }
        )

    def _to_act(self, e, who, verb):
        """ValueError unless the entry's player is on roll (the game's first action: either)."""
        if self.state[TURN] != e.player and self.turns:
            raise ValueError(f"{who} {verb}, but it is {self.names[1 - e.player]}'s turn")

    def play(self, e, last):
        """Replay one entry (a roll or a cube action); ValueError naming it."""
        who = self.names[e.player]
        word = e.words[0].lower()
        try:
            if self.dropped:
                raise ValueError(f"{' '.join(e.words)!r} after the double was dropped")
            if self.pending:
                raise ValueError(f"{' '.join(e.words)!r} after a roll that was not played")
            if core.result(self.state, core.SCORING_GAMMON)[0] >= 0:
                raise ValueError(f"{' '.join(e.words)!r} after the game is over")
            if self.offered is not None and word not in ("takes", "drops", "beavers", "raccoons"):
                raise ValueError(f"{who} plays on after a double: expected Takes or Drops")
            if _ROLL_WORD.match(e.words[0]):
                self._roll(e, who, last)
            elif word == "doubles":
                self._double(e, who)
            elif word in ("takes", "drops"):
                self._answer(e, who, word)
            elif word in ("beavers", "raccoons"):
                raise ValueError(
                    f"{who} {word}: no beavers in these rules (a double is taken or dropped, C.2)"
                )
            else:
                raise ValueError(
                    f"cannot read {' '.join(e.words)!r} (a roll such as 52: 13/8 13/11, "
                    "Doubles => 2, Takes or Drops)"
                )
        except ValueError as err:
            raise ValueError(f"{_where(self.number, e)}: {err}") from None

    def _roll(self, e, who, last):
        self._to_act(e, who, "rolls")
        d1, d2 = int(e.words[0][0]), int(e.words[0][1])
        hi, lo = max(d1, d2), min(d1, d2)
        roll = f"{who} rolled {hi}-{lo}"
        state = self.state
        if state[TURN] != e.player:  # the opening roll by player_1
            state = core.pass_turn(state)
        before = state
        state = core.set_roll(state, d1, d2)
        moves = []
        mask = self._mask[: core.N_ACTIONS]
        for w in e.words[1:]:
            w = w.lower().replace("bar", "25").replace("off", "0")
            mm = _MOVE.match(w)
            if not mm:
                raise ValueError(f"{roll}: malformed move {w!r} (such as 13/8, 25/20*, 6/0)")
            a, b = int(mm.group(1)), int(mm.group(2))
            if not (1 <= a <= 25 and 0 <= b < a):
                raise ValueError(
                    f"{roll}: move {w}: from is 1..25 (25 = bar), to 0..24 (0 = off) and below it"
                )
            if state[TURN] != e.player:
                raise ValueError(f"{roll}: move {w} after the play is complete")
            core.legal_mask(state, False, False, mask)
            for d in [a - b] if b > 0 else range(a, 7):
                if 1 <= d <= 6 and mask[core.encode_action(a, d)]:
                    state = core.apply(state, core.encode_action(a, d))
                    break
            else:
                raise ValueError(f"{roll}: move {w} is not legal")
            moves.append((a, b, bool(mm.group(3))))
        turn = {"player": e.player, "dice": (d1, d2), "moves": moves}
        if not moves and not core.can_move(state):  # E.3 / E.7: the roll is lost
            state = core.pass_turn(state)
        elif state[TURN] == e.player:
            if moves or not last:
                played = _moves_text(moves) or "nothing"
                raise ValueError(
                    f"{roll} and played {played}: not a complete play (a play uses as many "
                    "dice as it can, B.4-B.5)"
                )
            self.pending = True  # the last entry: rolled, not yet played (gnubg writes it so)
            self.turns.append(turn)
            self.state = state
            self.frames.append(
                {
                    "state": before,
                    "caption": f"{who} rolled {hi}{lo}, to play",
                    "ply": self.ply,
                    "dice": [hi, lo],
                    "turn": e.player,
                    "pending": True,
                    "last_move": self.last,
                }
            )
            return
        self.state, self.ply = state, self.ply + 1
        self.turns.append(turn)
        self.last = {"player": e.player, "dice": (d1, d2), "moves": list(moves)}
        shown = " ".join(
            f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}{'*' if h else ''}"
            for a, b, h in moves
        )
        self._frame(f"{who} {hi}{lo}: {shown or '(no move)'}", dice=[hi, lo], turn=e.player)

    def _double(self, e, who):
        self._to_act(e, who, "doubles")
        value = int(e.words[-1]) if e.words[-1].isdigit() else -1
        if self.crawford:
            raise ValueError(
                f"{who} doubles in the Crawford game (MP.5: no doubling in the game after a "
                f"side first reaches {self.match_length - 1} of {self.match_length})"
            )
        state = self.state
        if state[TURN] != e.player:  # the game's first action (a game from a set-up position)
            state = self.state = core.pass_turn(state)
        owner, cube = int(state[CUBE_OWNER]), int(state[CUBE_VALUE])
        if owner not in (-1, e.player):
            raise ValueError(f"{who} doubles but the cube is the other side's (C.1)")
        if (
            core.legal_mask(state, True, False, self._mask) == 0
            or not self._mask[core.ACTION_DOUBLE]
        ):
            raise ValueError(
                f"{who} doubles, but the cube cannot pass {int(state[CUBE_LIMIT])} (MP.4)"
            )
        if value != 2 * cube:
            raise ValueError(
                f"{who} doubles to {e.words[-1]} but the cube is at {cube} "
                f"(expected Doubles => {2 * cube})"
            )
        self.offered, self.doubler = value, e.player
        self.turns.append({"player": e.player, "cube": "double", "value": value})
        self._frame(f"{who} doubles => {value}", offered=value, turn=e.player)

    def _answer(self, e, who, word):
        if self.offered is None:
            raise ValueError(f"{who} {word} but nothing was doubled")
        if e.player == self.doubler:
            raise ValueError(f"{who} {word} its own double")
        offered, self.offered = self.offered, None
        if word == "takes":
            self.state = core.take_double(self.state)
            self.turns.append({"player": e.player, "cube": "take"})
            self._frame(f"{who} takes: the cube is at {offered}, {who}'s (C.2)")
        else:
            self.dropped = True
            pts = int(self.state[CUBE_VALUE])
            self.turns.append({"player": e.player, "cube": "drop"})
            self._frame(
                f"{who} drops: {self.names[1 - e.player]} wins {_plural(pts)} (C.2)",
                offered=offered,
            )

    def finish(self, wins):
        """(winner, points) of the game, checked against its Wins entry; None, None while
        unfinished. ValueError naming the Wins line."""
        state, cube = self.state, int(self.state[CUBE_VALUE])
        w, _, gammon = core.result(state, core.SCORING_GAMMON)
        if self.dropped:
            winner, natural, how = self.doubler, {cube}, "the dropped double"
        elif w >= 0:
            winner, natural = int(w), {int(gammon), cube}
            how = "the game's end" + (f" with the cube at {cube}" if cube > 1 else "")
        else:
            winner, natural, how = None, None, None
        if wins is None:
            return winner, (None if natural is None else max(natural))
        m = _WINS.match(" ".join(wins.words))
        where = _where(self.number, wins)
        if not m:
            raise ValueError(
                f"{where}: cannot read {' '.join(wins.words)!r} (Wins N points, or Wins N "
                "points and the match)"
            )
        points, and_match = int(m.group(1)), bool(m.group(2))
        name = self.names[wins.player]
        if winner is not None and wins.player != winner:
            raise ValueError(f"{where}: {name} wins, but {how} gives the game to the other side")
        if natural is None:  # not over: a resignation of a single game, gammon or backgammon
            winner, natural = wins.player, {cube, 2 * cube, 3 * cube}
            how = "a resignation" + (f" with the cube at {cube}" if cube > 1 else "")
        allowed = set(natural)
        if self.match_length:  # the points the winner needed
            allowed |= {min(p, self.match_length - self.score[winner]) for p in natural}
        if points not in allowed:
            raise ValueError(
                f"{where}: {name} wins {_plural(points)}, but {how} is worth "
                f"{' or '.join(str(p) for p in sorted(allowed))}"
            )
        if and_match and (not self.match_length or self.score[winner] + points < self.match_length):
            raise ValueError(
                f"{where}: 'and the match', but {name} has "
                f"{self.score[winner] + points} of {self.match_length or 'no match'} after it"
            )
        return winner, points


def _read_games(text):
    """(match length, names, [(_Game, winner, points, number, first line)]) of a match file."""
    if not isinstance(text, str):
        raise TypeError(f"match text must be a string, got {type(text).__name__}")
    m = _MATCH_LENGTH.search(text)
    match_length = int(m.group(1)) if m else 0
    if match_length > core.MAX_MATCH_LENGTH:
        raise ValueError(
            f"line {text.count(chr(10), 0, m.start()) + 1}: a {match_length} point match (at "
            f"most {core.MAX_MATCH_LENGTH} points, MP.1)"
        )
    games = _split_games(text)
    if not games or not any(_TURN_LINE.match(line) for _, _, lines in games for _, line in lines):
        raise ValueError("no moves found in the match file (lines such as ' 1) 31: 8/5 6/5')")
    out, names, walk, ended = [], ["player_0", "player_1"], None, None
    for number, header, lines in games:
        entries, wins, head = _parse_game(lines)
        if ended is not None:
            raise ValueError(f"line {header}: game {number} follows {ended}")
        if head is not None:
            line, names, given = head
            if match_length and max(given) >= match_length:
                raise ValueError(
                    f"line {line}: game {number} starts at {given[0]}-{given[1]}, not below "
                    f"the match length {match_length}"
                )
            if walk is not None and given != walk.score:
                was = walk.score
                raise ValueError(
                    f"line {line}: game {number} starts at {given[0]}-{given[1]}, but after "
                    f"game {out[-1][3]} the score is {was[0]}-{was[1]}"
                )
        if walk is None:
            walk = _Score(match_length, [0, 0] if head is None else head[2])
        g = _Game(number, walk.score, names, match_length, walk.crawford, walk.start())
        for k, e in enumerate(entries):
            g.play(e, k == len(entries) - 1)
        winner, points = g.finish(wins)
        out.append((g, winner, points, number))
        walk.award(winner, points)
        g.score_after = walk.score
        if winner is None:
            ended = f"game {number}, which has no result (no 'Wins' and the game is not over)"
        elif walk.over:
            ended = (
                f"the end of the match ({names[winner]} reached {match_length} in game {number})"
            )
    return match_length, names, out


def read_match(text: str) -> dict[str, Any]:
    """A match file read back in match_to_text's form: {match_length, names, games: [{number,
    turns, score, winner, points, crawford}]}, every game replayed and checked (module
    docstring). TypeError unless text is a string, ValueError naming the first line that cannot
    be read, played or scored."""
    match_length, names, games = _read_games(text)
    return {
        "match_length": match_length,
        "names": names,
        "games": [
            {
                "number": number,
                "turns": g.turns,
                "score": list(g.score),
                "winner": winner,
                "points": points,
                "crawford": g.crawford,
            }
            for g, winner, points, number in games
        ],
    }


def read_match_text(
    text: str, start_state: npt.ArrayLike | None = None
) -> tuple[list[dict[str, Any]], npt.NDArray[np.int64]]:
    """(turns, final state) of the first game in Jellyfish match text, replayed through the game
    core from start_state (default: the standard start; checked like every state,
    backgammon_checks.check_state). turns are the env's records, cube actions included; the
    state of a roll not yet played holds its dice. TypeError if text is not a string,
    ValueError naming the first line that cannot be read or played."""
    if not isinstance(text, str):
        raise TypeError(f"match text must be a string, got {type(text).__name__}")
    start = None if start_state is None else check_state(start_state, "start_state").copy()
    games = _split_games(text)
    if not games:
        return [], core.initial_state() if start is None else start
    number, _, lines = games[0]
    entries, wins, head = _parse_game(lines)
    names = ["player_0", "player_1"] if head is None else head[1]
    g = _Game(number, (0, 0), names, 0, False, core.initial_state() if start is None else start)
    for k, e in enumerate(entries):
        g.play(e, k == len(entries) - 1)
    g.finish(wins)
    return g.turns, g.state


def match_frames(text: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(frames, match) of a whole gnubg / Jellyfish match file: every position of every game,
    the cube's value and owner in its state, the match score before each game.

    A frame is {state (int64[STATE_LEN]), caption, ply (rolls played in its game), game, score,
    match_length, crawford, last_move (the game's latest play as a turn record {player, dice,
    moves: [(from, to, hit)]} in its player's numbering; None before it)}, with dice and turn
    after a roll, offered at a double or a drop,
    score_after in a game's last frame; a roll not yet played (a game's last entry) is a frame
    with pending True, its dice and turn, the state before it and the ply unchanged. match is
    {kind: "match", games: [{number, score, score_after, winner, points, crawford, first,
    last}] (frame indices), names, match_length}. TypeError unless text is a string, ValueError
    naming the first line that cannot be read, played or scored.
    """
    match_length, names, games = _read_games(text)
    frames, out = [], []
    for g, winner, points, number in games:
        after = g.score_after
        if winner is not None and not g.dropped:
            g.frames[-1]["caption"] += f"; {names[winner]} wins {_plural(points)}"
        for f in g.frames:
            f.update(game=number, score=list(g.score), match_length=match_length)
            f["crawford"] = g.crawford
        g.frames[-1]["score_after"] = after
        out.append(
            {
                "number": number,
                "score": list(g.score),
                "score_after": after,
                "winner": winner,
                "points": points,
                "crawford": g.crawford,
                "first": len(frames),
                "last": len(frames) + len(g.frames) - 1,
            }
        )
        frames += g.frames
    return frames, {"kind": "match", "games": out, "names": names, "match_length": match_length}
