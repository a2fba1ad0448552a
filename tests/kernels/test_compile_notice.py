"""The compile notice: a line on stderr while boardgym's Numba functions compile, none from the
cache."""

import io
import os
import subprocess
import sys
import time

import numba
import pytest
from numba.core import event

from boardgym.kernels import compile_notice
from boardgym.kernels.compile_notice import CompileNotice


def _fresh_function(module, body="return x * 3 + 1"):
    """A new @njit function whose __module__ is module (never compiled before: a cache miss)."""
    namespace = {"__name__": module}
    exec(f"def f(x):\n    {body}\n", namespace)
    return numba.njit(namespace["f"])


def _wait_for(stream, text, timeout=5.0):
    end = time.monotonic() + timeout
    while text not in stream.getvalue() and time.monotonic() < end:
        time.sleep(0.01)
    return stream.getvalue()


@pytest.fixture
def notice():
    """A CompileNotice writing to a StringIO, no delay, registered for the test only."""
    stream = io.StringIO()
    listener = CompileNotice(stream=stream, delay=0.0, quiet=0.05, force=True)
    event.register("numba:compile", listener)
    yield listener, stream
    event.unregister("numba:compile", listener)


def test_a_boardgym_compile_is_announced_and_its_time_said(notice):
    _, stream = notice
    assert _fresh_function("boardgym.kernels.draughts.fake")(2) == 7
    text = _wait_for(stream, "boardgym: compiled")
    assert "boardgym: compiling the draughts kernels (first use; Numba caches them" in text
    assert "boardgym: compiled the draughts kernels in " in text and text.count("\n") == 2


def test_a_run_that_goes_on_to_another_game_names_it(notice):
    listener, stream = notice
    listener.quiet = 2.0  # both compiles in one run
    _fresh_function("boardgym.kernels.draughts.fake")(1)
    _wait_for(stream, "draughts")
    _fresh_function("boardgym.kernels.backgammon.fake")(1)
    text = _wait_for(stream, "backgammon")
    assert "compiling the draughts kernels" in text and "compiling the backgammon kernels" in text


def test_other_libraries_compiles_are_not_announced(notice):
    _, stream = notice
    _fresh_function("somebody_else")(1)
    time.sleep(0.2)
    assert stream.getvalue() == ""


def test_parts_of_boardgym():
    assert compile_notice._part(_fresh_function("boardgym.kernels.rng")) == "shared"
    assert (
        compile_notice._part(_fresh_function("boardgym.agents.backgammon.net"))
        == "agents.backgammon"
    )
    assert compile_notice._part(_fresh_function("numpy")) is None
    assert (
        CompileNotice._what(["agents.backgammon", "backgammon"])
        == "boardgym's Numba functions (agents.backgammon, backgammon)"
    )


@pytest.mark.parametrize(
    "value, tty, shown",
    [("1", False, True), ("0", True, False), ("", True, True), ("", False, False)],
)
def test_shown_on_a_terminal_or_when_asked(monkeypatch, value, tty, shown):
    monkeypatch.setenv(compile_notice.ENV_VAR, value)
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    stream = io.StringIO()
    stream.isatty = lambda: tty
    assert compile_notice.enabled(stream) is shown


def test_a_fresh_process_says_it_compiles_then_is_silent_with_the_cache(tmp_path):
    """One kernel compiled in a fresh process with an empty cache: the notice; again: nothing."""
    code = (
        "import numpy as np\n"
        "from boardgym.kernels.draughts import game\n"
        "print(game.legal_mask(game.initial_state(), np.zeros(game.N_ACTIONS, np.int8)))"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), BOARDGYM_COMPILE_NOTICE="1")
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
        )
        for _ in range(2)
    ]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr + runs[1].stderr
    assert "boardgym: compiling the draughts kernels (first use" in runs[0].stderr
    assert runs[1].stderr == "" and runs[1].stdout == runs[0].stdout
