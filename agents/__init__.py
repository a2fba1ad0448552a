"""boardgym.agents: policies; legality always comes from the kernels."""
