"""PettingZoo's performance_benchmark on both AEC envs, with and without the cube.

It prints turns per second (5 s per env); the assertion is that it runs to the end without error
through the wrapped envs. Speed targets are checked by scripts/bench/env.py, not here.
"""

import pytest
from pettingzoo.test import performance_benchmark

from boardgym.envs import backgammon_v0, russian_draughts_v0


@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    [russian_draughts_v0.env, backgammon_v0.env, lambda: backgammon_v0.env(cube=True)],
    ids=["draughts", "backgammon", "backgammon-cube"],
)
def test_performance_benchmark_runs(make, capsys):
    performance_benchmark(make())
    out = capsys.readouterr().out
    assert "turns per second" in out and "Finished performance benchmark" in out
