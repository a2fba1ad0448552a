"""The web board's HTTP API (scripts/serve.py) through Starlette's TestClient: games kept on the
server, every action checked against the kernels' legal mask, every bad request answered with a
JSON error (never a crash), many games at once, records and replay."""
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette's note about httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from boardgym.envs import draughts as dr_api  # noqa: E402
from boardgym.envs import draughts_pdn  # noqa: E402
from boardgym.scripts import serve  # noqa: E402

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
    assert "you (player_0) wins" in v["result"] and "(G.1)" in v["result"]
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
    for body, text in [({"action": 5}, "illegal move"), ({"action": -1}, "illegal move"),
                       ({"action": 10 ** 30}, "illegal move"),
                       ({"action": "c3-d4"}, "'action' must be an integer, got str"),
                       ({"action": True}, "'action' must be an integer, got bool"),
                       ({"action": 1.5}, "'action' must be an integer, got float"),
                       ({}, "give 'action'"),
                       ({"cube": "double"}, "no doubling cube")]:
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


@pytest.mark.parametrize("body, text", [
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
])
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
    assert any("takes" in line for line in v["log"])
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
    for text, msg in [("", "paste or upload"), ("1. c3-d9", "cannot read this record"),
                      ('[GameType "20"]\n1. c3-d4', "not Russian draughts"),
                      (" 3 point match\n Game 1\n  1) 99: 8/5", "cannot read this record")]:
        r = client.post("/api/replay", json={"text": text})
        assert r.status_code == 400 and msg in r.json()["error"], r.json()
    assert client.post("/api/replay", json={"text": 5}).json()["error"] == \
        "'text' must be a string, got int"


def test_serve_settings_refuse_bad_ports():
    from boardgym.scripts import cli
    with pytest.raises(cli.UsageError, match="--port must be 0..65535"):
        serve.main(["--port", "70000"])
