"""Fuzz worker: runs one group of targets (fuzz_targets.py) in this process.

Started by fuzz_runner.run_group through tests/helpers/isolated_run.run_child, which kills it
when a call outlives its time limit and reports a crash with the last call announced. By hand:

    .venv/bin/python tests/fuzz/fuzz_worker.py --group backgammon_api --only backgammon.position_id

(events then go to stderr as JSON lines).

For each target: a warm-up call with valid arguments (JIT compilation, long time limit), the
deterministic sweeps (every extreme value in every state field, wrong shapes and types), then
``examples * scale`` Hypothesis examples (derandomized: every run draws the same inputs).
Violations of the contract (fuzz_contract.judge) are collected, one per distinct signature
with the shortest input that showed it, and reported per target.
"""

import argparse
import copy
import ctypes
import ctypes.util
import json
import sys
import time
import traceback
import warnings

from fuzz_contract import Arg, judge, signature
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st
from isolated_run import Emitter

SETUP_LIMIT = 900.0  # seconds for imports, pools and a target's warm-up (Numba compiles there)


def _heap_probe():
    """A cheap glibc heap walk (malloc_trim consolidates the free lists, which checks the chunk
    headers): a call that wrote out of bounds then aborts the process right after it, so the
    crash is blamed on that call rather than on a later one (about 10 us)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return lambda: None
    return lambda: trim(0)


HEAP_PROBE = _heap_probe()


def _in_fuzz_code(exc):
    """True when the exception was raised by the fuzz code, not by what it called."""
    from fuzz_contract import AcceptedInvalid

    if isinstance(exc, AcceptedInvalid):
        return False
    tb = traceback.extract_tb(exc.__traceback__)
    return bool(tb) and "/tests/fuzz/" in tb[-1].filename


def _where(exc):
    """file:line of the innermost frame in boardgym code (or the innermost frame)."""
    tb = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in tb if "/tests/" not in f.filename] or tb
    if not frames:
        return ""
    f = frames[-1]
    name = f.filename
    for marker in ("/envs/", "/agents/", "/kernels/", "site-packages/"):
        if marker in name:
            name = name[name.index(marker) + 1 :]
            break
    return f"{name}:{f.lineno} in {f.name}"


class Runner:
    def __init__(self, target, fn, em, call_limit, skip_calls, budget, call_range=None):
        self.t, self.fn, self.em = target, fn, em
        self.call_range = call_range
        self.call_limit, self.skip = call_limit, set(skip_calls)
        self.seq = 0
        self.found = {}
        self.calls = 0
        self.budget = budget
        self.start = time.monotonic()
        self.over_budget = False

    def _text(self, pos, kw):
        parts = [a.text for a in pos] + [f"{k}={a.text}" for k, a in kw.items()]
        return f"{self.t.name}({', '.join(parts)})"

    def call(self, pos, kw, limit=None):
        seq = self.seq
        self.seq += 1
        if seq in self.skip:
            return
        if self.call_range and seq > 0 and not self.call_range[0] <= seq < self.call_range[1]:
            return
        if limit is None and time.monotonic() - self.start > self.budget:
            self.over_budget = True
            return
        if self.t.drives:
            values, kwvalues, must = pos, kw, ""
        else:
            values = [a.value for a in pos]
            kwvalues = {k: a.value for k, a in kw.items()}
            must = next((a.invalid for a in list(pos) + list(kw.values()) if a.invalid), "")
        text = self._text(pos, kw)
        self.em.emit(type="call", seq=seq, input=text[:8000], limit=limit or self.call_limit)
        exc = None
        # the call gets fresh copies, dropped right after it: an out-of-bounds write into an
        # argument is then caught by the checking malloc when the copy is freed, in this call
        values, kwvalues = _fresh(values), _fresh(kwvalues)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.fn(*values, **kwvalues)
        except (Exception, SystemExit) as e:  # noqa: BLE001 - judging every exception is the point
            exc = e
        del values, kwvalues
        HEAP_PROBE()
        self.calls += 1
        verdict = judge(exc, must)
        if verdict and exc is not None and _in_fuzz_code(exc):
            verdict = (
                "harness error (a fault in the fuzz code itself)",
                f"{type(exc).__name__}: {exc}",
            )
        if verdict and self.t.allowed and isinstance(exc, self.t.allowed):
            verdict = None
        if verdict:
            category, detail = verdict
            sig = signature(self.t.name, category, detail)
            rec = self.found.get(sig)
            if rec is None:
                rec = self.found[sig] = {
                    "signature": sig,
                    "category": category,
                    "detail": detail[:1500],
                    "count": 0,
                    "input": text[:4000],
                    "where": _where(exc) if exc is not None else "",
                }
            rec["count"] += 1
            if len(text) < len(rec["input"]):
                rec["input"] = text[:4000]
                rec["detail"] = detail[:1500]


def _fresh(v):
    """A deep copy of v (v itself where it cannot be copied)."""
    try:
        return copy.deepcopy(v)
    except Exception:  # noqa: BLE001 - odd objects are passed as they are
        return v


def _spread(drawn):
    return list(drawn) if isinstance(drawn, tuple) else [drawn]


def _evaluate(v):
    return v() if callable(v) else v


def run_target(t, em, scale, call_limit, skip_calls, budget, call_range=None):
    em.emit(type="target", target=t.name, limit=SETUP_LIMIT)
    start = time.monotonic()
    try:
        fn = t.resolve()
    except Exception:  # noqa: BLE001
        em.emit(type="result", target=t.name, status="error", error=traceback.format_exc()[-3000:])
        return
    if fn is None:
        em.emit(type="result", target=t.name, status="absent")
        return
    r = Runner(t, fn, em, call_limit, skip_calls, budget, call_range)
    try:
        defaults = [x for spec in t.pos for x in _spread(spec.default())]
        r.call(defaults, {}, limit=SETUP_LIMIT)  # warm-up: compiles what the target uses
        for args, kw in t.warmup:
            r.call(
                [Arg(_evaluate(a), repr(a)) for a in args],
                {k: Arg(_evaluate(v), repr(v)) for k, v in kw.items()},
                limit=SETUP_LIMIT,
            )
        for j, spec in enumerate(t.pos):  # deterministic sweeps, one argument at a time
            for a in spec.sweep():
                args = list(t.pos)
                drawn = [spec2.default() for spec2 in args]
                drawn[j] = a
                r.call([x for d in drawn for x in _spread(d)], {})
        for k, spec in t.kw.items():
            for a in spec.sweep():
                r.call(defaults, {k: a})

        @settings(
            max_examples=max(1, int(t.examples * scale)),
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.generate],
            verbosity=Verbosity.quiet,
            print_blob=False,
        )
        @given(st.data())
        def prop(data):
            pos = [x for spec in t.pos for x in _spread(data.draw(spec.strategy))]
            kw = {
                k: data.draw(spec.strategy) for k, spec in t.kw.items() if data.draw(st.booleans())
            }
            r.call(pos, kw)

        prop()
    except Exception:  # noqa: BLE001 - a fault of the harness itself, not of the target
        em.emit(
            type="result",
            target=t.name,
            status="error",
            calls=r.calls,
            error=traceback.format_exc()[-3000:],
        )
        return
    found = sorted(r.found.values(), key=lambda v: v["signature"])
    em.emit(
        type="result",
        target=t.name,
        status="violations" if found else "ok",
        calls=r.calls,
        seqs=r.seq,
        seconds=round(time.monotonic() - start, 2),
        over_budget=r.over_budget,
        violations=found,
    )


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--group", required=True)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--only", default="", help="comma-separated target names")
    p.add_argument("--skip", default="", help="comma-separated target names")
    p.add_argument("--skip-calls", default="{}", help="JSON {target: [call numbers]}")
    p.add_argument("--call-limit", type=float, default=10.0)
    p.add_argument("--budget", type=float, default=60.0, help="seconds per target (times scale)")
    p.add_argument(
        "--call-range",
        default="",
        help="lo:hi: run only calls lo <= n < hi "
        "(and the warm-up call 0); used to find a call that corrupts the heap",
    )
    a = p.parse_args(argv)
    em = Emitter()
    em.emit(type="start", group=a.group, limit=SETUP_LIMIT)
    import fuzz_targets

    import boardgym  # noqa: F401 - registers the envs

    fuzz_targets.pools()
    em.emit(type="pools", limit=SETUP_LIMIT)
    only = set(filter(None, a.only.split(",")))
    skip = set(filter(None, a.skip.split(",")))
    skip_calls = json.loads(a.skip_calls)
    for t in fuzz_targets.targets_of(a.group):
        if t.name in skip or (only and t.name not in only):
            continue
        rng = tuple(int(x) for x in a.call_range.split(":")) if a.call_range else None
        run_target(
            t, em, a.scale, a.call_limit, skip_calls.get(t.name, []), a.budget * a.scale, rng
        )
    em.emit(type="finished")


if __name__ == "__main__":
    sys.exit(main())
