"""The compile notice: on stderr while boardgym's Numba functions compile, never after the
compile ends, nothing from the cache."""

import io
import os
import re
import subprocess
import sys
import time

import numba
import pytest
from numba.core import event

from boardgym.kernels import compile_notice
from boardgym.kernels.compile_notice import CompileNotice


class _ActsAsCache(numba.core.caching.NullCache):
    """Numba's cache as a compiled function with cache=True sees it, without writing a file."""


def _fresh_function(module, body="return x * 3 + 1", cache=False):
    """A new @njit function whose __module__ is module (never compiled before: a cache miss)."""
    namespace = {"__name__": module}
    exec(f"def f(x):\n    {body}\n", namespace)
    f = numba.njit(namespace["f"])
    if cache:
        f._cache = _ActsAsCache()
    return f


def _slow_function(module, seconds):
    """A fresh boardgym-looking function whose compile lasts at least seconds (a callee that
    sleeps while it is typed: an @overload)."""
    from numba.extending import overload

    def pause():
        pass

    @overload(pause)
    def _pause():
        time.sleep(seconds)
        return lambda: None

    namespace = {"__name__": module, "pause": pause}
    exec("def f(x):\n    pause()\n    return x + 1\n", namespace)
    f = numba.njit(namespace["f"])
    f._cache = _ActsAsCache()
    return f


class Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def listen():
    """Register a CompileNotice for the test only: listen(mode, stream) -> stream."""
    listeners = []

    def make(mode, stream=None, delay=0.0):
        stream = io.StringIO() if stream is None else stream
        listener = CompileNotice(stream=stream, delay=delay, quiet=0.05, mode=mode, refresh=0.05)
        event.register("numba:compile", listener)
        listeners.append(listener)
        return stream

    yield make
    for listener in listeners:
        event.unregister("numba:compile", listener)


def test_a_piped_run_says_once_that_it_compiles(listen):
    stream = listen("line")
    assert _slow_function("boardgym.kernels.draughts.fake", 0.3)(2) == 3
    text = stream.getvalue()
    assert text == (
        "boardgym: compiling the draughts kernels (first use; Numba caches them for later runs)"
        "...\n"
    )


def test_nothing_is_written_once_the_compile_has_ended(listen):
    """The notice comes while the compile goes on; after it returns, not a character more (a
    prompt or a result line printed next stays the last line)."""
    for mode, stream in (("line", io.StringIO()), ("bar", Tty())):
        listen(mode, stream)
        _slow_function("boardgym.kernels.backgammon.fake", 0.3)(1)
        after = stream.getvalue()
        assert "compiling the backgammon kernels" in after
        time.sleep(0.3)
        assert stream.getvalue() == after


def test_a_terminal_gets_a_status_line_that_counts_and_is_erased(listen):
    stream = listen("bar", Tty())
    _slow_function("boardgym.kernels.draughts.fake", 0.4)(1)
    text = stream.getvalue()
    assert "\rboardgym: compiling the draughts kernels (first use, cached): 0 done, 00:00\r" in text
    assert re.search(r"cached\): 1 done, 00:\d\d\r", text)  # tqdm's count and clock
    assert "\n" not in text  # redrawn in place
    assert text.endswith("\r") and text.rsplit("\r", 2)[-2].strip() == ""  # then erased


def test_an_uncached_function_is_not_said_to_be_cached(listen):
    stream = listen("line")
    f = _slow_function("boardgym.kernels.draughts.fake", 0.3)
    f._cache = numba.core.caching.NullCache()
    f(1)
    assert "(first use in this process)" in stream.getvalue()


def test_a_run_that_goes_on_to_another_game_names_it(listen):
    stream = listen("line")
    _slow_function("boardgym.kernels.draughts.fake", 0.2)(1)
    _slow_function("boardgym.kernels.backgammon.fake", 0.2)(1)
    text = stream.getvalue()
    assert "compiling the draughts kernels" in text and "compiling the backgammon kernels" in text


def test_a_short_compile_and_other_libraries_are_not_announced(listen):
    stream = listen("line", delay=5.0)
    _fresh_function("boardgym.kernels.draughts.fake", cache=True)(1)
    listen("line", stream)
    _slow_function("somebody_else", 0.2)(1)
    time.sleep(0.1)
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
    "value, tty, style",
    [("1", True, "line"), ("0", True, None), ("", True, "bar"), ("", False, "line")],
)
def test_a_status_line_on_a_terminal_a_line_elsewhere(monkeypatch, value, tty, style):
    monkeypatch.setenv(compile_notice.ENV_VAR, value)
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    stream = Tty() if tty else io.StringIO()
    assert compile_notice.style(stream) == style


def test_a_fresh_process_says_it_compiles_then_is_silent_with_the_cache(tmp_path):
    """One kernel compiled in a fresh process with an empty cache, stderr piped: one line;
    again: nothing."""
    code = (
        "import numpy as np\n"
        "from boardgym.kernels.draughts import game\n"
        "print(game.legal_mask(game.initial_state(), np.zeros(game.N_ACTIONS, np.int8)))"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop(compile_notice.ENV_VAR, None)
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
        )
        for _ in range(2)
    ]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr + runs[1].stderr
    assert runs[0].stderr.startswith("boardgym: compiling the draughts kernels (first use")
    assert runs[0].stderr.count("\n") == 1
    assert runs[1].stderr == "" and runs[1].stdout == runs[0].stdout
