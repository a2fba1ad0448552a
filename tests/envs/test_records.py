"""envs/records.py: which game a record or a position is, its frames, the position at a ply."""

import numpy as np
import pytest

from boardgym.envs import backgammon_ids, backgammon_match, draughts, draughts_pdn, records
from boardgym.kernels.backgammon.board import CUBE_OWNER, CUBE_VALUE, TURN

MATCH = """ 3 point match

 Game 1
 alice : 0                            bob : 0
  1)                                  54: 24/20 13/8
  2) 41: 8/4 6/5*                     41: 25/24 6/2
  3)  Doubles => 2                    Takes
  4) 53: 5/2 8/3                      53: 8/5 13/8
"""


def first_moves(n):
    state, moves = draughts.initial_state(), []
    for _ in range(n):
        moves.append(draughts.legal_moves(state)[0])
        state = draughts.apply(state, moves[-1])
    return moves, state


def test_record_kind_by_suffix_then_text():
    pdn = draughts_pdn.game_to_pdn(first_moves(2)[0])
    assert records.record_kind(pdn) == "draughts"
    assert records.record_kind(MATCH) == "backgammon"
    assert records.record_kind("\n\n  1) 31: 8/5 6/5\n") == "backgammon"
    assert records.record_kind(MATCH, "game.pdn") == "draughts"  # the name says first
    assert records.record_kind(pdn, "a/b/GAME.MAT") == "backgammon"
    assert records.record_kind(MATCH, "notes.txt") == "backgammon"
    with pytest.raises(TypeError, match="record text must be a string"):
        records.record_kind(b"1. c3-d4")
    with pytest.raises(TypeError, match="name must be a file name"):
        records.record_kind(pdn, 3)


@pytest.mark.parametrize(
    "text, kind",
    [
        ("W:W21-32:B1-12", "draughts"),
        ('[FEN "B:W21:B1"]', "draughts"),
        ("4HPwATDgc/ABMA", "backgammon"),
        ("4HPwATDgc/ABMA:cAkAAAAAAAAA", "backgammon"),
        ("nonsense", None),
        ("4HPwATDgc/ABM", None),
    ],
)
def test_position_kind(text, kind):
    assert records.position_kind(text) == kind


def test_draughts_frames_and_plies():
    moves, final = first_moves(6)
    kind, frames, match = records.record_frames(draughts_pdn.game_to_pdn(moves))
    assert kind == "draughts" and match is None and len(frames) == 7
    assert [f["ply"] for f in frames] == list(range(7)) and records.plies(frames) == 6
    state, dice = records.position_at(frames)
    assert np.array_equal(state, final) and dice is None
    _, after3 = first_moves(3)
    assert np.array_equal(records.position_at(frames, 3)[0], after3)
    state[0] ^= 1  # a copy: the frames keep their position
    assert np.array_equal(records.position_at(frames)[0], final)


def test_a_pdn_of_two_games_is_read_whole_and_shown_from_its_first():
    one = draughts_pdn.game_to_pdn(first_moves(4)[0], White="a", Black="b")
    two = draughts_pdn.game_to_pdn(first_moves(2)[0], White="c", Black="d")
    kind, frames, match = records.record_frames(one + "\n" + two)
    assert kind == "draughts" and match["kind"] == "pdn"
    assert [(g["white"], g["first"], g["last"]) for g in match["games"]] == [
        ("a", 0, 4),
        ("c", 5, 7),
    ]
    assert records.plies(frames) == 4
    assert np.array_equal(records.position_at(frames)[0], first_moves(4)[1])


def test_match_frames_replay_the_cube_and_position_at_turns_to_the_next_roll():
    kind, frames, match = records.record_frames(MATCH)
    assert kind == "backgammon" and match["names"] == ["alice", "bob"]
    assert match["match_length"] == 3 and records.plies(frames) == 5
    take = next(f for f in frames if f["caption"].startswith("bob takes"))
    assert take["ply"] == 3 and (take["state"][CUBE_VALUE], take["state"][CUBE_OWNER]) == (2, 1)
    # after three turns: alice doubled, bob took; alice rolls 53 next
    state, dice = records.position_at(frames, 3)
    assert dice == (5, 3) and state[TURN] == 0
    assert (state[CUBE_VALUE], state[CUBE_OWNER]) == (2, 1)
    # before the first turn: bob opens with 54
    state, dice = records.position_at(frames, 0)
    assert dice == (5, 4) and state[TURN] == 1
    assert backgammon_ids.position_id(state) == "4HPwATDgc/ABMA"
    final, dice = records.position_at(frames)
    assert dice is None and final[CUBE_VALUE] == 2
    cubeless = MATCH.replace("  3)  Doubles => 2                    Takes\n", "")
    assert cubeless != MATCH
    _, plain = backgammon_match.read_match_text(cubeless)
    assert backgammon_ids.position_id(final) == backgammon_ids.position_id(plain)


def test_bad_records_and_plies_name_the_problem():
    with pytest.raises(ValueError, match="kind must be 'draughts' or 'backgammon'"):
        records.record_frames(MATCH, "chess")
    with pytest.raises(
        ValueError, match=r"^line 6 \(game 1, move 2\): alice rolled 4-1: move 8/1 is not legal$"
    ):
        records.record_frames(MATCH.replace("8/4 6/5*", "8/1 6/5*"))
    with pytest.raises(ValueError, match="PDN move 1"):
        records.record_frames(MATCH, "draughts")
    _, frames, _ = records.record_frames(MATCH)
    with pytest.raises(ValueError, match=r"ply 6 is not 0\.\.5"):
        records.position_at(frames, 6)
    with pytest.raises(ValueError, match=r"ply -1 is not 0\.\.5"):
        records.position_at(frames, -1)
    with pytest.raises(TypeError, match="ply must be an integer"):
        records.position_at(frames, 1.0)
    with pytest.raises(TypeError, match="frames must be"):
        records.position_at([])


def test_frames_of_a_match_by_game_number():
    """games, plies, frame_at and position_at of the K-th game of a match file."""
    from bg_matches import play_match

    played = play_match(5, 1, double_rate=0.03)
    _, frames, match = records.record_frames(backgammon_match.match_to_text(played, 5))
    assert records.games(frames) == len(match["games"]) == len(played) == 3
    for k, g in enumerate(match["games"], 1):
        n = records.plies(frames, k)
        last = frames[g["last"]]
        assert n == last["ply"] and records.frame_at(frames, game=k) is last
        f = records.frame_at(frames, 0, game=k)
        assert f is frames[g["first"]] and f["score"] == played[k - 1]["score"]
        assert f["crawford"] == g["crawford"] and f["match_length"] == 5
        assert np.array_equal(records.position_at(frames, n, game=k)[0], frames[g["last"]]["state"])
    assert records.plies(frames) == records.plies(frames, 1)
    with pytest.raises(ValueError, match=r"game 4 is not 1\.\.3: the record has 3 games"):
        records.plies(frames, 4)
    with pytest.raises(ValueError, match=r"ply 999 is not 0\.\."):
        records.frame_at(frames, 999, game=2)
    with pytest.raises(TypeError, match="game must be an integer"):
        records.frame_at(frames, 0, game="2")
