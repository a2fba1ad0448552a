"""boardgym.kernels: Numba bitboard kernels, the only place the rules live.

Subpackages: ``draughts`` (Russian draughts), ``backgammon``. Shared by both games, never a rule:
``bits`` (bit tricks), ``rng`` (SplitMix64 random streams), ``players`` (the in-kernel player
codes ``OPP_*``). Only numpy, numba and the standard library are imported here, so importing a
kernel module loads no gymnasium, pettingzoo or torch (tests/test_layering.py).

``compile_notice`` says so on stderr while boardgym's Numba functions compile (the first use
with an empty cache); it is installed here, before any kernel module is imported.
"""

from boardgym.kernels import compile_notice

compile_notice.install()
