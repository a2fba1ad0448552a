"""In-kernel player codes, shared by every game's batch cores, match loops and trainers.

A kernel that plays one side itself takes one of these codes; each game's players live in
``kernels/<game>/opponents.py``.
"""

OPP_NONE = 0  # no in-kernel opponent: the caller supplies every action
OPP_RANDOM = 1  # a uniformly random legal action at each step (what RandomAgent does)
OPP_GREEDY = 2  # the game's one-ply heuristic player (kernels/<game>/opponents.py)
OPP_NET = 3  # a value net given to the kernel (trainers' match loops)
