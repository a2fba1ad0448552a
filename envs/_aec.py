"""Shared bookkeeping of boardgym's two-player PettingZoo AEC environments.

``TwoPlayerAEC`` owns what every classic board-game env repeats — agents, spaces, seeding,
reward accumulation, validation of actions, render-mode dispatch — and asks its game subclass
(russian_draughts_v0, backgammon_v0) for the game-specific pieces through a handful of hooks.
Legality always comes from the kernels through the subclass's ``_fill_mask``.

Conventions (PettingZoo classic, e.g. chess_v6): agents ``player_0`` (White / first player) and
``player_1``; observation ``Dict(observation=Box, action_mask=Box(0, 1, (A,), int8))``; the mask
is all zeros for the agent not on turn and after the game; zero-sum rewards at the end.
An agent may act several times in a row (a capture chain, a backgammon turn):
``agent_selection`` says who acts. The raw env raises ``ValueError`` for an action that is out of
range or not legal; ``env()`` wraps it so that an illegal action ends the game with a penalty
(TerminateIllegalWrapper), as PettingZoo's classic envs do.

Other modules read the game through public, read-only views — ``is_over``, ``legal_mask()``,
``n_legal``, ``cumulative_rewards`` — and end a game on an illegal action they caught themselves
with ``end_on_illegal_action()``; the underscored attributes are this module's own.
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from boardgym.envs.seeding import check_seed

AGENTS = ("player_0", "player_1")


# Attributes every AEC loop reads several times a step. PettingZoo's wrappers forward them through
# ``__getattr__`` one layer at a time, which cost more than the game itself; the subclasses below
# read them straight from the raw env (none of the three wrappers keeps its own copy; each layer
# holds the raw env, ``_raw``, from its construction), keeping OrderEnforcingWrapper's "cannot be
# accessed before reset" check.
_FORWARDED = (
    "agent_selection",
    "agents",
    "rewards",
    "terminations",
    "truncations",
    "infos",
    "_cumulative_rewards",
    "possible_agents",
)
_NEED_RESET = {"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"}


def _forwarding(name, check_reset):
    if check_reset and name in _NEED_RESET:

        def get(self):
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self._raw, name)
    else:

        def get(self):
            return getattr(self._raw, name)

    def set_(self, value):
        setattr(self._raw, name, value)

    return property(get, set_)


def _repr_svg_(self):
    """The current position as SVG, so that a notebook shows the wrapped env as its board."""
    return self.unwrapped._repr_svg_()


def _init(wrapper_cls):
    def __init__(self, env, *args, **kwargs):
        self.__dict__["_raw"] = env.unwrapped
        wrapper_cls.__init__(self, env, *args, **kwargs)

    return __init__


def _unwrapped(self):
    return self._raw


def _fast(wrapper_cls, check_reset=False, **methods):
    attrs = {n: _forwarding(n, check_reset) for n in _FORWARDED}
    attrs.update(
        __init__=_init(wrapper_cls),
        unwrapped=property(_unwrapped),
        _repr_svg_=_repr_svg_,
        **methods,
    )
    return type(wrapper_cls.__name__, (wrapper_cls,), attrs)


def _step_in_bounds(self, action):
    """AssertOutOfBoundsWrapper.step, with a plain int in range (the usual action) let through
    without Gymnasium's Discrete.contains (which accepts it too)."""
    if type(action) is int and 0 <= action < self._raw.n_actions:
        self.env.step(action)
    else:
        wrappers.AssertOutOfBoundsWrapper.step(self, action)


def _step_or_terminate(self, action):
    """TerminateIllegalWrapper.step, with a masked action of a live agent (the usual case)
    handed straight to the raw env; anything else takes the wrapper's own path."""
    raw, seen = self._raw, self._prev_obs
    agent = raw.agent_selection
    if (
        seen is not None
        and not self._terminated
        and not raw.terminations[agent]
        and not raw.truncations[agent]
        and seen["action_mask"][action]
    ):
        self._prev_obs = self._prev_info = None
        raw.step(action)
    else:
        wrappers.TerminateIllegalWrapper.step(self, action)


def _last(self, observe=True):
    """AECEnv.last, reading the raw env's dicts once."""
    agent = self.agent_selection  # AttributeError before reset, as OrderEnforcingWrapper says
    assert agent is not None
    raw = self._raw
    observation = self.observe(agent) if observe else None
    return (
        observation,
        raw._cumulative_rewards[agent],
        raw.terminations[agent],
        raw.truncations[agent],
        raw.infos[agent],
    )


_TerminateIllegal = _fast(wrappers.TerminateIllegalWrapper, step=_step_or_terminate)
_AssertOutOfBounds = _fast(wrappers.AssertOutOfBoundsWrapper, step=_step_in_bounds)
_OrderEnforcing = _fast(wrappers.OrderEnforcingWrapper, check_reset=True, last=_last)


def wrap_classic(raw):
    """The classic PettingZoo wrapper order: TerminateIllegal -> AssertOutOfBounds ->
    OrderEnforcing."""
    env = _TerminateIllegal(raw, illegal_reward=-1)
    env = _AssertOutOfBounds(env)
    return _OrderEnforcing(env)


def warn_unknown_options(options, known):
    """Warn about reset options this env does not use (PettingZoo's api_test passes some): a
    plain UserWarning (no terminal colour codes), unless gymnasium.logger is set above WARN."""
    unknown = sorted(set(options) - set(known))
    if unknown and gymnasium.logger.min_level <= gymnasium.logger.WARN:
        warnings.warn(
            f"ignoring unknown reset option(s) {unknown}; supported: {list(known)}",
            UserWarning,
            stacklevel=3,
        )


class TwoPlayerAEC(AECEnv):
    """Base of the boardgym AEC envs; subclasses implement the ``_hook`` methods below."""

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self, n_actions: int, obs_space: spaces.Space, render_mode: str | None = None
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"unknown render_mode {render_mode!r}; "
                f"expected one of {self.metadata['render_modes']} or None"
            )
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.n_actions = n_actions
        self._obs_box = obs_space
        self.observation_spaces = {
            a: spaces.Dict(
                {"observation": obs_space, "action_mask": spaces.Box(0, 1, (n_actions,), np.int8)}
            )
            for a in AGENTS
        }
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in AGENTS}
        self._mask = np.zeros(n_actions, np.int8)
        self._n_legal = 0
        self._done = True
        self._illegal_by = None
        self.np_random, self._np_random_seed = seeding.np_random(None)
        self.agent_selection = AGENTS[0]
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: {} for a in AGENTS}

    # ---- hooks for the game subclass ----------------------------------------------------------
    def _new_game(self, options):
        """Set up a new game (options validated here; ValueError on unknown keys or values)."""
        raise NotImplementedError

    def _to_move(self):
        """Index (0/1) of the agent that acts now."""
        raise NotImplementedError

    def _fill_mask(self, out):
        """Fill out (int8[A]) with the acting agent's legal actions (its own frame); return
        count."""
        raise NotImplementedError

    def _play(self, action):
        """Apply one legal action of the acting agent (already validated)."""
        raise NotImplementedError

    def _result(self):
        """(terminated, truncated, (reward_0, reward_1)) of the current position; the rewards
        of the action just played (zero until the end, except in games that pay on the way)."""
        raise NotImplementedError

    def _encode(self, player):
        """A fresh observation array of the current position from player's view."""
        raise NotImplementedError

    def _step_infos(self):
        """Per-agent info dicts after a reset or step (override to add game facts)."""
        return {a: {} for a in AGENTS}

    #: the game's render module (render_text, render_rgb, to_svg over a state); set by each game
    renderer = None

    def last_move(self) -> Any:
        """The last move as the renderer marks it (the game's own form), or None."""
        return None

    def end_text(self) -> str | None:
        """The header of a game that ended in a way its position does not show (a truncation,
        an illegal action), else None (the renderer says who won, or whose move it is)."""
        if not self._done:
            return None
        if self._illegal_by is not None:
            return f"game over: {self._illegal_by} played an illegal action"
        if any(self.truncations.values()) and not any(self.terminations.values()):
            return "game over: stopped at the move cap (no result)"
        return None

    def _picture_args(self, perspective):
        return {
            "perspective": perspective,
            "last_move": self.last_move(),
            "outcome": self.end_text(),
        }

    def render_text(self, perspective: int = 0) -> str:
        """The current position as a text board, player ``perspective``'s side (0/1) at the
        bottom, with the last move and, once the game is over, who won."""
        return self.renderer.render_text(self.state, **self._picture_args(perspective))

    def render_rgb(self, perspective: int = 0) -> npt.NDArray[np.uint8]:
        """The current position as an RGB image (H, W, 3) uint8, player ``perspective``'s side
        (0/1) at the bottom, the last move marked."""
        return self.renderer.render_rgb(self.state, **self._picture_args(perspective))

    def to_svg(self, perspective: int = 0) -> str:
        """The current position as an SVG document (str), player ``perspective``'s side (0/1) at
        the bottom, the last move marked."""
        return self.renderer.to_svg(self.state, **self._picture_args(perspective))

    def _repr_svg_(self):
        return self.to_svg()

    # ---- read-only views for other modules ------------------------------------------------------
    @property
    def is_over(self) -> bool:
        """True once the game has ended (terminated, truncated or ended by an illegal action)."""
        return self._done

    def legal_mask(self) -> npt.NDArray[np.int8]:
        """int8[A], a fresh copy: the acting agent's legal actions in its own frame (zero at the
        end)."""
        return self._mask.copy()

    @property
    def n_legal(self) -> int:
        """How many actions the acting agent has (0 at the end)."""
        return self._n_legal

    @property
    def cumulative_rewards(self) -> Mapping[str, float]:
        """{agent: reward accumulated since the agent last acted} (what ``last()`` reports): a
        read-only mapping over a copy."""
        return types.MappingProxyType(dict(self._cumulative_rewards))

    def end_on_illegal_action(self, penalty: float = -1.0) -> str:
        """End the game now because the acting agent chose an illegal action: it is rewarded
        ``penalty``, the other agent 0, both are terminated (PettingZoo's TerminateIllegalWrapper
        rule, for adapters that catch illegal actions themselves). Returns the offender."""
        if self._done:
            raise ValueError("the game is already over; call reset()")
        agent = self.agent_selection
        self._done = True
        self._illegal_by = agent
        self._mask[:] = 0
        self._n_legal = 0
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: (float(penalty) if a == agent else 0.0) for a in AGENTS}
        self.terminations = dict.fromkeys(AGENTS, True)
        self.truncations = dict.fromkeys(AGENTS, False)
        self._accumulate_rewards()
        return agent

    # ---- PettingZoo API -----------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; seed: None or an integer 0..2**64-1 (TypeError / ValueError else)."""
        seed = check_seed(seed)
        if seed is not None or not hasattr(self, "_seeded"):
            self.np_random, self._np_random_seed = seeding.np_random(seed)
            self._seeded = True
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
        self.agents = list(AGENTS)
        self._reset_seed = seed
        self._new_game(dict(options or {}))
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self._done = False
        self._illegal_by = None
        self._after_change()
        if self.render_mode == "human":
            self.render()

    def _after_change(self):
        """Refresh mask, agent selection, outcome and infos after the state changed."""
        term, trunc, rew = self._result()
        self.infos = self._step_infos()
        for i, a in enumerate(AGENTS):  # zero while the episode goes on, unless the game pays
            self.rewards[a] = float(rew[i])  # on the way (a backgammon match's games)
        if term or trunc:
            self._done = True
            self._mask[:] = 0
            self._n_legal = 0
            for a in AGENTS:
                self.terminations[a] = bool(term)
                self.truncations[a] = bool(trunc and not term)
        else:
            self._n_legal = self._fill_mask(self._mask)
        self.agent_selection = AGENTS[self._to_move()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = AGENTS.index(agent)
        if self._done or agent != self.agent_selection:
            mask = np.zeros(self.n_actions, np.int8)
        else:
            mask = self._mask.copy()
        return {"observation": self._encode(player), "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        if self._done:
            raise ValueError("step() called after the game ended; call reset()")
        try:
            a = int(action)
        except (TypeError, ValueError, OverflowError):  # OverflowError: int(inf)
            raise ValueError(f"action must be an integer, got {action!r}") from None
        if a != action or not 0 <= a < self.n_actions:
            if isinstance(action, (str, bytes)) or a != action:
                raise ValueError(f"action must be an integer, got {action!r}")
            raise ValueError(f"action {action!r} out of range 0..{self.n_actions - 1}")
        if not self._mask[a]:
            raise ValueError(
                f"illegal action {a} for {agent}: not in the action mask "
                f"({self._n_legal} legal actions)"
            )
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._play(a)
        self._after_change()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        if self.render_mode == "ansi":
            return self.render_text()
        if self.render_mode == "rgb_array":
            return self.render_rgb()
        print(self.render_text())
        return None

    def close(self) -> None:
        pass
