"""Smoke test of scripts/perft.py with a tiny budget."""
import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "scripts" / "perft.py"


def load():
    spec = importlib.util.spec_from_file_location("perft_script", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_perft_script_counts_and_divides(capsys):
    mod = load()
    assert mod.main(["--depth", "4"]) == 1469
    out = capsys.readouterr().out
    assert "nodes  1469" in out and "leaves/s" in out
    assert mod.main(["--fen", "W:W21-32:B1-12", "--depth", "3", "--divide", "--threads", "2"]) == 302
    out = capsys.readouterr().out
    assert "c3-d4" in out and "nodes  302" in out
    assert mod.main(mod.Settings(fen="W:WK29:B5,19,22", depth=1)) == 2
