"""Run test code in a child interpreter, so that a crash, abort or hang fails a test instead of
killing the pytest process.

The child reports what it is doing through JSON events on a pipe (``Emitter``, child side). Each
event may carry ``"limit"``: the seconds the child may take until its next event (the parent's
watchdog kills it after that). A child that announces every call it is about to make (``{"type":
"call", "input": ..., "limit": 10}``) is thereby given a per-call time limit, and when it dies
(segfault, ``abort()``, ``double free``) or hangs inside native code, the parent still knows
the call that did it: the last event received.

Parent side: ``run_child(argv)`` -> ``ChildRun``; ``run_snippet(setup, call)`` runs one call of
Python source in a fresh interpreter and says how it ended (``SnippetOutcome``).
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

EVENT_FD_ENV = "BOARDGYM_ISOLATED_EVENT_FD"
MEMORY_LIMIT = 4 << 30  # bytes of address space a child may map (an allocation above it fails)
HELPERS = Path(__file__).resolve().parent
# glibc's checking malloc: an out-of-bounds write into a heap block aborts when the block is freed
# (usually inside the call that wrote it) instead of corrupting the heap silently until exit
_MALLOC_DEBUG = (
    "/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0",
    "/usr/lib/aarch64-linux-gnu/libc_malloc_debug.so.0",
    "/lib64/libc_malloc_debug.so.0",
)


def malloc_check_env(env):
    """env plus glibc's malloc checking (LD_PRELOAD of libc_malloc_debug), when it exists."""
    for lib in _MALLOC_DEBUG:
        if os.path.exists(lib):
            env = dict(env)
            env["LD_PRELOAD"] = " ".join(p for p in (lib, env.get("LD_PRELOAD", "")) if p)
            env["GLIBC_TUNABLES"] = ":".join(
                p for p in ("glibc.malloc.check=3", env.get("GLIBC_TUNABLES", "")) if p
            )
            break
    return env


# ---------------------------------------------------------------------------------- child side


class Emitter:
    """Child side: writes events (one JSON object per line) to the parent's pipe."""

    def __init__(self):
        fd = os.environ.get(EVENT_FD_ENV)
        self._f = os.fdopen(int(fd), "w", buffering=1) if fd else None

    def emit(self, **event):
        line = json.dumps(event, default=repr)
        if self._f is None:  # run by hand, outside run_child
            print(line, file=sys.stderr)
            return
        self._f.write(line + "\n")
        self._f.flush()


# --------------------------------------------------------------------------------- parent side


@dataclass
class ChildRun:
    """How a child run ended.

    status: ``"ok"`` (exit 0 after a ``finished`` event), ``"crash"`` (killed by a signal),
    ``"hang"`` (no event within the limit; the child was killed), ``"error"`` (another exit).
    """

    status: str
    detail: str
    events: list = field(default_factory=list)
    returncode: int | None = None
    last_event: dict | None = None
    output_tail: str = ""
    elapsed: float = 0.0

    def describe(self):
        """Human-readable account of a failed run: status, the last call, the child's output."""
        last = json.dumps(self.last_event, indent=1)[:4000] if self.last_event else "none"
        return (
            f"child {self.status}: {self.detail}\nlast event before it: {last}\n"
            f"child output (tail):\n{self.output_tail}"
        )


def _set_limits(memory):
    def preexec():
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return preexec


def run_child(
    argv,
    *,
    default_limit=600.0,
    total_limit=1800.0,
    env=None,
    cwd=None,
    memory=MEMORY_LIMIT,
    malloc_check=True,
    poll=0.02,
):
    """Run ``[sys.executable, *argv]`` with an event pipe and a watchdog -> ChildRun.

    default_limit: seconds allowed between events when the last event set no ``limit``;
    total_limit: seconds for the whole run; memory: address-space limit in bytes (None: none);
    malloc_check: glibc's checking malloc (malloc_check_env). The child's output is kept (tail).
    """
    read_fd, write_fd = os.pipe()
    child_env = dict(os.environ if env is None else env)
    if malloc_check:
        child_env = malloc_check_env(child_env)
    child_env[EVENT_FD_ENV] = str(write_fd)
    child_env["PYTHONFAULTHANDLER"] = "1"  # a fatal signal prints the Python stack to stderr
    path = child_env.get("PYTHONPATH", "")
    child_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HELPERS), path) if p)
    events = []
    state = {"t": time.monotonic(), "limit": default_limit}
    lock = threading.Lock()

    def reader():
        with os.fdopen(read_fd, "r", errors="replace") as f:
            for line in f:
                try:
                    ev = json.loads(line)
                except json.JSONDecodeError:
                    ev = {"type": "garbled", "text": line[:500]}
                with lock:
                    events.append(ev)
                    state["t"] = time.monotonic()
                    lim = ev.get("limit") if isinstance(ev, dict) else None
                    state["limit"] = float(lim) if lim else default_limit

    out = tempfile.TemporaryFile()
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, *argv],
        stdin=subprocess.DEVNULL,
        stdout=out,
        stderr=subprocess.STDOUT,
        env=child_env,
        cwd=cwd,
        pass_fds=(write_fd,),
        preexec_fn=_set_limits(memory),
        start_new_session=True,
    )
    os.close(write_fd)
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    killed = None
    while proc.poll() is None:
        time.sleep(poll)
        now = time.monotonic()
        with lock:
            quiet, limit = now - state["t"], state["limit"]
        if quiet > limit:
            killed = ("hang", f"no answer within {limit:g} s (killed)")
        elif now - start > total_limit:
            killed = ("hang", f"the whole run exceeded {total_limit:g} s (killed)")
        if killed:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            break
    t.join(timeout=10)
    elapsed = time.monotonic() - start
    out.seek(0)
    tail = out.read()[-6000:].decode("utf-8", "replace")
    out.close()
    rc = proc.returncode
    with lock:
        evs = list(events)
    last = evs[-1] if evs else None
    if killed:
        status, detail = killed
    elif rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = f"signal {-rc}"
        status, detail = "crash", f"the interpreter died: {name}"
    elif rc != 0:
        status, detail = "error", f"exit status {rc}"
    elif not evs or evs[-1].get("type") != "finished":
        status, detail = "error", "exited without a 'finished' event"
    else:
        status, detail = "ok", "finished"
    return ChildRun(status, detail, evs, rc, last, tail, elapsed)


# ------------------------------------------------------------------------------- one snippet

_SNIPPET_CHILD = r"""
import json, sys
from isolated_run import Emitter
em = Emitter()
setup, calls, limit = sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3])
ns = {}
em.emit(type="setup")
exec(compile(setup, "<setup>", "exec"), ns)
for i, call in enumerate(calls):
    em.emit(type="call", seq=i, input=call, limit=limit)
    ns.pop("result", None)
    try:
        exec(compile(call, "<call>", "exec"), ns)
    except BaseException as e:
        em.emit(type="raised", seq=i, exc_type=type(e).__module__ + "." + type(e).__qualname__,
                message=str(e)[:2000])
    else:
        em.emit(type="returned", seq=i, value=repr(ns.get("result"))[:2000])
em.emit(type="finished")
"""


@dataclass
class SnippetOutcome:
    """How one call ended: kind is 'returned', 'raised', 'crash', 'hang', 'error' (the child
    failed in the setup) or 'not run' (an earlier call of the same child crashed or hung)."""

    kind: str
    call: str = ""
    exc_type: str = ""
    message: str = ""
    value: str = ""
    run: ChildRun | None = None

    def __str__(self):
        if self.kind == "returned":
            return f"{self.call!r} returned {self.value}"
        if self.kind == "raised":
            return f"{self.call!r} raised {self.exc_type}: {self.message}"
        if self.kind == "not run":
            return f"{self.call!r} not run (an earlier call in the same interpreter died)"
        return f"{self.call!r}: " + self.run.describe()


def run_snippets(setup, calls, *, call_limit=10.0, setup_limit=600.0, cwd=None):
    """Run ``setup`` (imports, warm-up: JIT compilation happens here) then each call (source that
    may set ``result``) in one fresh interpreter -> [SnippetOutcome] in the order of calls."""
    calls = list(calls)
    run = run_child(
        ["-c", _SNIPPET_CHILD, setup, json.dumps(calls), str(call_limit)],
        default_limit=setup_limit,
        cwd=cwd,
    )
    out = [SnippetOutcome("not run", c, run=run) for c in calls]
    current = None
    for ev in run.events:
        kind, seq = ev.get("type"), ev.get("seq")
        if kind == "call":
            current = seq
        elif kind == "raised":
            out[seq] = SnippetOutcome("raised", calls[seq], ev["exc_type"], ev["message"], run=run)
            current = None
        elif kind == "returned":
            out[seq] = SnippetOutcome("returned", calls[seq], value=ev["value"], run=run)
            current = None
    if run.status != "ok":
        if current is not None:
            out[current] = SnippetOutcome(run.status, calls[current], run=run)
        elif all(o.kind == "not run" for o in out):
            out = [SnippetOutcome("error", c, run=run) for c in calls]
        else:  # died after the last call (at exit): blame the last one that ran
            ran = [i for i, o in enumerate(out) if o.kind != "not run"]
            out[ran[-1]] = SnippetOutcome(run.status, calls[ran[-1]], run=run)
    return out


def run_snippet(setup, call, **kwargs):
    """run_snippets with one call -> its SnippetOutcome."""
    return run_snippets(setup, [call], **kwargs)[0]
