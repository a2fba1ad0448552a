"""Russian draughts end of game (G.1, G.2a-G.2e) and Zobrist hashing.

G.1   The side to move with no legal move (no pieces, or all blocked) loses.
Draws (boardgym/RULES.md G.2; "a move" = one move by each player, so N moves = 2N plies). Each is
a bit of ``state[S_RULES]`` (all on by default) and is judged by ``game_status`` on whole-move
positions:

G.2a  ``RULE_REPETITION``: the current position (pieces + side to move, by Zobrist hash) occurs
      for the third time. History is kept from the last irreversible move (a man move or a
      capture: nothing before it can recur) in a ring of ``HIST_LEN`` = 64 plies; an occurrence
      older than 64 plies without an irreversible move is not seen (G.2c ends such play at 30).
G.2b  ``RULE_THREE_KINGS``: one side has a lone king (no other piece) and the other at least three
      kings (men allowed beside them); draw once ``S_MATERIAL`` (plies since the last capture or
      crowning, i.e. since this balance arose or since setup) reaches 30.
G.2c  ``RULE_KINGS_ONLY``: ``S_KINGS_ONLY`` (plies since the last man move or capture, counted
      from setup) reaches 30.
G.2d  ``RULE_BALANCE``: both sides have at least one king, 4-7 pieces in total, and
      ``S_MATERIAL`` reaches 60 plies (4-5 pieces) or 120 plies (6-7 pieces).
G.2e  ``RULE_LONG_DIAGONAL``: one side has a lone king standing on a1-h8 and the other exactly
      3 kings, 2 kings + 1 man or 1 king + 2 men. ``S_LONG_DIAG`` counts plies since this held
      (0 when it arises, -1 when it does not hold); it restarts when it stops holding (the lone
      king leaves the diagonal) and on any capture or crowning. Draw once it reaches 10.
Win (G.1) is judged before the draws. While a capture chain is in progress the game is ongoing.

Zobrist keys come from ``numpy.random.default_rng(20240531)``: 62-bit non-negative ``int64``
keys per (piece kind, ghost square) and one for Black to move.

The functions compiled with ``_nrt=False`` allocate nothing and so skip Numba's reference
counting: the draughts search calls them at every node (agents/draughts/search.py).
"""

import numpy as np
from numba import njit

from boardgym.kernels.bits import lsb, pop_lsb, popcount
from boardgym.kernels.draughts.board import (
    BB_LONG_DIAG,
    HIST_LEN,
    N_BITS,
    S_BK,
    S_BM,
    S_CAP_SQ,
    S_HASH,
    S_HIST,
    S_HIST_N,
    S_KINGS_ONLY,
    S_LONG_DIAG,
    S_MATERIAL,
    S_RULES,
    S_SIDE,
    S_WK,
    S_WM,
)
from boardgym.kernels.draughts.movegen import count_quiet_bb, has_capture_bb, mover_view

RULE_REPETITION = 1  # G.2a
RULE_THREE_KINGS = 2  # G.2b
RULE_KINGS_ONLY = 4  # G.2c
RULE_BALANCE = 8  # G.2d
RULE_LONG_DIAGONAL = 16  # G.2e
RULES_ALL = 31

THREE_KINGS_PLIES = 30
KINGS_ONLY_PLIES = 30
BALANCE_PLIES_4_5 = 60
BALANCE_PLIES_6_7 = 120
LONG_DIAG_PLIES = 10

ONGOING = 0
WHITE_WON = 1
BLACK_WON = 2
DRAW_REPETITION = 3  # G.2a
DRAW_THREE_KINGS = 4  # G.2b
DRAW_KINGS_ONLY = 5  # G.2c
DRAW_BALANCE = 6  # G.2d
DRAW_LONG_DIAGONAL = 7  # G.2e
STATUS_NAMES = (
    "ongoing",
    "white won",
    "black won",
    "draw G.2a repetition",
    "draw G.2b three kings v lone king",
    "draw G.2c kings only",
    "draw G.2d balance unchanged",
    "draw G.2e lone king on long diagonal",
)

_rng = np.random.default_rng(20240531)
ZOBRIST = _rng.integers(0, 2**62, size=(4, N_BITS), dtype=np.int64)  # kinds: WM, WK, BM, BK
ZOBRIST_BLACK = np.int64(_rng.integers(0, 2**62, dtype=np.int64))


@njit(cache=True)
def hash_bb(wm, wk, bm, bk, side):
    """Zobrist hash of a position given by bitboards and side to move."""
    h = np.int64(0)
    for kind in range(4):
        x = wm if kind == 0 else (wk if kind == 1 else (bm if kind == 2 else bk))
        while x != 0:
            h ^= ZOBRIST[kind, lsb(x)]
            x = pop_lsb(x)
    if side == 1:
        h ^= ZOBRIST_BLACK
    return h


@njit(cache=True)
def long_diag_balance(wm, wk, bm, bk):
    """True if the G.2e balance holds: lone king on a1-h8 against 3K, 2K+1M or 1K+2M."""
    for s in range(2):
        lm, lk, sm, sk = (bm, bk, wm, wk) if s == 0 else (wm, wk, bm, bk)
        if lm == 0 and popcount(lk) == 1 and (lk & BB_LONG_DIAG) != 0:
            nm, nk = popcount(sm), popcount(sk)
            if (nk == 3 and nm == 0) or (nk == 2 and nm == 1) or (nk == 1 and nm == 2):
                return True
    return False


@njit(cache=True)
def three_kings_balance(wm, wk, bm, bk):
    """True if the G.2b balance holds: a lone king against three kings or more."""
    if wm == 0 and popcount(wk) == 1 and popcount(bk) >= 3:
        return True
    if bm == 0 and popcount(bk) == 1 and popcount(wk) >= 3:
        return True
    return False


@njit(cache=True, _nrt=False)
def repetition_count(state):
    """How many times the current position occurs in the recorded history (itself included)."""
    n = state[S_HIST_N]
    m = n if n < HIST_LEN else HIST_LEN
    h = state[S_HASH]
    c = 0
    for k in range(n - m, n):
        if state[S_HIST + k % HIST_LEN] == h:
            c += 1
    return c


@njit(cache=True, _nrt=False)
def has_legal_move(wm, wk, bm, bk, side):
    """True if the side to move has any legal move (G.1)."""
    us_m, us_k, them, empty = mover_view(wm, wk, bm, bk, side)
    if count_quiet_bb(us_m, us_k, empty, side) > 0:
        return True
    return has_capture_bb(us_m, us_k, them, empty)


@njit(cache=True, _nrt=False)
def game_status(state):
    """Outcome code of a position: ONGOING, WHITE_WON, BLACK_WON or a DRAW_* reason."""
    if state[S_CAP_SQ] >= 0:
        return ONGOING
    wm, wk, bm, bk, side = state[S_WM], state[S_WK], state[S_BM], state[S_BK], state[S_SIDE]
    return game_status_moves(state, has_legal_move(wm, wk, bm, bk, side))


@njit(cache=True, _nrt=False)
def game_status_moves(state, can_move):
    """game_status of a position whose side to move has (can_move) or lacks a legal move, as a
    move list already made for it tells (no second search)."""
    if state[S_CAP_SQ] >= 0:
        return ONGOING
    wm, wk, bm, bk, side = state[S_WM], state[S_WK], state[S_BM], state[S_BK], state[S_SIDE]
    if not can_move:
        return BLACK_WON if side == 0 else WHITE_WON
    rules = state[S_RULES]
    if (rules & RULE_REPETITION) and repetition_count(state) >= 3:
        return DRAW_REPETITION
    if (rules & RULE_THREE_KINGS) and state[S_MATERIAL] >= THREE_KINGS_PLIES:
        if three_kings_balance(wm, wk, bm, bk):
            return DRAW_THREE_KINGS
    if (rules & RULE_KINGS_ONLY) and state[S_KINGS_ONLY] >= KINGS_ONLY_PLIES:
        return DRAW_KINGS_ONLY
    if (rules & RULE_BALANCE) and wk != 0 and bk != 0:
        total = popcount(wm | wk | bm | bk)
        if 4 <= total <= 5 and state[S_MATERIAL] >= BALANCE_PLIES_4_5:
            return DRAW_BALANCE
        if 6 <= total <= 7 and state[S_MATERIAL] >= BALANCE_PLIES_6_7:
            return DRAW_BALANCE
    if (rules & RULE_LONG_DIAGONAL) and state[S_LONG_DIAG] >= LONG_DIAG_PLIES:
        return DRAW_LONG_DIAGONAL
    return ONGOING
