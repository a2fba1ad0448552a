"""Files of the agents (shared by the game rooms, the registry and training): where the shipped
weights are (``CHECKPOINTS``), the user's cache folder for tables computed once per machine
(``cache_dir``), and writing a file to a temporary name then renaming it, so a killed writer
never leaves half a file."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

CHECKPOINTS = Path(__file__).parent / "checkpoints"  # the shipped weights
CACHE_ENV = "BOARDGYM_CACHE_DIR"


def cache_dir() -> Path:
    """Where tables computed once per machine are kept: $BOARDGYM_CACHE_DIR, else
    $XDG_CACHE_HOME/boardgym, else ~/.cache/boardgym (%LOCALAPPDATA%\\boardgym on Windows).
    Not created here."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME")
    if not base and os.name == "nt":
        base = os.environ.get("LOCALAPPDATA")
    return Path(base or Path.home() / ".cache") / "boardgym"


def write_atomically(
    path: str | os.PathLike[str], write: Callable[[str], object], suffix: str = ""
) -> None:
    """Call write(tmp) on a temporary file beside path, then rename it to path: a killed writer
    never leaves half a file. The temporary name is path + ".tmp" + suffix, so writers that
    append an extension unless the name has one (np.savez ".npz", SB3's save ".zip") find it
    there."""
    tmp = f"{path}.tmp{suffix}"
    write(tmp)
    os.replace(tmp, path)


def write_file_atomically(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write data (str or bytes) to path through write_atomically."""
    mode = "wb" if isinstance(data, bytes) else "w"

    def write(tmp: str) -> None:
        with open(tmp, mode) as f:
            f.write(data)

    write_atomically(path, write)
