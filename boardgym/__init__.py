"""boardgym: fast, exact RL environments for Russian draughts and backgammon.

``boardgym.kernels`` holds the Numba rules kernels, ``boardgym.envs`` the PettingZoo/Gymnasium
adapters and notation, ``boardgym.agents`` the policies; imports run kernels -> envs -> agents.

Registration, and why it is done this way: ``import boardgym`` makes every environment known to
Gymnasium (``gymnasium.make("boardgym/RussianDraughts-v0")``) and PettingZoo
(``pettingzoo.make("aec", "boardgym/russian_draughts-v0")``), yet importing a kernel module must
load neither library — and Python runs this file before any ``boardgym.kernels...`` import, so it
cannot import ``boardgym.envs`` (which imports both). Gymnasium 1.x and PettingZoo have no plugin
entry points to register through, so ``boardgym.registration.register_on_import`` registers with
each library at once if it is already imported, else right after it is first imported (a
one-shot import hook); ``import boardgym.envs`` registers eagerly. The subpackages are imported on
first attribute access (``boardgym.envs``, ``boardgym.agents``, ``boardgym.kernels``).

The batched kernels run Numba ``prange`` loops on the OpenMP layer (libgomp). With spinning
waits a parallel step collapses whenever another process or thread holds one of the cores,
because every step waits for the descheduled thread (BENCHMARKS.md has the measurements). Nothing
adaptive can choose better: the policy is fixed when OpenMP starts, so it cannot follow the load
or the call size afterwards, and small calls already avoid the threads (the batch cores run their
serial build below 256 games or on one thread). Unless the user chose otherwise,
``OMP_WAIT_POLICY`` is set to ``PASSIVE`` here (it only takes effect if no OpenMP runtime has
started in the process yet, e.g. import boardgym before torch); on a machine of its own,
``OMP_WAIT_POLICY=ACTIVE`` in the environment buys the faster steps.
"""

import importlib
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__version__ = "0.1.0"

from boardgym.registration import register_on_import  # noqa: E402

register_on_import()

_SUBPACKAGES = ("kernels", "envs", "agents")


def __getattr__(name):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"boardgym.{name}")
    raise AttributeError(f"module 'boardgym' has no attribute {name!r}")
