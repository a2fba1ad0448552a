"""Ray RLlib adapter: both games as a native RLlib ``MultiAgentEnv`` (new API stack).

``BoardgymMultiAgentEnv(config)`` runs one game of ``russian_draughts_v0`` or ``backgammon_v0``
(their raw AEC env) and speaks RLlib's turn-based multi-agent protocol:

- agents ``player_0`` / ``player_1``; ``config = {"game": "draughts" | "backgammon",
  "illegal": "terminate" | "raise", **env kwargs}`` (the kwargs go to the game's ``raw_env``:
  ``max_moves``, draw-rule switches; ``scoring``, ``max_turns``; ``cube=True`` is refused: the
  cube actions need a cube-aware policy);
- an action outside the mask ends the game with -1 for the offender and 0 for the other
  (``infos[agent]["illegal_action"]``), as PettingZoo's TerminateIllegalWrapper does (RLlib's
  env check steps unmasked random actions); ``illegal="raise"`` raises ValueError instead. An
  action for the wrong agent, or after the end, is always a ValueError;
- observations are ``Dict(observations=Box float32, action_mask=Box int8)`` — the keys RLlib's
  action-masking RLModules read (PettingZoo's ``"observation"`` is renamed here, not in user code);
  ``boardgym.agents.rllib_module.MaskedPPOModule`` is the matching torch module;
- each step returns an observation for the agent to act next only (it may be the same agent
  again: a capture chain, the rest of a backgammon turn); ``step`` takes that agent's action;
- at the end both agents get their final observation (zero mask), their reward (+1 / -1, 0 for a
  draw; backgammon ``scoring="gammon"``: +-1/2/3), ``terminateds`` / ``truncateds`` for both and
  ``"__all__"``; before that rewards are 0 (but a backgammon match's games with
  ``match_reward="points"``) and only reported for agents that have been observed.

Ray is imported on first use: ``import boardgym.envs.rllib`` works without Ray, and the class is
built when ``BoardgymMultiAgentEnv`` is first accessed. ``register_envs()`` registers
``"boardgym/draughts"`` and ``"boardgym/backgammon"`` with ``ray.tune`` for ``config.environment``.

Why the AEC env and not the batched cores: RLlib's per-step work (connectors, episode
bookkeeping, the module forward pass) costs many times the adapter's own step (BENCHMARKS.md,
"RLlib sampling"), so a batched core would not speed up RLlib sampling. Scale with
``num_env_runners`` and ``num_envs_per_env_runner`` (RLlib batches the forward pass over them).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gymnasium import spaces
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

GAMES = {
    "draughts": "boardgym.envs.russian_draughts_v0",
    "backgammon": "boardgym.envs.backgammon_v0",
}
ENV_NAMES = {game: f"boardgym/{game}" for game in GAMES}
AGENTS = ("player_0", "player_1")

__all__ = [
    "BoardgymMultiAgentEnv",  # noqa: F822 (built on first access by the module __getattr__)
    "GAMES",
    "ENV_NAMES",
    "AGENTS",
    "env_creator",
    "register_envs",
    "obs_space",
    "action_space",
]

_CLASS = None


def _raw_env(config):
    """(game, raw AEC env) from an env config dict; ValueError for a bad game or option."""
    config = dict(config or {})
    game = config.pop("game", "draughts")
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {sorted(GAMES)}")
    if config.get("cube"):
        raise ValueError(
            "cube=True is not supported by the RLlib adapter (the cube actions need "
            "a cube-aware policy); use the AEC env"
        )
    config.pop("cube", None)
    config.pop("render_mode", None)
    illegal = config.pop("illegal", "terminate")
    if illegal not in ("terminate", "raise"):
        raise ValueError(f"illegal must be 'terminate' or 'raise', got {illegal!r}")
    return game, illegal, importlib.import_module(GAMES[game]).raw_env(**config)


def obs_space(game: str, **kwargs: Any) -> spaces.Dict:
    """The per-agent observation space ``Dict(observations=Box, action_mask=Box)`` of a game."""
    from gymnasium import spaces

    _, _, raw = _raw_env({"game": game, **kwargs})
    inner = raw.observation_spaces[AGENTS[0]]
    return spaces.Dict({"observations": inner["observation"], "action_mask": inner["action_mask"]})


def action_space(game: str, **kwargs: Any) -> spaces.Discrete:
    """The per-agent action space ``Discrete(A)`` of a game."""
    _, _, raw = _raw_env({"game": game, **kwargs})
    return raw.action_spaces[AGENTS[0]]


def _build_class():
    from gymnasium import spaces
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    class BoardgymMultiAgentEnv(MultiAgentEnv):
        """One boardgym game as an RLlib turn-based ``MultiAgentEnv`` (see the module docstring)."""

        def __init__(self, config: dict[str, Any] | None = None) -> None:
            super().__init__()
            self.game, self.illegal, self.raw = _raw_env(config)
            inner = self.raw.observation_spaces[AGENTS[0]]
            space = spaces.Dict(
                {"observations": inner["observation"], "action_mask": inner["action_mask"]}
            )
            self.possible_agents = list(AGENTS)
            self.agents = list(AGENTS)
            self.observation_spaces = {a: space for a in AGENTS}
            self.action_spaces = {a: self.raw.action_spaces[a] for a in AGENTS}
            self._seen = set()

        def _obs(self, agent):
            o = self.raw.observe(agent)
            return {"observations": o["observation"], "action_mask": o["action_mask"]}

        def reset(
            self, *, seed: int | None = None, options: dict[str, Any] | None = None
        ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
            self.raw.reset(seed=seed, options=options)
            agent = self.raw.agent_selection
            self._seen = {agent}
            return {agent: self._obs(agent)}, {agent: dict(self.raw.infos[agent])}

        def step(
            self, action_dict: dict[str, int]
        ) -> tuple[
            dict[str, dict[str, Any]],
            dict[str, float],
            dict[str, bool],
            dict[str, bool],
            dict[str, dict[str, Any]],
        ]:
            raw = self.raw
            if raw.is_over:
                raise ValueError("step() called after the game ended; call reset()")
            agent = raw.agent_selection
            if agent not in action_dict:
                raise ValueError(f"{agent} is to act but action_dict has {sorted(action_dict)}")
            extra = sorted(set(action_dict) - {agent})
            if extra:
                raise ValueError(f"only {agent} may act now, got actions for {extra}")
            action = action_dict[agent]
            if self.illegal == "terminate" and not self._legal(action):
                return self._end_illegal(agent, action)
            raw.step(action)
            if raw.is_over:
                term = any(raw.terminations.values())
                self._seen = set(AGENTS)
                obs = {a: self._obs(a) for a in AGENTS}
                rewards = {a: float(raw.rewards[a]) for a in AGENTS}
                terms = {a: term for a in AGENTS}
                truncs = {a: not term for a in AGENTS}
                terms["__all__"], truncs["__all__"] = term, not term
                return obs, rewards, terms, truncs, {a: dict(raw.infos[a]) for a in AGENTS}
            nxt = raw.agent_selection
            self._seen.add(nxt)
            rewards = {a: float(raw.rewards[a]) for a in self._seen}  # 0 but for match games
            flags = {"__all__": False}
            return ({nxt: self._obs(nxt)}, rewards, flags, dict(flags), {nxt: dict(raw.infos[nxt])})

        def _legal(self, action):
            try:
                a = int(action)
            except (TypeError, ValueError):
                return True  # the raw env raises the ValueError naming the problem
            return not (a == action and 0 <= a < self.raw.n_actions) or bool(
                self.raw.legal_mask()[a]
            )

        def _end_illegal(self, agent, action):
            """PettingZoo's TerminateIllegalWrapper rule: the game ends, the offender gets -1."""
            raw = self.raw
            raw.end_on_illegal_action(-1.0)
            self._seen = set(AGENTS)
            obs = {a: self._obs(a) for a in AGENTS}
            rewards = {a: float(raw.rewards[a]) for a in AGENTS}
            terms = {a: raw.terminations[a] for a in AGENTS}
            truncs = {a: raw.truncations[a] for a in AGENTS}
            terms["__all__"], truncs["__all__"] = True, False
            info = {"illegal_action": int(action)}
            return obs, rewards, terms, truncs, {a: dict(info) for a in AGENTS}

        def render(self) -> str:
            return self.raw.render_text()

    BoardgymMultiAgentEnv.__module__ = __name__
    BoardgymMultiAgentEnv.__qualname__ = "BoardgymMultiAgentEnv"
    return BoardgymMultiAgentEnv


def __getattr__(name):
    global _CLASS
    if name == "BoardgymMultiAgentEnv":
        if _CLASS is None:
            _CLASS = _build_class()
        return _CLASS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def env_creator(config: dict[str, Any] | None = None) -> MultiAgentEnv:
    """RLlib env creator: ``BoardgymMultiAgentEnv(config)`` (config: ``{"game": ...,
    **kwargs}``)."""
    return __getattr__("BoardgymMultiAgentEnv")(dict(config or {}))


def register_envs() -> dict[str, str]:
    """Register ``"boardgym/draughts"`` and ``"boardgym/backgammon"`` with ray.tune (idempotent)."""
    from ray.tune.registry import register_env

    for game, name in ENV_NAMES.items():
        register_env(name, lambda cfg, game=game: env_creator({**dict(cfg or {}), "game": game}))
    return dict(ENV_NAMES)
