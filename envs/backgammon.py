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
    hit), ``6/off``; one checker moved on is chained (``24/18/13``, with ``*`` after each hit
    point); repeated identical moves are ``8/5(2)``. ``parse_play`` also accepts the expanded
    forms ``8/5 8/5``, ``24/18 18/13``, ``25`` for the bar and ``0`` for off, with or without ``*``.

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
    if s.shape != (B.STATE_LEN,):
        raise ValueError(f"state must have shape ({B.STATE_LEN},), got {s.shape}")
    bits = []
    for side in board_from_state(s):
        for c in side:
            bits.extend([1] * c)
            bits.append(0)
    if len(bits) > 80:
        raise ValueError("more than 15 checkers on the board for a side")
    bits.extend([0] * (80 - len(bits)))
    key = bytes(sum(bits[8 * k + j] << j for j in range(8)) for k in range(10))
    return base64.b64encode(key).decode("ascii")[:14]


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
