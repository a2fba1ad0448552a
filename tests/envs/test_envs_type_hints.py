"""The public Python boundary of boardgym.envs is type-annotated, and every hint resolves.

For each module: its public functions and the public methods (and ``__init__``, and properties)
of its public classes, with the methods they inherit from envs' own base classes (``_aec``,
``_draw``, ``batch._BatchCore``, ...). Names a module imports from elsewhere are checked where
they are defined; Numba dispatchers are not Python functions and are skipped. Every parameter
but ``self`` / ``cls`` / ``*args`` / ``**kwargs`` needs an annotation, so does the return, and
``typing.get_type_hints`` must resolve them all (a misspelt or unimported name fails). Names a
module imports only under ``if TYPE_CHECKING:`` (optional packages: Ray, stable-baselines3) are
supplied here when installed.
"""

import ast
import importlib
import inspect
import types
import typing

import pytest

MODULES = [
    "boardgym.envs",
    "boardgym.envs.checks",
    "boardgym.envs.seeding",
    "boardgym.envs.draughts",
    "boardgym.envs.draughts_pdn",
    "boardgym.envs.draughts_hub",
    "boardgym.envs.draughts_render",
    "boardgym.envs.russian_draughts_v0",
    "boardgym.envs.backgammon_checks",
    "boardgym.envs.backgammon_ids",
    "boardgym.envs.backgammon_plays",
    "boardgym.envs.backgammon_notation",
    "boardgym.envs.backgammon_match",
    "boardgym.envs.backgammon_render",
    "boardgym.envs.backgammon_v0",
    "boardgym.envs.records",
    "boardgym.envs.batch",
    "boardgym.envs.vector",
    "boardgym.envs.single_agent",
    "boardgym.envs.rllib",
]
# modules that only re-export (every public name is defined elsewhere)
REEXPORTS = {"boardgym.envs", "boardgym.envs.backgammon_notation"}
_SKIP_PARAMS = {"self", "cls"}
_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def _own_classes(cls):
    """cls and the classes of boardgym.envs it inherits from (their methods reach the user)."""
    return [c for c in cls.__mro__ if c.__module__.startswith("boardgym.envs")]


def public_callables(mod):
    """[(qualified name, function or property)] of the public boundary of module mod."""
    out = {}  # a base class's methods once, however many subclasses reach them
    for name, obj in sorted(vars(mod).items()):
        if name.startswith("_") or getattr(obj, "__module__", None) != mod.__name__:
            continue  # private, or imported from another module (checked where it is defined)
        if inspect.isfunction(obj) and not hasattr(obj, "py_func"):  # py_func: a Numba dispatcher
            out[f"{mod.__name__}.{name}"] = obj
        elif inspect.isclass(obj):
            for c in _own_classes(obj):
                for attr, member in vars(c).items():
                    if attr.startswith("_") and attr != "__init__":
                        continue
                    if isinstance(member, (staticmethod, classmethod)):
                        member = member.__func__
                    if inspect.isfunction(member) or isinstance(member, property):
                        out[f"{c.__module__}.{c.__qualname__}.{attr}"] = member
    return list(out.items())


def type_checking_names(source):
    """{name: object} of the names a module's source imports under ``if TYPE_CHECKING:`` that
    are installed, and the set of those that are not."""
    tree = ast.parse(source)
    found, missing = {}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imp in node.body:
                if not isinstance(imp, ast.ImportFrom):
                    continue
                for alias in imp.names:
                    key = alias.asname or alias.name
                    try:
                        found[key] = getattr(importlib.import_module(imp.module), alias.name)
                    except ImportError:
                        missing.add(key)
    return found, missing


def problems(mod, source=None):
    """Text of every missing or unresolvable annotation of mod's public boundary (source: the
    module's text, default read from its file)."""
    extra, missing = type_checking_names(inspect.getsource(mod) if source is None else source)
    out = []
    for qualname, obj in public_callables(mod):
        func = obj.fget if isinstance(obj, property) else obj
        sig = inspect.signature(func)
        for p in sig.parameters.values():
            if p.name not in _SKIP_PARAMS and p.kind not in _VARIADIC:
                if p.annotation is inspect.Parameter.empty:
                    out.append(f"{qualname}: parameter {p.name!r} has no annotation")
        if sig.return_annotation is inspect.Signature.empty:
            out.append(f"{qualname}: the return has no annotation")
        try:
            typing.get_type_hints(func, localns=extra)
        except NameError as e:
            if e.name not in missing:  # else an optional package that is not installed
                out.append(f"{qualname}: a hint does not resolve: {e}")
        except Exception as e:  # any failure to evaluate a hint is the finding
            out.append(f"{qualname}: a hint does not resolve: {type(e).__name__}: {e}")
    return out


@pytest.mark.parametrize("name", MODULES)
def test_public_boundary_is_annotated(name):
    mod = importlib.import_module(name)
    found = public_callables(mod)
    if name in REEXPORTS:
        assert not found, f"{name} defines public callables: add it to the checked modules"
    else:
        assert found, f"no public functions or methods found in {name}"
    bad = problems(mod)
    assert not bad, "\n".join(bad)


def test_the_check_finds_a_missing_hint():
    """An unannotated public function or method, and a misspelt hint, are reported by name."""
    mod = types.ModuleType("boardgym.envs._probe")
    src = """
from __future__ import annotations

def good(x: int, *args, **kwargs) -> int:
    return x

def no_param_hint(x, y: int) -> int:
    return y

def no_return_hint(x: int):
    return x

def misspelt(x: Integr) -> int:
    return 0

class Thing:
    def __init__(self, n):
        self.n = n

    @property
    def size(self):
        return self.n

    def _private(self, z):
        return z
"""
    exec(compile(src, "<probe>", "exec"), mod.__dict__)
    for name in ("good", "no_param_hint", "no_return_hint", "misspelt", "Thing"):
        mod.__dict__[name].__module__ = mod.__name__
    found = sorted(problems(mod, src))
    assert found == [
        "boardgym.envs._probe.Thing.__init__: parameter 'n' has no annotation",
        "boardgym.envs._probe.Thing.__init__: the return has no annotation",
        "boardgym.envs._probe.Thing.size: the return has no annotation",
        "boardgym.envs._probe.misspelt: a hint does not resolve: name 'Integr' is not defined",
        "boardgym.envs._probe.no_param_hint: parameter 'x' has no annotation",
        "boardgym.envs._probe.no_return_hint: the return has no annotation",
    ]
