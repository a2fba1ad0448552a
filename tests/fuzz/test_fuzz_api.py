"""Hostile-input fuzz of the game APIs: every public function of envs/draughts.py and of the
backgammon notation module (and the PDN / match-file readers).

How it works: fuzz_targets.py is the table of targets and argument strategies; each group of
targets runs in one worker subprocess (fuzz_worker.py, driven by fuzz_runner.py), so that a
segfault, abort or hang fails the test of the target that did it, with the input, instead of
killing pytest. Each target gets a warm-up call, deterministic sweeps (every extreme value in
every state field, wrong shapes and types) and a fixed, derandomized set of Hypothesis
examples. The contract (fuzz_contract.py): a call returns, or raises ValueError/TypeError with a
message that names the problem (no Numba internals); a certainly invalid input must be rejected.

Run: ``.venv/bin/python -m pytest tests/fuzz -q`` (about a minute; ``-m slow`` runs 20x the
examples). Knobs: BOARDGYM_FUZZ_SCALE, BOARDGYM_FUZZ_CALL_LIMIT, BOARDGYM_FUZZ_EXPLORE.
"""

import fuzz_runner
import fuzz_targets
import pytest


@pytest.mark.parametrize("name", [t.name for t in fuzz_targets.targets_of("draughts_api")])
def test_draughts_api(name):
    fuzz_runner.assert_clean("draughts_api", name)


@pytest.mark.parametrize("name", [t.name for t in fuzz_targets.targets_of("backgammon_api")])
def test_backgammon_api(name):
    fuzz_runner.assert_clean("backgammon_api", name)
