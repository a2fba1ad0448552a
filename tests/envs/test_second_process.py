"""A second process compiles nothing: the parallel batch kernels come from Numba's cache.

Each child process builds both games' vector envs (256 games, so the parallel kernel builds
run), resets and steps them, draws random actions in a kernel and counts a parallel perft, while
it records every Numba compile of a boardgym function. The first child fills the test session's
Numba cache (or finds it warm); the second, on the same cache, must compile nothing.
"""

import json
import os
import subprocess
import sys

CHILD = r"""
import json
from numba.core import event

compiled = []


class Compiles(event.Listener):
    def on_start(self, ev):
        f = ev.data["dispatcher"].py_func
        if f.__module__.startswith("boardgym."):
            compiled.append(f.__module__ + "." + f.__qualname__)

    def on_end(self, ev):
        pass


event.register("numba:compile", Compiles())
import gymnasium as gym
import numba
import numpy as np

import boardgym
from boardgym.envs.batch import DraughtsBatch
from boardgym.kernels.draughts.game import initial_state
from boardgym.kernels.draughts.perft import perft_parallel

assert numba.get_num_threads() > 1, "the parallel builds need two threads"
for env_id in ("boardgym/RussianDraughts-v0", "boardgym/Backgammon-v0"):
    envs = gym.make_vec(
        env_id, num_envs=256, vectorization_mode="vector_entry_point", opponent="random"
    )
    obs, info = envs.reset(seed=0)
    envs.step(np.argmax(info["action_mask"], axis=1))
    envs.close()
core = DraughtsBatch(256, opponent=None)
core.reset(seed=0)
core.step(core.random_actions())
assert perft_parallel(initial_state(), 4) == 1469
print(json.dumps(compiled))
"""


def _compiles():
    env = dict(os.environ, NUMBA_NUM_THREADS="2", BOARDGYM_COMPILE_NOTICE="0")
    out = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=900
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_compiles_no_batch_kernel():
    _compiles()  # fills the cache (nothing to do when it is warm)
    assert _compiles() == []
