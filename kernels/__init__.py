"""boardgym.kernels: Numba bitboard kernels, the only place the rules live.

Subpackages: ``draughts`` (Russian draughts), ``backgammon``. Shared bit tricks: ``bits``.
Nothing here imports gymnasium, pettingzoo or torch.
"""
