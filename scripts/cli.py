"""The ``boardgym`` command and the one way settings become flags.

    boardgym perft --depth 6
    boardgym evaluate draughts-greedy random --game draughts --games 4
    boardgym bench --help

Every tool in ``boardgym.scripts`` (the repository's ``scripts/`` folder, installed inside the
package) keeps its settings in a dataclass whose fields each carry a docstring; ``parse`` turns
that dataclass into flags with the standard library's argparse: ``--field-name`` per field, the
docstring as help, the default shown, ``bool`` as ``--flag/--no-flag``, ``Literal[...]`` as
choices, ``X | None`` accepting ``none``, ``list[X]``/``tuple[X, ...]`` as one or more values, and a
field with ``metadata={"positional": True}`` as a positional argument. A default of None whose
docstring says what stands for it (``default: ...``) is not shown again. A settings class may define
``check(self)`` raising ``ValueError`` naming the flag; ``parse`` calls it.

Bad arguments give one line on stderr, ``<prog>: error: <problem> (see <prog> --help)``, and exit
code 2 — never a traceback. ``run`` does the same for a ``ValueError``/``TypeError``/``OSError``
raised by the library's validated boundary while a tool runs, and for a missing optional
dependency (``ImportError``: which package, and which extra installs it); set ``BOARDGYM_DEBUG=1``
to see the traceback instead. Ctrl-C exits with 130.

``Progress`` is the progress bar of long jobs: rate and ETA on stderr, only when stderr is a
terminal, so logs and pipes stay clean.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import inspect
import os
import sys
import textwrap
import types
import typing

#: subcommand -> (module in boardgym.scripts, one-line summary). ``bench`` has its own targets.
COMMANDS = {
    "perft": ("perft", "count Russian draughts move paths to a depth (optionally per root move)"),
    "play": ("play", "play an agent in the terminal (either game, either seat)"),
    "train": ("train", "train an agent by self-play (TD or MaskablePPO, either game)"),
    "evaluate": ("evaluate", "play agents against each other with intervals; learning curves"),
    "bench": ("bench.command", "benchmarks: move generation, environments, search, against peers"),
    "show": ("show", "render a FEN, Position ID or game record to SVG or PNG"),
    "eval-gnubg": ("eval_gnubg", "backgammon agent against gnubg / pubeval (needs gnubg-nn)"),
    "train-eval": ("train_draughts_eval", "fit the draughts search's learned evaluation"),
    "train-rllib": ("train_rllib", "RLlib PPO self-play with a league (needs ray[rllib])"),
    "serve": (
        "web.app",
        "a board in the browser: play, watch and replay either game (needs [web])",
    ),
    "archive": ("archive", "the game archive: list the games kept, export them as PDN / .mat"),
    "hub": ("hub", "Russian draughts engine over the Hub protocol (GUIs, pydraughts)"),
    "egdb": ("egdb", "Russian draughts endgame tables: build, probe, list"),
    "rules": ("rules", "print the rules boardgym implements (a game's part, or one clause)"),
    "rollout-bench": ("rollout_bench", "backgammon: agents' mEMG on the rollout benchmark set"),
    "cube-bench": ("cube_bench", "backgammon: agents' cube errors on gnubg-judged decisions"),
    "checker-bench": (
        "checker_bench",
        "backgammon: agents' plays compared where they differ, judged by gnubg",
    ),
}


class UsageError(ValueError):
    """A bad command-line argument; reported as one line with exit code 2."""


# ----------------------------------------------------------------------------- settings -> flags
def field_docs(cls) -> dict:
    """Field docstrings of a dataclass (the string literal right after each field), by name."""
    docs = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body
        for a, b in zip(body, body[1:]):
            if (
                isinstance(a, ast.AnnAssign)
                and isinstance(a.target, ast.Name)
                and isinstance(b, ast.Expr)
                and isinstance(b.value, ast.Constant)
                and isinstance(b.value.value, str)
            ):
                docs[a.target.id] = " ".join(b.value.value.split())
    return docs


def flag_name(name: str) -> str:
    """The command-line flag of a settings field: ``--`` and the name with ``-`` for ``_``."""
    return "--" + name.replace("_", "-")


def _scalar(tp, flag):
    """A converter for one value of type tp (int, float, str, Literal, X | None)."""
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        choices = typing.get_args(tp)
        kind = type(choices[0])

        def conv(text):
            try:
                value = kind(text)
            except ValueError:
                value = text
            if value not in choices:
                raise argparse.ArgumentTypeError(
                    f"invalid choice {text!r} (choose from {', '.join(map(str, choices))})"
                )
            return value

        conv.__name__ = "choice"
        return conv, choices
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(f"{flag}: unsupported union type {tp}")
        inner, choices = _scalar(args[0], flag)

        def conv(text):
            return None if text.lower() in ("none", "") else inner(text)

        conv.__name__ = getattr(inner, "__name__", "value")
        return conv, choices
    if tp is bool:

        def conv(text):
            low = text.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")

        conv.__name__ = "bool"
        return conv, None
    if tp in (int, float, str):

        def conv(text, tp=tp):
            try:
                return tp(text)
            except ValueError:
                kind = {int: "an integer", float: "a number"}[tp]
                raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None

        conv.__name__ = tp.__name__
        return conv, None
    raise TypeError(f"{flag}: unsupported settings type {tp!r}")


def _metavar(tp):
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(tp) if a is not type(None)][0]
        return _metavar(inner) + "|none"
    if origin is typing.Literal:
        return "{" + ",".join(map(str, typing.get_args(tp))) + "}"
    return {int: "INT", float: "FLOAT", str: "TEXT", bool: "BOOL"}.get(tp, "VALUE")


def _show_default(value):
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value)) if value else "(none)"
    if value == "":
        return '""'
    return str(value)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit code 2."""

    def error(self, message):
        raise UsageError(message)


def require_whole_plays(agent, spec: str, flag: str = ""):
    """Raise UsageError (naming flag and spec) unless agent, loaded from spec, chooses among a
    roll's whole plays (a backgammon AfterstateAgent), as the afterstate loop, matches with the
    cube and gnubg's judging need."""
    from boardgym.agents.backgammon.agents import AfterstateAgent

    require(
        isinstance(agent, AfterstateAgent),
        f"{flag + ': ' if flag else ''}{spec} is not a backgammon agent that chooses among a "
        "roll's whole plays (backgammon-td, backgammon-greedy, backgammon-expectimax, gnubg0, "
        "pubeval do)",
    )


def build_parser(
    cls, prog: str | None = None, description: str | None = None
) -> argparse.ArgumentParser:
    """An argparse parser for the dataclass cls (one flag per field, help from its docstring)."""
    hints = typing.get_type_hints(cls)
    docs = field_docs(cls)
    p = _Parser(
        prog=prog,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        tp = hints[f.name]
        flag = flag_name(f.name)
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        helptext = docs.get(f.name, "")
        positional = bool(f.metadata.get("positional"))
        # a None default that the docstring explains ("default: the recipe's") is not shown
        # again as "(default: None)"
        shown = default is not dataclasses.MISSING and not (
            default is None and "default" in helptext
        )
        kw = {"help": helptext + (f" (default: {_show_default(default)})" if shown else "")}
        origin = typing.get_origin(tp)
        if tp is bool and not positional:
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, **kw)
            continue
        if origin in (list, tuple):
            args = typing.get_args(tp)
            if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
                raise TypeError(f"{flag}: use tuple[X, ...] for a variable-length setting")
            conv, choices = _scalar(args[0], flag)
            kw.update(type=conv, nargs="*" if positional else "+", metavar=_metavar(args[0]))
            if origin is tuple:
                kw["action"] = _TupleAction
        else:
            conv, choices = _scalar(tp, flag)
            kw.update(type=conv, metavar=_metavar(tp))
        if positional:
            if default is not dataclasses.MISSING and "nargs" not in kw:
                kw["nargs"] = "?"
            kw["metavar"] = f.name.upper()
            p.add_argument(
                f.name, default=default if default is not dataclasses.MISSING else None, **kw
            )
        else:
            if default is dataclasses.MISSING:
                kw["required"] = True
            else:
                kw["default"] = default
            p.add_argument(flag, dest=f.name, **kw)
    return p


class _TupleAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, tuple(values))


def parse(cls, argv=None, prog: str | None = None, description: str | None = None):
    """Settings of type cls from a command line (list of str; sys.argv[1:] if None).

    Raises UsageError (a ValueError) naming the bad argument; ``--help`` prints and exits 0."""
    if argv is None:
        argv = sys.argv[1:]
    if isinstance(argv, str) or not all(isinstance(a, str) for a in argv):
        raise TypeError("argv must be a list of strings")
    parser = build_parser(cls, prog=prog, description=description)
    ns = parser.parse_args(list(argv))
    try:
        cfg = cls(**vars(ns))
        check = getattr(cfg, "check", None)
        if check is not None:
            check()
    except UsageError:
        raise
    except (ValueError, TypeError) as e:
        raise UsageError(str(e)) from None
    return cfg


def settings(cls, args=None, prog: str | None = None, description: str | None = None):
    """cls from args: a cls instance is checked and returned, a list of str (or None) is parsed."""
    if isinstance(args, cls):
        check = getattr(args, "check", None)
        if check is not None:
            check()
        return args
    return parse(cls, args, prog=prog, description=description)


def require(ok: bool, message: str):
    """Raise UsageError(message) unless ok (for settings' check methods)."""
    if not ok:
        raise UsageError(message)


# ----------------------------------------------------------------------------- running a tool
def _prog_name(main_fn) -> str:
    mod = sys.modules.get(main_fn.__module__)
    short = getattr(mod, "__name__", "boardgym").rsplit(".", 1)[-1]
    for cmd, (module, _) in COMMANDS.items():
        if module == short:
            return f"boardgym {cmd}"
    return f"boardgym {short}"


def run(main_fn, argv=None, prog: str | None = None) -> int:
    """Call main_fn(argv) and turn bad input into one line on stderr and exit code 2."""
    prog = prog or _prog_name(main_fn)
    try:
        main_fn(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as e:
        if isinstance(e.code, str):  # a message (e.g. a missing test-only package): one line
            print(f"{prog}: error: {_one_line(e)}", file=sys.stderr)
            return 2
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _reader_gone()
    except UsageError as e:
        print(f"{prog}: error: {_one_line(e)} (see {prog} --help)", file=sys.stderr)
        return 2
    except ImportError as e:
        if os.environ.get("BOARDGYM_DEBUG"):
            raise
        missing = e.name or _one_line(e)
        print(
            f"{prog}: error: this needs {missing!r}, which is not installed "
            f'(see README: pip install "boardgym[train]" for training, '
            f'"boardgym[bench]" for the benchmark peers)',
            file=sys.stderr,
        )
        return 2
    except (ValueError, TypeError, OSError, LookupError) as e:
        if os.environ.get("BOARDGYM_DEBUG"):
            raise
        print(f"{prog}: error: {_one_line(e)}", file=sys.stderr)
        return 2
    return 0


def _one_line(e: BaseException) -> str:
    text = str(e)
    if isinstance(e, KeyError) and len(e.args) == 1:
        text = str(e.args[0])
    if isinstance(e, OSError) and e.filename is not None and e.strerror:
        text = f"{e.strerror}: {e.filename}"
    return " ".join(text.split()) or type(e).__name__


def script_main(main_fn):
    """The ``if __name__ == "__main__"`` body of a script: run it and exit with its code."""
    sys.exit(run(main_fn, prog=os.path.basename(sys.argv[0]) or None))


def _usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [
        "usage: boardgym <command> [options]   (boardgym <command> --help for its options)",
        "",
        "Fast, exact Russian draughts and backgammon: tools for the environments and agents.",
        "",
        "commands:",
    ]
    lines += [f"  {name:<{width}}  {summary}" for name, (_, summary) in COMMANDS.items()]
    lines += ["", "  --version   print the version and exit"]
    return "\n".join(lines)


def main(argv=None) -> int:
    """The ``boardgym`` console command: ``boardgym <command> [options]``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0 if argv else 2
    if argv[0] == "--version":
        from boardgym import __version__

        print(f"boardgym {__version__}")
        return 0
    name = argv[0]
    if name not in COMMANDS:
        close = [c for c in COMMANDS if c.startswith(name[:3])]
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        print(
            f"boardgym: error: unknown command {name!r}{hint} (commands: {', '.join(COMMANDS)})",
            file=sys.stderr,
        )
        return 2
    module = importlib.import_module(f"boardgym.scripts.{COMMANDS[name][0]}")
    return run(module.main, argv[1:], prog=f"boardgym {name}")


def _reader_gone() -> int:
    """The reader of stdout stopped early (``boardgym --help | head -3``): end quietly, as
    command-line tools do, stdout pointed at os.devnull so that the interpreter's last flush finds
    no pipe to fail on -> 141 (128 + SIGPIPE, the exit status a shell reports for it)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141


def console_main():
    """Entry point of the installed ``boardgym`` command."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        code = _reader_gone()
    sys.exit(code)


# ----------------------------------------------------------------------------- progress bar
class Progress:
    """A progress bar with rate and ETA on stderr (tqdm; a widget in Jupyter), drawn only on a
    terminal or in Jupyter, and erased when it closes, so a command's result lines are the last
    ones. A line printed while it runs goes through ``clear()`` first.

    with Progress(total=1000, label="games") as bar:
        for ...: bar.update(1)
    """

    def __init__(
        self,
        total: float | None,
        label: str = "",
        unit: str = "",
        stream=None,
        enabled: bool | None = None,
        min_interval: float = 0.2,
    ):
        from tqdm.auto import tqdm

        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)()) or (
                "ipykernel" in sys.modules
            )
        self.enabled = enabled
        self._bar = tqdm(
            total=total,
            desc=label or None,
            unit=f" {unit}" if unit else "it",
            file=self.stream,
            disable=not enabled,
            mininterval=min_interval,
            delay=min_interval,  # nothing drawn before the first update after it
            leave=False,
            dynamic_ncols=True,
        )

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def n(self) -> float:
        return self._bar.n

    @property
    def total(self) -> float | None:
        return self._bar.total

    @total.setter
    def total(self, value: float | None) -> None:
        self._bar.total = value

    def update(self, n: float = 1.0):
        self._bar.update(n)

    def set(self, n: float):
        self._bar.update(n - self._bar.n)

    def clear(self):
        """Erase the bar's line (it comes back at the next update): call before printing."""
        if self.enabled:
            self._bar.clear()

    def print(self, text: str) -> None:
        """Print text on stdout above the bar."""
        self.clear()
        print(text, flush=True)

    def close(self):
        self._bar.close()


if __name__ == "__main__":
    console_main()
