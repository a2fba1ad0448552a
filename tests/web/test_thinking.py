"""The agents' worker pool (scripts/web/thinking.py) and the client limits: moves played in
worker processes are the agents' own, a move past the cap is stopped (its worker killed and
replaced) while another game's move is answered at once, a pool busy for too long says so,
quick agents' moves are played in the server's process, what the pool keeps stays bounded, and
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
from boardgym.scripts.web import thinking  # noqa: E402
from boardgym.scripts.web.fields import BadRequest  # noqa: E402
from boardgym.scripts.web.session import Limits  # noqa: E402
from boardgym.scripts.web.thinking import (  # noqa: E402
    Agents,
    Busy,
    Pool,
    TooSlow,
    agent_key,
    release_freed_memory,
    settings_key,
    think,
)


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
        pool.costs[settings_key(cfg)] = 30.0  # known to be slow
    assert pool.is_slow(settings_key(SLOW)) and not pool.is_slow(settings_key(settings("x", "y")))
    assert pool.is_slow(settings_key(settings("draughts", "alphabeta", depth=30, seed=7)))
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
    v = c.post(  # the net at 1-ply: well inside the 3 s cap on a busy machine
        "/api/games",
        json={
            "game": "backgammon",
            "mode": "watch",
            "agents": ["td", "greedy"],
            "agent_settings": [{"options": "plies=1"}, None],
        },
    )
    v = v.json()
    assert "error" not in v, v
    for _ in range(10):
        v = c.post(f"/api/games/{v['id']}/step").json()
        assert "error" not in v, v
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


def test_quick_agents_move_in_the_servers_process_and_slow_ones_never(pool):
    quick = settings("draughts", "greedy", seed=11)
    g = DraughtsGame(quick, ("a", "b"))
    local = load_agent(quick)
    pool.costs.pop(settings_key(quick), None)  # not seen yet (earlier tests played greedy)
    here, there = pool.moves["here"], pool.moves["workers"]
    n = 0
    while n < 12 and not g.env.is_over:
        mine = think(local, g)
        assert pool.think(quick, g) == mine
        g.step(mine[0])
        n += 1
    # the first move of settings not seen yet went to a worker; the greedy player's later
    # moves (well under QUICK_MOVE of CPU) were played here, with the same agent's choices
    assert pool.moves["workers"] == there + 1 and pool.moves["here"] == here + n - 1
    assert pool.is_quick(settings_key(quick))
    assert pool.is_quick(settings_key(settings("draughts", "greedy", seed=12)))  # seed apart
    assert not pool.is_quick(settings_key(SLOW)) and len(pool.local) <= thinking.MAX_AGENTS
    # a quick setting whose move takes longer goes back to the workers
    pool._record(settings_key(quick), 2 * thinking.SLOW_MOVE)
    pool.think(quick, g)
    assert pool.moves["workers"] == there + 2


def test_what_the_pool_keeps_is_bounded():
    agents = Agents(3)
    for seed in range(40):  # one agent per game's seed: never more than the cap kept
        cfg = settings("draughts", "greedy", seed=seed)
        (action, _), seconds = agents.think(agent_key(cfg), cfg, DraughtsGame(cfg, ("a", "b")))
        assert action >= 0 and 0 <= seconds < 5 and len(agents) <= 3
    kept = [settings("draughts", "greedy", seed=s) for s in (37, 38, 39)]
    assert list(agents._agents) == [agent_key(c) for c in kept]  # the most recently used
    with pytest.raises(ValueError, match="size must be at least 1"):
        Agents(0)
    p = Pool.__new__(Pool)  # the cost table alone: no workers
    p.costs, p._costs_lock, p.moves = thinking.OrderedDict(), threading.Lock(), {}
    for k in range(thinking.MAX_COSTS + 50):
        p._record(settings_key(settings("draughts", "alphabeta", depth=1 + k % 64, seed=k)), 0.1)
        assert len(p.costs) <= thinking.MAX_COSTS
    assert len(p.costs) == 64  # the seed is not part of the settings' cost


def test_freed_memory_goes_back_to_the_system():
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("glibc's mallopt")
    assert release_freed_memory()


def test_a_workers_turn_is_the_agents_actions_one_by_one(pool):
    import copy

    cfg = settings("backgammon", "td", agent_option=["plies=1"], seed=3)
    g = BackgammonGame(cfg, ("a", "b"))
    local = load_agent(cfg)
    turns = 0
    while turns < 4 and not g.env.is_over:
        pool.costs.pop(settings_key(cfg), None)  # not (yet) quick: played in a worker
        player = g.env.agent_selection
        mine, mirror = [], copy.deepcopy(g)
        while not mirror.env.is_over and mirror.env.agent_selection == player:
            mine.append(think(local, mirror))
            mirror.step(mine[-1][0])
        there = pool.turn(cfg, g)
        assert there == mine and len(there) >= 1
        for action, _ in there:
            g.step(action)
        turns += 1
    assert turns == 4 and any(len(t) > 1 for t in [there, mine])


def test_a_td_turn_is_searched_once_and_shows_the_equity_of_its_play():
    """Every checker move of the td agent's play shows the equity of the play it chose, the
    best of its own search's values at the start of the play, and the whole turn searches once
    (the equity shown comes from the search that chose the play, not from a second one)."""
    from boardgym.kernels.backgammon import game as bg_core
    from boardgym.scripts.web.thinking import think_turn

    cfg = settings("backgammon", "td", seed=3)
    agent = load_agent(cfg)
    g = BackgammonGame(cfg, ("a", "b"))
    turns = 0
    while turns < 4 and not g.env.is_over:
        state = g.env.state.copy()
        d1, d2 = bg_core.dice_of(state)
        if d1 == 0 or not bg_core.can_move(state):  # a cube decision or a lost roll
            g.step(g.choose(agent))
            continue
        best = float(agent.scores(agent.afterstates(state, d1, d2)).max())
        before = agent.search_info["decisions"]
        out = think_turn(agent, g)
        assert agent.search_info["decisions"] == before + 1
        assert len(out) >= 1 and all(text == f"equity {best:+.3f}" for _, text in out), out
        turns += 1
    assert turns == 4
