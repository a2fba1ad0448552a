"""The web board's HTTP API (scripts/web/app.py) through Starlette's TestClient: games kept on the
server, every action checked against the kernels' legal mask, every bad request answered with a
JSON error (never a crash), many games at once, records and replay."""

import sys
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette's note about httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from boardgym.envs import draughts as dr_api  # noqa: E402
from boardgym.envs import draughts_pdn  # noqa: E402
from boardgym.scripts.web import app as serve  # noqa: E402

WIN_FEN = "W:Wb4,e1,g1:Bc5,e7,h6"  # b4:d6:f8 takes two, crowned on the last row (25.5)


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield TestClient(serve.make_app())


def new(client, **body):
    r = client.post("/api/games", json=body)
    return r.status_code, r.json()


def act(client, v, **body):
    r = client.post(f"/api/games/{v['id']}/action", json=body)
    return r.status_code, r.json()


def test_draughts_game_to_its_end_matches_the_kernel(client):
    status, v = new(client, game="draughts", agent="draughts-greedy", fen=WIN_FEN)
    assert status == 200 and v["acting"] == 0 and v["fen"] == "W:We1,g1,b4:Bc5,h6,e7"
    assert v["legal"] == [{"action": 12 * 32 + 21, "from": 12, "to": 21}]  # b4 x c5 -> d6 only
    hops = 0
    while not v["over"]:
        status, v = act(client, v, action=v["legal"][0]["action"])
        assert status == 200, v
        hops += 1
        if hops == 1:  # mid-chain: the same piece goes on, from d6 only; no FEN mid-chain
            assert v["board"]["capturing"] == 21 and v["fen"] is None
            assert {m["from"] for m in v["legal"]} == {21} and v["board"]["jumped"] == [17]
    assert "you win (player_0)" in v["result"] and "(G.1)" in v["result"]
    record = client.get(f"/api/games/{v['id']}/record")
    assert record.status_code == 200 and "game.pdn" in record.headers["content-disposition"]
    tags, fen, moves, result, final = draughts_pdn.read_pdn(record.text)
    assert moves[0] == "b4:d6:f8" and result == "2-0"
    assert dr_api.to_fen(dr_api.from_fen(fen)) == dr_api.to_fen(dr_api.from_fen(WIN_FEN))
    state = dr_api.from_fen(fen)
    for move in moves:
        state = dr_api.apply(state, move)
    assert dr_api.to_fen(state) == dr_api.to_fen(final)
    assert dr_api.game_status(state) == dr_api.game_status(final) != 0


def test_draughts_illegal_and_malformed_actions(client):
    _, v = new(client, game="draughts", agent="greedy")
    legal = {m["action"] for m in v["legal"]}
    assert legal == set(dr_api.legal_actions(dr_api.initial_state()))
    for body, text in [
        ({"action": 5}, "illegal move"),
        ({"action": -1}, "illegal move"),
        ({"action": 10**30}, "illegal move"),
        ({"action": "c3-d4"}, "'action' must be an integer, got str"),
        ({"action": True}, "'action' must be an integer, got bool"),
        ({"action": 1.5}, "'action' must be an integer, got float"),
        ({}, "give 'action'"),
        ({"cube": "double"}, "no doubling cube"),
    ]:
        status, e = act(client, v, **body)
        assert status == 400 and text in e["error"], (body, e)
    for raw in (b"{", b"[1, 2]", b"\xff\xfe", b"null"):
        r = client.post(f"/api/games/{v['id']}/action", content=raw)
        assert r.status_code == 400 and "error" in r.json()
    assert client.get(f"/api/games/{v['id']}").json()["legal"] == v["legal"]  # unchanged


def test_undo_takes_back_the_move_and_the_reply(client):
    _, v = new(client, game="draughts", agent="greedy")
    start = v["board"]
    _, v2 = act(client, v, action=v["legal"][0]["action"])
    assert v2["can_undo"] and v2["board"] != start and v2["log"][0].startswith("you (White) played")
    assert v2["log"][1].startswith("greedy (Black) played")
    r = client.post(f"/api/games/{v['id']}/undo").json()
    assert r["board"] == start and not r["can_undo"]
    assert client.post(f"/api/games/{v['id']}/undo").json() == {"error": "nothing to take back"}


@pytest.mark.parametrize(
    "body, text",
    [
        ({"game": "chess"}, "'game' must be one of draughts, backgammon"),
        ({"game": "draughts", "agent": "backgammon-td"}, "is a backgammon agent"),
        ({"game": "backgammon", "agent": "alphabeta"}, "is a draughts agent"),
        ({"game": "draughts", "agent": "nobody"}, "unknown draughts agent"),
        ({"game": "draughts", "fen": "W:W99:B1"}, "square"),
        ({"game": "backgammon", "position_id": "!!!"}, "Position ID"),
        ({"game": "backgammon", "fen": "W:W21:B1"}, "'fen' is a draughts position"),
        ({"game": "draughts", "cube": True}, "for backgammon"),
        ({"game": "draughts", "seat": 2}, "'seat' must be one of 0, 1"),
        ({"game": "draughts", "depth": 0}, "'depth' must be 1..64"),
        ({"game": "draughts", "agent": "greedy", "depth": 3}, "takes no option 'depth'"),
        ({"game": "draughts", "time_limit": -1}, "'time_limit'"),
        ({"game": "draughts", "mode": "watch", "agents": ["greedy"]}, "two agent names"),
        ({"game": "draughts", "mode": "fly"}, "'mode' must be one of"),
        ({"game": "draughts", "seed": "x"}, "'seed' must be an integer, got str"),
        ({"game": "draughts", "time_limit": "1"}, "'time_limit' must be a number, got str"),
        ({"game": "backgammon", "cube": 1}, "'cube' must be true or false, got int"),
    ],
)
def test_bad_new_game_requests(client, body, text):
    status, e = new(client, **body)
    assert status == 400 and text in e["error"], e


def test_unknown_games_and_pages(client):
    r = client.get("/api/games/no-such")
    assert r.status_code == 404 and "no game 'no-such'" in r.json()["error"]
    assert client.get("/nothing/here").json()["error"] == "no such page: /nothing/here"
    assert client.post("/api/replay", content=b"x" * (serve.MAX_BODY + 1)).status_code == 413


def test_pages_and_static_files(client):
    for path in ("/", "/draughts", "/backgammon"):
        page = client.get(path)
        assert page.status_code == 200 and "/static/app.js" in page.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    agents = client.get("/api/agents").json()
    assert "greedy" in agents["draughts"] and "td" in agents["backgammon"]


def test_backgammon_turns_cube_and_record(client):
    _, v = new(client, game="backgammon", agent="greedy", cube=True, seed=0)
    assert v["dice"] and v["cube_choices"] == [] and len(v["board"]["x"]) == 25
    d1, d2 = v["dice"]
    for m in v["legal"]:  # the kernel's moves: from a point by one of the dice
        assert m["die"] in (d1, d2) and m["to"] == max(m["from"] - m["die"], 0)
    status, e = act(client, v, cube="double")
    assert status == 400 and "not a cube decision now" in e["error"]
    while v["dice"] and v["acting"] == 0 and v["legal"]:
        status, v = act(client, v, action=v["legal"][0]["action"])
        assert status == 200
    # the next turn of ours: roll or double (the agent never doubles; greedy takes)
    assert v["cube_choices"] == ["roll", "double"] and v["dice"] == []
    status, v = act(client, v, cube="double")
    assert status == 200 and v["board"]["cube"] == [2, 1], v  # taken: the agent owns it
    assert "you double to 2" in v["log"] and "greedy takes" in v["log"]
    record = client.get(f"/api/games/{v['id']}/record")
    assert record.status_code == 200 and "game.mat" in record.headers["content-disposition"]
    assert "Doubles => 2" in record.text and "Takes" in record.text


def test_watch_shows_the_equity_of_an_agent_with_a_net(client):
    _, v = new(client, game="backgammon", mode="watch", agents=["td", "greedy"], seed=0)
    for _ in range(6):
        v = client.post(f"/api/games/{v['id']}/step").json()
    assert v["evaluation"].startswith("td: equity ") and "after its play" in v["evaluation"]


def test_backgammon_from_a_position_id_has_no_match_file(client):
    from boardgym.envs import backgammon_notation as bg_api

    pid = bg_api.legal_plays("4HPwATDgc/ABMA", 3, 1)[0]  # after an opening 31
    _, v = new(client, game="backgammon", agent="greedy", position_id=pid)
    assert v["position_id"] and v["legal"]
    r = client.get(f"/api/games/{v['id']}/record")
    assert r.status_code == 400 and "standard start" in r.json()["error"]


def test_watch_two_agents_step_by_step(client):
    _, v = new(client, game="draughts", mode="watch", agents=["greedy", "random"], seed=1)
    assert v["legal"] == [] and v["acting"] == 0
    for _ in range(400):
        if v["over"]:
            break
        r = client.post(f"/api/games/{v['id']}/step")
        assert r.status_code == 200
        v = r.json()
    assert v["over"] and v["result"].startswith("game over")
    assert v["log"][0].startswith("greedy (White) played")
    assert v["evaluation"].startswith("greedy: score ")  # the agent's own evaluation
    assert client.post(f"/api/games/{v['id']}/step").json()["error"] == "the game is over"
    assert act(client, v, action=1)[1]["error"].startswith("this game is watched")


def test_many_games_at_once_stay_apart(client):
    views = [new(client, game="draughts", agent="greedy")[1] for _ in range(5)]
    assert len({v["id"] for v in views}) == 5
    act(client, views[0], action=views[0]["legal"][0]["action"])
    assert client.get(f"/api/games/{views[1]['id']}").json()["board"] == views[1]["board"]
    assert client.get(f"/api/games/{views[0]['id']}").json()["board"] != views[0]["board"]


def test_replay_records_and_malformed_ones(client):
    _, v = new(client, game="draughts", agent="draughts-greedy", fen=WIN_FEN)
    while not v["over"]:
        v = act(client, v, action=v["legal"][0]["action"])[1]
    pdn = client.get(f"/api/games/{v['id']}/record").text
    data = client.post("/api/replay", json={"text": pdn}).json()
    assert data["game"] == "draughts" and data["frames"][1]["caption"] == "1. b4:d6:f8"
    assert data["frames"][-1]["board"] == v["board"]
    for text, msg in [
        ("", "paste or upload"),
        ("1. c3-d9", "cannot read this record"),
        ('[GameType "20"]\n1. c3-d4', "not Russian draughts"),
        (" 3 point match\n Game 1\n  1) 99: 8/5", "cannot read this record"),
    ]:
        r = client.post("/api/replay", json={"text": text})
        assert r.status_code == 400 and msg in r.json()["error"], r.json()
    assert (
        client.post("/api/replay", json={"text": 5}).json()["error"]
        == "'text' must be a string, got int"
    )


def test_serve_settings_refuse_bad_ports():
    from boardgym.scripts import cli

    with pytest.raises(cli.UsageError, match="--port must be 0..65535"):
        serve.main(["--port", "70000"])


# ----------------------------------------------------------------------------- agents' settings
def test_watch_takes_each_agents_own_settings(client):
    status, v = new(
        client,
        game="draughts",
        mode="watch",
        agents=["alphabeta", "greedy"],
        agent_settings=[{"depth": 2, "time_limit": 5, "options": "tt_bits=12"}, None],
    )
    assert status == 200, v
    v = client.post(f"/api/games/{v['id']}/step").json()
    assert v["evaluation"].startswith("alphabeta: score ") and "at depth 2" in v["evaluation"]
    assert v["log"][0].startswith("alphabeta (White) played")
    assert "  [alphabeta: score " in v["log"][0]  # the evaluation beside the move
    v = client.post(f"/api/games/{v['id']}/step").json()
    assert v["log"][1].startswith("greedy (Black) played") and "[greedy: score" in v["log"][1]


def test_an_agent_that_cannot_play_this_game_is_named_without_cli_flags(client):
    # the PPO policy shipped for backgammon has no cube actions
    status, v = new(client, game="backgammon", mode="watch", agents=["greedy", "ppo"], cube=True)
    assert status == 400
    assert v["error"].startswith("player_1 (ppo): agent ppo: the policy takes observations"), v
    assert "--agent" not in v["error"]
    status, v = new(client, game="backgammon", agent="ppo", cube=True)
    assert status == 400 and v["error"].startswith("agent ppo: "), v


def test_a_ppo_agent_without_torch_is_a_clear_refusal(client, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # as in a venv without the [train] extra
    status, v = new(client, game="backgammon", agent="ppo")
    assert status == 400, v
    assert v["error"].startswith("backgammon-ppo needs torch and sb3-contrib"), v


def test_a_forced_move_of_a_searching_agent_has_no_score(client):
    # White's only move is the capture c3:e5: the search plays it without searching (score None)
    for agent in ("alphabeta", "draughts-alphabeta"):
        status, v = new(
            client, game="draughts", mode="watch", agents=[agent, "greedy"], fen="W:Wc3:Bd4,h8"
        )
        assert status == 200, v
        r = client.post(f"/api/games/{v['id']}/step")
        assert r.status_code == 200, r.text
        v = r.json()
        assert v["log"][0].startswith(f"{agent} (White) played c3:e5"), v["log"]
        assert "score" not in v["log"][0] and v["evaluation"] is None
    # and in play: the person's c3-d4 leaves the agent (Black) one move, the capture e5:c3
    status, v = new(client, game="draughts", agent="alphabeta", fen="W:Wc3:Be5,h8")
    assert status == 200, v
    c3, d4 = dr_api.parse_square("c3"), dr_api.parse_square("d4")
    (c3d4,) = [m["action"] for m in v["legal"] if (m["from"], m["to"]) == (c3, d4)]
    status, v = act(client, v, action=c3d4)
    assert status == 200, v
    assert v["log"][1].startswith("alphabeta (Black) played e5:c3"), v["log"]
    assert "score" not in v["log"][1] and v["evaluation"] is None


@pytest.mark.parametrize(
    "body, text",
    [
        (
            {"agents": ["alphabeta", "greedy"], "agent_settings": [{"depth": 2}, {"depth": 2}]},
            "player_1 (greedy): agent greedy takes no option 'depth'",
        ),
        (
            {"agents": ["alphabeta", "greedy"], "agent_settings": [{"depth": 0}, None]},
            "player_0 (alphabeta): 'depth' must be 1..64, got 0",
        ),
        (
            {"agents": ["alphabeta", "greedy"], "agent_settings": [{"time_limit": 0}, None]},
            "player_0 (alphabeta): 'time_limit' must be in (0, 600]",
        ),
        (
            {"agents": ["alphabeta", "greedy"], "agent_settings": [{"depth": "deep"}, None]},
            "player_0 (alphabeta): 'depth' must be an integer, got str",
        ),
        (
            {"agents": ["alphabeta", "greedy"], "agent_settings": [{"options": "fast"}, None]},
            "player_0 (alphabeta): 'options': expected key=value",
        ),
        (
            {"agents": ["alphabeta", "greedy"], "agent_settings": [{"options": "speed=9"}, None]},
            "player_0 (alphabeta): agent alphabeta takes no option 'speed'",
        ),
        (
            {"agents": ["alphabeta", "greedy"], "agent_settings": [{"options": "depth=3"}, None]},
            "give depth in its own field",
        ),
        (
            {"agents": ["alphabeta", "greedy"], "agent_settings": [{"options": 5}, None]},
            "'options' must be a string of key=value or a list of them, got int",
        ),
        (
            {"agents": ["alphabeta", "greedy"], "agent_settings": [{}]},
            "'agent_settings' must be two",
        ),
        (
            {"agents": ["alphabeta", "greedy"], "agent_settings": [1, 2]},
            "'agent_settings' must be two",
        ),
        (
            {"agents": ["alphabeta", "greedy"], "agent_settings": "deep"},
            "'agent_settings' must be a list, got str",
        ),
    ],
)
def test_bad_watch_settings_name_the_agent(client, body, text):
    status, e = new(client, game="draughts", mode="watch", **body)
    assert status == 400 and text in e["error"], e


def test_play_takes_other_agent_options(client):
    status, v = new(
        client,
        game="draughts",
        agent="alphabeta",
        depth=1,
        options="tt_bits=10, use_tt=false",
        seat=1,
    )
    assert status == 200 and v["log"][0].startswith("alphabeta (White) played"), v
    status, e = new(client, game="draughts", agent="greedy", options=["tt_bits=10"])
    assert status == 400 and e["error"] == (
        "agent greedy takes no option 'tt_bits' (its options: evaluation, resolve_captures, seed)"
    )


def test_watch_from_a_position_with_the_cube_and_its_record(client):
    _, v = new(client, game="backgammon", mode="watch", agents=["td", "greedy"], cube=True, seed=3)
    for _ in range(2000):
        if v["over"]:
            break
        v = client.post(f"/api/games/{v['id']}/step").json()
    assert v["over"] and v["result"].startswith("game over")
    record = client.get(f"/api/games/{v['id']}/record")
    assert record.status_code == 200 and "Wins" in record.text
    game, frames, match = serve.replay_frames(record.text)
    assert game == "backgammon" and match["games"][0]["score_after"] != [0, 0]
    _, v = new(client, game="draughts", mode="watch", agents=["greedy", "greedy"], fen=WIN_FEN)
    v = client.post(f"/api/games/{v['id']}/step").json()
    assert v["board"]["capturing"] == 21  # b4 x c5, on from d6


# ----------------------------------------------------------------------------- backgammon play
# gnubg boards [opponent, player on roll], index = point - 1 from that side's view
HOME_BOARD = [[0] * 18 + [15] + [0] * 6, [5, 5, 5] + [0] * 22]


def home_id():
    from boardgym.envs import backgammon_notation as bg_api

    return bg_api.position_id(bg_api.state_from_board(HOME_BOARD, 0))


def test_a_bear_off_two_dice_make_is_the_persons_choice(client):
    _, v = new(client, game="backgammon", agent="greedy", position_id=home_id(), dice=[6, 4])
    assert v["dice"] == [6, 4] and v["board"]["dice"] == [6, 4]
    off3 = [m for m in v["legal"] if m["from"] == 3 and m["to"] == 0]
    assert sorted(m["die"] for m in off3) == [4, 6]  # the highest checker: off with either die
    _, after = act(client, v, action=next(m["action"] for m in off3 if m["die"] == 6))
    assert after["board"]["dice"] == [4] and {m["die"] for m in after["legal"]} == {4}
    _, v = new(client, game="backgammon", agent="greedy", position_id=home_id(), dice="6-4")
    _, after = act(client, v, action=next(m["action"] for m in off3 if m["die"] == 4))
    assert after["board"]["dice"] == [6]


@pytest.mark.parametrize("dice", [[7, 1], [6], "64x", [True, 2], 5])
def test_bad_first_rolls(client, dice):
    status, e = new(client, game="backgammon", dice=dice)
    assert status == 400 and "'dice' must be" in e["error"], e


def test_backgammon_undo_takes_back_the_turn_and_the_double(client):
    _, v = new(client, game="backgammon", agent="greedy", seed=3)
    start = v["board"]
    _, v = act(client, v, action=v["legal"][0]["action"])  # half the play
    assert v["can_undo"] and v["board"] != start
    u = client.post(f"/api/games/{v['id']}/undo").json()
    assert u["board"] == start and u["dice"] == [4, 1] and u["legal"] and not u["can_undo"]
    n = len(u["log"])
    while len(u["log"]) == n:  # the whole play, then the agent's reply
        _, u = act(client, u, action=u["legal"][0]["action"])
    assert u["log"][n].startswith("you rolled 4-1") and u["log"][n + 1].startswith("greedy")
    u = client.post(f"/api/games/{v['id']}/undo").json()
    assert u["board"] == start and u["log"][-1] == "taken back"
    _, v = new(client, game="backgammon", agent="greedy", seed=0, cube=True)
    while v["cube_choices"] != ["roll", "double"]:
        _, v = act(client, v, action=v["legal"][0]["action"])
    before = v["board"]
    _, v = act(client, v, cube="double")
    assert v["board"]["cube"] == [2, 1]
    u = client.post(f"/api/games/{v['id']}/undo").json()
    assert u["board"] == before and u["board"]["cube"] == [1, -1]
    assert u["cube_choices"] == ["roll", "double"]


def test_requests_from_another_site_are_refused(client):
    r = client.post(
        "/api/games", json={"game": "draughts"}, headers={"Origin": "http://evil.example"}
    )
    assert r.status_code == 403 and "another site" in r.json()["error"]
    r = client.post("/api/games", json={"game": "draughts"}, headers={"Origin": "null"})
    assert r.status_code == 403
    r = client.post(
        "/api/games", json={"game": "draughts"}, headers={"Origin": "http://testserver"}
    )
    assert r.status_code == 200


# ----------------------------------------------------------------------------- match replay
DATA = __import__("pathlib").Path(__file__).parent / "data"


def test_replay_a_whole_match_file_with_the_cube():
    text = (DATA / "gnubg-3-games.mat").read_text()  # written by GNU Backgammon (export mat)
    game, frames, match = serve.replay_frames(text)
    assert game == "backgammon" and match["match_length"] == 7
    assert match["names"] == ["alice", "bob"]
    games = match["games"]
    assert [g["number"] for g in games] == [1, 2, 3]
    assert [g["score"] for g in games] == [[0, 0], [2, 0], [2, 1]]
    assert [g["score_after"] for g in games] == [[2, 0], [2, 1], [3, 1]]
    assert games[0]["first"] == 0 and games[-1]["last"] == len(frames) - 1
    for g in games:
        assert frames[g["first"]]["caption"].endswith("start")
        assert all(f["game"] == g["number"] for f in frames[g["first"] : g["last"] + 1])
    caps = [f["caption"] for f in frames]
    k = caps.index("bob doubles => 2")
    assert frames[k]["board"]["offered"] == 2 and frames[k]["board"]["cube"] == [1, -1]
    assert caps[k + 1].startswith("alice takes") and frames[k + 1]["board"]["cube"] == [2, 0]
    assert frames[games[0]["last"]]["board"]["cube"] == [2, 0]  # the cube stays with alice
    assert caps[games[0]["last"]].endswith("alice wins 2 points")
    drop = frames[games[1]["last"]]
    assert drop["caption"] == "alice drops: bob wins 1 point (C.2)"
    assert frames[games[2]["first"]]["board"]["cube"] == [1, -1]  # a new game: the cube centred
    # gnubg shifts the right column after a long play: still player_1's double
    assert "22: 22/20 20/18 18/16 16/14  Doubles => 2" in text


@pytest.mark.parametrize(
    "body, msg",
    [
        (
            " 1) 31: 8/5 6/5                      Doubles => 4",
            "line 5 (game 1, move 1): b doubles to 4 but the cube is at 1 (expected Doubles => 2)",
        ),
        (" 1) 31: 8/5 6/5                      Takes", "nothing was doubled"),
        (
            " 1) 31: 8/5 6/5                      Doubles => 2\n 2) 42: 8/4 6/4",
            "plays on after a double",
        ),
        (
            " 1) 31: 8/5 6/5                      Doubles => 2\n 2) Drops\n 3) 42: 8/4 6/4",
            "after the double was dropped",
        ),
        (
            " 1) 31: 8/5 6/5                      Doubles => 2\n 2) Beavers",
            "(game 1, move 2): a beavers: no beavers in these rules (a double is taken or "
            "dropped, C.2)",
        ),
        (
            " 1) 31: 8/5 6/5                      Doubles => 2\n 2) Drops\n 3) 42: 8/4 6/4",
            "after the double was dropped",
        ),
        (
            " 1) 31: 8/5 6/5                      Doubles => 2\n 2)                       Takes",
            "b takes its own double",
        ),
        (" 1) 31: 8/5 6/5  42: 24/20 13/11  65: 24/13", "more than two turns in one line"),
        (" 1) hello 31: 8/5 6/5", "cannot read"),
    ],
)
def test_malformed_match_files_name_the_problem(client, body, msg):
    text = " 5 point match\n\n Game 1\n a : 0                         b : 0\n" + body + "\n"
    r = client.post("/api/replay", json={"text": text})
    assert r.status_code == 400 and msg in r.json()["error"], r.json()
    second = (
        " 5 point match\n\n Game 1\n a : 0                         b : 0\n"
        " 1) 31: 8/5 6/5\n      Wins 1 point\n\n Game 2\n a : 1                         b : 0\n"
        " 1) 31: 8/5 6/9\n"
    )
    r = client.post("/api/replay", json={"text": second})
    assert (
        r.status_code == 400
        and "line 10 (game 2, move 1): a rolled 3-1: move 6/9" in (r.json()["error"])
    )


def test_replay_a_pdn_file_of_several_games(client):
    texts = []
    for seed, fen in ((1, None), (2, WIN_FEN)):
        _, v = new(
            client, game="draughts", mode="watch", agents=["greedy", "random"], seed=seed, fen=fen
        )
        while not v["over"]:
            v = client.post(f"/api/games/{v['id']}/step").json()
        texts.append(client.get(f"/api/games/{v['id']}/record").text)
    data = client.post("/api/replay", json={"text": texts[0] + "\n" + texts[1]}).json()
    games = data["match"]["games"]
    assert data["match"]["kind"] == "pdn" and len(games) == 2
    assert games[0]["white"] == "greedy" and games[1]["first"] == games[0]["last"] + 1
    assert data["frames"][games[1]["first"]]["caption"].startswith("game 2: greedy - random")
    assert data["frames"][games[1]["first"] + 1]["caption"] == "1. b4:d6:f8"
    one = client.post("/api/replay", json={"text": texts[0]}).json()
    assert one["match"] is None and len(one["frames"]) == games[0]["last"] + 1
    assert one["frames"][1:] == data["frames"][1 : games[0]["last"] + 1]
    bad = texts[0] + "\n" + texts[1].replace("b4:d6:f8", "b4:d6:h8")
    r = client.post("/api/replay", json={"text": bad})
    assert r.status_code == 400 and "game 2: PDN move 1 'b4:d6:h8'" in r.json()["error"]


def test_the_agent_doubles_and_the_person_drops(client):
    _, v = new(
        client, game="backgammon", agent="td", cube=True, position_id="dwMAAMDbAAAAAA", seed=0
    )
    for _ in range(4):
        if v["cube_choices"] == ["take", "drop"]:
            break
        _, v = (
            act(client, v, cube="roll")
            if v["cube_choices"]
            else act(client, v, action=v["legal"][0]["action"])
        )
    assert v["cube_choices"] == ["take", "drop"] and v["log"][-1] == "td doubles to 2"
    status, e = act(client, v, cube="double")
    assert status == 400 and "(choose take or drop)" in e["error"]
    _, v = act(client, v, cube="drop")
    assert v["over"] and "td wins (player_1): you dropped the double (C.2): 1 point" in v["result"]


@pytest.mark.parametrize(
    "text, msg",
    [
        ("}" + "{" * 500_000, "a { comment is not closed by }"),
        (
            " \n" * 300_000 + "x",
            "cannot read this record",
        ),  # many blank lines: no quadratic regex scan
        ("a" * 500_000, "PDN move 1 'aaaa"),
    ],
)
def test_hostile_records_are_refused_quickly_with_a_short_message(client, text, msg):
    import time

    t0 = time.monotonic()
    r = client.post("/api/replay", json={"text": text})
    assert r.status_code == 400 and msg in r.json()["error"]
    assert len(r.json()["error"]) <= 400 and time.monotonic() - t0 < 10


def test_a_huge_fen_is_refused(client):
    status, e = new(client, game="draughts", fen="W" + " " * 500_000 + "x")
    assert status == 400 and "far too long" in e["error"]


def test_random_match_and_pdn_text_never_breaks_the_reader():
    """Hostile record text built from the formats' own pieces: frames or a ValueError, never
    anything else (the endpoint turns a ValueError into a 400 shown in the page)."""
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    pieces = st.sampled_from(
        [
            " 5 point match",
            " 0 point match",
            " Game 1",
            " Game 2",
            " a : 0      b : 0",
            "  1) ",
            "  2) ",
            "31:",
            "66:",
            "8/5",
            "6/5",
            "25/22",
            "bar/20",
            "6/0",
            "6/off",
            "13/7*",
            "Doubles => 2",
            "Doubles => 4",
            "Takes",
            "Drops",
            "Wins 1 point",
            "Wins",
            "Beavers",
            "\n",
            " ",
            "                              ",
            '[Event "x"]',
            '[FEN "W:W21:B1"]',
            "1.",
            "c3-d4",
            "f6-e5",
            "b4:d6",
            "2-0",
            "*",
            "{",
            "}",
            "1)",
            ":",
            "=>",
        ]
    )

    @hypothesis.settings(max_examples=150, deadline=None, derandomize=True)
    @hypothesis.given(st.lists(pieces, max_size=40))
    def check(parts):
        text = "".join(parts)
        try:
            game, frames, match = serve.replay_frames(text)
        except ValueError:
            return
        assert game in ("draughts", "backgammon") and frames
        if match is not None:
            assert match["games"][-1]["last"] == len(frames) - 1

    check()


def test_boards_carry_the_last_move_in_watch_and_replay(client):
    _, v = new(client, game="draughts", mode="watch", agents=["greedy", "greedy"], fen=WIN_FEN)
    assert v["board"]["last_move"] == []
    while v["board"]["capturing"] >= 0 or v["board"]["last_move"] == []:
        v = client.post(f"/api/games/{v['id']}/step").json()
    b4, d6, f8 = (dr_api.parse_square(q) for q in ("b4", "d6", "f8"))
    assert v["board"]["last_move"] == [b4, d6, f8]  # the capture's whole path
    pdn = f'[GameType "25"]\n[FEN "{WIN_FEN}"]\n1. b4xf8 *\n'  # short form: every square found
    _, frames, _ = serve.replay_frames(pdn)
    assert [f["board"]["last_move"] for f in frames] == [[], [b4, d6, f8]]
    _, frames, _ = serve.replay_frames(
        " 0 point match\n\n Game 1\n player_0 : 0   player_1 : 0\n  1) 31: 8/5 6/5\n"
    )
    assert frames[-1]["board"]["last_move"] == {"player": 0, "moves": [[8, 5], [6, 5]]}


def test_the_agent_workers_go_when_the_server_shuts_down():
    """serve took 2-4 s to exit on SIGTERM: its workers outlived it. The app closes its pool in
    its own shutdown, which uvicorn runs on SIGTERM and Ctrl-C before it exits."""

    class FakePool:
        closed = 0

        def close(self):
            self.closed += 1

    pool = FakePool()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with TestClient(serve.make_app(pool=pool)) as c:
            assert c.get("/api/agents").status_code == 200
            assert pool.closed == 0
    assert pool.closed == 1


def test_a_position_where_the_game_is_over_is_refused(client):
    """A Position ID with one checker against none started a game that ended at once."""
    from boardgym.envs import backgammon_notation as bg

    board = [[0] * 25, [0] * 25]
    board[0][0] = 1  # one side has one checker left, the other has borne off all 15
    pid = bg.position_id(bg.state_from_board(board, 0))
    r = client.post(
        "/api/games", json={"game": "backgammon", "agent": "greedy", "position_id": pid}
    )
    assert r.status_code == 400
    error = r.json()["error"]
    assert "the game is over in this position: the player on roll has borne off all 15" in error
    with pytest.raises(ValueError, match="its opponent has borne off all 15"):
        bg.check_playable(bg.position_from_id(bg.position_id(bg.state_from_board(board[::-1], 0))))
