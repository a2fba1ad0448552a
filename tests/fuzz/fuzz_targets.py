"""The fuzz table: every public entry point, how to reach it and what to feed it.

THIS IS THE FILE TO UPDATE when public names change:
- ``MODULES``: where each API lives (the first importable candidate wins: a module whose
  contents may sit in either of two places lists both).
- ``API``: per module, every public function -> ``fn(positional specs..., keyword=spec)``.
  ``test_fuzz_coverage.py`` fails when a public function of a module has no entry here (add one;
  a function that takes nothing is ``fn()``). Entries for names a module does not define (yet)
  are skipped, so the table may list a function before it exists.
- ``AGENT_KWARGS`` / ``AGENTS_EXCLUDED`` / ``AGENT_METHODS``: the registered agents and their
  engine queries (``test_fuzz_coverage.py`` fails when ``boardgym.agents.available()`` lists an
  agent that is neither fuzzed nor excluded with a reason, or when AGENT_KWARGS names one that
  is gone).
- ``_env_targets``: the AEC, Gymnasium single-agent and vector envs and the batched cores (class
  names, constructor keywords, reset options), driven by the episode drivers below.
- ``_LAYOUT_NAMES``: the state-layout constants the validity checkers read.

Each group of targets runs in one worker subprocess (fuzz_worker.py, started by fuzz_runner.py);
test_fuzz_api.py says how the whole fuzz works.
"""

import functools
import importlib
from dataclasses import dataclass, field

import fuzz_strategies as S
import numpy as np
from fuzz_contract import AcceptedInvalid, Arg, describe
from hypothesis import strategies as st

# ----------------------------------------------------------------------------- where things live

MODULES = {
    "draughts": ("boardgym.envs.draughts",),
    "backgammon": ("boardgym.envs.backgammon_notation",),
    "draughts_pdn": ("boardgym.envs.draughts_pdn",),
    "backgammon_match": ("boardgym.envs.backgammon_match",),
    "records": ("boardgym.envs.records",),
    "draughts_aec": ("boardgym.envs.russian_draughts_v0",),
    "backgammon_aec": ("boardgym.envs.backgammon_v0",),
    "single_agent": ("boardgym.envs.single_agent",),
    "vector": ("boardgym.envs.vector",),
    "batch": ("boardgym.envs.batch",),
    "engine_query": ("boardgym.agents.arena.engine_query",),
    "registry": ("boardgym.agents.registry",),
    # the state layouts (index constants) the validity checkers read
    "draughts_layout": ("boardgym.kernels.draughts.board", "boardgym.kernels.draughts.game"),
    "backgammon_layout": ("boardgym.kernels.backgammon.board", "boardgym.kernels.backgammon.game"),
}
# modules whose every public function must have a fuzz entry (test_fuzz_coverage.py)
COVERED_MODULES = ("draughts", "backgammon")
# the modules backgammon_notation re-exports: each public function of theirs is in its __all__
BACKGAMMON_NOTATION_PARTS = (
    "boardgym.envs.backgammon_checks",
    "boardgym.envs.backgammon_ids",
    "boardgym.envs.backgammon_plays",
)
# table entries for functions the issue asks for that a module may not define yet
EXPECTED_LATER = {"check_state", "check_batch"}

_loaded = {}


def module(key):
    """The module of MODULES[key]: the first candidate name that imports."""
    if key not in _loaded:
        errors = []
        for name in MODULES[key]:
            try:
                _loaded[key] = importlib.import_module(name)
                break
            except ModuleNotFoundError as e:
                if e.name is None or not name.startswith(e.name):
                    raise
                errors.append(str(e))
        else:
            raise ModuleNotFoundError(f"none of {MODULES[key]} imports: {errors}")
    return _loaded[key]


_LAYOUT_NAMES = {
    "draughts": ("STATE_LEN", "S_WM", "S_WK", "S_BM", "S_BK", "S_SIDE", "S_CAP_SQ"),
    "backgammon": (
        "STATE_LEN",
        "ME",
        "OPP",
        "BAR_ME",
        "BAR_OPP",
        "OFF_ME",
        "OFF_OPP",
        "DICE",
        "TURN",
        "CUBE_VALUE",
        "CUBE_OWNER",
    ),
}


def layout(game):
    """{constant name: value} of game's state layout (from the first candidate module of
    MODULES[game + "_layout"] that defines every name)."""
    key = f"_layout_{game}"
    if key not in _loaded:
        for name in MODULES[f"{game}_layout"]:
            try:
                mod = importlib.import_module(name)
            except ModuleNotFoundError:
                continue
            if all(hasattr(mod, n) for n in _LAYOUT_NAMES[game]):
                _loaded[key] = {n: int(getattr(mod, n)) for n in _LAYOUT_NAMES[game]}
                break
        else:
            raise ImportError(
                f"no module of {MODULES[game + '_layout']} defines {_LAYOUT_NAMES[game]}"
            )
    return _loaded[key]


# ------------------------------------------------------------------------------------ pools

_POOLS = {}


def _legal(mask):
    return np.flatnonzero(np.asarray(mask))


def _draughts_pool():
    api = module("draughts")
    states, fens, moves, obs = [], [], [], []
    rng = np.random.default_rng(1234)
    for g in range(S.POOL_SIZE):
        s = api.initial_state()
        plies = (g * 7) % 90
        for _ in range(plies):
            legal = _legal(api.action_mask(s))
            if legal.size == 0:
                break
            s = api.apply_action(s, int(rng.choice(legal)))
        states.append(np.array(s, np.int64))
    for fen in (
        "W:W21,22,K5:B1,K30",
        "B:WK1:BK32",
        "W:W:B1",
        "W:Wc3:Bd4,f6",
        "W:Wa1:Bb2,d4,f6,h8",
        "B:W18,19:B14",
    ):
        states.append(np.array(api.from_fen(fen), np.int64))
    layout_ = layout("draughts")
    for s in states:
        if s[layout_["S_CAP_SQ"]] < 0:
            fens.append(api.to_fen(s))
            moves.extend(api.legal_moves(s)[:3])
    # observations: the AEC env's, for the agent to act
    aec = module("draughts_aec").raw_env()
    for g in range(12):
        aec.reset(seed=g)
        for _ in range(g * 5):
            if aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]:
                break
            m = aec.observe(aec.agent_selection)["action_mask"]
            aec.step(int(rng.choice(_legal(m))))
        if not (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            o = aec.observe(aec.agent_selection)
            obs.append((np.array(o["observation"]), np.array(o["action_mask"])))
    busy = max(
        range(len(states)),
        key=lambda i: (
            bin(int(states[i][0]) | int(states[i][2])).count("1")
            if states[i][layout_["S_CAP_SQ"]] < 0
            else -1
        ),
    )
    return {
        "states": states,
        "fens": fens or ["W:W21:B1"],
        "moves": moves or ["c3-d4"],
        "observations": obs,
        "busy": busy,
    }


def _backgammon_pool():
    api = module("backgammon")
    lay = layout("backgammon")
    states, obs = [], []
    rng = np.random.default_rng(4321)
    aec = module("backgammon_aec").raw_env()
    for g in range(S.POOL_SIZE):
        aec.reset(seed=g)
        for _ in range((g * 9) % 160):
            if aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]:
                break
            m = aec.observe(aec.agent_selection)["action_mask"]
            aec.step(int(rng.choice(_legal(m))))
        s = np.array(aec.state, np.int64)
        states.append(s)
        if g % 3 == 0:  # the same position between turns (no dice)
            s2 = s.copy()
            s2[lay["DICE"] : lay["DICE"] + 6] = 0
            states.append(s2)
        if not (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            o = aec.observe(aec.agent_selection)
            obs.append((np.array(o["observation"]), np.array(o["action_mask"])))
    pids = [api.position_id(s) for s in states]
    mids = [api.match_id(states[0])] + [api.match_id(s, dice=(3, 1)) for s in states[1:5]]
    plays = []  # (state, d1, d2, text, afterstate), through the notation API only
    for _i, pid in enumerate(pids[:16]):
        d1, d2 = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        base = api.position_from_id(pid)
        for after_id in api.legal_plays(pid, d1, d2)[:2]:
            after = np.array(api.position_from_id(after_id), np.int64)
            try:
                text = api.play_to_str(base, d1, d2, after)
            except ValueError:  # the pass (no legal move): the afterstate is the position
                continue
            plays.append((np.array(base, np.int64), d1, d2, text, after))
    busy = max(range(len(states)), key=lambda i: int((states[i][:48] > 0).sum()))
    return {
        "states": states,
        "position_ids": pids,
        "match_ids": mids,
        "plays": plays,
        "observations": obs,
        "busy": busy,
    }


def pools():
    """Valid positions, FENs, IDs, moves, plays and observations (built once per process)."""
    if not _POOLS:
        _POOLS["draughts"] = _draughts_pool()
        _POOLS["backgammon"] = _backgammon_pool()
    return _POOLS


# ----------------------------------------------------------------------------------- targets


@dataclass
class Target:
    """One entry point. ``call(*values, **kwargs)`` runs it; ``pos``/``kw`` are the argument
    Specs. ``drives`` marks an episode driver that checks the Args' invalid reasons itself (it
    gets the Args, not their values). ``allowed`` adds exception types the contract tolerates
    there (named with the reason in ``note``)."""

    name: str
    group: str
    resolve: object  # () -> callable, or None when the entry point does not exist
    pos: tuple = ()
    kw: dict = field(default_factory=dict)
    examples: int = 60
    drives: bool = False
    warmup: tuple = ()  # extra (args, kwargs) of valid values to call once before fuzzing
    allowed: tuple = ()
    note: str = ""


def fn(*pos, examples=60, warmup=(), **kw):
    """A table entry: positional Specs, keyword Specs (each keyword passed half the time)."""
    return {"pos": pos, "kw": kw, "examples": examples, "warmup": warmup}


# The specs shared by the table.
D_STATE = S.states("draughts")
D_FEN = S.fens()
D_FEN_OR_STATE = S.fens_or_states("draughts")
D_ACTION = S.ints(0, 1023, "action", valid=st.integers(0, 1023))
D_SQ32 = S.ints(0, 31, "sq32 square", valid=st.integers(0, 31))
D_RULES = S.ints(0, 31, "rules bitmask", valid=st.integers(0, 31))
D_DEPTH = S.ints(
    0,
    None,
    "depth",
    valid=st.integers(0, 3),
    sweep_extra=(2**31, 10**12),
    sweep_drop=(99,),
    wild=st.one_of(st.integers(2**31, 2**63 - 1), st.integers(-(2**63), -1)),
)
D_THREADS = S.ints(1, None, "threads", valid=st.integers(1, 2))
# a move's route (sq32 squares, start first), a kernel move row (int64[ROW_LEN]) and an
# observation (float[198]): hostile contents, odd types
D_ROUTE = S.Spec(
    st.one_of(
        st.lists(st.integers(-5, 40), max_size=14),
        st.lists(st.integers(0, 31), min_size=2, max_size=13),
        S.junk_values(),
    ).map(S.arg),
    lambda: S.arg([8, 12]),
    name="route",
)
D_MOVE_ROW = S.Spec(
    st.one_of(
        st.lists(st.integers(-(2**63), 2**63 - 1), min_size=17, max_size=17).map(
            lambda v: np.array(v, np.int64)
        ),
        st.lists(st.integers(-3, 40), min_size=17, max_size=17).map(
            lambda v: np.array(v, np.int64)
        ),
        st.integers(0, 40).map(lambda n: np.zeros(n, np.int64)),
        S.junk_values(),
    ).map(S.arg),
    lambda: S.arg(np.zeros(17, np.int64)),
    name="move row",
)
D_OBSERVATION = S.Spec(
    st.one_of(
        st.lists(
            st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=198, max_size=198
        ).map(lambda v: np.array(v, np.float32)),
        st.lists(st.sampled_from([0.0, 1.0]), min_size=198, max_size=198).map(
            lambda v: np.array(v, np.float32)
        ),
        st.integers(0, 300).map(lambda n: np.zeros(n, np.float32)),
        S.junk_values(),
    ).map(S.arg),
    lambda: S.arg(np.zeros(198, np.float32)),
    name="observation",
)
B_STATE = S.states("backgammon")
B_PID = S.b64_ids(14, "position_ids", "Position ID")
B_MID = S.b64_ids(12, "match_ids", "Match ID")
B_DIE = S.dice()
B_TURN = S.ints(0, 1, "turn", valid=st.integers(0, 1))
B_MAX_TURNS = S.ints(1, None, "max_turns", valid=st.integers(1, 300), optional=True)


def _scoring():
    names = ("single", "gammon")

    def scoring_arg(v):
        ok = isinstance(v, str) and v in names
        return S.arg(v, "" if ok else "scoring must be 'single' or 'gammon'")

    strat = st.one_of(
        st.sampled_from(names),
        st.sampled_from(["double", "", "Single", "gammon "]),
        S.junk_values(),
    ).map(scoring_arg)
    return S.Spec(
        strat,
        lambda: S.arg("single"),
        lambda: [scoring_arg(v) for v in ("single", "x", None, 5, b"single")],
        "scoring",
    )


# any value at all (is_int answers True or False for every value)
ANYTHING = S.Spec(S.junk_values().map(S.arg), lambda: S.arg(3), name="anything")
B_FLAG = S.Spec(
    st.sampled_from([True, False, 0, 1, None, "yes", np.array([1, 0]), 2.5]).map(S.arg),
    lambda: S.arg(False),
    name="flag",
)


def _match_dice():
    d = S.dice()

    @st.composite
    def pair(draw):
        kind = draw(st.sampled_from(["none", "pair", "pair", "zero", "odd"]))
        if kind == "none":
            return S.arg(None)
        if kind == "zero":
            return S.arg((0, 0))
        if kind == "odd":
            v = draw(S.junk_values())
            if v is None:
                return S.arg(v)
            if isinstance(v, (list, tuple)) and len(v) == 2:
                if tuple(v) == (0, 0) and not any(isinstance(x, bool) for x in v):
                    return S.arg(v)  # (0, 0): no dice
                whys = [x for x in (S.dice_problem(v[0]), S.dice_problem(v[1])) if x]
                return S.arg(v, whys[0] if whys else "")
            return S.arg(v, "dice must be a pair")
        a, b = draw(d.strategy), draw(d.strategy)
        return S.arg((a.value, b.value), a.invalid or b.invalid)

    return S.Spec(pair(), lambda: S.arg(None), name="dice pair")


def _score():
    @st.composite
    def score(draw):
        kind = draw(st.sampled_from(["ok", "ok", "neg", "huge", "short", "junk"]))
        if kind == "ok":
            return S.arg((draw(st.integers(0, 5)), draw(st.integers(0, 5))))
        if kind == "neg":
            return S.arg((-1, 0), "negative score")
        if kind == "huge":
            return S.arg((2**62, 0), "score beyond 15 bits")
        if kind == "short":
            return S.arg((1,), "a score is two numbers")
        return S.arg(draw(S.junk_values()))

    return S.Spec(score(), lambda: S.arg((0, 0)), name="score")


_INITIAL_BG_BOARD = [
    [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
] * 2

# record texts: hostile text and pieces of the formats
R_PDN = S.Spec(
    st.one_of(
        st.text(max_size=200),
        st.sampled_from(
            [
                '[GameType "25"]\n1. c3-d4 f6-g5 *',
                '[FEN "W:W21:B1"]\n1. 21-17 *',
                '[GameType "25"]\n1. c3-d4 99-1 2-0',
                "1. c3-d4 {x} $1 1/2-1/2",
                "[Bad",
            ]
        ),
        S.junk_values(),
    ).map(lambda v: S.arg(v, "" if isinstance(v, str) else "PDN must be a string")),
    lambda: S.arg("1. c3-d4 *"),
)
R_MATCH = S.Spec(
    st.one_of(
        st.text(max_size=200),
        st.sampled_from(
            [
                " 1) 31: 8/5 6/5                     42: 24/20 13/11\n",
                " 1) 77: 8/5\n",
                " 1) 31: 99/1\n",
                " 1) 31: 8/5 6/5 6/1\n",
                " 3 point match\n Game 1\n a : 0    b : 0\n 1) 31: 8/5 6/5   Doubles => 2\n"
                " 2) Drops   Wins 1 point\n Game 2\n a : 0    b : 2\n",
                " 1) 31: 8/5 6/5   53:\n      Wins 3 points and the match\n",
            ]
        ),
    ).map(S.arg),
    lambda: S.arg(" 1) 31: 8/5 6/5\n"),
)
R_RECORD = S.Spec(
    st.one_of(
        st.text(max_size=200),
        st.sampled_from(
            [
                '[GameType "25"]\n1. c3-d4 f6-g5 *',
                " 3 point match\n\n Game 1\n a : 0                         b : 0\n"
                " 1) 31: 8/5 6/5                      Doubles => 2\n 2) Takes\n",
                " 1) 31: 8/5 6/5\n\n Game 2\n 1) 42: 8/4 6/4\n",
            ]
        ),
        S.junk_values(),
    ).map(lambda v: S.arg(v, "" if isinstance(v, str) else "a record is a string")),
    lambda: S.arg("1. c3-d4 *"),
)
R_NAME = S.Spec(
    st.one_of(st.sampled_from(["game.pdn", "GAME.MAT", "notes.txt", ""]), S.junk_values()).map(
        lambda v: S.arg(v, "" if isinstance(v, str) else "a name is a string")
    ),
    lambda: S.arg("game.pdn"),
)
R_POSITION = S.Spec(
    st.one_of(
        st.text(max_size=40),
        st.sampled_from(["W:W21-32:B1-12", "4HPwATDgc/ABMA", "4HPwATDgc/ABMA:cAkAAAAAAAAA"]),
        S.junk_values(),
    ).map(lambda v: S.arg(v, "" if isinstance(v, str) else "a position is a string")),
    lambda: S.arg("W:W21-32:B1-12"),
)
R_KIND = S.Spec(
    st.sampled_from(["draughts", "backgammon", "chess", "", 1]).map(
        lambda v: S.arg(v, "" if v in ("draughts", "backgammon") else "no such game")
    ),
    lambda: S.arg("draughts"),
)
R_FRAMES = S.Spec(
    st.one_of(
        st.just("one"),
        st.just("match"),
        S.junk_values(),
    ).map(
        lambda v: S.arg(
            _record_frames(v) if v in ("one", "match") else v,
            "" if v in ("one", "match") else "frames are record_frames' list",
            text=repr(v),
        )
    ),
    lambda: S.arg(_record_frames("one"), text="'one'"),
)


def _record_frames(which):
    from boardgym.envs import records

    text = (
        " 1) 31: 8/5 6/5                      42: 13/9 13/11\n"
        if which == "match"
        else "1. c3-d4 *"
    )
    return records.record_frames(text)[1]


API = {
    "draughts": {
        "initial_state": fn(),
        "from_fen": fn(D_FEN, rules=D_RULES, examples=120),
        "to_fen": fn(D_STATE),
        "legal_moves": fn(D_FEN_OR_STATE),
        "apply": fn(D_FEN_OR_STATE, S.moves()),
        "perft": fn(
            D_FEN_OR_STATE,
            D_DEPTH,
            threads=D_THREADS,
            examples=40,
            warmup=(((lambda: module("draughts").initial_state(), 3), {"threads": 2}),),
        ),
        "game_status": fn(D_FEN_OR_STATE),
        "action_to_str": fn(D_ACTION),
        "str_to_action": fn(S.moves(one_hop=True)),
        "action_mask": fn(D_FEN_OR_STATE),
        "legal_actions": fn(D_FEN_OR_STATE),
        "apply_action": fn(D_FEN_OR_STATE, D_ACTION),
        "move_to_actions": fn(D_FEN_OR_STATE, S.moves()),
        "full_move": fn(D_FEN_OR_STATE, S.moves()),
        "parse_route": fn(S.moves()),
        "square_name": fn(D_SQ32),
        "parse_square": fn(S.square_tokens()),
        # the validated boundary the issue asks for (envs/draughts.py; may not exist yet)
        "check_state": fn(D_STATE),
        "check_batch": fn(S.batches("draughts")),
        "check_action": fn(D_ACTION),
        "check_rules": fn(D_RULES),
        "check_max_moves": fn(S.ints(1, None, "max_moves", optional=True)),
        "rules_mask": fn(
            repetition=B_FLAG,
            three_kings=B_FLAG,
            kings_only=B_FLAG,
            balance=B_FLAG,
            long_diagonal=B_FLAG,
        ),
        "format_move": fn(D_ROUTE, B_FLAG),
        "move_to_str": fn(D_FEN_OR_STATE, D_MOVE_ROW),
        "state_from_observation": fn(D_OBSERVATION, rules=D_RULES),
    },
    "backgammon": {
        "initial_state": fn(),
        "state_from_board": fn(S.boards(), turn=B_TURN),
        "board_from_state": fn(B_STATE),
        "position_id": fn(B_STATE, examples=120),
        "position_from_id": fn(B_PID, examples=120),
        "legal_plays": fn(B_PID, B_DIE, B_DIE),
        "legal_afterstates": fn(B_STATE, B_DIE, B_DIE),
        "position_ids": fn(S.batches("backgammon")),
        "play_to_str": fn(B_STATE, B_DIE, B_DIE, S.plays()),
        "parse_play": fn(B_STATE, B_DIE, B_DIE, S.play_texts(), examples=90),
        "match_id": fn(
            B_STATE,
            dice=_match_dice(),
            match_length=S.ints(0, 32767, "match length"),
            score=_score(),
            crawford=B_FLAG,
            game_state=S.ints(0, 4, "game state"),
            double_offered=B_FLAG,
            resign=S.ints(0, 3, "resign"),
            turn=S.ints(0, 1, "turn", optional=True),
        ),
        "parse_match_id": fn(B_MID, examples=120),
        "check_state": fn(B_STATE),
        "check_batch": fn(S.batches("backgammon")),
        "check_dice": fn(B_DIE, B_DIE, examples=120),
        "check_scoring": fn(_scoring()),
        "check_max_turns": fn(B_MAX_TURNS),
        "check_match_length": fn(S.ints(0, 64, "match_length")),
        "new_match": fn(S.ints(0, 64, "match_length"), _score(), B_FLAG),
        "recordable_start": fn(S.ints(0, 64, "match_length"), _score(), B_FLAG),
        "check_match": fn(ANYTHING),
        "check_playable": fn(B_STATE),
        "parse_dice": fn(
            S.Spec(
                st.one_of(
                    st.sampled_from(["3-1", "31", "3 1", "3,1", "7-1", "0-2", "", "x", "666"]),
                    st.lists(st.sampled_from([1, 6, "2", 7, 0, "x", 2.5]), max_size=3),
                    S.junk_values(),
                ).map(S.arg),
                lambda: S.arg("3-1"),
            ),
            examples=120,
        ),
        "check_play_options": fn(
            S.optional(_scoring()),
            B_FLAG,
            S.ints(0, 64, "match_length"),
            S.Spec(
                st.sampled_from(["match", "points", "x", None, 1]).map(
                    lambda v: S.arg(
                        v, "" if v in ("match", "points") else "match_reward: match or points"
                    )
                ),
                lambda: S.arg("match"),
            ),
        ),
        "is_int": fn(ANYTHING),
        "play_actions": fn(B_STATE, B_DIE, B_DIE, S.plays()),
    },
    # record formats (not required by the coverage test, fuzzed because they parse text)
    "draughts_pdn": {
        "read_pdn": fn(R_PDN),
        "pdn_frames": fn(R_PDN),
        "game_to_pdn": fn(
            S.Spec(
                st.one_of(
                    st.lists(
                        st.sampled_from(["c3-d4", "f6-g5", "a3-b4", "99-1", "", "x"]), max_size=4
                    ),
                    S.junk_values(),
                ).map(S.arg),
                lambda: S.arg(["c3-d4"]),
            ),
            start_fen=S.optional(D_FEN),
            result=S.Spec(
                st.sampled_from(["*", "2-0", "x", None, 5]).map(S.arg), lambda: S.arg("*")
            ),
        ),
    },
    "backgammon_match": {
        "read_match_text": fn(
            R_MATCH,
            start_state=S.optional(B_STATE),
        ),
        "match_frames": fn(R_MATCH),
        "read_match": fn(R_MATCH),
        "match_to_text": fn(
            S.Spec(
                st.one_of(
                    st.lists(
                        st.fixed_dictionaries(
                            {
                                "turns": st.sampled_from(
                                    [
                                        [],
                                        [{"player": 0, "dice": (3, 1), "moves": [(8, 5, 0)]}],
                                        [{"player": 1, "cube": "double", "value": 2}],
                                    ]
                                ),
                                "score": st.sampled_from([[0, 0], [2, 1], [9, 0], (0,), "x"]),
                                "winner": st.sampled_from([None, 0, 1, 2]),
                                "points": st.sampled_from([None, 1, 2, -1, 1.5]),
                            }
                        ),
                        max_size=3,
                    ),
                    S.junk_values(),
                ).map(S.arg),
                lambda: S.arg([{"turns": [], "score": [0, 0], "winner": None, "points": None}]),
            ),
            S.Spec(st.sampled_from([0, 3, 7, -1, 2**20, "7", None]).map(S.arg), lambda: S.arg(3)),
        ),
    },
    "records": {
        "record_kind": fn(R_RECORD, name=S.optional(R_NAME)),
        "position_kind": fn(R_POSITION),
        "record_frames": fn(R_RECORD, kind=S.optional(R_KIND)),
        "plies": fn(R_FRAMES),
        "position_at": fn(R_FRAMES, S.optional(S.ints(0, None, "ply", valid=st.integers(0, 3)))),
    },
}


# -------------------------------------------------------------------------------- env drivers


def _done(env):
    a = env.agent_selection
    return bool(env.terminations[a] or env.truncations[a])


def _expect(arg_, what, fn_, *a, **k):
    """Call fn_; AcceptedInvalid when it returns although arg_ was certainly invalid."""
    out = fn_(*a, **k)
    if arg_ is not None and arg_.invalid:
        raise AcceptedInvalid(f"{what}: {arg_.invalid}")
    return out


def _action_arg(v, n_actions):
    return S._int_arg(v, 0, n_actions - 1, "action")


def _pick(mask, k, legal=True):
    m = np.asarray(mask).astype(bool)
    idx = np.flatnonzero(m if legal else ~m)
    return int(idx[k % idx.size]) if idx.size else None


def aec_episode(module_key, wrapped, ctor, seed, options, plan):
    """Build the AEC env, reset it with (seed, options), then play the plan's steps.

    plan: list of ("legal", k) (the k-th legal action), ("illegal", k) (an in-range action the
    mask forbids: the raw env must raise) or ("raw", value) (a hostile value)."""
    mod = module(module_key)
    make = mod.env if wrapped else mod.raw_env
    env = _expect(ctor, "constructor", make, **ctor.value)
    _expect(
        seed if seed.invalid else options,
        "reset",
        env.reset,
        seed=seed.value,
        options=options.value,
    )
    for kind, v in plan.value:
        if _done(env):
            break
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        n = len(mask)
        if kind == "legal":
            env.step(_pick(mask, v))
        elif kind == "illegal":
            a = _pick(mask, v, legal=False)
            if a is None:
                continue
            _expect(
                None if wrapped else Arg(a, str(a), "an action outside the mask"),
                f"step({a})",
                env.step,
                a,
            )
        else:
            a = _action_arg(v, n)
            if wrapped:  # PettingZoo's wrappers: AssertOutOfBounds, TerminateIllegal
                env.step(v)
                return
            _expect(a, f"step({describe(v)})", env.step, v)
    env.observe(env.agent_selection)


def single_agent_episode(cls_name, ctor, seed, options, plan):
    """gymnasium single-agent env: construct, reset(seed, options), play the plan."""
    cls = getattr(module("single_agent"), cls_name)
    env = _expect(ctor, "constructor", cls, **ctor.value)
    _expect(
        seed if seed.invalid else options,
        "reset",
        env.reset,
        seed=seed.value,
        options=options.value,
    )
    over = False
    for kind, v in plan.value:
        if over:
            break
        mask = env.action_masks()
        if not np.asarray(mask).any():
            break
        if kind == "legal":
            _, _, term, trunc, _ = env.step(_pick(mask, v))
        elif kind == "illegal":
            a = _pick(mask, v, legal=False)
            if a is None:
                continue
            must = ctor.value.get("illegal_action") == "raise"
            _, _, term, trunc, _ = _expect(
                Arg(a, str(a), "an action outside the mask") if must else None,
                f"step({a})",
                env.step,
                a,
            )
        else:
            _, _, term, trunc, _ = _expect(
                _action_arg(v, len(mask)), f"step({describe(v)})", env.step, v
            )
        over = term or trunc


def _actions_problem(value, n, n_actions):
    try:
        a = np.asarray(value)
    except Exception:  # noqa: BLE001
        return "actions are not an array"
    if a.shape != (n,):
        return f"actions of shape {a.shape}, want ({n},)"
    if a.dtype.kind not in "iuf" or a.dtype.kind == "b":
        return f"actions of dtype {a.dtype}"
    if a.dtype.kind == "f" and (~np.isfinite(a) | (a != np.round(a))).any():
        return "non-integral actions"
    if a.dtype.kind in "iuf" and ((a < 0) | (a >= n_actions)).any():
        return "an action out of range"
    return ""


def _batch_actions(masks, plan_item, n_actions):
    """(actions, invalid reason) for one step of a batch plan."""
    kind, v = plan_item
    masks = np.asarray(masks)
    n = masks.shape[0]
    if kind == "legal":
        acts = np.array(
            [_pick(masks[i], v + i) if masks[i].any() else 0 for i in range(n)], np.int64
        )
        return acts, ""
    if kind == "illegal":
        acts = np.array(
            [_pick(masks[i], v + i) if masks[i].any() else 0 for i in range(n)], np.int64
        )
        i = v % n
        bad = _pick(masks[i], v, legal=False)
        if bad is None:
            return acts, ""
        acts[i] = bad
        return acts, "an action outside the mask"
    return v, _actions_problem(v, n, n_actions)


def vector_episode(cls_name, ctor, seed, options, plan):
    """gymnasium vector env: construct, reset(seed=, options=), play the plan (whole batches)."""
    cls = getattr(module("vector"), cls_name)
    env = _expect(ctor, "constructor", cls, **ctor.value)
    _expect(
        seed if seed.invalid else options,
        "reset",
        env.reset,
        seed=seed.value,
        options=options.value,
    )
    n_actions = int(env.single_action_space.n)
    for item in plan.value:
        acts, why = _batch_actions(env.action_masks(), item, n_actions)
        _expect(Arg(acts, describe(acts), why), f"step({describe(acts, 200)})", env.step, acts)


def _corrupt_snapshot(snap, how, rng_val, game):
    """(snapshot, invalid reason) of a get_state() dict corrupted one way."""
    snap = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in snap.items()}
    keys = [k for k in snap if k != "core"]
    kind, k = how
    key = keys[k % len(keys)]
    if kind == "none":
        return snap, ""
    if kind == "drop":
        del snap[key]
        return snap, f"snapshot lacks {key!r}"
    if kind == "notdict":
        return [snap[key]], "a snapshot is a dict"
    if kind == "core":
        snap["core"] = "OtherBatch"
        return snap, "snapshot of another core"
    a = snap[key]
    if kind == "reshape":
        snap[key] = a.reshape(-1) if a.ndim > 1 else a[None, :]
        return snap, f"{key!r} reshaped"
    if kind == "shorter":
        snap[key] = a[:-1] if len(a) > 1 else a[:0]
        return snap, f"{key!r} shorter"
    if kind == "dtype":
        target = {0: np.float64, 1: np.int32, 2: object, 3: np.uint64, 4: bool}[rng_val % 5]
        snap[key] = a.astype(target)
        return snap, (
            f"{key!r} of dtype {np.dtype(target)}" if np.dtype(target).kind in "fObc" else ""
        )
    if kind == "value":
        flat = snap[key].reshape(-1)
        if flat.size == 0:
            return snap, ""
        i = rng_val % flat.size
        v = S.EXTREME_INTS[(rng_val // 7) % len(S.EXTREME_INTS)]
        try:
            flat[i] = v
        except (OverflowError, ValueError):
            flat[i] = -1
        why = ""
        if key == "states":
            row = i // snap[key].shape[1]
            why = S.PROBLEM[game](snap[key][row], layout(game))
            why = f"state row {row}: {why}" if why else ""
        elif key in ("current", "seats") and int(flat[i]) not in (0, 1):
            why = f"{key} {int(flat[i])} is not a player"
        return snap, why
    if kind == "nan" and a.dtype.kind == "f":
        snap[key] = a.copy()
        snap[key].reshape(-1)[rng_val % max(a.size, 1)] = np.nan
        return snap, ""
    return snap, ""


def batch_episode(cls_name, ctor, seed, snapshot, plan):
    """Batched core: construct, reset(seed), optionally set_state(a corrupted snapshot of a
    played donor core), then play the plan with step() and reset_done()."""
    cls = getattr(module("batch"), cls_name)
    game = "draughts" if "Draughts" in cls_name else "backgammon"
    core = _expect(ctor, "constructor", cls, **ctor.value)
    _expect(seed, "reset", core.reset, seed.value)
    n_actions = int(core.masks.shape[1])
    if snapshot.value is not None:
        plies, how, rng_val = snapshot.value
        donor = cls(core.num_envs, **{k: v for k, v in ctor.value.items() if k != "num_envs"})
        donor.reset(seed=rng_val)
        for _ in range(plies):
            donor.reset_done()
            donor.step(donor.random_actions())
        snap, why = _corrupt_snapshot(donor.get_state(), how, rng_val, game)
        _expect(Arg(snap, describe(snap, 300), why), "set_state", core.set_state, snap)
    for item in plan.value:
        core.reset_done()
        acts, why = _batch_actions(core.masks, item, n_actions)
        _expect(Arg(acts, describe(acts), why), f"step({describe(acts, 200)})", core.step, acts)


def batch_methods(cls_name, num_envs, method, a, b):
    """The cores' other public array entry points: step_subset(games, actions) and
    random_actions(rngs, out)."""
    cls = getattr(module("batch"), cls_name)
    core = cls(num_envs)
    core.reset(seed=1)
    getattr(core, method)(a.value, b.value)
    if a.invalid or b.invalid:
        raise AcceptedInvalid(f"{method}: {a.invalid or b.invalid}")


# ------------------------------------------------------------------------------ env specs


def kwargs_spec(specs, required=()):
    """Spec of a kwargs dict: each key of specs present half the time (required ones always)."""

    @st.composite
    def draw_kwargs(draw):
        out, whys = {}, []
        clean = draw(st.integers(0, 2)) > 0  # two times in three, every value may be fine
        for k, spec in specs.items():
            if k in required or draw(st.booleans()):
                a = draw(spec.strategy.filter(lambda x: not x.invalid) if clean else spec.strategy)
                out[k] = a.value
                if a.invalid:
                    whys.append(f"{k}: {a.invalid}")
        return Arg(out, describe(out), whys[0] if whys else "")

    def default():
        d = {k: specs[k].default().value for k in required}
        return Arg(d, describe(d))

    return S.Spec(draw_kwargs(), default, name="kwargs")


def one_of_values(valid, invalid=(), unknown=()):
    """Spec over listed values: valid ones, certainly invalid ones (value, reason), unknown ones."""
    pairs = [(v, "") for v in valid] + list(invalid) + [(v, "") for v in unknown]
    strat = st.integers(0, len(pairs) - 1).map(lambda i: S.arg(*pairs[i]))
    return S.Spec(strat, lambda: S.arg(*pairs[0]))


SEED = S.Spec(
    st.one_of(
        st.none(),
        st.integers(0, 2**32),
        st.integers(0, 2**32),
        st.integers(0, 2**32),
        st.integers(0, 2**32),
        st.sampled_from([-1, -(2**62), 3.5, "x", [1, 2], np.int64(5), 2**64, 2**70, True]),
    ).map(
        lambda v: S.arg(
            v,
            (
                f"seed {v!r} is not a non-negative integer"
                if (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v < 0)
                or isinstance(v, (float, str, list))
                else ""
            ),
        )
    ),
    lambda: S.arg(7),
    name="seed",
)


def _plan_step(raw):
    """One step of a play plan: a legal action (twice as likely), an illegal one, or raw input."""
    return st.one_of(
        st.tuples(st.just("legal"), st.integers(0, 50)),
        st.tuples(st.just("legal"), st.integers(0, 50)),
        st.tuples(st.just("illegal"), st.integers(0, 2000)),
        st.tuples(st.just("raw"), raw),
    )


def _plan(n_actions_hint):
    raw = st.one_of(
        st.sampled_from(
            [
                -1,
                -5,
                99,
                n_actions_hint,
                n_actions_hint + 4,
                2**62,
                -(2**62),
                2**63 - 1,
                2**64,
                3.5,
                float("nan"),
                float("inf"),
                True,
                None,
                "3",
                np.array([1, 2]),
                np.array(3),
                np.int32(2),
                np.uint64(2**63),
                [1],
            ]
        ),
        st.integers(-(2**63), 2**63 - 1),
    )
    step = _plan_step(raw)
    return S.Spec(
        st.lists(step, max_size=8).map(lambda p: Arg(p, describe(p))),
        lambda: Arg([("legal", 0)], "[('legal', 0)]"),
        name="plan",
    )


def _batch_plan(n_actions):
    raw = st.one_of(
        S.odd_arrays(3).map(lambda a: a),
        st.sampled_from([None, 5, "x", [0, 0, 0]]),
        st.lists(st.sampled_from([-1, 0, n_actions, 2**62, 3]), min_size=1, max_size=4).map(
            lambda v: np.array(v, np.int64)
        ),
    )
    step = _plan_step(raw)
    return S.Spec(
        st.lists(step, max_size=5).map(lambda p: Arg(p, describe(p))),
        lambda: Arg([("legal", 0)], "[('legal', 0)]"),
        name="batch plan",
    )


def _reset_options(kinds, build):
    """Spec of reset(options=...): None, {}, a non-dict (rejected), or ``build(draw, kind)`` -> Arg
    for each game-specific kind of ``kinds`` (the list's repeats weight the draw)."""

    @st.composite
    def opts(draw):
        kind = draw(st.sampled_from(["none", "empty"] + kinds + ["notdict"]))
        if kind == "none":
            return S.arg(None)
        if kind == "empty":
            return S.arg({})
        if kind == "notdict":
            v = draw(S.junk_values().filter(lambda x: x is not None and not isinstance(x, dict)))
            return S.arg(v, "options must be a dict")
        return build(draw, kind)

    return S.Spec(opts(), lambda: S.arg(None))


def _options(game):
    if game == "draughts":
        fen = S.fens()

        def build_fen(draw, kind):
            f = draw(fen.strategy)
            d = {"fen": f.value}
            if kind == "fen+junk":
                d["bogus"] = 1
            return Arg(d, describe(d), f.invalid)

        return _reset_options(["fen", "fen", "fen+junk"], build_fen)

    pid, die = S.b64_ids(14, "position_ids", "Position ID"), S.dice()

    def build_position(draw, kind):
        d, why = {}, ""
        if kind in ("pid", "both"):
            p = draw(pid.strategy)
            d["position_id"], why = p.value, p.invalid
        if kind in ("dice", "both"):
            a, b = draw(die.strategy), draw(die.strategy)
            d["dice"] = [a.value, b.value]
            why = why or a.invalid or b.invalid
        if kind == "odd_dice":
            v = draw(
                st.one_of(
                    S.junk_values(),
                    st.sampled_from([[1], [1, 2, 3], (3, 1), "31", np.array([3, 1])]),
                )
            )
            d["dice"] = v
            ok = isinstance(v, (list, tuple, np.ndarray)) and len(v) == 2
            why = "" if ok or v is None else "dice must be two integers 1..6"
        return Arg(d, describe(d), why)

    return _reset_options(["pid", "dice", "both", "both", "odd_dice"], build_position)


_MAX = S.ints(1, None, "max_moves", valid=st.integers(1, 300), optional=True)
_MAX_TURNS = B_MAX_TURNS
_RULE_FLAG = one_of_values(
    [True, False],
    invalid=[("yes", "a draw rule switch is a bool"), (None, "a draw rule switch is a bool")],
    unknown=[1, 0, np.bool_(True)],
)
D_AEC_CTOR = kwargs_spec(
    {
        "render_mode": one_of_values(
            [None, "ansi"], invalid=[("bogus", "unknown render mode"), (5, "unknown render mode")]
        ),
        "max_moves": _MAX,
        "repetition": _RULE_FLAG,
        "kings_only": _RULE_FLAG,
        "long_diagonal": _RULE_FLAG,
    }
)
B_AEC_CTOR = kwargs_spec(
    {
        "render_mode": one_of_values([None, "ansi"], invalid=[("bogus", "unknown render mode")]),
        "scoring": one_of_values(["single", "gammon"], invalid=[("double", "unknown scoring")]),
        "cube": one_of_values([False, True], unknown=[0, 1], invalid=[("yes", "cube is a bool")]),
        "max_turns": _MAX_TURNS,
    }
)


def _hostile_policy(kind):
    """Opponent callables that misbehave (they are valid callables; their answers are not)."""
    answers = {
        "neg": -1,
        "huge": 2**62,
        "none": None,
        "str": "x",
        "float": 2.5,
        "arr": np.array([1, 2]),
    }
    v = answers[kind]
    return lambda obs, mask: v


_SINGLE_COMMON = {
    "opponent": one_of_values(
        ["random"],
        invalid=[
            (None, "unknown opponent"),
            ("greedy?", "unknown opponent"),
            (5, "unknown opponent"),
        ],
        unknown=[_hostile_policy(k) for k in ("neg", "huge", "none", "str", "float", "arr")],
    ),
    "learner": one_of_values(
        ["player_0", "player_1", "alternate"],
        invalid=[
            ("player_2", "unknown learner"),
            (None, "unknown learner"),
            (0, "unknown learner"),
        ],
    ),
    "illegal_action": one_of_values(
        ["terminate", "raise"], invalid=[("ignore", "unknown illegal_action")]
    ),
    "illegal_reward": one_of_values(
        [-1.0, 0], invalid=[("x", "illegal_reward must be a number")], unknown=[float("nan"), 2**62]
    ),
}
D_SINGLE_CTOR = kwargs_spec({**_SINGLE_COMMON, "max_moves": _MAX})
B_SINGLE_CTOR = kwargs_spec(
    {**_SINGLE_COMMON, "cube": one_of_values([False, True], invalid=[("yes", "cube is a bool")])}
)

_NUM_ENVS = one_of_values(
    [1, 2, 3],
    invalid=[
        (0, "num_envs must be positive"),
        (-1, "num_envs must be positive"),
        (None, "num_envs must be an integer"),
        ("3", "num_envs must be an integer"),
        (2.5, "num_envs must be an integer"),
    ],
    unknown=[3.0, True, np.int64(2)],
)
_VECTOR_OPP = one_of_values(
    ["random", "greedy"],
    invalid=[(None, "unknown opponent"), ("x", "unknown opponent")],
    unknown=[
        lambda o, m: np.zeros(len(o), np.int64),
        lambda o, m: np.full(len(o), -1),
        lambda o, m: None,
        lambda o, m: np.array(m).argmax(1),
    ],
)
D_VECTOR_CTOR = kwargs_spec(
    {"num_envs": _NUM_ENVS, "opponent": _VECTOR_OPP, "max_moves": _MAX}, required=("num_envs",)
)
B_VECTOR_CTOR = kwargs_spec(
    {"num_envs": _NUM_ENVS, "opponent": _VECTOR_OPP}, required=("num_envs",)
)
VECTOR_OPTIONS = one_of_values([None, {}], unknown=[{"x": 1}, "x", 5])


def _vector_seed_problem(v):
    """Why v is certainly not a VectorEnv.reset seed (one seed, or Gymnasium's list of one per
    game: None in a list means that game is unseeded, as in Gymnasium's SyncVectorEnv)."""
    if isinstance(v, list):
        return next(
            (
                f"seed item {x!r} is not a non-negative integer"
                for x in v
                if x is not None and _vector_seed_problem(x)
            ),
            "",
        )
    if (
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) and not 0 <= v < 2**64
    ) or isinstance(v, (float, str)):
        return f"seed {v!r} is not a non-negative integer"
    return ""


# gymnasium's VectorEnv.reset takes one seed or a list of them
VECTOR_SEED = S.Spec(
    st.one_of(
        st.none(),
        st.integers(0, 2**32),
        st.integers(0, 2**32),
        st.lists(st.integers(0, 2**32), max_size=4),
        st.sampled_from(
            [-1, 3.5, "x", [-1, 2], [3, -1], np.int64(5), 2**64, True, [None], [None, None]]
        ),
    ).map(lambda v: S.arg(v, _vector_seed_problem(v))),
    lambda: S.arg(7),
    name="seed",
)

_BATCH_COMMON = {
    "num_envs": _NUM_ENVS,
    "opponent": one_of_values(
        [None, "random", "greedy"], invalid=[("x", "unknown opponent"), (5, "unknown opponent")]
    ),
    "learner": one_of_values(
        ["alternate", "player_0", "player_1", 0, 1],
        invalid=[
            ("player_2", "unknown learner"),
            (2, "unknown learner"),
            (None, "unknown learner"),
        ],
    ),
    "threads": one_of_values(
        [None, 1],
        invalid=[
            (0, "threads must be positive"),
            (-1, "threads must be positive"),
            ("x", "threads must be an integer"),
            (2**62, "more threads than exist"),
        ],
    ),
}
D_BATCH_CTOR = kwargs_spec(
    {
        **_BATCH_COMMON,
        "max_moves": _MAX,
        "fen": S.Spec(st.one_of(st.none().map(S.arg), D_FEN.strategy), lambda: S.arg(None)),
        "repetition": _RULE_FLAG,
    },
    required=("num_envs",),
)
B_BATCH_CTOR = kwargs_spec(
    {
        **_BATCH_COMMON,
        "scoring": one_of_values(["single", "gammon"], invalid=[("x", "unknown scoring")]),
        "max_turns": _MAX_TURNS,
    },
    required=("num_envs",),
)
SNAPSHOT = S.Spec(
    st.one_of(
        st.none(),
        st.tuples(
            st.integers(0, 12),
            st.tuples(
                st.sampled_from(
                    [
                        "none",
                        "drop",
                        "notdict",
                        "core",
                        "reshape",
                        "shorter",
                        "dtype",
                        "value",
                        "value",
                        "value",
                        "value",
                        "nan",
                    ]
                ),
                st.integers(0, 20),
            ),
            st.integers(0, 2**20),
        ),
    ).map(lambda v: Arg(v, describe(v))),
    lambda: Arg(None, "None"),
    name="snapshot",
)
BATCH_SEED = S.Spec(
    st.one_of(st.integers(0, 2**32), st.sampled_from([None, -1, 2**64, 3.5, "x"])).map(
        lambda v: S.arg(
            v, "" if v is None or (isinstance(v, int) and 0 <= v < 2**64) else f"seed {v!r}"
        )
    ),
    lambda: S.arg(3),
    name="seed",
)


def _subset_args(n_actions):
    games = st.one_of(
        st.lists(st.integers(-3, 5), max_size=4).map(lambda v: np.array(v, np.int64)),
        S.odd_arrays(2),
        st.sampled_from([None, 0, "x", [0, 0], [2**62]]),
    )
    acts = st.one_of(
        st.lists(st.integers(-2, n_actions + 2), max_size=4).map(lambda v: np.array(v, np.int64)),
        S.odd_arrays(2),
        st.sampled_from([None, 5, "x", [0], [2**62]]),
    )
    return S.Spec(games.map(S.arg), lambda: S.arg(np.array([0]))), S.Spec(
        acts.map(S.arg), lambda: S.arg(np.array([0]))
    )


def _rng_args():
    rngs = st.one_of(
        st.none(),
        S.odd_arrays(3),
        st.sampled_from(
            [np.zeros(3, np.int64), np.zeros(2, np.int64), np.zeros(100, np.int64), 5, "x"]
        ),
    )
    outs = st.one_of(
        st.none(),
        S.odd_arrays(3),
        st.sampled_from([np.zeros(3, np.int64), np.zeros(1, np.int64), np.zeros(3, np.float64), 5]),
    )

    def rng_arg(v):
        ok = v is None or (isinstance(v, np.ndarray) and v.shape == (3,) and v.dtype == np.int64)
        return S.arg(v, "" if ok else "rngs must be int64 of shape (num_envs,)")

    def out_arg(v):
        ok = v is None or (isinstance(v, np.ndarray) and v.shape == (3,) and v.dtype == np.int64)
        return S.arg(v, "" if ok else "out must be int64 of shape (num_envs,)")

    return (
        S.Spec(rngs.map(rng_arg), lambda: S.arg(None)),
        S.Spec(outs.map(out_arg), lambda: S.arg(None)),
    )


def _driver(fn_, *bound):
    """resolve() of an episode driver with its first arguments bound."""
    return lambda: functools.partial(fn_, *bound)


def _env_targets():
    out = []
    for game, key, n_act, ctor in (
        ("draughts", "draughts_aec", 1024, D_AEC_CTOR),
        ("backgammon", "backgammon_aec", 150, B_AEC_CTOR),
    ):
        for wrapped in (False, True):
            name = f"{MODULES[key][0].rsplit('.', 1)[1]}.{'env' if wrapped else 'raw_env'}"
            out.append(
                Target(
                    name,
                    "aec",
                    _driver(aec_episode, key, wrapped),
                    examples=150,
                    drives=True,
                    pos=(ctor, SEED, _options(game), _plan(n_act)),
                    allowed=(AssertionError,) if wrapped else (),
                    note="PettingZoo's AssertOutOfBoundsWrapper asserts on out-of-range actions"
                    if wrapped
                    else "",
                )
            )
    for cls, game, n_act, ctor in (
        ("RussianDraughtsEnv", "draughts", 1024, D_SINGLE_CTOR),
        ("BackgammonEnv", "backgammon", 150, B_SINGLE_CTOR),
    ):
        out.append(
            Target(
                f"single_agent.{cls}",
                "gym",
                _driver(single_agent_episode, cls),
                examples=100,
                drives=True,
                pos=(ctor, SEED, _options(game), _plan(n_act)),
            )
        )
    for cls, ctor in (("DraughtsVectorEnv", D_VECTOR_CTOR), ("BackgammonVectorEnv", B_VECTOR_CTOR)):
        out.append(
            Target(
                f"vector.{cls}",
                "gym",
                _driver(vector_episode, cls),
                examples=80,
                drives=True,
                pos=(
                    ctor,
                    VECTOR_SEED,
                    VECTOR_OPTIONS,
                    _batch_plan(1024 if "Draughts" in cls else 150),
                ),
            )
        )
    for cls, ctor, n_act in (
        ("DraughtsBatch", D_BATCH_CTOR, 1024),
        ("BackgammonBatch", B_BATCH_CTOR, 150),
    ):
        out.append(
            Target(
                f"batch.{cls}",
                "batch",
                _driver(batch_episode, cls),
                examples=150,
                drives=True,
                pos=(ctor, BATCH_SEED, SNAPSHOT, _batch_plan(n_act)),
            )
        )
        out.append(
            Target(
                f"batch.{cls}.step_subset",
                "batch",
                _driver(batch_methods, cls, 3, "step_subset"),
                examples=40,
                drives=True,
                pos=_subset_args(n_act),
            )
        )
        out.append(
            Target(
                f"batch.{cls}.random_actions",
                "batch",
                _driver(batch_methods, cls, 3, "random_actions"),
                examples=40,
                drives=True,
                pos=_rng_args(),
            )
        )
    return out


# ------------------------------------------------------------------------------------ agents

# registered agent name -> constructor kwargs for the fuzz (small searches: the fuzz is about
# input handling, not playing strength)
AGENT_KWARGS = {
    "random": {"seed": 0},
    "draughts-random": {"seed": 0},
    "draughts-greedy": {"seed": 0},
    "draughts-alphabeta-material": {"depth": 2},
    "draughts-alphabeta": {"depth": 2},
    "draughts-alphabeta-2026": {"depth": 2},
    "draughts-alphabeta-td": {"depth": 2},
    "backgammon-random": {"seed": 0},
    "backgammon-td": {},
    "backgammon-greedy": {"seed": 0},
    "backgammon-expectimax": {"depth": 1},
}
AGENTS_EXCLUDED = {
    "draughts-ppo": "needs torch (the [train] extra)",
    "backgammon-ppo": "needs torch (the [train] extra)",
}
# engine queries per game: method -> argument Specs
AGENT_METHODS = {
    "draughts": {
        "best_move": (D_FEN,),
        "act_state": (D_STATE,),
        "act": (S.observations("draughts"),),
    },
    "backgammon": {
        "best_play": (B_PID, B_DIE, B_DIE),
        "act_state": (B_STATE,),
        "act": (S.observations("backgammon"),),
    },
}
RANDOM_AGENT_METHODS = {  # RandomAgent answers both games' queries, and has no act_state
    "random": {
        "best_move": (D_FEN,),
        "best_play": (B_PID, B_DIE, B_DIE),
        "act": (S.observations("draughts", check_obs=False),),
    },
    "draughts-random": {
        "best_move": (D_FEN,),
        "act": (S.observations("draughts", check_obs=False),),
    },
    "backgammon-random": {
        "best_play": (B_PID, B_DIE, B_DIE),
        "act": (S.observations("backgammon", check_obs=False),),
    },
}
_AGENTS = {}


def agent(name):
    if name not in _AGENTS:
        _AGENTS[name] = module("registry").load(name, **AGENT_KWARGS.get(name, {}))
    return _AGENTS[name]


def _agent_targets():
    out = []
    for name in AGENT_KWARGS:
        game = name.split("-")[0]
        methods = RANDOM_AGENT_METHODS.get(name) or AGENT_METHODS[game]
        for method, specs in methods.items():
            out.append(
                Target(
                    f"agent.{name}.{method}",
                    "agents",
                    (lambda n=name, m=method: getattr(agent(n), m, None)),
                    pos=specs,
                    examples=40 if "alphabeta" in name or "expectimax" in name else 60,
                )
            )
    for fname, specs in (("best_move", (D_FEN,)), ("best_play", (B_PID, B_DIE, B_DIE))):

        def resolve(f=fname):
            from boardgym.agents.random_agent import RandomAgent

            g = getattr(module("engine_query"), f, None)
            if g is None:
                return None
            rnd = RandomAgent(0)
            return lambda *a: g(rnd, *a)

        out.append(Target(f"engine_query.{fname}", "agents", resolve, pos=specs, examples=40))
    load_spec = S.Spec(
        st.one_of(
            st.sampled_from(
                list(AGENT_KWARGS) + ["x", "draughts-x", "backgammon-ppo", "chess-random", ""]
            ),
            S.junk_values(),
        ).map(S.arg),
        lambda: S.arg("random"),
    )
    game_spec = S.Spec(
        st.sampled_from([None, "draughts", "backgammon", "chess", 5]).map(S.arg),
        lambda: S.arg(None),
    )
    out.append(
        Target(
            "registry.load",
            "agents",
            lambda: lambda name, game=None: module("registry").load(name, game=game),
            pos=(load_spec,),
            kw={"game": game_spec},
            examples=40,
        )
    )
    return out


# ------------------------------------------------------------------- the harness's own check


def _misbehaving():
    from misbehaving_target import misbehave  # tests/helpers: outside the fuzz code's own files

    return misbehave


def _selftest_targets():
    out = []
    for name, values in (
        ("segfault", (0, 2, 13)),
        ("hang", (0, 7)),
        ("numba_message", (0, 5)),
        ("wrong_exception", (0, 3)),
        ("accepts_invalid", (0, 1)),
        ("clean", (0, 2, 4)),
    ):
        spec = S.Spec(
            st.sampled_from(values).map(
                lambda v: Arg(v, repr(v), "one is invalid" if v == 1 else "")
            ),
            lambda: Arg(0, "0"),
        )
        out.append(Target(f"selftest.{name}", "selftest", _misbehaving, pos=(spec,), examples=20))
    return out


# --------------------------------------------------------------------------------- the table


def _api_targets():
    out = []
    for mod_key, table in API.items():
        group = "draughts_api" if mod_key.startswith("draughts") else "backgammon_api"
        for fname, entry in table.items():

            def resolve(k=mod_key, f=fname):
                return getattr(module(k), f, None)

            out.append(
                Target(
                    f"{mod_key}.{fname}",
                    group,
                    resolve,
                    pos=entry["pos"],
                    kw=entry["kw"],
                    examples=entry["examples"],
                    warmup=entry["warmup"],
                )
            )
    return out


TARGETS = _api_targets() + _env_targets() + _agent_targets() + _selftest_targets()
BY_NAME = {t.name: t for t in TARGETS}
GROUPS = sorted({t.group for t in TARGETS})


def targets_of(group):
    return [t for t in TARGETS if t.group == group]
