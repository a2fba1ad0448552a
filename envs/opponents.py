"""The opponents the envs play themselves, by name: the same names for ``gymnasium.make`` and
``gymnasium.make_vec``.

Each game has two players that run in the kernels (boardgym.kernels.players):

- ``"random"``: a uniformly random legal action at each step (what boardgym.agents' RandomAgent
  does);
- the game's one-ply heuristic: draughts ``"recapture"`` (the whole move that leaves the best
  material after the opponent's best capture in reply, kernels/draughts/opponents.py),
  backgammon ``"greedy"`` (the afterstate of best pip lead / made points / blots / checkers off,
  kernels/backgammon/opponents.py; the same player as boardgym.agents' backgammon GreedyAgent).

Draughts ``"greedy"`` is refused with a message saying why: in draughts that name is
boardgym.agents' GreedyAgent (one ply with the search evaluation), a different player, which
the envs cannot load (they never import boardgym.agents); pass ``opponent=load("draughts-
greedy")`` for it. Any other agent of boardgym.agents is passed the same way, as an object.

``KernelPlayer(game, name, seed)`` is such a player for the single-agent envs: ``act_state``
gives the next env action (the acting player's frame) of the whole move or play it chose.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from boardgym.envs.seeding import check_seed

#: the opponents each game's envs play themselves, by name
NAMES = {"draughts": ("random", "recapture"), "backgammon": ("random", "greedy")}

DRAUGHTS_GREEDY = (
    "draughts has no in-kernel 'greedy' player: opponent='recapture' is the in-kernel one-ply "
    "material player; boardgym.agents' GreedyAgent plays as "
    "opponent=boardgym.agents.load('draughts-greedy')"
)


def check_name(game: str, name: object) -> str:
    """name if game's envs play it themselves (NAMES); ValueError naming the choices else."""
    if isinstance(name, str) and name in NAMES[game]:
        return name
    if game == "draughts" and name == "greedy":
        raise ValueError(DRAUGHTS_GREEDY)
    raise ValueError(
        f"opponent must be one of {', '.join(map(repr, NAMES[game]))} (played by the env), "
        f"an agent with act(observation, action_mask) or a callable "
        f"(observation, action_mask) -> action; got {name!r}"
    )


class KernelPlayer:
    """The in-kernel player ``name`` of game as an opponent of the single-agent envs: it picks a
    whole move (draughts) or play (backgammon) and hands its actions out one by one."""

    def __init__(self, game: str, name: str, seed: int | None = None) -> None:
        from boardgym.kernels.rng import seed_rngs

        self.game, self.name = game, check_name(game, name)
        self._rng = np.random.default_rng(check_seed(seed))
        self._rngs = seed_rngs(int(self._rng.integers(2**63)), 1)
        self._queue: list[int] = []
        self._expect = None

    def act_state(self, state: npt.NDArray[np.int64]) -> int:
        """The next env action (the acting player's frame) for kernel state (the mover's turn)."""
        if self._queue and self._expect is not None and np.array_equal(state, self._expect):
            return self._pop(state)
        actions = self._draughts(state) if self.game == "draughts" else self._backgammon(state)
        self._queue = actions
        return self._pop(state)

    def _pop(self, state):
        a = self._queue.pop(0)
        self._expect = None
        if self._queue:
            self._expect = self._after(state, a)
        return int(a)

    def _after(self, state, a):
        if self.game == "draughts":
            from boardgym.kernels.draughts import game

            return game.step(state, np.int64(a))
        from boardgym.kernels.backgammon import game

        return game.apply(state, np.int64(a))

    def _draughts(self, s):
        from boardgym.kernels.draughts import game
        from boardgym.kernels.draughts.board import MAX_HOPS, MAX_MOVES, ROW_LEN, S_CAP_SQ
        from boardgym.kernels.draughts.opponents import recapture_pick

        rows = np.empty((MAX_MOVES, ROW_LEN), np.int64)
        n = game.gen_moves(s, rows)
        if self.name == "random" or s[S_CAP_SQ] >= 0:  # a hop at a time (as the kernels do)
            mask = np.zeros(game.N_ACTIONS, np.int8)
            game.legal_mask(s, mask)
            legal = np.flatnonzero(mask)
            return [int(legal[self._rng.integers(legal.size)])]
        out = np.empty(MAX_HOPS, np.int64)
        k = game.route_actions(s, rows[recapture_pick(s, rows, n, self._rngs, 0)], out)
        return out[:k].tolist()

    def _backgammon(self, s):
        from boardgym.kernels.backgammon import game
        from boardgym.kernels.backgammon.movegen import MV_DIE, MV_FROM
        from boardgym.kernels.backgammon.opponents import greedy_pick

        rows = np.empty((game.MAX_AFTERSTATES, s.shape[0]), np.int64)
        routes = np.empty((game.MAX_AFTERSTATES, game.MAX_MOVES, game.MV_FIELDS), np.int64)
        n = game.plays(s, rows, routes)
        route = routes[greedy_pick(rows, n)]
        return [int((m[MV_FROM] - 1) * 6 + m[MV_DIE] - 1) for m in route if m[MV_FROM] > 0]

    def act(self, observation: npt.NDArray[np.float32], action_mask: npt.NDArray[np.int8]) -> int:
        """A decision the state does not answer (the backgammon cube): roll, or take a double
        (the kernel players play cubeless)."""
        from boardgym.kernels.backgammon import game

        mask = np.asarray(action_mask)
        if mask.shape[0] > game.N_ACTIONS and not mask[: game.N_ACTIONS].any():
            return int(game.ACTION_TAKE if mask[game.ACTION_TAKE] else game.ACTION_ROLL)
        legal = np.flatnonzero(mask)
        return int(legal[self._rng.integers(legal.size)])
