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
``terminated`` / ``truncated`` bool views (N,). ``step`` validates the actions (shape, range,
legality) and raises ValueError naming the first bad game; it does not reset finished games.
``get_state()`` / ``set_state(d)`` copy every buffer and random stream out and back in (a
checkpoint of N games in progress: a training run resumed from it plays the same games).
"""
import numba
import numpy as np

from boardgym.kernels.players import OPP_GREEDY, OPP_NONE, OPP_RANDOM
from boardgym.kernels.rng import batch_random_actions, batch_random_actions_serial, seed_rngs

# opponent names -> the kernels' player codes (boardgym.kernels.players); a core may rename them
OPPONENT_CODES = {None: OPP_NONE, "none": OPP_NONE, "random": OPP_RANDOM, "greedy": OPP_GREEDY}
PARALLEL_MIN_GAMES = 256  # below this the thread start-up costs more than the games


class _BatchCore:
    """Buffers, seeding, validation and the step/reset protocol shared by both games."""

    n_actions = 0
    obs_len = 0
    opponent_codes = OPPONENT_CODES  # the opponent names this core takes
    _state_fields = ("states", "obs", "masks", "current", "rewards", "done", "seats", "rngs")

    def __init__(self, num_envs, opponent=None, learner="alternate", threads=None):
        if int(num_envs) != num_envs or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if not isinstance(opponent, (str, type(None))) or opponent not in self.opponent_codes:
            names = ", ".join(repr(k) for k in self.opponent_codes if k is not None)
            raise ValueError(f"opponent must be None, {names}; got {opponent!r}")
        if learner not in ("alternate", 0, 1, "player_0", "player_1"):
            raise ValueError(f"learner must be 'alternate', 'player_0' or 'player_1', got {learner!r}")
        if threads is not None:
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

    def get_state(self):
        """A snapshot of the N games (copies of every buffer and random stream) for set_state."""
        out = {name: getattr(self, name).copy() for name in self._state_fields}
        out["core"] = type(self).__name__
        return out

    def set_state(self, snapshot):
        """Restore a get_state() snapshot of a core of the same class and size; ValueError naming
        the first missing or mismatched field (nothing is changed then)."""
        if not isinstance(snapshot, dict) or snapshot.get("core") != type(self).__name__:
            found = snapshot.get("core") if isinstance(snapshot, dict) else type(snapshot).__name__
            raise ValueError(f"set_state: expected a {type(self).__name__} snapshot, got {found!r}")
        arrays = {}
        for name in self._state_fields:
            if name not in snapshot:
                raise ValueError(f"set_state: the snapshot lacks {name!r}")
            mine, a = getattr(self, name), np.asarray(snapshot[name])
            if a.shape != mine.shape or a.dtype != mine.dtype:
                raise ValueError(f"set_state: {name!r} must be {mine.dtype} {mine.shape}, "
                                 f"got {a.dtype} {a.shape}")
            arrays[name] = a
        self._check_snapshot(arrays)
        for name, a in arrays.items():
            np.copyto(getattr(self, name), a)

    def _check_snapshot(self, arrays):
        """ValueError/TypeError unless the snapshot's arrays (right shapes and dtypes) hold a
        consistent set of games; the game cores check their contents here."""

    def _parallel(self):
        """Run the parallel kernel build? Not for small batches, nor on one thread."""
        return self.num_envs >= PARALLEL_MIN_GAMES and numba.get_num_threads() > 1

    @property
    def terminated(self):
        return self.done[:, 0].astype(bool)

    @property
    def truncated(self):
        return self.done[:, 1].astype(bool)

    def reset(self, seed=None):
        """Start every game afresh; seed fixes every game's random stream (None: fresh entropy)."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.rngs = seed_rngs(seed, self.num_envs)
        if self.alternate:  # batch_reset flips the seat: game i starts with the learner on i % 2
            self.seats[:] = 1 - self._rows % 2
        else:
            self.seats[:] = 0 if self._fixed_seat is None else self._fixed_seat
        self._reset(self._all)

    def random_actions(self, rngs=None, out=None):
        """A uniformly random legal action per game (int64[N], -1 where none), drawn in a kernel
        from rngs (int64[N] SplitMix states, default: the core's own streams)."""
        out = np.zeros(self.num_envs, np.int64) if out is None else out
        fn = batch_random_actions if self._parallel() else batch_random_actions_serial
        fn(self.masks, self.rngs if rngs is None else rngs, out)
        return out

    def reset_done(self):
        """Restart the games that ended at the last step; returns their indices."""
        which = (self.done[:, 0] | self.done[:, 1]).astype(np.int8)
        if which.any():
            self._reset(which)
        return np.flatnonzero(which)

    def step(self, actions):
        """Play actions (int[N], each legal for its game's acting player) in every game."""
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        if not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be integers, got dtype {a.dtype}")
        a = a.astype(np.int64)
        bad = (a < 0) | (a >= self.n_actions)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"action {a[i]} of game {i} out of range 0..{self.n_actions - 1}")
        illegal = self.masks[self._rows, a] == 0
        if illegal.any():
            i = int(np.flatnonzero(illegal)[0])
            over = " (the game is over: call reset_done())" if self.done[i].any() else ""
            raise ValueError(f"illegal action {a[i]} in game {i}{over}")
        self._step(a)

    def step_subset(self, games, actions):
        """Play actions[k] in game games[k] only (the other games do not move)."""
        games = np.asarray(games, np.int64)
        a = np.asarray(actions)
        if a.shape != games.shape or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be integers of shape {games.shape}, got {a.dtype} {a.shape}")
        full = np.full(self.num_envs, -1, np.int64)
        full[games] = a
        bad = (a < 0) | (a >= self.n_actions)
        bad |= self.masks[games, np.clip(a, 0, self.n_actions - 1)] == 0
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"illegal or out-of-range action {a[k]} in game {games[k]}")
        self._step(full)


class DraughtsBatch(_BatchCore):
    """N Russian draughts games (actions and observations as in russian_draughts_v0).

    opponent: None (two-player view), ``"random"`` or ``"recapture"``: the in-kernel one-ply
    player that maximises material after the opponent's best recapture
    (boardgym.kernels.draughts.opponents). ``"greedy"`` is refused: in draughts that name is
    boardgym.agents' GreedyAgent (one-ply search with the evaluation), a different player.
    ``set_state`` checks the snapshot's games (boardgym.envs.draughts.check_batch) and that its
    outputs are those of its positions.
    """

    opponent_codes = {None: OPP_NONE, "none": OPP_NONE, "random": OPP_RANDOM, "recapture": OPP_GREEDY}

    def __init__(self, num_envs, opponent=None, learner="alternate", max_moves=None, fen=None,
                 threads=None, **draw_rules):
        from boardgym.envs import draughts as api
        from boardgym.kernels.draughts import batch as kb
        from boardgym.kernels.draughts import game

        if isinstance(opponent, str) and opponent == "greedy":
            raise ValueError("draughts has no in-kernel 'greedy' player: opponent='recapture' is "
                             "the in-kernel one-ply material player; boardgym.agents' GreedyAgent "
                             "(load('greedy', game='draughts')) plays through the AEC env")
        self.state_len, self.n_actions, self.obs_len = game.STATE_LEN, game.N_ACTIONS, game.OBS_LEN
        super().__init__(num_envs, opponent, learner, threads)
        self.max_plies = api.check_max_moves(max_moves) or 0
        rules = api.rules_mask(**draw_rules)
        self.start = game.initial_state(rules) if fen is None else api.from_fen(fen, rules)
        self._k = kb
        self._api = api

    def _outputs(self):
        return self.obs, self.masks, self.current, self.rewards, self.done

    def _check_snapshot(self, arrays):
        states = self._api.check_batch(arrays["states"])
        seats = np.ascontiguousarray(arrays["seats"])
        if ((seats != 0) & (seats != 1)).any():
            raise ValueError("set_state: 'seats' must hold 0 or 1")
        # The outputs are functions of the positions and seats; the observation of a finished
        # game is the side to move's (two-player view) or the learner's (against an opponent).
        views = []
        for opponent in (self.opponent, OPP_RANDOM if self.opponent == OPP_NONE else OPP_NONE):
            want = {k: np.empty_like(arrays[k]) for k in ("obs", "masks", "current", "rewards", "done")}
            self._k.batch_outputs(states, seats, np.ascontiguousarray(arrays["rngs"]), opponent,
                                  self.max_plies, want["obs"],
                                  want["masks"], want["current"], want["rewards"], want["done"])
            views.append(want)
        if self.opponent != OPP_NONE:
            live = (views[0]["done"] == 0).all(axis=1)
            waiting = np.flatnonzero(live & (views[0]["current"] != seats))
            if waiting.size:
                raise ValueError(f"set_state: in game {int(waiting[0])} the in-kernel opponent "
                                 "is to move")
        for name, w in views[0].items():
            bad = (w != arrays[name]).reshape(len(w), -1).any(axis=1)
            if name == "obs":
                bad &= (views[1]["obs"] != arrays["obs"]).any(axis=1)
            if bad.any():
                raise ValueError(f"set_state: {name!r} of game {int(np.flatnonzero(bad)[0])} does "
                                 "not match its position (a snapshot from get_state() of a core "
                                 "with the same max_moves restores as it was)")

    def _reset(self, which):
        (self._k.batch_reset if self._parallel() else self._k.batch_reset_serial)(
            self.states, which, self.start, self.seats, self.alternate, self.rngs, self.opponent,
            self.max_plies, *self._outputs())

    def _step(self, actions):
        (self._k.batch_step if self._parallel() else self._k.batch_step_serial)(
            self.states, actions, self.seats, self.rngs, self.opponent, self.max_plies,
            *self._outputs())


class BackgammonBatch(_BatchCore):
    """N cubeless backgammon games (actions and observations as in backgammon_v0; game i of a
    batch reset with seed S rolls the same dice as backgammon_v0 reset with seed S + i)."""

    _state_fields = _BatchCore._state_fields + ("rolls",)

    def __init__(self, num_envs, opponent=None, learner="alternate", scoring="single",
                 max_turns=None, threads=None):
        from boardgym.kernels.backgammon import batch as kb
        from boardgym.kernels.backgammon.board import STATE_LEN
        from boardgym.kernels.backgammon.codec import N_ACTIONS
        from boardgym.kernels.backgammon.observe import OBS_LEN

        self.state_len, self.n_actions, self.obs_len = STATE_LEN, N_ACTIONS, OBS_LEN
        super().__init__(num_envs, opponent, learner, threads)
        if scoring not in ("single", "gammon"):
            raise ValueError(f"scoring must be 'single' or 'gammon', got {scoring!r}")
        if max_turns is not None and (int(max_turns) != max_turns or max_turns < 1):
            raise ValueError(f"max_turns must be a positive integer or None, got {max_turns!r}")
        self.scoring = 0 if scoring == "single" else 1
        self.max_turns = 0 if max_turns is None else int(max_turns)
        self.rolls = np.zeros(self.num_envs, np.int64)
        self._k = kb

    def _outputs(self):
        return self.obs, self.masks, self.current, self.rewards, self.done

    def _reset(self, which):
        (self._k.batch_reset if self._parallel() else self._k.batch_reset_serial)(
            self.states, which, self.seats, self.alternate, self.rngs, self.rolls, self.opponent,
            self.max_turns, self.scoring, *self._outputs())

    def _step(self, actions):
        (self._k.batch_step if self._parallel() else self._k.batch_step_serial)(
            self.states, actions, self.seats, self.rngs, self.rolls, self.opponent, self.max_turns,
            self.scoring, *self._outputs())
