"""Reference side of the backgammon differential test: gnubg-nn (GNU Backgammon's C move generator).

gnubg-nn is GPL-3: it is imported by tests and benchmark scripts only, never by library code.

Board layout (gnubg's): a pair (opponent, mover) of 25-lists; index i < 24 is point i + 1 counted
from that side's own home (points 1..6 = home board), index 24 is the bar. Borne-off checkers are
15 minus the side's total. A checker on the mover's point p stands on the opponent's point 25 - p.

Besides the gnubg wrappers this module holds a small, deliberately plain rules model used only to
classify cases (never as the oracle): it plays dice one checker at a time with single-die legality
(B.1-B.3, E.1-E.2, O.1-O.2) and keeps every sequence that stops when no remaining die can be used
("naive"). Applying B.5 (most dice used; higher die when only one can be used) to that set gives the
legal set; where naive and legal differ, the case is a B.5 trap (tag "both" or "higher").
"""

from __future__ import annotations

import gnubg_nn as gnubg

Board = tuple[tuple[int, ...], tuple[int, ...]]


def board_of(pid: str) -> Board:
    """Position ID -> (opponent, mover) tuples, as gnubg decodes it."""
    opp, me = gnubg.board_from_position_id(pid)
    return tuple(opp), tuple(me)


def pid_of(board: Board) -> str:
    """(opponent, mover) -> gnubg Position ID."""
    return gnubg.position_id([list(board[0]), list(board[1])])


def swap(board: Board) -> Board:
    """Hand the turn over: the opponent becomes the mover (gnubg's SwapSides)."""
    return board[1], board[0]


def gnubg_afterstates(pid: str, d1: int, d2: int) -> list[str]:
    """gnubg's distinct afterstates as sorted Position IDs; [pid] when no checker can move."""
    keys = gnubg.moves([list(x) for x in board_of(pid)], d1, d2)
    if not keys:
        return [pid]
    return sorted(
        {gnubg.position_id([list(x) for x in gnubg.board_from_position_key(k)]) for k in keys}
    )


def valid_board(board: Board) -> str | None:
    """None if board is a legal backgammon position, else the reason."""
    opp, me = board
    if len(opp) != 25 or len(me) != 25 or min(opp) < 0 or min(me) < 0:
        return "shape or negative count"
    if sum(opp) > 15 or sum(me) > 15:
        return "more than 15 checkers a side"
    for i in range(24):
        if me[i] and opp[23 - i]:
            return f"both sides on mover's point {i + 1}"
    return None


# --- plain rules model (classification only) --------------------------------------------------


def single_moves(board: Board, d: int) -> list[Board]:
    """Every board after moving one mover checker by die d (B.1-B.3, E.1-E.2, O.1-O.2)."""
    opp, me = board
    out = []
    sources = [24] if me[24] else [i for i in range(24) if me[i]]  # E.1: bar first
    all_home = not me[24] and not any(me[6:24])  # O.1
    highest = max((i for i in range(24) if me[i]), default=-1)
    for src in sources:
        dst = src - d  # index space: the bar is 24, so entry lands on point 25 - d (E.2)
        if dst >= 0:
            if opp[23 - dst] >= 2:  # B.2 blocked
                continue
            o, m = list(opp), list(me)
            m[src] -= 1
            m[dst] += 1
            if o[23 - dst] == 1:  # B.3 / E.5 hit
                o[23 - dst] = 0
                o[24] += 1
            out.append((tuple(o), tuple(m)))
        elif all_home and (
            dst == -1 or src == highest
        ):  # O.2 exact, or higher die from the highest point
            m = list(me)
            m[src] -= 1
            out.append((opp, tuple(m)))
    return out


def naive_plays(board: Board, d1: int, d2: int) -> dict[Board, set[tuple[int, ...]]]:
    """Single-die legality only: {afterstate: set of dice sequences used}, each sequence stopped
    when none of the remaining dice can be played (no B.5 maximisation)."""
    dice = [d1] * 4 if d1 == d2 else [d1, d2]
    out: dict[Board, set[tuple[int, ...]]] = {}

    def rec(b: Board, left: list[int], used: tuple[int, ...]) -> None:
        moved = False
        for k, d in enumerate(left):
            if k and d == left[k - 1]:
                continue
            nxt = single_moves(b, d)
            if nxt:
                moved = True
                rest = left[:k] + left[k + 1 :]
                for nb in set(nxt):
                    rec(nb, rest, used + (d,))
        if not moved:
            out.setdefault(b, set()).add(used)

    rec(board, dice, ())
    return out


def rules_plays(naive: dict[Board, set[tuple[int, ...]]], d1: int, d2: int) -> set[Board]:
    """B.5 applied to naive_plays: most dice used; with one die usable, the higher one if it can
    be."""
    most = max(len(u) for us in naive.values() for u in us)
    keep = {b: {u for u in us if len(u) == most} for b, us in naive.items()}
    keep = {b: us for b, us in keep.items() if us}
    if most == 1 and d1 != d2:
        hi = max(d1, d2)
        if any((hi,) in us for us in keep.values()):
            keep = {b: us for b, us in keep.items() if (hi,) in us}
    return set(keep)


def classify(pid: str, d1: int, d2: int) -> tuple[set[str], list[str]]:
    """Tags for a case and the rules-model afterstate IDs (sorted).

    bar: mover has a checker on the bar; bearoff: all mover checkers home; pass: nothing moves;
    closed: on the bar facing six closed points (E.7); enterhit: an entering checker can hit (E.5);
    hit2bear: a 2-2 play that hits and bears off; both: B.5 must-use-both changes the set;
    higher: B.5 higher-die rule changes the set; doubles: a double was rolled.
    """
    board = board_of(pid)
    opp, me = board
    tags: set[str] = set()
    if me[24]:
        tags.add("bar")
        if all(opp[k] >= 2 for k in range(6)):  # opponent's home points 1..6
            tags.add("closed")
    if not me[24] and not any(me[6:24]):
        tags.add("bearoff")
    if d1 == d2:
        tags.add("doubles")
    naive = naive_plays(board, d1, d2)
    legal = rules_plays(naive, d1, d2)
    if legal == {board}:
        tags.add("pass")
    if set(naive) != legal:
        most = max(len(u) for us in naive.values() for u in us)
        tags.add("higher" if most == 1 and d1 != d2 else "both")
    for after in legal:
        hit = after[0][24] > opp[24]
        if (
            me[24] and hit and any(opp[d - 1] == 1 for d in (d1, d2))
        ):  # entry point d = opponent's point d
            tags.add("enterhit")
        if d1 == d2 == 2 and hit and sum(after[1]) < sum(me):
            tags.add("hit2bear")
    return tags, sorted({pid_of(b) for b in legal})
