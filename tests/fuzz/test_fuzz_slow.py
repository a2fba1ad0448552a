"""The same fuzz with many more examples (``pytest -m slow tests/fuzz``; BOARDGYM_FUZZ_SLOW_SCALE,
default 20, multiplies every target's number of Hypothesis examples)."""

import os

import fuzz_runner
import fuzz_targets
import pytest

SLOW_SCALE = float(os.environ.get("BOARDGYM_FUZZ_SLOW_SCALE", "20"))


@pytest.mark.slow
@pytest.mark.parametrize("name", [t.name for t in fuzz_targets.TARGETS if t.group != "selftest"])
def test_fuzz_many_examples(name):
    fuzz_runner.assert_clean(fuzz_targets.BY_NAME[name].group, name, scale=SLOW_SCALE)
