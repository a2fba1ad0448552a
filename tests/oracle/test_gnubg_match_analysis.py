"""GNU Backgammon imports the matches we write and analyses them without complaint.

Matches are played here (tests/helpers/bg_matches.py: cube actions, drops, resignations,
Crawford and post-Crawford games), written with ``backgammon_match.match_to_text``, imported
with ``import mat`` and analysed at 0 plies (``analyse match``); gnubg's games, scores, winners,
points, Crawford flags, every action (rolls, plays, cube actions, resignations) and the
positions it replays agree with ours, its statistics count our rolls and cube actions, and what
it prints while importing and analysing holds no warning or error. A game saved in the terminal
after ``undo`` (the roll in progress written as its dice) imports too, and so do matches played
in the terminal (``boardgym play --match``), whole or saved in their second game, and a match
watched on the web board (``boardgym serve``).

Uses the ``gnubg`` package (GNU Backgammon's own engine; GPL: test-only, never imported by
library code). gnubg prints through C stdio, so its output is captured at file descriptors 1
and 2; ``set threads 1`` comes first (gnubg's analysis threads hang the embedded module).
"""

import ctypes
import io
import os
import re
import sys
import tempfile

import bg_matches
import pytest

gnubg = pytest.importorskip("gnubg")

from boardgym.envs import backgammon_ids, backgammon_match  # noqa: E402
from boardgym.kernels.backgammon import game as core  # noqa: E402
from boardgym.kernels.backgammon.board import TURN  # noqa: E402

SETUP = [
    "set threads 1",
    "set sound enable off",
    "set analysis chequerplay evaluation plies 0",
    "set analysis cubedecision evaluation plies 0",
]
COMPLAINT = re.compile(
    r"\b(warn\w*|errors?|illegal|invalid|unknown|cannot|can't|failed|ignor\w*|unexpected|"
    r"corrupt\w*|not legal)\b",
    re.IGNORECASE,
)
NAMES = ("alice", "bob")
GR, GG = ("greedy", "random"), ("greedy", "greedy")
MATCHES = {  # (match length, seed): (checker players, resignation rate per action)
    (3, 21): (GG, 0.0),
    (5, 13): (GG, 0.0),
    (7, 19): (GG, 0.0),
    (9, 5): (GR, 0.01),
}


def run_gnubg(*commands):
    """gnubg's output (stdout and stderr) while it runs commands."""
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile(mode="w+") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            for c in commands:
                gnubg.command(c)
        finally:
            libc.fflush(None)
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        log.seek(0)
        return log.read()


def _stat(text, label):
    """(player_0's, player_1's) count on the statistics line that starts with label."""
    m = re.search(rf"^{re.escape(label)}\s+(\d+)\s+(\d+)\s*$", text, re.M)
    assert m, f"no '{label}' line in gnubg's statistics"
    return int(m.group(1)), int(m.group(2))


def _check_game(rec, game, frames, first):
    """gnubg's record of one game against ours (turns, result, positions)."""
    info, actions = rec["info"], rec["game"]
    turns = game["turns"]
    state = frames[game["last_frame"]]["state"]
    dropped = turns[-1].get("cube") == "drop"
    over = core.result(state, core.SCORING_GAMMON)[0] >= 0
    resigned = not over and not dropped
    assert (info["score-X"], info["score-O"]) == tuple(game["score"])
    assert info["winner"] == "XO"[game["winner"]] and info["points-won"] == game["points"]
    assert info["resigned"] == resigned and info.get("crawford", False) == game["crawford"]
    assert len(actions) == len(turns) + resigned
    if resigned:
        assert actions[-1]["action"] == "resign"
        assert actions[-1]["player"] == "XO"[1 - game["winner"]]
    for k, (act, turn) in enumerate(zip(actions, turns)):
        assert act["player"] == "XO"[turn["player"]]
        if turn.get("cube"):
            assert act["action"] == turn["cube"]
            continue
        if act["action"] == "set":  # a roll not played: the last turn of a resigned game
            assert k == len(turns) - 1 and resigned and not turn["moves"]
            assert sorted(act["dice"]) == sorted(turn["dice"])
            continue
        assert act["action"] == "move" and sorted(act["dice"]) == sorted(turn["dice"])
        assert sorted(act.get("move") or ()) == sorted((a, b) for a, b, _ in turn["moves"])
        before = frames[first + k]["state"]  # the position the roll is played from
        if before[TURN] != turn["player"]:
            before = core.pass_turn(before)
        assert act["board"] == backgammon_ids.position_id(before)


@pytest.mark.parametrize("length, seed", list(MATCHES))
def test_gnubg_imports_and_analyses_our_matches(tmp_path, length, seed):
    players, rate = MATCHES[length, seed]
    games = bg_matches.play_match(
        length, seed, double_rate=0.03, take_rate=0.6, players=players, resign_rate=rate
    )
    path = tmp_path / "match.mat"
    path.write_text(backgammon_match.match_to_text(games, length, NAMES))
    ours = backgammon_match.read_match(path.read_text())
    frames, match = backgammon_match.match_frames(path.read_text())
    out = run_gnubg(*SETUP, f"import mat {path}", "analyse match")
    complaints = [ln for ln in out.splitlines() if COMPLAINT.search(ln)]
    assert not complaints, complaints
    assert "Position ID" in out  # the import printed its board: the output was captured
    stats = run_gnubg("show statistics match")
    played = gnubg.match()
    info = played["match-info"]
    assert info["match-length"] == length and "Crawford" in info["rules"]
    assert (info["X"]["name"], info["O"]["name"]) == NAMES
    assert len(played["games"]) == len(games)
    for rec, game, where in zip(played["games"], ours["games"], match["games"]):
        _check_game(rec, {**game, "last_frame": where["last"]}, frames, where["first"])
    # the analysis went through every game: its counts are ours
    rolls = [0, 0]  # rolls played (lost rolls too; not a roll left unplayed by a resignation)
    for f in frames:
        if "dice" in f and not f.get("pending"):
            rolls[f["turn"]] += 1
    cube = {"double": [0, 0], "take": [0, 0], "drop": [0, 0]}
    for g in ours["games"]:
        for t in g["turns"]:
            if t.get("cube"):
                cube[t["cube"]][t["player"]] += 1
    assert _stat(stats, "Total moves") == tuple(rolls)
    assert _stat(stats, "Doubles") == tuple(cube["double"])
    assert _stat(stats, "Takes") == tuple(cube["take"])
    assert _stat(stats, "Passes") == tuple(cube["drop"])
    assert not [ln for ln in stats.splitlines() if re.search(r"(?i)warn|illegal|invalid", ln)]


def test_gnubg_imports_a_game_saved_after_undo(tmp_path):
    """The terminal game saved after undo (a double taken, the roll in progress): gnubg reads
    the roll as dice set and not played, on the same position."""
    from session_feeders import UndoSaveFeeder

    from boardgym.scripts import play

    path = tmp_path / "g1.mat"
    out = io.StringIO()
    play.main(
        ["--game", "backgammon", "--agent", "backgammon-greedy", "--cube", "--seat", "1"]
        + ["--seed", "3"],
        stdin=UndoSaveFeeder(out, path),
        out=out,
    )
    turns, _ = backgammon_match.read_match_text(path.read_text())
    log = run_gnubg(*SETUP, "set jacoby off", f"import mat {path}", "analyse match")
    assert not [ln for ln in log.splitlines() if COMPLAINT.search(ln)]
    (game,) = gnubg.match()["games"]
    actions = game["game"]
    assert len(actions) == len(turns) and game["info"]["winner"] is None
    assert [a["action"] for a in actions].count("take") == 1
    assert actions[-1]["action"] == "set" and actions[-1]["player"] == "XO"[turns[-1]["player"]]
    assert sorted(actions[-1]["dice"]) == sorted(turns[-1]["dice"])
    shown = re.findall(r"Position ID (\S+)", out.getvalue())[-1]
    assert re.search(rf"Position ID: {re.escape(shown)}", log)  # gnubg's board after import


def test_the_complaint_check_sees_what_gnubg_says_of_a_bad_file(tmp_path):
    """The output check can fail: gnubg's warning about an illegal play is caught."""
    path = tmp_path / "bad.mat"
    path.write_text(
        " 3 point match\n\n Game 1\n a : 0                            b : 0\n"
        "  1) 31: 8/1 6/5                      42: 8/4 6/4\n"
    )
    out = run_gnubg(*SETUP, f"import mat {path}", "analyse match")
    assert [ln for ln in out.splitlines() if COMPLAINT.search(ln)] == [
        'WARNING: Invalid move: " 8/1 6/5" encountered'
    ]
    with pytest.raises(ValueError, match=r"^line 5 \(game 1, move 1\): a rolled 3-1: move 8/1"):
        backgammon_match.read_match(path.read_text())


@pytest.mark.parametrize("whole", [True, False], ids=["whole", "saved-in-game-2"])
def test_gnubg_imports_a_match_played_in_the_terminal(tmp_path, whole):
    """``boardgym play --match 5`` (seat 1 doubling at each game's first chance, the agent
    taking; a Crawford and post-Crawford games): the whole match written by --save, or the
    match saved in game 2 after an undo (the roll in progress as its dice), imports into gnubg
    with our games, scores, winners, points, Crawford flags and actions, and analyses without
    complaint."""
    from session_feeders import MatchFeeder

    from boardgym.scripts import play

    path = tmp_path / "terminal.mat"
    out = io.StringIO()
    args = ["--game", "backgammon", "--agent", "backgammon-greedy", "--match", "5"]
    args += ["--seat", "1", "--seed", "4"] + (["--save", str(path)] if whole else [])
    feeder = MatchFeeder(
        out, path=None if whole else path, save_game=2, plays=3, double=True, greedy=True
    )
    play.main(args, stdin=feeder, out=out)
    ours = backgammon_match.read_match(path.read_text())
    frames, match = backgammon_match.match_frames(path.read_text())
    assert len(ours["games"]) == (5 if whole else 2)
    log = run_gnubg(*SETUP, f"import mat {path}", "analyse match")
    complaints = [ln for ln in log.splitlines() if COMPLAINT.search(ln)]
    assert not complaints, complaints
    played = gnubg.match()
    assert played["match-info"]["match-length"] == 5
    assert len(played["games"]) == len(ours["games"])
    finished = ours["games"] if whole else ours["games"][:1]
    for rec, game, where in zip(played["games"], finished, match["games"]):
        _check_game(rec, {**game, "last_frame": where["last"]}, frames, where["first"])
    if not whole:
        last, turns = played["games"][-1], ours["games"][-1]["turns"]
        assert last["info"]["winner"] is None and len(last["game"]) == len(turns)
        score = (last["info"]["score-X"], last["info"]["score-O"])
        assert score == tuple(ours["games"][-1]["score"]) == tuple(match["games"][0]["score_after"])
        assert last["game"][-1]["action"] == "set" and not turns[-1]["moves"]


@pytest.mark.parametrize(
    "score, seed", [(None, 6), ([1, 2], 2), ([4, 1], 3)], ids=["0-0", "from-1-2", "from-4-1"]
)
def test_gnubg_imports_a_match_played_in_the_browser(tmp_path, score, seed):
    """A 5-point match watched on the web board (``boardgym serve``, two agents that never
    double: several games, a Crawford game), from 0-0 or from a score (MP.7: 4-1 starts with
    the Crawford game), downloaded from ``/api/games/{id}/record``, imports into gnubg with our
    games, scores (the first game's score line is the start score), winners, points, Crawford
    flags and actions, and analyses without complaint."""
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from boardgym.scripts.web import app as serve

    c = TestClient(serve.make_app())
    agents = ["greedy", "backgammon-greedy"]
    body = {"game": "backgammon", "mode": "watch", "agents": agents, "match": 5, "seed": seed}
    v = c.post("/api/games", json={**body, "score": score, "crawford": score == [4, 1]}).json()
    while not v["over"]:
        v = c.post(f"/api/games/{v['id']}/step").json()
    path = tmp_path / "web.mat"
    path.write_text(c.get(f"/api/games/{v['id']}/record").text)
    ours = backgammon_match.read_match(path.read_text())
    frames, match = backgammon_match.match_frames(path.read_text())
    assert len(ours["games"]) == v["match"]["game"] >= (3 if score != [4, 1] else 1)
    assert ours["games"][0]["score"] == (score or [0, 0])
    assert ours["games"][0]["crawford"] == (score == [4, 1])
    assert any(g["crawford"] for g in ours["games"])
    log = run_gnubg(*SETUP, f"import mat {path}", "analyse match")
    complaints = [ln for ln in log.splitlines() if COMPLAINT.search(ln)]
    assert not complaints, complaints
    played = gnubg.match()
    assert played["match-info"]["match-length"] == 5
    assert len(played["games"]) == len(ours["games"])
    first = played["games"][0]["info"]
    assert [first["score-X"], first["score-O"]] == (score or [0, 0])
    for rec, game, where in zip(played["games"], ours["games"], match["games"]):
        _check_game(rec, {**game, "last_frame": where["last"]}, frames, where["first"])
