"""GNU Backgammon (the ``gnubg`` Python module) as an opponent and judge in match play.

Evaluation only: gnubg is GPL-3, imported by this module alone (the evaluation scripts and tests
use it; library code never does), and nothing it says is used to train anything.

- ``gnubg_module()`` imports gnubg once and sets it up for being driven: one thread (with more,
  the module can hang when driven from Python), no sound, both players human (gnubg never plays
  on its own), no Jacoby rule, no beavers (as boardgym's rules, RULES.md C.1-C.2, MP.4), and
  the evaluation at the plies asked for, for checker play and cube decisions alike.
- ``run(command)`` runs a gnubg command and returns what it printed (gnubg prints through C
  stdio, so file descriptors 1 and 2 are redirected while it runs).
- ``GnubgAgent(plies)``: an AfterstateAgent (agents/backgammon/agents.py) that plays as gnubg at
  that many plies with gnubg's own cube decisions, for money or at a match score (``set_match``,
  as the match loop tells every agent). Its checker play is the afterstate whose position, with
  the opponent on roll, ``gnubg.evaluate`` values lowest for the opponent (cubeful, at the
  match score and cube; a play that wins the game: the one that wins most); ``find_best_move``
  is not used, as its answer loses the steps after a checker borne off. Its cube decision loads
  the position and match state by their GNU Backgammon ID (Position ID + Match ID,
  envs/backgammon_ids.py) and reads ``hint``'s "Proper cube action" line (for the doubler's
  position; its second half is the taker's answer).
- ``play_gnubg_matches``: duplicate-dice matches of an agent against an opponent (each dice seed
  played with the agent as player_0 and as player_1), appended to a JSON-lines results file as
  they finish, so a long run resumes where it stopped; ``summarize_matches`` reads them back.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

from boardgym.agents.backgammon.agents import AfterstateAgent, check_set_match
from boardgym.agents.backgammon.game_loop import play_afterstate_match
from boardgym.envs import backgammon_notation as notation
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import CUBE_OWNER, CUBE_VALUE, N_CHECKERS, OFF_ME, TURN

_MODULE = None
_PLIES = None


def run(command: str | Callable[[], object]) -> str:
    """Run a gnubg command (a string for ``gnubg.command``, or a callable) and return what gnubg
    printed on stdout and stderr while it ran."""
    g = gnubg_module()
    call = (lambda: g.command(command)) if isinstance(command, str) else command
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as f:
        saved = os.dup(1), os.dup(2)
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        try:
            call()
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        f.seek(0)
        return f.read().decode("utf-8", errors="replace")


def gnubg_module(plies: int | None = None):
    """The gnubg module, set up once (module docstring); plies (0..4) sets the evaluation depth of
    its checker play and cube decisions. SystemExit with the install hint when it is missing."""
    global _MODULE, _PLIES
    if _MODULE is None:
        try:
            import gnubg
        except ImportError:  # pragma: no cover - the test extra installs it
            raise SystemExit(
                "this needs GNU Backgammon's Python module: pip install gnubg (GPL-3, evaluation "
                "only)"
            ) from None
        _MODULE = gnubg
        for c in (
            "set threads 1",
            "set sound enable off",
            "set player 0 human",
            "set player 1 human",
            "set jacoby off",
            "set beavers 0",
            "set automatic doubles 0",
            "set cube use on",
        ):
            run(c)
    if plies is not None and plies != _PLIES:
        if not notation.is_int(plies) or not 0 <= plies <= 4:
            raise ValueError(f"gnubg plies must be 0..4, got {plies!r}")
        run(f"set evaluation chequerplay evaluation plies {plies}")
        run(f"set evaluation cubedecision evaluation plies {plies}")
        _PLIES = plies
    return _MODULE


_ACTION = re.compile(r"Proper cube action:\s*([^\n(]*)")


def parse_cube_hint(text: str) -> tuple[bool, bool]:
    """(double, take) of gnubg's ``hint`` output for a position before the roll: whether the
    player on roll should double, and whether its opponent should take a double; ValueError when
    the text holds no cube action."""
    if "You cannot double" in text or "cannot double" in text:
        return False, True
    m = _ACTION.search(text)
    if not m:
        raise ValueError(f"no 'Proper cube action' in gnubg's hint: {text[-300:]!r}")
    action = m.group(1).strip().lower()
    first, _, second = action.partition(",")
    double = first.strip().startswith(("double", "redouble"))
    second = second.strip()
    if not second:
        raise ValueError(f"gnubg's cube action has no answer: {action!r}")
    take = second.startswith(("take", "beaver"))
    return double, take


def play_equities(state, rows, match, plies, cubeful=True):
    """gnubg's cubeful equity (normalised, the mover's view) of each afterstate in rows of the
    position on roll state, at match = (length, score_me, score_opp, crawford) of the mover,
    evaluated with the opponent on roll at plies (cubeful False: its cubeless money equity);
    rows must not end the game."""
    g = gnubg_module(plies)
    length, me, opp, crawford = match
    player = int(state[TURN])  # the opponent is on roll after our play: gnubg's player 1
    owner = int(state[CUBE_OWNER])
    info = g.cube_info(
        int(state[CUBE_VALUE]),
        -1 if owner < 0 else (0 if owner == player else 1),
        1,
        length,
        (me, opp),
        int(crawford and length > 0),
        0,
    )
    context = g.eval_context(int(cubeful), plies, 1, 1, 0)
    return np.array(
        [
            -g.evaluate(notation.board_from_state(game.pass_turn(rows[k])), info, context)[5]
            for k in range(rows.shape[0])
        ]
    )


_CUBE_EQ = re.compile(
    r"^\s*\d\.\s*(No (?:re)?double|(?:Re)?[Dd]ouble, (?:pass|take|beaver))\s+([+-]\d+\.\d+)",
    re.M,
)


def parse_cube_equities(text: str) -> dict[str, float]:
    """gnubg's cubeful equities of a cube decision in its ``hint`` text: {"nd": no double, "dt":
    double/take, "dp": double/pass}, the doubler's view; ValueError when they are missing."""
    out = {}
    for label, value in _CUBE_EQ.findall(text):
        label = label.lower()
        key = "nd" if label.startswith("no") else "dp" if label.endswith("pass") else "dt"
        out[key] = float(value)
    if set(out) != {"nd", "dt", "dp"}:
        raise ValueError(f"no cubeful equities in gnubg's hint: {text[-300:]!r}")
    return out


def cube_error(eq: dict[str, float], offered: bool, action: int) -> float:
    """Equity lost by a cube action (normalised, >= 0): the doubler's (offered False: ACTION_DOUBLE
    or ACTION_ROLL) against max(no double, min(take, pass)); the taker's (offered True:
    ACTION_TAKE or ACTION_DROP) against min(take, pass) of the doubler's equities."""
    after = min(eq["dt"], eq["dp"])
    if offered:
        mine = eq["dt"] if action == game.ACTION_TAKE else eq["dp"]
        return max(0.0, mine - after)
    mine = after if action == game.ACTION_DOUBLE else eq["nd"]
    return max(0.0, max(eq["nd"], after) - mine)


CLOSE_CUBE = 0.16  # gnubg's closeness of a cube decision (its eval.c isCloseCubedecision)


def is_close_cube(eq: dict[str, float], offered: bool) -> bool:
    """Whether gnubg's statistics count a cube decision as one (its "close or actual" cube
    decisions, the denominator of its error rate per decision): every answer to a double
    (offered True), and a doubler's decision whose best equity, max(no double, min(take,
    pass)), is within CLOSE_CUBE of min(double/take, 1) (the published definition of gnubg's
    isCloseCubedecision); the equities are the doubler's, as parse_cube_equities gives them."""
    if offered:
        return True
    optimal = max(eq["nd"], min(eq["dt"], eq["dp"]))
    return optimal - min(eq["dt"], 1.0) < CLOSE_CUBE


def load_position(state, match, offered, plies):
    """Load the position on roll of state (before its roll) and the match into gnubg by its GNU
    Backgammon ID; match = (length, score_me, score_opp, crawford) of the player on roll, or of
    its opponent when offered (it is being doubled)."""
    g = gnubg_module(plies)
    length, me, opp, crawford = match
    if offered:
        me, opp = opp, me
    score = (me, opp) if int(state[TURN]) == 0 else (opp, me)
    mid = notation.match_id(
        state, dice=(0, 0), match_length=length, score=score, crawford=crawford and length > 0
    )
    if length == 0:
        run("new session")
    run(lambda: g.set_gnubg_id(f"{notation.position_id(state)}:{mid}"))
    if length == 0:
        run("set jacoby off")  # new session takes the default; our money game has none


class CubefulJudge:
    """GNU Backgammon's cubeful money equity at plies as a luck judge for cubeful money games
    (agents/backgammon/luck.py's judge interface, evaluation only): ``judge(rows)`` values each
    afterstate for the player who moved, per cube unit, with the cube as the afterstate has it:
    minus the cubeful equity of the opponent on roll after it (which counts the opponent's own
    cube decision), or the exact points per cube (1, 2, 3) of a play that ends the game. The
    luck of a roll is then the cube value times the change it makes in cubeful equity, so a
    decided game at a high cube carries little luck, as its points do."""

    def __init__(self, plies: int = 0) -> None:
        if not notation.is_int(plies) or not 0 <= plies <= 4:
            raise ValueError(f"gnubg plies must be 0..4, got {plies!r}")
        self.plies = int(plies)

    def __call__(self, rows):
        rows = np.asarray(rows)
        out = np.empty(rows.shape[0])
        over = rows[:, OFF_ME] == N_CHECKERS
        for k in np.flatnonzero(over):  # the kind (1, 2, 3): points per cube unit
            out[k] = game.result(game.pass_turn(rows[k]), game.SCORING_GAMMON)[1]
        live = np.flatnonzero(~over)
        if live.size:
            out[live] = play_equities(rows[live[0]], rows[live], (0, 0, 0, False), self.plies)
        return out


#: the phases a judged checker play is counted in (``phase_of``)
PHASES = ("contact", "race", "bearoff")


def phase_of(state):
    """The phase of the position on roll (mover's view) as an index into PHASES: contact while the
    sides can still hit each other (agents/backgammon/features.py ``is_contact``), bear-off when
    both sides have every checker home or off (``in_bearoff``), else race."""
    from boardgym.agents.backgammon.features import in_bearoff, is_contact

    if is_contact(state):
        return 0
    return 2 if in_bearoff(state) else 1


class Analyst:
    """gnubg's judgement at plies of an agent's decisions (evaluation only): each checker play's
    equity lost against gnubg's best of the same afterstates (cubeful, or with cubeful False
    cubeless money equity, for cubeless games) (plays that end the game are not
    judged) and each cube decision's (``cube_error`` on ``hint``'s cubeful equities; a decision
    where gnubg says no one can double, its dead cube, is counted apart), in normalised equity;
    play_gnubg_matches keeps the counts and sums per match and summarize_matches gives the means
    x 1000 (mEMG). checker False: cube decisions only (the checker plays are not judged, the
    slow part at 2 plies). keep True: each judged cube decision is also kept in ``records`` (the
    position, the match as (length, score_me, score_opp, crawford) of the player on roll, offered,
    the action, gnubg's equities, the error, close or actual, the plies), which
    play_gnubg_matches and play_gnubg_money append to a cube log (``write_cube_log``) that
    ``boardgym cube-bench`` re-decides with any agent."""

    def __init__(
        self, plies: int = 2, cubeful: bool = True, checker: bool = True, keep: bool = False
    ) -> None:
        if not notation.is_int(plies) or not 0 <= plies <= 4:
            raise ValueError(f"gnubg plies must be 0..4, got {plies!r}")
        self.plies = int(plies)
        self.cubeful = bool(cubeful)
        self.judge_checker = bool(checker)
        self.keep = bool(keep)
        self.records = []  # keep: one dict per judged cube decision (the cube log's fields)
        self.match = (0, 0, 0, False)
        self.checker = []
        self.checker_phase = []  # per judged play: its phase_of
        self.cube = []
        self.cube_close = []  # per judged cube decision: close or actual (is_close_cube)
        self.unjudged = 0  # cube decisions gnubg has none for (a cube it deems dead)
        self.unjudged_doubles = 0  # ... of them, the doubles made there

    def set_match(self, length, score_me, score_opp, crawford, post_crawford):
        self.match = (int(length), int(score_me), int(score_opp), bool(crawford))

    def judge_play(self, state, rows, k):
        if not self.judge_checker or rows.shape[0] < 2 or (rows[:, OFF_ME] == N_CHECKERS).any():
            return
        eq = play_equities(state, rows, self.match, self.plies, self.cubeful)
        self.checker.append(float(eq.max() - eq[k]))
        self.checker_phase.append(phase_of(state))

    def judge_cube(self, state, offered, action):
        load_position(state, self.match, bool(offered), self.plies)
        text = run("hint")
        if "cannot double" in text:  # gnubg's dead cube, where its match play has no double
            self.unjudged += 1
            self.unjudged_doubles += int(not offered and action == game.ACTION_DOUBLE)
            return
        eq = parse_cube_equities(text)
        self.cube.append(cube_error(eq, bool(offered), action))
        self.cube_close.append(is_close_cube(eq, bool(offered)))
        if self.keep:
            self.records.append(
                {
                    "state": [int(v) for v in state],
                    "match": list(self.match),
                    "offered": bool(offered),
                    "action": int(action),
                    "eq": eq,
                    "err": round(self.cube[-1], 6),
                    "close": self.cube_close[-1],
                    "plies": self.plies,
                }
            )


class GnubgAgent(AfterstateAgent):
    """GNU Backgammon at plies (0..4) with its own cube decisions, for money or at the match score
    it is told by ``set_match`` (module docstring); cubeful False: its checker play by cubeless
    money equity (for cubeless games)."""

    def __init__(self, plies: int = 0, cubeful: bool = True) -> None:
        super().__init__()
        if not notation.is_int(plies) or not 0 <= plies <= 4:
            raise ValueError(f"gnubg plies must be 0..4, got {plies!r}")
        self.plies = int(plies)
        self.cubeful = bool(cubeful)
        self.cube_policy = "gnubg"
        self.set_match(0, 0, 0, False, False)

    def set_match(
        self, length: int, score_me: int, score_opp: int, crawford: bool, post_crawford: bool
    ) -> None:
        """The match (length 0: money play) and its score from this agent's seat."""
        self._match = (int(length), int(score_me), int(score_opp), bool(crawford))

    def _pick(self, state, rows):
        n = rows.shape[0]
        if n == 1:
            return 0
        over = np.flatnonzero(rows[:, OFF_ME] == N_CHECKERS)
        if over.size:  # a play that wins: the one that wins most (O.3)
            return int(max(over, key=lambda k: game.result(rows[k], game.SCORING_GAMMON)[2]))
        return int(np.argmax(play_equities(state, rows, self._match, self.plies, self.cubeful)))

    def _choose(self, rows):
        raise TypeError("GnubgAgent plays from a position on roll (its _pick), not from rows alone")

    def cube_hint(self, state, offered: bool = False) -> tuple[bool, bool]:
        """gnubg's (double, take) for the player on roll of state (before its roll): this agent
        (offered False) or its opponent, who doubles it (offered True)."""
        load_position(state, self._match, offered, self.plies)
        return parse_cube_hint(run("hint"))

    def cube_action(self, state, offered, policy=None) -> int:
        """gnubg's cube action: offered False, it is on roll in state -> ACTION_DOUBLE or
        ACTION_ROLL; offered True, state is the doubler's -> ACTION_TAKE or ACTION_DROP."""
        if state[CUBE_OWNER] not in (-1, state[TURN]):
            raise ValueError("the player on roll of state cannot double: the cube is not its own")
        double, take = self.cube_hint(state, bool(offered))
        if offered:
            return game.ACTION_TAKE if take else game.ACTION_DROP
        return game.ACTION_DOUBLE if double else game.ACTION_ROLL


def read_cube_log(path: str) -> list[dict]:
    """The cube decisions of a cube log (write_cube_log's JSON lines; a name ending in .gz is
    read as gzip), one per (length, seed0, pair, seat, k) key, the last line of a key winning (lines
    without the keys are each their own). ValueError naming the file and line of a line that is
    not such a decision; OSError when the file cannot be read."""
    import gzip

    opener = gzip.open if str(path).endswith(".gz") else open
    out = {}
    with opener(path, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                _check_record(r)
            except (json.JSONDecodeError, ValueError, TypeError) as e:
                raise ValueError(f"{path}, line {i}: not a cube decision ({e})") from None
            key = ("line", i)
            if "pair" in r:
                key = tuple(r.get(k) for k in ("length", "seed0", "pair", "seat", "k"))
            out[key] = r
    return list(out.values())


def _check_record(r):
    """ValueError unless r is one cube decision of a cube log (the fields re-deciding needs)."""
    if not isinstance(r, dict):
        raise ValueError("a line must be a JSON object")
    missing = {"state", "match", "offered", "action", "eq"} - set(r)
    if missing:
        raise ValueError(f"missing {', '.join(sorted(missing))}")
    state, match, eq = r["state"], r["match"], r["eq"]
    if not isinstance(state, list) or not all(notation.is_int(v) for v in state):
        raise ValueError("state must be a list of integers")
    notation.check_state(np.array(state, dtype=np.int64))
    if not isinstance(r["offered"], bool):
        raise ValueError(f"offered must be true or false, got {r['offered']!r}")
    answers = (game.ACTION_TAKE, game.ACTION_DROP)
    if r["action"] not in (answers if r["offered"] else (game.ACTION_DOUBLE, game.ACTION_ROLL)):
        raise ValueError(f"action {r['action']!r} is not a cube action of this decision")
    if (
        not isinstance(match, list)
        or len(match) != 4
        or not all(notation.is_int(v) for v in match[:3])
        or not isinstance(match[3], bool)
    ):
        raise ValueError(f"match must be [length, score_me, score_opp, crawford], got {match!r}")
    check_set_match(*match, False)
    if not isinstance(eq, dict) or set(eq) != {"nd", "dt", "dp"}:
        raise ValueError(f"eq must hold nd, dt and dp, got {eq!r}")
    if not all(isinstance(v, (int, float)) and np.isfinite(v) for v in eq.values()):
        raise ValueError(f"eq must be finite numbers, got {eq!r}")


def _done(path):
    """The results already in the JSON-lines file at path (missing file: none)."""
    if not path or not os.path.exists(path):
        return []
    out = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                raise ValueError(f"{path}, line {i}: not a JSON result line") from None
    return out


def play_gnubg_matches(
    agent: AfterstateAgent,
    opponent: AfterstateAgent,
    length: int,
    n_pairs: int,
    seed: int,
    results: str | None = None,
    progress: Callable[[list[dict]], None] | None = None,
    analyst: Analyst | None = None,
    cube_log: str | None = None,
    name: str = "",
) -> list[dict]:
    """Play n_pairs pairs of matches to length points, each pair on one dice seed (seed * 1_000_003
    + pair) with the agent as player_0 and then as player_1 -> one dict per match: pair, seat
    (the agent's), dice seed, winner, agent_won (0/1), final score, games, agent's CPU seconds
    and, with an analyst, the agent's checker and cube decisions judged (counts and summed
    errors). results: a JSON-lines file the matches are appended to as they finish; matches it
    already holds (same length and seed) are not played again. cube_log: with an analyst that
    keeps its records, the file each finished match's judged cube decisions are appended to
    (write_cube_log; name: the agent's spec, kept in each line)."""
    rows = [r for r in _done(results) if r.get("length") == length and r.get("seed0") == seed]
    have = {(r["pair"], r["seat"]) for r in rows}
    for pair in range(n_pairs):
        dice_seed = seed * 1_000_003 + pair
        for seat in (0, 1):
            if (pair, seat) in have:
                continue
            n0 = _counts(analyst)
            row = _one_match(agent, opponent, length, dice_seed, seat, analyst)
            row.update(length=length, seed0=seed, pair=pair)
            rows.append(row)
            keys = {"agent": name, "length": length, "seed0": seed, "pair": pair, "seat": seat}
            write_cube_log(cube_log, analyst, n0, keys)
            if results:
                with open(results, "a", encoding="utf-8") as f:
                    f.write(json.dumps(row) + "\n")
            if progress is not None:
                progress(rows)
    return sorted(rows, key=lambda r: (r["pair"], r["seat"]))


@contextlib.contextmanager
def _watched(agent, analyst=None):
    """Within the block, agent's play and cube decisions are timed (CPU seconds summed into the
    yielded list's one element) and, with an analyst, judged; the match loop's set_match reaches
    both. The agent's own methods are back afterwards."""
    clock = [0.0]
    pick, cube_action = agent._pick, agent.cube_action
    told = getattr(agent, "set_match", None)

    def timed_pick(state, rows):
        t = time.process_time()
        k = pick(state, rows)
        clock[0] += time.process_time() - t
        if analyst is not None:
            analyst.judge_play(state, rows, k)
        return k

    def timed_cube(state, offered, policy=None):
        t = time.process_time()
        a = cube_action(state, offered, policy)
        clock[0] += time.process_time() - t
        if analyst is not None:
            analyst.judge_cube(state, offered, a)
        return a

    def set_match(length, score_me, score_opp, crawford, post_crawford):
        if analyst is not None:
            analyst.set_match(length, score_me, score_opp, crawford, post_crawford)
        if callable(told):
            told(length, score_me, score_opp, crawford, post_crawford)

    names = ("_pick", "cube_action", "set_match")
    own = {k: agent.__dict__[k] for k in names if k in agent.__dict__}
    agent._pick, agent.cube_action, agent.set_match = timed_pick, timed_cube, set_match
    try:
        yield clock
    finally:
        for k in names:  # the agent's own methods again
            del agent.__dict__[k]
        agent.__dict__.update(own)


def _one_match(agent, opponent, length, dice_seed, seat, analyst):
    """One match of play_gnubg_matches (the agent in seat), its row without the run's keys."""
    n0 = _counts(analyst)
    seats = [agent, opponent] if seat == 0 else [opponent, agent]
    with _watched(agent, analyst) as clock:
        r = play_afterstate_match(seats[0], seats[1], dice_seed, length)
    row = {
        "seat": seat,
        "dice_seed": dice_seed,
        "winner": r.winner,
        "agent_won": int(r.winner == seat),
        "score": list(r.score),
        "games": len(r.games),
        "agent_seconds": round(clock[0], 3),
    }
    if analyst is not None:
        row.update(_judged(analyst, n0))
    return row


def _counts(analyst):
    """How many decisions analyst has judged so far (None without one)."""
    if analyst is None:
        return None
    return (
        len(analyst.checker),
        len(analyst.cube),
        analyst.unjudged,
        analyst.unjudged_doubles,
        len(analyst.records),
    )


def write_cube_log(path, analyst, n0, keys):
    """Append the cube decisions analyst kept since _counts gave n0 to the JSON-lines file at path,
    each with keys (the run's: agent, length, seed0, pair, seat) and its index k in the match or
    pair; read_cube_log keeps one line per (length, seed0, pair, seat, k), so a match played
    again after a stop mid-way is not counted twice. A path ending in .gz is written gzipped (each
    append a gzip member of its own, which read_cube_log reads as one stream)."""
    if not path or analyst is None:
        return
    import gzip

    new = analyst.records[n0[4] :]
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "at", encoding="utf-8") as f:
        f.writelines(json.dumps({**keys, "k": k, **r}) + "\n" for k, r in enumerate(new))


def _judged(analyst, n0):
    """The result-row keys of the decisions analyst judged since _counts gave n0."""
    checker, cube = analyst.checker[n0[0] :], analyst.cube[n0[1] :]
    phase = np.array(analyst.checker_phase[n0[0] :], dtype=np.int64)
    by_phase = {
        "checker_phase_n": np.bincount(phase, minlength=len(PHASES)).tolist(),
        "checker_phase_err": [
            round(float(v), 6)
            for v in np.bincount(phase, weights=np.array(checker), minlength=len(PHASES))
        ],
    }
    return {
        "analysis_plies": analyst.plies,
        "checker_n": len(checker),
        "checker_err": round(sum(checker), 6),
        **(by_phase if analyst.judge_checker else {}),
        "cube_n": len(cube),
        "cube_err": round(sum(cube), 6),
        "cube_close_n": sum(analyst.cube_close[n0[1] :]),
        "cube_unjudged": analyst.unjudged - n0[2],
        "cube_unjudged_doubles": analyst.unjudged_doubles - n0[3],
        **({} if analyst.judge_checker else {"checker_judged": False}),
    }


def play_gnubg_money(
    agent: AfterstateAgent,
    opponent: AfterstateAgent,
    judge: Callable[[np.ndarray], np.ndarray],
    n_pairs: int,
    seed: int,
    results: str | None = None,
    progress: Callable[[list[dict]], None] | None = None,
    cube: bool = True,
    analyst: Analyst | None = None,
    judge_name: str = "",
    cube_log: str | None = None,
    name: str = "",
) -> list[dict]:
    """Play n_pairs pairs of money games, cubeful (cube True: the env's cube game, no Jacoby
    rule, no beavers) or cubeless, gammons counted, each pair on one dice seed (seed * 1_000_003
    + pair) with the agent as player_0 and then as player_1, through the one match harness
    (agents.arena.matches.play_adjusted_match) -> one dict per game: pair, seat, points (the
    agent's, cube included), luck (the agent's rolls' luck minus the opponent's under judge,
    each roll's times the cube value it was rolled at), the agent's CPU seconds and, with an
    analyst, its checker plays judged (count and summed error, over the pair). results: a
    JSON-lines file the pairs are appended to as they finish; pairs it already holds (money rows
    of the same seed, cube and judge_name, the luck judge's name kept in each row) are not played
    again. cube_log, name: as play_gnubg_matches (length 0, per pair: seat -1)."""
    from boardgym.agents.arena.matches import play_adjusted_match

    rows = [
        r
        for r in _done(results)
        if r.get("money")
        and r.get("seed0") == seed
        and r.get("cube", 1) == int(cube)
        and r.get("luck_judge", "") == judge_name
    ]
    have = {r["pair"] for r in rows}
    for pair in range(n_pairs):
        if pair in have:
            continue
        n0 = _counts(analyst)
        with _watched(agent, analyst) as clock:
            pts, luck = play_adjusted_match(
                agent, opponent, judge, 2, seed * 1_000_003 + pair, cube=cube
            )
        new = [
            {
                "money": 1,
                "cube": int(cube),
                "seed0": seed,
                "pair": pair,
                "seat": seat,
                "points": float(pts[seat]),
                "luck": round(float(luck[seat]), 6),
                "luck_judge": judge_name,
                "agent_seconds": round(clock[0] / 2, 3),
            }
            for seat in (0, 1)
        ]
        if analyst is not None:
            new[0].update(_judged(analyst, n0))  # the pair's decisions, on its first row
        rows.extend(new)
        keys = {"agent": name, "length": 0, "seed0": seed, "pair": pair, "seat": -1}
        write_cube_log(cube_log, analyst, n0, keys)
        if results:
            with open(results, "a", encoding="utf-8") as f:
                f.writelines(json.dumps(r) + "\n" for r in new)
        if progress is not None:
            progress(rows)
    return sorted(rows, key=lambda r: (r["pair"], r["seat"]))


def summarize_money_rows(rows: list[dict]) -> dict:
    """Raw and luck-adjusted money results of play_gnubg_money's complete pairs
    (agents/arena/stats.summarize_money: points per game with the paired 95% interval), the
    agent's CPU seconds per game and, where rows were judged, the error rates in mEMG per
    decision (analysis: summarize_matches' keys, with games for matches)."""
    from boardgym.agents.arena import stats

    by_pair = {}
    for r in rows:
        by_pair.setdefault(r["pair"], {})[r["seat"]] = r
    pairs = [by_pair[p] for p in sorted(by_pair) if len(by_pair[p]) == 2]
    if not pairs:
        raise ValueError("no complete pair of games to summarize")
    pts = np.array([p[s]["points"] for p in pairs for s in (0, 1)])
    luck = np.array([p[s]["luck"] for p in pairs for s in (0, 1)])
    out = {
        "raw": stats.summarize_money(pts),
        "adjusted": stats.summarize_money(pts - luck),
        "agent_seconds_per_game": float(
            np.mean([p[s]["agent_seconds"] for p in pairs for s in (0, 1)])
        ),
    }
    judged = [p[0] for p in pairs if "checker_n" in p[0]]
    if judged:
        out["analysis"] = {"games": 2 * len(judged), **_analysis(judged)}
    return out


def _money_pairs(path):
    """{(seed0, cube, luck_judge, pair): ((points, luck) of seat 0, of seat 1)} of the complete
    pairs of money games in the results file at path (play_gnubg_money's rows). ValueError naming
    the file when it is missing or holds no complete pair of money games."""
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such results file")
    by_key = {}
    for r in _done(path):
        if not (isinstance(r, dict) and r.get("money")):
            continue
        try:
            key = (int(r["seed0"]), int(r["cube"]), str(r["luck_judge"]), int(r["pair"]))
            seat, points, luck = int(r["seat"]), float(r["points"]), float(r["luck"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{path}: a money result lacks {e}") from None
        if seat not in (0, 1) or not (np.isfinite(points) and np.isfinite(luck)):
            raise ValueError(f"{path}: a money result of seat {seat}, points {points}, luck {luck}")
        by_key.setdefault(key, {})[seat] = (points, luck)
    pairs = {k: (v[0], v[1]) for k, v in by_key.items() if len(v) == 2}
    if not pairs:
        raise ValueError(f"{path}: no complete pair of money games (eval-gnubg --results)")
    return pairs


def _side_pairs(paths):
    """_money_pairs of one side of a comparison: a list of paths (runs on other seeds, say),
    their pairs together; ValueError when two of its files hold the same dice pair."""
    if not paths:
        raise ValueError("no results file")
    out = {}
    for path in paths:
        pairs = _money_pairs(path)
        twice = sorted(set(out) & set(pairs))
        if twice:
            seed, _, judge, pair = twice[0]
            raise ValueError(
                f"{path}: dice pair {pair} of seed {seed} (luck judge {judge}) is in another file"
                " of the same side too"
            )
        out.update(pairs)
    return out


def compare_money(path_a: str | list[str], path_b: str | list[str]) -> dict:
    """Two agents' money games on the same dice (eval-gnubg --results files of runs with the same
    --seed, --cube and luck judge, matched by those and the pair; the opponent is not recorded:
    the caller keeps it the same). Each side is one file or a list of files (runs on several
    seeds), their dice pairs together. -> each one's luck-adjusted points per game over the dice
    pairs both sides hold (agents/arena/stats.summarize_money) and B minus A game by game, with
    the paired 95% interval over those dice pairs (stats.paired_interval): {"pairs", "cube", "a",
    "b", "diff", "diff_interval", "only_a", "only_b"} (only_*: complete pairs of one side alone,
    left out). ValueError when a file is missing or unreadable, a side holds a dice pair twice or
    the two share no dice pair."""
    from boardgym.agents.arena import stats

    side_a, side_b = ([p] if isinstance(p, str) else list(p) for p in (path_a, path_b))
    a, b = _side_pairs(side_a), _side_pairs(side_b)
    common = sorted(set(a) & set(b))
    if not common:
        raise ValueError(
            f"{','.join(side_a)} and {','.join(side_b)} share no dice pair (the same --seed,"
            " --cube and luck judge)"
        )
    adj_a = np.array([p - lk for k in common for p, lk in a[k]])
    adj_b = np.array([p - lk for k in common for p, lk in b[k]])
    diff = adj_b - adj_a
    return {
        "pairs": len(common),
        "cube": sorted({k[1] for k in common}),
        "a": stats.summarize_money(adj_a),
        "b": stats.summarize_money(adj_b),
        "diff": float(diff.mean()),
        "diff_interval": stats.paired_interval(diff),
        "only_a": len(a) - len(common),
        "only_b": len(b) - len(common),
    }


def _analysis(judged):
    """Error rates (mEMG per decision) and counts summed over result rows with _judged's keys."""
    cn = sum(r["checker_n"] for r in judged)
    qn = sum(r["cube_n"] for r in judged)
    counted = [r for r in judged if "cube_close_n" in r]  # rows from before it have no count
    close = sum(r["cube_close_n"] for r in counted)
    decisions = sum(r["checker_n"] + r["cube_close_n"] for r in counted)
    errors = sum(r["checker_err"] + r["cube_err"] for r in counted)
    if not all(r.get("checker_judged", True) for r in counted):
        decisions = 0  # no overall rate over cube decisions alone
    return {
        "plies": sorted({r["analysis_plies"] for r in judged}),
        "checker_decisions": cn,
        "checker_memg": 1000 * sum(r["checker_err"] for r in judged) / cn if cn else None,
        "checker_phases": _by_phase(judged),
        "cube_decisions": qn,
        "cube_memg": 1000 * sum(r["cube_err"] for r in judged) / qn if qn else None,
        "cube_close_decisions": close,
        "cube_memg_close": 1000 * sum(r["cube_err"] for r in counted) / close if close else None,
        "overall_memg": 1000 * errors / decisions if decisions else None,
        "cube_unjudged": sum(r.get("cube_unjudged", 0) for r in judged),
        "cube_unjudged_doubles": sum(r.get("cube_unjudged_doubles", 0) for r in judged),
    }


def _by_phase(judged):
    """{phase: {"decisions", "memg"}} of the checker plays judged in rows that count them by
    phase (None when no row does: rows written before the count was kept)."""
    rows = [r for r in judged if "checker_phase_n" in r]
    if not rows:
        return None
    n = np.sum([r["checker_phase_n"] for r in rows], axis=0)
    err = np.sum([r["checker_phase_err"] for r in rows], axis=0)
    return {
        name: {"decisions": int(n[i]), "memg": 1000 * float(err[i]) / n[i] if n[i] else None}
        for i, name in enumerate(PHASES)
    }


def summarize_matches(rows: list[dict]) -> dict:
    """Match win rate of the agent with its 95% intervals: Wilson over matches, and the paired
    interval over complete pairs (agents/arena/stats.py; None below 10 pairs or when every pair
    scored the same); games and agent seconds per match."""
    from boardgym.agents.arena import stats

    n = len(rows)
    won = sum(r["agent_won"] for r in rows)
    by_pair = {}
    for r in rows:
        by_pair.setdefault(r["pair"], {})[r["seat"]] = r["agent_won"]
    paired = [v for p in sorted(by_pair) if len(by_pair[p]) == 2 for v in by_pair[p].values()]
    interval = None  # the paired interval needs enough pairs that differ
    if len(paired) >= 20 and np.std(np.reshape(paired, (-1, 2)).mean(axis=1)) > 0:
        lo, hi = stats.paired_interval(paired)
        interval = (max(0.0, lo), min(1.0, hi))
    out = {
        "matches": n,
        "won": won,
        "rate": won / n if n else float("nan"),
        "wilson": stats.wilson(won, n),
        "paired_pairs": len(paired) // 2,
        "paired": interval,
        "games_per_match": sum(r["games"] for r in rows) / n if n else float("nan"),
        "agent_seconds_per_match": sum(r["agent_seconds"] for r in rows) / n if n else float("nan"),
    }
    judged = [r for r in rows if "cube_n" in r]

    if judged:
        out["analysis"] = {"matches": len(judged), **_analysis(judged)}
    return out
