"""Make tests/helpers importable from every test folder (shared test-only helpers), and keep the
tests that share an expensive session fixture on one pytest-xdist worker."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "helpers"))

# session fixture -> xdist group. The suite runs on two workers (``-n 2 --dist loadgroup`` in
# pyproject's addopts); a session fixture is built once per worker, so the tests that use one
# of these run on the same worker and it is built once: the installed wheel (a wheel build, a
# venv and the kernels compiled in the wheel's own Numba cache), headless Chromium, and the
# 4-piece endgame tables.
SHARED_FIXTURES = {"wheel_cli": "wheel", "browser": "browser", "tables4": "egdb4"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        for fixture, group in SHARED_FIXTURES.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(group))
                break
