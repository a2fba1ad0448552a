"""The fuzz covers what it must, and its runner catches what it claims to catch.

When a public function is added or renamed, ``test_every_public_function_has_a_fuzz_entry``
fails until fuzz_targets.API has an entry for it (and ``test_no_stale_entries`` until the old
name is gone); likewise for registered agents (AGENT_KWARGS / AGENTS_EXCLUDED).
"""

import importlib
import inspect

import fuzz_runner
import fuzz_targets
import pytest


def public_functions(mod):
    """Public callables of a module: its __all__ (callables only) and the functions and classes
    it defines without a leading underscore."""
    names = {n for n in getattr(mod, "__all__", ()) if callable(getattr(mod, n, None))}
    for n, obj in vars(mod).items():
        if n.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if getattr(obj, "__module__", None) == mod.__name__:
            names.add(n)
    return sorted(names)


@pytest.mark.parametrize("key", fuzz_targets.COVERED_MODULES)
def test_every_public_function_has_a_fuzz_entry(key):
    mod = fuzz_targets.module(key)
    missing = [n for n in public_functions(mod) if n not in fuzz_targets.API[key]]
    assert not missing, (
        f"{mod.__name__} has public functions with no fuzz entry: {missing}. Add each to "
        f"fuzz_targets.API[{key!r}] with its argument specs (fn() if it takes nothing)."
    )


@pytest.mark.parametrize("key", fuzz_targets.COVERED_MODULES)
def test_no_stale_entries(key):
    mod = fuzz_targets.module(key)
    stale = [
        n
        for n in fuzz_targets.API[key]
        if not hasattr(mod, n) and n not in fuzz_targets.EXPECTED_LATER
    ]
    assert not stale, f"fuzz_targets.API[{key!r}] names functions {mod.__name__} lacks: {stale}"


@pytest.mark.parametrize("name", fuzz_targets.BACKGAMMON_NOTATION_PARTS)
def test_the_notation_reexports_every_public_function_of_its_parts(name):
    """backgammon_notation is fuzzed through its __all__: its parts' functions must be in it."""
    part = importlib.import_module(name)
    notation = fuzz_targets.module("backgammon")
    missing = [n for n in public_functions(part) if n not in notation.__all__]
    assert not missing, (
        f"{name} has public functions backgammon_notation does not re-export: {missing}"
    )
    assert all(getattr(notation, n) is getattr(part, n) for n in public_functions(part))


def test_every_registered_agent_is_fuzzed_or_excluded():
    from boardgym.agents import available

    names = set(available())
    missing = sorted(names - set(fuzz_targets.AGENT_KWARGS) - set(fuzz_targets.AGENTS_EXCLUDED))
    assert not missing, (
        f"registered agents with no fuzz entry: {missing}; add them to "
        "fuzz_targets.AGENT_KWARGS (or AGENTS_EXCLUDED with the reason)"
    )
    gone = sorted(set(fuzz_targets.AGENT_KWARGS) - names)
    assert not gone, f"fuzz_targets.AGENT_KWARGS names agents no longer registered: {gone}"


@pytest.fixture(scope="module")
def selftest():
    return fuzz_runner.run_group("selftest", scale=1.0, explore=False, call_limit=3)


def _categories(result):
    return [v["category"] for v in result.get("violations", [])]


def test_runner_reports_a_segfault_with_its_input(selftest):
    r = selftest["selftest.segfault"]
    crash = [v for v in r["violations"] if v["category"].startswith("crash")]
    assert crash and "SIGSEGV" in crash[0]["category"], r
    assert crash[0]["input"] == "selftest.segfault(13)"


def test_runner_reports_a_hang_with_its_input(selftest):
    r = selftest["selftest.hang"]
    hang = [v for v in r["violations"] if v["category"].startswith("hang")]
    assert hang and hang[0]["input"] == "selftest.hang(7)", r


def test_runner_judges_messages_types_and_acceptance(selftest):
    assert any("Numba internals" in c for c in _categories(selftest["selftest.numba_message"]))
    assert any("KeyError" in c for c in _categories(selftest["selftest.wrong_exception"]))
    assert any(
        "accepted invalid input" in c for c in _categories(selftest["selftest.accepts_invalid"])
    )
    assert selftest["selftest.clean"]["status"] == "ok"


def test_runner_carries_on_after_a_crash(selftest):
    """Targets after a crash or hang in the same group still ran."""
    names = [t.name for t in fuzz_targets.targets_of("selftest")]
    assert all(selftest.get(n, {}).get("status") in ("ok", "violations") for n in names), selftest
