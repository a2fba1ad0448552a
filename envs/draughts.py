"""Russian draughts game API, PDN notation and the validated boundary over the game core.

The game is boardgym.kernels.draughts.game (rules M.1-M.3, 25.1-25.7, G.1, G.2a-G.2e; state
layout in boardgym.kernels.draughts.board). Every function here checks its input before a
kernel sees it and raises ``TypeError`` for a wrong type (``None``, a string where an array
belongs, a float or bool where an integer belongs, an array of the wrong dtype) and
``ValueError`` for a wrong value, naming the problem.

Positions are ``int64[STATE_LEN]`` vectors; ``check_state`` / ``check_batch`` validate one or a
``(B, STATE_LEN)`` batch (shape, dtype, and contents: squares, overlaps, piece counts, men on
their promotion row, side to move, capture-chain fields, counters, rules mask, hash and
history). Every function that takes ``fen_or_state`` accepts a PDN FEN string or such a vector.

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
lexicographically smallest route (movegen.py). ``format_move`` is the one formatter (the AEC
env's move list and the agents' ``best_move`` use it too). ``apply`` accepts that string, any
other legal route to the same outcome, the separators ``-``, ``:`` and ``x`` interchangeably,
numeric squares (``22-17``, ``22x15``) and a capture abbreviated to start and end when that is
unambiguous.

Actions here are in the kernel frame (White's view of the board; the envs act in the acting
player's frame, ``game.view_action``): ``action = from_sq32 * 32 + to_sq32``, one hop at a
time (``check_action``, ``action_mask``, ``apply_action``, ``move_to_actions``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numba
import numpy as np
import numpy.typing as npt

from boardgym.envs.checks import check_int
from boardgym.kernels.draughts import game as _game
from boardgym.kernels.draughts.board import (
    BB_PROMO,
    GHOST_TO_SQ32,
    M_CAPTURED,
    M_FROM,
    M_NHOPS,
    M_PATH,
    M_TO,
    MAX_HOPS,
    MAX_MOVES,
    N_SQUARES,
    ROW_LEN,
    S_BK,
    S_BM,
    S_CAP_SQ,
    S_SIDE,
    S_WK,
    S_WM,
    SQ32_NAMES,
    SQ32_TO_GHOST,
    STATE_LEN,
    pdn_to_sq32,
)
from boardgym.kernels.draughts.codec import apply_action as _k_apply_action
from boardgym.kernels.draughts.codec import legal_action_mask as _k_mask
from boardgym.kernels.draughts.fen import parse_fen as _k_parse_fen
from boardgym.kernels.draughts.game import (
    N_ACTIONS,
    OBS_LEN,
    ROUTE_LEN,
    STATE_ERRORS,
    action_squares,
    decode_obs,
    square_action,
)
from boardgym.kernels.draughts.move import set_position
from boardgym.kernels.draughts.observe import DECODE_TWO_CAPTURERS
from boardgym.kernels.draughts.outcome import (
    RULE_BALANCE,
    RULE_KINGS_ONLY,
    RULE_LONG_DIAGONAL,
    RULE_REPETITION,
    RULE_THREE_KINGS,
    RULES_ALL,
    STATUS_NAMES,
)
from boardgym.kernels.draughts.outcome import game_status as _k_game_status
from boardgym.kernels.draughts.perft import perft as _k_perft
from boardgym.kernels.draughts.perft import perft_parallel as _k_perft_parallel

__all__ = [
    "N_ACTIONS",
    "STATE_LEN",
    "STATUS_NAMES",
    "MAX_PERFT_DEPTH",
    "check_state",
    "check_batch",
    "check_action",
    "check_rules",
    "check_max_moves",
    "rules_mask",
    "initial_state",
    "from_fen",
    "to_fen",
    "legal_moves",
    "apply",
    "perft",
    "game_status",
    "format_move",
    "move_to_str",
    "action_to_str",
    "str_to_action",
    "action_mask",
    "legal_actions",
    "apply_action",
    "move_to_actions",
    "full_move",
    "parse_route",
    "square_name",
    "parse_square",
    "state_from_observation",
]

MAX_PERFT_DEPTH = 64  # deeper trees never finish; the kernel allocates one move buffer per ply
_NAME_TO_SQ32 = {name: i for i, name in enumerate(SQ32_NAMES)}
_RULE_FLAGS = {
    "repetition": RULE_REPETITION,
    "three_kings": RULE_THREE_KINGS,
    "kings_only": RULE_KINGS_ONLY,
    "balance": RULE_BALANCE,
    "long_diagonal": RULE_LONG_DIAGONAL,
}


# ---- the validated boundary -----------------------------------------------------------------
def _int64_array(x, what, ndim):
    """x as a C-contiguous writable int64 array of ndim dimensions (TypeError for other types)."""
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(
            f"{what} must be an int64 array, got {type(x).__name__}"
            + (" (use from_fen for FEN text)" if isinstance(x, str) else "")
        )
    if not isinstance(x, (np.ndarray, list, tuple)):
        raise TypeError(f"{what} must be an int64 array, got {type(x).__name__}")
    try:
        a = np.asarray(x)
    except (ValueError, TypeError):
        raise ValueError(f"{what} is not a rectangular array") from None
    if a.dtype != np.int64:
        raise TypeError(f"{what} must be an int64 array, got dtype {a.dtype}")
    if a.ndim != ndim:
        want = f"({STATE_LEN},)" if ndim == 1 else f"(B, {STATE_LEN})"
        raise ValueError(f"{what} must have shape {want}, got {a.shape}")
    if not (a.flags.c_contiguous and a.flags.writeable):
        a = a.copy()
    return a


def check_state(state: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The position vector (int64[STATE_LEN]) after checking its shape, dtype and contents."""
    s = _int64_array(state, "a draughts state", 1)
    if s.shape != (STATE_LEN,):
        raise ValueError(f"a draughts state must have shape ({STATE_LEN},), got {s.shape}")
    code = _game.state_error(s)
    if code:
        raise ValueError(f"bad draughts state: {STATE_ERRORS[code]}")
    return s


def check_batch(states: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The batch of position vectors (int64[B, STATE_LEN]) after checking every game."""
    s = _int64_array(states, "a batch of draughts states", 2)
    if s.shape[1] != STATE_LEN:
        raise ValueError(
            f"a batch of draughts states must have shape (B, {STATE_LEN}), got {s.shape}"
        )
    i, code = _game.batch_error(s)
    if code:
        raise ValueError(f"bad draughts state in game {i}: {STATE_ERRORS[code]}")
    return s


def check_action(action: int) -> int:
    """An action (0..N_ACTIONS - 1) as a Python int; TypeError unless an integer."""
    a = check_int(action, "an action")
    if not 0 <= a < N_ACTIONS:
        raise ValueError(f"action {a} out of range 0..{N_ACTIONS - 1}")
    return a


def check_rules(rules: int) -> int:
    """A draw-rules bitmask (outcome.RULE_*, 0..RULES_ALL) as a Python int."""
    r = check_int(rules, "rules")
    if not 0 <= r <= RULES_ALL:
        raise ValueError(f"rules must be a bitmask in 0..{RULES_ALL}, got {r}")
    return r


def rules_mask(
    repetition: bool = True,
    three_kings: bool = True,
    kings_only: bool = True,
    balance: bool = True,
    long_diagonal: bool = True,
) -> int:
    """The kernel's draw-rule bitmask (state[S_RULES]) for the G.2a..G.2e switches."""
    flags = dict(
        repetition=repetition,
        three_kings=three_kings,
        kings_only=kings_only,
        balance=balance,
        long_diagonal=long_diagonal,
    )
    rules = 0
    for name, on in flags.items():
        rules |= _RULE_FLAGS[name] if _check_bool(on, f"draw rule option {name}") else 0
    return rules


def check_max_moves(max_moves: int | None) -> int | None:
    """A move cap: None (no cap) or a positive integer (plies), returned as None or an int."""
    if max_moves is None:
        return None
    m = check_int(max_moves, "max_moves")
    if not 1 <= m <= _game.MAX_COUNT:
        raise ValueError(f"max_moves must be None or an integer in 1..{_game.MAX_COUNT}, got {m}")
    return m


def _check_str(x, what):
    if not isinstance(x, str):
        raise TypeError(f"{what} must be a string, got {type(x).__name__}")
    return x


def square_name(sq32: int) -> str:
    """Algebraic name of a sq32 square (0 -> 'a1')."""
    q = check_int(sq32, "a square")
    if not 0 <= q < N_SQUARES:
        raise ValueError(f"square {q} out of range 0..{N_SQUARES - 1}")
    return SQ32_NAMES[q]


def parse_square(token: str) -> int:
    """sq32 index of an algebraic (``c3``) or numeric PDN (``22``) square; ValueError if unknown."""
    t = _check_str(token, "a square").strip().lower()
    if t.isascii() and t.isdigit():
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
        m = re.fullmatch(r"([0-9]+)\s*-\s*([0-9]+)", tok)
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


def from_fen(fen: str, rules: int = RULES_ALL) -> npt.NDArray[np.int64]:
    """Position vector (int64[STATE_LEN]) of a PDN FEN string; ValueError naming any problem.

    rules: bitmask of the draw rules to enable (outcome.RULE_*; default all, G.2a-G.2e).
    """
    _check_str(fen, "a FEN")
    rules = check_rules(rules)
    if fen.isascii():
        s = _k_parse_fen(fen.encode(), rules)  # the plain form, in a kernel
        if s.shape[0]:
            return s
    return _read_fen(fen, rules)


def _read_fen(fen, rules):
    """from_fen in Python: every form from_fen accepts, and the message naming what is wrong."""
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
                    f"row at {SQ32_NAMES[sq]}"
                )
            bbs[2 * ci + (1 if king else 0)] |= np.int64(1) << np.int64(g)
    return set_position(bbs[0], bbs[1], bbs[2], bbs[3], 0 if side_tok == "W" else 1, rules)


def _squares(bb):
    out = []
    x = int(bb)
    while x:
        g = (x & -x).bit_length() - 1
        out.append(int(GHOST_TO_SQ32[g]))
        x &= x - 1
    return out


def to_fen(state: str | npt.ArrayLike) -> str:
    """Algebraic PDN FEN of a whole-move position (``W:Wa1,c1,Kh2:Bb8,Kd8``)."""
    s = _whole_move_state(state, "it has no FEN")
    parts = ["W" if s[S_SIDE] == 0 else "B"]
    for colour, men, kings in (("W", s[S_WM], s[S_WK]), ("B", s[S_BM], s[S_BK])):
        items = [(q, "") for q in _squares(men)] + [(q, "K") for q in _squares(kings)]
        items.sort()
        parts.append(colour + ",".join(k + SQ32_NAMES[q] for q, k in items))
    return ":".join(parts)


def initial_state(rules: int = RULES_ALL) -> npt.NDArray[np.int64]:
    """The initial position vector (White to move) with the draw rules ``rules``."""
    return _game.initial_state(check_rules(rules))


def _as_state(fen_or_state):
    if isinstance(fen_or_state, str):
        return from_fen(fen_or_state)
    return check_state(fen_or_state)


def _whole_move_state(fen_or_state, why="use action_mask/apply_action"):
    s = _as_state(fen_or_state)
    if s[S_CAP_SQ] >= 0:
        raise ValueError(f"position is in the middle of a capture chain; {why}")
    return s


def state_from_observation(
    observation: npt.ArrayLike, rules: int = RULES_ALL
) -> npt.NDArray[np.int64]:
    """Position vector (int64[STATE_LEN]) rebuilt from a draughts observation (float[198]).

    The observer plays White (its own frame); White is to move if the observer is. What the
    observation cannot tell is listed in boardgym.kernels.draughts.observe (counters beyond
    their caps, older positions, the ply count, where a chain in progress began).
    """
    if (
        observation is None
        or isinstance(observation, (str, bytes))
        or not isinstance(observation, (np.ndarray, list, tuple))
    ):
        raise TypeError(
            f"a draughts observation must be a float array, got {type(observation).__name__}"
        )
    obs = np.asarray(observation)
    if obs.dtype.kind not in "fiu" or obs.dtype == np.bool_:
        raise TypeError(f"a draughts observation must be a float array, got dtype {obs.dtype}")
    if obs.shape != (OBS_LEN,):
        raise ValueError(f"a draughts observation is float32[{OBS_LEN}], got shape {obs.shape}")
    obs = np.ascontiguousarray(obs, dtype=np.float32)
    if not np.isfinite(obs).all() or obs.min() < 0.0 or obs.max() > 1.0:
        raise ValueError("a draughts observation holds numbers in 0..1")
    s, code = decode_obs(obs, check_rules(rules))
    if code:
        raise ValueError(
            "bad observation: "
            + (
                "more than one piece on the capture-chain plane"
                if code == DECODE_TWO_CAPTURERS
                else "a capture chain needs one capturing piece and at least one jumped piece"
            )
        )
    err = _game.state_error(s)
    if err:
        raise ValueError(f"bad observation: {STATE_ERRORS[err]}")
    return s


# ---- moves ----------------------------------------------------------------------------------
def _rows(state):
    buf = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    n = _game.gen_moves(state, buf)
    return buf[:n]


def format_move(squares: Sequence[int] | npt.NDArray[np.integer], capture: bool) -> str:
    """PDN text of a move from its route (sq32 squares, start first): ``c3-d4``, ``c3:e5:g7``."""
    if isinstance(squares, np.ndarray):
        squares = squares.tolist()
    elif isinstance(squares, (str, bytes)) or not isinstance(squares, (list, tuple)):
        raise TypeError(f"squares must be a sequence of sq32 squares, got {type(squares).__name__}")
    if not 2 <= len(squares) <= ROUTE_LEN:
        raise ValueError(f"a move's route has 2..{ROUTE_LEN} squares, got {len(squares)}")
    if capture.__class__ is not bool:
        capture = _check_bool(capture, "capture")
    if all(q.__class__ is int and 0 <= q < N_SQUARES for q in squares):  # the common case
        return _join([SQ32_NAMES[q] for q in squares], capture)
    return _join([square_name(q) for q in squares], capture)


def _join(names, capture):
    return (":" if capture else "-").join(names)


def _check_bool(x, what):
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{what} must be True or False, got {x!r}")
    return bool(x)


def _row_str(state, row):
    route = np.empty(ROUTE_LEN, dtype=np.int64)
    n = _game.move_route(state, row, route)
    return _join([SQ32_NAMES[q] for q in route[:n].tolist()], row[M_CAPTURED] != 0)


def move_to_str(fen_or_state: str | npt.ArrayLike, row: npt.ArrayLike) -> str:
    """PDN string of a whole move of a position given as its ``gen_moves`` row (int64[ROW_LEN];
    mid-chain: the rest of the chain, from where the piece stands)."""
    s = _as_state(fen_or_state)
    r = _int64_array(row, "a move row", 1)
    if r.shape != (ROW_LEN,):
        raise ValueError(f"a move row must have shape ({ROW_LEN},), got {r.shape}")
    nh = int(r[M_NHOPS])
    if (
        not 1 <= nh <= MAX_HOPS
        or not (_rows(s)[:, : M_PATH + nh] == r[: M_PATH + nh]).all(axis=1).any()
    ):
        raise ValueError("the move row is not a legal move of this position")
    return _row_str(s, r)


def legal_moves(fen_or_state: str | npt.ArrayLike) -> list[str]:
    """Sorted PDN strings of the legal moves, one per distinct (start, end, captured set)."""
    s = _whole_move_state(fen_or_state)
    return sorted(_row_str(s, r) for r in _rows(s))


def _parse_move(move_str):
    _check_str(move_str, "a move")
    toks = re.split(r"\s*[-:x]\s*", move_str.strip().lower())
    if len(toks) < 2:
        raise ValueError(f"bad move {move_str!r}: expected squares separated by '-', ':' or 'x'")
    try:
        return [parse_square(t) for t in toks]
    except ValueError as e:
        raise ValueError(f"bad move {move_str!r}: {e}") from None


def parse_route(move_str: str) -> list[int]:
    """The squares (sq32, start first) a move's text names: ``c3:e5:g3`` -> [9, 18, 13]; the
    squares are checked, not the move's legality (ValueError naming a bad square)."""
    return _parse_move(move_str)


def move_to_actions(fen_or_state: str | npt.ArrayLike, move_str: str) -> list[int]:
    """The action sequence (list[int], kernel frame) that plays move_str hop by hop; ValueError
    if it is not a legal move."""
    s = _whole_move_state(fen_or_state)
    sqs = _parse_move(move_str)
    actions = _route_actions(s, sqs)
    if actions is None and len(sqs) == 2:
        rows = [
            r
            for r in _rows(s)
            if GHOST_TO_SQ32[r[M_FROM]] == sqs[0] and GHOST_TO_SQ32[r[M_TO]] == sqs[1]
        ]
        if len(rows) == 1:
            route = np.empty(ROUTE_LEN, dtype=np.int64)
            n = _game.move_route(s, rows[0], route)
            actions = _route_actions(s, route[:n].tolist())
        elif len(rows) > 1:
            raise ValueError(
                f"ambiguous move {move_str!r}: several captures go from "
                f"{SQ32_NAMES[sqs[0]]} to {SQ32_NAMES[sqs[1]]}; give every landing square"
            )
    if actions is None:
        why = "; capturing is compulsory (25.1)" if _game.is_capture(s) else ""
        raise ValueError(
            f"illegal move {move_str!r}{why}; legal moves: {', '.join(legal_moves(s))}"
        )
    return actions


def _route_actions(state, sqs):
    """Actions playing the route sqs if it is a complete legal move, else None."""
    mask = np.empty(N_ACTIONS, dtype=np.int8)
    s = state
    actions = []
    for a_sq, b_sq in zip(sqs[:-1], sqs[1:]):
        if s[S_CAP_SQ] < 0 and actions:
            return None  # the move ended before the route did
        a = int(square_action(a_sq, b_sq))
        _k_mask(s, mask)
        if not mask[a]:
            return None
        s = _k_apply_action(s, np.int64(a))
        actions.append(a)
    if s[S_CAP_SQ] >= 0:
        return None  # the chain must go on (25.2, 25.4)
    return actions


def full_move(fen_or_state: str | npt.ArrayLike, move_str: str) -> str:
    """The PDN of a legal move with every landing square (``c3xg7`` -> ``c3:e5:g7``); ValueError
    naming an illegal or malformed one."""
    s = _whole_move_state(fen_or_state)
    actions = move_to_actions(s, move_str)
    route = [int(action_squares(actions[0])[0])] + [int(action_squares(a)[1]) for a in actions]
    return format_move(route, bool(_game.is_capture(s)))


def apply(fen_or_state: str | npt.ArrayLike, move_str: str) -> npt.NDArray[np.int64]:
    """Position vector after a legal move string; ValueError naming an illegal or malformed one."""
    s = _whole_move_state(fen_or_state)
    for a in move_to_actions(s, move_str):
        s = _k_apply_action(s, np.int64(a))
    return s


def perft(fen_or_state: str | npt.ArrayLike, depth: int, threads: int = 1) -> int:
    """Leaf count of the legal-move tree `depth` plies deep (bulk counting at the last ply)."""
    s = _whole_move_state(fen_or_state)
    depth = check_int(depth, "depth")
    if not 0 <= depth <= MAX_PERFT_DEPTH:
        raise ValueError(f"depth must be in 0..{MAX_PERFT_DEPTH}, got {depth}")
    threads = check_int(threads, "threads")
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    if threads > 1 and depth >= 3:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        return int(_k_perft_parallel(s, depth))
    return int(_k_perft(s, depth))


def game_status(fen_or_state: str | npt.ArrayLike) -> int:
    """Outcome code (outcome.ONGOING, WHITE_WON, BLACK_WON, DRAW_*); STATUS_NAMES[code] names it."""
    return int(_k_game_status(_as_state(fen_or_state)))


# ---- actions (kernel frame) -----------------------------------------------------------------
def action_to_str(action: int) -> str:
    """Readable form of an action: ``'c3-e5'`` (from square, to square)."""
    fr, to = action_squares(check_action(action))
    return f"{SQ32_NAMES[fr]}-{SQ32_NAMES[to]}"


def str_to_action(text: str) -> int:
    """Action index of ``'c3-e5'`` / ``'c3:e5'`` / ``'22-18'`` (one hop, two squares)."""
    sqs = _parse_move(text)
    if len(sqs) != 2:
        raise ValueError(f"bad action {text!r}: an action is one hop, two squares")
    return int(square_action(sqs[0], sqs[1]))


def action_mask(fen_or_state: str | npt.ArrayLike) -> npt.NDArray[np.int8]:
    """int8[1024] mask of the legal actions (hops) of a position, mid-chain included."""
    s = _as_state(fen_or_state)
    out = np.zeros(N_ACTIONS, dtype=np.int8)
    _k_mask(s, out)
    return out


def legal_actions(fen_or_state: str | npt.ArrayLike) -> list[int]:
    """Sorted list of the legal action indices."""
    return [int(a) for a in np.flatnonzero(action_mask(fen_or_state))]


def apply_action(fen_or_state: str | npt.ArrayLike, action: int) -> npt.NDArray[np.int64]:
    """Position vector after one legal action; ValueError naming an illegal one."""
    s = _as_state(fen_or_state)
    a = check_action(action)
    if not action_mask(s)[a]:
        raise ValueError(f"illegal action {a} ({action_to_str(a)}) in this position")
    return _k_apply_action(s, np.int64(a))
