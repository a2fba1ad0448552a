"""boardgym: fast, exact RL environments for Russian draughts and backgammon.

``boardgym.kernels`` holds the Numba rules kernels, ``boardgym.envs`` the PettingZoo/Gymnasium
adapters and notation, ``boardgym.agents`` the policies. Importing this package imports
``boardgym.envs`` so that the environments register with Gymnasium and PettingZoo.
"""
__version__ = "0.1.0"

from boardgym import envs  # noqa: E402,F401  (registers the environments)
