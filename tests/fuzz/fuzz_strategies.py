"""Hypothesis strategies of hostile inputs, each drawing an ``Arg`` (value, text, invalid reason).

Every argument kind is a ``Spec``: a strategy, a valid default (used for the other arguments
while one is swept) and a deterministic sweep (the extreme values every target must survive).
Validity is decided here by small independent checkers written from the rules' facts (the
``*_problem`` functions), never by the library under test: they only say "certainly invalid"
(the call must raise) or "" (the call may return or raise).

Valid material (positions, FENs, Position IDs, observations, snapshots) comes from pools built
once per worker by playing random legal games through the public API (``fuzz_targets.pools``).
"""

import math
import string

import numpy as np
from fuzz_contract import Arg, describe
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# the values swept through every field of every state (the ones the issue names first)
SWEEP_INTS = (2**62, -(2**62), -1, 99, -5, INT64_MAX, INT64_MIN, 2**31)
EXTREME_INTS = SWEEP_INTS + (
    0,
    1,
    2,
    3,
    4,
    6,
    7,
    12,
    13,
    15,
    16,
    25,
    26,
    31,
    32,
    35,
    36,
    64,
    1023,
    1024,
    2**32,
    -(2**31),
)
POOL_SIZE = 40


def pools():
    """The worker's pools of valid material (built on first use, through the public API)."""
    import fuzz_targets

    return fuzz_targets.pools()


class Spec:
    """An argument kind: ``strategy`` draws Args; ``default()`` a valid Arg; ``sweep()`` Args."""

    def __init__(self, strategy, default, sweep=None, name=""):
        self.strategy = strategy
        self.default = default
        self.sweep = sweep or (lambda: [])
        self.name = name


def optional(spec):
    """spec, with None also valid (a parameter whose default is None)."""

    def fix(a):
        return Arg(None, "None") if a.value is None else a

    return Spec(
        st.one_of(st.none().map(lambda _: Arg(None, "None")), spec.strategy.map(fix)),
        spec.default,
        lambda: [fix(a) for a in spec.sweep()],
        spec.name,
    )


def arg(value, invalid="", text=None):
    return Arg(value, describe(value) if text is None else text, invalid)


def from_pool(game, key, make):
    """Strategy of make(item, index) over pools()[game][key] (the pool is read at draw time)."""

    def pick(i):
        p = pools()[game][key]
        return make(p[i % len(p)], i % len(p))

    return st.integers(0, 2**16).map(pick)


# ------------------------------------------------------------------------------ generic junk


def _np_scalars():
    return st.sampled_from(
        [
            np.float64("nan"),
            np.float64(3.0),
            np.int32(3),
            np.uint64(2**63 + 5),
            np.bool_(True),
            np.int64(-1),
            np.float32("inf"),
            np.str_("3"),
        ]
    )


def junk_scalars():
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from(EXTREME_INTS),
        st.integers(min_value=2**63, max_value=2**200),
        st.floats(),
        st.text(max_size=20),
        st.binary(max_size=20),
        st.complex_numbers(),
        st.just(Ellipsis),
        st.just(object()),
        _np_scalars(),
    )


def junk_values():
    """None, numbers, strings, bytes, lists, dicts, tuples (nested), numpy scalars."""
    return st.recursive(
        junk_scalars(),
        lambda c: st.one_of(
            st.lists(c, max_size=6),
            st.tuples(c, c),
            st.dictionaries(st.text(max_size=4), c, max_size=3),
        ),
        max_leaves=10,
    )


_DTYPES = (
    "float64",
    "float32",
    "bool",
    "object",
    "int32",
    "uint64",
    "int8",
    "U4",
    "complex128",
    "int64",
    "uint8",
    "int16",
)


def _elements(dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return st.floats(allow_nan=True, allow_infinity=True, width=8 * dt.itemsize)
    if dt.kind == "c":
        return st.complex_numbers(allow_nan=True, allow_infinity=True, width=8 * dt.itemsize)
    if dt.kind == "b":
        return st.booleans()
    if dt.kind in "iu":
        info = np.iinfo(dt)
        ext = [v for v in EXTREME_INTS if info.min <= v <= info.max]
        return st.one_of(st.sampled_from(ext), st.integers(info.min, info.max))
    if (
        dt.kind == "U"
    ):  # NumPy drops NUL characters from str arrays (hypothesis then refuses the element)
        return st.text(st.characters(exclude_characters="\x00"), max_size=4)
    return junk_scalars()


@st.composite
def odd_arrays(draw, length):
    """An array of a wrong shape or dtype for a vector of ``length`` (or the right one)."""
    shape = draw(
        st.sampled_from(
            [
                (),
                (0,),
                (1,),
                (length - 1,),
                (length + 1,),
                (2, length),
                (length, 1),
                (1, length),
                (length,),
                (3, 2),
                (length, 2),
            ]
        )
    )
    dtype = draw(st.sampled_from(_DTYPES))
    return draw(hnp.arrays(np.dtype(dtype), shape, elements=_elements(dtype)))


# --------------------------------------------------------------------- vectors and their defects


def _int_vector(value, length):
    """(int64 vector, "") when value could be read as ``length`` integers; else (None, why not)."""
    if value is None or isinstance(
        value, (str, bytes, bool, int, float, complex, dict, np.generic)
    ):
        return None, f"a {type(value).__name__} is not a state"
    try:
        a = np.asarray(value)
    except Exception as e:  # noqa: BLE001 - ragged nesting etc.
        return None, f"not an array ({type(e).__name__})"
    if a.shape != (length,):
        return None, f"a state must have shape ({length},), got {a.shape}"
    kind = a.dtype.kind
    if kind == "O":
        if all(
            isinstance(x, (int, np.integer))
            and not isinstance(x, (bool, np.bool_))
            and INT64_MIN <= int(x) <= INT64_MAX
            for x in a
        ):
            return np.array([int(x) for x in a], np.int64), ""
        return None, "an object array is not a state"
    if kind in "bUSVcmM":
        return None, f"dtype {a.dtype} is not an integer state"
    if kind == "f":
        if not np.isfinite(a).all():
            return None, "NaN or inf in a state"
        if (a != np.round(a)).any():
            return None, "non-integral values in a state"
        if (np.abs(a) >= 2.0**63).any():
            return None, "values beyond int64 in a state"
        return a.astype(np.int64), ""
    if kind == "u" and (a > np.uint64(INT64_MAX)).any():
        return None, "values beyond int64 in a state"
    return a.astype(np.int64), ""


# draughts facts: dark square on row r (0 = White's side), file f, r + f even, is bit (9r + f) // 2
DARK_BITS = 0
for _r in range(8):
    for _f in range(8):
        if (_r + _f) % 2 == 0:
            DARK_BITS |= 1 << ((9 * _r + _f) // 2)


def draughts_problem(value, layout):
    """Why value is certainly not a draughts position vector, or ""."""
    a, why = _int_vector(value, layout["STATE_LEN"])
    if a is None:
        return why
    bbs = [int(a[layout[k]]) for k in ("S_WM", "S_WK", "S_BM", "S_BK")]
    for i, bb in enumerate(bbs):
        if bb < 0 or bb & ~DARK_BITS:
            return f"piece bitboard {i} has bits off the 32 dark squares"
    for i in range(4):
        for j in range(i + 1, 4):
            if bbs[i] & bbs[j]:
                return "two pieces on one square"
    if (bbs[0] | bbs[1]).bit_count() > 12 or (bbs[2] | bbs[3]).bit_count() > 12:
        return "more than 12 pieces on a side"
    side = int(a[layout["S_SIDE"]])
    if side not in (0, 1):
        return f"side to move {side} is not 0 or 1"
    cap = int(a[layout["S_CAP_SQ"]])
    if cap != -1:
        own = bbs[2 * side] | bbs[2 * side + 1]
        if not (0 <= cap < 36 and (own >> cap) & 1):
            return "capture square holds no piece of the side to move"
    return ""


def backgammon_problem(value, layout):
    """Why value is certainly not a backgammon position vector, or ""."""
    a, why = _int_vector(value, layout["STATE_LEN"])
    if a is None:
        return why
    me, opp = a[layout["ME"] : layout["ME"] + 24], a[layout["OPP"] : layout["OPP"] + 24]
    side_counts = (
        ("player on roll", me, a[layout["BAR_ME"]], a[layout["OFF_ME"]]),
        ("opponent", opp, a[layout["BAR_OPP"]], a[layout["OFF_OPP"]]),
    )
    for name, pts, bar, off in side_counts:
        if (pts < 0).any() or bar < 0 or off < 0:
            return f"negative checker count for the {name}"
        if (pts > 15).any() or bar > 15 or off > 15:
            return f"more than 15 checkers in one place for the {name}"
        total = int(pts.sum()) + int(bar) + int(off)
        if total != 15:
            return f"the {name} has {total} checkers, not 15"
    if ((me > 0) & (opp > 0)).any():
        return "both sides on one point"
    if a[layout["OFF_ME"]] == 15 and a[layout["OFF_OPP"]] == 15:
        return "both sides have borne off"
    turn = int(a[layout["TURN"]])
    if turn not in (0, 1):
        return f"turn {turn} is not 0 or 1"
    dice = a[layout["DICE"] : layout["DICE"] + 6]
    if (dice < 0).any() or (dice > 4).any():
        return "a dice count outside 0..4"
    nz = dice[dice > 0]
    if len(nz) > 2 or (len(nz) == 2 and (nz > 1).any()):
        return "dice that no roll leaves"
    cube = int(a[layout["CUBE_VALUE"]])
    if cube < 1 or cube & (cube - 1):
        return f"cube value {cube} is not a power of two"
    if int(a[layout["CUBE_OWNER"]]) not in (-1, 0, 1):
        return "cube owner is not -1, 0 or 1"
    return ""


PROBLEM = {"draughts": draughts_problem, "backgammon": backgammon_problem}


# --------------------------------------------------------------------------------- states


def state_arg(game, value, recipe=None):
    import fuzz_targets

    why = PROBLEM[game](value, fuzz_targets.layout(game))
    text = describe(value) if recipe is None else f"{recipe} = {describe(value)}"
    return Arg(value, text, why)


@st.composite
def _corrupted_state(draw, game):
    pool = pools()[game]["states"]
    i = draw(st.integers(0, len(pool) - 1))
    s = pool[i].copy()
    n = draw(st.integers(1, 3))
    changes = []
    for _ in range(n):
        f = draw(st.integers(0, len(s) - 1))
        v = draw(
            st.one_of(
                st.sampled_from(EXTREME_INTS),
                st.integers(INT64_MIN, INT64_MAX),
                st.integers(-3, 20),
                st.just(int(s[f]) + 1),
                st.just(int(s[f]) - 1),
            )
        )
        s[f] = v
        changes.append(f"[{f}]={v}")
    return state_arg(game, s, f"{game} pool state {i} with {', '.join(changes)}")


@st.composite
def _random_state(draw, game):
    import fuzz_targets

    n = fuzz_targets.layout(game)["STATE_LEN"]
    s = draw(
        hnp.arrays(
            np.int64, n, elements=st.one_of(st.sampled_from(EXTREME_INTS), st.integers(-2, 16))
        )
    )
    return state_arg(game, s, "random int64 vector")


@st.composite
def _odd_state(draw, game):
    import fuzz_targets

    n = fuzz_targets.layout(game)["STATE_LEN"]
    return state_arg(game, draw(odd_arrays(n)))


@st.composite
def _recast_state(draw, game):
    """A valid state in another container or dtype (list, 2-D, float, int32, uint64 ...)."""
    pool = pools()[game]["states"]
    i = draw(st.integers(0, len(pool) - 1))
    s = pool[i]
    how = draw(
        st.sampled_from(
            [
                "list",
                "tuple",
                "2d",
                "col",
                "float64",
                "float32",
                "int32",
                "uint64",
                "object",
                "bool",
                "str",
                "nan",
                "inf",
                "frac",
                "noncontig",
                "readonly",
                "bigendian",
                "short",
                "long",
                "cut",
                "cut",
                "stack",
            ]
        )
    )
    if how == "list":
        v = s.tolist()
    elif how == "tuple":
        v = tuple(s.tolist())
    elif how == "2d":
        v = s[None, :].copy()
    elif how == "col":
        v = s[:, None].copy()
    elif how == "nan":
        v = s.astype(np.float64)
        v[draw(st.integers(0, len(s) - 1))] = np.nan
    elif how == "inf":
        v = s.astype(np.float64)
        v[draw(st.integers(0, len(s) - 1))] = -np.inf
    elif how == "frac":
        v = s.astype(np.float64)
        v[draw(st.integers(0, len(s) - 1))] += 0.5
    elif how == "noncontig":
        v = np.repeat(s, 2)[::2]
    elif how == "readonly":
        v = s.copy()
        v.flags.writeable = False
    elif how == "bigendian":
        v = s.astype(">i8")
    elif how == "short":
        v = s[:-1].copy()
    elif how == "long":
        v = np.append(s, 0)
    elif how == "cut":
        k = draw(st.integers(1, len(s) - 1))
        v = s[:k].copy()
        how = f"cut to [:{k}]"
    elif how == "stack":
        v = np.stack([s, s])
    elif how == "str":
        v = s.astype(str)
    else:
        v = s.astype(how)
    return state_arg(game, v, f"{game} pool state {i} as {how}")


def _valid_state(game):
    return from_pool(
        game, "states", lambda s, i: state_arg(game, s.copy(), f"{game} pool state {i}")
    )


def _state_sweep(game):
    """Every field of a busy valid state set to each extreme value, then wrong shapes/types."""
    import fuzz_targets

    pool = pools()[game]["states"]
    i = pools()[game]["busy"]
    base = pool[i]
    out = []
    for f in range(len(base)):
        for v in SWEEP_INTS:
            s = base.copy()
            s[f] = v
            out.append(state_arg(game, s, f"{game} pool state {i} with [{f}]={v}"))
    n = fuzz_targets.layout(game)["STATE_LEN"]
    for k in sorted({1, 2, 10, 24, 30, 48, 52, 58, 60, n // 2, n - 1}):  # cut short: kernels
        if k < n:  # read/write past the end
            out.append(state_arg(game, base[:k].copy(), f"{game} pool state {i}[:{k}]"))
    for extra in (1, 15):
        out.append(
            state_arg(
                game,
                np.append(base, np.zeros(extra, np.int64)),
                f"{game} pool state {i} + {extra} zeros",
            )
        )
    for v in (
        None,
        0,
        "",
        "x",
        b"\x00" * 8,
        [],
        {},
        (),
        [0] * n,
        [[0] * n],
        np.zeros(()),
        np.zeros(0, np.int64),
        np.zeros(n - 1, np.int64),
        np.zeros(n + 1, np.int64),
        np.zeros((2, n), np.int64),
        base[None, :].copy(),
        base.astype(np.float64),
        np.full(n, np.nan),
        base.astype(bool),
        base.astype(object),
        base.astype(np.int32),
        base.astype(np.uint64),
        base.astype(str),
        np.zeros(n, np.int64),
        np.full(n, -1, np.int64),
        np.full(n, 2**62, np.int64),
        np.full(n, 99, np.int64),
    ):
        out.append(state_arg(game, v))
    return out


def states(game):
    """Spec of a position vector of game: valid, corrupted, random, odd shapes/dtypes, junk."""
    strat = st.one_of(
        _valid_state(game),
        _corrupted_state(game),
        _corrupted_state(game),
        _random_state(game),
        _odd_state(game),
        _recast_state(game),
        junk_values().map(lambda v: state_arg(game, v)),
    )
    return Spec(
        strat,
        lambda: state_arg(game, pools()[game]["states"][0].copy(), f"{game} pool state 0"),
        lambda: _state_sweep(game),
        f"{game} state",
    )


@st.composite
def _batches(draw, game):
    """(B, STATE_LEN) batches of pool states, one row corrupted, or odd shapes."""
    import fuzz_targets

    pool = pools()[game]["states"]
    n = fuzz_targets.layout(game)["STATE_LEN"]
    kind = draw(st.sampled_from(["valid", "row", "odd", "junk", "3d", "empty", "float"]))
    if kind == "odd":
        return Arg(*(lambda v: (v, describe(v)))(draw(odd_arrays(n))))
    if kind == "junk":
        v = draw(junk_values())
        return Arg(v, describe(v), "not a batch of states")
    rows = draw(st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=4))
    b = np.stack([pool[i] for i in rows])
    if kind == "3d":
        return Arg(b[None], describe(b[None]), "a batch must be 2-D")
    if kind == "empty":
        e = np.zeros((0, n), np.int64)
        return Arg(e, describe(e))
    if kind == "float":
        return Arg(b.astype(np.float64), describe(b.astype(np.float64)))
    if kind == "row":
        r = draw(st.integers(0, len(rows) - 1))
        f = draw(st.integers(0, n - 1))
        v = draw(st.sampled_from(EXTREME_INTS))
        b[r, f] = v
        why = PROBLEM[game](b[r], fuzz_targets.layout(game))
        return Arg(b, f"pool rows {rows} with [{r}, {f}]={v}", f"row {r}: {why}" if why else "")
    return Arg(b, f"pool rows {rows}")


def batches(game):
    return Spec(
        _batches(game),
        lambda: Arg(np.stack(pools()[game]["states"][:3]), "pool rows [0, 1, 2]"),
        name=f"{game} batch",
    )


# --------------------------------------------------------------------------- integers, dice


def _int_arg(value, lo, hi, what):
    """Arg of an integer parameter valid in lo..hi (inclusive; None = unbounded)."""
    if isinstance(value, (bool, np.bool_)):
        return arg(value)  # bool is an int: may be accepted
    if isinstance(value, (int, np.integer)):
        v = int(value)
        bad = (lo is not None and v < lo) or (hi is not None and v > hi)
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        return arg(value, f"{what} {v} outside {rng}" if bad else "")
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value) or value != int(value):
            return arg(value, f"{what} {value!r} is not an integer")
        return arg(value)  # an integral float: may be accepted
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
        return _int_arg(value.item(), lo, hi, what)
    if isinstance(value, np.ndarray):
        return arg(value, f"{what} must be one integer, got an array" if value.size != 1 else "")
    return arg(value, f"{what} must be an integer, got {type(value).__name__}")


def ints(lo, hi, what, valid=None, sweep_extra=(), sweep_drop=(), wild=None, optional=False):
    """Spec of an integer parameter valid in lo..hi. sweep_drop: sweep values to leave out and
    wild: the strategy of out-of-the-way integers (for a perft depth, 99 is a real, endless
    computation rather than bad input). optional: None is a valid value too."""
    valid = valid if valid is not None else st.integers(lo, hi if hi is not None else lo + 10)
    wild = (
        wild
        if wild is not None
        else st.one_of(st.sampled_from(EXTREME_INTS), st.integers(INT64_MIN, INT64_MAX))
    )
    strat = st.one_of(
        valid,
        valid,
        wild,
        st.integers(min_value=2**64, max_value=2**100),
        st.sampled_from(
            [
                3.0,
                3.5,
                float("nan"),
                float("inf"),
                -0.0,
                True,
                False,
                "3",
                "x",
                None,
                b"3",
                [3],
                (3,),
                np.int32(3),
                np.uint64(3),
                np.float64(2.0),
                np.array(3),
                np.array([3]),
                np.array([1, 2]),
                1j,
                {},
            ]
        ),
    ).map(lambda v: arg(None) if v is None and optional else _int_arg(v, lo, hi, what))
    default = lo if lo is not None else 0
    sweep_vals = (
        default,
        lo - 1 if lo is not None else -1,
        2**62,
        -(2**62),
        -1,
        99,
        -5,
        3.0,
        3.5,
        float("nan"),
        True,
        "3",
        None,
        np.array([1, 2]),
        2**70,
    ) + tuple(sweep_extra)
    sweep_vals = tuple(
        v
        for v in sweep_vals
        if not any(v is d or (type(v) is type(d) and v == d) for d in sweep_drop)
    )
    return Spec(
        strat,
        lambda: _int_arg(default, lo, hi, what),
        lambda: [
            arg(None) if v is None and optional else _int_arg(v, lo, hi, what) for v in sweep_vals
        ],
        what,
    )


def dice_problem(v):
    """Why v is certainly not a die, or ""."""
    if isinstance(v, (bool, np.bool_)):
        return "a bool is not a die"
    return _int_arg(v, 1, 6, "die").invalid


def dice():
    """Spec of one die: valid 1..6; the issue's hostile dice 0, 7, -1, 3.0, True, '3', None."""

    def die_arg(v):
        return arg(v, dice_problem(v))

    vals = (
        3,
        0,
        7,
        -1,
        3.0,
        True,
        "3",
        None,
        2**62,
        -(2**62),
        3.5,
        float("nan"),
        np.int64(5),
        np.float64(2.0),
        np.array(4),
        [3],
        6,
        1,
    )
    strat = st.one_of(
        st.integers(1, 6),
        st.integers(1, 6),
        st.sampled_from(vals),
        st.integers(INT64_MIN, INT64_MAX),
        junk_scalars(),
    ).map(die_arg)
    return Spec(strat, lambda: die_arg(3), lambda: [die_arg(v) for v in vals], "die")


# ------------------------------------------------------------------------------- draughts text


def _sq32_to_pdn(s):
    r, c = s // 4, s % 4
    return (7 - r) * 4 + c + 1


_ALG = {}
for _s in range(32):
    _r, _f = _s // 4, 2 * (_s % 4) + (_s // 4) % 2
    _ALG["abcdefgh"[_f] + str(_r + 1)] = _s
_GOOD_SQ = [(str(n), n) for n in range(1, 33)] + [(a, _sq32_to_pdn(s)) for a, s in _ALG.items()]
_BAD_SQ = [
    "0",
    "33",
    "99",
    "-1",
    "a2",
    "b1",
    "h1",
    "i1",
    "a9",
    "a0",
    "z",
    "1e3",
    "K",
    "99999999999999999999999",
    "3.0",
    "0x1f",
    "++",
    "a",
    "22a",
    "c3c3",
]
_ODD_SQ = [
    "\u0662\u0662",
    "\uff12\uff12",
    "\U0001d7d0\U0001d7d0",
    "C3",
    " 22 ",
    "\u00bd",
    "22\u0301",
    "\u2167",
]  # digits of other scripts: int() reads some of them


def _pdn_row(n):
    return 7 - (n - 1) // 4  # 0 = White's side (rank 1)


@st.composite
def _fen_piece(draw, colour, state):
    kind = draw(st.sampled_from(["good"] * 6 + ["king"] * 2 + ["range", "badrange", "bad", "odd"]))
    if kind in ("good", "king"):
        tok, n = draw(st.sampled_from(_GOOD_SQ))
        king = kind == "king"
        state["squares"].append((n, king, colour))
        return ("K" if king else "") + tok
    if kind == "range":
        lo = draw(st.integers(1, 32))
        hi = draw(st.integers(lo, min(32, lo + 4)))
        king = draw(st.booleans())
        for n in range(lo, hi + 1):
            state["squares"].append((n, king, colour))
        return ("K" if king else "") + f"{lo}-{hi}"
    if kind == "badrange":
        state["invalid"].append("bad square range")
        return draw(st.sampled_from(["5-3", "0-4", "30-40", "1-99999999999999999999", "-", "3-"]))
    if kind == "bad":
        state["invalid"].append("unknown square")
        return draw(st.sampled_from(_BAD_SQ))
    state["unknown"] = True
    return draw(st.sampled_from(_ODD_SQ))


@st.composite
def _grammar_fen(draw):
    state = {"squares": [], "invalid": [], "unknown": False}
    side = draw(st.sampled_from(["W", "B", "w", "b", "W", "B", "X", "", "WB", "0", "\u0174"]))
    if side.upper() not in ("W", "B"):
        state["invalid"].append("side to move")
    colours = draw(
        st.sampled_from(
            [("W", "B"), ("B", "W"), ("W", "B"), ("W", "W"), ("B",), ("W", "B", "W"), ("w", "b")]
        )
    )
    if sorted(c.upper() for c in colours) != ["B", "W"]:
        state["invalid"].append("colours")
    parts = [side]
    for c in colours:
        items = draw(
            st.lists(_fen_piece(c.upper(), state), max_size=draw(st.sampled_from([4, 13])))
        )
        parts.append(c + ",".join(items))
    text = ":".join(parts)
    seen = {}
    for n, king, colour in state["squares"]:
        if n in seen:
            state["invalid"].append("square given twice")
        seen[n] = colour
        if not king and (
            (colour == "W" and _pdn_row(n) == 7) or (colour == "B" and _pdn_row(n) == 0)
        ):
            state["invalid"].append("man on its promotion row")
    for colour in "WB":
        if sum(1 for n, k, c in state["squares"] if c == colour) > 12:
            state["invalid"].append("more than 12 pieces")
    wrap = draw(st.sampled_from(["", "", '[FEN "{}"]', '"{}"', "{}.", " {} ", "[{}]"]))
    if wrap:
        text = wrap.format(text)
    why = state["invalid"][0] if state["invalid"] else ""
    return Arg(text, repr(text), why)


def _fen_text_arg(text):
    return Arg(text, repr(text), "")


def fens():
    """Spec of a draughts FEN: grammar-built (valid or with one bad part), pool FENs mutated,
    random text, unicode, huge numbers, non-strings."""

    def pool_fen():
        return from_pool("draughts", "fens", lambda f, i: Arg(f, repr(f)))

    @st.composite
    def mutated(draw):
        p = pools()["draughts"]["fens"]
        t = p[draw(st.integers(0, len(p) - 1))]
        k = draw(st.integers(0, len(t)))
        ins = draw(
            st.sampled_from(
                [":", ",", "K", "-", "99", "W", "\u0000", "\U0001f600", "9" * 30, "", " "]
            )
        )
        cut = draw(st.integers(0, 3))
        return _fen_text_arg(t[:k] + ins + t[k + cut :])

    nonstr = (
        junk_values()
        .filter(lambda v: not isinstance(v, str))
        .map(lambda v: arg(v, "a FEN must be a string"))
    )
    strat = st.one_of(
        pool_fen(),
        _grammar_fen(),
        _grammar_fen(),
        mutated(),
        st.text(max_size=40).map(_fen_text_arg),
        st.text(alphabet='WBK:,-0123456789abcdefgh x[]"', max_size=60).map(_fen_text_arg),
        nonstr,
    )
    sweep = [
        "W:W21,22:B1",
        "",
        "W",
        "W:W:B",
        "X:W1:B2",
        "W:W1,1:B2",
        "W:W1-32:B1",
        "W:Wa2:B1",
        "W:W99999999999999999999999:B1",
        "W:W1-99999999999999999999:B5",
        "\u0000",
        "W:W\u0662\u0662:B1",
        "B:B:W",
        "W:W:B:",
        "W:WK:B1",
        "W:W,:B1",
        '[FEN "W:W21:B1"]',
        "W:" + ",".join(str(n) for n in range(1, 33)) + ":B",
    ]
    return Spec(
        strat,
        lambda: Arg(pools()["draughts"]["fens"][0], repr(pools()["draughts"]["fens"][0])),
        lambda: (
            [_fen_text_arg(t) for t in sweep]
            + [arg(v, "a FEN must be a string") for v in (None, 0, b"W:W21:B1", ["W"])]
        ),
        "FEN",
    )


def fens_or_states(game="draughts"):
    f, s = fens(), states(game)
    return Spec(
        st.one_of(f.strategy, s.strategy), s.default, lambda: s.sweep() + f.sweep(), "FEN or state"
    )


@st.composite
def _move_text(draw):
    n = draw(st.integers(1, 5))
    sqs = draw(
        st.lists(
            st.one_of(
                st.sampled_from([t for t, _ in _GOOD_SQ]), st.sampled_from(_BAD_SQ + _ODD_SQ)
            ),
            min_size=n,
            max_size=n,
        )
    )
    seps = draw(
        st.lists(
            st.sampled_from(["-", ":", "x", " - ", "X", "/", "--", "\u2013"]),
            min_size=n,
            max_size=n,
        )
    )
    text = "".join(s + (seps[i] if i < n - 1 else "") for i, s in enumerate(sqs))
    why = ""
    if n == 1:
        why = "a move needs two squares"
    elif any(s in _BAD_SQ for s in sqs):
        why = "unknown square in the move"
    return Arg(text, repr(text), why)


def moves(one_hop=False):
    """Spec of a draughts move string (or, one_hop, an action string of exactly two squares)."""

    def pool_move():
        return from_pool("draughts", "moves", lambda m, i: Arg(m, repr(m)))

    def hop_check(a):
        if one_hop and not a.invalid and isinstance(a.value, str):
            parts = [t for t in __import__("re").split(r"\s*[-:x]\s*", a.value.strip().lower())]
            if len(parts) != 2 and all(t in _ALG or t.isdigit() for t in parts):
                return Arg(a.value, a.text, "an action is one hop, two squares")
        return a

    nonstr = (
        junk_values()
        .filter(lambda v: not isinstance(v, str))
        .map(lambda v: arg(v, "a move must be a string"))
    )
    strat = st.one_of(
        pool_move(),
        _move_text(),
        _move_text(),
        st.text(max_size=30).map(_fen_text_arg),
        st.sampled_from(
            [
                "9" * 40 + "-1",
                "1-" + "9" * 40,
                "22-18-15-11-8-4-1" * 5,
                "c3-d4" * 50,
                "\U0001f600-c3",
            ]
        ).map(_fen_text_arg),
        nonstr,
    ).map(hop_check)
    default = "c3-d4"
    sweep = [
        "c3-d4",
        "22-18",
        "c3",
        "",
        "-",
        "c3-",
        "a2-b3",
        "33-29",
        "c3:e5:g3:e1:c3:a1:c3",
        "9" * 40 + "-22",
        "c3-d4 extra",
        "\u0662\u0662-\u0661\u0668",
    ]
    return Spec(
        strat,
        lambda: Arg(default, repr(default)),
        lambda: (
            [hop_check(_fen_text_arg(t)) for t in sweep]
            + [arg(v, "a move must be a string") for v in (None, 22, b"c3-d4", ["c3", "d4"])]
        ),
        "move",
    )


def square_tokens():
    def tok_arg(t):
        if not isinstance(t, str):
            return arg(t, "a square must be a string")
        if t.strip().lower() in _ALG or (
            t.strip().isascii() and t.strip().isdigit() and 1 <= int(t.strip()) <= 32
        ):
            return Arg(t, repr(t))
        if t in _BAD_SQ:
            return Arg(t, repr(t), "unknown square")
        return Arg(t, repr(t))

    strat = st.one_of(
        st.sampled_from([t for t, _ in _GOOD_SQ] + _BAD_SQ + _ODD_SQ),
        st.text(max_size=6),
        junk_values(),
    ).map(tok_arg)
    return Spec(
        strat,
        lambda: tok_arg("c3"),
        lambda: [tok_arg(t) for t in _BAD_SQ + _ODD_SQ + [None, 22, b"c3", 3.0]],
        "square",
    )


# ---------------------------------------------------------------------------- backgammon text


def _b64_arg(text, n):
    if not isinstance(text, str):
        return arg(text, "an ID must be a string")
    alphabet = set(string.ascii_letters + string.digits + "+/")
    if len(text) != n:
        return Arg(text, repr(text), f"an ID of {n} characters, got {len(text)}")
    if set(text) - alphabet:
        return Arg(text, repr(text), "characters outside base64")
    return Arg(text, repr(text))


def b64_ids(n, pool_key, what):
    """Spec of a gnubg Position ID (n=14) or Match ID (n=12)."""
    alphabet = string.ascii_letters + string.digits + "+/"

    def pool_ids():
        return from_pool("backgammon", pool_key, lambda t, i: Arg(t, repr(t)))

    @st.composite
    def mutated(draw):
        p = pools()["backgammon"][pool_key]
        t = p[draw(st.integers(0, len(p) - 1))]
        k = draw(st.integers(0, len(t) - 1))
        how = draw(st.sampled_from(["swap", "cut", "add", "pad", "lower", "unicode"]))
        if how == "swap":
            t = t[:k] + draw(st.sampled_from(alphabet)) + t[k + 1 :]
        elif how == "cut":
            t = t[:k]
        elif how == "add":
            t = t + draw(st.sampled_from(alphabet + "="))
        elif how == "pad":
            t = t + "=="
        elif how == "lower":
            t = t.lower()
        else:
            t = t[:k] + "\u00e9" + t[k + 1 :]
        return _b64_arg(t, n)

    strat = st.one_of(
        pool_ids(),
        mutated(),
        mutated(),
        st.text(alphabet=alphabet, min_size=n, max_size=n).map(lambda t: _b64_arg(t, n)),
        st.text(max_size=20).map(lambda t: _b64_arg(t, n)),
        junk_values().map(lambda v: _b64_arg(v, n)),
    )
    sweep = [
        "/" * n,
        "A" * n,
        "+" * n,
        "",
        "A" * (n - 1),
        "A" * (n + 1),
        "=" * n,
        "\u00e9" * n,
        "4HPwATDgc/ABMA",
        "MAEAAAAAAAAA",
        None,
        0,
        b"4HPwATDgc/ABMA",
    ]
    return Spec(
        strat,
        lambda: Arg(pools()["backgammon"][pool_key][0], repr(pools()["backgammon"][pool_key][0])),
        lambda: [_b64_arg(t, n) for t in sweep],
        what,
    )


_PT = ["bar", "off", "25", "0", "24", "13", "8", "6", "5", "3", "1", "18", "22", "20", "11"]
_BAD_PT = ["26", "99", "-1", "123456789012345678901234567890", "x", ""]


@st.composite
def _play_text(draw):
    n = draw(st.integers(0, 4))
    toks, why = [], ""
    for _ in range(n):
        k = draw(st.integers(2, 4))
        pts = draw(
            st.lists(
                st.one_of(st.sampled_from(_PT), st.sampled_from(_BAD_PT)), min_size=k, max_size=k
            )
        )
        if any(p in _BAD_PT for p in pts):
            why = "point out of range or malformed"
        stars = [p + ("*" if draw(st.integers(0, 5)) == 0 else "") for p in pts]
        tok = "/".join(stars)
        rep = draw(st.sampled_from(["", "", "", "(2)", "(3)", "(4)", "(0)", "(9)", "(99)"]))
        toks.append(tok + rep)
    sep = draw(st.sampled_from([" ", " ", "  ", ",", "\t"]))
    text = sep.join(toks)
    return Arg(text, repr(text), why)


def play_texts():
    def pool_play():
        return from_pool("backgammon", "plays", lambda p, i: Arg(p[3], repr(p[3])))

    nonstr = (
        junk_values()
        .filter(lambda v: not isinstance(v, str))
        .map(lambda v: arg(v, "play text must be a string"))
    )
    strat = st.one_of(
        pool_play(),
        _play_text(),
        _play_text(),
        st.text(max_size=30).map(_fen_text_arg),
        st.sampled_from(
            [
                "pass",
                "-",
                "\u2014",
                "",
                "24/18 13/11",
                "8/5(2) 6/5(2)",
                "bar/22*",
                "6/off",
                "25/0",
                "99/1",
                "1" * 40 + "/1",
            ]
        ).map(_fen_text_arg),
        nonstr,
    )
    sweep = [
        "24/18 13/11",
        "",
        "pass",
        "99/1",
        "25/26",
        "off/bar",
        "24/18(99)",
        "123456789012345678901234567890/1",
        "bar/22*/off",
        "\U0001f600",
        "24/18 " * 30,
    ]
    return Spec(
        strat,
        lambda: Arg("8/5 6/5", "'8/5 6/5'"),
        lambda: (
            [_fen_text_arg(t) for t in sweep]
            + [arg(v, "play text must be a string") for v in (None, 5, b"24/18")]
        ),
        "play text",
    )


def plays():
    """Spec of play_to_str's ``play``: an afterstate array or a sequence of (from, to) moves."""
    st_spec = states("backgammon")

    def pairs_arg(v):
        try:
            pairs = [(f, t) for f, t in v]
        except Exception:  # noqa: BLE001
            return arg(v, "not a sequence of (from, to) pairs")
        bad = [
            p
            for p in pairs
            for x in p
            if not isinstance(x, (int, np.integer)) or isinstance(x, bool) or not 0 <= x <= 25
        ]
        return arg(v, "a move point outside 0..25" if bad else "")

    def pool_after():
        return from_pool(
            "backgammon",
            "plays",
            lambda p, i: state_arg("backgammon", p[4].copy(), f"afterstate of play {i}"),
        )

    moves_ = st.lists(
        st.tuples(
            st.one_of(st.integers(-2, 27), st.sampled_from(EXTREME_INTS)),
            st.one_of(st.integers(-2, 27), st.sampled_from(EXTREME_INTS)),
        ),
        max_size=5,
    ).map(pairs_arg)
    strat = st.one_of(pool_after(), st_spec.strategy, moves_, junk_values().map(pairs_arg))
    return Spec(
        strat,
        lambda: arg([(8, 5), (6, 5)]),
        lambda: (
            st_spec.sweep()
            + [pairs_arg(v) for v in ([(99, 1)], [(1,)], "ab", None, [(24, 18, 1)], [(2**62, 1)])]
        ),
        "play",
    )


@st.composite
def _boards(draw):
    """gnubg boards [opponent 25, mover 25]: from pool states, corrupted, odd shapes."""
    import fuzz_targets

    lay = fuzz_targets.layout("backgammon")
    pool = pools()["backgammon"]["states"]
    i = draw(st.integers(0, len(pool) - 1))
    s = pool[i]
    mover = [int(s[lay["ME"] + k]) for k in range(24)] + [int(s[lay["BAR_ME"]])]
    opp = [int(s[lay["OPP"] + 23 - k]) for k in range(24)] + [int(s[lay["BAR_OPP"]])]
    kind = draw(
        st.sampled_from(
            ["valid", "corrupt", "corrupt", "array", "float", "odd", "junk", "short", "three"]
        )
    )
    board = [opp, mover]
    if kind == "corrupt":
        side = draw(st.integers(0, 1))
        k = draw(st.integers(0, 24))
        board[side][k] = draw(st.sampled_from(EXTREME_INTS))
    elif kind == "array":
        board = np.array(
            board, dtype=draw(st.sampled_from(["int64", "int32", "uint64", "float64"]))
        )
    elif kind == "float":
        board = [[float(x) + draw(st.sampled_from([0.0, 0.5])) for x in side] for side in board]
    elif kind == "odd":
        v = draw(odd_arrays(25))
        return arg(v, "" if v.shape == (2, 25) else "a board is two lists of 25")
    elif kind == "junk":
        v = draw(junk_values())
        return arg(v, "a board is two lists of 25")
    elif kind == "short":
        board = [opp[:-1], mover]
        return arg(board, "a board is two lists of 25")
    elif kind == "three":
        return arg([opp, mover, mover], "a board is two lists of 25")
    return arg(board, _board_problem(board))


def _board_problem(board):
    try:
        a = np.asarray(board)
    except Exception:  # noqa: BLE001
        return "not a board"
    if a.shape != (2, 25):
        return "a board is two lists of 25"
    if a.dtype.kind == "f" and (~np.isfinite(a) | (a != np.round(a))).any():
        return "non-integral checker counts"
    if a.dtype.kind not in "iuf":
        return ""
    if (a < 0).any():
        return "negative checker count"
    if (a.sum(axis=1) > 15).any():
        return "more than 15 checkers on the board for a side"
    opp, mover = a[0], a[1]
    for p in range(24):
        if mover[p] > 0 and opp[23 - p] > 0:
            return "both sides on one point"
    if a.sum() == 0:
        return "both sides have borne off"
    return ""


def boards():
    return Spec(
        _boards(),
        lambda: arg(
            [[0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]] * 2
        ),
        name="board",
    )


# ------------------------------------------------------------------------------ observations


@st.composite
def _observations(draw, game):
    """(observation, mask) pairs: pool pairs, then corrupted observation or mask or both."""
    pool = pools()[game]["observations"]
    i = draw(st.integers(0, len(pool) - 1))
    obs, mask = pool[i][0].copy(), pool[i][1].copy()
    what = draw(
        st.sampled_from(
            [
                "valid",
                "valid",
                "obs_odd",
                "obs_nan",
                "obs_neg",
                "obs_rand",
                "obs_junk",
                "mask_odd",
                "mask_zero",
                "mask_junk",
                "mask_other",
                "mask_ones",
                "both_junk",
            ]
        )
    )
    obs_why = mask_why = ""
    if what == "obs_odd":
        obs = draw(odd_arrays(len(pool[i][0])))
        obs_why = "" if obs.shape == pool[i][0].shape else "observation of the wrong shape"
    elif what == "obs_nan":
        obs[draw(st.integers(0, len(obs) - 1))] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
        obs_why = "NaN/inf in the observation"
    elif what == "obs_neg":
        obs[draw(st.integers(0, len(obs) - 1))] = draw(st.sampled_from([-1.0, -1e30, 1e30, 99.0]))
    elif what == "obs_rand":
        obs = draw(hnp.arrays(np.float32, obs.shape, elements=st.floats(-2, 10, width=32)))
    elif what == "obs_junk":
        obs = draw(junk_values())
        obs_why = "the observation is not an array"
    elif what == "mask_odd":
        mask = draw(odd_arrays(len(pool[i][1])))
        mask_why = "" if mask.shape == pool[i][1].shape else "mask of the wrong shape"
    elif what == "mask_zero":
        mask[:] = 0
        mask_why = "the mask allows no action"
    elif what == "mask_junk":
        mask = draw(junk_values())
        mask_why = "" if mask is None else "the mask is not an array"  # None: draughts agents
        # take no mask
    elif what == "mask_other":
        mask = pool[(i + 1) % len(pool)][1].copy()
    elif what == "mask_ones":
        mask[:] = 1
    elif what == "both_junk":
        obs, mask = draw(junk_values()), draw(junk_values())
        obs_why = "the observation is not an array"
    return (Arg(obs, describe(obs), obs_why), Arg(mask, describe(mask), mask_why))


def observations(game, check_obs=True):
    """Spec of an (observation, mask) pair, spread into act's two arguments. check_obs=False: the
    agent ignores the observation (RandomAgent), so a bad one need not be rejected."""

    def default():
        o, m = pools()[game]["observations"][0]
        return (Arg(o.copy(), "pool observation 0"), Arg(m.copy(), "pool mask 0"))

    def strip(pair):
        o, m = pair
        return (Arg(o.value, o.text), m)

    strat = _observations(game) if check_obs else _observations(game).map(strip)
    return Spec(strat, default, name=f"{game} observation")
