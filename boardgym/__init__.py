"""boardgym: fast, exact RL environments for Russian draughts and backgammon.

``boardgym.kernels`` holds the Numba rules kernels, ``boardgym.envs`` the PettingZoo/Gymnasium
adapters and notation, ``boardgym.agents`` the policies. Importing this package imports
``boardgym.envs`` so that the environments register with Gymnasium and PettingZoo.

The batched kernels run Numba ``prange`` loops on the OpenMP layer. With OpenMP's default
active (spinning) wait, a parallel step collapses — 25x slower measured here — whenever another
process or thread holds one of the cores, because every step waits for the descheduled thread.
Unless the user chose otherwise, ``OMP_WAIT_POLICY`` is set to ``PASSIVE`` here (it only takes
effect if no OpenMP runtime has started in the process yet, e.g. import boardgym before torch).
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__version__ = "0.1.0"

from boardgym import envs  # noqa: E402,F401  (registers the environments)
