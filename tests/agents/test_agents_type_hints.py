"""The public Python boundary of agents/ is annotated: every public function, every public method
(and ``__init__``) of a public class, and a module's ``__getattr__``, in the modules below, have a
hint on each parameter (but self/cls/*args/**kwargs) and on the return, and the hints resolve
(``typing.get_type_hints``). Numba dispatchers and names imported from other modules are not
checked here."""

import ast
import importlib
import inspect
import typing

import pytest

MODULES = [
    "boardgym.agents",
    *(f"boardgym.agents.{m}" for m in ("registry", "random_agent", "files", "ppo", "rllib_module")),
    *(
        f"boardgym.agents.draughts.{m}"
        for m in ("agents", "batch_players", "egdb", "evaluation", "search", "td", "thinking")
    ),
    *(
        f"boardgym.agents.backgammon.{m}"
        for m in (
            "agents",
            "bearoff",
            "cube",
            "distill",
            "features",
            "game_loop",
            "luck",
            "net",
            "search",
            "td",
            "weights",
        )
    ),
    *(
        f"boardgym.agents.arena.{m}"
        for m in ("engine_query", "matches", "openings", "playouts", "sessions", "stats")
    ),
    # training/ppo.py and training/lifecycle.py are not listed yet
    *(
        f"boardgym.agents.training.{m}"
        for m in ("eval_fit", "kickstart", "league", "rllib", "run_log", "td")
    ),
]


def _own_function(obj, module):
    """obj as a plain Python function defined in module, or None (a Numba dispatcher, an
    imported name, a class or a value)."""
    if hasattr(obj, "py_func"):  # a Numba dispatcher: its kernel is not the Python boundary
        return None
    if not inspect.isfunction(obj) or obj.__module__ != module.__name__:
        return None
    return obj


def public_callables(module):
    """[(qualified name, function)] of module's public boundary (the module docstring)."""
    found = []
    for name, obj in vars(module).items():
        if name.startswith("_") and name != "__getattr__":
            continue
        if inspect.isclass(obj) and obj.__module__ == module.__name__:
            for mname, member in vars(obj).items():
                if mname.startswith("_") and mname != "__init__":
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                elif isinstance(member, property):
                    member = member.fget
                fn = _own_function(member, module)
                if fn is not None and fn.__qualname__.startswith(obj.__qualname__ + "."):
                    found.append((f"{name}.{mname}", fn))
        else:
            fn = _own_function(obj, module)
            if fn is not None:
                found.append((name, fn))
    return found


def type_checking_names(module):
    """The names module imports under ``if TYPE_CHECKING:`` (ImportError if one is missing)."""
    names = {}
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) in (
            "TYPE_CHECKING",
            "typing.TYPE_CHECKING",
        ):
            exec(compile(ast.Module(node.body, []), module.__file__, "exec"), names)
    names.pop("__builtins__", None)
    return names


@pytest.mark.parametrize("name", MODULES)
def test_public_functions_are_annotated(name):
    module = importlib.import_module(name)
    found = public_callables(module)
    assert found, f"{name}: no public function found (is the module list stale?)"
    missing = []
    for qualname, fn in found:
        sig = inspect.signature(fn)
        for p in sig.parameters.values():
            if p.name in ("self", "cls") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if p.annotation is inspect.Parameter.empty:
                missing.append(f"{name}.{qualname}: parameter {p.name!r} has no type hint")
        if sig.return_annotation is inspect.Signature.empty:
            missing.append(f"{name}.{qualname}: no return type hint")
    assert missing == []


@pytest.mark.parametrize("name", MODULES)
def test_type_hints_resolve(name):
    module = importlib.import_module(name)
    # the names imported for type checking only (torch, sb3-contrib, Ray, ...): without Ray
    # installed, rllib_module and training.rllib are skipped here (their hints are still
    # required by the test above)
    try:
        extra = type_checking_names(module)
    except ImportError as e:
        pytest.skip(f"{name}: an optional dependency of its hints is not installed ({e})")
    namespace = {**vars(module), **extra}
    bad = []
    for qualname, fn in public_callables(module):
        try:
            typing.get_type_hints(fn, globalns=namespace)
        except Exception as e:  # report every unresolvable hint, whatever its error
            bad.append(f"{name}.{qualname}: {type(e).__name__}: {e}")
    assert bad == []
