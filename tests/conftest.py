"""Make tests/helpers importable from every test folder (shared test-only helpers); give each
pytest-xdist worker a Numba cache of its own, silence the compile notice, and keep the tests that
share an expensive session fixture on one worker."""

import os
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "helpers"))

# Numba's on-disk cache is not safe for processes that compile the same functions at the same
# time (numba/numba#4807, #10128: entries written by two processes can disagree on the mangled
# names, and loading such a mix aborts the process). Each worker therefore caches in a folder
# of its own under the configured cache (when none is set, under the system's temp folder, so
# that it outlives the run as the in-tree cache would); this runs before any test module imports
# Numba, which reads the variable once, at import.
_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker:
    if "numba" in sys.modules:
        raise RuntimeError("Numba was imported before tests/conftest.py set the worker's cache")
    _base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        tempfile.gettempdir(), f"boardgym-tests-numba-{os.getuid()}"
    )
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(_base, _worker)

# The compile notice (boardgym/kernels/compile_notice.py) writes to stderr whenever a compile
# lasts a second, which on a cold cache would reach the output that tests compare; its own tests
# switch it on.
os.environ.setdefault("BOARDGYM_COMPILE_NOTICE", "0")

# The game archive that boardgym play and boardgym serve write by default: a file of this run
# (each worker its own), never the user's.
os.environ["BOARDGYM_ARCHIVE"] = os.path.join(
    tempfile.mkdtemp(prefix="boardgym-tests-archive-"), "archive.sqlite"
)

# session fixture -> xdist group. The suite runs on two workers (``-n 2 --dist loadgroup`` in
# pyproject's addopts); a session fixture is built once per worker, so the tests that use one
# of these are marked to run on the same worker and build it once: the installed wheel (a wheel
# build, a venv and the kernels compiled in the wheel's own Numba cache), headless Chromium, and
# the 4-piece endgame tables. This saves time only: each fixture is safe to build on both workers
# at once (the wheel is built from a private copy of the source). With pytest 9.2 the marks do
# not take (its node ids drop xdist's group suffix, pytest-dev/pytest-xdist#1386), so the test
# extra pins pytest below 9.2.
SHARED_FIXTURES = {"wheel_cli": "wheel", "browser": "browser", "tables4": "egdb4"}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the marks into node ids
def pytest_collection_modifyitems(config, items):
    for item in items:
        for fixture, group in SHARED_FIXTURES.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(group))
                break
