"""boardgym.envs: thin adapters over the kernels (notation, PettingZoo/Gymnasium envs).

Envs call kernels and copy results; they never decide legality. Importing this package registers
the environments (entry points are strings, so nothing heavy is imported until an env is made):

- PettingZoo AEC: ``pettingzoo.make("aec", "boardgym/russian_draughts-v0")``, ``"boardgym/backgammon-v0"``
  (or ``boardgym.envs.russian_draughts_v0.env()`` / ``boardgym.envs.backgammon_v0.env()``).
- Gymnasium single-agent: ``gymnasium.make("boardgym/RussianDraughts-v0", opponent="random")``,
  ``"boardgym/Backgammon-v0"``; batched: ``gymnasium.make_vec(id, num_envs=N,
  vectorization_mode="vector_entry_point")`` (boardgym.envs.vector).
"""
import gymnasium
from pettingzoo.env_registry.registration import aec_registry
from pettingzoo.env_registry import register as _pz_register

_AEC = {
    "boardgym/russian_draughts-v0": "boardgym.envs.russian_draughts_v0:env",
    "boardgym/backgammon-v0": "boardgym.envs.backgammon_v0:env",
}
_GYM = {  # id: (entry point, vector entry point for gymnasium.make_vec)
    "boardgym/RussianDraughts-v0": ("boardgym.envs.single_agent:RussianDraughtsEnv",
                                    "boardgym.envs.vector:DraughtsVectorEnv"),
    "boardgym/Backgammon-v0": ("boardgym.envs.single_agent:BackgammonEnv",
                               "boardgym.envs.vector:BackgammonVectorEnv"),
}

for _id, _entry in _AEC.items():
    if _id not in aec_registry:
        _pz_register("aec", _id, entry_point=_entry)
for _id, (_entry, _vector_entry) in _GYM.items():
    if _id not in gymnasium.registry:
        gymnasium.register(_id, entry_point=_entry, vector_entry_point=_vector_entry)
