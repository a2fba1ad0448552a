"""The game cores compile each kernel once per argument type, not once per constant argument.

A bare constant passed from one jitted function to another (``_search(..., 2, ..., False)``) is
typed as a literal, and Numba then compiles a separate specialisation of the callee for every
distinct constant. Callers pass such arguments as ``np.int64(...)`` / ``np.bool_(...)``. This test
runs the move generators of both games in a fresh process with an empty Numba cache (a warm cache
loads compiled callers and never types the callees) and lists every boardgym kernel compiled with a
literal argument. The agents' paths (searches, the cube, the TD nets, evaluation with luck
adjustment) compile for minutes, so their check is opt-in (``-m slow``).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HELPERS = Path(__file__).resolve().parents[1] / "helpers"

CHILD = r"""
import gc, json, sys
sys.path.insert(0, sys.argv[2])  # tests/helpers
import numpy as np
from numba.core.registry import CPUDispatcher
from bg_random_games import random_cases
from draughts_positions import random_positions
from boardgym.kernels.backgammon import board as B, game as bg
from boardgym.kernels.backgammon.movegen import (
    MAX_AFTERSTATES, MAX_MOVES, MV_FIELDS, gen_afterstates_scratch, scratch_size)
from boardgym.scripts.cli import main

AGENT_RUNS = json.loads(sys.argv[1])
out = np.empty((MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
routes = np.empty((MAX_AFTERSTATES, MAX_MOVES, MV_FIELDS), dtype=np.int64)
sc = np.empty(scratch_size(MAX_AFTERSTATES), dtype=np.int64)
kinds = set()
# random games (gen_afterstates) -> every search mode: doubles, bar, bear-off, two or more outside
for s, d1, d2 in random_cases(600, 0):
    kinds.add((d1 == d2, s[B.BAR_ME] > 0, bool(s[B.ME + 6:B.ME + 24].sum() == 0)))
    gen_afterstates_scratch(s, d1, d2, out, sc)
    bg.plays_of_roll(s, d1, d2, out, routes)
random_positions(20, 0)  # draughts: random whole moves (quiet moves, captures, kings)
for argv in AGENT_RUNS:
    main(argv)
literal = sorted({d.py_func.__module__ + "." + d.py_func.__qualname__ + str(sig)
                  for d in gc.get_objects() if isinstance(d, CPUDispatcher)
                  and d.py_func.__module__.startswith("boardgym")
                  for sig in d.signatures if any("Literal" in str(t) for t in sig)})
print(json.dumps({"literal": literal, "kinds": sorted(map(str, kinds))}))
"""


AGENT_RUNS = [
    [
        "evaluate",
        "backgammon-td:cube=janowski",
        "backgammon-td:plies=2,candidates=2",
        "--cube",
        "--games",
        "2",
        "--quiet",
    ],
    [
        "evaluate",
        "backgammon-td:plies=1",
        "backgammon-expectimax",
        "--games",
        "2",
        "--luck",
        "td",
        "--quiet",
    ],
    [
        "evaluate",
        "draughts-alphabeta:depth=3",
        "draughts-alphabeta-td:depth=2",
        "draughts-greedy",
        "--games",
        "2",
        "--quiet",
    ],
]


def _literal_compiles(tmp_path, agent_runs):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    r = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(agent_runs), str(HELPERS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert len(res["kinds"]) >= 4, res["kinds"]  # the workload reached the search's modes
    return res["literal"]


def test_no_kernel_is_compiled_for_a_constant_argument(tmp_path):
    assert _literal_compiles(tmp_path, []) == []


@pytest.mark.slow
def test_no_agent_kernel_is_compiled_for_a_constant_argument(tmp_path):
    assert _literal_compiles(tmp_path, AGENT_RUNS) == []
