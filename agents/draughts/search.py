"""Russian draughts alpha-beta search kernel (Numba): negamax, transposition table, quiescence.

Moves come only from the game core (``gen_moves_bb``, ``apply_move``; a chain in progress is
finished by ``game.play_move``), and the end of the game from ``game_status`` / ``game.reward``
(G.1 loss without a move, G.2a-G.2e draws). Inside the tree a position that
repeats one already on the path or in the game's history is scored as a draw.

Scores are from the side to move's view: evaluation units (draughts/evaluation.py: man = 100)
or, for a decided game, ``WIN - ply`` / ``-(WIN - ply)`` (mate distance: a faster win scores
higher).

Search: principal-variation negamax with alpha-beta and late-move reductions (``ST_LMR``,
``LMR_*``: late quiet moves searched shallower first, again at full depth if they beat alpha)
and enhanced transposition cutoffs (``ETC_DEPTH``); at depth 0 the search goes on while the
side to move must capture (quiescence over capture chains: captures are compulsory, so there
is no stand-pat), up to ``MAX_PLY``. Move order: the
transposition-table move, then captures by the number of pieces taken, crowning moves, two
killer moves per ply, then the history score.

Transposition table: ``int64[TT_SIZE, 3]`` (a power of two), one entry per slot:
``[check, data, move]`` with move = the ``move_key`` of the best move, data = ``score +
SCORE_OFS | depth << 21 | flag << 29 | age << 31`` (flag: 1 lower bound, 2 upper bound,
3 exact; 0 = empty) and check = key ^ data ^ move, key = the Zobrist hash (state[S_HASH],
pieces + side). An entry counts only when its three words give back the key (``_tt_entry``):
threads that share one table (``AlphaBetaAgent(threads=2)``) write entries word by word, and
an entry half written by one thread while another reads it fails the check (a miss). An entry
is replaced when the slot holds another search's entry (age), the same position, or a shallower
one (replace-by-depth). Win scores are stored relative to the node (mate-distance corrected).
A node asks the processor for its entry on entering (a prefetch hint, ``_prefetch_row``), before
its game status and move list, and the enhanced transposition cutoff for all its children's
entries before reading the first. The children themselves are written into one row a ply by
``move.apply_move_live_into``: the position's fields and the live part of its history only.

Evaluation cache: a leaf's score is kept in ``SearchBuffers.ecache`` (2**EVAL_CACHE_BITS
one-word entries, the slot and a 43-bit check from ``_eval_key``: the Zobrist hash with the
counters the evaluation reads mixed in) and read back when the same position is a leaf again
(a re-search, a transposition the table does not keep: it stores no leaves). It gives the score
the evaluation would (the search's nodes and scores are the same with it), so it must hold one
evaluation's scores only: ``SearchBuffers.evaluation_args`` empties it when the evaluation
changes. A node that may be a leaf (depth 0) fetches its entry on entering, as it does the table's.

Iterative deepening and time control run in Python (agents/draughts/thinking.py): each
iteration calls ``search_root`` with a node budget (``stats[ST_LIMIT]``). The kernels release the
GIL (``nogil``), so another thread can stop a search at any node by setting ``stats[ST_STOP]``
(the Hub engine on ``stop``). The search also reads the clock itself (``monotonic_ns``, every
``CLOCK_EVERY`` nodes) against ``stats[ST_DEADLINE]`` (CLOCK_MONOTONIC nanoseconds, 0: none)
and stops there as if stopped (``ST_STOP``): the agent's deadline needs no other thread to be
scheduled on time (``HAS_CLOCK``: Linux; elsewhere the agent's clock thread sets ``ST_STOP``). A
search that runs out of nodes or is stopped sets ``stats[ST_ABORT]``; ``search_root`` then still
returns the best of the root moves it had finished (``stats[ST_ROOT_DONE]`` of them, the previous
best first), which the agent plays when at least one was finished. ``principal_variation`` reads
the expected line back from the transposition table.

Numba note: ``_negamax`` is recursive and cached; every call site passes the same argument types
(``ZERO``/``ONE``/``BIG`` are typed int64 constants, not literals) so that it has exactly one
compiled signature: a second specialisation of a cached recursive function crashed when loaded
from the cache. ``_negamax`` and every kernel it calls are compiled with ``_nrt=False``: they
allocate nothing (the caller's buffers, ``SearchBuffers.hidden`` for the evaluation's hidden
layer), so they need none of Numba's reference counting, whose atomic increments and decrements
on every array view and call took about a fifth of the search's time; a function compiled for a
caller without it inherits that, so none of them may allocate (Numba refuses to compile one
that does).
"""

from __future__ import annotations

import sys

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from boardgym.agents.draughts.egdb import empty_tables
from boardgym.agents.draughts.evaluation import HIDDEN_MAX, Evaluation, evaluate_into
from boardgym.kernels.bits import popcount
from boardgym.kernels.draughts.board import (
    M_CAPTURED,
    M_FROM,
    M_PROMOTE,
    M_TO,
    MAX_MOVES,
    ROW_LEN,
    S_BK,
    S_BM,
    S_HASH,
    S_KINGS_ONLY,
    S_LONG_DIAG,
    S_MATERIAL,
    S_SIDE,
    S_WK,
    S_WM,
    STATE_LEN,
)
from boardgym.kernels.draughts.egdb import search_score
from boardgym.kernels.draughts.game import is_capture, play_move, reward
from boardgym.kernels.draughts.move import apply_move_live_into
from boardgym.kernels.draughts.movegen import WORK_LEN, gen_moves, gen_moves_bb
from boardgym.kernels.draughts.outcome import (
    ONGOING,
    game_status,
    repetition_count,
)

MAX_PLY = 64
INF = 1_000_000
WIN = 100_000
WIN_BOUND = WIN - 1_000  # |score| above this is a decided game
SCORE_OFS = 1 << 20
FLAG_LOWER, FLAG_UPPER, FLAG_EXACT = 1, 2, 3

# stats array layout (ST_STOP: set by another thread to stop the search; ST_ROOT_DONE: root moves
# finished by the last search_root; ST_LMR: 1 turns late-move reductions on; ST_REDUCED: moves
# searched reduced, ST_RESEARCHED: of which searched again at full depth; ST_DEADLINE: the
# monotonic_ns time at which the search stops itself, 0: none)
(
    ST_NODES,
    ST_LIMIT,
    ST_ABORT,
    ST_TT_HITS,
    ST_QNODES,
    ST_AGE,
    ST_USE_TT,
    ST_SELDEPTH,
    ST_STOP,
    ST_ROOT_DONE,
    ST_LMR,
    ST_REDUCED,
    ST_RESEARCHED,
    ST_DEADLINE,
) = range(14)
STATS_LEN = 14
# the search reads the clock at every CLOCK_EVERY-th node (a power of two) when it has a deadline
CLOCK_EVERY = 256
# late-move reductions: a quiet move (no capture to make, no crowning, not the TT or a killer
# move) at depth >= LMR_DEPTH that comes LMR_MOVES-th or later in the order is searched one ply
# shallower (two from LMR_MOVES_2 on at depth >= LMR_DEPTH_2), with a null window; if it then
# beats alpha it is searched again at full depth
LMR_DEPTH, LMR_MOVES, LMR_DEPTH_2, LMR_MOVES_2 = 3, 3, 5, 8
# enhanced transposition cutoffs from this depth on (the children's table entries are read
# before the search of any child)
ETC_DEPTH = 3
# the evaluation cache (SearchBuffers.ecache, 2**EVAL_CACHE_BITS entries: 512 KB): one int64 an
# entry, the key's bits above EC_SCORE_MASK and score + SCORE_OFS below (0: empty); the key
# (_eval_key) mixes obs_scalars' counters into the hash by these odd multipliers
EVAL_CACHE_BITS = 16
EC_SCORE_MASK = (1 << 21) - 1
_EK_KINGS_ONLY = np.int64(0x5BD1E9955BD1E995)
_EK_MATERIAL = np.int64(0x27D4EB2F165667C5)
_EK_LONG_DIAG = np.int64(0x165667B19E3779F9)
_EK_REPETITIONS = np.int64(0x61C8864E7A143579)
# typed constants: every call of the recursive _negamax must have one signature (a second
# specialisation breaks Numba's cache of recursive functions)
ZERO = np.int64(0)
ONE = np.int64(1)
BIG = np.int64(INF)


# clock_gettime's id of CLOCK_MONOTONIC (the clock of time.monotonic and time.perf_counter on
# Linux); elsewhere the search has no clock of its own (monotonic_ns is 0: only the clock thread
# stops it)
_CLOCK_MONOTONIC = 1 if sys.platform.startswith("linux") else -1
#: the search reads the clock itself (stats[ST_DEADLINE]); otherwise only ST_STOP stops it
HAS_CLOCK = _CLOCK_MONOTONIC > 0


@intrinsic
def _clock_ns(typingctx):
    # libc's clock_gettime, linked by name (not by address: the cached code stays valid in
    # another process); struct timespec is two 64-bit words on 64-bit Linux
    def codegen(context, builder, signature, args):
        i64, i32 = ir.IntType(64), ir.IntType(32)
        if _CLOCK_MONOTONIC < 0:
            return ir.Constant(i64, 0)
        ts_type = ir.LiteralStructType([i64, i64])
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i32, [i32, ts_type.as_pointer()]), "clock_gettime"
        )
        ts = cgutils.alloca_once(builder, ts_type)
        builder.call(fn, [ir.Constant(i32, _CLOCK_MONOTONIC), ts])
        sec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 0))
        nsec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 1))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

    return types.int64(), codegen


@intrinsic
def _prefetch_row(typingctx, table, row):
    # a hint to the processor (x86 prefetcht0) to bring the first word of table[row] (a 1-D
    # or 2-D array) into the cache while the node goes on: no effect on any value
    def codegen(context, builder, signature, args):
        tty = signature.args[0]
        ary = context.make_array(tty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer2(
            context,
            builder,
            ary.data,
            cgutils.unpack_tuple(builder, ary.shape),
            cgutils.unpack_tuple(builder, ary.strides),
            tty.layout,
            [args[1]] + [ir.Constant(ir.IntType(64), 0)] * (tty.ndim - 1),
            wraparound=False,
            boundscheck=False,
        )
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
            "llvm.prefetch.p0i8",
        )
        # read, keep in all cache levels, data
        builder.call(
            fn,
            [
                builder.bitcast(ptr, i8p),
                ir.Constant(i32, 0),
                ir.Constant(i32, 3),
                ir.Constant(i32, 1),
            ],
        )
        return context.get_dummy_value()

    return types.void(table, row), codegen


@njit(cache=True, nogil=True)
def monotonic_ns():
    """CLOCK_MONOTONIC in nanoseconds (time.monotonic_ns's clock), readable in a kernel;
    0 where the search has no clock of its own (not Linux)."""
    return _clock_ns()


@njit(cache=True, inline="always")
def move_key(row):
    """A move's identity (from, to, captured set) in one int64."""
    return row[M_CAPTURED] | (row[M_FROM] << 36) | (row[M_TO] << 42)


@njit(cache=True)
def root_children(state, rows, children):
    """Fill rows (int64[MAX_MOVES, ROW_LEN]) with the legal moves of state (mid-chain: the ways to
    finish the chain) and children[i] with the whole-move position after rows[i]; return n."""
    n = gen_moves(state, rows)
    for i in range(n):
        children[i] = play_move(state, rows[i])
    return n


@njit(cache=True, inline="always")
def _tt_entry(tt, slot, h):
    """(data, move) of the table's entry for hash h in slot, or (0, -1) when the slot holds
    no entry for h (another position's, none, or one half written by another thread)."""
    check = tt[slot, 0]
    data = tt[slot, 1]
    mv = tt[slot, 2]
    if data != 0 and (check ^ data ^ mv) == h:
        return data, mv
    return np.int64(0), np.int64(-1)


@njit(cache=True, inline="always")
def _tt_fields(data):
    """(depth, flag, score) of a table entry's data word (the score as stored: a decided
    game's distance is from the entry's own node)."""
    return (data >> 21) & 255, (data >> 29) & 3, (data & (2 * SCORE_OFS - 1)) - SCORE_OFS


@njit(cache=True, _nrt=False)
def _tt_store(tt, h, depth, flag, score, key, ply, age):
    slot = h & (tt.shape[0] - 1)
    old = tt[slot, 1]
    old_depth = _tt_fields(old)[0]
    old_age = (old >> 31) & 65535
    if old == 0 or _tt_entry(tt, slot, h)[0] != 0 or old_age != age or depth >= old_depth:
        if score > WIN_BOUND:
            score += ply
        elif score < -WIN_BOUND:
            score -= ply
        data = (score + SCORE_OFS) | (depth << 21) | (flag << 29) | (age << 31)
        tt[slot, 0] = h ^ data ^ key
        tt[slot, 1] = data
        tt[slot, 2] = key


@njit(cache=True, inline="always")
def _eval_key(s, rep):
    """The evaluation cache's key of s (its repetition count rep): everything the evaluation
    reads (the pieces and the side to move, by the Zobrist hash; the counters of obs_scalars)."""
    return (
        s[S_HASH]
        ^ (s[S_KINGS_ONLY] * _EK_KINGS_ONLY)
        ^ (s[S_MATERIAL] * _EK_MATERIAL)
        ^ ((s[S_LONG_DIAG] + 1) * _EK_LONG_DIAG)
        ^ (rep * _EK_REPETITIONS)
    )


@njit(cache=True, inline="always")
def _cached_eval(s, rep, ecache, kind, w1, b1, w2, b2, scale, pt, hidden):
    """evaluate_into(s), read from the evaluation cache ecache when it holds s's score, else
    computed and stored there."""
    k = _eval_key(s, rep)
    slot = k & (ecache.shape[0] - 1)
    e = ecache[slot]
    if e != 0 and ((e ^ k) & ~EC_SCORE_MASK) == 0:
        return (e & EC_SCORE_MASK) - SCORE_OFS
    v = evaluate_into(s, kind, w1, b1, w2, b2, scale, pt, hidden)
    ecache[slot] = (k & ~EC_SCORE_MASK) | (v + SCORE_OFS)
    return v


@njit(cache=True, inline="always")
def _ply_states():
    """The search's positions, one row a ply (the child of the position at ply p is written
    into row p + 1): no array is made per node."""
    return np.empty((MAX_PLY + 1, STATE_LEN), dtype=np.int64)


@njit(cache=True, nogil=True, _nrt=False)
def _negamax(
    s,
    depth,
    alpha,
    beta,
    ply,
    tt,
    killers,
    history,
    moves,
    order,
    work,
    states,
    stats,
    kind,
    w1,
    b1,
    w2,
    b2,
    scale,
    pt,
    hidden,
    ecache,
    eg,
):
    stats[ST_NODES] += 1
    if stats[ST_NODES] >= stats[ST_LIMIT] or stats[ST_STOP] != 0:
        stats[ST_ABORT] = 1
        return 0
    if (
        stats[ST_DEADLINE] != 0
        and (stats[ST_NODES] & (CLOCK_EVERY - 1)) == 0
        and _clock_ns() >= stats[ST_DEADLINE]
    ):
        stats[ST_STOP] = 1  # as if the clock thread had stopped it: no further iteration
        stats[ST_ABORT] = 1
        return 0
    if ply > stats[ST_SELDEPTH]:
        stats[ST_SELDEPTH] = ply
    if depth > 0 and stats[ST_USE_TT] != 0:  # the table entry read below, fetched meanwhile
        _prefetch_row(tt, s[S_HASH] & (tt.shape[0] - 1))
    rep = repetition_count(s)
    if depth <= 0:  # the evaluation cache's entry, which a leaf reads, fetched meanwhile
        _prefetch_row(ecache, _eval_key(s, rep) & (ecache.shape[0] - 1))
    status = game_status(s)
    if status != ONGOING:  # G.1 (the side to move has no move: a loss) or a G.2 draw
        return np.int64(reward(status, s[S_SIDE])) * (WIN - ply)
    if rep >= 2:
        return 0  # a repetition: the opponent can at least repeat again
    if eg[0].shape[0] > 0:  # endgame tables (draughts_egdb): a decided ending is not searched
        hit, v = search_score(eg[0], eg[1], eg[2], s, ply, np.int64(WIN))
        if hit:
            return v
    if depth <= 0 or ply >= MAX_PLY - 1:
        # a leaf unless the side to move must capture (quiescence): asked of the game core
        # (is_capture, from the bitboards), without making the move list
        if depth <= 0:
            stats[ST_QNODES] += 1
        if ply >= MAX_PLY - 1 or not is_capture(s):
            return _cached_eval(s, rep, ecache, kind, w1, b1, w2, b2, scale, pt, hidden)
    mv = moves[ply]
    n = gen_moves_bb(s[S_WM], s[S_WK], s[S_BM], s[S_BK], s[S_SIDE], work, mv)
    capture = mv[0, M_CAPTURED] != 0
    h = s[S_HASH]
    tt_move = np.int64(-1)
    use_tt = stats[ST_USE_TT] != 0 and depth > 0
    if use_tt:
        data, tt_move = _tt_entry(tt, h & (tt.shape[0] - 1), h)
        if data != 0:
            tdepth, flag, v = _tt_fields(data)
            if tdepth >= depth:
                if v > WIN_BOUND:
                    v -= ply
                elif v < -WIN_BOUND:
                    v += ply
                if (
                    flag == FLAG_EXACT
                    or (flag == FLAG_LOWER and v >= beta)
                    or (flag == FLAG_UPPER and v <= alpha)
                ):
                    stats[ST_TT_HITS] += 1
                    return v
    if use_tt and depth >= ETC_DEPTH and ply < MAX_PLY - 2:
        # enhanced transposition cutoff: a child whose table entry (at least depth - 1 deep, an
        # upper bound or exact, not a decided game) already refutes this node ends it before any
        # search, when that child would read its entry (no repetition, not over). The children's
        # hashes first (in the ordering scratch, overwritten below), their entries fetched side
        # by side, then read.
        child = states[ply + 1]
        slots = order[ply]
        for i in range(n):
            apply_move_live_into(s, mv[i], child)
            slots[i] = child[S_HASH]
            _prefetch_row(tt, child[S_HASH] & (tt.shape[0] - 1))
        for i in range(n):
            ch = slots[i]
            cdata, _ = _tt_entry(tt, ch & (tt.shape[0] - 1), ch)
            if cdata != 0:
                cdepth, cflag, cv = _tt_fields(cdata)
                if (
                    cdepth >= depth - 1
                    and (cflag == FLAG_UPPER or cflag == FLAG_EXACT)
                    and -WIN_BOUND <= cv <= WIN_BOUND
                    and -cv >= beta
                ):
                    apply_move_live_into(s, mv[i], child)
                    if repetition_count(child) < 2 and game_status(child) == ONGOING:
                        stats[ST_TT_HITS] += 1
                        return -cv
    # move ordering scores
    sc = order[ply]
    k1 = killers[ply, 0]
    k2 = killers[ply, 1]
    for i in range(n):
        key = move_key(mv[i])
        if key == tt_move:
            sc[i] = 1 << 40
        elif capture:
            sc[i] = (1 << 32) + 1000 * popcount(mv[i, M_CAPTURED]) + 100 * mv[i, M_PROMOTE]
        elif mv[i, M_PROMOTE] != 0:
            sc[i] = 1 << 31
        elif key == k1:
            sc[i] = 1 << 30
        elif key == k2:
            sc[i] = (1 << 30) - 1
        else:
            sc[i] = history[mv[i, M_FROM] * 36 + mv[i, M_TO]]
    alpha0 = alpha
    best = -INF
    best_key = np.int64(-1)
    for i in range(n):
        j = i
        for t in range(i + 1, n):
            if sc[t] > sc[j]:
                j = t
        if j != i:
            tmp = sc[i]
            sc[i] = sc[j]
            sc[j] = tmp
            for c in range(ROW_LEN):
                tmp = mv[i, c]
                mv[i, c] = mv[j, c]
                mv[j, c] = tmp
        child = states[ply + 1]
        apply_move_live_into(s, mv[i], child)
        if i == 0:
            v = -_negamax(
                child,
                depth - 1,
                -beta,
                -alpha,
                ply + 1,
                tt,
                killers,
                history,
                moves,
                order,
                work,
                states,
                stats,
                kind,
                w1,
                b1,
                w2,
                b2,
                scale,
                pt,
                hidden,
                ecache,
                eg,
            )
        else:
            r = 0
            if (
                stats[ST_LMR] != 0
                and depth >= LMR_DEPTH
                and i >= LMR_MOVES
                and not capture
                and mv[i, M_PROMOTE] == 0
                and sc[i] < (1 << 30)
            ):
                r = 2 if depth >= LMR_DEPTH_2 and i >= LMR_MOVES_2 else 1
                stats[ST_REDUCED] += 1
                v = -_negamax(
                    child,
                    depth - 1 - r,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    tt,
                    killers,
                    history,
                    moves,
                    order,
                    work,
                    states,
                    stats,
                    kind,
                    w1,
                    b1,
                    w2,
                    b2,
                    scale,
                    pt,
                    hidden,
                    ecache,
                    eg,
                )
                if v > alpha and stats[ST_ABORT] == 0:
                    stats[ST_RESEARCHED] += 1
                    r = 0
            if r == 0:
                v = -_negamax(
                    child,
                    depth - 1,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    tt,
                    killers,
                    history,
                    moves,
                    order,
                    work,
                    states,
                    stats,
                    kind,
                    w1,
                    b1,
                    w2,
                    b2,
                    scale,
                    pt,
                    hidden,
                    ecache,
                    eg,
                )
            if alpha < v < beta and stats[ST_ABORT] == 0:
                v = -_negamax(
                    child,
                    depth - 1,
                    -beta,
                    -alpha,
                    ply + 1,
                    tt,
                    killers,
                    history,
                    moves,
                    order,
                    work,
                    states,
                    stats,
                    kind,
                    w1,
                    b1,
                    w2,
                    b2,
                    scale,
                    pt,
                    hidden,
                    ecache,
                    eg,
                )
        if stats[ST_ABORT] != 0:
            return 0
        if v > best:
            best = v
            best_key = move_key(mv[i])
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    if not capture and depth > 0:
                        if best_key != killers[ply, 0]:
                            killers[ply, 1] = killers[ply, 0]
                            killers[ply, 0] = best_key
                        hi = mv[i, M_FROM] * 36 + mv[i, M_TO]
                        history[hi] += depth * depth
                        if history[hi] > (1 << 28):
                            for t in range(history.shape[0]):
                                history[t] >>= 1
                    break
    if use_tt:
        if best <= alpha0:
            flag = FLAG_UPPER
        elif best >= beta:
            flag = FLAG_LOWER
        else:
            flag = FLAG_EXACT
        _tt_store(tt, h, depth, flag, best, best_key, ply, stats[ST_AGE])
    return best


@njit(cache=True, nogil=True)
def search_root(
    children,
    n,
    order,
    depth,
    tt,
    killers,
    history,
    moves,
    scratch,
    work,
    stats,
    kind,
    w1,
    b1,
    w2,
    b2,
    scale,
    pt,
    hidden,
    ecache,
    eg,
    values,
):
    """Search the root's children (whole-move positions) in the given order, depth plies deep.

    order: int64[n] indices into children, best first (rewritten best first on return);
    values: int64[n] scores of children in order (exact for the best, bounds for the others).
    Returns (index into children of the best move, its score); check stats[ST_ABORT]: after an
    abort they are the best of the stats[ST_ROOT_DONE] root moves finished (none: order[0], -INF).
    """
    alpha = -BIG
    beta = BIG
    best = -BIG
    best_i = order[0]
    stats[ST_ROOT_DONE] = 0
    states = _ply_states()
    for r in range(n):
        c = order[r]
        if r == 0:
            v = -_negamax(
                children[c],
                depth - 1,
                -beta,
                -alpha,
                ONE,
                tt,
                killers,
                history,
                moves,
                scratch,
                work,
                states,
                stats,
                kind,
                w1,
                b1,
                w2,
                b2,
                scale,
                pt,
                hidden,
                ecache,
                eg,
            )
        else:
            v = -_negamax(
                children[c],
                depth - 1,
                -alpha - 1,
                -alpha,
                ONE,
                tt,
                killers,
                history,
                moves,
                scratch,
                work,
                states,
                stats,
                kind,
                w1,
                b1,
                w2,
                b2,
                scale,
                pt,
                hidden,
                ecache,
                eg,
            )
            if v > alpha and stats[ST_ABORT] == 0:
                v = -_negamax(
                    children[c],
                    depth - 1,
                    -beta,
                    -alpha,
                    ONE,
                    tt,
                    killers,
                    history,
                    moves,
                    scratch,
                    work,
                    states,
                    stats,
                    kind,
                    w1,
                    b1,
                    w2,
                    b2,
                    scale,
                    pt,
                    hidden,
                    ecache,
                    eg,
                )
        if stats[ST_ABORT] != 0:
            break
        stats[ST_ROOT_DONE] = r + 1
        values[r] = v
        if v > best:
            best = v
            best_i = c
            if v > alpha:
                alpha = v
    if stats[ST_ABORT] == 0:
        # best first, the rest in their previous order (stable)
        k = 0
        for r in range(n):
            if order[r] == best_i:
                k = r
        bv = values[k]
        for r in range(k, 0, -1):
            order[r] = order[r - 1]
            values[r] = values[r - 1]
        order[0] = best_i
        values[0] = bv
    return best_i, best


@njit(cache=True, nogil=True)
def score_children(
    children,
    n,
    resolve,
    tt,
    killers,
    history,
    moves,
    scratch,
    work,
    stats,
    kind,
    w1,
    b1,
    w2,
    b2,
    scale,
    pt,
    hidden,
    ecache,
    eg,
    out,
):
    """One-ply scores (greedy): out[i] = the mover's score of children[i] (a win = WIN - 1).

    resolve: 1 plays out the forced captures that follow (quiescence), 0 evaluates statically.
    """
    states = _ply_states()
    for i in range(n):
        c = children[i]
        status = game_status(c)
        if status != ONGOING:  # what the finished game pays the mover (a win: WIN - 1)
            out[i] = np.int64(reward(status, 1 - c[S_SIDE])) * (WIN - 1)
        elif resolve:
            stats[ST_NODES] = 0
            stats[ST_LIMIT] = 1 << 62
            stats[ST_ABORT] = 0
            stats[ST_USE_TT] = 0
            out[i] = -_negamax(
                c,
                ZERO,
                -BIG,
                BIG,
                ONE,
                tt,
                killers,
                history,
                moves,
                scratch,
                work,
                states,
                stats,
                kind,
                w1,
                b1,
                w2,
                b2,
                scale,
                pt,
                hidden,
                ecache,
                eg,
            )
        else:
            out[i] = -evaluate_into(c, kind, w1, b1, w2, b2, scale, pt, hidden)


@njit(cache=True)
def principal_variation(state, first, tt, rows, states):
    """The line the search expects: ``first`` (a legal move row of ``state``), then the
    transposition table's move of each position, while one is stored and legal and the line does
    not repeat. rows: int64[L, ROW_LEN] (the moves), states: int64[L, STATE_LEN] (the position
    each is played in); returns the length (at most L)."""
    size = tt.shape[0]
    mv = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    s = state.copy()
    row = first.copy()
    n = 0
    while n < rows.shape[0]:
        rows[n] = row
        states[n] = s
        n += 1
        s = play_move(s, row)
        if game_status(s) != ONGOING or repetition_count(s) >= 2:
            break
        h = s[S_HASH]
        data, key = _tt_entry(tt, h & (size - 1), h)
        if data == 0:
            break
        m = gen_moves(s, mv)
        found = -1
        for i in range(m):
            if move_key(mv[i]) == key:
                found = i
                break
        if found < 0:
            break
        row = mv[found].copy()
    return n


class SearchBuffers:
    """Caller-owned buffers of one searcher (per-ply move lists, ordering, killers, history, TT,
    the evaluation's scratch and cache)."""

    def __init__(self, tt_bits: int = 20) -> None:
        if not (isinstance(tt_bits, (int, np.integer)) and 4 <= tt_bits <= 28):
            raise ValueError(f"tt_bits must be an integer in 4..28, got {tt_bits!r}")
        self.tt = np.zeros((1 << int(tt_bits), 3), dtype=np.int64)
        self.killers = np.full((MAX_PLY, 2), -1, dtype=np.int64)
        self.history = np.zeros(36 * 36, dtype=np.int64)
        self.moves = np.zeros((MAX_PLY, MAX_MOVES, ROW_LEN), dtype=np.int64)
        self.scratch = np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64)
        self.work = np.zeros(WORK_LEN, dtype=np.int64)
        self.stats = np.zeros(STATS_LEN, dtype=np.int64)
        # the evaluation's hidden layer (evaluate_into) and the evaluation cache (scores of the
        # evaluation of _eval_mark, set by evaluation_args)
        self.hidden = np.zeros(HIDDEN_MAX, np.float32)
        self.ecache = np.zeros(1 << EVAL_CACHE_BITS, np.int64)
        self._eval_mark: tuple | None = None
        self.rows = np.zeros((MAX_MOVES, ROW_LEN), dtype=np.int64)
        self.children = np.zeros((MAX_MOVES, STATE_LEN), dtype=np.int64)
        self.egdb = empty_tables()[:3]  # (data, offsets, layers) of the endgame tables, if any

    def clear(self) -> None:
        """Forget everything learnt (TT, evaluation cache, killers, history)."""
        self.tt[:] = 0
        self.ecache[:] = 0
        self.killers[:] = -1
        self.history[:] = 0

    def evaluation_args(self, evaluation: Evaluation) -> tuple:
        """The search kernels' evaluation arguments for an ``Evaluation``: (kind, *its
        ``arrays()``, the hidden-layer scratch, the evaluation cache). The cache holds the scores
        of the evaluation it was last given for, so it is emptied first when this one differs
        (another kind or scale, or any array another object)."""
        arrays = evaluation.arrays()
        mark = (evaluation.kind, *arrays)
        last = self._eval_mark
        if last is None or not all(
            a is b or (not isinstance(a, np.ndarray) and a == b) for a, b in zip(last, mark)
        ):
            self.ecache[:] = 0
            self._eval_mark = mark
        return (*mark, self.hidden, self.ecache)
