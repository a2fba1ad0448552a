"""A line on stderr while boardgym's Numba functions compile (first use with an empty cache).

The kernels are ``@njit(cache=True)``: a later process loads them from Numba's cache in a moment,
but the first use compiles them (several seconds per game), and a prompt that stays silent that
long looks hung. ``CompileNotice`` listens to Numba's ``numba:compile`` events (sent only on a
cache miss) for functions of boardgym's own modules; once a run of such compiles has lasted
``delay`` seconds it prints ``boardgym: compiling the draughts kernels (first use; ...)...`` and,
when the run ends, ``boardgym: compiled ... in 7.4 s``. Nothing is printed when everything comes
from the cache.

Shown when stderr is a terminal or a Jupyter kernel runs the code (like a progress bar);
``BOARDGYM_COMPILE_NOTICE=1`` shows it always, ``=0`` never. ``install()`` (called by
``boardgym.kernels``) registers one listener per process.
"""

import os
import sys
import threading
import time

from numba.core import event

DELAY = 1.0  # seconds of compiling before the notice appears
QUIET = 0.5  # seconds without a compile that end a run of compiles
ENV_VAR = "BOARDGYM_COMPILE_NOTICE"


def _part(dispatcher):
    """'draughts', 'backgammon', 'agents.backgammon', ... for a boardgym function, else None."""
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", None) or ""
    if not module.startswith("boardgym."):
        return None
    parts = module.split(".")[1:]
    if parts[0] == "kernels":
        return parts[1] if len(parts) > 2 else "shared"
    return ".".join(parts[:2])


def enabled(stream=None):
    """Whether the notice is shown on stream (default sys.stderr): BOARDGYM_COMPILE_NOTICE, else a
    terminal or Jupyter."""
    choice = os.environ.get(ENV_VAR, "").strip().lower()
    if choice in ("1", "true", "yes", "on"):
        return True
    if choice in ("0", "false", "no", "off"):
        return False
    stream = sys.stderr if stream is None else stream
    try:
        if stream is not None and stream.isatty():
            return True
    except (AttributeError, ValueError):
        pass
    return "ipykernel" in sys.modules


class CompileNotice(event.Listener):
    """Prints when a run of boardgym compiles lasts ``delay`` s, and its total when it ends."""

    def __init__(self, stream=None, delay=DELAY, quiet=QUIET, force=None):
        self.stream, self.delay, self.quiet, self.force = stream, delay, quiet, force
        self.lock = threading.Lock()
        self.depth = 0  # nesting of compile events (callees compile inside callers)
        self.top_is_ours = False
        self.start = None  # when the current run of compiles began (None: no run)
        self.parts = []  # what the run compiles, in order first seen
        self.announced = []  # the parts already named on stderr in this run
        self.announce_timer = self.end_timer = None

    def _say(self, text):
        stream = self.stream if self.stream is not None else sys.stderr
        show = self.force if self.force is not None else enabled(stream)
        if show and stream is not None:
            try:
                print(text, file=stream, flush=True)
            except (OSError, ValueError):
                pass

    @staticmethod
    def _what(parts):
        if parts and all(p in ("draughts", "backgammon", "shared") for p in parts):
            games = [p for p in parts if p != "shared"] or ["shared"]
            return f"the {' and '.join(games)} kernels"
        return "boardgym's Numba functions (" + ", ".join(parts) + ")"

    def _announce(self):
        with self.lock:
            if self.start is None:
                return
            new = [p for p in self.parts if p not in self.announced and p != "shared"]
            if not new and not self.announced and self.parts:  # only the shared helpers so far
                new = ["shared"]
            if not new:
                return
            self.announced += new
            what = self._what(new)
        self._say(f"boardgym: compiling {what} (first use; Numba caches them for later runs)...")

    def _finish(self):
        with self.lock:
            if self.start is None or self.depth:
                return
            took, announced = time.perf_counter() - self.start, self.announced
            self.start, self.parts, self.announced = None, [], []
            if self.announce_timer is not None:
                self.announce_timer.cancel()
                self.announce_timer = None
        if announced:
            self._say(f"boardgym: compiled {self._what(announced)} in {took:.1f} s")

    def on_start(self, ev):
        part = _part(ev.data.get("dispatcher"))
        with self.lock:
            self.depth += 1
            if self.depth == 1:
                self.top_is_ours = part is not None
            if part is None or not self.top_is_ours:
                return
            new_part = part not in self.parts
            if new_part:
                self.parts.append(part)
            if self.end_timer is not None:
                self.end_timer.cancel()
                self.end_timer = None
            if self.start is None:
                self.start = time.perf_counter()
                self.announce_timer = threading.Timer(self.delay, self._announce)
                self.announce_timer.daemon = True
                self.announce_timer.start()
            elif new_part and self.announced:  # a run already named goes on to another game
                timer = threading.Timer(0.0, self._announce)
                timer.daemon = True
                timer.start()

    def on_end(self, ev):
        with self.lock:
            self.depth = max(0, self.depth - 1)
            if self.depth or not self.top_is_ours or self.start is None:
                return
            self.end_timer = threading.Timer(self.quiet, self._finish)
            self.end_timer.daemon = True
            self.end_timer.start()


_INSTALLED = []


def install():
    """Register the process's CompileNotice with Numba once; returns it."""
    if not _INSTALLED:
        notice = CompileNotice()
        event.register("numba:compile", notice)
        _INSTALLED.append(notice)
    return _INSTALLED[0]
