"""The one settings -> flags mechanism (boardgym.scripts.cli) and the boardgym dispatcher."""

import dataclasses
import io
import pathlib
import sys
from typing import Literal

import pytest

from boardgym.scripts import cli


@dataclasses.dataclass
class Demo:
    """A settings class using every supported field type."""

    agents: list[str] = dataclasses.field(default_factory=list, metadata={"positional": True})
    """agent names"""
    count: int = 3
    """how many"""
    rate: float = 0.5
    """a rate"""
    name: str = ""
    """a name"""
    fast: bool = False
    """go fast"""
    mode: Literal["a", "b"] = "a"
    """the mode"""
    limit: float | None = None
    """optional limit"""
    sizes: tuple[int, ...] = (1, 2)
    """sizes"""

    def check(self):
        cli.require(self.count >= 0, f"--count must be >= 0, got {self.count}")


def test_defaults_and_every_type():
    cfg = cli.parse(Demo, [])
    assert cfg == Demo()
    cfg = cli.parse(
        Demo,
        [
            "x",
            "y",
            "--count",
            "7",
            "--rate",
            "1e-3",
            "--name",
            "n",
            "--fast",
            "--mode",
            "b",
            "--limit",
            "2.5",
            "--sizes",
            "4",
            "5",
            "6",
        ],
    )
    assert cfg == Demo(
        agents=["x", "y"],
        count=7,
        rate=1e-3,
        name="n",
        fast=True,
        mode="b",
        limit=2.5,
        sizes=(4, 5, 6),
    )
    assert cli.parse(Demo, ["--limit", "none", "--no-fast"]).limit is None


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--count", "x"], "--count"),
        (["--count", "-1"], "--count"),
        (["--mode", "c"], "--mode"),
        (["--rate", "fast"], "--rate"),
        (["--bogus"], "--bogus"),
        (["--cou", "3"], "--cou"),
    ],
)
def test_bad_arguments_raise_usage_error_naming_the_flag(argv, needle):
    with pytest.raises(cli.UsageError, match=needle.lstrip("-")):
        cli.parse(Demo, argv)


def test_help_shows_every_docstring_and_default(capsys):
    with pytest.raises(SystemExit) as e:
        cli.parse(Demo, ["--help"], prog="demo")
    assert e.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    for text in (
        "how many (default: 3)",
        "a rate (default: 0.5)",
        'a name (default: "")',
        "the mode (default: a)",
        "optional limit (default: None)",
        "sizes (default: 1 2)",
        "go fast (default: False)",
    ):
        assert text in out


def test_settings_passes_instances_through_and_checks_them():
    cfg = Demo(count=2)
    assert cli.settings(Demo, cfg) is cfg
    with pytest.raises(ValueError, match="--count"):
        cli.settings(Demo, Demo(count=-5))
    with pytest.raises(TypeError):
        cli.parse(Demo, "--count 3")


def test_run_turns_errors_into_one_line_and_exit_2(capsys, monkeypatch):
    def tool(argv):
        cli.parse(Demo, argv)

    assert cli.run(tool, ["--count", "x"], prog="demo") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("demo: error:") and "Traceback" not in err

    def failing(argv):
        raise ValueError("bad FEN 'zz'\n  (details)")

    assert cli.run(failing, [], prog="demo") == 2
    assert capsys.readouterr().err == "demo: error: bad FEN 'zz' (details)\n"
    monkeypatch.setenv("BOARDGYM_DEBUG", "1")
    with pytest.raises(ValueError):
        cli.run(failing, [], prog="demo")

    def missing(argv):
        open("/nonexistent/dir/file.txt")

    monkeypatch.delenv("BOARDGYM_DEBUG")
    assert cli.run(missing, [], prog="demo") == 2
    assert "/nonexistent/dir/file.txt" in capsys.readouterr().err
    assert cli.run(lambda argv: None, [], prog="demo") == 0

    def needs_gnubg(argv):
        raise SystemExit("this needs GNU Backgammon's Python module: pip install gnubg")

    assert cli.run(needs_gnubg, [], prog="demo") == 2  # said, not swallowed
    assert capsys.readouterr().err == (
        "demo: error: this needs GNU Backgammon's Python module: pip install gnubg\n"
    )
    assert cli.run(lambda argv: sys.exit(3), [], prog="demo") == 3


def test_dispatcher(capsys):
    assert cli.main([]) == 2
    assert "commands:" in capsys.readouterr().out
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in cli.COMMANDS:
        assert name in out
    assert cli.main(["perf"]) == 2
    assert "did you mean perft" in capsys.readouterr().err
    assert cli.main(["perft", "--depth", "2"]) == 0
    assert "nodes  49" in capsys.readouterr().out
    assert cli.main(["perft", "--threads", "-4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--threads" in err


@pytest.mark.parametrize("argv", [["--help"], ["rules", "--game", "backgammon"]])
def test_a_reader_that_stops_early_ends_the_command_quietly(argv):
    """stdout a pipe whose reader has gone (``boardgym --help | head -3``): no traceback, no
    error line, exit status 141 (128 + SIGPIPE), for the dispatcher and for a command."""
    import os
    import subprocess

    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first write
    try:
        code = "from boardgym.scripts.cli import console_main; console_main()"
        done = subprocess.run(
            [sys.executable, "-c", code, *argv], stdout=w, stderr=subprocess.PIPE, timeout=120
        )
    finally:
        os.close(w)
    assert done.returncode == 141, done.stderr.decode()
    assert done.stderr.decode() == ""


def test_progress_draws_only_on_a_terminal_and_is_erased_at_the_end():
    quiet = io.StringIO()
    with cli.Progress(10, label="games", stream=quiet) as bar:
        for _ in range(10):
            bar.update(1)
    assert quiet.getvalue() == ""

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    with cli.Progress(4, label="games", unit="g", stream=tty, min_interval=0.0) as bar:
        for _ in range(4):
            bar.update(1)
        bar.clear()
        drawn = tty.getvalue()
    text = tty.getvalue()
    assert "games: " in drawn and "4/4" in drawn and " g/s]" in drawn
    assert text.endswith("\r") and text.rsplit("\r", 2)[-2].strip() == ""  # erased: no line left


def test_missing_optional_dependency_is_one_line(capsys):
    def needs_ray(argv):
        import boardgym_no_such_optional_package  # noqa: F401

    assert cli.run(needs_ray, [], prog="demo") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "boardgym_no_such_optional_package" in err


CUBE_LOG = str(
    pathlib.Path(__file__).parents[2] / "agents/training/runs/cube-gnubg2/money-seed13.jsonl.gz"
)


@pytest.mark.parametrize(
    "command, argv",
    [
        ("cube_bench", ["backgammon-random", "--log", CUBE_LOG]),
        ("checker_bench", ["backgammon-greedy", "backgammon-random"]),
        ("evaluate", ["backgammon-greedy", "backgammon-random", "--match", "3"]),
        ("eval_gnubg", ["--agent", "backgammon-random", "--opponent", "gnubg", "--games", "2"]),
    ],
)
def test_commands_that_need_whole_plays_say_so_alike(command, argv):
    """Every command that plays through the afterstate loop refuses a move-by-move agent with
    the same message (cli.require_whole_plays), naming the spec once."""
    import importlib

    if command == "eval_gnubg":
        pytest.importorskip("gnubg")
    main = importlib.import_module(f"boardgym.scripts.{command}").main
    with pytest.raises(
        cli.UsageError,
        match="backgammon-random is not a backgammon agent that chooses among a roll's whole plays",
    ) as e:
        main(argv)
    assert str(e.value).count("backgammon-random") == 1  # the spec named once
