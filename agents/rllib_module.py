"""Action-masking torch RLModule for RLlib's new API stack (PPO): ``MaskedPPOModule``.

The observation is ``Dict(observations=Box(O,), action_mask=Box(A,) int8)`` as delivered by
boardgym.envs.rllib. The policy MLP maps ``observations`` to A logits; illegal actions get the
float32 minimum, so sampling and argmax only ever pick legal actions and PPO's log-probabilities
and entropy are those of the masked distribution. A separate value MLP (not built for
inference-only copies on the env runners) implements ``ValueFunctionAPI.compute_values``.

``model_config``: ``{"hidden": (256, 256)}`` (ReLU layers of both MLPs).

Ray and torch are imported on first use: ``MaskedPPOModule`` is built when first accessed, so
``import boardgym.agents.rllib_module`` works without Ray. ``module_spec(game)`` gives the
``RLModuleSpec`` for a game; ``RLlibAgent(module)`` plays a module in the AEC envs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # Ray and torch are optional: imported on first use
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec

__all__ = [
    "MaskedPPOModule",  # noqa: F822 (built on first access by the module __getattr__)
    "module_spec",
    "RLlibAgent",
    "masked_logits",
]

_CLASS = None


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """logits (B, A) float with illegal entries (mask == 0) set to the float32 minimum."""
    import torch

    return logits.masked_fill(mask == 0, torch.finfo(logits.dtype).min)


def _build_class():
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.torch import TorchRLModule

    def mlp(n_in, hidden, n_out):
        layers, width = [], n_in
        for h in hidden:
            layers += [torch.nn.Linear(width, int(h)), torch.nn.ReLU()]
            width = int(h)
        layers.append(torch.nn.Linear(width, n_out))
        return torch.nn.Sequential(*layers)

    class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
        """PPO policy + value MLPs over ``obs["observations"]``, logits masked by
        ``obs["action_mask"]``."""

        def setup(self):
            space = self.observation_space
            if not hasattr(space, "spaces") or set(space.spaces) != {"observations", "action_mask"}:
                raise ValueError(
                    "MaskedPPOModule needs a Dict(observations=..., action_mask=...) "
                    f"observation space, got {space}"
                )
            n_in = int(np.prod(space["observations"].shape))
            n_actions = int(self.action_space.n)
            hidden = tuple((self.model_config or {}).get("hidden", (256, 256)))
            self.pi = mlp(n_in, hidden, n_actions)
            if not self.inference_only:
                self.vf = mlp(n_in, hidden, 1)

        def _forward(self, batch, **kwargs):
            obs = batch[Columns.OBS]
            logits = self.pi(obs["observations"].float())
            return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, obs["action_mask"])}

        def compute_values(self, batch, embeddings=None):
            return self.vf(batch[Columns.OBS]["observations"].float()).squeeze(-1)

    MaskedPPOModule.__module__ = __name__
    MaskedPPOModule.__qualname__ = "MaskedPPOModule"
    return MaskedPPOModule


def __getattr__(name: str) -> type:
    global _CLASS
    if name == "MaskedPPOModule":
        if _CLASS is None:
            _CLASS = _build_class()
        return _CLASS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def module_spec(game: str, hidden: Sequence[int] = (256, 256), **env_kwargs: Any) -> RLModuleSpec:
    """``RLModuleSpec`` of a ``MaskedPPOModule`` for a game's spaces (boardgym.envs.rllib)."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from boardgym.envs import rllib as rl_env

    return RLModuleSpec(
        module_class=__getattr__("MaskedPPOModule"),
        observation_space=rl_env.obs_space(game, **env_kwargs),
        action_space=rl_env.action_space(game, **env_kwargs),
        model_config={"hidden": tuple(hidden)},
    )


class RLlibAgent:
    """An RLlib RLModule with the masked ``Dict`` observation as a boardgym agent:
    ``act(observation, action_mask) -> action`` (greedy, or sampled with
    ``deterministic=False``)."""

    def __init__(
        self, module: RLModule, deterministic: bool = True, seed: int | None = None
    ) -> None:
        self.module = module
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        import torch
        from ray.rllib.core.columns import Columns

        mask = np.asarray(action_mask, np.int8)
        if not mask.any():
            raise ValueError("RLlibAgent.act: the action mask allows no action")
        batch = {
            Columns.OBS: {
                "observations": torch.as_tensor(np.asarray(observation, np.float32))[None],
                "action_mask": torch.as_tensor(mask)[None],
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].numpy()
        if self.deterministic:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max()) * (mask != 0)
        return int(self.rng.choice(len(p), p=p / p.sum()))
