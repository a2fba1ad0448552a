"""`boardgym bench coldstart`: fresh processes with an empty Numba cache, per-phase seconds."""

import pytest

from boardgym.scripts import cli
from boardgym.scripts.bench import coldstart as bench_coldstart

FAKE_CHILD = r"""
import json, sys, time
print("boardgym: compiling the draughts kernels (first use; Numba caches them for later runs)...",
      file=sys.stderr, flush=True)
print(json.dumps({"phases": [["import", 0.5]] + [[g, 2.0] for g in sys.argv[1].split(",")],
                  "compiles": [["draughts.game.legal_mask", 1.5], ["draughts.game.step", 0.5]]}))
"""


def test_phases_notices_and_compiles_are_printed(monkeypatch, capsys):
    monkeypatch.setattr(bench_coldstart, "CHILD", FAKE_CHILD)
    res = bench_coldstart.main(["--kernels", "1", "--repeats", "2"])
    out = capsys.readouterr().out
    assert set(res["cold"]) == {"import", "draughts", "backgammon", "total", "total cpu"}
    assert res["cold"]["draughts"] == 2.0 and res["cold"]["total"] > 0 and res["repeats"] == 2
    assert res["compiles"] == [["draughts.game.legal_mask", 1.5]] and res["first_notice"] > 0
    for text in (
        "empty cache s",
        "cached s",
        "draughts game",
        "backgammon game",
        "total",
        "total cpu",
        "compile notices on stderr (first cold run): 1",
        "draughts.game.legal_mask",
    ):
        assert text in out, text
    assert "draughts.game.step" not in out


def test_a_failing_child_is_reported(monkeypatch):
    monkeypatch.setattr(
        bench_coldstart, "CHILD", "import sys; print('boom', file=sys.stderr); sys.exit(3)"
    )
    with pytest.raises(RuntimeError, match="boom"):
        bench_coldstart.main(["--game", "draughts"])


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--repeats", "0"], "--repeats"),
        (["--kernels", "-1"], "--kernels"),
        (["--full", "--repeats", "2"], "--full"),
    ],
)
def test_bad_arguments(args, needle):
    with pytest.raises(cli.UsageError, match=needle):
        bench_coldstart.main(args)


@pytest.mark.slow
def test_a_real_cold_start_of_draughts():
    res = bench_coldstart.main(["--game", "draughts", "--kernels", "3"])
    assert res["cold"]["draughts"] > res["cached"]["draughts"] > 0
    assert res["notices"] and "compiling the draughts kernels" in res["notices"][0][1]
    assert len(res["compiles"]) == 3
