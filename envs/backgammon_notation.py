"""Backgammon game API and notation over the kernel (``boardgym.kernels.backgammon``).

Position ID (gnubg manual, "A technical description of the Position ID")
    80 bits, little-endian within bytes, base64 without padding (14 characters). Two blocks of 25
    runs (points 1..24 then the bar, each from that side's own view), a run being one 1 per checker
    then a 0. Block order follows GNU Backgammon's code as exposed by gnubg-nn (checked with
    ``gnubg_nn.board_from_position_id`` / ``moves``): gnubg's board is ``[opponent, player on
    roll]`` and the key encodes ``board[0]`` (the opponent) first, then ``board[1]`` (the player on
    roll, whose checkers ``gnubg_nn.moves`` moves). ``position_from_id`` therefore makes the second
    block the mover. The ID holds no turn, dice or cube: decoded states have TURN 0, no dice,
    cube 1 centred. Checkers missing from the 15 of a side are borne off.

legal_plays
    Exactly GNU Backgammon's convention (verified against ``gnubg_nn.moves(board, d1, d2)`` keys
    -> ``board_from_position_key`` -> ``position_id``): each afterstate is encoded right after the
    play, before the turn passes, so the mover is still the second block and any checker it hit
    sits on the opponent's bar in the first block. When nothing can move, the list is the
    unchanged position's ID (the pass).

Play notation (gnubg style)
    Moves from the mover's view, highest source first: ``24/18 13/11``, ``bar/22*`` (``*`` marks a
    hit), ``6/off``; a checker moved on is written as one move whose intermediate points appear
    only where it hit (``24/13``, ``24/18*/13``); repeated identical moves are ``8/5(2)``. When
    several move sequences give the same position the shortest text is written. ``parse_play``
    also accepts ``8/5 8/5``, ``24/18/13``, ``24/18 18/13``, ``25`` for the bar and ``0`` for off;
    ``*`` may be omitted when the play is unambiguous without it. The pass is written ``""``.

Match ID (gnubg manual, "A technical description of the Match ID")
    66 bits packed little-endian into 9 bytes, base64 (12 characters); every field is stored
    least significant bit first: cube log2 (4), cube owner (2: 0, 1, 3 = centred), dice owner /
    player on roll (1), Crawford (1), game state (3), turn (1), double offered (1), resignation
    (2), die 1 (3), die 2 (3), match length (15), score of player 0 (15), score of player 1 (15).
"""
import base64
import re

import numpy as np

from boardgym.kernels.backgammon import board as B
from boardgym.kernels.backgammon.movegen import MAX_AFTERSTATES, gen_afterstates
from boardgym.kernels.backgammon.position_key import position_key

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_SET = frozenset(_B64)


# ----------------------------------------------------------------------------- states

def initial_state():
    """The standard starting position, player 0 on roll, no dice, cube 1 centred: int64[STATE_LEN]."""
    return B.new_initial_state()


def _check_dice(d1, d2):
    for d in (d1, d2):
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise ValueError(f"die must be an integer 1..6, got {d!r}")
        if not 1 <= int(d) <= 6:
            raise ValueError(f"die must be 1..6, got {d}")
    return int(d1), int(d2)


def _validate_board(mover, opp, bar_me, bar_opp):
    """Raise ValueError unless the placement is a possible position."""
    for name, pts, bar in (("player on roll", mover, bar_me), ("opponent", opp, bar_opp)):
        if any(c < 0 for c in pts) or bar < 0:
            raise ValueError(f"negative checker count for the {name}")
        total = sum(pts) + bar
        if total > B.N_CHECKERS:
            raise ValueError(f"the {name} has {total} checkers on the board (at most 15)")
    for p in range(24):
        if mover[p] > 0 and opp[p] > 0:
            raise ValueError(f"both sides have checkers on point {p + 1} (mover's numbering)")
    if sum(mover) + bar_me == 0 and sum(opp) + bar_opp == 0:
        raise ValueError("both sides have borne off all 15 checkers")


def state_from_board(board, turn=0):
    """State from a gnubg-style board ``[opponent, player on roll]``, each 25 counts (points 1..24
    from that side's own view, then the bar); borne-off counts are 15 minus the rest."""
    try:
        opp_own = [int(x) for x in board[0]]
        mov_own = [int(x) for x in board[1]]
    except (TypeError, IndexError, ValueError) as e:
        raise ValueError(f"board must be two sequences of 25 integers: {e}") from None
    if len(board) != 2 or len(opp_own) != 25 or len(mov_own) != 25:
        raise ValueError("board must be two sequences of 25 integers")
    mover = mov_own[:24]
    opp = [opp_own[23 - i] for i in range(24)]  # opponent's point q is the mover's 25 - q
    _validate_board(mover, opp, mov_own[24], opp_own[24])
    s = np.zeros(B.STATE_LEN, dtype=np.int64)
    s[B.ME:B.ME + 24] = mover
    s[B.OPP:B.OPP + 24] = opp
    s[B.BAR_ME] = mov_own[24]
    s[B.BAR_OPP] = opp_own[24]
    s[B.OFF_ME] = B.N_CHECKERS - sum(mover) - mov_own[24]
    s[B.OFF_OPP] = B.N_CHECKERS - sum(opp) - opp_own[24]
    s[B.TURN] = turn
    s[B.CUBE_VALUE] = 1
    s[B.CUBE_OWNER] = -1
    B.refresh_masks(s)
    return s


def board_from_state(state):
    """gnubg-style board ``[opponent, player on roll]`` (two lists of 25) of a state."""
    s = np.asarray(state)
    mover = [int(s[B.ME + i]) for i in range(24)] + [int(s[B.BAR_ME])]
    opp = [int(s[B.OPP + 23 - i]) for i in range(24)] + [int(s[B.BAR_OPP])]
    return [opp, mover]


# ----------------------------------------------------------------------------- Position ID

def position_id(state):
    """14-character gnubg Position ID of state (mover = player on roll = second block)."""
    s = np.asarray(state)
    if s.shape != (B.STATE_LEN,) or s.dtype != np.int64:
        raise ValueError(f"state must be int64 of shape ({B.STATE_LEN},), got {s.dtype} {s.shape}")
    key = np.empty(10, np.uint8)
    if position_key(s, key) > 80:
        raise ValueError("more than 15 checkers on the board for a side")
    return base64.b64encode(key.tobytes()).decode("ascii")[:14]


def _decode_b64(text, nchars, nbytes, what):
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a string, got {type(text).__name__}")
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
    raw = _decode_b64(pid, 14, 10, "Position ID")
    bits = [(raw[k // 8] >> (k % 8)) & 1 for k in range(80)]
    sides = []
    pos = 0
    for _ in range(2):
        counts = []
        for _ in range(25):
            c = 0
            while pos < 80 and bits[pos] == 1:
                c += 1
                pos += 1
            if pos >= 80:
                raise ValueError(f"Position ID {pid!r} runs out of bits (too many checkers)")
            pos += 1  # the 0 closing the run
            counts.append(c)
        if sum(counts) > B.N_CHECKERS:
            raise ValueError(f"Position ID {pid!r} has {sum(counts)} checkers for one side (at most 15)")
        sides.append(counts)
    if any(bits[pos:]):
        raise ValueError(f"Position ID {pid!r} has set bits after the two sides")
    return state_from_board(sides)


# ----------------------------------------------------------------------------- plays

def legal_plays(pid, die1, die2):
    """Sorted Position IDs of the distinct legal afterstates of roll die1-die2 (gnubg convention)."""
    d1, d2 = _check_dice(die1, die2)
    s = position_from_id(pid)
    out = np.empty((MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    n = gen_afterstates(s, d1, d2, out)
    return sorted({position_id(out[k]) for k in range(n)})


# ----------------------------------------------------------------------------- play notation

_TOKEN = re.compile(r"^(bar|off|\d{1,2})(\*?)((?:/(?:bar|off|\d{1,2})\*?)+)(?:\((\d)\))?$")


def _pt_str(p):
    return "bar" if p == B.BAR_POINT else "off" if p <= 0 else str(p)


def _enumerate_plays(state, d1, d2):
    """All maximal move sequences of roll d1-d2: list of (afterstate_board_tuple, steps) where
    steps = tuple of (from, to, hit) in the mover's numbering (25 = bar, 0 = off).

    Same search as the kernel's generator (both die orders; doubles with non-increasing sources,
    which covers every multiset of moves), kept in Python because it returns the routes too."""
    key = (np.asarray(state, dtype=np.int64).tobytes(), d1, d2)
    hit = _PLAYS_CACHE.get(key)
    if hit is not None:
        return hit
    from boardgym.kernels.backgammon.movegen import do_move, source_mask, undo_move
    w = np.array(state, dtype=np.int64)
    found = []  # (score, board, steps)

    def rec(dice, steps, maxsrc, first):
        if dice:
            d = dice[0]
            m = int(source_mask(w, d))
            if m:
                for i in range(min(maxsrc, 25)):
                    if (m >> i) & 1:
                        sp = i + 1
                        h = do_move(w, sp, d)
                        rec(dice[1:], steps + ((sp, max(sp - d, 0), bool(h)),),
                            sp if d1 == d2 else 25, first)
                        undo_move(w, sp, d, h)
                return
        score = 8 * len(steps) + (first if len(steps) == 1 and d1 != d2 else 0)
        found.append((score, tuple(int(x) for x in w[:B.BOARD_LEN]), steps))

    if d1 == d2:
        rec((d1,) * 4, (), 25, d1)
    else:
        rec((d1, d2), (), 25, d1)
        rec((d2, d1), (), 25, d2)
    best = max(f[0] for f in found)
    result = [(board, steps) for score, board, steps in found if score == best]
    if len(_PLAYS_CACHE) > 256:
        _PLAYS_CACHE.clear()
    _PLAYS_CACHE[key] = result
    return result


_PLAYS_CACHE = {}


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
    """Canonical gnubg-style text of a move sequence (see module docstring)."""
    tokens = []
    for j in _journeys(steps):
        pts = [j[0]] + [p for p in j[1:-1] if p[1]] + [j[-1]]
        tokens.append((j[0][0], j[-1][0], "/".join(_pt_str(p) + ("*" if h else "") for p, h in pts)))
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


def _signature(segments):
    """Net movement of a play: (sorted removed sources, sorted added landings, sorted hit points)."""
    removed, added, hits = [], [], []
    for pts in segments:  # pts = [(point, hit), ...] along one checker's path
        removed.append(pts[0][0])
        added.append(pts[-1][0])
        hits.extend(p for p, h in pts[1:] if h)
    for p in list(removed):
        if p in added and p != 0:
            removed.remove(p)
            added.remove(p)
    return tuple(sorted(removed)), tuple(sorted(added)), tuple(sorted(hits))


def _board_of(afterstate):
    a = np.asarray(afterstate)
    if a.shape != (B.STATE_LEN,):
        raise ValueError(f"afterstate must have shape ({B.STATE_LEN},), got {a.shape}")
    return tuple(int(x) for x in a[:B.BOARD_LEN])


def play_to_str(state, die1, die2, play):
    """gnubg-style text of a legal play of roll die1-die2 from state.

    play is an afterstate (int64[STATE_LEN], mover's view before the turn passes, as from
    gen_afterstates) or a sequence of (from, to) moves in the mover's numbering (25 = bar, 0 = off).
    The pass (no legal move) is written as the empty string. ValueError if the play is illegal.
    """
    d1, d2 = _check_dice(die1, die2)
    plays = _enumerate_plays(np.asarray(state, dtype=np.int64), d1, d2)
    if isinstance(play, np.ndarray) and play.ndim == 1 and play.shape[0] == B.STATE_LEN:
        target = _board_of(play)
    else:
        try:
            moves = [(int(f), int(t)) for f, t in play]
        except (TypeError, ValueError):
            raise ValueError("play must be an afterstate array or a sequence of (from, to) pairs") from None
        text = " ".join(f"{_pt_str(f)}/{_pt_str(t)}" for f, t in moves)
        target = _board_of(parse_play(state, d1, d2, text))
    cands = [steps for board, steps in plays if board == target]
    if not cands:
        raise ValueError(f"illegal play for roll {d1}-{d2}: {play!r}")
    texts = [_format_steps(steps) for steps in cands]
    return min(texts, key=lambda t: (len(t.split()), len(t), t))


def parse_play(state, die1, die2, text):
    """Afterstate (int64[STATE_LEN], mover's view before the turn passes) of a gnubg-style play.

    Accepts ``24/18 13/11``, ``bar/22*``, ``6/off``, ``8/5(2)``, ``8/5 8/5``, ``24/18/13``, numbers
    25 / 0 for bar / off; the pass is ``""``, ``-``, ``—`` or ``pass``. Hit marks ``*`` are optional
    when the play without them is unambiguous. ValueError on malformed or illegal plays.
    """
    d1, d2 = _check_dice(die1, die2)
    if not isinstance(text, str):
        raise ValueError(f"play text must be a string, got {type(text).__name__}")
    s = np.asarray(state, dtype=np.int64)
    plays = _enumerate_plays(s, d1, d2)
    norm = text.strip().lower()
    if norm in ("", "-", "\u2014", "pass"):
        if all(not steps for _, steps in plays):
            out = s.copy()
            out[B.DICE:B.DICE + 6] = 0
            return out
        raise ValueError(f"a pass is illegal: roll {d1}-{d2} can be played")
    segments = []
    starred = "*" in norm
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
    want = _signature(segments)
    found = {}
    for board, steps in plays:
        sig = _signature([[(j[0][0], False)] + j[1:] for j in _journeys(steps)])
        if sig == want or (not starred and sig[:2] == want[:2]):
            found.setdefault(board, sig)
    if not found:
        raise ValueError(f"illegal play for roll {d1}-{d2}: {text!r}")
    if len(found) > 1:
        exact = [b for b, sig in found.items() if sig == want]
        if len(exact) != 1:
            raise ValueError(f"ambiguous play {text!r}: mark hits with '*'")
        found = {exact[0]: want}
    board = next(iter(found))
    out = s.copy()
    out[:B.BOARD_LEN] = board
    out[B.DICE:B.DICE + 6] = 0
    B.refresh_masks(out)
    return out


# ----------------------------------------------------------------------------- Match ID

_MATCH_FIELDS = (  # (name, width), in bit order
    ("cube_log2", 4), ("cube_owner", 2), ("dice_owner", 1), ("crawford", 1), ("game_state", 3),
    ("turn", 1), ("double_offered", 1), ("resign", 2), ("die1", 3), ("die2", 3),
    ("match_length", 15), ("score0", 15), ("score1", 15),
)


def match_id(state, dice=None, match_length=0, score=(0, 0), crawford=False, game_state=1,
             double_offered=False, resign=0, turn=None):
    """12-character gnubg Match ID. Cube value/owner and the player on roll come from state;
    dice default to the state's full roll (higher die first) or none (0, 0); turn defaults to the
    player on roll (set it to the other player while a double is offered)."""
    s = np.asarray(state)
    cube = int(s[B.CUBE_VALUE])
    if cube < 1 or cube & (cube - 1) or cube > 2**15:
        raise ValueError(f"cube value must be a power of two up to 32768, got {cube}")
    owner = int(s[B.CUBE_OWNER])
    if owner not in (-1, 0, 1):
        raise ValueError(f"cube owner must be -1 (centred), 0 or 1, got {owner}")
    on_roll = int(s[B.TURN])
    if dice is None:
        dice = B.full_roll(s.astype(np.int64))
    d1, d2 = (int(x) for x in dice)
    if (d1, d2) != (0, 0):
        _check_dice(d1, d2)
    fields = {
        "cube_log2": cube.bit_length() - 1, "cube_owner": 3 if owner == -1 else owner,
        "dice_owner": on_roll, "crawford": int(bool(crawford)), "game_state": int(game_state),
        "turn": on_roll if turn is None else int(turn), "double_offered": int(bool(double_offered)),
        "resign": int(resign), "die1": d1, "die2": d2, "match_length": int(match_length),
        "score0": int(score[0]), "score1": int(score[1]),
    }
    bits = 0
    pos = 0
    for name, width in _MATCH_FIELDS:
        v = fields[name]
        if not 0 <= v < (1 << width):
            raise ValueError(f"match field {name}={v} does not fit in {width} bits")
        bits |= v << pos
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
        "dice_owner": f["dice_owner"], "crawford": bool(f["crawford"]),
        "game_state": f["game_state"], "turn": f["turn"],
        "double_offered": bool(f["double_offered"]), "resign": f["resign"],
        "dice": (d1, d2), "match_length": ml, "score": (s0, s1),
    }
