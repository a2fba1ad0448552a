"""envs/backgammon_match.py: games and matches played here written as match text and read back
(cube actions, resignations, a roll not yet played), and every impossible line named."""

import re

import bg_matches
import numpy as np
import pytest

from boardgym.envs import backgammon_ids, backgammon_match, backgammon_v0, records
from boardgym.kernels.backgammon import game as core
from boardgym.kernels.backgammon.board import CUBE_VALUE

NAMES = ("alice", "bob")


def _turns(turns):
    """Turn records as the reader gives them back (dice high first, moves as tuples)."""
    out = []
    for t in turns:
        if t.get("cube"):
            out.append(dict(t))
        else:
            out.append(
                {
                    "player": t["player"],
                    "dice": (max(t["dice"]), min(t["dice"])),
                    "moves": [tuple(m) for m in t["moves"]],
                }
            )
    return out


GR, GG = ("greedy", "random"), ("greedy", "greedy")
MATCHES = {  # (match length, seed): (checker players, resignation rate per action)
    (1, 1): (GR, 0.01),
    (3, 21): (GG, 0.0),
    (5, 13): (GG, 0.0),
    (5, 17): (GG, 0.0),
    (7, 4): (GR, 0.0),
    (7, 19): (GG, 0.0),
    (9, 5): (GR, 0.01),
    (11, 9): (GR, 0.01),
    (25, 11): (GR, 0.01),
}


@pytest.fixture(scope="module")
def played():
    """{(match length, seed): game records} of matches played here (bg_matches)."""
    return {
        key: bg_matches.play_match(
            key[0], key[1], double_rate=0.03, take_rate=0.6, players=players, resign_rate=rate
        )
        for key, (players, rate) in MATCHES.items()
    }


@pytest.mark.parametrize("length, seed", list(MATCHES))
def test_matches_played_here_round_trip(played, length, seed):
    games = played[length, seed]
    text = backgammon_match.match_to_text(games, length, NAMES)
    assert text.startswith(f" {length} point match\n\n Game 1\n alice : 0 ")
    assert text.count(" Game ") == len(games)
    got = backgammon_match.read_match(text)
    assert got["match_length"] == length and got["names"] == list(NAMES)
    assert len(got["games"]) == len(games)
    for k, (mine, back) in enumerate(zip(games, got["games"])):
        assert back["number"] == k + 1
        assert back["turns"] == _turns(mine["turns"])
        assert (back["score"], back["winner"], back["points"]) == (
            mine["score"],
            mine["winner"],
            mine["points"],
        )
        # the score line of every game, the Wins line of every game
        assert f" Game {k + 1}\n alice : {mine['score'][0]} " in text
    last = games[-1]
    assert min(length, last["score"][last["winner"]] + last["points"]) == length
    assert text.rstrip().endswith(f"Wins {backgammon_match._plural(last['points'])} and the match")
    assert text.count("and the match") == 1
    assert backgammon_match.match_to_text(got["games"], length, got["names"]) == text
    frames, match = backgammon_match.match_frames(text)
    assert [g["score"] for g in match["games"]] == [g["score"] for g in games]
    assert [g["crawford"] for g in match["games"]] == [g["crawford"] for g in got["games"]]
    for g, mine in zip(match["games"], games):
        assert frames[g["first"]]["caption"].endswith("start")
        assert g["score_after"] == [
            min(length, s + (mine["points"] if p == mine["winner"] else 0))
            for p, s in enumerate(mine["score"])
        ]


def test_the_matches_hold_every_cube_action_resignations_and_a_crawford_game(played):
    """The matches above are worth their round trip: doubles, takes, drops, resignations of
    1, 2 and 3 times the cube, Crawford and post-Crawford games."""
    texts = [backgammon_match.match_to_text(g, n, NAMES) for (n, _), g in played.items()]
    everything = "\n".join(texts)
    assert everything.count("Doubles =>") >= 10
    assert everything.count("Takes") >= 5 and everything.count("Drops") >= 5
    resigned, crawford, post = set(), 0, 0
    for text in texts:
        match = backgammon_match.read_match(text)
        frames, games = backgammon_match.match_frames(text)
        n = match["match_length"]
        for g, frame in zip(match["games"], games["games"]):
            crawford += g["crawford"]
            post += n > 1 and not g["crawford"] and n - 1 in g["score"]
            state = frames[frame["last"]]["state"]
            over = core.result(state, core.SCORING_GAMMON)[0] >= 0
            if not over and g["turns"][-1].get("cube") != "drop":
                resigned.add(g["points"] // int(state[CUBE_VALUE]))
    assert resigned == {1, 2, 3}
    assert crawford >= 3 and post >= 2


def test_a_game_record_mid_play_writes_the_roll_in_progress_as_its_dice():
    """The env's record of a game whose roll is being played (one checker of it moved): the
    roll without moves, as gnubg writes it; read back, the position before the roll with those
    dice for the player on roll to play."""
    env = backgammon_v0.raw_env(scoring="gammon", cube=True)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while True:
        last = env.turns[-1]
        if len(env.turns) > 8 and last.get("dice") and not last["moves"]:
            before, agent = env.state.copy(), env.agent_selection
            env.step(int(np.flatnonzero(env.legal_mask())[0]))
            if env.agent_selection == agent and env.turns[-1] is last:
                break  # one checker moved, the play goes on
        else:
            mask = env.legal_mask().copy()
            mask[core.ACTION_DROP] = 0  # every double taken: the game goes on
            env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not env.is_over
    dice = last["dice"]
    assert len(last["moves"]) == 1
    text = env.match_text()
    assert text.rstrip().endswith(f"{max(dice)}{min(dice)}:")
    turns, state = backgammon_match.read_match_text(text)
    assert turns[-1] == {"player": last["player"], "dice": dice, "moves": []}
    assert backgammon_ids.position_id(state) == backgammon_ids.position_id(before)
    assert tuple(core.dice_of(state)) == tuple(core.dice_of(before)) == dice
    _, frames, _ = records.record_frames(text)
    assert frames[-1]["pending"] and frames[-1]["caption"].endswith(", to play")
    shown, shown_dice = records.position_at(frames)
    assert shown_dice == dice
    assert backgammon_ids.position_id(shown) == backgammon_ids.position_id(before)
    assert records.plies(frames) == sum(1 for t in turns[:-1] if "dice" in t)


def _short_match():
    """A 3-point match of short games: bob wins two drops (0-1, 0-2), alice a resignation in the
    Crawford game (no cube; 1-2), bob a gammon resignation with the cube at 2 after a take
    (post-Crawford: 4 points, 1-3)."""
    opening = {"player": 0, "dice": (3, 1), "moves": [(8, 5, False), (6, 5, False)]}
    reply = {"player": 1, "dice": (4, 2), "moves": [(8, 4, False), (6, 4, False)]}
    drop = [opening, {"player": 1, "cube": "double", "value": 2}, {"player": 0, "cube": "drop"}]
    take = [opening, {"player": 1, "cube": "double", "value": 2}, {"player": 0, "cube": "take"}]
    return [
        {"turns": drop, "score": [0, 0], "winner": 1, "points": 1},
        {"turns": drop, "score": [0, 1], "winner": 1, "points": 1},
        {"turns": [opening, reply], "score": [0, 2], "winner": 0, "points": 1},
        {"turns": take + [reply], "score": [1, 2], "winner": 1, "points": 4},
    ]


SHORT = backgammon_match.match_to_text(_short_match(), 3, NAMES)
LINES = SHORT.splitlines()


def _with(number, line):
    """SHORT with its line number (from 1) replaced by line (several lines: '\\n' in it)."""
    assert 1 <= number <= len(LINES)
    return "\n".join(LINES[: number - 1] + [line] + LINES[number:]) + "\n"


def test_the_short_match_reads_back_with_its_crawford_game():
    assert LINES[13 - 1 : 16] == [
        " Game 3",
        " alice : 0                            bob : 2",
        "  1) 31: 8/5 6/5                      42: 8/4 6/4",
        "      Wins 1 point",
    ]
    assert LINES[-1] == "                                      Wins 4 points and the match"
    match = backgammon_match.read_match(SHORT)
    assert [g["crawford"] for g in match["games"]] == [False, False, True, False]
    assert [g["score"] for g in match["games"]] == [[0, 0], [0, 1], [0, 2], [1, 2]]
    frames, m = backgammon_match.match_frames(SHORT)
    assert "(Crawford)" in frames[m["games"][2]["first"]]["caption"]
    assert m["games"][-1]["score_after"] == [1, 3]


@pytest.mark.parametrize(
    "number, line, message",
    [
        (
            9,
            " alice : 0                            bob : 2",
            "line 9: game 2 starts at 0-2, but after game 1 the score is 0-1",
        ),
        (
            9,
            " alice : 0                            bob : 3",
            "line 9: game 2 starts at 0-3, not below the match length 3",
        ),
        (
            16,
            "      Wins 3 points and the match",
            "line 18: game 4 follows the end of the match (alice reached 3 in game 3)",
        ),
        (
            16,
            "",
            "line 18: game 4 follows game 3, which has no result (no 'Wins' and the game "
            "is not over)",
        ),
        (
            16,
            "      Wins 4 points",
            "line 16 (game 3): alice wins 4 points, but a resignation is worth 1 or 2 or 3",
        ),
        (
            6,
            "  2) Drops\n      Wins 1 point",
            "line 7 (game 1): alice wins, but the dropped double gives the game to the other side",
        ),
        (
            6,
            "  2) Drops                            Wins 2 points",
            "line 6 (game 1, move 2): bob wins 2 points, but the dropped double is worth 1",
        ),
        (
            6,
            "  2) Drops                            Wins 1 point and the match",
            "line 6 (game 1, move 2): 'and the match', but bob has 1 of 3 after it",
        ),
        (
            6,
            "  2) Drops                            Wins many points",
            "line 6 (game 1, move 2): cannot read 'Wins many points' (Wins N points, or Wins N "
            "points and the match)",
        ),
        (
            15,
            "  1) 31: 8/5 6/5                      Doubles => 2\n  2) Takes",
            "line 15 (game 3, move 1): bob doubles in the Crawford game (MP.5: no doubling in the "
            "game after a side first reaches 2 of 3)",
        ),
        (
            20,
            "  1) 31: 8/5 6/5                      Doubles => 3",
            "line 20 (game 4, move 1): bob doubles to 3 but the cube is at 1 (expected Doubles => "
            "2)",
        ),
        (
            21,
            "  2)                                  Takes",
            "line 21 (game 4, move 2): bob takes its own double",
        ),
        (
            21,
            "  2) Takes                            42: 8/4 6/4\n"
            "  3) 31: 8/5 6/5                      Doubles => 4",
            "line 22 (game 4, move 3): bob doubles but the cube is the other side's (C.1)",
        ),
        (
            15,
            "  1) 31: 8/5 6/5\n  2) Doubles => 2",
            "line 16 (game 3, move 2): alice doubles, but it is bob's turn",
        ),
        (
            5,
            "  1) 31: 8/5 6/5                      Doubles => 2\n  2) Takes\n  3) Drops",
            "line 7 (game 1, move 3): alice drops but nothing was doubled",
        ),
    ],
)
def test_impossible_score_lines_cube_actions_and_results_name_their_line(number, line, message):
    bad = _with(number, line)
    with pytest.raises(ValueError) as err:
        backgammon_match.read_match(bad)
    assert str(err.value) == message
    with pytest.raises(ValueError) as again:  # the frames' reader says the same
        backgammon_match.match_frames(bad)
    assert str(again.value) == message


GAME = [  # bob opens; alice doubles, bob takes; bob's last roll is not played yet
    {"player": 1, "dice": (5, 4), "moves": [(24, 20, False), (13, 8, False)]},
    {"player": 0, "dice": (4, 1), "moves": [(8, 4, False), (6, 5, True)]},
    {"player": 1, "dice": (4, 1), "moves": [(25, 24, False), (6, 2, False)]},
    {"player": 0, "cube": "double", "value": 2},
    {"player": 1, "cube": "take"},
    {"player": 0, "dice": (5, 3), "moves": [(5, 2, False), (8, 3, False)]},
    {"player": 1, "dice": (5, 3), "moves": []},
]


def test_a_roll_not_yet_played_is_read_and_a_bad_play_names_its_move_and_roll():
    text = backgammon_match.game_to_match_text(GAME, None, names=NAMES)
    lines = text.splitlines()
    assert lines[-1] == "  4) 53: 5/2 8/3                      53:"
    turns, state = backgammon_match.read_match_text(text)
    assert turns == GAME and tuple(core.dice_of(state)) == (5, 3)

    def error(new_last):
        with pytest.raises(ValueError) as err:
            backgammon_match.read_match_text("\n".join(lines[:-1] + new_last) + "\n")
        return str(err.value)

    assert error([lines[-1], "  5) 21: 13/11 6/5"]) == (
        "line 8 (game 1, move 4): bob rolled 5-3 and played nothing: not a complete play (a "
        "play uses as many dice as it can, B.4-B.5)"
    )
    assert error(["  4) 53: 5/2                          53:"]) == (
        "line 8 (game 1, move 4): alice rolled 5-3 and played 5/2: not a complete play (a play "
        "uses as many dice as it can, B.4-B.5)"
    )
    assert error(["  4) 53: 5/2 8/3 6/1                  53:"]) == (
        "line 8 (game 1, move 4): alice rolled 5-3: move 6/1 after the play is complete"
    )
    assert (
        error(["  4) 53: 5/1 8/3"])
        == "line 8 (game 1, move 4): alice rolled 5-3: move 5/1 is not legal"
    )
    assert error(["  4)                                  53: 5/2 8/3"]) == (
        "line 8 (game 1, move 4): bob rolls, but it is alice's turn"
    )
    # the writer never writes what it cannot read back
    partial = GAME[:5] + [{**GAME[5], "moves": GAME[5]["moves"][:1]}] + GAME[6:]
    with pytest.raises(ValueError) as err:
        backgammon_match.game_to_match_text(partial, None, names=NAMES)
    assert str(err.value).startswith(
        "the record does not replay: line 8 (game 1, move 4): alice rolled 5-3 and played 5/2:"
    )


def test_bad_match_records_name_the_game_and_the_field():
    games = _short_match()
    write = backgammon_match.match_to_text
    with pytest.raises(ValueError, match=r"^game 2: the score before it is 0-0, but game 1 left"):
        write([games[0], {**games[1], "score": [0, 0]}] + games[2:], 3, NAMES)
    with pytest.raises(ValueError, match=r"^game 1: score 3-0 is not below the match length 3"):
        write([{**games[0], "score": [3, 0]}], 3, NAMES)
    with pytest.raises(ValueError, match=r"^game 1: only the last game of a match may be unfinish"):
        write([{**games[0], "winner": None, "points": None}] + games[1:], 3, NAMES)
    with pytest.raises(ValueError, match=r"^game 3: it ends the match, yet game 4 follows"):
        write(games[:2] + [{**games[2], "points": 3}] + games[3:], 3, NAMES)
    with pytest.raises(ValueError, match=r"^game 1: winner and points are both given or both"):
        write([{**games[0], "points": None}], 3, NAMES)
    with pytest.raises(ValueError, match=r"^match_length must be 0\.\.64 \(0: money play\)"):
        write(games, -1, NAMES)
    with pytest.raises(TypeError, match=r"^games must be a non-empty list"):
        write([], 3, NAMES)
    with pytest.raises(TypeError, match=r"^game 1: a game record is a dict"):
        write([{"turns": []}], 3, NAMES)
    with pytest.raises(ValueError, match=r"^game 1: turn 0: a record is a dict with player"):
        write([{**games[0], "turns": [{"player": 2}]}], 3, NAMES)
    with pytest.raises(ValueError, match=r"player name ' alice'"):
        write(games, 3, (" alice", "bob"))
    with pytest.raises(ValueError, match=r"player name '1\) x'"):
        write(games, 3, ("1) x", "bob"))
    with pytest.raises(
        ValueError,
        match=r"^the record does not replay: line 6 \(game 1, move 2\): bob wins 2 points, but "
        r"the dropped double is worth 1$",
    ):
        write([{**games[0], "points": 2}, {**games[1], "score": [0, 2]}], 3, NAMES)


def test_a_long_name_keeps_its_score_line_readable():
    name = "backgammon-expectimax:depth=2 from a long path.npz"
    text = backgammon_match.match_to_text(_short_match(), 3, (name, "bob"))
    assert backgammon_match.read_match(text)["names"] == [name, "bob"]
    assert re.search(rf"^ {re.escape(name)} : 0  bob : 0$", text, re.M)


def test_a_double_past_the_match_cube_limit_is_named():
    """Money play lets the cube climb to 2**15; a match stops it at 64 (MP.4)."""
    env = backgammon_v0.raw_env(scoring="gammon", cube=True)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    while env.state[CUBE_VALUE] < 128 and not env.is_over:
        mask = env.legal_mask()
        for a in (core.ACTION_DOUBLE, core.ACTION_TAKE):
            if mask[a]:
                env.step(a)
                break
        else:
            env.step(int(rng.choice(np.flatnonzero(mask))))
    record = env.game_record()
    doubles = [t for t in record["turns"] if t.get("cube") == "double"]
    assert [t["value"] for t in doubles][-2:] == [64, 128]
    money = backgammon_match.match_to_text([{**record, "score": [0, 0]}], 0, NAMES)
    assert "Doubles => 128" in money
    line = next(i for i, ln in enumerate(money.splitlines(), 1) if "Doubles => 128" in ln)
    who = NAMES[doubles[-1]["player"]]
    with pytest.raises(ValueError) as err:
        backgammon_match.read_match(money.replace(" 0 point match", " 7 point match"))
    assert re.fullmatch(
        rf"line {line} \(game 1, move \d+\): {who} doubles, but the cube cannot pass 64 "
        r"\(MP\.4\)",
        str(err.value),
    )
