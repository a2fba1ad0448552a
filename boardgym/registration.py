"""Registration of boardgym's environments with Gymnasium and PettingZoo, without importing either.

The ids and entry points live here once (entry points are strings: nothing heavy is imported
until an env is made):

- PettingZoo AEC: ``boardgym/russian_draughts-v0``, ``boardgym/backgammon-v0``.
- Gymnasium single-agent: ``boardgym/RussianDraughts-v0``, ``boardgym/Backgammon-v0``, each with a
  vector entry point for
  ``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")``.

``register_gymnasium()`` / ``register_pettingzoo()`` register them (idempotent; they import the
library). ``register_on_import()`` registers with each library as soon as it is imported: at once
for a library already imported, else right after its top-level package has been executed, through
a finder on ``sys.meta_path`` that wraps that one import and then removes itself. That is how
``import boardgym`` registers every env while ``import boardgym.kernels...`` (which runs
``boardgym/__init__`` first) loads neither library: Gymnasium 1.x and PettingZoo 1.2x have no
plugin entry points that could do it instead.
"""

import importlib.abc
import sys

PETTINGZOO_AEC_ENVS = {
    "boardgym/russian_draughts-v0": "boardgym.envs.russian_draughts_v0:env",
    "boardgym/backgammon-v0": "boardgym.envs.backgammon_v0:env",
}
GYMNASIUM_ENVS = {  # id: (entry point, vector entry point for gymnasium.make_vec)
    "boardgym/RussianDraughts-v0": (
        "boardgym.envs.single_agent:RussianDraughtsEnv",
        "boardgym.envs.vector:DraughtsVectorEnv",
    ),
    "boardgym/Backgammon-v0": (
        "boardgym.envs.single_agent:BackgammonEnv",
        "boardgym.envs.vector:BackgammonVectorEnv",
    ),
}


def register_gymnasium():
    """Register the Gymnasium ids (skips ids already registered)."""
    import gymnasium

    for env_id, (entry, vector_entry) in GYMNASIUM_ENVS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=entry, vector_entry_point=vector_entry)


def register_pettingzoo():
    """Register the PettingZoo AEC ids (skips ids already registered)."""
    from pettingzoo.env_registry import register
    from pettingzoo.env_registry.registration import aec_registry

    for env_id, entry in PETTINGZOO_AEC_ENVS.items():
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=entry)


_REGISTER = {"gymnasium": register_gymnasium, "pettingzoo": register_pettingzoo}


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a library's registration right after its top-level package is first imported."""

    def __init__(self, pending):
        self.pending = dict(pending)  # package name -> registration function

    def find_spec(self, name, path, target=None):
        if name not in self.pending:
            return None
        spec = None
        for finder in sys.meta_path:  # the finder that would have found it without us
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        register = self.pending.pop(name)
        if not self.pending and self in sys.meta_path:
            sys.meta_path.remove(self)
        loader = spec.loader
        real_exec = loader.exec_module

        def exec_module(module):
            real_exec(module)
            try:
                del loader.exec_module  # back to the loader's own method
            except AttributeError:
                pass
            register()

        loader.exec_module = exec_module
        return spec


def register_on_import():
    """Register with Gymnasium and PettingZoo now if imported, else as soon as each is imported."""
    pending = {}
    for name, register in _REGISTER.items():
        if name in sys.modules:
            register()
        else:
            pending[name] = register
    if pending and not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(pending))
