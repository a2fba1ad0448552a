"""Hostile-input fuzz of the environments (see test_fuzz_api.py for how the fuzz works).

- AEC envs (raw and wrapped): constructor options, ``reset(seed=, options=)`` with hostile FENs,
  Position IDs and dice, then steps: legal, illegal (in range, outside the mask) and hostile
  actions (negative, huge, float, NaN, bool, arrays, strings).
- Gymnasium single-agent and vector envs: the same through their reset/step, including opponent
  callables that answer garbage.
- DraughtsBatch / BackgammonBatch: constructor, reset, ``set_state`` with corrupted snapshots
  (keys dropped, arrays reshaped, dtypes changed, values corrupted) followed by steps, and the
  array entry points ``step_subset`` and ``random_actions``.
"""

import fuzz_runner
import fuzz_targets
import pytest


@pytest.mark.parametrize("name", [t.name for t in fuzz_targets.targets_of("aec")])
def test_aec_envs(name):
    fuzz_runner.assert_clean("aec", name)


@pytest.mark.parametrize("name", [t.name for t in fuzz_targets.targets_of("gym")])
def test_gymnasium_envs(name):
    fuzz_runner.assert_clean("gym", name)


@pytest.mark.parametrize("name", [t.name for t in fuzz_targets.targets_of("batch")])
def test_batch_cores(name):
    fuzz_runner.assert_clean("batch", name)
