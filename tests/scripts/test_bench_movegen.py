"""Smoke test of scripts/bench_movegen.py with a tiny budget: every row is produced, counts are right."""
import math

import pytest
from script_loader import load_script

TINY = ["--start-depth", "5", "--mid-depth", "3", "--ref-start-depth", "3", "--ref-mid-depth", "2",
        "--n-mid", "2", "--n-gen", "20", "--gen-reps", "1", "--ref-reps", "1",
        "--bg-cases", "200", "--bg-reps", "1", "--gym-cases", "50", "--repeats", "1"]


def load():
    return load_script("bench_movegen")


def test_bench_movegen_all_tiny(capsys):
    mod = load()
    res = mod.main(["--game", "all", *TINY])
    out = capsys.readouterr().out
    rows = {(r["task"], r["impl"]): r for r in res["rows"]}
    # perft counts are the published Russian values (docs/RULES.md), on both sides of the comparison
    assert rows[("perft start", "boardgym d5")]["work"] == 7482
    assert rows[("perft start", "boardgym d5 parallel")]["work"] == 7482
    assert rows[("perft start", "py-draughts API d3")]["work"] == 302
    assert rows[("perft start", "py-draughts core d3")]["work"] == 302
    # the middlegame perft agrees between boardgym and py-draughts' core at the same depth
    mid = mod._draughts_sets(2, 0)[0]
    perft, from_board, _ = mod._make_core_perft()
    from draughts.boards.russian import Board
    from draughts.models import Color

    from boardgym.envs import draughts as dr

    for fen in mid:
        b = Board.from_fen(fen)
        assert perft(*from_board(b), b.turn == Color.WHITE, 3) == dr.perft(fen, 3)
    assert {"bg_kernel_vs_gnubg", "bg_par_vs_gnubg", "perft_start_vs_api", "gen_kernel_vs_core"} <= set(res["ratios"])
    assert all(math.isfinite(v) and v > 0 for v in res["ratios"].values())
    assert "gnubg_nn.moves" in out and "leaves/s" in out and "cases/s" in out
    assert "gym-backgammon" in out  # a rate, or "not installed" with the reason


def test_bench_movegen_rejects_unknown_game():
    with pytest.raises(ValueError, match="--game"):
        load().main(["--game", "chess"])
