"""Parent side of the fuzz: run a group's worker in a subprocess, survive its crashes and hangs.

``run_group(group)`` starts fuzz_worker.py for the group. When the worker dies (a signal such as
SIGSEGV or SIGABRT) or stops answering (a call outlived ``CALL_LIMIT``), the target it was in
is marked with that crash or hang and the input of the call it was making, and a new worker
carries on with the next target. Results are cached per process, so the per-target tests of a
group share one run.

Environment knobs: ``BOARDGYM_FUZZ_SCALE`` (examples multiplier, default 1),
``BOARDGYM_FUZZ_CALL_LIMIT`` (seconds per call, default 10), ``BOARDGYM_FUZZ_EXPLORE=1`` (after
a crash, rerun the same target skipping only the crashing call, up to 4 crashes per target:
used to list every distinct failure, slower).
"""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "helpers"))  # run as a script
from isolated_run import run_child  # noqa: E402

HERE = Path(__file__).resolve().parent
WORKER = HERE / "fuzz_worker.py"
CALL_LIMIT = float(os.environ.get("BOARDGYM_FUZZ_CALL_LIMIT", "10"))
SCALE = float(os.environ.get("BOARDGYM_FUZZ_SCALE", "1"))
EXPLORE = os.environ.get("BOARDGYM_FUZZ_EXPLORE", "") not in ("", "0")
MAX_CRASHES_PER_TARGET = 4
_CACHE = {}


def run_group(group, scale=None, only=(), explore=None, call_limit=None):
    """{target name: result dict} of one group (cached per arguments)."""
    global CALL_LIMIT
    scale = SCALE if scale is None else scale
    explore = EXPLORE if explore is None else explore
    key = (group, scale, tuple(only), explore, call_limit)
    if key not in _CACHE:
        saved = CALL_LIMIT
        CALL_LIMIT = call_limit or CALL_LIMIT
        try:
            _CACHE[key] = _run(group, scale, tuple(only), explore)
        finally:
            CALL_LIMIT = saved
    return _CACHE[key]


def assert_clean(group, name, scale=None):
    """Fail (with every violation and the input that showed it) unless target name of group
    kept the contract; skip when the module does not define it."""
    import pytest

    results = run_group(group, scale=scale)
    worker = results.get(f"{group}:<worker>")
    if worker:
        pytest.fail(
            f"the {group} fuzz worker failed outside any target:\n{worker['error']}", pytrace=False
        )
    r = results.get(name)
    if r is None:
        pytest.fail(f"{name}: no result (the worker never reached it)", pytrace=False)
    if r["status"] == "absent":
        pytest.skip(f"{name} is not defined by this version of its module")
    if r["status"] != "ok":
        pytest.fail(
            f"{name} broke the hostile-input contract (returns, or raises ValueError/"
            f"TypeError naming the problem; never crashes or hangs):\n{report(r)}",
            pytrace=False,
        )


def _crash(name, run, last_call, note=""):
    return {
        "signature": f"{name} | {run.status} | {run.detail}{note}",
        "category": f"{run.status}: {run.detail}{note}",
        "detail": run.output_tail[-2500:],
        "input": (last_call or {}).get("input", "(during the target's setup)"),
        "count": 1,
        "where": "",
    }


def _crashed(result):
    return any(v["category"].startswith(("crash", "hang")) for v in result.get("violations", []))


def _run(group, scale, only, explore):
    """Run the group's targets (or only those named), restarting the worker after each crash.

    Heap corruption can surface after the call that caused it (in a later target, or when the
    interpreter exits), so a crash in a worker that already ran other targets is confirmed by
    running that target alone; if it then passes, the earlier targets are run one by one to
    find the one that corrupted the heap."""
    results, crashes = {}, {}
    skip_targets, skip_calls = set(), {}
    for _ in range(200):
        argv = [
            str(WORKER),
            "--group",
            group,
            "--scale",
            str(scale),
            "--call-limit",
            str(CALL_LIMIT),
            "--skip",
            ",".join(sorted(skip_targets)),
            "--skip-calls",
            json.dumps(skip_calls),
            "--only",
            ",".join(only),
        ]
        run = run_child(argv, total_limit=3600 * max(scale, 1.0))
        current, last_call, done = None, None, []
        for ev in run.events:
            kind = ev.get("type")
            if kind == "target":
                current, last_call = ev["target"], None
            elif kind == "call":
                last_call = ev
            elif kind == "result":
                results[ev["target"]] = ev
                skip_targets.add(ev["target"])
                done.append(ev["target"])
                current = None
        if run.status == "ok":
            break
        if current is None:
            if not any(ev.get("type") == "finished" for ev in run.events) or not done:
                results[f"{group}:<worker>"] = {"status": "error", "error": run.describe()}
            elif len(only) == 1:  # glibc found the heap corrupted at exit: this target did it
                culprit = (
                    _narrow(group, scale, only[0], results[only[0]].get("seqs"))
                    if explore
                    else None
                )
                crashes.setdefault(only[0], []).append(
                    _crash(
                        only[0],
                        run,
                        culprit
                        or {
                            "input": (
                                "(a call of this target wrote out of bounds; "
                                "glibc noticed when the interpreter exited; "
                                "BOARDGYM_FUZZ_EXPLORE=1 finds the call)"
                            )
                        },
                        " at exit (heap corruption)",
                    )
                )
            else:
                _blame(group, scale, done, results)
            break
        if len(only) != 1 and done:  # other targets ran first in this process: confirm alone
            alone = _run(group, scale, (current,), explore)
            results[current] = alone.get(
                current, {"target": current, "status": "error", "error": "no result when run alone"}
            )
            skip_targets.add(current)
            if not _crashed(results[current]):
                _blame(group, scale, done, results)
            continue
        crashes.setdefault(current, []).append(_crash(current, run, last_call))
        seq = (last_call or {}).get("seq")
        if explore and seq is not None and len(crashes[current]) < MAX_CRASHES_PER_TARGET:
            skip_calls.setdefault(current, []).append(seq)
        else:
            skip_targets.add(current)
    for name, cs in crashes.items():
        rec = results.get(name)
        if rec is None:
            rec = results[name] = {
                "target": name,
                "status": "violations",
                "violations": [],
                "calls": None,
            }
        rec["status"] = "violations"
        rec["violations"] = cs + list(rec.get("violations", []))
    return results


def _exit_crash(group, scale, name, lo, hi):
    """(crashed?, call events) of a worker running only calls lo <= n < hi of target name."""
    run = run_child(
        [
            str(WORKER),
            "--group",
            group,
            "--scale",
            str(scale),
            "--only",
            name,
            "--call-limit",
            str(CALL_LIMIT),
            "--call-range",
            f"{lo}:{hi}",
        ]
    )
    return run.status != "ok", [ev for ev in run.events if ev.get("type") == "call"]


def _narrow(group, scale, name, n):
    """The call event of the first call whose run alone corrupts the heap (bisection), or None."""
    if not n:
        return None
    lo, hi = 1, n
    if not _exit_crash(group, scale, name, lo, hi)[0]:
        return None
    while hi - lo > 1:  # smallest hi such that calls [1, hi) still corrupt the heap
        mid = (lo + hi) // 2
        if _exit_crash(group, scale, name, 1, mid)[0]:
            hi = mid
        else:
            lo = mid
    crashed, calls = _exit_crash(group, scale, name, hi - 1, hi)
    events = [c for c in calls if c.get("seq") == hi - 1]
    if crashed and events:
        return events[0]
    return {
        "input": f"(calls 1..{hi - 1} together corrupt the heap; the last is: "
        f"{events[0]['input'] if events else '?'})"
    }


def _blame(group, scale, names, results):
    """Run each target alone; keep the result of those that crash (heap corruption culprits)."""
    for name in names:
        alone = _run(group, scale, (name,), False)
        if name in alone and _crashed(alone[name]):
            results[name] = alone[name]


def report(result):
    """Readable text of one target's failures."""
    if result.get("status") == "error":
        return "harness error:\n" + result.get("error", "")
    lines = []
    for v in result.get("violations", []):
        lines.append(
            f"- {v['category']}  (x{v['count']}){'  at ' + v['where'] if v['where'] else ''}\n"
            f"    message: {v['detail'][:600]}\n    input:   {v['input'][:1500]}"
        )
    return "\n".join(lines)


def main(argv=None):
    """List every distinct failure of every group (``--explore`` digs past crashes; ``--json``
    writes the raw results):

        .venv/bin/python tests/fuzz/fuzz_runner.py --explore --json /tmp/fuzz.json
    """
    import argparse

    import fuzz_targets

    p = argparse.ArgumentParser()
    p.add_argument("--groups", default=",".join(g for g in fuzz_targets.GROUPS if g != "selftest"))
    p.add_argument("--scale", type=float, default=SCALE)
    p.add_argument("--explore", action="store_true")
    p.add_argument("--json", default="")
    a = p.parse_args(argv)
    everything = {}
    for group in a.groups.split(","):
        res = run_group(group, scale=a.scale, explore=a.explore)
        everything.update(res)
        for name in sorted(res):
            r = res[name]
            print(f"== {name}: {r.get('status')}")
            if r.get("status") not in ("ok", "absent"):
                print(report(r))
    if a.json:
        Path(a.json).write_text(json.dumps(everything, indent=1, default=repr))


if __name__ == "__main__":
    main()
