"""Every Python block of README.md runs as written, each alone in a fresh interpreter.

A block that needs an optional extra says so with ``<!-- readme-test: needs [extra] -->`` on the
line before its fence: it runs where the extra's packages are installed (the test extra brings
them) and is skipped elsewhere. Every other block runs with the optional packages hidden, so a
block that needs one without saying so fails. A statement whose line ends in a comment that is a
Python literal (``draughts.perft(draughts.initial_state(), 8)  # 929899``) must give that value.
"""

import ast
import io
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
MARK = re.compile(r"<!--\s*readme-test:\s*needs\s+\[(\w+)\]\s*-->")
# the import names of each optional extra's packages a README block may need
EXTRAS = {
    "train": ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "matplotlib"),
    "web": ("starlette", "uvicorn"),
}
HIDDEN = sorted({name for names in EXTRAS.values() for name in names})

# run before a block: hides the optional packages (for unmarked blocks) and defines the check of
# stated values
PRELUDE = r"""
import sys


class _Hidden:
    def __init__(self, names):
        self.names = set(names)

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r} (hidden: an optional extra)")
        return None


if _HIDDEN:
    sys.meta_path.insert(0, _Hidden(_HIDDEN))


def __readme_stated(value, stated, line):
    assert value == stated, f"README.md line {line}: says {stated!r}, got {value!r}"
    return value
"""


def _blocks():
    """[(line of the first code line, code, extra or None)] of README's ```python blocks."""
    lines = README.read_text().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            j = i + 1
            while lines[j].strip() != "```":
                j += 1
            mark = MARK.fullmatch(lines[i - 1].strip()) if i else None
            blocks.append((i + 2, "\n".join(lines[i + 1 : j]) + "\n", mark and mark.group(1)))
            i = j
        i += 1
    return blocks


def _with_stated_values(code, first_line):
    """code with each top-level expression whose last line ends in a literal comment wrapped in
    __readme_stated(expression, literal, README line)."""
    comments = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string[1:].strip()
    tree = ast.parse(code)
    for node in tree.body:
        text = comments.get(node.end_lineno)
        if not isinstance(node, ast.Expr) or not text:
            continue
        try:
            stated = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            continue
        node.value = ast.Call(
            func=ast.Name("__readme_stated", ast.Load()),
            args=[node.value, ast.Constant(stated), ast.Constant(first_line + node.end_lineno - 1)],
            keywords=[],
        )
    return ast.unparse(ast.fix_missing_locations(tree))


BLOCKS = _blocks()


def test_the_readme_has_its_blocks_and_known_marks():
    assert len(BLOCKS) >= 8
    assert {extra for _, _, extra in BLOCKS} - {None} <= set(EXTRAS)
    marks = len(MARK.findall(README.read_text()))
    assert marks == sum(extra is not None for _, _, extra in BLOCKS)  # every mark before a block


def test_stated_values_are_checked():
    code = _with_stated_values("x = 2\nx + 1  # 3\nx  # 'two'\nprint(x)  # a comment\n", 10)
    assert "__readme_stated(x + 1, 3, 11)" in code and "__readme_stated(x, 'two', 12)" in code
    assert "print(x)\n" in code + "\n"


def _run(code, hidden, cwd):
    source = f"_HIDDEN = {hidden!r}\n" + PRELUDE + code
    env = dict(os.environ, MPLBACKEND="Agg")
    args = [sys.executable, "-c", source]
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env, timeout=900)


def test_an_unmarked_block_cannot_use_an_extra(tmp_path):
    r = _run("import stable_baselines3\n", HIDDEN, tmp_path)
    assert r.returncode != 0 and "hidden: an optional extra" in r.stderr
    r = _run(_with_stated_values("1 + 1  # 3\n", 5), [], tmp_path)
    assert r.returncode != 0 and "README.md line 5: says 3, got 2" in r.stderr


@pytest.mark.parametrize("line, code, extra", BLOCKS, ids=[f"line{line}" for line, _, _ in BLOCKS])
def test_readme_block_runs(tmp_path, line, code, extra):
    if extra is not None:
        for name in EXTRAS[extra]:
            pytest.importorskip(name, reason=f"the [{extra}] extra is not installed")
    hidden = [] if extra is not None else HIDDEN
    r = _run(_with_stated_values(code, line), hidden, tmp_path)  # pictures are saved in tmp_path
    assert r.returncode == 0, f"README.md block at line {line} failed:\n{r.stderr[-3000:]}"
