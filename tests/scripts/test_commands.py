"""Every ``boardgym`` command: its module imports, has documented settings (a docstring per field,
every flag's help showing its default) and a ``main``, and ``boardgym <cmd> --help`` works."""

import dataclasses
import importlib
import re

import pytest

from boardgym.scripts import cli
from boardgym.scripts.bench import command as bench


def _settings_classes(module):
    """The settings dataclass a tool defines (``Settings``; other dataclasses are not settings)."""
    cls = getattr(module, "Settings", None)
    return [cls] if dataclasses.is_dataclass(cls) and cls.__module__ == module.__name__ else []


def _tools():
    """(name as typed after boardgym, module name) of every command and bench target."""
    tools = [(cmd, f"boardgym.scripts.{mod}") for cmd, (mod, _) in cli.COMMANDS.items()]
    tools += [(f"bench {t}", m.__name__) for t, (m, _) in bench.TARGETS.items()]
    return tools


TOOLS = _tools()


@pytest.mark.parametrize("name, module_name", TOOLS, ids=[t for t, _ in TOOLS])
def test_tool_has_documented_settings_and_main(name, module_name):
    module = importlib.import_module(module_name)
    assert callable(getattr(module, "main", None)), f"{module_name} has no main"
    assert module.__doc__ and f"boardgym {name}" in module.__doc__, (
        f"{module_name}'s docstring shows no `boardgym {name} ...` example"
    )
    classes = _settings_classes(module)
    assert classes, f"{module_name} defines no settings dataclass"
    for cls in classes:
        docs = cli.field_docs(cls)
        undocumented = [f.name for f in dataclasses.fields(cls) if f.init and not docs.get(f.name)]
        assert not undocumented, (
            f"{module_name}.{cls.__name__}: fields without a docstring: {undocumented}"
        )
        parser = cli.build_parser(cls, prog=f"boardgym {name}")
        for action in parser._actions:
            if action.dest == "help":
                continue
            assert action.help, f"{module_name}: {action.option_strings or action.dest} has no help"
            if not action.required:
                assert "default" in action.help, (
                    f"{module_name}: {action.option_strings or action.dest} "
                    "does not show its default"
                )
                # one default, not the docstring's and "(default: None)" too
                assert not (
                    "(default: None)" in action.help and action.help.count("default") > 1
                ), f"{module_name}: {action.option_strings} states two defaults"


@pytest.mark.parametrize("name, module_name", TOOLS, ids=[t for t, _ in TOOLS])
def test_help_works(name, module_name, capsys):
    assert cli.main([*name.split(), "--help"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"usage: boardgym {name}") and err == ""
    module = importlib.import_module(module_name)
    for cls in _settings_classes(module):
        for f in dataclasses.fields(cls):
            if f.init and not f.metadata.get("positional"):
                assert re.search(rf"--{f.name.replace('_', '-')}\b", out), (
                    f"--help of {name} lacks {f.name}"
                )


def test_top_level_help_lists_every_command(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(f"  {cmd}" in out for cmd in cli.COMMANDS)


@pytest.mark.parametrize("name, module_name", TOOLS, ids=[t for t, _ in TOOLS])
def test_help_examples_keep_their_lines(name, module_name):
    """A backslash at the end of an example line in a plain docstring joins it with the next
    (train --help showed 150-column commands): every description line fits in 100 columns."""
    doc = importlib.import_module(module_name).__doc__
    long = [line for line in doc.splitlines() if len(line) > 100]
    assert not long, f"{module_name}: {long[0][:60]}..."


def test_train_help_is_short_and_states_the_defaults_it_uses(capsys):
    from boardgym.scripts import train

    assert cli.main(["train", "--help"]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) <= 180
    text = " ".join(out.split())
    (td_ckpt, td_eval), (ppo_ckpt, ppo_eval) = train.EVERY["td"], train.EVERY["ppo"]
    assert f"games (td; default {td_eval:,}) or steps (ppo; default {ppo_eval:,})" in text
    assert f"(td; default {td_ckpt:,}) or learner steps (ppo; default {ppo_ckpt:,})" in text
    assert re.search(r"--seed INT\|none seed .{0,60}\(default: td 0, ppo 1, the recipes'\)", text)
    assert "td 0, ppo 1, the recipes') (default" not in text


CLAUSE = re.compile(r"(?<![\w.])[A-Z]{1,2}\.\d+[a-z]?(?!\w)")  # E.3, G.2a, MP.1


@pytest.mark.parametrize("name", ["play", "evaluate", "serve", "hub", "egdb", "train", "show"])
def test_help_speaks_plain_words_not_clause_codes_or_wire_encodings(name, capsys):
    """Help said "(E.3, E.7)", "C.1-C.2", "G.2a-G.2e", "from_sq32 * 32 + to_sq32": a clause is
    named only as where ``boardgym rules --clause`` finds it."""
    assert cli.main([name, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    codes = [
        m.group() for m in CLAUSE.finditer(text) if not text[: m.start()].endswith("--clause ")
    ]
    assert not codes, f"boardgym {name} --help cites {codes}"
    assert "sq32" not in text and "* 6 +" not in text
