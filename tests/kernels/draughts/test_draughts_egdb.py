"""Endgame tables (kernels/draughts/egdb.py, agents/draughts/egdb.py): index, solving, probing.

The tables are checked three ways: every entry against its children by forward generation
(``verify_table``); random positions, with draw counters near their limits, against an exact
minimax of the game core (all draw rules G.2a-G.2e on the board, no table) wherever that search
proves a result; and games played out with the game core, the winner moving by the table and the
loser at random, which must end in the table's result.
"""

from math import comb

import numpy as np
import pytest
from numba import njit

from boardgym.agents.draughts import egdb as E
from boardgym.envs import draughts as api
from boardgym.kernels.draughts import egdb as K
from boardgym.kernels.draughts.board import (
    MAX_MOVES,
    ROW_LEN,
    S_KINGS_ONLY,
    S_LONG_DIAG,
    S_MATERIAL,
    SQ32_TO_GHOST,
)
from boardgym.kernels.draughts.game import gen_moves, play_move, reward
from boardgym.kernels.draughts.move import set_position
from boardgym.kernels.draughts.outcome import (
    BLACK_WON,
    ONGOING,
    RULES_ALL,
    WHITE_WON,
    game_status,
    long_diag_balance,
)


@pytest.fixture(scope="module")
def tables4(tmp_path_factory):
    return E.build(4, directory=tmp_path_factory.mktemp("egdb"))


def _all_sigs(p):
    return [s for g in E.signatures(p) for s in g]


@njit
def _round_trip(a, b, c, d):
    """(entries whose index(unindex) differs, used entries)."""
    bad = 0
    used = 0
    for i in range(K.sig_size(a, b, c, d)):
        wm, wk, bm, bk, ok = K.unindex_bb(a, b, c, d, i)
        if not ok:
            continue
        used += 1
        if K.index_bb(wm, wk, bm, bk) != i or (wm & wk) | (wm & bm) | (wm & bk) | (wk & bm) | (
            wk & bk
        ) | (bm & bk):
            bad += 1
    return bad, used


def test_signatures_in_dependency_order():
    seen = set()
    for group in E.signatures(5):
        for a, b, c, d in group:
            # a capture or a crowning leads into a group solved earlier (or to no pieces)
            for child in ((a - 1, b + 1, c, d), (a, b, c - 1, d), (a, b, c, d - 1)):
                if min(child) >= 0 and child[2] + child[3] > 0 and child[0] + child[1] > 0:
                    assert child in seen, (group, child)
        seen.update(group)
    assert [len(_all_sigs(p)) for p in (2, 3, 4, 5)] == [4, 16, 41, 85]


@pytest.mark.parametrize("sig", _all_sigs(3) + [(0, 3, 0, 1), (1, 1, 1, 1), (2, 0, 2, 0)])
def test_index_round_trip(sig):
    a, b, c, d = sig
    bad, used = _round_trip(a, b, c, d)
    assert bad == 0
    # used entries = every placement: White men on sq32 0..27 and Black men on 4..31 (x of them
    # on 0..3 and y on 28..31, where only one colour's men may stand), then the kings
    pairs = sum(
        comb(4, x) * comb(24, a - x) * comb(4, y) * comb(24 - (a - x), c - y)
        for x in range(a + 1)
        for y in range(c + 1)
    )
    assert used == pairs * comb(32 - a - c, b) * comb(32 - a - c - b, d)


def test_random_positions_index_and_mirror():
    rng = np.random.default_rng(5)
    for _ in range(300):
        a, b, c, d = rng.integers(0, 3, size=4)
        if a + b == 0 or c + d == 0:
            continue
        sq = rng.permutation(32)
        wm_sq = [s for s in sq if s < 28][:a]
        rest = [s for s in sq if s not in wm_sq]
        bm_sq = [s for s in rest if s >= 4][:c]
        rest = [s for s in rest if s not in bm_sq]
        wk_sq, bk_sq = rest[:b], rest[b : b + d]
        bb = [
            int(sum(1 << int(SQ32_TO_GHOST[s]) for s in xs)) for xs in (wm_sq, wk_sq, bm_sq, bk_sq)
        ]
        i = K.index_bb(*bb)
        assert 0 <= i < K.sig_size(a, b, c, d)
        wm, wk, bm, bk, ok = K.unindex_bb(a, b, c, d, i)
        assert ok and [wm, wk, bm, bk] == bb
        f = K.flip_bb(*bb)
        assert list(K.flip_bb(*f)) == bb
        assert [bin(x).count("1") for x in f] == [c, d, a, b]


@pytest.mark.parametrize(
    "sig",
    _all_sigs(3)
    + [(0, 3, 0, 1), (0, 1, 0, 3), (2, 1, 0, 1), (1, 1, 1, 1), (2, 0, 1, 1), (1, 0, 3, 0)],
)
def test_every_entry_agrees_with_its_children(tables4, sig):
    bad = np.zeros(4, dtype=np.int64)
    assert K.verify_table(*sig, tables4.data, tables4.offsets, tables4.layers, bad) == 0


@pytest.mark.parametrize(
    "fen, want",
    [
        ("W:WK1,K2,K3:BK30", ("win", 16)),  # three kings beat a lone king off the long diagonal
        ("W:WK1,K2,K3:BK29", ("draw", None)),  # ... not one holding a1-h8
        ("W:WK29:BK4", ("loss", 2)),  # a1's one diagonal runs into h8's capture (25.3)
        ("B:WK29:BK4", ("loss", 2)),  # the same for Black
        ("W:WK29:BK22", ("win", 1)),  # a1 takes c3 at once (25.3), Black has nothing left
        ("W:W6:B1,2", ("loss", 0)),  # c7 is blocked by b8 and d8: no legal move (G.1)
        ("W:W22:B5", ("draw", None)),
    ],
)
def test_known_positions(tables4, fen, want):
    assert E.probe(tables4, fen) == want


def test_table_bytes():
    assert [tuple(K.decode(c)) for c in (0, 1, 2, 3, 4, 254, 255)] == [
        (K.DRAW, -1),
        (K.WIN, 1),
        (K.LOSS, 0),
        (K.WIN, 2),
        (K.LOSS, 1),
        (K.LOSS, 126),
        (K.WIN, 128),
    ]


def test_colour_mirror_gives_the_same_value(tables4):
    rng = np.random.default_rng(2)
    for _ in range(200):
        a, b, c, d = (int(x) for x in rng.integers(0, 3, size=4))
        if a + b == 0 or c + d == 0 or a + b + c + d > 4:
            continue
        i = int(rng.integers(K.sig_size(a, b, c, d)))
        wm, wk, bm, bk, ok = K.unindex_bb(a, b, c, d, i)
        if not ok:
            continue
        s = set_position(wm, wk, bm, bk, 0, RULES_ALL)
        fwm, fwk, fbm, fbk = K.flip_bb(wm, wk, bm, bk)
        m = set_position(fwm, fwk, fbm, fbk, 1, RULES_ALL)
        assert E.probe_state(tables4, s) == E.probe_state(tables4, m)


def test_kings_only_count_with_men_on_the_board(tables4):
    """G.2c in an ending with men is answered only when the conversion comes inside its window."""
    s = api.from_fen("W:W22,K1,K2:BK30")
    res, t = E.probe_state(tables4, s)
    assert res == "win" and t > 2
    s[S_KINGS_ONLY] = 30 - t
    assert E.probe_state(tables4, s) == ("win", t)
    s[S_KINGS_ONLY] = 31 - t
    assert E.probe_state(tables4, s) == ("unknown", None)


def test_counters_shorten_the_budget(tables4):
    s = api.from_fen("W:WK1,K2,K3:BK30")
    assert E.probe_state(tables4, s) == ("win", 16)
    s[S_KINGS_ONLY] = s[S_MATERIAL] = 14
    assert E.probe_state(tables4, s) == ("win", 16)  # 30 - 14 = 16 plies left: just enough
    s[S_KINGS_ONLY] = s[S_MATERIAL] = 15
    assert E.probe_state(tables4, s) == ("draw", None)
    other = api.from_fen("W:WK1,K2,K3:BK30", rules=RULES_ALL & ~1)
    assert E.probe_state(tables4, other) == ("unknown", None)
    assert E.probe(tables4, "W:WK1,K2,K3:BK30,K26")[0] == "unknown"  # 5 pieces: not built


# ---- against an exact search of the game core ---------------------------------------------
UNKNOWN = 9


@njit
def _exact(s, depth, bufs):
    """Proven value for the side to move within depth plies (1 / 0 / -1), or UNKNOWN: plain
    minimax over the game core, every draw rule judged by game_status."""
    status = game_status(s)
    if status != ONGOING:
        return int(reward(status, s[4]))
    if depth == 0:
        return UNKNOWN
    buf = bufs[depth]
    n = gen_moves(s, buf)
    unknown = False
    draw = False
    for i in range(n):
        v = _exact(play_move(s, buf[i]), depth - 1, bufs)
        if v == UNKNOWN:
            unknown = True
        elif v == -1:
            return 1
        elif v == 0:
            draw = True
    if unknown:
        return UNKNOWN
    return 0 if draw else -1


def test_tables_agree_with_exact_search(tables4):
    rng = np.random.default_rng(11)
    bufs = np.zeros((6, MAX_MOVES, ROW_LEN), dtype=np.int64)
    sigs = [s for s in _all_sigs(4) if sum(s) <= 3] + [
        (0, 3, 0, 1),
        (0, 2, 0, 2),
        (2, 1, 0, 1),
        (1, 1, 1, 1),
        (1, 2, 0, 1),
        (0, 2, 1, 1),
    ]
    proven = {1: 0, 0: 0, -1: 0}
    checked = 0
    while checked < 400:
        a, b, c, d = sigs[int(rng.integers(len(sigs)))]
        i = int(rng.integers(K.sig_size(a, b, c, d)))
        wm, wk, bm, bk, ok = K.unindex_bb(a, b, c, d, i)
        if not ok:
            continue
        s = set_position(wm, wk, bm, bk, int(rng.integers(2)), RULES_ALL)
        lim = K.sig_limit(a, b, c, d)
        left = int(rng.integers(1, 5))
        if lim < K.NO_LIMIT:  # counters near the limit: a few plies left
            s[S_MATERIAL] = lim - left
            if a + c == 0:
                s[S_KINGS_ONLY] = lim - left
        if long_diag_balance(wm, wk, bm, bk):
            s[S_LONG_DIAG] = int(rng.integers(10))
        api.check_state(s)
        depth = 4 if sum((a, b, c, d)) <= 3 else 3
        v = _exact(s, depth, bufs)
        checked += 1
        if v == UNKNOWN:
            continue
        proven[v] += 1
        res, _ = E.probe_state(tables4, s)
        assert res == {1: "win", 0: "draw", -1: "loss"}[v], (api.to_fen(s), s[9:13], v, res)
    assert min(proven.values()) >= 5, proven


def test_games_end_as_the_tables_say(tables4):
    """The winner plays a table move that keeps the win (fewest plies), the loser any move; the
    game core must end the game with the winner's G.1 win, and the table must stay consistent
    with the real draw counters at every ply."""
    rng = np.random.default_rng(3)
    sigs = [
        (0, 3, 0, 1),
        (2, 1, 0, 1),
        (1, 2, 0, 1),
        (0, 2, 1, 1),
        (1, 1, 1, 1),
        (2, 0, 1, 0),
        (1, 1, 0, 1),
        (1, 0, 2, 0),
        (3, 0, 1, 0),
        (2, 0, 2, 0),
    ]
    games = 0
    while games < 60:
        a, b, c, d = sigs[games % len(sigs)]
        i = int(rng.integers(K.sig_size(a, b, c, d)))
        wm, wk, bm, bk, ok = K.unindex_bb(a, b, c, d, i)
        if not ok:
            continue
        s = set_position(wm, wk, bm, bk, int(rng.integers(2)), RULES_ALL)
        res, _ = E.probe_state(tables4, s)
        if res not in ("win", "loss"):
            continue
        games += 1
        winner = int(s[4]) if res == "win" else 1 - int(s[4])
        for _ply in range(400):
            status = game_status(s)
            if status != ONGOING:
                break
            view = s.copy()  # G.2c with men: the tables' own values (the game keeps its count)
            if (view[0] | view[2]) != 0:
                view[S_KINGS_ONLY] = 0
            moves = E.probe_moves(tables4, view)
            names = sorted(moves)
            if s[4] == winner:
                good = [(moves[m][1], m) for m in names if moves[m][0] == "loss"]
                assert good, (api.to_fen(s), moves)
                move = min(good)[1]
            else:
                assert all(moves[m][0] == "win" for m in names), (api.to_fen(s), moves)
                move = names[int(rng.integers(len(names)))]
            s = api.apply(s, move)
        assert status == (WHITE_WON if winner == 0 else BLACK_WON), (api.to_fen(s), status)


def test_store_resume_and_load(tmp_path):
    logs = []
    t1 = E.build(3, directory=tmp_path, log=logs.append)
    assert all("solved" in line for line in logs)
    logs.clear()
    t2 = E.build(3, directory=tmp_path, log=logs.append)
    assert all("loaded" in line for line in logs)
    t3 = E.load(tmp_path)
    assert t3.max_pieces == 3
    for t in (t2, t3):
        assert np.array_equal(t.data, t1.data) and np.array_equal(t.offsets, t1.offsets)
    mem = E.build(3, store=False)
    assert np.array_equal(mem.data, t1.data)
    path = E.table_path(tmp_path, (0, 1, 0, 1))
    np.savez_compressed(path, codes=np.zeros(3, dtype=np.uint8))
    with pytest.raises(ValueError, match="not a table of signature"):
        E.load(tmp_path)
    with open(path, "wb") as f:
        f.write(b"not a zip file")
    with pytest.raises(ValueError, match="not a table of signature"):
        E.load(tmp_path)


def test_boundary_errors(tables4, tmp_path):
    with pytest.raises(FileNotFoundError, match="boardgym egdb build"):
        E.load(tmp_path)
    with pytest.raises(TypeError, match="egdb.Tables"):
        E.probe((1, 2, 3), "W:WK1:BK30")
    with pytest.raises(ValueError, match="bad FEN"):
        E.probe(tables4, "W:W1:B30")
    with pytest.raises(ValueError):
        E.probe_state(tables4, np.zeros(3, dtype=np.int64))
    for bad in (1, 8, 2.5, True):
        with pytest.raises((TypeError, ValueError)):
            E.signatures(bad)
    empty = E.empty_tables()
    assert E.probe(empty, "W:WK1:BK30") == ("unknown", None)
    short = E.Tables(tables4.data[:100].copy(), tables4.offsets, tables4.layers, 4)
    with pytest.raises(ValueError, match="does not fit the data"):
        E.probe(short, "W:WK1:BK30")
    with pytest.raises(TypeError, match="tables.offsets must be"):
        E.probe(
            E.Tables(tables4.data, tables4.offsets.astype(np.int32), tables4.layers, 4),
            "W:WK1:BK30",
        )
    layers = tables4.layers.copy()
    layers[K.sig_id(0, 3, 0, 1)] = 1
    with pytest.raises(ValueError, match="0301 does not fit"):
        E.probe(E.Tables(tables4.data, tables4.offsets, layers, 4), "W:WK1:BK30")


def test_search_score(tables4):
    s = api.from_fen("W:WK1,K2,K3:BK30")
    hit, v = K.search_score(tables4.data, tables4.offsets, tables4.layers, s, 3, 100_000)
    assert hit and v == 100_000 - 200 - 3 - 16
    s = api.from_fen("W:WK1,K2,K3:BK29")
    assert tuple(K.search_score(tables4.data, tables4.offsets, tables4.layers, s, 3, 100_000)) == (
        True,
        0,
    )
    s = api.initial_state()
    assert not K.search_score(tables4.data, tables4.offsets, tables4.layers, s, 3, 100_000)[0]


def test_alphabeta_probes_the_tables(tables4, tmp_path, monkeypatch):
    from boardgym.agents.draughts.agents import AlphaBetaAgent
    from boardgym.agents.draughts.search import WIN, WIN_BOUND

    fen = "W:WK1,K2,K3:BK30"
    s = api.from_fen(fen)
    agent = AlphaBetaAgent(depth=3, egdb=tables4, seed=0)
    i, score = agent.search(s)
    assert score == WIN - 200 - 1 - 15  # the child: a table loss for Black in 15 plies
    move = api.move_to_str(s, agent.buffers.rows[i])
    assert E.probe_moves(tables4, s)[move] == ("loss", 15)
    plain = AlphaBetaAgent(depth=3, egdb=False, seed=0)
    assert plain.egdb_pieces == 0 and abs(plain.search(s)[1]) < WIN_BOUND
    # None: the complete set in the default directory, when there is one
    monkeypatch.setenv("BOARDGYM_EGDB", str(tmp_path))
    assert AlphaBetaAgent(depth=2).egdb_pieces == 0
    E.build(2, directory=tmp_path)
    assert AlphaBetaAgent(depth=2).egdb_pieces == 2
    with pytest.raises(TypeError, match="egdb must be"):
        AlphaBetaAgent(depth=2, egdb=3)
    with pytest.raises(FileNotFoundError):
        AlphaBetaAgent(depth=2, egdb=str(tmp_path / "none"))
