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

from boardgym.envs import backgammon_notation as api
from boardgym.kernels.backgammon.board import TURN, end_turn, set_dice
from boardgym.kernels.backgammon.codec import (
    apply_action, encode_action, has_legal_move, legal_action_mask,
)
from boardgym.kernels.backgammon.codec import N_ACTIONS

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


def game_to_match_text(turns, result, names=("player_0", "player_1"), game=1):
    """Jellyfish match text of one money game from the standard start; result is
    (winner, kind, points) or None. GNU Backgammon imports it (``import mat``; tested with its
    Jacoby rule off, as our money games have none)."""
    width = _COL + 5
    lines = [" 0 point match", "", f" Game {game}", f" {names[0]} : 0".ljust(width) + f"{names[1]} : 0"]
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
    """(turns, final state) of the first game in Jellyfish match text, replayed through the kernel."""
    state = api.initial_state() if start_state is None else np.array(start_state, np.int64)
    turns = []
    tokens = []
    for line in text.splitlines():
        if not re.match(r"^\s*\d+\)", line):
            continue
        left, right = line[5:_COL + 5], line[_COL + 5:]
        for player, part in ((0, left), (1, right)):
            if part.strip():
                tokens.append((player, part.split()))
    mask = np.zeros(N_ACTIONS, np.int8)
    for player, words in tokens:
        if not _ROLL.match(words[0]):
            continue  # cube actions are recorded but not replayed here
        d1, d2 = int(words[0][0]), int(words[0][1])
        if state[TURN] != player:
            state = end_turn(state)
        state = set_dice(state, d1, d2)
        moves = []
        for w in words[1:]:
            mm = _MOVE.match(w)
            if not mm:
                raise ValueError(f"malformed move {w!r} in turn {words}")
            a, b = int(mm.group(1)), int(mm.group(2))
            die = a - b if b > 0 else None
            legal_action_mask(state, mask)
            candidates = [die] if die is not None else [d for d in range(a, 7)] + [d for d in range(1, a)]
            for d in candidates:
                if d is not None and 1 <= d <= 6 and (b > 0 or d >= a) and mask[encode_action(a, d)]:
                    state = apply_action(state, encode_action(a, d))
                    break
            else:
                raise ValueError(f"move {w} of {words[0]} by player_{player} is not legal")
            moves.append((a, b, bool(mm.group(3))))
        turns.append({"player": player, "dice": (d1, d2), "moves": moves})
        if not moves and not has_legal_move(state):  # E.3 / E.7: the roll is lost
            state = end_turn(state)
        if state[TURN] == player:  # the play did not use every die it had to
            raise ValueError(f"turn {' '.join(words)} by player_{player} is not a complete play")
    return turns, state
