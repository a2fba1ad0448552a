"""``boardgym play --game backgammon --match N``: a whole match against the agent through its input:
score lines, the Crawford game, the Match ID at every turn, undo within a game, the saved match
file (read back, shown at any game and ply), the agent told the score, bad --match values."""

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from session_feeders import MatchFeeder

from boardgym.agents.backgammon.agents import GreedyAgent
from boardgym.envs import backgammon_ids, backgammon_match, records
from boardgym.scripts import cli, play, show

GREEDY = ["--game", "backgammon", "--agent", "backgammon-greedy"]
GAME_OVER = re.compile(
    r"^game (\d+) over: (you win|backgammon-greedy wins) \(player_([01])\): (.*?): (\d+) points?"
    r"(?:, (\d+) counted \(all that was needed, MP\.2\))?; match to (\d+), score (\d+)-(\d+)"
    r"(; game \d+ is the Crawford game \(no doubling, MP\.5\)"
    r"|; backgammon-greedy wins the match|; you win the match)?$",
    re.M,
)


def _session(args, feeder):
    out = io.StringIO()
    end = play.main(args, stdin=feeder(out), out=out)
    return end, out.getvalue()


def _match_ids(text):
    """(Match ID, game, score from the person's side) of every board shown."""
    return [
        (mid, int(game), (int(a), int(b)))
        for mid, game, a, b in re.findall(
            r"^ Match ID (\S+); game (\d+): you (\d+), backgammon-greedy (\d+)", text, re.M
        )
    ]


def test_a_match_to_3_scores_each_game_plays_the_crawford_game_and_saves_the_match(tmp_path):
    """Seat 0, seed 0: the agent wins game 1 with a gammon (0-2), game 2 is the Crawford game
    (no cube prompt in it, the board says Crawford), the agent wins it and the match; the file
    written by --save is the match: its games, scores, winners, points and Crawford flags."""
    path = tmp_path / "m.mat"
    end, text = _session([*GREEDY, "--match", "3", "--seed", "0", "--save", str(path)], MatchFeeder)
    assert text.startswith("backgammon match to 3: you are player_0, backgammon-greedy is ")
    overs = GAME_OVER.findall(text)
    # and the 'match over' line, under the final board whose header says who won the match
    assert len(overs) == text.count(" over: ") - 2 == 2
    assert " match over: player_1 (O) won the match to 3, 0-3\n" in text
    (g1, who1, w1, how1, pts1, _, n1, a1, b1, tail1), (g2, *_, a2, b2, tail2) = overs
    assert (g1, who1, w1, n1) == ("1", "backgammon-greedy wins", "1", "3")
    assert "gammon" in how1 and (a1, b1) == ("0", pts1) == ("0", "2")
    assert tail1 == "; game 2 is the Crawford game (no doubling, MP.5)"
    assert g2 == "2" and (a2, b2) == ("0", "3") and tail2.endswith("wins the match")
    assert (
        "match over: backgammon-greedy wins (player_1): the match to 3, 0-3 after 2 games" in text
    )
    assert end.over and end.winner == 1 and end.rewards == {"player_0": -1.0, "player_1": 1.0}
    # the board of every turn: the env's score line and the Match ID with the same score
    shown = _match_ids(text)
    assert {g for _, g, _ in shown} == {1, 2}
    for mid, game, score in shown:
        m = backgammon_ids.parse_match_id(mid)
        assert m["match_length"] == 3 and tuple(m["score"]) == score
        assert m["crawford"] == (game == 2) and score == ((0, 0) if game == 1 else (0, 2))
    game2 = text[text.index("game 1 over:") : text.index("game 2 over:")]
    assert "match to 3, score 0-2 (Crawford)" in game2 and "the Crawford game: no doubling" in game2
    assert "'roll' or 'double'" not in game2  # MP.5
    assert "'roll' or 'double'" in text[: text.index("game 1 over:")]
    # the saved match
    assert f"saved the match to {path}" in text and path.read_text() == end.record
    got = backgammon_match.read_match(path.read_text())
    assert got["match_length"] == 3 and got["names"] == ["you", "backgammon-greedy"]
    assert [(g["score"], g["winner"], g["points"], g["crawford"]) for g in got["games"]] == [
        ([0, 0], 1, 2, False),
        ([0, 2], 1, 1, True),
    ]
    # show of game 2, ply 3: the position replayed there, with the score and the Crawford marker
    board = show.main([str(path), "--game", "2", "--ply", "3"])
    _, frames, _ = records.record_frames(path.read_text())
    state, dice = records.position_at(frames, 3, game=2)
    assert board.position_id == backgammon_ids.position_id(state)
    assert "match to 3, score 0-2 (Crawford)" in board.text()
    assert f"to play {dice[0]}-{dice[1]}" in board.text()


def test_a_match_to_5_with_the_cube_crawford_and_post_crawford_games():
    """Seat 1 (playing the greedy agent's plays) doubling at the first chance of each game: the
    greedy agent takes, each game is worth twice its kind but in the Crawford game (no cube
    prompt); each game's line adds up to the next one's score (MP.2 caps the last), the
    post-Crawford games have the cube again (MP.6); the person wins 5-3 in 5 games."""
    end, text = _session(
        [*GREEDY, "--match", "5", "--seed", "4", "--seat", "1"],
        lambda out: MatchFeeder(out, double=True, greedy=True),
    )
    overs = GAME_OVER.findall(text)
    assert len(overs) == 5 and end.over and end.winner == 1
    assert end.how == "the match to 5, 3-5 after 5 games"
    assert "match over: you win (player_1): the match to 5, 3-5 after 5 games" in text
    score, crawford = [0, 0], None
    for number, who, winner, how, pts, counted, n, a, b, tail in overs:
        game = int(number)
        assert n == "5" and (who == "you win") == (winner == "1")
        assert ("cube at 2" in how) == (game != crawford), game  # the agent takes every double
        score[int(winner)] += int(counted or pts)
        assert [int(a), int(b)] == score, game
        if tail.startswith("; game"):
            crawford = game + 1
    assert crawford is not None and max(score) == 5 and tail == "; you win the match"
    games = re.split(r"^game \d+ over: .*$", text, flags=re.M)  # games[k - 1]: game k
    assert "'roll' or 'double'" not in games[crawford - 1]  # MP.5
    assert "post-Crawford, MP.6" in games[crawford] and "'roll' or 'double'" in games[crawford]
    for mid, game, (mine, theirs) in _match_ids(text):
        m = backgammon_ids.parse_match_id(mid)
        assert (m["score"][1], m["score"][0]) == (mine, theirs)  # the person is player_1
        assert m["crawford"] == (game == crawford)
    got = backgammon_match.read_match(end.record)
    assert [g["crawford"] for g in got["games"]] == [k + 1 == crawford for k in range(5)]
    assert got["games"][-1]["score"] == [3, int(overs[-2][-2])]


def test_save_in_the_second_game_after_undo_reads_back_and_shows_the_prompt(tmp_path):
    """In game 2: play, undo, save, quit. The file holds game 1 finished and game 2 up to the
    roll in progress (its dice alone); show of its last game draws the board of that prompt."""
    path = tmp_path / "half.mat"
    feeder = None

    def make(out):
        nonlocal feeder
        feeder = MatchFeeder(out, path=path, save_game=2, plays=2)
        return feeder

    end, text = _session([*GREEDY, "--match", "3", "--seed", "0"], make)
    assert "taken back" in text and f"saved the match to {path}" in text and not end.over
    assert end.winner is None and end.how == "the match to 3 is not finished (score 0-2)"
    got = backgammon_match.read_match(path.read_text())
    g1, g2 = got["games"]
    assert (g1["winner"], g1["points"], g2["score"], g2["winner"], g2["crawford"]) == (
        1,
        2,
        [0, 2],
        None,
        True,
    )
    assert g2["turns"][-1]["moves"] == [] and g2["turns"][-1]["player"] == 0
    position = re.findall(r"Position ID (\S+)", feeder.shown)[-1]
    mid = re.findall(r"Match ID (\S+);", feeder.shown)[-1]
    board = show.main([str(path), "--game", "2"])
    assert board.position_id == position
    d1, d2 = backgammon_ids.parse_match_id(mid)["dice"]
    assert f"player_0 (X) to play {max(d1, d2)}-{min(d1, d2)}" in board.text()


def test_undo_stays_within_the_game_in_play():
    """In game 1, undo after the second play takes it back (the board with the Match ID of that
    prompt is shown again); at the first prompt of game 2 there is nothing to take back."""

    class UndoFeeder(MatchFeeder):
        undone = tried = False
        at_play = None

        def readline(self):
            lines = self.out.getvalue().rstrip().splitlines()
            game = self._game(lines)
            if game == 2 and not self.tried:
                self.tried = True
                return "undo\n"
            if game == 1 and self.moves_in.get(1) == 2 and not self.undone:
                self.undone = True
                return "undo\n"
            plays = self.moves_in.get(1)
            line = super().readline()
            if self.moves_in.get(1) == 2 != plays:
                self.at_play = _match_ids(self.out.getvalue())[-1]
            return line

    feeder = None

    def make(out):
        nonlocal feeder
        feeder = UndoFeeder(out)
        return feeder

    end, text = _session([*GREEDY, "--match", "3", "--seed", "0"], make)
    assert text.count("taken back") == 1 and text.count("nothing to take back in this game") == 1
    assert text.index("game 1 over") < text.index("nothing to take back in this game")
    after = text[text.index("taken back") :]
    assert _match_ids(after)[0] == feeder.at_play
    assert end.over and end.how == "the match to 3, 0-3 after 2 games"  # the match went on


def test_the_agent_is_told_the_score_from_its_seat(monkeypatch):
    told = []

    class Told(GreedyAgent):
        def set_match(self, length, score_me, score_opp, crawford, post_crawford):
            told.append((length, score_me, score_opp, crawford, post_crawford))

    monkeypatch.setattr(play, "load_agent", lambda cfg: Told())
    end, text = _session([*GREEDY, "--match", "3", "--seed", "0", "--seat", "0"], MatchFeeder)
    assert end.winner == 1  # as in the match above: 0-2 after game 1, then the Crawford game
    assert told == [(3, 0, 0, False, False), (3, 2, 0, True, False)]


def test_the_agent_doubles_the_person_drops_then_takes(tmp_path, monkeypatch):
    """An agent that doubles whenever it may: the person saves at the first take-or-drop
    prompt (the file ends with the double), drops (the game is the agent's at the cube's value
    before the double, C.2), takes every later double: 0-1, 2-1, the Crawford game without a
    double (2-2), the post-Crawford game doubled again, the person wins."""
    from boardgym.kernels.backgammon import game as core

    class Doubler(GreedyAgent):
        def cube_action(self, state, offered, policy=None):
            return core.ACTION_TAKE if offered else core.ACTION_DOUBLE

    monkeypatch.setattr(play, "load_agent", lambda cfg: Doubler())
    path = tmp_path / "offered.mat"

    class Answer(MatchFeeder):
        answered = 0

        def readline(self):
            if self.script:
                return self.script.pop(0)
            prompt = [ln for ln in self.out.getvalue().splitlines() if ln.endswith("?")][-1:]
            if prompt and "'take' or 'drop'" in prompt[0] and self.out.getvalue().endswith("?\n"):
                self.answered += 1
                if self.answered == 1:
                    self.script = ["drop\n"]
                    return f"save {path}\n"
            return super().readline()

    end, text = _session([*GREEDY, "--match", "3", "--seed", "2"], lambda o: Answer(o, greedy=True))
    assert "backgammon-greedy doubles to 2" in text
    first = GAME_OVER.search(text)
    assert first.group(4) == "you dropped the double (C.2)" and first.group(5) == "1"
    saved = backgammon_match.read_match(path.read_text())
    assert len(saved["games"]) == 1 and saved["games"][0]["turns"][-1]["cube"] == "double"
    got = backgammon_match.read_match(end.record)
    assert got["games"][0]["turns"][-1] == {"player": 0, "cube": "drop"}
    assert got["games"][0]["points"] == 1 and got["games"][0]["winner"] == 1
    takes = [t for g in got["games"][1:] for t in g["turns"] if t.get("cube") == "take"]
    assert takes and all(t["player"] == 0 for t in takes)
    assert [(g["score"], g["winner"], g["points"], g["crawford"]) for g in got["games"]] == [
        ([0, 0], 1, 1, False),
        ([0, 1], 0, 2, False),
        ([2, 1], 1, 1, True),
        ([2, 2], 0, 2, False),
    ]
    assert not any(t.get("cube") for t in got["games"][2]["turns"])  # MP.5
    assert {"player": 1, "cube": "double", "value": 2} in got["games"][3]["turns"]  # MP.6


def test_a_match_from_a_score_with_the_crawford_game_is_played_told_and_saved(
    tmp_path, monkeypatch
):
    """--score 1 2 --crawford in a match to 3: the first game is the Crawford game (no cube
    prompt, the board and Match ID at 1-2, Crawford), the agent is told so, and the saved match
    starts from 1-2 and reads back with that game as the Crawford game."""
    told = []

    class Told(GreedyAgent):
        def set_match(self, length, score_me, score_opp, crawford, post_crawford):
            told.append((length, score_me, score_opp, crawford, post_crawford))

    monkeypatch.setattr(play, "load_agent", lambda cfg: Told())
    path = tmp_path / "from.mat"
    args = [*GREEDY, "--match", "3", "--score", "1", "2", "--crawford", "--seed", "3"]
    end, text = _session([*args, "--save", str(path)], MatchFeeder)
    assert text.startswith("backgammon match to 3 from 1-2 (Crawford game): you are player_0")
    first = text[: text.index("game 1 over:")]
    assert "match to 3, score 1-2 (Crawford)" in first and "'roll' or 'double'" not in first
    shown = _match_ids(text)
    assert shown and all(g != 1 or s == (1, 2) for _, g, s in shown)
    m = backgammon_ids.parse_match_id(shown[0][0])
    assert tuple(m["score"]) == (1, 2) and m["crawford"] and m["match_length"] == 3
    assert told[0] == (3, 2, 1, True, False)  # the agent is player_1: its score first
    assert end.over
    got = backgammon_match.read_match(path.read_text())
    assert got["games"][0]["score"] == [1, 2] and got["games"][0]["crawford"]
    assert all(not g["crawford"] for g in got["games"][1:])


def test_a_match_from_a_score_without_crawford_is_played_from_it():
    end, text = _session(
        [*GREEDY, "--match", "7", "--score", "4", "5", "--seed", "1"],
        lambda out: io.StringIO("quit\n"),
    )
    assert text.startswith("backgammon match to 7 from 4-5: you are player_0")
    (mid, game, score), *_ = _match_ids(text)
    assert (
        game == 1
        and score == (4, 5)
        and tuple(backgammon_ids.parse_match_id(mid)["score"]) == (4, 5)
    )
    assert "score 4-5\n" in text and "(Crawford)" not in text  # not the Crawford game


def test_a_money_policy_is_refused_in_a_match(capsys):
    ppo = Path(__file__).resolve().parents[2] / "agents" / "checkpoints"
    args = ["--game", "backgammon", "--agent", f"{ppo}/backgammon-ppo.pt", "--match", "3"]
    assert cli.run(play.main, args, prog="boardgym play") == 2
    err = capsys.readouterr().err
    assert "backgammon match play has (212,)" in err and "not a backgammon match play policy" in err


def test_match_zero_is_one_money_game():
    end, text = _session([*GREEDY, "--match", "0"], lambda out: io.StringIO("quit\n"))
    assert text.startswith("backgammon: you are player_0") and "Match ID" not in text


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--match", "65"], "--match must be 1..64 points (0: one money game), got 65"),
        (["--match", "-1"], "--match must be 1..64 points (0: one money game), got -1"),
        (["--match", "x"], "--match"),
        (["--game", "draughts", "--match", "3"], "--match is for --game backgammon"),
        (["--position-id", "4HPwATDgc/ABMA", "--match", "3"], "leave out --position-id"),
        (["--score", "1", "2"], "--score and --crawford start a match from a score: give --match"),
        (["--crawford"], "--score and --crawford start a match from a score: give --match"),
        (["--match", "7", "--score", "4"], "--score takes two numbers, player_0's score then"),
        (["--match", "7", "--score", "1", "2", "3"], "--score takes two numbers"),
        (["--match", "7", "--score", "7", "2"], "--score/--crawford: player_0's score 7 must be"),
        (["--match", "7", "--score", "-1", "2"], "--score/--crawford: player_0's score -1 must"),
        (["--match", "7", "--score", "a", "2"], "--score"),
        (
            ["--match", "7", "--score", "6", "3"],
            "--score/--crawford: at 6-3 in a match to 7 without the Crawford game the match is "
            "post-Crawford (MP.7), which a match file cannot record",
        ),
        (
            ["--match", "7", "--score", "4", "5", "--crawford"],
            "--score/--crawford: a Crawford game needs exactly one score at 6 (match to 7)",
        ),
        (["--match", "7", "--crawford"], "--score/--crawford: a Crawford game needs exactly one"),
        (["--match", "7", "--score", "6", "6", "--crawford"], "a Crawford game needs exactly one"),
    ],
)
def test_bad_match_values_are_one_line_and_exit_2(args, needle, capsys):
    base = [] if "--game" in args else ["--game", "backgammon"]
    assert cli.run(play.main, [*base, *args], prog="boardgym play") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("boardgym play: error:") and needle in err[0], err


def test_the_command_reads_a_match_from_a_pipe(tmp_path):
    """The installed command: input piped in, the board with the score and Match ID, a save of
    the match so far."""
    path = tmp_path / "p.mat"
    run = subprocess.run(
        [sys.executable, "-m", "boardgym.scripts.cli", "play", *GREEDY, "--match", "7"],
        input=f"moves\nsave {path}\nquit\n",
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert "match to 7, score 0-0" in run.stdout and " Match ID " in run.stdout
    assert backgammon_match.read_match(path.read_text())["match_length"] == 7
