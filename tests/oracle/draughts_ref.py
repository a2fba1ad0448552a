"""Reference side of the draughts differential test: py-draughts 1.10.1 wrapped as an oracle.

py-draughts (import ``draughts``, class ``draughts.boards.russian.Board``) is an independent
pure-Python Russian draughts implementation. Its square index i (0..31) is square i + 1 of the
standard numbering of boardgym/RULES.md (1 = b8, 4 = h8, 29 = a1, 32 = g1). This module turns its
moves into outcomes keyed by (start, end, captured set) -- the identity boardgym/RULES.md uses for
one legal move -- and normalises FENs from either side into comparable tuples.
Nothing here imports boardgym: the oracle side must stay independent of the kernel.
"""

from __future__ import annotations

import re

from draughts.boards.russian import Board

SQUARE_NAMES = tuple(Board.SQUARE_NAMES)  # index -> algebraic, index i = numeric square i + 1
NAME_TO_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}
PROMO_WHITE = frozenset(range(0, 4))  # row 8: b8 d8 f8 h8
PROMO_BLACK = frozenset(range(28, 32))  # row 1: a1 c1 e1 g1


def square_xy(i: int) -> tuple[int, int]:
    """Board index (0..31) -> (file 0..7, rank 0..7) with a1 = (0, 0)."""
    name = SQUARE_NAMES[i]
    return ord(name[0]) - ord("a"), int(name[1]) - 1


XY_TO_INDEX = {square_xy(i): i for i in range(32)}


def parse_fen(fen: str) -> tuple[str, frozenset]:
    """FEN (numeric or algebraic, optional [FEN "..."] wrapper) -> (side, {(index, colour,
    is_king)})."""
    m = re.search(r'\[FEN\s*"([^"]*)"\]', fen)
    if m:
        fen = m.group(1)
    fields = fen.strip().split(":")
    side = fields[0].upper()
    pieces = set()
    for field in fields[1:3]:
        colour = field[0].upper()
        body = field[1:]
        if not body:
            continue
        for tok in body.split(","):
            tok = tok.strip()
            king = tok[:1].upper() == "K"
            sq = tok[1:] if king else tok
            idx = int(sq) - 1 if sq.isdigit() else NAME_TO_INDEX[sq.lower()]
            pieces.add((idx, colour, king))
    return side, frozenset(pieces)


def to_numeric_fen(side: str, pieces) -> str:
    """(side, pieces) -> numeric FEN with sorted square lists."""
    out = [side]
    for colour in "WB":
        toks = [("K" if k else "") + str(i + 1) for i, c, k in sorted(pieces) if c == colour]
        out.append(colour + ",".join(toks))
    return ":".join(out)


def board(fen: str) -> Board:
    """A py-draughts Russian board from a numeric FEN."""
    return Board.from_fen(fen)


def ref_fen(b: Board) -> str:
    """py-draughts' FEN of board b, normalised to our numeric form."""
    return to_numeric_fen(*parse_fen(b.fen))


def outcome_key(move) -> tuple[int, int, frozenset]:
    """py-draughts Move -> (start index, end index, captured index set)."""
    return move.square_list[0], move.square_list[-1], frozenset(move.captured_list)


def ref_outcomes(fen: str) -> dict[tuple[int, int, frozenset], str]:
    """All legal outcomes per py-draughts: {(start, end, captured): numeric FEN after the move}."""
    b = board(fen)
    out = {}
    for mv in b.legal_moves:
        key = outcome_key(mv)
        b.push(mv)
        after = ref_fen(b)
        b.pop()
        if key in out and out[key] != after:
            raise AssertionError(f"py-draughts: one outcome key, two positions: {fen} {key}")
        out[key] = after
    return out


def ref_perft(b: Board, depth: int) -> int:
    """Bulk-counted perft through py-draughts' public API (legal_moves / push / pop)."""
    moves = b.legal_moves
    if depth == 1:
        return len(moves)
    total = 0
    for mv in moves:
        b.push(mv)
        total += ref_perft(b, depth - 1)
        b.pop()
    return total


def key_str(key) -> str:
    """Readable outcome key: start-end x{captured} in algebraic squares."""
    s, e, caps = key
    capt = ",".join(sorted(SQUARE_NAMES[c] for c in caps))
    return f"{SQUARE_NAMES[s]}>{SQUARE_NAMES[e]} x{{{capt}}}"


def path_captures(fen: str, move: str) -> frozenset:
    """Walk a PDN move string ("c3-d4" / "c3:e5:g3") over the position and return the captured set.

    Checks that the printed path is a real route by the rules of boardgym/RULES.md: each capture
    segment is a diagonal with exactly one piece on it, an enemy not jumped before (25.2: jumped
    pieces block and are not jumped twice); the landing square and the rest of the segment are
    empty; a man moves two squares per capture until it reaches its crowning row (25.5), a king any
    distance (25.3). Raises AssertionError naming the fault.
    """
    side, pieces = parse_fen(fen)
    occ = {i: (c, k) for i, c, k in pieces}
    sq = [NAME_TO_INDEX[t] for t in re.split(r"[-:]", move)]
    start = sq[0]
    assert start in occ and occ[start][0] == side, (
        f"{move}: no {side} piece on {SQUARE_NAMES[start]}"
    )
    king = occ[start][1]
    del occ[start]
    if "-" in move:
        assert len(sq) == 2 and sq[1] not in occ, f"{move}: bad simple move"
        return frozenset()
    promo = PROMO_WHITE if side == "W" else PROMO_BLACK
    captured: set[int] = set()
    for a, b in zip(sq, sq[1:]):
        (ax, ay), (bx, by) = square_xy(a), square_xy(b)
        dx, dy = bx - ax, by - ay
        assert abs(dx) == abs(dy) and dx != 0, (
            f"{move}: {SQUARE_NAMES[a]}->{SQUARE_NAMES[b]} not diagonal"
        )
        n = abs(dx)
        assert king or n == 2, f"{move}: man jumps {n} squares"
        sx, sy = dx // n, dy // n
        on_seg = [XY_TO_INDEX[(ax + sx * t, ay + sy * t)] for t in range(1, n)]
        hit = [i for i in on_seg if i in occ]
        assert b not in occ, f"{move}: lands on occupied {SQUARE_NAMES[b]}"
        assert len(hit) == 1, (
            f"{move}: {len(hit)} pieces between {SQUARE_NAMES[a]} and {SQUARE_NAMES[b]}"
        )
        victim = hit[0]
        assert occ[victim][0] != side, f"{move}: jumps own piece on {SQUARE_NAMES[victim]}"
        assert victim not in captured, f"{move}: jumps {SQUARE_NAMES[victim]} twice"
        captured.add(victim)
        if b in promo:
            king = True
    return frozenset(captured)


def features(fen: str) -> set[str]:
    """Tags describing what makes a position interesting, computed with py-draughts only.

    cap: a capture is compulsory; long: some chain takes >= 3 pieces; kingmulti: a king capture
    with the same start and captured set can end on several squares (25.3); promo: a man crowns
    mid-capture and continues as a king (25.5); turkish: some chain ends only because a jumped,
    not yet removed piece blocks it (25.2/25.4: with captured pieces removed at once the same
    piece could capture again from where it stopped); kings: a king is on the board;
    nomove: the side to move has no legal move (G.1).
    """
    b = board(fen)
    moves = b.legal_moves
    tags: set[str] = set()
    side, pieces = parse_fen(fen)
    if any(k for _, _, k in pieces):
        tags.add("kings")
    if not moves:
        tags.add("nomove")
        return tags
    caps = [m for m in moves if m.captured_list]
    if not caps:
        return tags
    tags.add("cap")
    promo = PROMO_WHITE if side == "W" else PROMO_BLACK
    groups: dict = {}
    for m in caps:
        if len(m.captured_list) >= 3:
            tags.add("long")
        if any(s in promo for s in m.square_list[1:-1]):
            tags.add("promo")
        groups.setdefault((m.square_list[0], frozenset(m.captured_list)), set()).add(
            m.square_list[-1]
        )
        # Turkish-strike witness: replay with the mover still to move; can the piece capture again?
        b.push(m)
        after = Board.from_fen(ref_fen(b))
        b.pop()
        after.turn = b.turn
        if any(
            x.captured_list and x.square_list[0] == m.square_list[-1] for x in after.legal_moves
        ):
            tags.add("turkish")
    if any(len(ends) > 1 for ends in groups.values()):
        tags.add("kingmulti")
    return tags
