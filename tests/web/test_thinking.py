"""The agents' worker pool (scripts/web/thinking.py) and the client limits: moves played in
worker processes are the agents' own, a move past the cap is stopped (its worker killed and
replaced) while another game's move is answered at once, a pool busy for too long says so, and
a client cannot ask for a deeper search, a longer time or more games than the server allows."""

import threading
import time
import warnings
from types import SimpleNamespace

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from boardgym.agents.arena.sessions import BackgammonGame, DraughtsGame, load_agent  # noqa: E402
from boardgym.scripts.web import app as serve  # noqa: E402
from boardgym.scripts.web.fields import BadRequest  # noqa: E402
from boardgym.scripts.web.session import Limits  # noqa: E402
from boardgym.scripts.web.thinking import Busy, Pool, TooSlow, agent_key, think  # noqa: E402


def settings(game, agent, **kw):
    base = dict(
        game=game,
        agent=agent,
        seed=0,
        fen=None,
        position_id=None,
        dice=None,
        cube=False,
        depth=None,
        time_limit=None,
        agent_option=[],
    )
    return SimpleNamespace(**{**base, **kw})


SLOW = settings("draughts", "alphabeta", depth=30)  # minutes of search: never done in the cap


@pytest.fixture(scope="module")
def pool():
    p = Pool(2, cap=3.0, wait=60.0)
    assert p.ready(600), "the workers did not warm up in 600 s"
    yield p
    p.close()


def test_a_workers_move_is_the_agents_own(pool):
    for game, agent, cls in [
        ("draughts", "greedy", DraughtsGame),
        ("draughts", "alphabeta", DraughtsGame),
        ("backgammon", "td", BackgammonGame),
    ]:
        cfg = settings(game, agent, depth=2 if agent == "alphabeta" else None)
        if game == "backgammon":  # the net at 1-ply: well inside the 3 s cap on a busy machine
            cfg.agent_option = ["plies=1"]
        g = cls(cfg, ("a", "b"))
        local = load_agent(cfg)
        for _ in range(12):
            if g.env.is_over:
                break
            here = think(local, g)
            there = pool.think(cfg, g)
            assert there == here, (game, agent)
            g.step(there[0])


def test_a_move_past_the_cap_is_stopped_and_others_go_on(pool):
    slow_game = DraughtsGame(SLOW, ("a", "b"))
    caught = {}

    def slow():
        t0 = time.monotonic()
        try:
            pool.think(SLOW, slow_game)
        except TooSlow as e:
            caught["error"], caught["seconds"] = e, time.monotonic() - t0

    killed = pool.killed
    thread = threading.Thread(target=slow)
    thread.start()
    time.sleep(0.5)  # the slow move holds one worker; the other answers another game at once
    fast = settings("draughts", "greedy")
    t0 = time.monotonic()
    pool.think(fast, DraughtsGame(fast, ("a", "b")))
    assert time.monotonic() - t0 < 2.0
    thread.join(timeout=60)
    assert caught["error"].status == 503 and "cap of 3 s" in str(caught["error"])
    assert 2.9 < caught["seconds"] < 10 and pool.killed == killed + 1
    assert pool.ready(600)  # the killed worker was replaced
    assert pool.think(fast, DraughtsGame(fast, ("a", "b")))[0] >= 0


def test_slow_agents_leave_a_worker_to_the_quick_ones(pool):
    slower = settings("draughts", "alphabeta", depth=29)  # another slow agent: its own key
    for cfg in (SLOW, slower):
        pool.costs[agent_key(cfg)] = 30.0  # known to be slow
    assert pool.is_slow(agent_key(SLOW)) and not pool.is_slow(agent_key(settings("x", "y")))
    times = {}

    def move(name, cfg):
        t0 = time.monotonic()
        try:
            pool.think(cfg, DraughtsGame(cfg, ("a", "b")))
        except TooSlow:
            pass
        times[name] = time.monotonic() - t0

    first = threading.Thread(target=move, args=("first", SLOW))
    first.start()
    time.sleep(0.5)
    second = threading.Thread(target=move, args=("second", slower))
    second.start()  # waits: the other worker is kept for quick moves
    time.sleep(0.5)
    fast = settings("draughts", "greedy")
    t0 = time.monotonic()
    pool.think(fast, DraughtsGame(fast, ("a", "b")))
    assert time.monotonic() - t0 < 2.0
    first.join(timeout=60)
    second.join(timeout=60)
    assert times["second"] > 4.5  # its move (stopped at the 3 s cap) began after the first one
    assert pool.ready(600)


def test_a_pool_busy_for_too_long_says_so():
    p = Pool(1, cap=30.0, wait=0.5)
    try:
        assert p.ready(600)

        def occupy():  # the one worker, until the pool is closed under it
            with pytest.raises(BadRequest):
                p.think(SLOW, DraughtsGame(SLOW, ("a", "b")))

        thread = threading.Thread(target=occupy)
        thread.start()
        time.sleep(0.3)
        fast = settings("draughts", "greedy")
        with pytest.raises(Busy, match="busy"):
            p.think(fast, DraughtsGame(fast, ("a", "b")))
    finally:
        p.close()
        thread.join(timeout=60)


def test_games_through_the_app_with_the_pool(pool):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = TestClient(serve.make_app(pool=pool))
    v = c.post(
        "/api/games", json={"game": "backgammon", "mode": "watch", "agents": ["td", "greedy"]}
    )
    v = v.json()
    for _ in range(10):
        v = c.post(f"/api/games/{v['id']}/step").json()
    assert v["actions"] >= 10 and v["evaluation"].startswith("td: equity")
    body = {"game": "backgammon", "mode": "watch", "agents": ["greedy", "random"], "match": 3}
    m = c.post("/api/games", json=body).json()  # a match: its game goes to the workers too
    assert "error" not in m, m
    for _ in range(10):
        m = c.post(f"/api/games/{m['id']}/step").json()
        assert "error" not in m, m
    assert m["actions"] >= 10 and m["match"]["length"] == 3 and "error" not in m
    r = c.post(
        "/api/games",
        json={
            "game": "draughts",
            "mode": "watch",
            "agents": ["alphabeta", "greedy"],
            "agent_settings": [{"depth": 30}, None],
        },
    )
    sid = r.json()["id"]
    r = c.post(f"/api/games/{sid}/step")
    assert r.status_code == 503 and "within the server's cap" in r.json()["error"]
    assert c.get(f"/api/games/{sid}").json()["actions"] == 0  # the game is as it was


def test_clients_cannot_ask_for_more_than_the_server_allows():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = TestClient(
            serve.make_app(limits=Limits(max_depth=8, max_think=2.0), max_client_games=2)
        )
    for body, text in [
        ({"agent": "alphabeta", "depth": 9}, "'depth' 9 is more than this server allows (8)"),
        ({"agent": "alphabeta", "time_limit": 3}, "'time_limit' 3 s is more than this server"),
        (
            {
                "mode": "watch",
                "agents": ["greedy", "alphabeta"],
                "agent_settings": [None, {"depth": 20}],
            },
            "player_1 (alphabeta): 'depth' 20 is more",
        ),
    ]:
        r = c.post("/api/games", json={"game": "draughts", **body})
        assert r.status_code == 400 and text in r.json()["error"], r.json()
    a = c.post("/api/games", json={"game": "draughts"}).json()
    c.post("/api/games", json={"game": "draughts"})
    r = c.post("/api/games", json={"game": "draughts"})
    assert r.status_code == 429 and "2 unfinished games" in r.json()["error"]
    assert c.get(f"/api/games/{a['id']}").status_code == 200
