"""Smoke test of scripts/perft.py with a tiny budget."""
from script_loader import load_script


def load():
    return load_script("perft")


def test_perft_script_counts_and_divides(capsys):
    mod = load()
    assert mod.main(["--depth", "4"]) == 1469
    out = capsys.readouterr().out
    assert "nodes  1469" in out and "leaves/s" in out
    assert mod.main(["--fen", "W:W21-32:B1-12", "--depth", "3", "--divide", "--threads", "2"]) == 302
    out = capsys.readouterr().out
    assert "c3-d4" in out and "nodes  302" in out
    assert mod.main(mod.Settings(fen="W:WK29:B5,19,22", depth=1)) == 2
