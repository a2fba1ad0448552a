"""Layers import one way: kernels -> envs -> agents -> scripts.

- importing any kernel module (in a fresh interpreter) loads no gymnasium, pettingzoo or torch;
- ``import boardgym`` and ``import boardgym.envs`` still register every env with Gymnasium and
  PettingZoo;
- the imports written in kernels/ and envs/ (every ``import`` statement, at any depth, read with
  ast) go the right way: kernels use only numpy, numba, the standard library and
  boardgym.kernels; envs never use boardgym.agents or torch.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_FOR_KERNELS = ("gymnasium", "pettingzoo", "torch")
NUMBA_AND_NUMPY = ("numpy", "numba", "llvmlite")  # llvmlite: Numba's LLVM layer (bit intrinsics)


def run_python(code):
    """stdout of code run by a fresh interpreter (fails the test on a non-zero exit)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def kernel_modules():
    return sorted(
        "boardgym.kernels." + ".".join(p.relative_to(ROOT / "kernels").with_suffix("").parts)
        for p in (ROOT / "kernels").rglob("*.py")
        if p.name != "__init__.py"
    )


def test_importing_kernels_loads_no_gymnasium_or_pettingzoo():
    modules = kernel_modules()
    assert "boardgym.kernels.draughts.movegen" in modules and "boardgym.kernels.rng" in modules
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN_FOR_KERNELS!r}))"
    )
    assert run_python(code) == "[]"


@pytest.mark.parametrize(
    "code, expected",
    [
        # the library imported after boardgym: registered on its import
        (
            "import boardgym, gymnasium\n"
            "env = gymnasium.make('boardgym/RussianDraughts-v0')\n"
            "vec = gymnasium.make_vec('boardgym/Backgammon-v0', num_envs=2, "
            "vectorization_mode='vector_entry_point')\n"
            "print(type(env.unwrapped).__name__, type(vec).__name__)",
            "RussianDraughtsEnv BackgammonVectorEnv",
        ),
        # the library imported first
        (
            "import gymnasium, pettingzoo, boardgym\n"
            "print(sorted(k for k in gymnasium.registry if k.startswith('boardgym/')))",
            "['boardgym/Backgammon-v0', 'boardgym/RussianDraughts-v0']",
        ),
        # PettingZoo's registry
        (
            "import boardgym, pettingzoo\n"
            "print(pettingzoo.make('aec', 'boardgym/russian_draughts-v0').unwrapped.metadata['name'])",
            "russian_draughts_v0",
        ),
        # boardgym.envs registers by itself
        (
            "import boardgym.envs\n"
            "from pettingzoo.env_registry.registration import aec_registry\n"
            "import gymnasium\n"
            "print(sorted(k for k in aec_registry if k.startswith('boardgym/')), "
            "'boardgym/Backgammon-v0' in gymnasium.registry)",
            "['boardgym/backgammon-v0', 'boardgym/russian_draughts-v0'] True",
        ),
    ],
    ids=["gym-after", "gym-before", "pettingzoo", "envs"],
)
def test_import_boardgym_registers_every_env(code, expected):
    assert run_python(code) == expected


def imports_of(path):
    """Every module name imported by the file at path (absolute imports; at any depth)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import"
            names.append(node.module)
    return names


def test_kernels_import_only_numpy_numba_stdlib_and_kernels():
    files = sorted((ROOT / "kernels").rglob("*.py"))
    assert len(files) > 10
    bad = []
    for path in files:
        for name in imports_of(path):
            top = name.split(".")[0]
            if not (
                top in NUMBA_AND_NUMPY
                or top in sys.stdlib_module_names
                or name == "boardgym.kernels"
                or name.startswith("boardgym.kernels.")
            ):
                bad.append(f"{path.relative_to(ROOT)}: {name}")
    assert bad == []


def test_envs_never_import_agents_or_torch():
    files = sorted((ROOT / "envs").rglob("*.py"))
    assert len(files) > 10
    bad = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in files
        for name in imports_of(path)
        if name.split(".")[0] == "torch"
        or name == "boardgym.agents"
        or name.startswith("boardgym.agents.")
    ]
    assert bad == []
