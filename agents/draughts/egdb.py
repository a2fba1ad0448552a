"""Russian draughts endgame tables: build, store, load and probe.

The kernels are in kernels/draughts/egdb.py.

    tables = build(max_pieces=4, directory="/tmp/egdb")   # or load() after `boardgym egdb build`
    probe(tables, "W:WK1,K2,K3:BK30")                       # ('win', 16): the side to move wins
    sample_positions(tables, 4, wins=5, draws=5, seed=0)    # table positions to test an engine on

What the values mean, and how they relate to the draw rules G.2a-G.2e, is in the kernel
module's docstring: each entry is win / draw / loss for the side to move with its draw counters
at zero, plus ``t``, the plies to the next conversion (capture or crowning, or the loser's G.1).

In the search: ``AlphaBetaAgent(egdb=...)`` (None: the complete set in the default directory
when there is one; False: none; a directory; or Tables) holds the tables as one tuple
``(data, offsets, layers)`` in ``SearchBuffers.egdb`` (empty arrays when none, so the search
compiles one specialisation either way). ``draughts_search._negamax`` calls the kernel
``search_score`` right after its repetition check: a decided ending (win / loss within the
counters' budget, or a draw) is scored and not searched, a win as ``WIN - 200 - ply - t``.

Storage: one file per material signature, ``rd_<a><b><c><d>.v1.npz`` (White men, White kings,
Black men, Black kings; White to move): a compressed NumPy archive whose array ``codes`` holds
the ``layers * size`` bytes (about a tenth of their size on disk), in a directory: ``--dir``,
else ``$BOARDGYM_EGDB``, else ``$XDG_DATA_HOME/boardgym/egdb`` (by default
``~/.local/share/boardgym/egdb``). A build writes each file atomically when its signature is
solved, so an interrupted build resumes from the last finished signature.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from boardgym.envs import draughts as api
from boardgym.kernels.draughts import egdb as K
from boardgym.kernels.draughts.board import MAX_MOVES, ROW_LEN, S_CAP_SQ, STATE_LEN
from boardgym.kernels.draughts.game import ONGOING, RULES_ALL, game_status, is_capture
from boardgym.kernels.draughts.move import set_position

__all__ = [
    "Tables",
    "default_dir",
    "signatures",
    "build",
    "load",
    "probe",
    "probe_state",
    "probe_moves",
    "empty_tables",
    "load_cached",
    "tables_option",
    "table_path",
    "sample_positions",
    "RESULT_NAMES",
]

RESULT_NAMES = {K.WIN: "win", K.DRAW: "draw", K.LOSS: "loss", K.UNKNOWN: "unknown"}
MAX_PIECES = 7


class Tables(NamedTuple):
    """Loaded tables: data (uint8, every table end to end), offsets and layers (int64[N_SIGS],
    offset -1 for a signature not loaded), max_pieces (every signature up to it is present)."""

    data: np.ndarray
    offsets: np.ndarray
    layers: np.ndarray
    max_pieces: int


def default_dir() -> str:
    """Where the tables live by default: $BOARDGYM_EGDB, else $XDG_DATA_HOME/boardgym/egdb."""
    env = os.environ.get("BOARDGYM_EGDB")
    if env:
        return env
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(base, "boardgym", "egdb")


def _check_pieces(max_pieces):
    if isinstance(max_pieces, bool) or not isinstance(max_pieces, (int, np.integer)):
        raise TypeError(f"max_pieces must be an int, got {type(max_pieces).__name__}")
    if not 2 <= max_pieces <= MAX_PIECES:
        raise ValueError(f"max_pieces must be in 2..{MAX_PIECES}, got {max_pieces}")


def signatures(max_pieces: int) -> list[tuple[tuple[int, int, int, int], ...]]:
    """Signature groups in solving order: a list of tuples of one or two (a, b, c, d) (a
    signature and its colour mirror), by pieces, then men."""
    _check_pieces(max_pieces)
    groups = []
    for total in range(2, max_pieces + 1):
        for men in range(total + 1):
            seen = set()
            for a in range(men + 1):
                c = men - a
                for b in range(total - men + 1):
                    d = total - men - b
                    if a + b == 0 or c + d == 0 or a + b > 12 or c + d > 12:
                        continue
                    s = (a, b, c, d)
                    if s in seen:
                        continue
                    m = (c, d, a, b)
                    seen.update((s, m))
                    groups.append((s,) if m == s else (s, m))
    return groups


def table_path(directory: str | os.PathLike[str], sig: tuple[int, int, int, int]) -> str:
    """File of signature sig = (a, b, c, d) in directory."""
    return os.path.join(directory, "rd_{}{}{}{}.v1.npz".format(*sig))


def _entries(sig):
    return int(K.sig_layers(*sig)) * int(K.sig_size(*sig))


def _read(path, sig):
    try:
        with np.load(path, allow_pickle=False) as z:
            arr = z["codes"]
    except (OSError, KeyError, ValueError) as e:
        raise ValueError(f"{path} is not a table of signature {sig}: {e}") from None
    if arr.dtype != np.uint8 or arr.ndim != 1 or arr.shape[0] != _entries(sig):
        raise ValueError(
            f"{path} is not a table of signature {sig} (expected "
            f"{_entries(sig)} bytes, got {arr.dtype} {arr.shape})"
        )
    return arr


def _layout(max_pieces):
    offsets = np.full(K.N_SIGS, -1, dtype=np.int64)
    layers = np.ones(K.N_SIGS, dtype=np.int64)
    pos = 0
    starts = {}
    for group in signatures(max_pieces):
        for sig in group:
            starts[sig] = pos
            layers[K.sig_id(*sig)] = K.sig_layers(*sig)
            pos += _entries(sig)
    return starts, layers, pos, offsets


def build(
    max_pieces: int = 4,
    directory: str | os.PathLike[str] | None = None,
    store: bool = True,
    progress: Callable[[int, int], object] | None = None,
    log: Callable[[str], object] | None = None,
) -> Tables:
    """Solve (or load, when their files exist) every signature of 2..max_pieces pieces.

    directory: where the files are read and written (default_dir() if None); store=False keeps
    everything in memory (nothing read or written). progress(done_entries, total_entries) and
    log(str) are optional callbacks. Returns Tables.
    """
    _check_pieces(max_pieces)
    if store:
        directory = default_dir() if directory is None else os.fspath(directory)
        os.makedirs(directory, exist_ok=True)
    starts, layers, total, offsets = _layout(max_pieces)
    data = np.zeros(total, dtype=np.uint8)
    done = 0
    for group in signatures(max_pieces):
        n = sum(_entries(s) for s in group)
        paths = [table_path(directory, s) for s in group] if store else []
        if store and all(os.path.exists(p) for p in paths):
            for sig, path in zip(group, paths):
                data[starts[sig] : starts[sig] + _entries(sig)] = _read(path, sig)
            how = "loaded"
            t0 = t1 = 0.0
        else:
            t0 = time.perf_counter()
            codes = _solve_group(group, data, offsets, layers)
            t1 = time.perf_counter()
            pos = 0
            for sig in group:
                m = _entries(sig)
                part = codes[pos : pos + m]
                data[starts[sig] : starts[sig] + m] = part
                if store:
                    path = table_path(directory, sig)
                    tmp = path + ".tmp.npz"
                    np.savez_compressed(tmp, codes=part)
                    os.replace(tmp, path)
                pos += m
            how = "solved"
        for sig in group:
            offsets[K.sig_id(*sig)] = starts[sig]
        done += n
        if log is not None:
            names = " + ".join("{}{}{}{}".format(*s) for s in group)
            extra = f" in {t1 - t0:.1f} s" if how == "solved" else ""
            log(f"{names}: {n} entries {how}{extra}")
        if progress is not None:
            progress(done, total)
    return Tables(data, offsets, layers, max_pieces)


def _solve_group(group, data, offsets, layers):
    sigs = np.zeros((2, 4), dtype=np.int64)
    for t, sig in enumerate(group):
        sigs[t] = sig
    nt = len(group)
    n = sum(_entries(s) for s in group)
    dist = np.empty(n, dtype=np.int16)
    win = np.zeros(n, dtype=np.int8)
    cnt = np.zeros(n, dtype=np.int16)
    esc = np.zeros(n, dtype=np.int8)
    err = K.solve_init(sigs, nt, data, offsets, layers, dist, win, cnt, esc)
    if err != K.ERR_OK:
        raise RuntimeError(f"endgame build: a table needed by {group} is missing")
    lim = int(K.sig_limit(*group[0]))
    level = 0
    while level < lim:
        K.solve_level(sigs, nt, level, dist, win, cnt, esc)
        level += 1
        if level > 1 and not np.any(dist >= level):
            break
    codes = np.zeros(n, dtype=np.uint8)
    K.solve_codes(sigs, nt, dist, win, codes)
    return codes


def load(directory: str | os.PathLike[str] | None = None, max_pieces: int | None = None) -> Tables:
    """Tables from directory (default_dir() if None): every signature up to max_pieces (None:
    as many pieces as are complete). Raises FileNotFoundError when no complete set is there."""
    directory = default_dir() if directory is None else os.fspath(directory)
    if max_pieces is None:
        have = 1
        for p in range(2, MAX_PIECES + 1):
            if all(os.path.exists(table_path(directory, s)) for g in signatures(p) for s in g):
                have = p
            else:
                break
        if have < 2:
            raise FileNotFoundError(
                f"no endgame tables in {directory} (build them with `boardgym egdb build`)"
            )
        max_pieces = have
    _check_pieces(max_pieces)
    starts, layers, total, offsets = _layout(max_pieces)
    data = np.zeros(total, dtype=np.uint8)
    for group in signatures(max_pieces):
        for sig in group:
            path = table_path(directory, sig)
            if not os.path.exists(path):
                raise FileNotFoundError(
                    f"endgame table {path} is missing (build the tables "
                    f"with `boardgym egdb build --pieces {max_pieces}`)"
                )
            data[starts[sig] : starts[sig] + _entries(sig)] = _read(path, sig)
            offsets[K.sig_id(*sig)] = starts[sig]
    return Tables(data, offsets, layers, max_pieces)


def _check_tables(tables):
    """Tables whose arrays the kernels may index without bounds checks, else TypeError /
    ValueError naming the problem."""
    if not isinstance(tables, Tables):
        raise TypeError(
            f"tables must be egdb.Tables (from build or load), got {type(tables).__name__}"
        )
    data, offsets, layers = tables.data, tables.offsets, tables.layers
    for name, arr, dtype in (
        ("data", data, np.uint8),
        ("offsets", offsets, np.int64),
        ("layers", layers, np.int64),
    ):
        if (
            not isinstance(arr, np.ndarray)
            or arr.dtype != dtype
            or arr.ndim != 1
            or not arr.flags.c_contiguous
        ):
            raise TypeError(
                f"tables.{name} must be a 1-D contiguous {np.dtype(dtype).name} "
                "array (use build or load)"
            )
    if offsets.shape[0] != K.N_SIGS or layers.shape[0] != K.N_SIGS:
        raise ValueError(f"tables.offsets and tables.layers must have {K.N_SIGS} entries")
    for s in np.flatnonzero(offsets >= 0).tolist():
        a, b, c, d = s // 512, s // 64 % 8, s // 8 % 8, s % 8
        if (
            a + b + c + d > MAX_PIECES
            or a + b == 0
            or c + d == 0
            or layers[s] != K.sig_layers(a, b, c, d)
            or offsets[s] + _entries((a, b, c, d)) > data.shape[0]
        ):
            raise ValueError(
                f"tables: signature {a}{b}{c}{d} does not fit the data (use build or load)"
            )
    if np.any(offsets < -1):
        raise ValueError("tables.offsets must be -1 or an offset into tables.data")
    return tables


def probe_state(tables: Tables, state: np.ndarray) -> tuple[str, int | None]:
    """(result, t) for the side to move of a checked position vector: result 'win' / 'draw' /
    'loss' / 'unknown' (not in the tables, mid-capture, other draw rules), t the plies to the
    next conversion (None for a draw or unknown). The draw counters of the state apply."""
    _check_tables(tables)
    api.check_state(state)
    res, t = K.probe_state(tables.data, tables.offsets, tables.layers, state)
    return RESULT_NAMES[int(res)], (int(t) if res in (K.WIN, K.LOSS) else None)


def probe(tables: Tables, fen: str) -> tuple[str, int | None]:
    """(result, t) of a FEN (draw counters at zero), as probe_state."""
    return probe_state(tables, api.from_fen(fen))


def probe_moves(tables: Tables, state: np.ndarray) -> dict[str, tuple[str, int | None]]:
    """{PDN move: (result, t)} for every legal move of a checked whole-move position vector,
    each result from the view of the opponent (the side to move after it)."""
    _check_tables(tables)
    api.check_state(state)
    if state[S_CAP_SQ] >= 0:
        raise ValueError("probe_moves needs a position between moves, not one mid-capture")
    rows = np.zeros((MAX_MOVES, ROW_LEN), dtype=np.int64)
    children = np.zeros((MAX_MOVES, STATE_LEN), dtype=np.int64)
    res = np.zeros(MAX_MOVES, dtype=np.int64)
    t = np.zeros(MAX_MOVES, dtype=np.int64)
    n = K.probe_moves(tables.data, tables.offsets, tables.layers, state, rows, children, res, t)
    out = {}
    for i in range(n):  # naming the moves (Python strings) only
        r = int(res[i])
        out[api.move_to_str(state, rows[i])] = (
            RESULT_NAMES[r],
            int(t[i]) if r in (K.WIN, K.LOSS) else None,
        )
    return out


def sample_positions(
    tables: Tables,
    pieces: int,
    wins: int,
    draws: int,
    seed: int = 0,
    quiet: bool = True,
    min_t: int = 0,
    max_tries: int = 1_000_000,
) -> list[tuple[np.ndarray, str, int | None]]:
    """[(state, result, t)]: ``wins`` positions of exactly ``pieces`` pieces that the side to
    move wins ('win', t) and ``draws`` drawn ones ('draw', None), as probe_state answers them
    with the draw counters at zero, in the order found. Each try takes a signature of that many
    pieces at random (all alike), a random entry of it and a random side to move (the board
    turned for Black); quiet: only positions whose side to move has no capture; min_t: only
    wins at least that many plies from their conversion. Seeded by seed;
    ValueError if max_tries tries do not find them all."""
    _check_tables(tables)
    for name, v, low in (
        ("pieces", pieces, 2),
        ("wins", wins, 0),
        ("draws", draws, 0),
        ("min_t", min_t, 0),
    ):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise ValueError(f"{name} must be an integer of at least {low}, got {v!r}")
    if pieces > tables.max_pieces:
        raise ValueError(f"pieces: the tables go up to {tables.max_pieces} pieces, not {pieces}")
    sigs = [s for g in signatures(pieces) for s in g if sum(s) == pieces]
    rng = np.random.default_rng(seed)
    want = {"win": int(wins), "draw": int(draws)}
    out = []
    for _ in range(int(max_tries)):
        if not any(want.values()):
            return out
        sig = sigs[int(rng.integers(len(sigs)))]
        wm, wk, bm, bk, ok = K.unindex_bb(*sig, np.int64(rng.integers(K.sig_size(*sig))))
        side = int(rng.integers(2))
        if not ok:
            continue
        if side == 1:
            wm, wk, bm, bk = K.flip_bb(wm, wk, bm, bk)
        state = set_position(wm, wk, bm, bk, side, RULES_ALL)
        if game_status(state) != ONGOING or (quiet and is_capture(state)):
            continue
        res, t = probe_state(tables, state)
        if want.get(res, 0) > 0 and (res == "draw" or t >= min_t):
            want[res] -= 1
            out.append((state, res, t))
    if any(want.values()):
        raise ValueError(
            f"sample_positions: {max_tries} tries found too few positions (still wanted {want})"
        )
    return out


def empty_tables() -> Tables:
    """Tables with nothing loaded (every probe answers 'unknown'): what a search holds when no
    tables are present, so that it compiles one specialisation either way."""
    return Tables(
        np.zeros(0, dtype=np.uint8),
        np.full(K.N_SIGS, -1, dtype=np.int64),
        np.ones(K.N_SIGS, dtype=np.int64),
        0,
    )


_CACHE = {}


def load_cached(directory: str | os.PathLike[str] | None = None) -> Tables:
    """load(directory), kept in memory for the next call with the same directory (the tables
    are read once per process however many agents use them)."""
    key = os.path.realpath(default_dir() if directory is None else os.fspath(directory))
    if key not in _CACHE:
        _CACHE[key] = load(key)
    return _CACHE[key]


def tables_option(egdb: Tables | str | os.PathLike[str] | bool | None) -> Tables | None:
    """Tables for a search's ``egdb`` option, or None: None = the default directory's complete
    set if there is one, False = none, a directory (str / PathLike) = load it (FileNotFoundError
    if it holds none), Tables = themselves."""
    if egdb is None:
        try:
            return load_cached(None)
        except FileNotFoundError:
            return None
    if egdb is False:
        return None
    if isinstance(egdb, Tables):
        return _check_tables(egdb)
    if isinstance(egdb, (str, os.PathLike)):
        return load_cached(egdb)
    raise TypeError(
        f"egdb must be None, False, a directory or draughts_egdb.Tables, got {type(egdb).__name__}"
    )
