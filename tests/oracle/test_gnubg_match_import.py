"""GNU Backgammon imports our match text: the same rolls, plays, cube actions and result.

Uses the ``gnubg`` package (GNU Backgammon's own engine; GPL: test-only, never imported by
library code): ``gnubg.command("import mat FILE")`` then ``gnubg.match()``.
"""

import random

import numpy as np
import pytest

gnubg = pytest.importorskip("gnubg")

from boardgym.envs import backgammon_v0  # noqa: E402


def _play(seed, cube, scoring):
    env = backgammon_v0.raw_env(cube=cube, scoring=scoring)
    env.reset(seed=seed)
    rng = random.Random(seed)
    while not env.is_over:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(rng.choice(np.flatnonzero(mask).tolist()))
    return env


@pytest.mark.parametrize("seed,cube", [(s, c) for s in range(6) for c in (False, True)])
def test_gnubg_imports_our_match_text(tmp_path, capfd, seed, cube):
    env = _play(seed, cube, "gammon")
    path = tmp_path / "game.mat"
    path.write_text(env.match_text())
    gnubg.command("set jacoby off")  # our money games have no Jacoby rule (cube.py)
    gnubg.command(f"import mat {path}")
    capfd.readouterr()  # gnubg prints the board
    match = gnubg.match()
    records = match["games"][0]["game"]
    ours = [t for t in env.turns]
    assert len(records) == len(ours)
    for rec, turn in zip(records, ours):
        assert rec["player"] == "XO"[turn["player"]]
        if "cube" in turn:
            assert rec["action"] == turn["cube"]
            continue
        assert rec["action"] == "move" and sorted(rec["dice"]) == sorted(turn["dice"])
        assert sorted(rec.get("move") or ()) == sorted((a, b) for a, b, _ in turn["moves"])
    info = match["games"][0]["info"]
    winner, _, points = env.result
    assert info["winner"] == "XO"[winner]
    assert info["points-won"] == points
