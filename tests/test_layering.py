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
            "print(pettingzoo.make('aec', 'boardgym/russian_draughts-v0')"
            ".unwrapped.metadata['name'])",
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


# the compile notice draws its status line with tqdm (imported only when it is shown)
KERNELS_EXTRA = {"kernels/compile_notice.py": ("tqdm.auto",)}


def test_kernels_import_only_numpy_numba_stdlib_and_kernels():
    files = sorted((ROOT / "kernels").rglob("*.py"))
    assert len(files) > 10
    bad = []
    for path in files:
        extra = KERNELS_EXTRA.get(str(path.relative_to(ROOT)), ())
        for name in imports_of(path):
            top = name.split(".")[0]
            if not (
                top in NUMBA_AND_NUMPY
                or top in sys.stdlib_module_names
                or name == "boardgym.kernels"
                or name.startswith("boardgym.kernels.")
                or name in extra
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


# ---- the rooms of agents/ and scripts/ -------------------------------------------------------
# What each room may import, as a newcomer reads it (boardgym modules only; third-party and the
# standard library are free, but for gnubg below):
#
# | room                               | may import                  | may not import              |
# |------------------------------------|-----------------------------|-----------------------------|
# | agents/draughts, agents/backgammon | kernels, envs, shared agent | each other, arena,          |
# |                                    | helpers                     | training, scripts           |
# | agents/arena                       | the game rooms, registry    | training, scripts           |
# | agents/training                    | all of agents, envs         | scripts                     |
# | agents/*.py (registry, ppo, ...)   | the rooms                   | scripts                     |
# | scripts/*                          | everything                  | other commands (but cli,    |
# |                                    |                             | eval_gnubg and siblings in  |
# |                                    |                             | web/, bench/); no @njit     |
# | tests/agents                       | agents, envs, kernels       | scripts                     |
#
# gnubg (GPL-3) is imported by the judge alone: scripts/eval_gnubg.py and its driver of GNU
# Backgammon's module, scripts/gnubg_driver.py (and by tests).
SHARED_AGENT_HELPERS = ("boardgym.agents.files", "boardgym.agents.random_agent")
GAME_ROOMS = ("draughts", "backgammon")


def _module_of(path):
    """boardgym.<layer>.<...> of a file under kernels/, envs/, agents/ or scripts/."""
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return "boardgym." + ".".join(parts)


def _boardgym_imports(path):
    """The boardgym modules path imports (``from boardgym.x import y`` counts as boardgym.x.y
    when y is a module, else as boardgym.x)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name.startswith("boardgym")]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("boardgym"):
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                is_module = (ROOT / _file_of(sub)).with_suffix(".py").is_file() or (
                    ROOT / _file_of(sub) / "__init__.py"
                ).is_file()
                out.append(sub if is_module else node.module)
    return out


def _file_of(module):
    """The path (without suffix) under ROOT of a boardgym module name."""
    parts = module.split(".")[1:]
    return Path(*parts) if parts else Path("boardgym")


def _room_of(module):
    """The room a boardgym module belongs to: 'kernels', 'envs', 'agents.draughts', ...,
    'agents' (the top-level agent modules), 'scripts.<command>' or the package root."""
    parts = module.split(".")
    if len(parts) < 2:
        return "root"
    if parts[1] == "agents" and len(parts) > 2 and parts[2] in (*GAME_ROOMS, "arena", "training"):
        return f"agents.{parts[2]}"
    if parts[1] == "scripts" and len(parts) > 2:
        if parts[2] in ("web", "bench"):
            return f"scripts.{parts[2]}"
        return f"scripts.{parts[2]}"
    return parts[1]


def _allowed(src_module, dst):
    """None if src_module may import dst, else the rule it breaks."""
    src = _room_of(src_module)
    to = _room_of(dst)
    if to in ("kernels", "envs", "root") or src == to:
        return None
    if src in ("kernels", "envs"):
        return f"{src} imports only downward"
    if src in ("agents.draughts", "agents.backgammon"):
        if dst in SHARED_AGENT_HELPERS:
            return None
        return "a game room imports kernels, envs and the shared agent helpers only"
    if src == "agents.arena":
        if to in ("agents.draughts", "agents.backgammon") or dst == "boardgym.agents.registry":
            return None
        if to == "agents" and dst in (*SHARED_AGENT_HELPERS, "boardgym.agents"):
            return None
        return "the arena imports the game rooms and the registry, never training or scripts"
    if src in ("agents.training", "agents"):
        return None if to.startswith("agents") else f"{src} never imports scripts"
    if src.startswith("scripts."):
        if to.startswith("agents"):
            return None
        if to in ("scripts.cli", "scripts.eval_gnubg", "scripts.gnubg_driver"):
            return None
        if src in ("scripts.web", "scripts.bench") and to == src:
            return None
        return (
            "a command imports no other command (but cli, the gnubg judge, web/ or bench/ siblings)"
        )
    return None


def _library_files():
    return sorted(p for layer in ("agents", "scripts") for p in (ROOT / layer).rglob("*.py"))


def test_rooms_import_only_what_the_table_allows():
    files = _library_files()
    assert any("arena" in p.parts for p in files) and any("training" in p.parts for p in files)
    bad = []
    for path in files:
        src = _module_of(path)
        for dst in _boardgym_imports(path):
            why = _allowed(src, dst)
            if why:
                bad.append(f"{path.relative_to(ROOT)}: {dst} ({why})")
    assert bad == []


JUDGE = ("scripts/eval_gnubg.py", "scripts/gnubg_driver.py")


def test_only_the_gpl_judge_imports_gnubg():
    """Library code never imports GNU Backgammon (gnubg, gnubg_nn: GPL-3); among the commands
    the judge (scripts/eval_gnubg.py, scripts/gnubg_driver.py) alone imports gnubg, and the
    benchmarks' peer adapters
    (scripts/bench/) may time gnubg_nn."""
    bad = []
    for layer in ("kernels", "envs", "agents", "scripts", "boardgym"):
        for path in sorted((ROOT / layer).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for name in imports_of(path):
                top = name.split(".")[0]
                if top not in ("gnubg", "gnubg_nn") or rel in JUDGE:
                    continue
                if top == "gnubg_nn" and rel.startswith("scripts/bench/"):
                    continue
                bad.append(f"{rel}: {name}")
    assert bad == []


NUMBA_DECORATORS = ("njit", "jit", "vectorize", "guvectorize", "stencil", "cfunc")


def test_scripts_hold_no_numba_kernels():
    bad = []
    for path in sorted((ROOT / "scripts").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for dec in node.decorator_list:
                    target = dec.func if isinstance(dec, ast.Call) else dec
                    name = getattr(target, "id", getattr(target, "attr", ""))
                    owner = getattr(getattr(target, "value", None), "id", "numba")
                    if owner == "numba" and name in NUMBA_DECORATORS:
                        bad.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert bad == []


def test_agent_tests_never_import_scripts():
    bad = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted((ROOT / "tests" / "agents").rglob("*.py"))
        for name in imports_of(path)
        if name == "boardgym.scripts" or name.startswith("boardgym.scripts.")
    ]
    assert bad == []


def test_the_rule_table_is_enforced_both_ways():
    """The checker itself: a few imports it must refuse and a few it must allow."""
    refused = [
        ("boardgym.agents.draughts.search", "boardgym.agents.backgammon.net"),
        ("boardgym.agents.backgammon.agents", "boardgym.agents.arena.matches"),
        ("boardgym.agents.draughts.agents", "boardgym.agents.registry"),
        ("boardgym.agents.arena.matches", "boardgym.agents.training.run_log"),
        ("boardgym.agents.training.td", "boardgym.scripts.cli"),
        ("boardgym.scripts.play", "boardgym.scripts.evaluate"),
        ("boardgym.envs.draughts", "boardgym.agents.registry"),
    ]
    allowed = [
        ("boardgym.agents.draughts.search", "boardgym.kernels.draughts.game"),
        ("boardgym.agents.backgammon.agents", "boardgym.agents.files"),
        ("boardgym.agents.arena.matches", "boardgym.agents.backgammon.agents"),
        ("boardgym.agents.training.ppo", "boardgym.agents.arena.stats"),
        ("boardgym.scripts.evaluate", "boardgym.scripts.eval_gnubg"),
        ("boardgym.scripts.web.app", "boardgym.scripts.web.session"),
        ("boardgym.scripts.bench.command", "boardgym.scripts.bench.movegen"),
    ]
    assert [pair for pair in refused if _allowed(*pair) is None] == []
    assert [(pair, _allowed(*pair)) for pair in allowed if _allowed(*pair)] == []
