"""Fixtures of the script tests: the ``boardgym`` command installed from a wheel."""

import pytest
from wheel_install import InstalledWheel


@pytest.fixture(scope="session")
def wheel_cli(tmp_path_factory):
    """boardgym built as a wheel and installed into a fresh venv outside the checkout."""
    return InstalledWheel(tmp_path_factory.mktemp("wheel"))
