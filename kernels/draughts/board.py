"""Russian draughts board layout, geometry tables and the position-vector layout.

Board numbering
---------------
Internal bitboards use a *ghost-square* layout: the dark square on row ``r`` (0 = White's side),
file ``f`` (0 = a), ``r + f`` even, is bit ``(9*r + f) // 2``. Bits 0..35 are used; bits 4, 13, 22,
31 are ghosts (never occupied, never empty). Every dark square then has the same neighbour offsets:
up-left ``+4``, up-right ``+5``, down-left ``-5``, down-right ``-4``, so quiet moves of all men are
generated and counted with one shift and mask per direction; a step off the board lands on a ghost
or outside bits 0..35 and is masked away by ``BB_SQUARES``. Rotating the board 180 degrees maps
bit ``i`` to ``35 - i``.

The external square index ``sq32`` (action codec, API) is row-major over the dark squares:
a1=0, c1=1, e1=2, g1=3, b2=4, ..., h8=31. Standard PDN numbering for Russian draughts is
1=b8, 4=h8, 5=a7, ..., 29=a1, 32=g1. ``GHOST_TO_SQ32``/``SQ32_TO_GHOST`` convert; the ghost
index is monotone in ``sq32``, so lexicographic order of paths is the same in both.

Position vector (``int64[STATE_LEN]``; a batch is ``(B, STATE_LEN)``)
--------------------------------------------------------------------
=================  =========================================================================
``S_WM`` ..``S_BK``  bitboards (ghost layout) of white men, white kings, black men, black kings
``S_SIDE``         side to move: 0 = White, 1 = Black
``S_CAP_SQ``       mid-capture: ghost square of the capturing piece, or -1 between moves
``S_CAP_JUMPED``   mid-capture: bitboard of the enemy pieces already jumped (still on the board)
``S_CAP_START``    mid-capture: ghost square where the chain began, or -1
``S_CAP_MAN``      mid-capture: 1 if the capturing piece was a man when the chain began
``S_PLY``          plies played since the position was set up
``S_KINGS_ONLY``   G.2c counter: plies since the last man move or capture
``S_MATERIAL``     G.2b/G.2d counter: plies since the last capture or crowning
``S_LONG_DIAG``    G.2e counter: plies since the lone-king-on-a1-h8 balance arose, -1 if absent
``S_RULES``        bitmask of enabled draw rules (``RULE_*`` in outcome.py; default all)
``S_HASH``         Zobrist hash of the position (pieces + side to move) at the last whole move
``S_HIST_N``       number of positions recorded since the last irreversible move (uncapped)
``S_HIST``..       ring of the last ``HIST_LEN`` such hashes; entry ``k`` lives at
                   ``S_HIST + k % HIST_LEN`` (the current position is entry ``S_HIST_N - 1``)
=================  =========================================================================

During a capture chain that an env plays hop by hop (codec.py), the capturing piece already
stands on ``S_CAP_SQ`` in the bitboards (crowned if it reached the far row), jumped pieces stay
on the board, and side/counters/hash still describe the position before the chain.
"""

import numpy as np

# ---- geometry -------------------------------------------------------------------------------
N_BITS = 36
N_SQUARES = 32

DIR_OFFSETS = np.array([4, 5, -5, -4], dtype=np.int64)  # up-left, up-right, down-left, down-right


def _ghost(r, f):
    return (9 * r + f) // 2


SQ32_TO_GHOST = np.zeros(N_SQUARES, dtype=np.int64)
GHOST_TO_SQ32 = np.full(N_BITS, -1, dtype=np.int64)
GHOST_ROW = np.full(N_BITS, -1, dtype=np.int64)
GHOST_FILE = np.full(N_BITS, -1, dtype=np.int64)
for _r in range(8):
    for _f in range(8):
        if (_r + _f) % 2 == 0:
            _s = 4 * _r + _f // 2
            _g = _ghost(_r, _f)
            SQ32_TO_GHOST[_s] = _g
            GHOST_TO_SQ32[_g] = _s
            GHOST_ROW[_g] = _r
            GHOST_FILE[_g] = _f

BB_SQUARES = np.int64(0)
for _g in SQ32_TO_GHOST:
    BB_SQUARES |= np.int64(1) << np.int64(_g)

# STEP[d, g]: the neighbour of ghost square g in direction d, or -1 off the board.
STEP = np.full((4, N_BITS), -1, dtype=np.int64)
for _g in SQ32_TO_GHOST:
    for _d in range(4):
        _n = _g + DIR_OFFSETS[_d]
        if 0 <= _n < N_BITS and GHOST_TO_SQ32[_n] >= 0:
            STEP[_d, _g] = _n

# Rows as bitboards; White crowns on row 7, Black on row 0.
BB_ROW = np.zeros(8, dtype=np.int64)
for _g in SQ32_TO_GHOST:
    BB_ROW[GHOST_ROW[_g]] |= np.int64(1) << np.int64(_g)
BB_PROMO = np.array([BB_ROW[7], BB_ROW[0]], dtype=np.int64)  # indexed by side
# The long diagonal a1-h8 (G.2e).
BB_LONG_DIAG = np.int64(0)
for _i in range(8):
    BB_LONG_DIAG |= np.int64(1) << np.int64(_ghost(_i, _i))

# ---- square names ---------------------------------------------------------------------------
SQ32_NAMES = []
for _s in range(N_SQUARES):
    _r, _f = _s // 4, 2 * (_s % 4) + (_s // 4) % 2
    SQ32_NAMES.append("abcdefgh"[_f] + str(_r + 1))


def sq32_to_pdn(s):
    """Standard Russian PDN number (1 = b8 .. 32 = g1) of sq32 square s."""
    r, c = s // 4, s % 4
    return (7 - r) * 4 + c + 1


def pdn_to_sq32(n):
    """sq32 square of the standard PDN number n (1..32)."""
    r = 7 - (n - 1) // 4
    return 4 * r + (n - 1) % 4


# ---- position vector ------------------------------------------------------------------------
S_WM, S_WK, S_BM, S_BK = 0, 1, 2, 3
S_SIDE = 4
S_CAP_SQ = 5
S_CAP_JUMPED = 6
S_CAP_START = 7
S_CAP_MAN = 8
S_PLY = 9
S_KINGS_ONLY = 10
S_MATERIAL = 11
S_LONG_DIAG = 12
S_RULES = 13
S_HASH = 14
S_HIST_N = 15
S_HIST = 16
HIST_LEN = 64
STATE_LEN = S_HIST + HIST_LEN

# ---- move rows (kernel move buffers) --------------------------------------------------------
# A move row: from, to (ghost squares), captured bitboard, number of landing squares in the path
# (1 for a quiet move, the number of captures for a capture), 1 if a man ends the move as a king,
# then the landing squares (ghost) in order.
M_FROM, M_TO, M_CAPTURED, M_NHOPS, M_PROMOTE, M_PATH = 0, 1, 2, 3, 4, 5
MAX_HOPS = 12
ROW_LEN = M_PATH + MAX_HOPS
MAX_MOVES = 512
