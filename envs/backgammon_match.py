"""Backgammon game records as Jellyfish match text (``.mat``), the format GNU Backgammon imports.

A record is the env's list of turns: ``{"player": 0/1, "dice": (d1, d2), "moves": [(from, to, hit)],
"cube": None | "double" | "take" | "drop"}``, points from the mover's own view, 25 = the bar,
0 = off. ``game_to_match_text`` writes one game (``0 point match`` = money game); the turn
numbering pairs player_0's turn (left column) with player_1's (right column), as Jellyfish does.
``read_match_text`` parses such a file back into turns and replays them through the kernel,
raising ``ValueError`` naming the first move that is not legal. ``match_frames`` reads a whole
match file as gnubg and Jellyfish write it (``N point match``, every ``Game N`` with its score
line; a lone entry is placed by the column it starts in, as gnubg shifts the right column after
a long play): every position of every game, the cube actions checked and replayed (a double to
twice the cube by its owner or either side when centred, C.1; a take doubles the cube and gives
it to the taker, a drop ends the game, C.2; no beavers) and the match score before and after
each game.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from boardgym.envs.backgammon_checks import check_dice, check_state
from boardgym.envs.checks import is_int
from boardgym.kernels.backgammon import game as core
from boardgym.kernels.backgammon.board import CUBE_OWNER, CUBE_VALUE, TURN

_COL = 33


def _turn_text(turn):
    if turn.get("cube") == "double":
        return f" Doubles => {turn['value']}"
    if turn.get("cube") == "take":
        return " Takes"
    if turn.get("cube") == "drop":
        return " Drops"
    d1, d2 = turn["dice"]
    moves = " ".join(f"{a}/{b}{'*' if hit else ''}" for a, b, hit in turn["moves"])
    return f"{max(d1, d2)}{min(d1, d2)}: {moves}".rstrip()


def _check_record(turns, result, names, game):
    """TypeError / ValueError naming what is wrong with a game record."""
    if not isinstance(turns, (list, tuple)):
        raise TypeError(f"turns must be a list of turn records, got {type(turns).__name__}")
    for k, t in enumerate(turns):
        if not isinstance(t, dict) or t.get("player") not in (0, 1):
            raise ValueError(f"turn {k}: a record is a dict with player 0 or 1, got {t!r}")
        cube = t.get("cube")
        if cube is not None:
            if cube not in ("double", "take", "drop"):
                raise ValueError(f"turn {k}: cube must be 'double', 'take' or 'drop', got {cube!r}")
            if cube == "double" and not is_int(t.get("value")):
                raise ValueError(f"turn {k}: a double records the new cube value")
            continue
        dice, moves = t.get("dice"), t.get("moves")
        if not isinstance(dice, (list, tuple)) or len(dice) != 2:
            raise ValueError(f"turn {k}: dice must be a pair, got {dice!r}")
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
            raise ValueError(f"turn {k}: moves must be (from 1..25, to below it, hit) triples")
    if result is not None and (
        not isinstance(result, (list, tuple)) or len(result) != 3 or result[0] not in (0, 1)
    ):
        raise ValueError(f"result must be None or (winner 0/1, kind, points), got {result!r}")
    if (
        not isinstance(names, (list, tuple))
        or len(names) != 2
        or not all(isinstance(n, str) for n in names)
    ):
        raise TypeError(f"names must be two strings, got {names!r}")
    if not is_int(game) or game < 1:
        raise ValueError(f"game must be a positive integer, got {game!r}")


def game_to_match_text(
    turns: Sequence[dict[str, Any]],
    result: Sequence[int] | None,
    names: Sequence[str] = ("player_0", "player_1"),
    game: int = 1,
) -> str:
    """Jellyfish match text of one money game from the standard start; result is
    (winner, kind, points) or None. GNU Backgammon imports it (``import mat``; tested with its
    Jacoby rule off, as our money games have none)."""
    _check_record(turns, result, names, game)
    width = _COL + 5
    lines = [
        " 0 point match",
        "",
        f" Game {game}",
        f" {names[0]} : 0".ljust(width) + f"{names[1]} : 0",
    ]
    row, num = None, 1
    for turn in turns:
        text = _turn_text(turn).strip()
        if turn["player"] == 0:
            if row is not None:  # a row whose right column stays empty
                lines.append(row.rstrip())
                num += 1
            row = f"{num:3d}) {text}".ljust(width)
        else:
            row = (f"{num:3d}) ".ljust(width) if row is None else row) + text
            lines.append(row)
            row, num = None, num + 1
    wins = None
    if result is not None:
        winner, _, points = result
        wins = f"Wins {points} point{'s' if points != 1 else ''}"
        if row is not None and winner == 1:  # the right column of the open row (as gnubg writes it)
            row, wins = row + wins, None
    if row is not None:
        lines.append(row.rstrip())
    if wins is not None:
        lines.append((" " * 6 if winner == 0 else " " * width) + wins)
    return "\n".join(lines) + "\n"


_MOVE = re.compile(r"^(\d+)/(\d+)(\*?)$")
_ROLL = re.compile(r"^([1-6])([1-6]):$")


def read_match_text(
    text: str, start_state: npt.ArrayLike | None = None
) -> tuple[list[dict[str, Any]], npt.NDArray[np.int64]]:
    """(turns, final state) of the first game in Jellyfish match text, replayed through the game
    core; start_state (default: the standard start) is checked like every state
    (backgammon_checks.check_state). TypeError if text is not a string."""
    if not isinstance(text, str):
        raise TypeError(f"match text must be a string, got {type(text).__name__}")
    state = (
        core.initial_state()
        if start_state is None
        else check_state(start_state, "start_state").copy()
    )
    turns = []
    tokens = []
    for line in text.splitlines():
        if not re.match(r"^\s*\d+\)", line):
            continue
        left, right = line[5 : _COL + 5], line[_COL + 5 :]
        for player, part in ((0, left), (1, right)):
            if part.strip():
                tokens.append((player, part.split()))
    mask = np.zeros(core.N_ACTIONS, np.int8)
    for player, words in tokens:
        if not _ROLL.match(words[0]):
            continue  # cube actions are recorded but not replayed here
        d1, d2 = int(words[0][0]), int(words[0][1])
        if state[TURN] != player:
            state = core.pass_turn(state)
        state = core.set_roll(state, d1, d2)
        moves = []
        for w in words[1:]:
            mm = _MOVE.match(w)
            if not mm:
                raise ValueError(f"malformed move {w!r} in turn {words}")
            a, b = int(mm.group(1)), int(mm.group(2))
            if not (1 <= a <= 25 and 0 <= b < a):
                raise ValueError(
                    f"move {w} of {words[0]} by player_{player}: from is 1..25 "
                    "(25 = bar), to 0..24 (0 = off) and below it"
                )
            die = a - b if b > 0 else None
            core.legal_mask(state, False, False, mask)
            candidates = (
                [die] if die is not None else [d for d in range(a, 7)] + [d for d in range(1, a)]
            )
            for d in candidates:
                if (
                    d is not None
                    and 1 <= d <= 6
                    and (b > 0 or d >= a)
                    and mask[core.encode_action(a, d)]
                ):
                    state = core.apply(state, core.encode_action(a, d))
                    break
            else:
                raise ValueError(f"move {w} of {words[0]} by player_{player} is not legal")
            moves.append((a, b, bool(mm.group(3))))
        turns.append({"player": player, "dice": (d1, d2), "moves": moves})
        if not moves and not core.can_move(state):  # E.3 / E.7: the roll is lost
            state = core.pass_turn(state)
        if state[TURN] == player:  # the play did not use every die it had to
            raise ValueError(f"turn {' '.join(words)} by player_{player} is not a complete play")
    return turns, state


# ----------------------------------------------------------------------------- whole match files
_MATCH_LENGTH = re.compile(r"^[ \t]*(\d+)[ \t]+point[ \t]+match\b", re.IGNORECASE | re.MULTILINE)
_GAME_LINE = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORE_LINE = re.compile(r"^\s*(\S.*?)\s*:\s*(\d+)\s{2,}(\S.*?)\s*:\s*(\d+)\s*$")
_TURN_LINE = re.compile(r"^\s*\d+\)")
_ROLL_WORD = re.compile(r"^[1-6][1-6]:$")
_COLUMN = _COL + 5  # where read_match_text takes the right column to start
_RIGHT_FROM = 20  # a lone entry starting this far into a line is in the right column
_TURN_WORDS = ("doubles", "takes", "drops", "wins", "beavers", "raccoons")
MAX_GAMES = 200  # games in one match file


def _split_games(text):
    """[(number, lines)] of a match file's games ('Game N' headers; none: one game)."""
    games, current = [], None
    for line in text.splitlines():
        m = _GAME_LINE.match(line)
        if m:
            current = (int(m.group(1)), [])
            games.append(current)
            if len(games) > MAX_GAMES:
                raise ValueError(f"more than {MAX_GAMES} games in one match file")
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
    replayed: a take doubles the cube and gives it to the taker), and the score after it;
    ValueError naming the turn."""
    state = core.initial_state()
    where = f"game {number}"
    head = f"game {number}: {names[0]} {score[0]} - {score[1]} {names[1]}"
    frames = [{"state": state, "caption": f"{head}: start", "ply": 0}]
    offered, doubler, winner, points, dropped, ply = None, None, None, None, False, 0
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
        frames.append({"state": state, "caption": caption, "ply": ply, **extra})

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
                turns, state = read_match_text(_turn_line(player, words), state)
            except ValueError as e:
                raise ValueError(f"{where}: {e}") from None
            t, ply = turns[0], ply + 1
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
                state = core.pass_turn(state)
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
                state = core.take_double(state)
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
        w, kind, pts = core.result(state, core.SCORING_GAMMON)
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


def match_frames(text: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(frames, match) of a whole gnubg / Jellyfish match file: every position of every game,
    the cube's value and owner in its state, the match score before each game.

    A frame is {state (int64[STATE_LEN]), caption, ply (turns played in its game), game, score,
    match_length}, with dice and turn after a roll, offered at a double or a drop, score_after
    in a game's last frame; match is {kind: "match", games: [{number, score, score_after, first,
    last}] (frame indices), names, match_length}. TypeError unless text is a string, ValueError
    naming the first turn that cannot be read or played.
    """
    if not isinstance(text, str):
        raise TypeError(f"match text must be a string, got {type(text).__name__}")
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
