"""Backgammon game records as Jellyfish match text (``.mat``), the format GNU Backgammon imports.

A record is the env's list of turns: ``{"player": 0/1, "dice": (d1, d2), "moves": [(from, to, hit)],
"cube": None | "double" | "take" | "drop"}``, points from the mover's own view, 25 = the bar,
0 = off. ``game_to_match_text`` writes one game (``0 point match`` = money game); the turn
numbering pairs player_0's turn (left column) with player_1's (right column), as Jellyfish does.
``read_match_text`` parses such a file back into turns and replays them through the kernel,
raising ``ValueError`` naming the first move that is not legal.
"""

import re

import numpy as np

from boardgym.envs import backgammon_notation as notation
from boardgym.kernels.backgammon import game as core
from boardgym.kernels.backgammon.board import TURN

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
            if cube == "double" and not notation.is_int(t.get("value")):
                raise ValueError(f"turn {k}: a double records the new cube value")
            continue
        dice, moves = t.get("dice"), t.get("moves")
        if not isinstance(dice, (list, tuple)) or len(dice) != 2:
            raise ValueError(f"turn {k}: dice must be a pair, got {dice!r}")
        notation.check_dice(*dice)
        if not isinstance(moves, (list, tuple)) or any(
            not isinstance(m, (list, tuple))
            or len(m) != 3
            or not notation.is_int(m[0])
            or not notation.is_int(m[1])
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
    if not notation.is_int(game) or game < 1:
        raise ValueError(f"game must be a positive integer, got {game!r}")


def game_to_match_text(turns, result, names=("player_0", "player_1"), game=1):
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


def read_match_text(text, start_state=None):
    """(turns, final state) of the first game in Jellyfish match text, replayed through the game
    core; start_state (default: the standard start) is checked like every state
    (backgammon_notation.check_state). TypeError if text is not a string."""
    if not isinstance(text, str):
        raise TypeError(f"match text must be a string, got {type(text).__name__}")
    state = (
        core.initial_state()
        if start_state is None
        else notation.check_state(start_state, "start_state").copy()
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
