"""Scripted sessions of ``boardgym play`` through its input: both games, both seats."""

import io
import re
from pathlib import Path

import pytest

from boardgym.agents.arena.sessions import flip_points
from boardgym.envs import backgammon_match, backgammon_notation, draughts, draughts_pdn
from boardgym.scripts import cli, play

CKPT = Path(__file__).resolve().parents[2] / "agents" / "checkpoints"
BOARD = "a  b  c  d  e  f  g  h"


class Feeder:
    """Answers each prompt from a script of callbacks: cube prompts by ``cube``, move prompts
    with 'moves' and then the legal option ``pick`` chooses from the listed ones."""

    def __init__(self, out, pick=0, cube=None):
        self.out, self.pick, self.cube = out, pick, cube or {}
        self.want_moves = True
        self.prompts = 0

    def readline(self):
        last = self.out.getvalue().rstrip().splitlines()
        prompt = [ln for ln in last if ln.endswith(("?", ":"))][-1]
        for key, answer in self.cube.items():
            if key in prompt:
                self.prompts += 1
                return answer + "\n"
        if self.want_moves:
            self.want_moves = False
            return "moves\n"
        self.want_moves = True
        legal = [ln for ln in last if ln.startswith("legal: ")][-1][len("legal: ") :].split(", ")
        return (legal[self.pick] if isinstance(self.pick, int) else self.pick(legal)) + "\n"


def _run(args, feeder=None, text=None):
    out = io.StringIO()
    stdin = io.StringIO(text) if text is not None else feeder(out)
    end = play.main(args, stdin=stdin, out=out)
    return end, out.getvalue()


# ----------------------------------------------------------------------------- draughts
def test_draughts_session_with_illegal_input_moves_and_undo():
    end, text = _run(
        ["--game", "draughts", "--agent", "greedy", "--seat", "0"],
        text="moves\nc3-d5\nundo\nc3-d4\nundo\nc3-d4\nquit\n",
    )
    assert "legal: a3-b4, c3-b4, c3-d4, e3-d4, e3-f4, g3-f4, g3-h4" in text
    assert "illegal:" in text and "nothing to take back" in text and "taken back" in text
    assert text.count(BOARD) >= 4
    assert not end.over and end.winner is None and end.how == "the game is not finished"


def test_draughts_the_agents_move_is_shown_in_notation():
    end, text = _run(
        ["--game", "draughts", "--agent", "greedy", "--seat", "0"], text="c3-d4\nquit\n"
    )
    (line,) = [ln for ln in text.splitlines() if ln.startswith("greedy (Black) played ")]
    reply = line.split()[-1]
    assert reply in draughts.legal_moves(draughts.apply(draughts.initial_state(), "c3-d4"))
    assert end.record.rstrip().endswith(f"1. c3-d4 {reply} *")


def test_draughts_as_black_whole_game_to_the_end():
    """Seat 1: the agent (White) opens; the person types the first legal move each time."""
    end, text = _run(
        ["--game", "draughts", "--agent", "greedy", "--seat", "1", "--seed", "3"], feeder=Feeder
    )
    assert end.over
    assert re.search(r"^greedy \(White\) played [a-h][1-8]", text, re.M)
    assert "game over: " in text
    assert re.search(r"\((G\.1|G\.2[a-e])\)$", end.how), end.how
    tags, _, moves, result, _ = draughts_pdn.read_pdn(end.record)
    assert tags["White"] == "greedy" and tags["Black"] == "you"
    assert result == {0: "2-0", 1: "0-2", None: "1-1"}[end.winner]
    assert len(moves) >= 2


def test_draughts_from_a_fen_win_says_how():
    end, text = _run(
        ["--game", "draughts", "--agent", "greedy", "--fen", "W:W22:B18"], text="c3:e5\n"
    )
    assert end.winner == 0 and end.how == "Black has no pieces left (G.1)"
    assert "game over: you win (player_0): Black has no pieces left (G.1)" in text
    assert '[FEN "W:Wc3:Bd4"]' in end.record and "1. c3:e5 2-0" in end.record
    # the final board marks the last move and says who won, not whose move it would be
    final = text.split("game over: you win")[0].splitlines()
    assert final[-2:] == ["last move: White c3:e5", "game over: White won"]
    assert final[-8].startswith("5 ") and "(w)" in final[-8]  # the piece on e5, marked


class SafeKing:
    """The person's lone king: follows the game from the reported moves and always plays a
    move after which the agent has no capture."""

    def __init__(self, fen):
        self.state = draughts.from_fen(fen)
        self.seen = 0

    def __call__(self, out):
        feeder = Feeder(out, pick=self.pick)
        self.out = out
        return feeder

    def pick(self, legal):
        replies = re.findall(r"played (\S+)$", self.out.getvalue(), re.M)
        for mv in replies[self.seen :]:
            self.state = draughts.apply(self.state, mv)
        self.seen = len(replies)
        for mv in legal:
            after = draughts.apply(self.state, mv)
            if not any(":" in r for r in draughts.legal_moves(after)):
                self.state = after
                return mv
        raise AssertionError("no safe move")


def test_draughts_draw_rule_named():
    """Lone kings that never give a capture away: a draw (G.2c after 15 moves of each side, or
    G.2a if the same position comes up a third time first), named with its rule."""
    end, text = _run(
        ["--game", "draughts", "--agent", "greedy", "--fen", "W:WK32:BK1", "--seed", "1"],
        feeder=SafeKing("W:WK32:BK1"),
    )
    assert end.over and end.winner is None
    assert end.how.endswith(("(G.2a)", "(G.2c)")), end.how
    assert f"game over: {end.how}" in text
    assert draughts_pdn.read_pdn(end.record)[3] == "1-1"


def test_draughts_save_command_and_save_flag(tmp_path):
    final = tmp_path / "final.pdn"
    mid = tmp_path / "mid.pdn"
    end, text = _run(
        ["--game", "draughts", "--agent", "greedy", "--save", str(final)],
        text=f"c3-d4\nsave {mid}\nsave\nquit\n",
    )
    assert f"saved the game to {mid}" in text and text.count(f"saved the game to {final}") == 2
    tags, fen, moves, result, _ = draughts_pdn.read_pdn(mid.read_text())
    assert moves[0] == "c3-d4" and len(moves) == 2 and result == "*"
    assert final.read_text() == end.record


# ----------------------------------------------------------------------------- backgammon
@pytest.mark.parametrize("seat", [0, 1])
def test_backgammon_whole_game_from_stdin_either_seat(seat, tmp_path):
    """The person types the first legal play listed; the game reaches its end, the agent's
    rolls and plays are reported, the record replays."""
    path = tmp_path / "game.mat"
    end, text = _run(
        [
            "--game",
            "backgammon",
            "--agent",
            "backgammon-greedy",
            "--seat",
            str(seat),
            "--seed",
            "2",
            "--save",
            str(path),
        ],
        feeder=Feeder,
    )
    assert end.over and end.winner in (0, 1)
    assert sorted(abs(v) for v in end.rewards.values())[0] >= 1
    plays = re.findall(
        r"^backgammon-greedy rolled ([1-6])-([1-6]) and played (.*) \((.*) in your "
        r"numbering\)$",
        text,
        re.M,
    )
    assert plays
    for _, _, own, yours in plays:  # the same play, each point p seen as 25 - p
        assert flip_points(own) == yours
    assert re.search(r"^you rolled [1-6]-[1-6]: your play \(your numbering\):$", text, re.M)
    kind = re.escape(end.how)
    assert re.search(
        rf"game over: (you win|backgammon-greedy wins) \(player_{end.winner}\): "
        rf"{kind}",
        text,
    )
    assert re.fullmatch(r"a (single game|gammon|backgammon) \(O\.3\): [123] points?", end.how)
    turns, state = backgammon_match.read_match_text(path.read_text())
    assert len(turns) >= 10 and path.read_text() == end.record


def test_backgammon_agent_play_text_is_legal_from_its_position():
    """The reported play is the play text of the agent's afterstate (gnubg style)."""
    end, text = _run(
        ["--game", "backgammon", "--agent", "backgammon-td", "--seat", "0", "--dice", "3-1"],
        text="8/5 6/5\nquit\n",
    )
    (line,) = re.findall(r"^backgammon-td rolled .*$", text, re.M)
    d1, d2, own = re.match(
        r"backgammon-td rolled ([1-6])-([1-6]) and played (\S.*?) \(", line
    ).groups()
    s = backgammon_notation.parse_play(backgammon_notation.initial_state(), 3, 1, "8/5 6/5")
    from boardgym.kernels.backgammon import game

    s = game.pass_turn(s)
    assert backgammon_notation.play_to_str(s, int(d1), int(d2), own) == own
    assert "1) 31: 8/5 6/5" in end.record.replace("  ", " ")


@pytest.mark.parametrize("dice", [["3-1"], ["3", "1"], ["31"]])
def test_play_takes_the_dice_in_every_form_show_takes(dice):
    _, text = _run(["--game", "backgammon", "--dice", *dice], text="quit\n")
    assert "you rolled 3-1" in text


RACE = "23YHAIC27QAAAA"  # on roll: 1, 2, 2, 2, 2, 3 on its points 1-6; the other 2, 2, 2, 2, 3, 3


def test_backgammon_from_a_position_id_with_dice():
    end, text = _run(
        [
            "--game",
            "backgammon",
            "--agent",
            "backgammon-greedy",
            "--position-id",
            "4HPwATDgc/ABMA",
            "--dice",
            "6-5",
        ],
        text="moves\nquit\n",
    )
    assert "you rolled 6-5: your play (your numbering):" in text
    assert "legal: " in text and "24/13" in text
    end, text = _run(
        [
            "--game",
            "backgammon",
            "--agent",
            "backgammon-greedy",
            "--position-id",
            RACE,
            "--dice",
            "6-5",
        ],
        text="6/off 5/off\nquit\n",
    )
    assert "backgammon-greedy rolled" in text
    assert end.record is None  # a match file has no set-up position


def test_backgammon_cube_double_take_and_record():
    """--cube: the person doubles at the first chance and takes every double; the record holds
    the cube actions; the TD agent answers by its equity."""
    end, text = _run(
        [
            "--game",
            "backgammon",
            "--agent",
            "backgammon-td",
            "--seat",
            "0",
            "--cube",
            "--dice",
            "3-1",
            "--seed",
            "5",
        ],
        feeder=lambda out: Feeder(
            out, cube={"'roll' or 'double'": "double", "'take' or 'drop'": "take"}
        ),
    )
    assert end.over
    assert "Doubles => 2" in end.record
    assert re.search(r"^backgammon-td (takes|drops)$", text, re.M)
    if end.how.startswith("backgammon-td dropped") or "you dropped" in end.how:
        assert "(C.2)" in end.how
    else:
        assert "cube at" in end.how


def test_backgammon_cube_agent_doubles_and_person_drops():
    """A race the agent has all but won: it doubles; the person drops; 1 point to the agent."""
    state = backgammon_notation.state_from_board(
        [[2, 2, 2, 2, 3, 3] + [0] * 19, [1, 2, 2, 2, 2, 3] + [0] * 19]
    )
    pid = backgammon_notation.position_id(state)
    assert pid == RACE
    end, text = _run(
        [
            "--game",
            "backgammon",
            "--agent",
            "backgammon-td",
            "--seat",
            "1",
            "--cube",
            "--position-id",
            pid,
        ],
        text="drop\n",
    )
    assert "backgammon-td doubles to 2: 'take' or 'drop'?" in text
    assert end.winner == 0 and end.how == "you dropped the double (C.2): 1 point"
    assert end.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_cube_words_are_checked():
    end, text = _run(
        ["--game", "backgammon", "--agent", "backgammon-greedy", "--dice", "3-1"],
        text="double\nquit\n",
    )
    assert "illegal: no cube decision now" in text  # without --cube, or once the dice are out


def test_board_is_drawn_from_the_persons_seat():
    """Either game: the board is drawn from the person's side (backgammon: numbered for them)."""
    end, text = _run(
        ["--game", "backgammon", "--agent", "backgammon-greedy", "--seat", "1", "--seed", "2"],
        text="quit\n",
    )
    assert "points numbered for player_1" in text and "points numbered for player_0" not in text
    end, text = _run(
        ["--game", "backgammon", "--agent", "backgammon-greedy", "--seat", "0", "--seed", "2"],
        text="quit\n",
    )
    assert "points numbered for player_0" in text
    from boardgym.envs import draughts_render
    from boardgym.kernels.draughts.game import initial_state

    end, text = _run(["--game", "draughts", "--agent", "greedy", "--seat", "1"], text="quit\n")
    assert draughts_render.render_text(initial_state(), perspective=1).splitlines()[0] in text


# ----------------------------------------------------------------------------- agents
def test_checkpoint_paths_load_the_matching_agent():
    """--agent PATH: .npz is a learned evaluation for draughts and a TD net for backgammon;
    .pt/.zip a PPO policy."""
    from boardgym.agents.backgammon.agents import TDAgent
    from boardgym.agents.draughts.agents import AlphaBetaAgent

    cfg = play.Settings(game="draughts", agent=str(CKPT / "draughts-alphabeta.npz"))
    assert isinstance(play.load_agent(cfg), AlphaBetaAgent)
    cfg = play.Settings(game="backgammon", agent=str(CKPT / "backgammon-td.npz"))
    assert isinstance(play.load_agent(cfg), TDAgent)
    end, text = _run(
        ["--game", "draughts", "--agent", str(CKPT / "draughts-ppo.pt"), "--seat", "0"],
        text="c3-d4\nquit\n",
    )
    assert text.count(BOARD) >= 2 and "draughts-ppo.pt (Black) played " in text


@pytest.mark.parametrize(
    "game, agent, needle",
    [
        ("backgammon", "draughts-greedy", "is a draughts agent, not a backgammon one"),
        ("draughts", "backgammon-td", "is a backgammon agent, not a draughts one"),
        ("draughts", "expectimax", "is a backgammon agent, not a draughts one"),
        (
            "backgammon",
            str(CKPT / "draughts-alphabeta.npz"),
            "is a draughts checkpoint, not a backgammon agent (play it in a draughts game)",
        ),
        (
            "draughts",
            str(CKPT / "backgammon-td.npz"),
            "is a backgammon checkpoint, not a draughts agent (play it in a backgammon game)",
        ),
        (
            "backgammon",
            str(CKPT / "draughts-ppo.pt"),
            "is a draughts policy (observation (198,), 1024 actions), not a backgammon one",
        ),
        ("draughts", "nonsense", "unknown draughts agent 'nonsense'"),
    ],
)
def test_an_agent_of_the_other_game_is_refused(game, agent, needle):
    with pytest.raises(ValueError, match=re.escape(needle)):
        play.main(["--game", game, "--agent", agent], stdin=io.StringIO(""), out=io.StringIO())


def test_agent_options_reach_the_agent():
    cfg = cli.parse(
        play.Settings,
        [
            "--agent",
            "draughts-alphabeta-material",
            "--depth",
            "3",
            "--time-limit",
            "0.5",
            "--agent-option",
            "tt_bits=12",
            "use_tt=false",
        ],
    )
    agent = play.load_agent(cfg)
    assert (agent.depth, agent.time_limit, agent.tt_bits, agent.use_tt) == (3, 0.5, 12, False)
    cfg = cli.parse(
        play.Settings, ["--game", "backgammon", "--agent", "expectimax", "--depth", "1"]
    )
    assert play.load_agent(cfg).depth == 1
    with pytest.raises(ValueError, match="agent greedy takes no option 'depth'"):
        play.load_agent(cli.parse(play.Settings, ["--agent", "greedy", "--depth", "2"]))
    end, text = _run(["--agent", "draughts-alphabeta", "--depth", "2"], text="c3-d4\nquit\n")
    assert "draughts-alphabeta (Black) played " in text


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--seat", "2"], "--seat"),
        (["--fen", "W:W99"], "--fen"),
        (["--game", "backgammon", "--fen", "W:W21:B1"], "--fen"),
        (["--position-id", "4HPwATDgc/ABMA"], "--position-id"),
        (["--game", "backgammon", "--position-id", "nonsense"], "--position-id"),
        (["--game", "backgammon", "--dice", "7-1"], "--dice"),
        (["--game", "backgammon", "--dice", "3", "7"], "--dice"),
        (["--game", "backgammon", "--position-id", RACE, "--save", "x.mat"], "--save"),
        (["--depth", "0"], "--depth"),
        (["--save", "/no/such/dir/game.pdn"], "--save"),
        (["--time-limit", "-1"], "--time-limit"),
        (["--agent-option", "depth"], "--agent-option"),
    ],
)
def test_bad_arguments_name_the_flag(args, needle):
    with pytest.raises(cli.UsageError, match=re.escape(needle)):
        cli.parse(play.Settings, args)


@pytest.mark.parametrize("seat, seed", [(1, 3), (0, 5)])
def test_backgammon_saved_after_undo_reads_back_at_the_roll_in_progress(tmp_path, seat, seed):
    """Double (taken), play, undo, save: the file holds the roll being played as its dice
    alone (as gnubg writes it); it reads back, and ``show`` draws the position at the prompt."""
    from session_feeders import UndoSaveFeeder

    from boardgym.scripts import show

    path = tmp_path / "g1.mat"
    out = io.StringIO()
    feeder = UndoSaveFeeder(out, path)
    args = ["--game", "backgammon", "--agent", "backgammon-greedy", "--cube"]
    end = play.main([*args, "--seat", str(seat), "--seed", str(seed)], stdin=feeder, out=out)
    text = out.getvalue()
    assert "taken back" in text and f"saved the game to {path}" in text and not end.over
    d1, d2 = re.fullmatch(r"you rolled ([1-6])-([1-6]): .*", feeder.last_prompt).groups()
    record = path.read_text()
    assert "Doubles => 2" in record and "Takes" in record
    assert record.rstrip().endswith(f"{max(d1, d2)}{min(d1, d2)}:")
    turns, state = backgammon_match.read_match_text(record)
    assert turns[-1] == {"player": seat, "dice": (int(max(d1, d2)), int(min(d1, d2))), "moves": []}
    board = show.main([str(path)])
    assert f"player_{seat} ({'XO'[seat]}) to play {max(d1, d2)}-{min(d1, d2)}" in board.text()
    shown = re.findall(r"Position ID (\S+)", text)[-1]  # the board at the saved prompt
    assert board.position_id == shown == backgammon_notation.position_id(state)


def test_a_failed_save_leaves_the_old_file_whole(tmp_path, monkeypatch):
    """The record is written to a temporary file and renamed: a write that fails midway leaves
    the file as it was."""
    from boardgym.agents import files

    path = tmp_path / "game.mat"
    path.write_text("the old record\n")

    def broken(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "replace", broken)
    end, text = _run(
        ["--game", "backgammon", "--agent", "backgammon-greedy", "--dice", "3-1"],
        text=f"8/5 6/5\nsave {path}\nquit\n",
    )
    assert "cannot save: disk full" in text
    assert path.read_text() == "the old record\n"


# ----------------------------------------------------------------------------- the archive
def test_the_game_is_kept_in_the_archive_as_it_goes(tmp_path):
    from boardgym.agents.arena.archive import Archive

    db = tmp_path / "games.sqlite"
    out = io.StringIO()

    class Watcher(Feeder):
        """Checks the archive before each move: the game so far is in it."""

        seen = []

        def readline(self):
            with Archive(db) as store:
                (row,) = store.list()
                self.seen.append(row["n_actions"])
            return super().readline()

    end = play.main(
        ["--game", "backgammon", "--agent", "greedy", "--db", str(db), "--seed", "4"],
        stdin=Watcher(out),
        out=out,
    )
    assert end.over
    with Archive(db) as store:
        (row,) = store.list()
        game = store.get(row["uid"])
    assert game["source"] == "play" and (game["player_0"], game["player_1"]) == ("you", "greedy")
    assert game["record"] == end.record and game["over"] and game["result"] != "unfinished"
    assert game["settings"]["seed"] == 4 and game["settings"]["agent"] == "greedy"
    assert Watcher.seen[-1] > 10 and Watcher.seen == sorted(Watcher.seen)
    assert "note:" not in out.getvalue()


def test_no_archive_and_a_broken_archive(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 64)
    end, text = _run(["--game", "draughts", "--db", str(junk)], text="c3-d4\nquit\n")
    assert "note: " in text and "is not a boardgym game archive" in text
    assert "the game is not kept" in text and "played" in text  # the game went on
    db = tmp_path / "none.sqlite"
    _run(["--game", "draughts", "--db", str(db), "--no-archive"], text="quit\n")
    assert not db.exists()


def test_an_illegal_move_is_answered_once_saying_capture_is_compulsory():
    _, text = _run(["--fen", "W:W21:B17", "--agent", "random"], text="b6-c5\nc3-d5\nquit\n")
    assert (
        "illegal: illegal move 'b6-c5'; capturing is compulsory (25.1); legal moves: a3:c5\n"
        in (text)
    )
    assert text.count("a3:c5") == 2  # once per illegal input: the two replies
    assert "bad move 'c3-d5'" in text and "\nlegal: a3:c5" in text
