"""The atomic action codec for backgammon: the only place the action encoding lives.

An action is one checker move: ``action = source * 6 + (die - 1)`` with ``N_ACTIONS = 150``.
``source`` counts from the mover's view: 0..23 are the points 1..24 (source = point - 1) and
24 is the bar (``SOURCE_BAR``), so 25 sources. Bearing off has no source of its own: it is the
move of a checker past point 1 (``die >= point``). The landing point is ``point - die``.

Mask (B.5): ``legal_action_mask`` marks exactly the moves that begin a play using the most dice
any sequence allows (all four of a double or as many as possible; with one usable die of a
non-double, the higher one if it can be played). Applying a marked action leaves a position whose
remaining dice again need the rest of that maximum, so the same rule applied mid-turn marks the
continuations. Every sequence of marked actions therefore ends in one of ``gen_afterstates``'s
plays, and each of them is reachable.

Over-the-rules moves: we take the strict reading. A move that starts a play using fewer dice than
the maximum is never marked, even when it would reach a legal afterstate anyway: with the last
checker on point 3 and 6-2, ``3/off`` with the 6 is not marked; the play is ``3/1/off`` (2 then 6).
This matches GNU Backgammon's move list (with an opponent blot on point 1 it lists only
``3/1*/off``, whose afterstate differs from ``3/off``).

``apply_action`` moves the checker, consumes the die and ends the turn (clears the dice, flips the
view, toggles TURN) once no remaining die can be used — the play is complete or nothing more is
legal. It trusts the caller to pass a marked action.
"""

import numpy as np
from numba import njit

from boardgym.kernels.backgammon.board import BAR_ME, DICE, ME, end_turn
from boardgym.kernels.backgammon.movegen import (
    _max_dice,
    do_move,
    max_dice_work,
    remaining_dice,
    source_mask,
    undo_move,
)
from boardgym.kernels.bits import lsb

N_SOURCES = 25
SOURCE_BAR = 24
N_ACTIONS = N_SOURCES * 6


@njit(cache=True, inline="always")
def encode_action(sp, d):
    """Action of moving from point sp (1..24, 25 = bar) with die d."""
    return (sp - 1) * 6 + (d - 1)


@njit(cache=True, inline="always")
def decode_action(action):
    """(source point sp in 1..25 with 25 = bar, die d) of an action."""
    return action // 6 + 1, action % 6 + 1


@njit(cache=True)
def legal_action_mask(state, out):
    """Mark in out (int8[N_ACTIONS]) every move starting or continuing a maximal play -> count."""
    a, b, n = remaining_dice(state)
    if n == 0:
        for k in range(N_ACTIONS):
            out[k] = 0
        return 0
    return mask_work(state.copy(), out, np.empty(15, dtype=np.int64))


@njit(cache=True)
def mask_work(w, out, stk):
    """legal_action_mask worked out on w itself (left as it was on return) with stk (int64[15])
    as scratch: the batch cores' copy-free path."""
    for k in range(N_ACTIONS):
        out[k] = 0
    a, b, n = remaining_dice(w)
    if n == 0:
        return 0
    if n == 1:  # one die left: every checker that can move it begins a maximal play (shortcut)
        srcs = source_mask(w, a)
        count = 0
        while srcs != 0:
            i = lsb(srcs)
            srcs &= srcs - 1
            out[encode_action(i + 1, a)] = 1
            count += 1
        return count
    m = max_dice_work(w, stk)
    if m == 0:
        return 0
    count = 0
    if a != b:
        # two different dice: both needed (m == 2), or only one usable (B.5: the higher if it can)
        chosen = a if source_mask(w, a) != 0 else b
        for d in (a, b):
            other = b if d == a else a
            if m == 1 and d != chosen:
                continue
            srcs = source_mask(w, d)
            # Sources of the other die that certainly stay sources after any move of this one
            # (a shortcut, no rule of its own): off the bar, a point q with q - other >= 1 keeps
            # its plain move, since moving (and hitting) never adds a block (B.2) nor puts the
            # mover on the bar; q stays a source unless its last checker is the one moved.
            safe = np.int64(0)
            if m == 2 and w[BAR_ME] == 0:
                safe = source_mask(w, other) & ~((np.int64(1) << other) - 1)
            while srcs != 0:
                i = lsb(srcs)
                srcs &= srcs - 1
                sp = i + 1
                ok = True
                if (
                    m == 2
                    and (safe & ~(np.int64(1) << i)) == 0
                    and not ((safe >> i) & 1 and w[ME + i] >= 2)
                ):
                    hit = do_move(w, sp, d)
                    ok = source_mask(w, other) != 0
                    undo_move(w, sp, d, hit)
                if ok:
                    out[encode_action(sp, d)] = 1
                    count += 1
    else:
        srcs = source_mask(w, a)
        while srcs != 0:
            i = lsb(srcs)
            srcs &= srcs - 1
            sp = i + 1
            hit = do_move(w, sp, a)
            r = _max_dice(w, a, a, n - 1, stk)
            undo_move(w, sp, a, hit)
            if r + 1 == m:
                out[encode_action(sp, a)] = 1
                count += 1
    return count


@njit(cache=True)
def has_legal_move(state):
    """True when some remaining die of state can move a checker (else the turn is a pass)."""
    for v in range(1, 7):
        if state[DICE + v - 1] > 0 and source_mask(state, v) != 0:
            return True
    return False


@njit(cache=True)
def apply_action(state, action):
    """Play one masked checker move -> new state (turn passed once no remaining die is usable)."""
    out = state.copy()
    move_checker(out, action)
    stk = np.empty(15, dtype=np.int64)
    if max_dice_work(out, stk) == 0:
        return end_turn(out)
    return out


@njit(cache=True, inline="always")
def move_checker(s, action):
    """Move the checker of a masked action on s itself and use up its die; the turn does not
    pass (the play is over exactly when legal_action_mask then marks nothing)."""
    sp, d = decode_action(action)
    do_move(s, sp, d)
    s[DICE + d - 1] -= 1
