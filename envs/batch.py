"""Batched game cores: N games as one int64 array, stepped by the parallel kernels.

``DraughtsBatch`` (boardgym.kernels.draughts.batch) and ``BackgammonBatch``
(boardgym.kernels.backgammon.batch) share this interface, which the vector adapters
(boardgym.envs.vector) and custom self-play loops use directly:

    core = DraughtsBatch(num_envs=1024, opponent=None)   # Pgx-style two-player view
    core.reset(seed=0)
    while True:
        actions = policy(core.obs, core.masks, core.current)   # int64[N], legal for the acting side
        core.step(actions)        # core.rewards (N, 2), core.terminated / core.truncated (N,)
        core.reset_done()         # restart the finished games (same-step autoreset)

Buffers (overwritten in place by every call; copy what you keep): ``obs`` float32 (N, OBS_LEN) from
the acting player's view (two-player mode) or the learner's (``opponent="random"`` or
``"greedy"``: an in-kernel opponent plays the other seat, ``seats[i]`` is the learner's seat);
``masks`` int8 (N, A); ``current`` int64 (N,) the player to act; ``rewards`` float32 (N, 2);
``terminated`` / ``truncated`` bool views (N,). With ``record_moves=True`` the kernels also
record each game's last move (``last``, int64 (N, ...)): ``last_move(i)`` gives it as the single
env's ``last_move()`` does, for pictures (none at the start of a game, nor after ``set_state``);
without it (the default) nothing is recorded and nothing is spent on it. ``step`` validates the
actions (shape, range, legality) and raises ValueError naming the first bad game; it does not
reset finished games.
``get_state()`` / ``set_state(d)`` copy every buffer and random stream out and back in (a
checkpoint of N games in progress: a training run resumed from it plays the same games).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from boardgym.envs.checks import is_int
from boardgym.envs.opponents import DRAUGHTS_GREEDY
from boardgym.envs.seeding import check_seed, check_seeds
from boardgym.kernels.players import OPP_GREEDY, OPP_NONE, OPP_RANDOM
from boardgym.kernels.rng import (
    batch_random_actions,
    batch_random_actions_serial,
    seed_rngs,
    seed_streams,
)

# opponent names -> the in-kernel player codes (kernels/players.py); a game core may narrow or
# rename them in its own ``opponent_codes``
OPPONENT_CODES = {None: OPP_NONE, "none": OPP_NONE, "random": OPP_RANDOM, "greedy": OPP_GREEDY}
PARALLEL_MIN_GAMES = 256  # below this the thread start-up costs more than the games


def _choice(value, allowed, what):
    """value if it is one of allowed (compared only with hashable scalars), else ValueError."""
    if (
        isinstance(value, (str, int, np.integer, type(None)))
        and not isinstance(value, bool)
        and value in allowed
    ):
        return value
    raise ValueError(f"{what} must be one of {', '.join(repr(v) for v in allowed)}, got {value!r}")


class _BatchCore:
    """Buffers, seeding, validation and the step/reset protocol shared by both games.

    Everything a caller hands in is checked here before a kernel sees it: constructor
    arguments, seeds, actions (``check_actions``), game indices, random streams and snapshots
    (``set_state``: keys, dtypes, shapes, then contents). A game subclass checks its positions
    in ``_check_states(states)`` (``(N, state_len)`` int64, already shape-checked) and may
    check that the other fields of a snapshot follow from them in ``_check_snapshot(fields)``.
    """

    n_actions = 0
    obs_len = 0
    opponent_codes = OPPONENT_CODES  # the opponent names this core takes (a game may rename them)
    _state_fields = ("states", "obs", "masks", "current", "rewards", "done", "seats", "rngs")
    MAX_GAMES = 1 << 24  # a bound on num_envs (buffers of N games are allocated up front)

    def __init__(
        self,
        num_envs: int,
        opponent: str | None = None,
        learner: str | int = "alternate",
        threads: int | None = None,
    ) -> None:
        if not is_int(num_envs) or not 1 <= num_envs <= self.MAX_GAMES:
            raise ValueError(
                f"num_envs must be an integer in 1..{self.MAX_GAMES}, got {num_envs!r}"
            )
        opponent = _choice(opponent, tuple(self.opponent_codes), "opponent")
        learner = _choice(learner, ("alternate", "player_0", "player_1", 0, 1), "learner")
        if threads is not None:
            limit = numba.config.NUMBA_NUM_THREADS
            if not is_int(threads) or not 1 <= threads <= limit:
                raise ValueError(
                    f"threads must be an integer in 1..{limit} or None, got {threads!r}"
                )
            numba.set_num_threads(int(threads))
        n = self.num_envs = int(num_envs)
        self.opponent = self.opponent_codes[opponent]
        self.alternate = learner == "alternate"
        self._fixed_seat = {"player_0": 0, "player_1": 1}.get(learner, learner)
        self.states = np.zeros((n, self.state_len), np.int64)
        self.obs = np.zeros((n, self.obs_len), np.float32)
        self.masks = np.zeros((n, self.n_actions), np.int8)
        self.current = np.zeros(n, np.int64)
        self.rewards = np.zeros((n, 2), np.float32)
        self.done = np.zeros((n, 2), np.int8)
        self.seats = np.zeros(n, np.int64)
        self.rngs = seed_rngs(0, n)
        self._all = np.ones(n, np.int8)
        self._rows = np.arange(n)
        self._rows.setflags(write=False)
        self._which = np.zeros(n, np.int8)
        self._seat_rewards = self._seat_done = self._final_obs = None  # step_autoreset's outputs

    # ---- hooks for the game subclass ----------------------------------------------------------
    def _forget_moves(self):
        """No game has a last move (as after a reset)."""
        self.last[:] = 0

    def _record_buffer(self, record_moves, width):
        """The ``last`` buffer: int64 (N, width) with record_moves, else (N, 0) (nothing kept)."""
        if not isinstance(record_moves, (bool, np.bool_)):
            raise TypeError(f"record_moves must be True or False, got {record_moves!r}")
        self.record_moves = bool(record_moves)
        self.last = np.zeros((self.num_envs, width if record_moves else 0), np.int64)

    def _recorded_row(self, i):
        """Game i's row of ``last``; ValueError unless moves are recorded."""
        i = self._game_index(i)
        if not self.record_moves:
            raise ValueError(
                f"this {type(self).__name__} records no moves: construct it with "
                "record_moves=True (the vector envs do when given a render_mode)"
            )
        return self.last[i]

    def _check_states(self, states):
        """Check the contents of N positions (int64 (N, state_len)); ValueError naming the first
        bad game. The base checks only shape and dtype (done before this is called)."""

    def _check_snapshot(self, fields):
        """Check a snapshot whose fields passed the generic checks (dict of arrays); ValueError
        naming the problem. The base checks the positions; a game may also check that masks,
        current and obs follow from them."""
        self._check_states(fields["states"])

    # ---- snapshots ----------------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        """A snapshot of the N games (copies of every buffer and random stream) for set_state."""
        out = {name: getattr(self, name).copy() for name in self._state_fields}
        out["core"] = type(self).__name__
        return out

    def set_state(self, snapshot: dict[str, Any]) -> None:
        """Restore a get_state() snapshot of a core of the same class and size.

        TypeError if snapshot is not a dict; ValueError naming the first missing, unexpected or
        mismatched field (dtype, shape) or bad content (NaN, a flag other than 0/1, a seat or
        player other than 0/1, a negative count, an impossible position). Nothing is changed
        then."""
        if not isinstance(snapshot, dict):
            raise TypeError(
                f"set_state: expected a {type(self).__name__} snapshot (a dict from "
                f"get_state), got {type(snapshot).__name__}"
            )
        if snapshot.get("core") != type(self).__name__:
            raise ValueError(
                f"set_state: expected a {type(self).__name__} snapshot, "
                f"got {snapshot.get('core')!r}"
            )
        unexpected = sorted(map(str, set(snapshot) - set(self._state_fields) - {"core"}))
        if unexpected:
            raise ValueError(f"set_state: unexpected key(s) {unexpected} in the snapshot")
        fields = {}
        for name in self._state_fields:
            if name not in snapshot:
                raise ValueError(f"set_state: the snapshot lacks {name!r}")
            mine, value = getattr(self, name), snapshot[name]
            if not isinstance(value, np.ndarray):
                raise ValueError(
                    f"set_state: {name!r} must be a NumPy array, got {type(value).__name__}"
                )
            if value.shape != mine.shape or value.dtype != mine.dtype:
                raise ValueError(
                    f"set_state: {name!r} must be {mine.dtype} {mine.shape}, "
                    f"got {value.dtype} {value.shape}"
                )
            fields[name] = value
        self._check_fields(fields)
        self._check_snapshot(fields)
        for name, value in fields.items():
            np.copyto(getattr(self, name), value)
        self._forget_moves()  # the moves before a snapshot are not in it

    def _check_fields(self, f):
        """The game-independent contents of a snapshot's fields."""
        for name in ("obs", "rewards"):
            if not np.isfinite(f[name]).all():
                raise ValueError(f"set_state: {name!r} holds NaN or infinity")
        for name in ("masks", "done", "current", "seats"):
            bad = np.flatnonzero(
                ((f[name] != 0) & (f[name] != 1)).reshape(self.num_envs, -1).any(1)
            )
            if bad.size:
                raise ValueError(f"set_state: {name!r} of game {bad[0]} is not 0/1")
        for name in ("rolls",):
            if name in f and (f[name] < 0).any():
                raise ValueError(f"set_state: {name!r} holds a negative count")
        over = np.flatnonzero(f["done"].any(1) & f["masks"].any(1))
        if over.size:
            raise ValueError(f"set_state: game {over[0]} is over but its mask allows actions")

    # ---- stepping -----------------------------------------------------------------------------
    def _parallel(self):
        """Run the parallel kernel build? Not for small batches, nor on one thread."""
        return self.num_envs >= PARALLEL_MIN_GAMES and numba.get_num_threads() > 1

    def _run(self, kernel, parallel, *args):
        """Call the kernel named kernel of the game: its parallel build, given one block of games
        per Numba thread, or its serial build (``<kernel>_serial``)."""
        if parallel:
            getattr(self._k, kernel)(*args, numba.get_num_threads())
        else:
            getattr(self._k, kernel + "_serial")(*args)

    def _game_index(self, i):
        """i as a game index 0..N-1; TypeError / ValueError else."""
        if not is_int(i):
            raise TypeError(f"a game index is an integer, got {type(i).__name__}")
        if not 0 <= i < self.num_envs:
            raise ValueError(f"game index {i} outside 0..{self.num_envs - 1}")
        return int(i)

    @property
    def rows(self) -> npt.NDArray[np.int64]:
        """int64[N] 0..N-1, the game indices (read-only)."""
        return self._rows

    @property
    def terminated(self) -> npt.NDArray[np.bool_]:
        return self.done[:, 0].astype(bool)

    @property
    def truncated(self) -> npt.NDArray[np.bool_]:
        return self.done[:, 1].astype(bool)

    def reset(
        self,
        seed: int | Sequence[int | None] | npt.NDArray[np.integer] | None = None,
        paired: bool = False,
    ) -> None:
        """Start every game afresh; seed (an integer 0..2**64-1, or a sequence of N of them, one
        per game, or of None; TypeError / ValueError else: envs.seeding) fixes every game's random
        stream (None: fresh entropy).

        Game i's stream is stream i of ``seed_rngs(seed, N)`` (with a sequence: stream 0 of
        ``seed_rngs(seed[i], 1)``, so seeds S, S + 1, ... are the integer S); with paired, games
        2k and 2k + 1 share stream k (with learner="alternate": the same game from both
        seats)."""
        if isinstance(seed, (list, tuple, np.ndarray)):
            if paired:
                raise ValueError(
                    "paired games share a stream: give one integer seed, not a sequence"
                )
            seeds = check_seeds(seed, self.num_envs)
            if seeds is not None:
                self.rngs = seed_streams(seeds)
                self._restart_all()
                return
            seed = None
        seed = check_seed(seed)
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        if paired:
            self.rngs = np.repeat(seed_rngs(seed, (self.num_envs + 1) // 2), 2)[: self.num_envs]
        else:
            self.rngs = seed_rngs(seed, self.num_envs)
        self._restart_all()

    def _restart_all(self):
        """Every game from its start position, with the streams in self.rngs."""
        if self.alternate:  # batch_reset flips the seat: game i starts with the learner on i % 2
            self.seats[:] = 1 - self._rows % 2
        else:
            self.seats[:] = 0 if self._fixed_seat is None else self._fixed_seat
        self._reset(self._all, self._parallel())

    def _check_stream(self, value, name):
        """value if it is a writeable int64 array of shape (N,) (a kernel fills or advances it)."""
        if (
            type(value) is not np.ndarray
            or value.dtype != np.int64
            or value.shape != (self.num_envs,)
            or not value.flags.writeable
        ):
            got = (
                f"{value.dtype} {value.shape}{'' if value.flags.writeable else ' read-only'}"
                if isinstance(value, np.ndarray)
                else type(value).__name__
            )
            raise ValueError(
                f"{name} must be a writeable int64 array of shape ({self.num_envs},), got {got}"
            )
        return value

    def random_actions(
        self,
        rngs: npt.NDArray[np.int64] | None = None,
        out: npt.NDArray[np.int64] | None = None,
    ) -> npt.NDArray[np.int64]:
        """A uniformly random legal action per game (int64[N], -1 where none), drawn in a kernel
        from rngs (int64[N] SplitMix states, advanced in place; default: the core's own) into out
        (int64[N], default: a new array). ValueError for any other rngs or out: the kernel is
        compiled for C-contiguous int64 vectors only (a strided view is filled through a copy)."""
        out_ = np.zeros(self.num_envs, np.int64) if out is None else self._check_stream(out, "out")
        rngs_ = self.rngs if rngs is None else self._check_stream(rngs, "rngs")
        if out is not None and np.may_share_memory(out_, rngs_) and np.shares_memory(out_, rngs_):
            raise ValueError("rngs and out must not share memory")
        fn = batch_random_actions if self._parallel() else batch_random_actions_serial
        contiguous = out_.flags.c_contiguous and rngs_.flags.c_contiguous
        if contiguous:
            fn(self.masks, rngs_, out_)
            return out_
        r, o = np.ascontiguousarray(rngs_), np.ascontiguousarray(out_)
        fn(self.masks, r, o)
        rngs_[:], out_[:] = r, o
        return out_

    def reset_done(self) -> npt.NDArray[np.intp]:
        """Restart the games that ended at the last step (a few on one thread, many in
        parallel); returns their indices."""
        finished = np.flatnonzero(self.done[:, 0] | self.done[:, 1])
        if finished.size:
            which = self._which
            which[finished] = 1
            try:
                self._reset(which, finished.size >= PARALLEL_MIN_GAMES and self._parallel())
            finally:
                which[finished] = 0
        return finished

    def check_actions(
        self, actions: npt.ArrayLike, games: npt.NDArray[np.integer] | None = None
    ) -> npt.NDArray[np.int64]:
        """actions as int64, checked: one integer per game (per game of ``games`` if given), in
        range and legal for that game's acting player; ValueError naming the first bad game."""
        rows = self._rows if games is None else games
        try:
            a = np.asarray(actions)
        except (TypeError, ValueError):
            raise ValueError(
                f"actions must be an integer array, got {type(actions).__name__}"
            ) from None
        if a.shape != rows.shape:
            raise ValueError(f"actions must have shape {rows.shape}, got {a.shape}")
        if a.dtype.kind not in "iu" and a.size:
            raise ValueError(f"actions must be integers, got dtype {a.dtype}")
        bad = (a < 0) | (a >= self.n_actions)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"action {a[k]} of game {rows[k]} out of range 0..{self.n_actions - 1}"
            )
        if a.dtype != np.int64:
            a = a.astype(np.int64)
        illegal = self.masks[rows, a] == 0
        if illegal.any():
            k = int(np.flatnonzero(illegal)[0])
            over = " (the game is over: call reset_done())" if self.done[rows[k]].any() else ""
            raise ValueError(f"illegal action {a[k]} in game {rows[k]}{over}")
        return a

    def step(self, actions: npt.ArrayLike) -> None:
        """Play actions (int[N], each legal for its game's acting player) in every game."""
        self._step(self.check_actions(actions))

    def step_autoreset(
        self, actions: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.float32]]:
        """step then reset_done in one kernel call -> (seat_rewards float32[N], seat_done int8[N, 2]
        (terminated, truncated), final_obs float32[N, OBS_LEN]): the reward of the player in
        ``seats[i]`` and the end of each game at this step, and the last observation of the
        games that ended (rows of the others are stale). These three are the core's buffers,
        overwritten by the next call; the other buffers end as ``step`` then ``reset_done``
        leave them (``done`` and ``rewards`` then describe the restarted games)."""
        a = self.check_actions(actions)
        if self._seat_rewards is None:
            n = self.num_envs
            self._seat_rewards = np.zeros(n, np.float32)
            self._seat_done = np.zeros((n, 2), np.int8)
            self._final_obs = np.zeros((n, self.obs_len), np.float32)
        self._step_autoreset(a)
        return self._seat_rewards, self._seat_done, self._final_obs

    def step_subset(self, games: npt.ArrayLike, actions: npt.ArrayLike) -> None:
        """Play actions[k] in game games[k] only (distinct game indices; the others do not move)."""
        try:
            g = np.asarray(games)
        except (TypeError, ValueError):
            raise ValueError(f"games must be game indices, got {type(games).__name__}") from None
        if g.ndim != 1 or not (np.issubdtype(g.dtype, np.integer) or g.size == 0):
            raise ValueError(f"games must be a 1-D array of game indices, got {g.dtype} {g.shape}")
        g = g.astype(np.int64)
        if g.size and (g.min() < 0 or g.max() >= self.num_envs):
            raise ValueError(
                f"game indices must lie in 0..{self.num_envs - 1}, got {g.min()}..{g.max()}"
            )
        if np.unique(g).size != g.size:
            raise ValueError("games must be distinct")
        a = self.check_actions(actions, g)
        full = np.full(self.num_envs, -1, np.int64)
        full[g] = a
        self._step(full)


class DraughtsBatch(_BatchCore):
    """N Russian draughts games (actions and observations as in russian_draughts_v0).

    opponent: None (two-player view), ``"random"`` or ``"recapture"``: the in-kernel one-ply
    player that maximises material after the opponent's best recapture
    (boardgym.kernels.draughts.opponents). ``"greedy"`` is refused: in draughts that name is
    boardgym.agents' GreedyAgent (one-ply search with the evaluation), a different player.
    ``set_state`` checks the snapshot's games (boardgym.envs.draughts.check_batch) and that its
    outputs are those of its positions.

    Games start from the initial position, from ``fen``, or, with ``openings`` (a non-empty
    sequence of FENs, each a position with a legal move), from one of them drawn uniformly from
    the game's own random stream at every reset (the two games of a ``paired`` reset draw the
    same one). Varied starts keep a learner from fitting one line of play.
    """

    opponent_codes = {
        None: OPP_NONE,
        "none": OPP_NONE,
        "random": OPP_RANDOM,
        "recapture": OPP_GREEDY,
    }

    def __init__(
        self,
        num_envs: int,
        opponent: str | None = None,
        learner: str | int = "alternate",
        max_moves: int | None = None,
        fen: str | None = None,
        threads: int | None = None,
        openings: Sequence[str] | None = None,
        record_moves: bool = False,
        **draw_rules: bool,
    ) -> None:
        from boardgym.envs import draughts as api
        from boardgym.kernels.draughts import batch as kb
        from boardgym.kernels.draughts import game

        if isinstance(opponent, str) and opponent == "greedy":
            raise ValueError(DRAUGHTS_GREEDY)
        self.state_len, self.n_actions, self.obs_len = game.STATE_LEN, game.N_ACTIONS, game.OBS_LEN
        super().__init__(num_envs, opponent, learner, threads)
        self.max_plies = api.check_max_moves(max_moves) or 0
        rules = api.rules_mask(**draw_rules)
        if openings is not None:
            if fen is not None:
                raise ValueError("give fen or openings, not both")
            if isinstance(openings, str) or not hasattr(openings, "__len__") or len(openings) == 0:
                raise TypeError("openings must be a non-empty sequence of FEN strings")
            if len(openings) > 1 << 20:
                raise ValueError(f"at most {1 << 20} openings, got {len(openings)}")
            for k, f in enumerate(openings):
                if not isinstance(f, str):
                    raise TypeError(f"openings[{k}] must be a FEN string, got {type(f).__name__}")
                if not api.legal_moves(f):
                    raise ValueError(f"openings[{k}] {f!r}: the side to move has no legal move")
            self.starts = np.stack([api.from_fen(f, rules) for f in openings])
        else:
            start = game.initial_state(rules) if fen is None else api.from_fen(fen, rules)
            self.starts = start.reshape(1, -1)
        self._k = kb
        self._api = api
        self._record_buffer(record_moves, kb.LAST_LEN)

    def last_move(self, i: int) -> str | None:
        """PDN of game i's last completed move (russian_draughts_v0's ``last_move()``), None
        before the first move of its game."""
        k = self._k
        row = self._recorded_row(i)
        if row[k.LM_N] == 0:
            return None
        route = row[k.LM_SQ : k.LM_SQ + row[k.LM_N]].tolist()
        return self._api.format_move(route, bool(row[k.LM_CAPTURE]))

    def _outputs(self):
        return self.obs, self.masks, self.current, self.rewards, self.done, self.last

    def _check_snapshot(self, arrays):
        states = self._api.check_batch(arrays["states"])
        seats = np.ascontiguousarray(arrays["seats"])
        if ((seats != 0) & (seats != 1)).any():
            raise ValueError("set_state: 'seats' must hold 0 or 1")
        # The outputs are functions of the positions and seats; the observation of a finished
        # game is the side to move's (two-player view) or the learner's (against an opponent).
        views = []
        for opponent in (self.opponent, OPP_RANDOM if self.opponent == OPP_NONE else OPP_NONE):
            want = {
                k: np.empty_like(arrays[k]) for k in ("obs", "masks", "current", "rewards", "done")
            }
            self._k.batch_outputs(
                states,
                seats,
                np.ascontiguousarray(arrays["rngs"]),
                opponent,
                self.max_plies,
                want["obs"],
                want["masks"],
                want["current"],
                want["rewards"],
                want["done"],
            )
            views.append(want)
        if self.opponent != OPP_NONE:
            live = (views[0]["done"] == 0).all(axis=1)
            waiting = np.flatnonzero(live & (views[0]["current"] != seats))
            if waiting.size:
                raise ValueError(
                    f"set_state: in game {int(waiting[0])} the in-kernel opponent is to move"
                )
        for name, w in views[0].items():
            bad = (w != arrays[name]).reshape(len(w), -1).any(axis=1)
            if name == "obs":
                bad &= (views[1]["obs"] != arrays["obs"]).any(axis=1)
            if bad.any():
                raise ValueError(
                    f"set_state: {name!r} of game {int(np.flatnonzero(bad)[0])} does "
                    "not match its position (a snapshot from get_state() of a core "
                    "with the same max_moves restores as it was)"
                )

    def _reset(self, which, parallel):
        self._run(
            "batch_reset",
            parallel,
            self.states,
            which,
            self.starts,
            self.seats,
            self.alternate,
            self.rngs,
            self.opponent,
            self.max_plies,
            *self._outputs(),
        )

    def _step(self, actions):
        self._run(
            "batch_step",
            self._parallel(),
            self.states,
            actions,
            self.seats,
            self.rngs,
            self.opponent,
            self.max_plies,
            *self._outputs(),
        )

    def _step_autoreset(self, actions):
        self._run(
            "batch_step_autoreset",
            self._parallel(),
            self.states,
            actions,
            self.starts,
            self.seats,
            self.alternate,
            self.rngs,
            self.opponent,
            self.max_plies,
            *self._outputs(),
            self._seat_rewards,
            self._seat_done,
            self._final_obs,
        )


class BackgammonBatch(_BatchCore):
    """N backgammon games or matches (actions and observations as in backgammon_v0 with the same
    options; game i of a batch reset with seed S rolls the same dice as backgammon_v0 reset with
    seed S + i). Every rule goes through the game core (kernels/backgammon/game.py, match.py);
    positions in snapshots are checked by backgammon_checks.check_batch.

    Options as backgammon_v0's (backgammon_checks.check_play_options): ``cube=True`` adds the
    money-game doubling cube (A = 154: ACTION_ROLL, ACTION_DOUBLE, ACTION_TAKE, ACTION_DROP
    after the checker moves; a dropped double pays the doubler the cube before doubling);
    ``match_length=N`` (1..64) makes each game's episode a match to N points with the cube and
    gammons (the next game starts by itself in the same step; observations end with the match
    block, O = 212; no doubling in the Crawford game nor past a cube of 64), ``match_reward``
    "match" (+1 / -1 at the end) or "points" (each game's credited points as it ends).
    ``matches`` (int64 (N, MATCH_LEN), kernels/backgammon/match.py) holds each match's state,
    ``score`` player_0's and player_1's scores; ``step_autoreset`` copies the match state of
    each match it ends into ``final_matches`` before restarting it; ``offered`` (int64 (N,)) is
    1 while a double awaits its answer. The in-kernel opponents never double and take every
    double (the agents' "cubeless" cube policy)."""

    _state_fields = _BatchCore._state_fields + ("rolls", "offered", "matches")

    def __init__(
        self,
        num_envs: int,
        opponent: str | None = None,
        learner: str | int = "alternate",
        scoring: str | None = None,
        max_turns: int | None = None,
        threads: int | None = None,
        cube: bool | None = None,
        match_length: int = 0,
        match_reward: str = "match",
        record_moves: bool = False,
    ) -> None:
        from boardgym.envs import backgammon_checks as checks
        from boardgym.kernels.backgammon import batch as kb
        from boardgym.kernels.backgammon import game
        from boardgym.kernels.backgammon.observe import MATCH_OBS_LEN, OBS_LEN

        names = checks.check_play_options(scoring, cube, match_length, match_reward)
        self.scoring_name, self.cube, self.match_length, self.match_reward = names
        self.scoring = checks.check_scoring(self.scoring_name)
        self.max_turns = checks.check_max_turns(max_turns)
        self.state_len = game.STATE_LEN
        self.n_actions = game.N_ACTIONS_CUBE if self.cube else game.N_ACTIONS
        self.obs_len = OBS_LEN + (MATCH_OBS_LEN if self.match_length else 0)
        super().__init__(num_envs, opponent, learner, threads)
        n = self.num_envs
        self.rolls = np.zeros(n, np.int64)
        self.offered = np.zeros(n, np.int64)
        self.matches = np.tile(game.new_match(self.match_length), (n, 1))
        self.final_matches = self.matches.copy()
        self._k = kb
        self._checks = checks
        self._game = game
        self._record_buffer(record_moves, kb.LAST_LEN)
        self._forget_moves()

    def _forget_moves(self):
        k = self._k
        self.last[:] = 0
        if self.record_moves:
            self.last[:, k.SLOTS + k.R_PLAYER] = -1
            self.last[:, k.SLOTS + k.R_LEN + k.R_PLAYER] = -1

    def last_move(self, i: int) -> dict[str, Any] | None:
        """Game i's latest roll as backgammon_v0's ``last_move()`` gives it: ``{"player",
        "dice", "moves": [(from, to, hit)]}`` (the mover's numbering, 25 the bar, 0 off; a lost
        roll has no moves; the roll in play once it has a move), None before any in its game."""
        k = self._k
        row = self._recorded_row(i)
        latest = int(row[k.LATEST])
        for slot in (latest, 1 - latest):
            at = k.SLOTS + slot * k.R_LEN
            if row[at + k.R_PLAYER] < 0:
                return None
            n = int(row[at + k.R_N])
            if slot == latest and row[at + k.R_IN_PLAY] and n == 0:
                continue  # the roll in play, nothing moved yet
            moves = row[at + k.R_MOVES : at + k.R_MOVES + 3 * n].reshape(n, 3).tolist()
            return {
                "player": int(row[at + k.R_PLAYER]),
                "dice": (int(row[at + k.R_D1]), int(row[at + k.R_D2])),
                "moves": [(a, b, bool(h)) for a, b, h in moves],
            }
        return None

    @property
    def score(self) -> npt.NDArray[np.int64]:
        """int64 (N, 2): player_0's and player_1's score in each match (zeros in money play)."""
        g = self._game
        return self.matches[:, g.M_SCORE : g.M_SCORE + 2].copy()

    def _play(self):
        reward = self._k.REWARD_POINTS if self.match_reward == "points" else self._k.REWARD_MATCH
        return (
            self.opponent,
            self.max_turns,
            self.scoring,
            int(self.cube),
            self.match_length,
            reward,
        )

    def _games(self):
        return self.states, self.seats, self.rngs, self.rolls, self.offered, self.matches

    def _check_states(self, states):
        try:
            self._checks.check_batch(states, "states")
        except ValueError as e:
            raise ValueError(f"set_state: {e}") from None

    def _check_snapshot(self, fields):
        from boardgym.kernels.backgammon.board import TURN

        states = fields["states"]
        self._check_states(states)
        offered = fields["offered"]
        if ((offered != 0) & (offered != 1)).any() or (not self.cube and offered.any()):
            raise ValueError(
                "set_state: 'offered' must hold 0/1 (and 0 without the cube)"
                if self.cube
                else "set_state: 'offered' must be 0 without the cube"
            )
        for i, m in enumerate(fields["matches"]):
            try:
                self._checks.check_match(m, f"matches[{i}]")
            except ValueError as e:
                raise ValueError(f"set_state: {e}") from None
            if m[self._game.M_LENGTH] != self.match_length:
                raise ValueError(
                    f"set_state: matches[{i}] is a match to {int(m[self._game.M_LENGTH])}, "
                    f"not {self.match_length}"
                )
        bad = np.flatnonzero(fields["current"] != states[:, TURN] ^ offered)
        if bad.size:
            raise ValueError(
                f"set_state: 'current' of game {bad[0]} is not the player to act of its position"
            )
        i = self._k.snapshot_mask_error(
            states,
            fields["done"],
            fields["seats"],
            np.ascontiguousarray(offered),
            self.opponent,
            int(self.cube),
            fields["masks"],
        )
        if i >= 0:
            raise ValueError(
                f"set_state: the mask of game {i} is not the legal actions of its "
                "position (or of its state of play)"
            )

    def _outputs(self):
        return self.obs, self.masks, self.current, self.rewards, self.done, self.last

    def _reset(self, which, parallel):
        self._run(
            "batch_reset",
            parallel,
            which,
            self.alternate,
            self._games(),
            self._play(),
            self._outputs(),
        )

    def _step(self, actions):
        self._run(
            "batch_step", self._parallel(), actions, self._games(), self._play(), self._outputs()
        )

    def _step_autoreset(self, actions):
        self._run(
            "batch_step_autoreset",
            self._parallel(),
            actions,
            self.alternate,
            self._games(),
            self._play(),
            self._outputs(),
            self._seat_rewards,
            self._seat_done,
            self._final_obs,
            self.final_matches,
        )
