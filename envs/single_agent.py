"""Gymnasium single-agent envs: the learner plays one seat of an AEC env against an opponent.

``gymnasium.make("boardgym/RussianDraughts-v0", opponent="random")`` and
``"boardgym/Backgammon-v0"``. The opponent is a player the env plays itself, named as for
``gymnasium.make_vec`` (boardgym.envs.opponents): ``"random"`` (a uniformly random legal action
from the mask, drawn by a generator seeded from the env's own: what
``boardgym.agents.RandomAgent`` does) or the game's one-ply heuristic (draughts
``"recapture"``, backgammon ``"greedy"``); or any object with ``act(observation, action_mask)
-> action`` (``boardgym.agents.load("draughts-greedy")``, ...), or a callable
``(observation, action_mask) -> action``; it moves inside ``step()`` until the learner
is to act again or the game ends. An agent with ``act_state(state)`` (the search agents) is
given the kernel state instead, so it sees the repetition history and counters. ``learner`` is
``"player_0"``, ``"player_1"`` or ``"alternate"`` (the seat is drawn from the env's seeded
generator at each reset, so a seed fixes it).

Observations are the learner's AEC observation array (its own view); the legal actions come from
``action_masks()`` (int8, fresh array; what sb3-contrib's MaskablePPO reads) and
``info["action_mask"]``. Reward: the learner's zero-sum game reward, at the end (in a backgammon
match, ``match_length=N``: +1 / -1 for the match, or with ``match_reward="points"`` each game's
credited points as the game ends: whatever the AEC env paid the learner since its last action).

Bad actions: with ``illegal_action="terminate"`` (default, as PettingZoo's TerminateIllegalWrapper
and what Gymnasium's ``check_env`` needs) an in-range action outside the mask ends the episode
with reward ``illegal_reward`` (-1) and ``info["illegal_action"] = True``, leaving the game as it
was; with ``illegal_action="raise"`` it raises ``ValueError``. An action that is not an integer
in range, and ``step()`` after the end, always raise ``ValueError``.
Other keyword arguments go to the AEC env (e.g. ``max_moves``, ``cube``, ``scoring``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import gymnasium
import numpy as np
import numpy.typing as npt

from boardgym.envs import backgammon_v0, opponents, russian_draughts_v0
from boardgym.envs._aec import AGENTS, TwoPlayerAEC
from boardgym.envs.seeding import check_seed


def _random_policy(seed):
    """(observation, action_mask) -> a uniformly random legal action, from its own generator."""
    rng = np.random.default_rng(seed)

    def act(observation, action_mask):
        legal = np.flatnonzero(action_mask)
        return int(legal[rng.integers(legal.size)])

    return act


class _Agent(Protocol):
    """An opponent with act(observation, action_mask) -> action (and optionally act_state)."""

    def act(
        self, observation: npt.NDArray[np.float32], action_mask: npt.NDArray[np.int8]
    ) -> int: ...


#: an opponent as a function: (observation, action_mask) -> action
_Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], int]


class _SingleAgentEnv(gymnasium.Env):
    _aec_cls = None
    _game = ""
    # Read by gymnasium.make before an env exists (its render_mode check): the AEC env's modes.
    metadata = {k: TwoPlayerAEC.metadata[k] for k in ("render_modes", "render_fps")}

    def __init__(
        self,
        opponent: str | _Agent | _Policy = "random",
        learner: str = "alternate",
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        **game_kwargs: Any,
    ) -> None:
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self._ended_illegally = False
        if learner not in ("player_0", "player_1", "alternate"):
            raise ValueError(
                f"learner must be 'player_0', 'player_1' or 'alternate', got {learner!r}"
            )
        if isinstance(opponent, str) or not (callable(opponent) or hasattr(opponent, "act")):
            opponents.check_name(self._game, opponent)
        self.aec = self._aec_cls(render_mode=render_mode, **game_kwargs)
        self.metadata = {**self.aec.metadata, "render_modes": self.aec.metadata["render_modes"]}
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(AGENTS[0])["observation"]
        self.action_space = self.aec.action_space(AGENTS[0])
        self.learner = learner
        self._opponent_spec = opponent
        self._policy = None
        self._state_policy = None
        self.seat = AGENTS[0]

    def _by_state(self):
        """True when the opponent's act_state answers this decision (all of them here)."""
        return True

    def _opponent_act(self, agent):
        if self._state_policy is not None and self._by_state():
            # a search agent sees the whole game (history, counters)
            return self._state_policy(self.aec.state)
        obs = self.aec.observe(agent)
        return self._policy(obs["observation"], obs["action_mask"])

    def _advance(self):
        """Let the opponent move until the learner acts or the game ends."""
        while not self.aec.is_over and self.aec.agent_selection != self.seat:
            self.aec.step(self._opponent_act(self.aec.agent_selection))

    def _obs_info(self):
        obs = self.aec.observe(self.seat)
        info = dict(self.aec.infos[self.seat])
        info["action_mask"] = obs["action_mask"]
        info["seat"] = self.seat
        return obs["observation"], info

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """seed: None or an integer 0..2**64-1 (TypeError / ValueError else)."""
        super().reset(seed=check_seed(seed))
        sub_seed = int(self.np_random.integers(2**31))
        if self.learner == "alternate":
            self.seat = AGENTS[int(self.np_random.integers(2))]
        else:
            self.seat = self.learner
        spec = self._opponent_spec
        if spec == "random":
            self._policy = _random_policy(int(self.np_random.integers(2**31)))
        elif isinstance(spec, str):  # the game's in-kernel heuristic player
            spec = opponents.KernelPlayer(self._game, spec, int(self.np_random.integers(2**31)))
            self._policy = spec.act
        else:
            self._policy = spec.act if hasattr(spec, "act") else spec
        self._state_policy = getattr(spec, "act_state", None)
        self._ended_illegally = False
        self._told = None
        self.aec.reset(seed=sub_seed, options=options)
        self._advance()
        return self._obs_info()

    def step(
        self, action: int
    ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        if self.aec.is_over or self._ended_illegally:
            raise ValueError("step() called after the game ended; call reset()")
        if (
            self.illegal_action == "terminate"
            and isinstance(action, (int, np.integer))
            and 0 <= action < self.action_space.n
            and not self.aec.legal_mask()[action]
        ):
            self._ended_illegally = True
            obs, info = self._obs_info()
            info["illegal_action"] = True
            return obs, self.illegal_reward, True, False, info
        self.aec.step(action)
        self._advance()
        obs, info = self._obs_info()
        reward = float(self.aec.cumulative_rewards[self.seat])
        term = bool(self.aec.terminations[self.seat])
        trunc = bool(self.aec.truncations[self.seat])
        return obs, reward, term, trunc, info

    def action_masks(self) -> npt.NDArray[np.int8]:
        """int8[A]: the learner's legal actions now (all zero after the end)."""
        return self.aec.observe(self.seat)["action_mask"]

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The AEC env's render: a text board (``ansi``), an RGB image (``rgb_array``) or a
        printed board (``human``), drawn from player_0's side."""
        return self.aec.render()

    def _repr_svg_(self):
        return self.aec.to_svg()

    def close(self) -> None:
        self.aec.close()


class RussianDraughtsEnv(_SingleAgentEnv):
    """Single-agent Russian draughts (see boardgym.envs.russian_draughts_v0 for the game)."""

    _aec_cls = russian_draughts_v0.raw_env
    _game = "draughts"


class BackgammonEnv(_SingleAgentEnv):
    """Single-agent backgammon (see boardgym.envs.backgammon_v0 for the game and its options;
    ``match_length=N`` makes an episode a match to N points). An opponent with ``act_state``
    gets the kernel state for its checker plays and the observation (``act``) for its cube
    decisions; in match play one with ``set_match(length, score_me, score_opp, crawford,
    post_crawford)`` is told the score from its seat before each of its decisions when the
    score changed."""

    _aec_cls = backgammon_v0.raw_env
    _game = "backgammon"

    def _by_state(self):
        return bool(self.aec.legal_mask()[: backgammon_v0.game.N_ACTIONS].any())

    def _opponent_act(self, agent):
        tell = getattr(self._opponent_spec, "set_match", None)
        if self.aec.match_length and callable(tell):
            m, seat = self.aec.match, AGENTS.index(agent)
            told = (
                self.aec.match_length,
                int(m[backgammon_v0.game.M_SCORE + seat]),
                int(m[backgammon_v0.game.M_SCORE + 1 - seat]),
                bool(m[backgammon_v0.game.M_CRAWFORD]),
                bool(m[backgammon_v0.game.M_POST]),
            )
            if told != getattr(self, "_told", None):
                self._told = told
                tell(*told)
        return super()._opponent_act(agent)
