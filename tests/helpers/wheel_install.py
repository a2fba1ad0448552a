"""Build boardgym's wheel and install it into a fresh venv outside the checkout (test-only).

The new venv gets the wheel itself (``pip install --no-deps``) and sees the test venv's
third-party packages through a ``.pth`` line pointing at that venv's site-packages — a plain
directory entry, so the checkout's editable-install finder there is never activated. Commands
run with a temporary working directory, so nothing of the checkout is importable: what runs is
exactly what the wheel installed.

The wheel is built from a private copy of the source, not the checkout itself: setuptools
writes its ``build/`` and ``*.egg-info`` folders next to the source, and two builds in one folder
at once (two pytest-xdist workers) have failed with "File exists".
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# what the copy of the source leaves out: version control, venvs, build output and caches
SKIP_IN_COPY = shutil.ignore_patterns(
    ".git",
    ".venv*",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    "node_modules",
    "runs",
    "*.nbi",
    "*.nbc",
)


class InstalledWheel:
    """A venv with boardgym installed from its wheel; ``run`` calls its ``boardgym`` command."""

    def __init__(self, base: Path):
        self.base = Path(base)
        self.venv = self.base / "venv"
        self.cwd = self.base / "work"
        self.cwd.mkdir(parents=True, exist_ok=True)
        wheel_dir = self.base / "wheel"
        source = self.base / "source"
        shutil.copytree(ROOT, source, ignore=SKIP_IN_COPY)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--no-build-isolation",
                "-q",
                "-w",
                str(wheel_dir),
                str(source),
            ],
            check=True,
            cwd=self.base,
            capture_output=True,
            text=True,
        )
        (self.wheel,) = wheel_dir.glob("boardgym-*.whl")
        venv.EnvBuilder(with_pip=False).create(self.venv)
        self.python = self.venv / "bin" / "python"
        purelib = subprocess.run(
            [str(self.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        here = sysconfig.get_paths()["purelib"]
        Path(purelib, "_test_venv_packages.pth").write_text(here + "\n")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "--python",
                str(self.python),
                "install",
                "-q",
                "--no-deps",
                "--no-index",
                str(self.wheel),
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        self.command = self.venv / "bin" / "boardgym"

    def env(self):
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env.setdefault("NUMBA_CACHE_DIR", str(self.base / "numba-cache"))
        return env

    def run(self, *args, input=None, timeout=600, cwd=None):
        """Run ``boardgym *args`` from the installed wheel; a CompletedProcess (text)."""
        return subprocess.run(
            [str(self.command), *map(str, args)],
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd or self.cwd,
            env=self.env(),
        )

    def python_code(self, code, timeout=600):
        """Run ``python -c code`` in the wheel's venv."""
        return subprocess.run(
            [str(self.python), "-c", code],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=self.cwd,
            env=self.env(),
        )


def ok(r):
    """r's stdout, after asserting the command succeeded without a traceback."""
    assert r.returncode == 0, (r.args, r.stdout[-2000:], r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    return r.stdout


def one_line_error(r, *needles):
    """The one error line of a failed ``boardgym`` command (exit code 2, no traceback), after
    asserting it holds every needle."""
    assert r.returncode == 2, (r.args, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith("boardgym "), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]
