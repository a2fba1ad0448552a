"""Russian draughts game API and PDN notation over the kernel (boardgym.kernels.draughts).

Positions are ``int64[STATE_LEN]`` vectors (layout in boardgym.kernels.draughts.board). Every
function that takes ``fen_or_state`` accepts a PDN FEN string or such a vector.

FEN (``from_fen``): ``W:W21,22,K5:B1,K30`` (standard Russian numbering 1 = b8 .. 32 = g1) or
``W:Wa1,c1,Kh2:Bb8,Kd8`` (algebraic), mixed freely; numeric ranges ``W:W21-32:B1-12`` (a ``K``
before a range crowns all of it); optional surrounding ``[FEN "..."]``, brackets or quotes and a
trailing ``.``; whitespace ignored; lower-case side letters accepted. A colour's piece list may
be empty (``W:W:B1``) but both colours must appear, once each. Rejected with ``ValueError``:
a side to move other than W/B, an unknown or light square, a square given twice, a man on its
own promotion row (a White man on row 8, a Black man on row 1), more than 12 pieces on a side,
and anything else that does not parse. ``to_fen`` writes algebraic squares, each colour's
pieces in a1..h8 order with ``K`` before kings.

Moves (``legal_moves``): ``c3-d4`` for a quiet move, ``c3:e5:g3`` for a capture with every
landing square; one string per distinct (start, end, captured set), the path being the
lexicographically smallest route (movegen.py). ``apply`` accepts that string, any other legal
route to the same outcome, the separators ``-``, ``:`` and ``x`` interchangeably, numeric
squares (``22-17``, ``22x15``) and a capture abbreviated to start and end when that is
unambiguous.

Actions (for the envs): ``action = from_sq32 * 32 + to_sq32``, one hop at a time
(boardgym.kernels.draughts.codec). ``action_mask`` and ``apply_action`` validate their input.
"""
import re

import numba
import numpy as np

from boardgym.kernels.draughts.board import (
    BB_PROMO,
    BB_SQUARES,
    GHOST_TO_SQ32,
    M_CAPTURED,
    M_FROM,
    M_NHOPS,
    M_PATH,
    M_TO,
    MAX_MOVES,
    ROW_LEN,
    S_BK,
    S_BM,
    S_CAP_JUMPED,
    S_CAP_SQ,
    S_CAP_START,
    S_SIDE,
    S_WK,
    S_WM,
    SQ32_NAMES,
    SQ32_TO_GHOST,
    STATE_LEN,
    pdn_to_sq32,
)
from boardgym.kernels.draughts.codec import N_ACTIONS
from boardgym.kernels.draughts.codec import apply_action as _k_apply_action
from boardgym.kernels.draughts.codec import legal_action_mask as _k_mask
from boardgym.kernels.draughts.move import initial_state as _k_initial_state
from boardgym.kernels.draughts.move import set_position
from boardgym.kernels.draughts.movegen import gen_moves as _k_gen_moves
from boardgym.kernels.draughts.outcome import RULES_ALL, STATUS_NAMES
from boardgym.kernels.draughts.outcome import game_status as _k_game_status
from boardgym.kernels.draughts.perft import perft as _k_perft
from boardgym.kernels.draughts.perft import perft_parallel as _k_perft_parallel

__all__ = [
    "N_ACTIONS", "STATE_LEN", "STATUS_NAMES", "initial_state", "from_fen", "to_fen", "legal_moves",
    "apply", "perft", "game_status", "action_to_str", "str_to_action", "action_mask",
    "legal_actions", "apply_action", "move_to_actions", "square_name", "parse_square",
]

_NAME_TO_SQ32 = {name: i for i, name in enumerate(SQ32_NAMES)}


def square_name(sq32):
    """Algebraic name of a sq32 square (0 -> 'a1')."""
    return SQ32_NAMES[sq32]


def parse_square(token):
    """sq32 index of an algebraic (``c3``) or numeric PDN (``22``) square; ValueError if unknown."""
    t = token.strip().lower()
    if t.isdigit():
        n = int(t)
        if not 1 <= n <= 32:
            raise ValueError(f"unknown square {token!r}: numeric squares are 1..32")
        return pdn_to_sq32(n)
    if len(t) == 2 and t[0] in "abcdefgh" and t[1] in "12345678":
        if t not in _NAME_TO_SQ32:
            raise ValueError(f"unknown square {token!r}: not a dark (playable) square")
        return _NAME_TO_SQ32[t]
    raise ValueError(f"unknown square {token!r}")


# ---- FEN ------------------------------------------------------------------------------------
_WRAPPER = re.compile(r'^\[?\s*(?:FEN\s+)?["\']?(.*?)["\']?\s*\]?$', re.S)


def _parse_piece_list(text, colour, fen):
    """[(sq32, is_king)] of a comma-separated FEN piece list."""
    pieces = []
    if text.strip() == "":
        return pieces
    for item in text.split(","):
        tok = item.strip()
        if not tok:
            raise ValueError(f"bad FEN {fen!r}: empty entry in the {colour} piece list")
        king = tok[0] in "Kk"
        if king:
            tok = tok[1:].strip()
        m = re.fullmatch(r"(\d+)\s*-\s*(\d+)", tok)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            if not (1 <= lo <= hi <= 32):
                raise ValueError(f"bad FEN {fen!r}: bad square range {item.strip()!r}")
            pieces.extend((pdn_to_sq32(n), king) for n in range(lo, hi + 1))
            continue
        try:
            pieces.append((parse_square(tok), king))
        except ValueError as e:
            raise ValueError(f"bad FEN {fen!r}: {e}") from None
    return pieces


def from_fen(fen, rules=RULES_ALL):
    """Position vector (int64[STATE_LEN]) of a PDN FEN string; ValueError naming any problem.

    rules: bitmask of the draw rules to enable (outcome.RULE_*; default all, G.2a-G.2e).
    """
    if not isinstance(fen, str):
        raise ValueError(f"FEN must be a string, got {type(fen).__name__}")
    if not (isinstance(rules, (int, np.integer)) and 0 <= int(rules) <= RULES_ALL):
        raise ValueError(f"rules must be a bitmask in 0..{RULES_ALL}, got {rules!r}")
    text = _WRAPPER.match(fen.strip()).group(1).strip()
    if text.endswith("."):
        text = text[:-1]
    text = re.sub(r"\s+", "", text)
    parts = text.split(":")
    if len(parts) != 3:
        raise ValueError(f"bad FEN {fen!r}: expected 'side:Wpieces:Bpieces'")
    side_tok = parts[0].upper()
    if side_tok not in ("W", "B"):
        raise ValueError(f"bad FEN {fen!r}: side to move must be W or B, got {parts[0]!r}")
    lists = {}
    for part in parts[1:]:
        if not part or part[0].upper() not in "WB":
            raise ValueError(f"bad FEN {fen!r}: piece list {part!r} must start with W or B")
        colour = part[0].upper()
        if colour in lists:
            raise ValueError(f"bad FEN {fen!r}: colour {colour} given twice")
        lists[colour] = _parse_piece_list(part[1:], colour, fen)
    bbs = [np.int64(0)] * 4  # wm, wk, bm, bk
    seen = {}
    for ci, colour in enumerate("WB"):
        if len(lists[colour]) > 12:
            raise ValueError(f"bad FEN {fen!r}: {len(lists[colour])} {colour} pieces (at most 12)")
        for sq, king in lists[colour]:
            if sq in seen:
                raise ValueError(f"bad FEN {fen!r}: two pieces on square {SQ32_NAMES[sq]}")
            seen[sq] = colour
            g = int(SQ32_TO_GHOST[sq])
            if not king and (int(BB_PROMO[ci]) >> g) & 1:
                raise ValueError(
                    f"bad FEN {fen!r}: {'White' if ci == 0 else 'Black'} man on its promotion "
                    f"row at {SQ32_NAMES[sq]}")
            bbs[2 * ci + (1 if king else 0)] |= np.int64(1) << np.int64(g)
    return set_position(bbs[0], bbs[1], bbs[2], bbs[3], 0 if side_tok == "W" else 1, int(rules))


def _squares(bb):
    out = []
    x = int(bb)
    while x:
        g = (x & -x).bit_length() - 1
        out.append(int(GHOST_TO_SQ32[g]))
        x &= x - 1
    return out


def to_fen(state):
    """Algebraic PDN FEN of a whole-move position (``W:Wa1,c1,Kh2:Bb8,Kd8``)."""
    s = _as_state(state)
    if s[S_CAP_SQ] >= 0:
        raise ValueError("position is in the middle of a capture chain; it has no FEN")
    parts = ["W" if s[S_SIDE] == 0 else "B"]
    for colour, men, kings in (("W", s[S_WM], s[S_WK]), ("B", s[S_BM], s[S_BK])):
        items = [(q, "") for q in _squares(men)] + [(q, "K") for q in _squares(kings)]
        items.sort()
        parts.append(colour + ",".join(k + SQ32_NAMES[q] for q, k in items))
    return ":".join(parts)


def initial_state():
    """The initial position vector (White to move)."""
    return _k_initial_state()


def _as_state(fen_or_state):
    if isinstance(fen_or_state, str):
        return from_fen(fen_or_state)
    s = np.asarray(fen_or_state)
    if s.shape != (STATE_LEN,) or s.dtype != np.int64:
        raise ValueError(f"a state must be an int64 vector of length {STATE_LEN}, "
                         f"got {s.dtype} {s.shape}")
    _check_state(s)
    return s


def _check_state(s):
    """ValueError unless s is a consistent position vector (guards the kernels from garbage)."""
    bbs = [int(s[i]) for i in (S_WM, S_WK, S_BM, S_BK)]
    squares = int(BB_SQUARES)
    for i, bb in enumerate(bbs):
        if bb < 0 or bb & ~squares:
            raise ValueError(f"bad state: bitboard {i} has bits outside the 32 dark squares")
        for other in bbs[i + 1:]:
            if bb & other:
                raise ValueError("bad state: two pieces on one square")
    if (bbs[0] | bbs[1]).bit_count() > 12 or (bbs[2] | bbs[3]).bit_count() > 12:
        raise ValueError("bad state: more than 12 pieces on a side")
    side = int(s[S_SIDE])
    if side not in (0, 1):
        raise ValueError(f"bad state: side to move {side} (0 = White, 1 = Black)")
    cap = int(s[S_CAP_SQ])
    if cap != -1:
        own = bbs[2 * side] | bbs[2 * side + 1]
        start = int(s[S_CAP_START])
        jumped = int(s[S_CAP_JUMPED])
        enemy = bbs[2 - 2 * side] | bbs[3 - 2 * side]
        if not (0 <= cap < 36 and (own >> cap) & 1):
            raise ValueError(f"bad state: capture square {cap} holds no piece of the side to move")
        if not (0 <= start < 36 and GHOST_TO_SQ32[start] >= 0) or jumped <= 0 or jumped & ~enemy:
            raise ValueError("bad state: inconsistent capture-chain fields")


def _whole_move_state(fen_or_state):
    s = _as_state(fen_or_state)
    if s[S_CAP_SQ] >= 0:
        raise ValueError("position is in the middle of a capture chain; use action_mask/apply_action")
    return s


# ---- moves ----------------------------------------------------------------------------------
def _rows(state):
    buf = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    n = _k_gen_moves(state, buf)
    return buf[:n]


def _row_str(row):
    sqs = [int(GHOST_TO_SQ32[row[M_FROM]])]
    sqs += [int(GHOST_TO_SQ32[row[M_PATH + k]]) for k in range(row[M_NHOPS])]
    sep = ":" if row[M_CAPTURED] != 0 else "-"
    return sep.join(SQ32_NAMES[q] for q in sqs)


def legal_moves(fen_or_state):
    """Sorted PDN strings of the legal moves, one per distinct (start, end, captured set)."""
    s = _whole_move_state(fen_or_state)
    return sorted(_row_str(r) for r in _rows(s))


def _parse_move(move_str):
    if not isinstance(move_str, str):
        raise ValueError(f"move must be a string, got {type(move_str).__name__}")
    toks = re.split(r"\s*[-:x]\s*", move_str.strip().lower())
    if len(toks) < 2:
        raise ValueError(f"bad move {move_str!r}: expected squares separated by '-', ':' or 'x'")
    try:
        return [parse_square(t) for t in toks]
    except ValueError as e:
        raise ValueError(f"bad move {move_str!r}: {e}") from None


def move_to_actions(fen_or_state, move_str):
    """The action sequence (list[int]) that plays move_str hop by hop; ValueError if not legal."""
    s = _whole_move_state(fen_or_state)
    sqs = _parse_move(move_str)
    actions = _route_actions(s, sqs)
    if actions is None and len(sqs) == 2:
        rows = [r for r in _rows(s) if GHOST_TO_SQ32[r[M_FROM]] == sqs[0]
                and GHOST_TO_SQ32[r[M_TO]] == sqs[1]]
        if len(rows) == 1:
            r = rows[0]
            hops = [int(GHOST_TO_SQ32[r[M_FROM]])]
            hops += [int(GHOST_TO_SQ32[r[M_PATH + k]]) for k in range(r[M_NHOPS])]
            actions = _route_actions(s, hops)
        elif len(rows) > 1:
            raise ValueError(f"ambiguous move {move_str!r}: several captures go from "
                             f"{SQ32_NAMES[sqs[0]]} to {SQ32_NAMES[sqs[1]]}; give every landing square")
    if actions is None:
        raise ValueError(f"illegal move {move_str!r}; legal moves: {', '.join(legal_moves(s))}")
    return actions


def _route_actions(state, sqs):
    """Actions playing the route sqs if it is a complete legal move, else None."""
    mask = np.empty(N_ACTIONS, dtype=np.int8)
    s = state
    actions = []
    for a_sq, b_sq in zip(sqs[:-1], sqs[1:]):
        if s[S_CAP_SQ] < 0 and actions:
            return None  # the move ended before the route did
        a = a_sq * 32 + b_sq
        _k_mask(s, mask)
        if not mask[a]:
            return None
        s = _k_apply_action(s, np.int64(a))
        actions.append(a)
    if s[S_CAP_SQ] >= 0:
        return None  # the chain must go on (25.2, 25.4)
    return actions


def apply(fen_or_state, move_str):
    """Position vector after a legal move string; ValueError naming an illegal or malformed one."""
    s = _whole_move_state(fen_or_state)
    for a in move_to_actions(s, move_str):
        s = _k_apply_action(s, np.int64(a))
    return s


def perft(fen_or_state, depth, threads=1):
    """Leaf count of the legal-move tree `depth` plies deep (bulk counting at the last ply)."""
    s = _whole_move_state(fen_or_state)
    depth = int(depth)
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    if threads > 1 and depth >= 3:
        numba.set_num_threads(min(int(threads), numba.config.NUMBA_NUM_THREADS))
        return int(_k_perft_parallel(s, depth))
    return int(_k_perft(s, depth))


def game_status(fen_or_state):
    """Outcome code (outcome.ONGOING, WHITE_WON, BLACK_WON, DRAW_*); STATUS_NAMES[code] names it."""
    return int(_k_game_status(_as_state(fen_or_state)))


# ---- actions --------------------------------------------------------------------------------
def action_to_str(action):
    """Readable form of an action: ``'c3-e5'`` (from square, to square)."""
    a = int(action)
    if not 0 <= a < N_ACTIONS:
        raise ValueError(f"action {action!r} out of range 0..{N_ACTIONS - 1}")
    return f"{SQ32_NAMES[a // 32]}-{SQ32_NAMES[a % 32]}"


def str_to_action(text):
    """Action index of ``'c3-e5'`` / ``'c3:e5'`` / ``'22-18'`` (one hop, two squares)."""
    sqs = _parse_move(text)
    if len(sqs) != 2:
        raise ValueError(f"bad action {text!r}: an action is one hop, two squares")
    return sqs[0] * 32 + sqs[1]


def action_mask(fen_or_state):
    """int8[1024] mask of the legal actions (hops) of a position, mid-chain included."""
    s = _as_state(fen_or_state)
    out = np.zeros(N_ACTIONS, dtype=np.int8)
    _k_mask(s, out)
    return out


def legal_actions(fen_or_state):
    """Sorted list of the legal action indices."""
    return [int(a) for a in np.flatnonzero(action_mask(fen_or_state))]


def apply_action(fen_or_state, action):
    """Position vector after one legal action; ValueError naming an illegal one."""
    s = _as_state(fen_or_state)
    try:
        a = int(action)
    except (TypeError, ValueError):
        raise ValueError(f"action must be an integer, got {action!r}") from None
    if not 0 <= a < N_ACTIONS:
        raise ValueError(f"illegal action {a}: out of range 0..{N_ACTIONS - 1}")
    if not action_mask(s)[a]:
        raise ValueError(f"illegal action {a} ({action_to_str(a)}) in this position")
    return _k_apply_action(s, np.int64(a))
