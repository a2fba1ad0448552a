"""Vector adapters over the batched cores (boardgym.envs.batch) for the training libraries.

- ``DraughtsVectorEnv`` / ``BackgammonVectorEnv``: ``gymnasium.vector.VectorEnv`` — what
  ``gym.make_vec("boardgym/RussianDraughts-v0", num_envs=N,
  vectorization_mode="vector_entry_point")`` returns. The learner plays every game against an
  in-kernel opponent (``opponent="random"`` or ``"greedy"``); same-step autoreset
  (``metadata["autoreset_mode"]``): a finished game's last observation is in ``infos["final_obs"]``
  (object array, ``infos["_final_obs"]`` marks the finished games) and ``obs`` already shows the
  next game. Masks: ``infos["action_mask"]`` (int8, (N, A)) and ``action_masks()``. ``render_mode``
  ``"ansi"`` / ``"rgb_array"`` / ``"human"``: ``render()`` gives one frame per game (a tuple), as
  Gymnasium's vector envs do, each with its game's last move marked as the single env marks
  it. Buffers: ``obs`` and ``infos["action_mask"]`` of ``reset`` / ``step`` are the batched
  core's own arrays, valid until the next ``step`` or ``reset`` overwrites them (as
  high-throughput vector envs hand them out; copy what you keep across steps); rewards,
  terminations, truncations and ``final_obs`` are fresh. ``copy=True`` returns fresh copies of all
  of them (Gymnasium's SyncVectorEnv default). Each ``step`` is one kernel call
  (``step_autoreset`` of the batched core: the learner's moves, the opponent's replies, the
  observations, the masks and the restarts of the finished games). Other keyword arguments go
  to the core (backgammon: ``scoring``, ``max_turns``, ``cube``, ``match_length``,
  ``match_reward``); in backgammon match play the infos also hold ``score`` (N, 2: player_0's,
  player_1's), ``game`` (from 1), ``crawford``, the learner's ``seat`` and, for the matches
  that ended, ``final_score`` (marked by ``_final_score``).
- ``make_sb3_vec_env(game, num_envs, ...)``: a stable-baselines3 ``VecEnv`` with the same games
  (``terminal_observation`` in the finished games' infos, ``env_method("action_masks")`` returning
  the per-game masks) so that ``MaskablePPO("MlpPolicy", vec_env)`` trains on N games at once.
  The opponent may also be a frozen policy: ``opponent=callable(obs (M, O), masks (M, A)) ->
  actions (M,)`` is called once per step on the games where that seat is to move; a callable
  with an attribute ``kernel_opponent`` equal to "random" or "greedy" (read before every step)
  is played by that in-kernel player instead (boardgym.agents.ppo.OpponentPool's fixed members).
- Two-player (Pgx-style) loops use the cores directly: ``DraughtsBatch(N, opponent=None)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from boardgym.envs import backgammon_render, draughts_render, opponents
from boardgym.envs import batch as _batch
from boardgym.envs.seeding import check_seed

if TYPE_CHECKING:
    from stable_baselines3.common.vec_env import VecEnv as SB3VecEnv

#: a frozen opponent: (obs (M, O), masks (M, A)) of the games where it is to move -> actions (M,)
_Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], npt.ArrayLike]
_CORES = {"draughts": "DraughtsBatch", "backgammon": "BackgammonBatch"}
_RENDERERS = {"draughts": draughts_render, "backgammon": backgammon_render}


class _PolicyOpponentCore:
    """A two-player core whose non-learner seat is played by a Python policy on whole batches."""

    def __init__(self, core, policy):
        self.core, self.policy = core, policy

    def __getattr__(self, name):
        return getattr(self.core, name)

    def _sync(self):
        """Play the opponent inside the kernels when the policy names an in-kernel player."""
        name = getattr(self.policy, "kernel_opponent", None)
        codes = self.core.opponent_codes
        if not (name is None or isinstance(name, str)) or name not in codes:
            raise ValueError(
                f"the opponent's kernel_opponent must be None or one of "
                f"{sorted(k for k in codes if k)}, got {name!r}"
            )
        self.core.opponent = codes[name]

    def _settle(self):
        """Let the policy move in every game where the learner is not to act."""
        core = self.core
        for _ in range(100_000):
            live = ~(core.done.any(1).astype(bool))
            theirs = np.flatnonzero(live & (core.current != core.seats))
            if theirs.size == 0:
                return
            chosen = np.asarray(self.policy(core.obs[theirs], core.masks[theirs]))
            core.step_subset(theirs, chosen)
        raise RuntimeError("the opponent policy did not hand the move back")

    def reset(self, seed=None):
        self._sync()
        self.core.reset(seed)
        self._settle()

    def step(self, actions):
        self._sync()
        self.core.step(actions)
        self._settle()

    def reset_done(self):
        self._sync()
        out = self.core.reset_done()
        self._settle()
        return out


def _make_core(game, num_envs, opponent, **kwargs):
    if not isinstance(game, str) or game not in _CORES:
        raise ValueError(f"game must be 'draughts' or 'backgammon', got {game!r}")
    core_cls = getattr(_batch, _CORES[game])
    if callable(opponent):
        return _PolicyOpponentCore(core_cls(num_envs, opponent=None, **kwargs), opponent)
    if not isinstance(opponent, str) or opponent == "none":  # the core checks the name
        raise ValueError(
            f"opponent must be one of {', '.join(map(repr, opponents.NAMES[game]))} (played "
            f"in the kernels) or a callable (obs, masks) -> actions, got {opponent!r}"
        )
    return core_cls(num_envs, opponent=opponent, **kwargs)


class _LearnerStepper:
    """Step/reset logic shared by the Gymnasium and SB3 adapters (learner's view of the core)."""

    def _init_core(self, game, num_envs, opponent, kwargs):
        self.core = _make_core(game, num_envs, opponent, **kwargs)
        self.single_observation_space = spaces.Box(
            0.0, 7.5 if game == "backgammon" else 1.0, (self.core.obs_len,), np.float32
        )
        self.single_action_space = spaces.Discrete(self.core.n_actions)

    def _learner_step(self, actions):
        """Step every game, read the learner's rewards and ends, restart the finished games ->
        (rewards, terminated, truncated, finished game indices, their last observations)."""
        core = self.core
        if not isinstance(core, _PolicyOpponentCore):  # one kernel call: step, then restarts
            seat_rewards, seat_done, final = core.step_autoreset(actions)
            term = seat_done[:, 0].astype(bool)
            trunc = seat_done[:, 1].astype(bool)
            trunc &= ~term
            finished = np.flatnonzero(term | trunc)
            return seat_rewards.copy(), term, trunc, finished, final[finished]
        core.step(actions)
        rewards = core.rewards[core.rows, core.seats]  # seats change only at a reset
        term = core.done[:, 0].astype(bool)
        trunc = core.done[:, 1].astype(bool)
        trunc &= ~term
        finished = np.flatnonzero(term | trunc)
        final_obs = core.obs[finished]  # a copy (fancy indexing)
        if finished.size and getattr(core, "match_length", 0):
            core.final_matches[finished] = core.matches[finished]
        if finished.size:
            core.reset_done()
        return rewards, term, trunc, finished, final_obs

    def action_masks(self) -> npt.NDArray[np.int8]:
        """int8 (N, A): the learner's legal actions in every game (a fresh array)."""
        return self.core.masks.copy()


class _VectorEnv(_LearnerStepper, VectorEnv):
    game = None
    metadata = {
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": ["human", "ansi", "rgb_array"],
        "render_fps": 2,
    }

    def __init__(
        self,
        num_envs: int = 8,
        opponent: str | _Policy = "random",
        render_mode: str | None = None,
        copy: bool = False,
        **kwargs: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"unknown render_mode {render_mode!r}; "
                f"expected one of {self.metadata['render_modes']} or None"
            )
        if not isinstance(copy, (bool, np.bool_)):
            raise TypeError(f"copy must be True or False, got {copy!r}")
        self.render_mode = render_mode
        self.copy = bool(copy)
        if render_mode is not None:  # pictures mark each game's last move: the core records it
            if kwargs.get("record_moves", True) is not True:
                raise ValueError(
                    "a render_mode marks each game's last move: record_moves must be True"
                )
            kwargs = {**kwargs, "record_moves": True}
        self._init_core(self.game, num_envs, opponent, kwargs)
        self.num_envs = self.core.num_envs
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(
            self.single_action_space, self.num_envs
        )

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | npt.NDArray[np.integer] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """seed: None, an integer 0..2**64-1, or a sequence of one per game (Gymnasium's
        convention: game i's stream from seed[i] alone; seeds S, S + 1, ... are the integer S;
        all None = unseeded)."""
        self.core.reset(seed)  # the core checks it (one seed, or one per game)
        infos = {"action_mask": self._out(self.core.masks)}
        self._match_infos(infos, np.zeros(0, np.intp))
        return self._out(self.core.obs), infos

    def _match_infos(self, infos, finished):
        """In backgammon match play: the score of every match in play (player_0's, player_1's),
        its game number from 1, the Crawford flag, the learner's seat; and for the matches
        that ended at this step their final score (``final_score``, marked by
        ``_final_score``)."""
        if not getattr(self.core, "match_length", 0):
            return
        from boardgym.kernels.backgammon import game

        m = self.core.matches
        infos["score"] = m[:, game.M_SCORE : game.M_SCORE + 2].copy()
        infos["game"] = m[:, game.M_GAME] + 1
        infos["crawford"] = m[:, game.M_CRAWFORD] == 1
        infos["seat"] = self.core.seats.copy()
        if finished.size:
            final = np.zeros((self.num_envs, 2), np.int64)
            fm = self.core.final_matches
            final[finished] = fm[finished, game.M_SCORE : game.M_SCORE + 2]
            mark = np.zeros(self.num_envs, bool)
            mark[finished] = True
            infos["final_score"], infos["_final_score"] = final, mark

    def _out(self, buffer):
        """A core buffer as handed out: itself (valid until the next step), or a copy."""
        return buffer.copy() if self.copy else buffer

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """Play the learner's actions (int[N], legal) in every game; the opponent replies in the
        kernel -> (obs, rewards, terminations, truncations, infos) as the class docstring says."""
        rewards, term, trunc, finished, final_obs = self._learner_step(actions)
        infos = {"action_mask": self._out(self.core.masks)}
        if finished.size:
            fo = np.empty(self.num_envs, dtype=object)
            fo[finished] = list(final_obs)
            mark = np.zeros(self.num_envs, bool)
            mark[finished] = True
            infos["final_obs"], infos["_final_obs"] = fo, mark
        self._match_infos(infos, finished)
        return self._out(self.core.obs), rewards, term, trunc, infos

    def render(self) -> tuple[str, ...] | tuple[npt.NDArray[np.uint8], ...] | None:
        """One frame per game, as Gymnasium's vector envs return them: a tuple of text boards
        (``ansi``) or RGB images (``rgb_array``); ``human`` prints the text boards. Boards are
        drawn as the single-agent env draws them (draughts from White's side, backgammon from
        player_0's), each game's last move marked (the core's ``last_move(i)``: none in a game
        that has just restarted)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        draw, core = _RENDERERS[self.game], self.core
        last = [core.last_move(i) for i in range(self.num_envs)]
        if self.render_mode == "rgb_array":
            return tuple(draw.render_rgb(s, last_move=m) for s, m in zip(core.states, last))
        boards = tuple(draw.render_text(s, last_move=m) for s, m in zip(core.states, last))
        if self.render_mode == "ansi":
            return boards
        print("\n\n".join(f"game {i}\n{b}" for i, b in enumerate(boards)))
        return None


class DraughtsVectorEnv(_VectorEnv):
    """Gymnasium VectorEnv of N Russian draughts games against an in-kernel opponent."""

    game = "draughts"


class BackgammonVectorEnv(_VectorEnv):
    """Gymnasium VectorEnv of N backgammon games against an in-kernel opponent."""

    game = "backgammon"


def make_sb3_vec_env(
    game: str, num_envs: int = 8, opponent: str | _Policy = "random", **kwargs: Any
) -> SB3VecEnv:
    """A stable-baselines3 VecEnv of N games of ``game`` ('draughts' or 'backgammon')."""
    from stable_baselines3.common.vec_env import VecEnv

    class BoardgymVecEnv(_LearnerStepper, VecEnv):
        """stable-baselines3 VecEnv over a boardgym batched core (same-step autoreset)."""

        def __init__(self) -> None:
            self._init_core(game, num_envs, opponent, kwargs)
            self.render_mode = None
            VecEnv.__init__(
                self, self.core.num_envs, self.single_observation_space, self.single_action_space
            )
            self._actions = None
            self._seed = None

        def reset(self) -> npt.NDArray[np.float32]:
            self.core.reset(self._seed)
            self._seed = None
            return self.core.obs.copy()

        def seed(self, seed: int | None = None) -> list[int | None]:
            self._seed = check_seed(seed)
            return [seed] * self.num_envs

        def step_async(self, actions: npt.ArrayLike) -> None:
            self._actions = actions  # checked by the core in step_wait

        def step_wait(
            self,
        ) -> tuple[
            npt.NDArray[np.float32],
            npt.NDArray[np.float32],
            npt.NDArray[np.bool_],
            list[dict[str, Any]],
        ]:
            rewards, term, trunc, finished, final_obs = self._learner_step(self._actions)
            infos = [{} for _ in range(self.num_envs)]
            for k, i in enumerate(finished):
                infos[i]["terminal_observation"] = final_obs[k]
                infos[i]["TimeLimit.truncated"] = bool(trunc[i])
            return self.core.obs.copy(), rewards, term | trunc, infos

        def close(self) -> None:
            pass

        def get_attr(self, attr_name: str, indices: int | Iterable[int] | None = None) -> list[Any]:
            return [getattr(self, attr_name)] * len(self._indices(indices))

        def set_attr(
            self, attr_name: str, value: Any, indices: int | Iterable[int] | None = None
        ) -> None:
            setattr(self, attr_name, value)

        def env_method(
            self,
            method_name: str,
            *args: Any,
            indices: int | Iterable[int] | None = None,
            **kwargs: Any,
        ) -> list[Any]:
            idx = self._indices(indices)
            if method_name == "action_masks":
                masks = self.core.masks
                return [masks[i].copy() for i in idx]
            return [getattr(self, method_name)(*args, **kwargs) for _ in idx]

        def env_is_wrapped(
            self, wrapper_class: type, indices: int | Iterable[int] | None = None
        ) -> list[bool]:
            return [False] * len(self._indices(indices))

        def _indices(self, indices):
            if indices is None:
                return range(self.num_envs)
            if isinstance(indices, int):
                return [indices]
            return indices

    return BoardgymVecEnv()
