"""Smoke test of `boardgym bench movegen` (scripts/bench/movegen.py) with a tiny budget: every
row is produced, counts are right, missing peers are named with how to install them."""

import math
from pathlib import Path

import numpy as np
import pytest

from boardgym.agents.arena.playouts import backgammon_rolls
from boardgym.envs import backgammon_notation as bgn
from boardgym.envs import draughts as dr
from boardgym.scripts.bench import movegen as bench_movegen
from boardgym.scripts.cli import UsageError

TINY = [
    "--start-depth",
    "5",
    "--mid-depth",
    "3",
    "--ref-start-depth",
    "3",
    "--ref-mid-depth",
    "2",
    "--n-mid",
    "2",
    "--n-gen",
    "20",
    "--gen-reps",
    "1",
    "--ref-reps",
    "1",
    "--bg-cases",
    "200",
    "--bg-reps",
    "1",
    "--gym-cases",
    "50",
    "--repeats",
    "1",
]
ORACLE = Path(__file__).resolve().parents[1] / "data" / "draughts_oracle_positions.tsv"


def test_bench_movegen_all_tiny(capsys):
    res = bench_movegen.main(["--game", "all", *TINY])
    out = capsys.readouterr().out
    rows = {(r["task"], r["impl"]): r for r in res["rows"]}
    # perft counts are the published Russian values (boardgym/RULES.md), on both sides of the
    # comparison
    assert rows[("perft start", "boardgym d5")]["work"] == 7482
    assert rows[("perft start", "boardgym d5 parallel")]["work"] == 7482
    assert rows[("perft start", "py-draughts API d3")]["work"] == 302
    assert rows[("perft start", "py-draughts core d3")]["work"] == 302
    # the middlegame perft agrees between boardgym and py-draughts' core at the same depth
    mid = bench_movegen._draughts_sets(2, 0)[0]
    perft, from_board, _ = bench_movegen._make_core_perft()
    from draughts.boards.russian import Board
    from draughts.models import Color

    for fen in mid:
        b = Board.from_fen(fen)
        assert perft(*from_board(b), b.turn == Color.WHITE, 3) == dr.perft(fen, 3)
    assert {
        "bg_kernel_vs_gnubg",
        "bg_par_vs_gnubg",
        "perft_start_vs_api",
        "gen_kernel_vs_core",
    } <= set(res["ratios"])
    assert all(math.isfinite(v) and v > 0 for v in res["ratios"].values())
    assert "gnubg_nn.moves" in out and "leaves/s" in out and "cases/s" in out
    assert "gym-backgammon" in out  # a rate, or "not installed" with how to install it


def test_shipped_positions_are_the_oracle_selection():
    """The positions shipped with the command are, in order, the first middlegames with kings
    (>= 12 pieces) and capture positions (>= 10 pieces) of the oracle data."""
    mids, gens = [], []
    for line in ORACLE.read_text().splitlines():
        fen, tags = line.split("\t")[:2]
        tags = set(tags.split(","))
        n_pieces = fen.count(",") + 2
        if "kings" in tags and "nomove" not in tags and n_pieces >= 12:
            mids.append(fen)
        if "cap" in tags and n_pieces >= 10:
            gens.append(fen)
    assert bench_movegen._draughts_sets(32, 500) == (mids[:32], gens[:500])


def test_backgammon_cases_are_legal_rolls_gnubg_agrees():
    """The random-game rolls are valid positions with dice; gnubg-nn finds as many distinct
    afterstates as boardgym's legal_plays on each (the two count the same work)."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    states, dice = backgammon_rolls(300, seed=7)
    assert states.shape[0] == dice.shape[0] == 300 and ((dice >= 1) & (dice <= 6)).all()
    again, _ = backgammon_rolls(300, seed=7)
    assert np.array_equal(states, again)
    for s, (d1, d2) in zip(states[:100], dice[:100].tolist()):
        n = len(bgn.legal_plays(bgn.position_id(s), d1, d2))
        assert n >= 1 and len(gnubg_nn.moves(bgn.board_from_state(s), d1, d2)) == n


def test_missing_peers_are_named_and_boardgym_rows_still_run(monkeypatch, capsys):
    monkeypatch.setattr(bench_movegen, "_peer", lambda module: None)
    monkeypatch.setattr(bench_movegen, "_load_gym_backgammon", lambda: None)
    res = bench_movegen.main(["--game", "all", *TINY])
    out = capsys.readouterr().out
    assert "py-draughts not installed: pip install py-draughts" in out
    assert "gnubg-nn not installed: pip install gnubg-nn" in out
    assert res["ratios"] == {}
    impls = {r["impl"] for r in res["rows"]}
    assert "boardgym kernel (jit loop)" in impls and "boardgym d5" in impls
    assert not any(i.startswith(("py-draughts", "gnubg")) for i in impls)


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--game", "chess"], "--game"),
        (["--n-gen", "501"], "--n-gen"),
        (["--start-depth", "0"], "--start-depth"),
        (["--full", "--start-depth", "4"], "--full"),
    ],
)
def test_bench_movegen_rejects_bad_settings(args, needle):
    with pytest.raises(UsageError, match=needle):
        bench_movegen.main(args)
