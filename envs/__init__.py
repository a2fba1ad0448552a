"""boardgym.envs: thin adapters over the kernels (notation, PettingZoo/Gymnasium envs).

Envs call kernels and copy results; they never decide legality.
"""
