"""Smoke test of `boardgym perft` (scripts/perft.py) with a tiny budget."""

import functools
import io
import sys

import pytest

from boardgym.scripts import cli, perft
from boardgym.scripts.cli import UsageError


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_perft_script_counts_and_divides(capsys):
    assert perft.main(["--depth", "4"]) == 1469
    out = capsys.readouterr().out
    assert "nodes  1469" in out and "leaves/s" in out
    assert (
        perft.main(["--fen", "W:W21-32:B1-12", "--depth", "3", "--divide", "--threads", "2"]) == 302
    )
    out = capsys.readouterr().out
    assert "c3-d4" in out and "nodes  302" in out
    assert perft.main(perft.Settings(fen="W:WK29:B5,19,22", depth=1)) == 2


@pytest.mark.parametrize("threads", [1, 2])
def test_deep_perft_on_a_terminal_shows_a_bar_and_the_same_count(monkeypatch, capsys, threads):
    """From BAR_DEPTH on, a terminal gets a bar over the root moves; the count is unchanged."""
    monkeypatch.setattr(perft, "BAR_DEPTH", 5)
    # drawn from the start (a bar waits min_interval before it first shows; this run is shorter)
    monkeypatch.setattr(perft.cli, "Progress", functools.partial(cli.Progress, min_interval=0.0))
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert perft.main(["--depth", "6", "--threads", str(threads)]) == 37986
    assert "root moves:" in term.getvalue() and "7/7" in term.getvalue()
    assert "nodes  37986" in capsys.readouterr().out


def test_not_a_terminal_no_bar(monkeypatch, capsys):
    monkeypatch.setattr(perft, "BAR_DEPTH", 5)
    assert perft.main(["--depth", "6"]) == 37986
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--threads", "-4"], "--threads"),
        (["--depth", "99"], "--depth"),
        (["--fen", "nonsense"], "--fen"),
    ],
)
def test_perft_rejects_bad_settings(args, needle):
    with pytest.raises(UsageError, match=needle):
        perft.main(args)
