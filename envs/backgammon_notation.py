"""Backgammon notation and the validated boundary: Position ID, Match ID, play text, state checks.

Every public function here checks its input (shape, dtype and contents of states; types and
ranges of dice, IDs, play text and options) before a kernel sees it, and raises ``TypeError``
for a wrong type or ``ValueError`` for a wrong value, naming the problem. The rules are the game
core's (``boardgym.kernels.backgammon.game``; clauses B.1-B.6, E.1-E.7, O.1-O.3 of boardgym/RULES.md):
plays, routes and afterstates all come from it.

State
    ``int64[STATE_LEN]`` seen from the player on roll (kernels/backgammon/board.py).
    ``check_state`` accepts exactly the positions the kernels can play from: counts 0..15 with
    15 checkers a side over points, bar and off; no point held by both sides; not both sides
    borne off; TURN 0/1; dice 0..4 copies a value, at most two values and then one copy each
    (a roll, or what is left of one); cube value a power of two up to 2**15, owner -1/0/1; the
    BB_* occupancy words equal to the counts (``board.refresh_masks`` recomputes them).
    ``check_batch`` does the same for ``int64[B, STATE_LEN]``, naming the first bad row.

Position ID (gnubg manual, "A technical description of the Position ID")
    80 bits, little-endian within bytes, base64 without padding (14 characters). Two blocks of 25
    runs (points 1..24 then the bar, each from that side's own view), a run being one 1 per checker
    then a 0. Block order follows GNU Backgammon's code as exposed by gnubg-nn (checked with
    ``gnubg_nn.board_from_position_id`` / ``moves``): gnubg's board is ``[opponent, player on
    roll]`` and the key encodes ``board[0]`` (the opponent) first, then ``board[1]`` (the player on
    roll, whose checkers ``gnubg_nn.moves`` moves). ``position_from_id`` therefore makes the second
    block the mover. The ID holds no turn, dice or cube: decoded states have TURN 0, no dice,
    cube 1 centred. Checkers missing from the 15 of a side are borne off. Encoding and decoding
    run in kernels (kernels/backgammon/position_id.py); ``position_ids`` encodes a whole batch in
    one call. A malformed ID is read again in Python only to word the error.

legal_plays
    Exactly GNU Backgammon's convention (verified against ``gnubg_nn.moves(board, d1, d2)`` keys
    -> ``board_from_position_key`` -> ``position_id``): each afterstate is encoded right after the
    play, before the turn passes, so the mover is still the second block and any checker it hit
    sits on the opponent's bar in the first block. When nothing can move, the list is the
    unchanged position's ID (the pass). Decoding, generation, encoding and sorting are one kernel
    call. ``legal_afterstates`` gives the same plays of a state as an array.

Play notation (gnubg style)
    Moves from the mover's view, highest source first: ``24/18 13/11``, ``bar/22*`` (``*`` marks a
    hit), ``6/off``; a checker moved on is written as one move whose intermediate points appear
    only where it hit (``24/13``, ``24/18*/13``); repeated identical moves are ``8/5(2)``. The text
    is the kernel's route of the play (game.plays: a checker moved on is one chain; two checkers
    hitting on one point: the lower one hits). ``parse_play`` also accepts ``8/5 8/5``,
    ``24/18/13``, ``24/18 18/13``, ``25`` for the bar and ``0`` for off; ``*`` may be omitted when
    the play is unambiguous without it. It matches a text to a play by the net movement of the
    mover's checkers and the points hit. The pass is written ``""``.

Match ID (gnubg manual, "A technical description of the Match ID")
    66 bits packed little-endian into 9 bytes, base64 (12 characters); every field is stored
    least significant bit first: cube log2 (4), cube owner (2: 0, 1, 3 = centred), dice owner /
    player on roll (1), Crawford (1), game state (3), turn (1), double offered (1), resignation
    (2), die 1 (3), die 2 (3), match length (15), score of player 0 (15), score of player 1 (15).
"""

import base64
import re
import threading

import numpy as np

from boardgym.envs.checks import is_int
from boardgym.kernels.backgammon import board as B
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon import position_id as P
from boardgym.kernels.backgammon.board import batch_state_error, state_error
from boardgym.kernels.backgammon.movegen import MV_DIE, MV_FROM, MV_HIT, MV_TO

__all__ = [
    "initial_state",
    "is_int",
    "check_state",
    "check_batch",
    "check_dice",
    "check_scoring",
    "check_max_turns",
    "state_from_board",
    "board_from_state",
    "position_id",
    "position_from_id",
    "position_ids",
    "legal_plays",
    "legal_afterstates",
    "play_to_str",
    "parse_play",
    "play_actions",
    "match_id",
    "parse_match_id",
]

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_SET = frozenset(_B64)
_INT64_MAX = np.iinfo(np.int64).max
MAX_TURNS = 1 << 62  # the largest turn cap (the kernels count rolls in int64)


# ----------------------------------------------------------------------------- checks

_INT64 = np.dtype(np.int64)


def _int_array(x, name, ndim):
    """x as an int64 NumPy array with ndim dimensions (TypeError / ValueError naming name)."""
    if (
        type(x) is np.ndarray
        and x.dtype == _INT64
        and x.ndim == ndim
        and x.shape[-1] == B.STATE_LEN
        and x.flags.c_contiguous
    ):
        return x  # the common case, checked first
    if x is None or isinstance(x, (str, bytes, dict, set)):
        raise TypeError(f"{name} must be an integer array, got {type(x).__name__}")
    if isinstance(x, np.ndarray):
        a = x
    else:
        try:
            a = np.asarray(x)
        except (ValueError, TypeError) as e:
            raise ValueError(f"{name} is not a rectangular array of integers: {e}") from None
    if a.dtype == np.bool_ or a.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers (int64), got dtype {a.dtype}")
    if a.ndim != ndim or a.shape[-1] != B.STATE_LEN:
        want = f"({B.STATE_LEN},)" if ndim == 1 else f"(B, {B.STATE_LEN})"
        raise ValueError(f"{name} must have shape {want}, got {a.shape}")
    if a.dtype == np.int64 and a.flags.c_contiguous:
        return a
    if a.dtype.kind == "u" and a.dtype.itemsize >= 8 and a.size and int(a.max()) > _INT64_MAX:
        raise ValueError(f"{name} holds a value above the int64 range")
    return np.ascontiguousarray(a, dtype=np.int64)


def _field(k):
    if k < B.OPP:
        return f"checkers of the player on roll on point {k + 1}"
    if k < B.BAR_ME:
        return f"opponent's checkers on point {k - B.OPP + 1} (mover's numbering)"
    return {
        B.BAR_ME: "bar of the player on roll",
        B.BAR_OPP: "opponent's bar",
        B.OFF_ME: "checkers borne off by the player on roll",
        B.OFF_OPP: "checkers borne off by the opponent",
    }[k]


def _problem(s, code, k):
    """Text of state_error's (code, k) for state s."""
    if code == B.ERR_COUNT:
        return f"{_field(k)} is {int(s[k])} (index {k}): counts are 0..{B.N_CHECKERS}"
    if code == B.ERR_TOTAL:
        side, base, bar, off = (
            ("the player on roll", B.ME, B.BAR_ME, B.OFF_ME)
            if k == 0
            else ("the opponent", B.OPP, B.BAR_OPP, B.OFF_OPP)
        )
        total = int(s[base : base + 24].sum() + s[bar] + s[off])
        return f"{side} has {total} checkers on points, bar and off (a side has 15)"
    if code == B.ERR_SHARED:
        return f"both sides have checkers on point {k + 1} (mover's numbering)"
    if code == B.ERR_BOTH_OFF:
        return "both sides have borne off all 15 checkers"
    if code == B.ERR_TURN:
        return f"TURN (index {B.TURN}) is {int(s[B.TURN])}: the player on roll is 0 or 1"
    if code == B.ERR_DICE:
        return (
            f"{int(s[B.DICE + k])} dice of value {k + 1} (index {B.DICE + k}): "
            "a roll has 0..4 dice of a value"
        )
    if code == B.ERR_ROLL:
        left = s[B.DICE : B.DICE + 6].tolist()
        return f"dice counts {left} (values 1..6) are not what is left of one roll"
    if code == B.ERR_CUBE_VALUE:
        return (
            f"cube value (index {B.CUBE_VALUE}) is {int(s[B.CUBE_VALUE])}: "
            f"a power of two 1..{B.MAX_CUBE_VALUE}"
        )
    if code == B.ERR_CUBE_OWNER:
        return f"cube owner (index {B.CUBE_OWNER}) is {int(s[B.CUBE_OWNER])}: -1 (centred), 0 or 1"
    names = {B.BB_ME: "BB_ME", B.BB_ME2: "BB_ME2", B.BB_OPP: "BB_OPP", B.BB_OPP2: "BB_OPP2"}
    return (
        f"occupancy word {names.get(k, k)} (index {k}) disagrees with the checker counts "
        "(boardgym.kernels.backgammon.board.refresh_masks recomputes it)"
    )


def check_state(state, name="state"):
    """The validated position (int64[STATE_LEN], C-contiguous; the same array when it already is
    one); TypeError for a wrong type or dtype, ValueError naming what is wrong with its shape or
    contents (module docstring)."""
    s = _int_array(state, name, 1)
    code, k = state_error(s)
    if code != B.ERR_NONE:
        raise ValueError(f"{name}: {_problem(s, code, k)}")
    return s


def check_batch(states, name="states"):
    """check_state for every row of states (int64[B, STATE_LEN]) -> the validated array;
    the error names the first bad row."""
    a = _int_array(states, name, 2)
    row, code, k = batch_state_error(a)
    if row >= 0:
        raise ValueError(f"{name}[{row}]: {_problem(a[row], code, k)}")
    return a


def check_dice(die1, die2):
    """(die1, die2) as ints 1..6; TypeError unless both are integers (not bool), ValueError if
    one is outside 1..6."""
    for d in (die1, die2):
        if not is_int(d):
            raise TypeError(f"a die must be an integer 1..6, got {d!r} ({type(d).__name__})")
        if not 1 <= int(d) <= 6:
            raise ValueError(f"a die must be 1..6, got {int(d)}")
    return int(die1), int(die2)


def check_scoring(scoring):
    """game.SCORING_SINGLE / SCORING_GAMMON for "single" / "gammon"."""
    if not isinstance(scoring, str):
        raise TypeError(f"scoring must be 'single' or 'gammon', got {type(scoring).__name__}")
    if scoring not in ("single", "gammon"):
        raise ValueError(f"scoring must be 'single' or 'gammon', got {scoring!r}")
    return game.SCORING_SINGLE if scoring == "single" else game.SCORING_GAMMON


def check_max_turns(max_turns):
    """The turn cap as the kernels take it: a positive integer, or 0 for None (no cap)."""
    if max_turns is None:
        return 0
    if not is_int(max_turns):
        raise TypeError(f"max_turns must be a positive integer or None, got {max_turns!r}")
    if not 1 <= max_turns <= MAX_TURNS:
        raise ValueError(f"max_turns must be an integer 1..{MAX_TURNS} or None, got {max_turns}")
    return int(max_turns)


def _check_turn(turn):
    if not is_int(turn):
        raise TypeError(f"turn must be 0 or 1, got {turn!r}")
    if turn not in (0, 1):
        raise ValueError(f"turn must be 0 or 1, got {turn}")
    return int(turn)


# ----------------------------------------------------------------------------- states


def initial_state():
    """The standard starting position, player 0 on roll, no dice, cube 1 centred: int64[STATE_LEN]."""
    return game.initial_state()


def _from_counts(opp_own, mov_own, turn):
    """State from each side's 25 own counts (points 1..24, bar); ValueError if impossible."""
    for name, c in (("opponent", opp_own), ("player on roll", mov_own)):
        if (c < 0).any():
            raise ValueError(f"negative checker count for the {name}")
        if c.sum() > B.N_CHECKERS:
            raise ValueError(f"the {name} has {int(c.sum())} checkers on the board (at most 15)")
    s = np.zeros(B.STATE_LEN, dtype=np.int64)
    s[B.ME : B.ME + 24] = mov_own[:24]
    s[B.OPP : B.OPP + 24] = opp_own[23::-1]  # the opponent's point q is the mover's 25 - q
    s[B.BAR_ME] = mov_own[24]
    s[B.BAR_OPP] = opp_own[24]
    s[B.OFF_ME] = B.N_CHECKERS - mov_own.sum()
    s[B.OFF_OPP] = B.N_CHECKERS - opp_own.sum()
    s[B.TURN] = turn
    s[B.CUBE_VALUE] = 1
    s[B.CUBE_OWNER] = -1
    B.refresh_masks(s)
    code, k = state_error(s)
    if code != B.ERR_NONE:
        raise ValueError(_problem(s, code, k))
    return s


def state_from_board(board, turn=0):
    """State from a gnubg-style board ``[opponent, player on roll]``, each 25 counts (points 1..24
    from that side's own view, then the bar); borne-off counts are 15 minus the rest."""
    turn = _check_turn(turn)
    if isinstance(board, (str, bytes)) or not hasattr(board, "__len__"):
        raise TypeError(f"board must be two sequences of 25 integers, got {type(board).__name__}")
    if len(board) != 2:
        raise ValueError("board must be two sequences of 25 integers")
    sides = []
    for side in board:
        if isinstance(side, (str, bytes)) or not hasattr(side, "__len__"):
            raise TypeError(f"board must be two sequences of 25 integers, got {side!r}")
        if len(side) != 25:
            raise ValueError("board must be two sequences of 25 integers")
        if not all(is_int(x) for x in side):
            raise TypeError("board must be two sequences of 25 integers")
        if any(not -99 <= int(x) <= 99 for x in side):
            raise ValueError("board counts must be 0..15")
        sides.append(np.array([int(x) for x in side], dtype=np.int64))
    return _from_counts(sides[0], sides[1], turn)


def board_from_state(state):
    """gnubg-style board ``[opponent, player on roll]`` (two lists of 25) of a state."""
    s = check_state(state)
    mover = s[B.ME : B.ME + 24].tolist() + [int(s[B.BAR_ME])]
    opp = s[B.OPP + 23 : B.OPP - 1 : -1].tolist() + [int(s[B.BAR_OPP])]
    return [opp, mover]


# ----------------------------------------------------------------------------- Position ID


class _Workspace(threading.local):
    """Buffers of the kernels behind legal_plays and legal_afterstates, one set per thread: the
    int64 scratch, and the ID characters (a bytearray, seen by the kernel as uint8)."""

    def __init__(self):
        self.buf = np.empty(P.BUF_WORDS, dtype=np.int64)
        self.text = bytearray(P.CHARS_LEN)
        self.chars = np.frombuffer(self.text, dtype=np.uint8)
        self.rows = self.buf[: game.MAX_AFTERSTATES * B.STATE_LEN].reshape(
            (game.MAX_AFTERSTATES, B.STATE_LEN)
        )
        self.ids = (self.buf, self.chars, self.text)  # one attribute read in legal_plays


_ws = _Workspace()
_legal_play_ids = P.legal_play_ids
_STRIDE = P.ID_LEN + 1  # an ID and a space


def _ids(rows):
    """Position IDs of validated states rows (int64[n, STATE_LEN])."""
    n = rows.shape[0]
    chars = np.empty((P.ID_LEN + 1) * n, dtype=np.uint8)
    P.encode_ids(rows, n, chars)
    return chars.tobytes().decode("ascii").split()


def position_id(state):
    """14-character gnubg Position ID of state (mover = player on roll = second block)."""
    chars = np.empty(P.ID_LEN, dtype=np.uint8)
    P.encode_id(check_state(state), chars, 0)
    return chars.tobytes().decode("ascii")


def position_ids(states):
    """Position IDs (list of str) of every row of states (int64[B, STATE_LEN], validated as by
    check_batch), in one kernel call."""
    return _ids(check_batch(states))


def _decode_b64(text, nchars, nbytes, what):
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a string, got {type(text).__name__}")
    if len(text) != nchars:
        raise ValueError(f"{what} must be {nchars} characters, got {len(text)}: {text!r}")
    bad = sorted(set(text) - _B64_SET)
    if bad:
        raise ValueError(f"{what} has characters outside base64: {''.join(bad)!r}")
    pad = "=" * (-nchars % 4)
    raw = base64.b64decode(text + pad)
    if len(raw) != nbytes or base64.b64encode(raw).decode("ascii").rstrip("=") != text:
        raise ValueError(f"{what} has non-zero padding bits: {text!r}")
    return raw


def position_from_id(pid):
    """State of a gnubg Position ID (player on roll = mover, TURN 0, no dice); ValueError if malformed."""
    if type(pid) is str and len(pid) == P.ID_LEN and pid.isascii():
        s = np.empty(B.STATE_LEN, dtype=np.int64)
        if P.decode_id(pid.encode(), s) == B.ERR_NONE:
            return s
    return _parse_position_id(pid)  # words the problem


def _parse_position_id(pid):
    """position_from_id step by step in Python, for the message naming what is wrong."""
    raw = _decode_b64(pid, 14, 10, "Position ID")
    bits = np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little")
    ends = np.flatnonzero(bits == 0)[:50]  # each run ends with a 0
    counts = np.diff(ends, prepend=-1) - 1
    for side in range(2):
        if ends.size < 25 * (side + 1):
            raise ValueError(f"Position ID {pid!r} runs out of bits (too many checkers)")
        total = int(counts[25 * side : 25 * side + 25].sum())
        if total > B.N_CHECKERS:
            raise ValueError(f"Position ID {pid!r} has {total} checkers for one side (at most 15)")
    if bits[ends[-1] + 1 :].any():
        raise ValueError(f"Position ID {pid!r} has set bits after the two sides")
    return _from_counts(counts[:25].astype(np.int64), counts[25:].astype(np.int64), 0)


# ----------------------------------------------------------------------------- plays


def _plays(s, d1, d2):
    """(afterstates, routes) of roll d1-d2 from validated s, from the game core."""
    rows = np.empty((game.MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    routes = np.empty((game.MAX_AFTERSTATES, game.MAX_MOVES, game.MV_FIELDS), dtype=np.int64)
    n = game.plays_of_roll(s, d1, d2, rows, routes)
    return rows[:n], routes[:n]


def legal_plays(pid, die1, die2):
    """Sorted Position IDs of the distinct legal afterstates of roll die1-die2 (gnubg convention)."""
    if not (type(die1) is int and type(die2) is int and 0 < die1 < 7 and 0 < die2 < 7):
        die1, die2 = check_dice(die1, die2)
    if type(pid) is str and len(pid) == P.ID_LEN and pid.isascii():
        buf, chars, text = _ws.ids
        n = _legal_play_ids(pid.encode(), die1, die2, buf, chars)
        if n > 0:
            return text[: _STRIDE * n - 1].decode("ascii").split(" ")
    s = _parse_position_id(pid)  # raises, naming the problem
    out = np.empty((game.MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    n = game.plays_of_roll(s, die1, die2, out, None)
    return sorted(_ids(out[:n]))


def legal_afterstates(state, die1, die2):
    """The distinct legal afterstates of roll die1-die2 from state (its own dice ignored):
    int64[n, STATE_LEN], the mover's view right after the play (before the turn passes), dice
    cleared; with no legal move, one row: the unchanged position (the pass). Rows in the game
    core's order (game.plays_of_roll)."""
    s = check_state(state)
    d1, d2 = check_dice(die1, die2)
    w = _ws
    n = game.plays_of_roll(s, d1, d2, w.rows, None)
    return w.rows[:n].copy()


_TOKEN = re.compile(r"^(bar|off|\d{1,2})(\*?)((?:/(?:bar|off|\d{1,2})\*?)+)(?:\((\d)\))?$")


def _pt_str(p):
    return "bar" if p == B.BAR_POINT else "off" if p <= 0 else str(p)


def _steps(route):
    """(from, to, hit) moves of a kernel route (int64[MAX_MOVES, MV_FIELDS])."""
    return [(int(m[MV_FROM]), int(m[MV_TO]), bool(m[MV_HIT])) for m in route if m[MV_FROM] > 0]


def _journeys(steps):
    """Group steps into checker journeys: list of lists of (point, hit) starting with (from, False)."""
    js = []
    for f, t, hit in steps:
        for j in reversed(js):
            if j[-1][0] == f and f != 0:
                j.append((t, hit))
                break
        else:
            js.append([(f, False), (t, hit)])
    return js


def _format_steps(steps):
    """gnubg-style text of a move sequence (see module docstring)."""
    tokens = []
    for j in _journeys(steps):
        pts = [j[0]] + [p for p in j[1:-1] if p[1]] + [j[-1]]
        tokens.append(
            (j[0][0], j[-1][0], "/".join(_pt_str(p) + ("*" if h else "") for p, h in pts))
        )
    tokens.sort(key=lambda x: (-x[0], -x[1], x[2]))
    out = []
    i = 0
    while i < len(tokens):
        k = i
        while k < len(tokens) and tokens[k][2] == tokens[i][2]:
            k += 1
        out.append(tokens[i][2] + (f"({k - i})" if k - i > 1 else ""))
        i = k
    return " ".join(out)


def _places(a):
    """Mover's checkers per place (off, points 1..24, bar) of states a (int64[..., STATE_LEN])."""
    return np.concatenate(
        [
            a[..., B.OFF_ME : B.OFF_ME + 1],
            a[..., B.ME : B.ME + 24],
            a[..., B.BAR_ME : B.BAR_ME + 1],
        ],
        axis=-1,
    )


def _parse_segments(norm, text):
    """Checker paths of play text: list of [(point, hit), ...] (25 = bar, 0 = off)."""
    segments = []
    for tok in norm.split():
        m = _TOKEN.match(tok)
        if not m:
            raise ValueError(f"malformed move {tok!r} in {text!r}")
        path = []
        for k, raw in enumerate([m.group(1) + m.group(2)] + m.group(3).split("/")[1:]):
            hit = raw.endswith("*")
            name = raw.rstrip("*")
            v = B.BAR_POINT if name == "bar" else 0 if name == "off" else int(name)
            if not 0 <= v <= 25:
                raise ValueError(f"point {name} out of range in {tok!r}")
            if k == 0 and hit:
                raise ValueError(f"a move cannot hit on its starting point: {tok!r}")
            path.append((v, hit))
        for a, b in zip(path, path[1:]):
            if b[0] >= a[0]:
                raise ValueError(f"move {tok!r} does not go towards home")
        if path[0][0] == 0:
            raise ValueError(f"move {tok!r} starts from off")
        if any(p[0] in (0, 25) for p in path[1:-1]) or path[-1][0] == 25:
            raise ValueError(f"bar/off in the middle of {tok!r}")
        segments.extend([path] * int(m.group(4) or 1))
    return segments


def _find_play(s, d1, d2, rows, text):
    """Index among rows (the plays of s) of play text; ValueError if malformed, illegal or ambiguous."""
    norm = text.strip().lower()
    if norm in ("", "-", "\u2014", "pass"):
        if rows.shape[0] == 1 and (rows[0, : B.BOARD_LEN] == s[: B.BOARD_LEN]).all():
            return 0
        raise ValueError(f"a pass is illegal: roll {d1}-{d2} can be played")
    segments = _parse_segments(norm, text)
    want = np.zeros(26, np.int64)  # net change of the mover per place (off, 1..24, bar)
    want_hits = np.zeros(26, np.int64)
    for path in segments:
        want[path[0][0]] -= 1
        want[path[-1][0]] += 1
        for p, h in path[1:]:
            want_hits[p] += h
    net = ((_places(rows) - _places(s)) == want).all(axis=1)
    hits = np.zeros((rows.shape[0], 26), np.int64)
    hits[:, 1:25] = (s[B.OPP : B.OPP + 24] == 1) & (rows[:, B.OPP : B.OPP + 24] == 0)
    exact = net & (hits == want_hits).all(axis=1)
    found = exact if "*" in norm else net
    if not found.any():
        raise ValueError(f"illegal play for roll {d1}-{d2}: {text!r}")
    if found.sum() > 1:
        if exact.sum() != 1:
            raise ValueError(f"ambiguous play {text!r}: mark hits with '*'")
        found = exact
    return int(np.flatnonzero(found)[0])


def _play_index(s, d1, d2, rows, play):
    """Index among rows of play: an afterstate array, play text or (from, to) moves."""
    if isinstance(play, str):
        return _find_play(s, d1, d2, rows, play)
    if isinstance(play, np.ndarray) and play.ndim == 1:
        target = check_state(play, "play")
        k = np.flatnonzero((rows[:, : B.BOARD_LEN] == target[: B.BOARD_LEN]).all(axis=1))
        if k.size == 0:
            raise ValueError(f"illegal play for roll {d1}-{d2}: the afterstate is not reachable")
        return int(k[0])
    if play is None or isinstance(play, (bytes, dict, set)) or not hasattr(play, "__iter__"):
        raise TypeError(
            "play must be an afterstate array, play text or a sequence of (from, to) "
            f"pairs, got {type(play).__name__}"
        )
    moves = []
    for mv in play:
        if isinstance(mv, (str, bytes)) or not hasattr(mv, "__len__") or len(mv) != 2:
            raise TypeError(f"a move must be a (from, to) pair of integers, got {mv!r}")
        f, t = mv
        if not (is_int(f) and is_int(t)):
            raise TypeError(f"a move must be a (from, to) pair of integers, got {mv!r}")
        if not (1 <= f <= 25 and 0 <= t <= 24):
            raise ValueError(
                f"move {(int(f), int(t))}: from is 1..25 (25 = bar), to 0..24 (0 = off)"
            )
        moves.append((int(f), int(t)))
    text = " ".join(f"{_pt_str(f)}/{_pt_str(t)}" for f, t in moves)
    return _find_play(s, d1, d2, rows, text)


def play_to_str(state, die1, die2, play):
    """gnubg-style text of a legal play of roll die1-die2 from state.

    play is an afterstate (int64[STATE_LEN], mover's view before the turn passes, as from
    game.plays), play text, or a sequence of (from, to) moves in the mover's numbering (25 = bar,
    0 = off). The pass (no legal move) is written as the empty string. ValueError if the play is
    illegal.
    """
    s = check_state(state)
    d1, d2 = check_dice(die1, die2)
    rows, routes = _plays(s, d1, d2)
    return _format_steps(_steps(routes[_play_index(s, d1, d2, rows, play)]))


def parse_play(state, die1, die2, text):
    """Afterstate (int64[STATE_LEN], mover's view before the turn passes) of a gnubg-style play.

    Accepts ``24/18 13/11``, ``bar/22*``, ``6/off``, ``8/5(2)``, ``8/5 8/5``, ``24/18/13``, numbers
    25 / 0 for bar / off; the pass is ``""``, ``-``, ``—`` or ``pass``. Hit marks ``*`` are optional
    when the play without them is unambiguous. ValueError on malformed or illegal plays.
    """
    s = check_state(state)
    d1, d2 = check_dice(die1, die2)
    if not isinstance(text, str):
        raise TypeError(f"play text must be a string, got {type(text).__name__}")
    rows, _ = _plays(s, d1, d2)
    return rows[_find_play(s, d1, d2, rows, text)].copy()


def play_actions(state, die1, die2, play):
    """Checker actions (ints, the mover's frame: game / codec encoding) that play a legal play of
    roll die1-die2 from state, in order; play as for play_to_str. [] for the pass."""
    s = check_state(state)
    d1, d2 = check_dice(die1, die2)
    rows, routes = _plays(s, d1, d2)
    route = routes[_play_index(s, d1, d2, rows, play)]
    return [int((m[MV_FROM] - 1) * 6 + m[MV_DIE] - 1) for m in route if m[MV_FROM] > 0]


# ----------------------------------------------------------------------------- Match ID

_MATCH_FIELDS = (  # (name, width), in bit order
    ("cube_log2", 4),
    ("cube_owner", 2),
    ("dice_owner", 1),
    ("crawford", 1),
    ("game_state", 3),
    ("turn", 1),
    ("double_offered", 1),
    ("resign", 2),
    ("die1", 3),
    ("die2", 3),
    ("match_length", 15),
    ("score0", 15),
    ("score1", 15),
)


def _flag(x, name):
    if not isinstance(x, (bool, np.bool_)) and not (is_int(x) and x in (0, 1)):
        raise TypeError(f"{name} must be True or False, got {x!r}")
    return int(bool(x))


def _small_int(x, name, hi):
    if not is_int(x):
        raise TypeError(f"{name} must be an integer, got {x!r}")
    if not 0 <= x <= hi:
        raise ValueError(f"{name} must be 0..{hi}, got {x}")
    return int(x)


def match_id(
    state,
    dice=None,
    match_length=0,
    score=(0, 0),
    crawford=False,
    game_state=1,
    double_offered=False,
    resign=0,
    turn=None,
):
    """12-character gnubg Match ID. Cube value/owner and the player on roll come from state;
    dice default to the state's full roll (higher die first) or none (0, 0); turn defaults to the
    player on roll (set it to the other player while a double is offered)."""
    s = check_state(state)
    if dice is None:
        d1, d2 = (int(x) for x in game.dice_of(s))
    else:
        if isinstance(dice, (str, bytes)) or not hasattr(dice, "__len__"):
            raise TypeError(f"dice must be a pair of integers, got {dice!r}")
        if len(dice) != 2:
            raise ValueError(f"dice must be a pair, got {dice!r}")
        if all(is_int(d) and d == 0 for d in dice):
            d1, d2 = 0, 0
        else:
            d1, d2 = check_dice(*dice)
    match_length = _small_int(match_length, "match_length", (1 << 15) - 1)
    if isinstance(score, (str, bytes)) or not hasattr(score, "__len__"):
        raise TypeError(f"score must be a pair of integers, got {score!r}")
    if len(score) != 2:
        raise ValueError(f"score must be a pair, got {score!r}")
    s0, s1 = (_small_int(x, "score", (1 << 15) - 1) for x in score)
    if match_length and (s0 >= match_length or s1 >= match_length):
        raise ValueError(f"score {s0}-{s1} is not below the match length {match_length}")
    on_roll = int(s[B.TURN])
    cube, owner = int(s[B.CUBE_VALUE]), int(s[B.CUBE_OWNER])
    fields = {
        "cube_log2": cube.bit_length() - 1,
        "cube_owner": 3 if owner == -1 else owner,
        "dice_owner": on_roll,
        "crawford": _flag(crawford, "crawford"),
        "game_state": _small_int(game_state, "game_state", 4),
        "turn": on_roll if turn is None else _check_turn(turn),
        "double_offered": _flag(double_offered, "double_offered"),
        "resign": _small_int(resign, "resign", 3),
        "die1": d1,
        "die2": d2,
        "match_length": match_length,
        "score0": s0,
        "score1": s1,
    }
    bits = 0
    pos = 0
    for name, width in _MATCH_FIELDS:
        bits |= fields[name] << pos
        pos += width
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def parse_match_id(mid):
    """Decode a 12-character gnubg Match ID into a dict (cube_value, cube_owner -1/0/1, dice_owner,
    crawford, game_state, turn, double_offered, resign, dice, match_length, score)."""
    raw = _decode_b64(mid, 12, 9, "Match ID")
    bits = int.from_bytes(raw, "little")
    if bits >> 66:
        raise ValueError(f"Match ID {mid!r} has bits set beyond bit 66")
    f = {}
    pos = 0
    for name, width in _MATCH_FIELDS:
        f[name] = (bits >> pos) & ((1 << width) - 1)
        pos += width
    if f["cube_owner"] == 2:
        raise ValueError(f"Match ID {mid!r} has cube owner 10b (only 00, 01, 11 exist)")
    if f["game_state"] > 4:
        raise ValueError(f"Match ID {mid!r} has game state {f['game_state']} (0..4)")
    d1, d2 = f["die1"], f["die2"]
    if d1 > 6 or d2 > 6 or (d1 == 0) != (d2 == 0):
        raise ValueError(f"Match ID {mid!r} has impossible dice {d1}-{d2}")
    ml, s0, s1 = f["match_length"], f["score0"], f["score1"]
    if ml and (s0 >= ml or s1 >= ml):
        raise ValueError(f"Match ID {mid!r} has a score {s0}-{s1} not below match length {ml}")
    return {
        "cube_value": 1 << f["cube_log2"],
        "cube_owner": -1 if f["cube_owner"] == 3 else f["cube_owner"],
        "dice_owner": f["dice_owner"],
        "crawford": bool(f["crawford"]),
        "game_state": f["game_state"],
        "turn": f["turn"],
        "double_offered": bool(f["double_offered"]),
        "resign": f["resign"],
        "dice": (d1, d2),
        "match_length": ml,
        "score": (s0, s1),
    }
