"""Backgammon match play on the web board (scripts/web with agents/arena/sessions.BackgammonGame):
the ``match`` field checked, the score, game number and Crawford flag in the view, the next game
started by itself, doubling refused in the Crawford game through the env's mask, undo within the
game in play, the whole match as one match file (read back with backgammon_match.read_match),
the archive's score column, a match taken up again after a restart and replayed from the
archive; a match started from a score (``score``, ``crawford``; MP.7): the fields checked, the
score and Crawford game in the view and the Match ID, the match file's first score line, the
archive and a restart keeping the start."""

import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from boardgym.agents.arena.archive import Archive  # noqa: E402
from boardgym.envs import backgammon_ids, backgammon_match  # noqa: E402
from boardgym.scripts.web import app as serve  # noqa: E402

# play mode, seat 0, the person's first legal action each time against greedy: seed 1 of a
# 3-point match has greedy win game 1 with a gammon (0-2), so game 2 is the Crawford game
CRAWFORD = {"game": "backgammon", "agent": "greedy", "match": 3, "seed": 1}


def client_of(store=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TestClient(serve.make_app(archive=store))


@pytest.fixture(scope="module")
def client():
    return client_of()


def first_legal(c, v):
    """The person's next action: roll at a cube decision, else the first legal checker move."""
    body = {"cube": "roll"} if v["cube_choices"] else {"action": v["legal"][0]["action"]}
    v = c.post(f"/api/games/{v['id']}/action", json=body).json()
    assert "error" not in v, v
    return v


def play_until(c, v, done, limit=2000):
    for _ in range(limit):
        if done(v) or v["over"]:
            return v
        v = first_legal(c, v)
    raise AssertionError("the match did not get there")


@pytest.mark.parametrize(
    "body, text",
    [
        ({"game": "backgammon", "match": 65}, "'match' must be 0 (money play) or 1..64 points"),
        ({"game": "backgammon", "match": -1}, "'match' must be 0 (money play) or 1..64 points"),
        ({"game": "backgammon", "match": "7"}, "'match' must be an integer, got str"),
        ({"game": "backgammon", "match": True}, "'match' must be an integer, got bool"),
        ({"game": "draughts", "match": 3}, "'match' is for backgammon"),
        (
            {"game": "backgammon", "match": 3, "position_id": "4HPwATDgc/ABMA"},
            "'match' plays from the standard start",
        ),
        (
            {"game": "backgammon", "mode": "watch", "agents": ["td", "greedy"], "match": 99},
            "'match' must be 0 (money play) or 1..64 points, got 99",
        ),
    ],
)
def test_bad_match_lengths_are_refused_naming_the_field(client, body, text):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400 and r.json()["error"].startswith(text), r.json()


def test_money_play_has_no_match_and_a_centred_cube_of_1(client):
    v = client.post("/api/games", json={"game": "backgammon", "cube": True}).json()
    assert v["match"] is None and v["board"]["cube"] == [1, -1]


def test_the_crawford_game_refuses_doubling_and_undo_stays_in_the_game(client):
    v = client.post("/api/games", json=CRAWFORD).json()
    m = v["match"]
    assert m["length"] == 3 and m["score"] == [0, 0] and m["game"] == 1 and not m["crawford"]
    assert m["winner"] is None and m["last_game"] is None and m["match_id"]
    assert v["board"]["cube"] == [1, -1]  # centred at 1
    v = play_until(client, v, lambda v: "double" in v["cube_choices"])
    assert v["match"]["game"] == 1  # doubling is open before a roll of game 1
    v = play_until(client, v, lambda v: v["match"]["game"] == 2)
    m = v["match"]
    assert m["score"] == [0, 2] and m["crawford"] and not m["post_crawford"]
    assert m["last_game"].startswith("game 1 over: greedy wins (player_1): a gammon")
    assert "game 2 is the Crawford game" in m["last_game"]
    assert m["last_game"] in v["log"] and v["board"]["cube"] == [1, -1]
    assert not v["can_undo"]  # the game before is not taken back
    for _ in range(40):  # every decision of the Crawford game: no cube decision at all
        assert v["cube_choices"] == [] and not v["over"]
        r = client.post(f"/api/games/{v['id']}/action", json={"cube": "double"})
        assert r.status_code == 400 and "'double' is not a cube decision now" in r.json()["error"]
        v = first_legal(client, v)
    assert v["can_undo"] and v["match"]["game"] == 2
    u = client.post(f"/api/games/{v['id']}/undo").json()
    assert u["match"]["game"] == 2 and u["actions"] < v["actions"]
    v = play_until(client, u, lambda v: False)
    assert v["over"] and v["match"]["winner"] == 1 and v["match"]["score"] == [0, 3]
    assert not v["match"]["crawford"] and v["acting"] is None
    assert v["result"] == "match over: greedy wins (player_1): the match to 3, 0-3 after 2 games"
    assert v["match"]["last_game"].endswith("greedy wins the match")


def test_a_watched_match_to_its_end_and_its_match_file(client):
    names = ["greedy", "backgammon-greedy"]  # neither doubles: a match of several games
    body = {"game": "backgammon", "mode": "watch", "agents": names, "match": 5, "seed": 2}
    v = client.post("/api/games", json=body).json()
    games, scores = [1], [[0, 0]]
    for _ in range(5000):
        if v["over"]:
            break
        v = client.post(f"/api/games/{v['id']}/step").json()
        if v["match"]["game"] != games[-1]:  # the next game began by itself
            games.append(v["match"]["game"])
            scores.append(v["match"]["score"])
            assert v["match"]["last_game"].startswith(f"game {games[-2]} over: ")
            assert v["match"]["last_game"].endswith(f"score {scores[-1][0]}-{scores[-1][1]}")
            assert sum(scores[-1]) > sum(scores[-2])
    assert v["over"] and games == list(range(1, len(games) + 1)) and len(games) >= 3
    m = v["match"]
    assert max(m["score"]) == 5 == m["score"][m["winner"]]
    assert v["result"] == (
        f"match over: {names[m['winner']]} wins (player_{m['winner']}): the match to 5, "
        f"{m['score'][0]}-{m['score'][1]} after {len(games)} games"
    )
    r = client.get(f"/api/games/{v['id']}/record")
    assert r.status_code == 200 and 'filename="match.mat"' in r.headers["content-disposition"]
    back = backgammon_match.read_match(r.text)
    assert back["match_length"] == 5 and back["names"] == names
    assert [g["score"] for g in back["games"]] == scores
    last = back["games"][-1]
    assert last["winner"] == m["winner"] and last["score"] == scores[-1]


def test_the_archive_keeps_the_score_resumes_the_match_and_replays_it(tmp_path):
    path = tmp_path / "games.sqlite"
    c = client_of(Archive(path))
    v = c.post("/api/games", json=CRAWFORD).json()
    v = play_until(c, v, lambda v: v["match"]["game"] == 2)
    v = first_legal(c, first_legal(c, v))
    row = Archive(path).get(v["id"])
    assert row["settings"]["match"] == 3 and row["result"] == "unfinished"
    assert row["score"] == {
        "length": 3,
        "score": [0, 2],
        "game": 2,
        "crawford": True,
        "post_crawford": False,
        "winner": None,
    }
    listed = Archive(path).list(game="backgammon")
    assert listed[0]["uid"] == v["id"] and listed[0]["score"]["game"] == 2
    c2 = client_of(Archive(path))  # a restart: the match is taken up again in game 2
    back = c2.get(f"/api/games/{v['id']}").json()
    for k in ("board", "log", "legal", "acting", "dice", "cube_choices", "match", "can_undo"):
        assert back[k] == v[k], k
    v = play_until(c2, back, lambda v: False)
    assert v["over"] and v["match"]["winner"] == 1
    row = Archive(path).get(v["id"])
    assert row["over"] and row["result"] == "player_1" and row["score"]["score"] == [0, 3]
    assert row["score"]["winner"] == 1 and row["how"] == "the match to 3, 0-3 after 2 games"
    rep = c2.get(f"/api/archive/{v['id']}/replay").json()
    assert rep["game"] == "backgammon" and rep["match"]["match_length"] == 3
    assert [g["score"] for g in rep["match"]["games"]] == [[0, 0], [0, 2]]
    assert [g["crawford"] for g in rep["match"]["games"]] == [False, True]
    assert rep["match"]["games"][-1]["score_after"] == [0, 3]
    assert (
        rep["frames"][-1]["caption"].startswith("greedy ")
        and " greedy wins " in (rep["frames"][-1]["caption"])
    )
    rec = c2.get(f"/api/archive/{v['id']}/record")
    assert rec.status_code == 200 and len(backgammon_match.read_match(rec.text)["games"]) == 2


def test_a_match_played_in_the_terminal_has_its_score_in_the_archive(tmp_path, capsys):
    import io

    from boardgym.scripts import archive, play

    path = tmp_path / "games.sqlite"
    args = ["--game", "backgammon", "--agent", "greedy", "--match", "3", "--db", str(path)]
    play.main(args, stdin=io.StringIO("quit\n"), out=io.StringIO())
    (row,) = Archive(path).list()
    assert row["source"] == "play" and row["score"]["length"] == 3 and not row["over"]
    assert row["score"]["score"] == [0, 0] and row["score"]["game"] == 1
    archive.main(["list", "--db", str(path)])
    assert "unfinished (match to 3, 0-0, game 1)" in capsys.readouterr().out


# ----------------------------------------------------------------------------- a start score
BG7 = {"game": "backgammon", "match": 7}
WATCH = {"mode": "watch", "agents": ["greedy", "backgammon-greedy"]}  # neither doubles


@pytest.mark.parametrize(
    "body, text",
    [
        ({**BG7, "score": [7, 2]}, "'score': player_0's score 7 must be 0..6 in a match to 7"),
        ({**BG7, "score": [3, 9]}, "'score': player_1's score 9 must be 0..6 in a match to 7"),
        ({**BG7, "score": [-1, 2]}, "'score': player_0's score -1 must be 0..6"),
        ({**BG7, "score": [4.5, 2]}, "'score' must be two integers [player_0's, player_1's]"),
        ({**BG7, "score": [4.0, 2]}, "'score' must be two integers"),
        ({**BG7, "score": [True, 2]}, "'score' must be two integers"),
        ({**BG7, "score": "4-5"}, "'score' must be two integers"),
        ({**BG7, "score": [4]}, "'score' must be two integers"),
        ({**BG7, "score": [1, 2, 3]}, "'score' must be two integers"),
        ({**BG7, "score": {"a": 1}}, "'score' must be two integers"),
        ({**BG7, "score": [2**70, 1]}, "'score': player_0's score 1180591620717411303424 must"),
        (
            {**BG7, "score": [4, 5], "crawford": True},
            "'crawford': a Crawford game needs exactly one score at 6 (match to 7), got 4-5",
        ),
        ({**BG7, "score": [6, 6], "crawford": True}, "'crawford': a Crawford game needs"),
        ({**BG7, "crawford": True}, "'crawford': a Crawford game needs exactly one score at 6"),
        (
            {**BG7, "score": [6, 3], "crawford": False},
            "'crawford': at 6-3 in a match to 7 without the Crawford game the match is "
            "post-Crawford (MP.7), which a match file cannot record",
        ),
        ({**BG7, "score": [2, 6]}, "'crawford': at 2-6 in a match to 7 without the Crawford"),
        ({**BG7, "score": [2, 3], "crawford": "yes"}, "'crawford' must be true or false, got str"),
        ({"game": "backgammon", "match": 1, "crawford": True}, "'crawford': a Crawford game"),
        ({"game": "backgammon", "score": [1, 2]}, "'score' and 'crawford' start a match from"),
        ({"game": "backgammon", "crawford": True}, "'score' and 'crawford' start a match from"),
        ({"game": "draughts", "score": [1, 2]}, "'score' and 'crawford' start a match from"),
        ({**BG7, **WATCH, "score": [0, 7]}, "'score': player_1's score 7 must be 0..6"),
    ],
)
def test_bad_start_scores_are_refused_naming_the_field(client, body, text):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400 and r.json()["error"].startswith(text), r.json()


@pytest.mark.parametrize(
    "start, crawford", [({"crawford": False}, False), ({"score": [0, 0]}, False)]
)
def test_a_start_at_0_0_is_the_usual_match(client, start, crawford):
    plain = client.post("/api/games", json={**BG7, "seed": 4}).json()
    v = client.post("/api/games", json={**BG7, "seed": 4, **start}).json()
    assert v["match"]["score"] == [0, 0] and v["match"]["crawford"] is crawford
    assert v["board"] == plain["board"] and v["match"]["match_id"] == plain["match"]["match_id"]


def test_a_match_from_4_5_shows_the_score_and_records_it_from_there(client):
    v = client.post("/api/games", json={**BG7, "agent": "greedy", "score": [4, 5], "seed": 2})
    v = v.json()
    m = v["match"]
    assert m["score"] == [4, 5] and m["game"] == 1 and m["length"] == 7
    assert not m["crawford"] and not m["post_crawford"] and m["winner"] is None
    info = backgammon_ids.parse_match_id(m["match_id"])
    assert info["match_length"] == 7 and tuple(info["score"]) == (4, 5)
    assert not info["crawford"]
    # seed 2, the person's first legal action each time: greedy wins game 1 with a
    # backgammon, 3 points of which the 2 it needed count (MP.2): 4-7, the match
    v = play_until(client, v, lambda v: False)
    m = v["match"]
    assert v["over"] and m["score"] == [4, 7] and m["winner"] == 1 and m["game"] == 1
    assert m["last_game"] == (
        "game 1 over: greedy wins (player_1): a backgammon (O.3): 3 points, 2 counted (all "
        "that was needed, MP.2); match to 7, score 4-7; greedy wins the match"
    )
    text = client.get(f"/api/games/{v['id']}/record").text
    lines = text.splitlines()
    assert lines[0] == " 7 point match" and lines[2] == " Game 1"
    assert lines[3].split() == ["you", ":", "4", "greedy", ":", "5"]  # gnubg's score line
    assert lines[-1].strip() == "Wins 3 points and the match"  # what it was worth
    (game,) = backgammon_match.read_match(text)["games"]
    assert game["score"] == [4, 5] and not game["crawford"]
    assert (game["winner"], game["points"]) == (1, 3)


def test_a_match_from_6_3_starts_with_the_crawford_game(client):
    body = {**BG7, "agent": "greedy", "score": [6, 3], "seed": 3, "crawford": True}
    v = client.post("/api/games", json=body).json()
    m = v["match"]
    assert m["score"] == [6, 3] and m["crawford"] and not m["post_crawford"]
    assert backgammon_ids.parse_match_id(m["match_id"])["crawford"]
    assert v["board"]["cube"] == [1, -1]
    for _ in range(20):  # the Crawford game: no cube decision at all
        assert v["cube_choices"] == [] and v["match"]["game"] == 1
        r = client.post(f"/api/games/{v['id']}/action", json={"cube": "double"})
        assert r.status_code == 400 and "'double' is not a cube decision now" in r.json()["error"]
        v = first_legal(client, v)
    back = backgammon_match.read_match(client.get(f"/api/games/{v['id']}/record").text)
    assert back["games"][0]["score"] == [6, 3] and back["games"][0]["crawford"]


def test_a_match_from_6_6_is_post_crawford(client):
    v = client.post("/api/games", json={**BG7, **WATCH, "score": [6, 6], "seed": 1}).json()
    m = v["match"]
    assert m["score"] == [6, 6] and not m["crawford"] and m["post_crawford"]
    while not v["over"]:
        v = client.post(f"/api/games/{v['id']}/step").json()
    assert v["match"]["winner"] is not None and v["match"]["game"] == 1
    assert sorted(v["match"]["score"]) == [6, 7]
    back = backgammon_match.read_match(client.get(f"/api/games/{v['id']}/record").text)
    assert back["games"][0]["score"] == [6, 6] and not back["games"][0]["crawford"]


def test_the_archive_keeps_a_start_score_and_a_restart_resumes_from_it(tmp_path):
    path = tmp_path / "games.sqlite"
    c = client_of(Archive(path))
    body = {**BG7, **WATCH, "score": [5, 4], "seed": 3}
    v = c.post("/api/games", json=body).json()
    for _ in range(6):
        v = c.post(f"/api/games/{v['id']}/step").json()
    row = Archive(path).get(v["id"])
    assert row["settings"]["score"] == [5, 4] and row["settings"]["crawford"] is False
    assert row["score"]["score"] == [5, 4] and row["score"]["game"] == 1
    c2 = client_of(Archive(path))  # a restart: the match is taken up again from 5-4
    back = c2.get(f"/api/games/{v['id']}").json()
    for k in ("board", "log", "legal", "acting", "dice", "match", "actions"):
        assert back[k] == v[k], k
    v = back
    while v["match"]["game"] == 1 and not v["over"]:
        v = c2.post(f"/api/games/{v['id']}/step").json()
    after = v["match"]["score"]
    assert after[0] >= 5 and after[1] >= 4 and sum(after) > 9
    rep = c2.get(f"/api/archive/{v['id']}/replay").json()
    assert [g["score"] for g in rep["match"]["games"]][:2] == [[5, 4], after]
    assert rep["frames"][0]["score"] == [5, 4]
    record = c2.get(f"/api/archive/{v['id']}/record").text
    assert backgammon_match.read_match(record)["games"][0]["score"] == [5, 4]
