"""A notice on stderr while boardgym's Numba functions compile (first use with an empty cache).

The kernels are ``@njit(cache=True)`` (the parallel batch kernels too): a later process loads
them from Numba's cache in a moment, but the first use compiles them (seconds per game), and a
prompt that stays silent that long looks hung. ``CompileNotice`` listens to Numba's
``numba:compile`` events (sent only on a cache miss) for functions of boardgym's own modules;
once a run of such compiles has lasted ``delay`` seconds it says so:

- on a terminal or in Jupyter, a tqdm status line that counts the functions compiled and the
  seconds spent (``boardgym: compiling the draughts kernels (first use, cached): 12 done,
  00:04``), erased when the compile ends;
- otherwise (stderr piped or in a file), one line per run and game
  (``boardgym: compiling the draughts kernels (first use; Numba caches them for later runs)...``).

It writes only while a compile is in progress, which blocks the thread that compiles: so never
between a prompt and its answer, nor after a command's result line. Nothing is written when
everything comes from the cache. A function compiled without a cache is announced as such
(``first use in this process``). ``BOARDGYM_COMPILE_NOTICE=0`` silences the notice, ``=1`` shows
it as a line even where a status line would be drawn. ``install()`` (called by
``boardgym.kernels``) registers one listener per process.
"""

import os
import sys
import threading
import time

from numba.core import event

DELAY = 1.0  # seconds of compiling before the notice appears
QUIET = 0.5  # seconds without a compile that end a run of compiles
REFRESH = 1.0  # seconds between redraws of the status line
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


def _cached(dispatcher):
    """Whether Numba saves what dispatcher compiles (cache=True)."""
    cache = getattr(dispatcher, "_cache", None)
    return cache is not None and type(cache).__name__ != "NullCache"


def _choice():
    """BOARDGYM_COMPILE_NOTICE as True (1/true/yes/on), False (0/false/no/off) or None."""
    choice = os.environ.get(ENV_VAR, "").strip().lower()
    if choice in ("1", "true", "yes", "on"):
        return True
    if choice in ("0", "false", "no", "off"):
        return False
    return None


def _interactive(stream):
    """Whether stream is a terminal, or Jupyter runs the code."""
    try:
        if stream is not None and stream.isatty():
            return True
    except (AttributeError, ValueError):
        pass
    return "ipykernel" in sys.modules


def style(stream=None):
    """How the notice is shown on stream (default sys.stderr): "bar" (a tqdm status line, on a
    terminal or in Jupyter), "line" (one line per run: piped, or BOARDGYM_COMPILE_NOTICE=1) or
    None (BOARDGYM_COMPILE_NOTICE=0)."""
    choice = _choice()
    if choice is False:
        return None
    stream = sys.stderr if stream is None else stream
    return "bar" if choice is None and _interactive(stream) else "line"


class CompileNotice(event.Listener):
    """Says on stream (default sys.stderr) that boardgym compiles, once a run of its compiles
    has lasted ``delay`` s; ``mode`` "bar", "line" or None (default: ``style(stream)``)."""

    def __init__(self, stream=None, delay=DELAY, quiet=QUIET, mode="auto", refresh=REFRESH):
        self.stream, self.delay, self.quiet, self.refresh = stream, delay, quiet, refresh
        self.mode = mode
        self.lock = threading.RLock()
        self.depth = 0  # nesting of compile events (callees compile inside callers)
        self.top_is_ours = False  # the outermost compile in progress is a boardgym function
        self.run_start = None  # when the current run of compiles began
        self.last_end = None  # when its last outermost compile ended
        self.parts = []  # what the run compiles, in order first seen
        self.announced = []  # the parts already named in this run
        self.uncached = False  # the run compiles a function Numba does not cache
        self.count = 0  # boardgym functions compiled in this run
        self.timer = None
        self.bar = None  # the tqdm status line while it is drawn

    # ---- what is said ---------------------------------------------------------------------------
    def _stream(self):
        return self.stream if self.stream is not None else sys.stderr

    def _mode(self):
        return style(self._stream()) if self.mode == "auto" else self.mode

    @staticmethod
    def _what(parts):
        if parts and all(p in ("draughts", "backgammon", "shared") for p in parts):
            games = [p for p in parts if p != "shared"] or ["shared"]
            return f"the {' and '.join(games)} kernels"
        return "boardgym's Numba functions (" + ", ".join(parts) + ")"

    def _text(self, parts, short=False):
        if short:  # the status line: narrow enough for 80 columns
            why = "first use" if self.uncached else "first use, cached"
            return f"boardgym: compiling {self._what(parts)} ({why})"
        why = (
            "first use in this process"
            if self.uncached
            else "first use; Numba caches them for later runs"
        )
        return f"boardgym: compiling {self._what(parts)} ({why})"

    def _new_parts(self):
        new = [p for p in self.parts if p not in self.announced and p != "shared"]
        if not new and not self.announced and self.parts:  # only the shared helpers so far
            new = ["shared"]
        return new

    def _write_line(self, text):
        try:
            print(text, file=self._stream(), flush=True)
        except (OSError, ValueError):
            pass

    def _open_bar(self):
        from tqdm.auto import tqdm

        self.bar = tqdm(
            desc=self._text(self.announced, short=True),
            initial=self.count,
            bar_format="{desc}: {n} done, {elapsed}",
            file=self._stream(),
            leave=False,
            dynamic_ncols=True,
            mininterval=0.0,
        )
        # the clock shows the whole run's wait (tqdm keeps time.time())
        self.bar.start_t -= time.perf_counter() - self.run_start

    def _close_bar(self):
        if self.bar is not None:
            try:
                self.bar.close()
            except (OSError, ValueError):
                pass
            self.bar = None

    # ---- the clock ------------------------------------------------------------------------------
    def _arm(self, after):
        if self.timer is not None:
            self.timer.cancel()
        self.timer = threading.Timer(after, self._tick)
        self.timer.daemon = True
        self.timer.start()

    def _tick(self):
        """Announce (or redraw) while the run's outermost compile is still going on."""
        with self.lock:
            self.timer = None
            if self.depth == 0 or not self.top_is_ours:
                return
            mode = self._mode()
            new = self._new_parts()
            self.announced += new
            if mode == "line" and new:
                self._write_line(self._text(new) + "...")
            elif mode == "bar":
                if self.bar is None:
                    self._open_bar()
                else:
                    if new:
                        self.bar.set_description_str(
                            self._text(self.announced, short=True), refresh=False
                        )
                    self.bar.refresh()
            if mode is not None:
                self._arm(self.refresh)

    # ---- Numba's events -------------------------------------------------------------------------
    def on_start(self, ev):
        dispatcher = ev.data.get("dispatcher")
        part = _part(dispatcher)
        with self.lock:
            self.depth += 1
            if self.depth == 1:
                self.top_is_ours = part is not None
                if not self.top_is_ours:
                    return
                now = time.perf_counter()
                if self.run_start is None or now - self.last_end > self.quiet:
                    self.run_start, self.parts, self.announced = now, [], []
                    self.count, self.uncached = 0, False
                if self.announced and self.bar is None and self._mode() == "bar":
                    self._open_bar()  # the run goes on: the status line comes back at once
                self._arm(max(0.0, self.run_start + self.delay - now))
            if part is None or not self.top_is_ours:
                return
            if part not in self.parts:
                self.parts.append(part)
            if not _cached(dispatcher):
                self.uncached = True

    def on_end(self, ev):
        with self.lock:
            self.depth = max(0, self.depth - 1)
            if not self.top_is_ours:
                return
            if _part(ev.data.get("dispatcher")) is not None:
                self.count += 1
                if self.bar is not None:
                    self.bar.update(1)
            if self.depth == 0:
                self.last_end = time.perf_counter()
                if self.timer is not None:
                    self.timer.cancel()
                    self.timer = None
                self._close_bar()  # erased before the thread that compiled writes again


_INSTALLED = []


def install():
    """Register the process's CompileNotice with Numba once; returns it."""
    if not _INSTALLED:
        notice = CompileNotice()
        event.register("numba:compile", notice)
        _INSTALLED.append(notice)
    return _INSTALLED[0]
