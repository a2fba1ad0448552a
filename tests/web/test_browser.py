"""The web board end to end in headless Chromium (Playwright for Python, the system's chromium):
play draughts to its end by clicks (a capture chain hop by hop that crowns), backgammon turns with
a lost roll and bar entry, a double the agent drops, watch two agents, replay a PDN game and a
match file both ways, a malformed upload shown in the page, screenshots of both boards.

Set BOARDGYM_UPDATE_SCREENSHOTS=1 to also write scripts/web/screenshots/draughts-board.png and
scripts/web/screenshots/backgammon-board.png (the README's pictures)."""

import io
import os
from pathlib import Path

import pytest
from web_api import api

from boardgym.envs import backgammon_match, draughts_pdn
from boardgym.envs import backgammon_notation as bg_api
from boardgym.envs import draughts as dr_api

ROOT = Path(__file__).resolve().parents[2]
WIN_FEN = "W:Wb4,e1,g1:Bc5,e7,h6"  # b4:d6:f8 takes two, crowned on the last row (25.5)
# gnubg boards [opponent, player on roll], index = point - 1 from that side's view, 24 = the bar
BAR_BOARD = [[2, 2, 2, 2, 2, 0] + [0] * 6 + [5] + [0] * 12, [0] * 5 + [14] + [0] * 18 + [1]]
WIN_BOARD = [[0] * 18 + [15] + [0] * 6, [5, 5, 5] + [0] * 22]


def board_id(board):
    return bg_api.position_id(bg_api.state_from_board(board, 0))


def start(page, url, game, agent="greedy", **fields):
    page.goto(f"{url}/{game}")
    page.wait_for_selector(f"#agent option[value={agent}]", state="attached")
    settle(page)  # (a reload finds this tab's last game again)
    page.select_option("#mode", "play")
    page.select_option("#agent", agent)
    for selector, value in fields.items():
        if value is True:
            page.check(f"#{selector}")
        else:
            page.fill(f"#{selector}", str(value))
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#new-game")
    settle(page)
    page.wait_for_selector("#board-svg")


def settle(page):
    """Wait until the page has drawn the answers of its requests."""
    page.wait_for_selector('body[data-pending="0"]', state="attached")


def click_dest(page):
    with page.expect_response(lambda r: "/action" in r.url):
        page.locator("g.target:has(.dest)").first.click()
    settle(page)


def click_a_move(page):
    """Play the first highlighted move: a destination if one is shown, else a piece first."""
    if page.locator("g.target:has(.dest)").count() == 0:
        page.locator("g.target:has(.movable)").first.click()
    click_dest(page)


def check_picture(path):
    """The screenshot at path is a picture (many colours, the board not one flat colour)."""
    from PIL import Image

    img = Image.open(io.BytesIO(path.read_bytes())).convert("RGB")
    assert img.size[0] > 600 and img.size[1] > 400
    colours = img.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50
    assert max(n for n, _ in colours) < 0.8 * img.size[0] * img.size[1]


def test_draughts_game_by_clicks_to_its_end(page, server_url, tmp_path):
    start(page, server_url, "draughts", fen=WIN_FEN)
    assert "your move" in page.inner_text("#status")
    page.click("g[data-name=b4]")
    assert page.locator("g.target:has(.dest)").count() == 1  # b4 x c5 -> d6 is forced (25.1)
    click_dest(page)  # first hop: b4 -> d6
    assert "go on capturing" in page.inner_text("#status")
    assert page.locator("g[data-name=f8]:has(.dest)").count() == 1  # d6 x e7 -> f8 only
    page.screenshot(path=str(tmp_path / "draughts-mid-chain.png"))
    check_picture(tmp_path / "draughts-mid-chain.png")
    click_dest(page)  # second hop: crowned on f8 (25.5)
    for _ in range(40):
        if "game over" in page.inner_text("#status"):
            break
        click_a_move(page)
    status = page.inner_text("#status")
    assert "you win (player_0)" in status and "(G.1)" in status
    with page.expect_download() as info:
        page.click("#download")
    pdn = Path(info.value.path()).read_text()
    _, fen, moves, result, final = draughts_pdn.read_pdn(pdn)
    assert moves[0] == "b4:d6:f8" and result == "2-0"
    state = dr_api.from_fen(fen)
    for move in moves:
        state = dr_api.apply(state, move)
    assert dr_api.to_fen(state) == dr_api.to_fen(final)
    assert dr_api.legal_moves(state) == [] and "B:" in dr_api.to_fen(state)  # Black is done
    assert "K" in dr_api.to_fen(dr_api.apply(dr_api.from_fen(fen), moves[0]))  # crowned


def test_backgammon_lost_rolls_and_bar_entry_by_clicks(page, server_url):
    start(page, server_url, "backgammon", **{"position-id": board_id(BAR_BOARD), "seed": 0})
    assert "cannot move" in page.inner_text("#log")  # E.3: the first roll had no entry
    entered = False
    for _ in range(30):
        if page.evaluate("view.board.bar[0]") == 0:
            entered = True
            break
        assert page.evaluate("view.legal.every(m => m.from === 25)")  # the bar first (E.1)
        page.click("g.bar")
        click_dest(page)
    assert entered
    assert page.locator("#error").is_hidden()


def test_backgammon_double_dropped_by_the_agent(page, server_url):
    start(
        page,
        server_url,
        "backgammon",
        agent="td",
        **{"position-id": board_id(WIN_BOARD), "cube": True},
    )
    assert "roll or double" in page.inner_text("#status")
    assert page.is_enabled("#cube-double") and not page.is_enabled("#cube-take")
    with page.expect_response(lambda r: "/action" in r.url):
        page.click("#cube-double")
    settle(page)
    status = page.inner_text("#status")
    assert "you win (player_0): td dropped the double (C.2): 1 point" in status


def test_an_illegal_request_shows_its_error(page, server_url):
    start(page, server_url, "draughts")
    with page.expect_response(lambda r: "/action" in r.url):
        page.evaluate("send({action: 5})")  # a hand-made request: not a legal move
    settle(page)
    assert page.locator("#error").is_visible()
    assert "illegal move (action 5)" in page.inner_text("#error")
    page.fill("#fen", "W:W99:B1")
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#new-game")
    settle(page)
    assert "square" in page.inner_text("#error")


def test_watch_two_agents(page, server_url):
    page.goto(f"{server_url}/draughts")
    page.wait_for_selector("#agent0 option[value=random]", state="attached")
    page.select_option("#mode", "watch")
    page.select_option("#agent1", "random")
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#watch-new")
    with page.expect_response(lambda r: "/step" in r.url):
        page.click("#watch-step")
    settle(page)
    assert page.inner_text("#log").startswith("greedy (White) played")
    page.fill("#speed", "20")
    page.click("#watch-run")
    page.wait_for_function("() => view.log.length >= 4", timeout=30_000)
    page.click("#watch-pause")
    settle(page)
    paused = page.evaluate("view.log.length")
    page.wait_for_timeout(400)  # paused: no more moves
    assert page.evaluate("view.log.length") == paused and not page.evaluate("view.over")
    page.click("#watch-run")
    page.wait_for_function("() => view && view.over", timeout=60_000)
    assert "game over" in page.inner_text("#status")


def _record(url, game):
    v = api(
        f"{url}/api/games",
        {"game": game, "mode": "watch", "agents": ["greedy", "random"], "seed": 2},
    )
    while not v["over"]:
        v = api(f"{url}/api/games/{v['id']}/step", {})
    return api(f"{url}/api/games/{v['id']}/record")


@pytest.mark.parametrize("game", ["draughts", "backgammon"])
def test_replay_a_record_both_ways(page, server_url, tmp_path, game):
    text = _record(server_url, game)
    n = (
        len(draughts_pdn.read_pdn(text)[2])
        if game == "draughts"
        else len(backgammon_match.read_match_text(text)[0])
    )
    page.goto(f"{server_url}/{game}")
    page.select_option("#mode", "replay")
    path = tmp_path / ("game.pdn" if game == "draughts" else "game.mat")
    path.write_text(text)
    with page.expect_response(lambda r: "/api/replay" in r.url):
        page.set_input_files("#replay-file", str(path))
    settle(page)
    assert page.inner_text("#replay-pos") == f"position 0 of {n}"
    page.click("#replay-forward")
    page.click("#replay-forward")
    assert page.inner_text("#replay-pos") == f"position 2 of {n}"
    page.click("#replay-last")
    assert page.inner_text("#replay-pos") == f"position {n} of {n}"
    page.click("#replay-forward")  # stays at the end
    assert page.inner_text("#replay-pos") == f"position {n} of {n}"
    for _ in range(n):
        page.click("#replay-back")
    assert page.inner_text("#replay-pos") == f"position 0 of {n}"
    assert page.locator("#error").is_hidden()


@pytest.mark.parametrize(
    "game, name, text, message",
    [
        (
            "draughts",
            "bad.pdn",
            '[GameType "25"]\n1. c3-d4 f6-e5 2. zz-qq *\n',
            "PDN move 3 'zz-qq'",
        ),
        (
            "backgammon",
            "bad.mat",
            " 3 point match\n\n Game 1\n a : 0                 b : 0\n"
            "  1) 31: 8/5 6/5                      Doubles => 8\n",
            "b doubles to 8 but the cube is at 1",
        ),
    ],
)
def test_a_malformed_upload_shows_its_error(page, server_url, tmp_path, game, name, text, message):
    page.goto(f"{server_url}/{game}")
    page.select_option("#mode", "replay")
    bad = tmp_path / name
    bad.write_text(text)
    with page.expect_response(lambda r: "/api/replay" in r.url):
        page.set_input_files("#replay-file", str(bad))
    page.wait_for_selector("#error:not([hidden])")
    assert "cannot read this record" in page.inner_text("#error")
    assert message in page.inner_text("#error")


def test_replay_a_pdn_file_of_two_games(page, server_url):
    texts = []
    for seed in (1, 2):
        v = api(
            f"{server_url}/api/games",
            {"game": "draughts", "mode": "watch", "agents": ["greedy", "random"], "seed": seed},
        )
        while not v["over"]:
            v = api(f"{server_url}/api/games/{v['id']}/step", {})
        texts.append(api(f"{server_url}/api/games/{v['id']}/record"))
    page.goto(f"{server_url}/draughts")
    page.select_option("#mode", "replay")
    page.fill("#replay-text", "\n".join(texts))
    with page.expect_response(lambda r: "/api/replay" in r.url):
        page.click("#replay-load")
    settle(page)
    assert page.locator("#replay-game option").count() == 2
    assert page.inner_text("#replay-score").startswith("game 1 of 2 · greedy - random")
    page.select_option("#replay-game", "1")
    assert page.inner_text("#replay-score").startswith("game 2 of 2")
    assert page.inner_text("#status").startswith("game 2: greedy - random: start")
    page.click("#replay-back")  # back into game 1's last position
    assert page.inner_text("#replay-score").startswith("game 1 of 2")


def test_screenshots_of_both_boards(page, server_url, tmp_path):
    update = os.environ.get("BOARDGYM_UPDATE_SCREENSHOTS") == "1"
    start(page, server_url, "draughts", seed=1)
    for _ in range(3):
        click_a_move(page)
    if page.locator("g.target:has(.movable)").count():
        page.locator("g.target:has(.movable)").last.click()  # show a piece's destinations
    assert page.locator("g.target:has(.dest)").count() > 0
    shots = {"draughts": tmp_path / "draughts-board.png"}
    page.screenshot(path=str(shots["draughts"]))
    start(page, server_url, "backgammon", seed=4, cube=True)
    if page.is_enabled("#cube-roll"):
        with page.expect_response(lambda r: "/action" in r.url):
            page.click("#cube-roll")
        settle(page)
    if page.locator("g.target:has(.movable)").count():
        page.locator("g.target:has(.movable)").first.click()
    assert page.locator("g.target:has(.dest)").count() > 0
    shots["backgammon"] = tmp_path / "backgammon-board.png"
    page.screenshot(path=str(shots["backgammon"]))
    for game, path in shots.items():
        check_picture(path)
        if update:
            out = ROOT / "scripts" / "web" / "screenshots" / f"{game}-board.png"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(path.read_bytes())


def test_two_tabs_play_two_games(browser, server_url):
    context = browser.new_context(viewport={"width": 1400, "height": 760})
    try:
        tabs = [context.new_page(), context.new_page()]
        for tab in tabs:  # (the tab in front: a background tab's timers are slowed to 1 s)
            tab.bring_to_front()
            start(tab, server_url, "draughts")
        first = [tab.evaluate("view.id") for tab in tabs]
        assert first[0] != first[1]
        before = tabs[1].evaluate("JSON.stringify(view.board)")
        tabs[0].bring_to_front()
        click_a_move(tabs[0])
        assert "you (White) played" in tabs[0].inner_text("#log")
        tabs[1].bring_to_front()
        with tabs[1].expect_response(lambda r: "/api/games/" in r.url):
            tabs[1].evaluate(
                "api('GET', `/api/games/${view.id}`).then((v) => { view = v; render(); })"
            )
        settle(tabs[1])
        assert tabs[1].evaluate("JSON.stringify(view.board)") == before
        assert tabs[1].inner_text("#log") == ""
    finally:
        context.close()


# ----------------------------------------------------------------------------- what came later
DATA = Path(__file__).parent / "data"


def test_watch_with_each_agents_settings_and_its_errors(page, server_url):
    page.goto(f"{server_url}/draughts")
    page.wait_for_selector("#agent0 option[value=alphabeta]", state="attached")
    page.select_option("#mode", "watch")
    page.select_option("#agent0", "alphabeta")
    page.fill("#depth0", "2")
    page.fill("#options0", "tt_bits=12")
    page.fill("#depth1", "3")  # greedy takes no depth: the error names the agent
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#watch-new")
    settle(page)
    assert "player_1 (greedy): agent greedy takes no option 'depth'" in page.inner_text("#error")
    page.fill("#depth1", "")
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#watch-new")
    settle(page)
    assert page.locator("#error").is_hidden()
    with page.expect_response(lambda r: "/step" in r.url):
        page.click("#watch-step")
    settle(page)
    assert "at depth 2" in page.inner_text("#evaluation")
    assert "[alphabeta: score" in page.inner_text("#log")


def test_watch_backgammon_and_download_its_match(page, server_url):
    page.goto(f"{server_url}/backgammon")
    page.wait_for_selector("#agent0 option[value=td]", state="attached")
    page.select_option("#mode", "watch")
    page.select_option("#agent0", "td")
    page.check("#watch-cube")
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#watch-new")
    settle(page)
    page.fill("#speed", "60")
    page.click("#watch-run")
    page.wait_for_function("() => view && view.over", timeout=60_000)
    assert "[td: equity" in page.inner_text("#log")
    with page.expect_download() as info:
        page.click("#watch-download")
    text = Path(info.value.path()).read_text()
    assert info.value.suggested_filename == "game.mat" and "Wins" in text
    page.select_option("#mode", "replay")  # and back through the replay
    page.fill("#replay-text", text)
    with page.expect_response(lambda r: "/api/replay" in r.url):
        page.click("#replay-load")
    settle(page)
    page.click("#replay-last")
    assert "wins" in page.inner_text("#status") and page.locator("#error").is_hidden()


def test_replay_a_whole_match_with_the_cube_both_ways(page, server_url):
    page.goto(f"{server_url}/backgammon")
    page.select_option("#mode", "replay")
    with page.expect_response(lambda r: "/api/replay" in r.url):
        page.set_input_files("#replay-file", str(DATA / "gnubg-3-games.mat"))
    settle(page)
    games = page.evaluate("replay.match.games")
    n = page.evaluate("replay.frames.length") - 1
    assert len(games) == 3 and page.locator("#replay-game option").count() == 3
    assert page.inner_text("#replay-pos") == f"position 0 of {n}"
    assert "game 1 (1 of 3) · 7-point match · score alice 0 - 0 bob" in page.inner_text(
        "#replay-score"
    )
    # forwards through game 1 to bob's double and alice's take: the cube follows
    for _ in range(games[0]["last"]):
        if "doubles" in page.inner_text("#status"):
            break
        page.click("#replay-forward")
    assert page.inner_text("#status") == "bob doubles => 2"
    assert "doubled to 2" in page.inner_text("#replay-score")
    assert page.locator("rect.cube.offered").count() == 1
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#status").startswith("alice takes")
    assert "cube 2, alice's" in page.inner_text("#replay-score")
    assert page.inner_text("#log li.current").startswith("alice takes")
    # the game selector: game 2 ends with a drop; the match score before game 3
    page.select_option("#replay-game", "1")
    assert page.inner_text("#replay-pos") == f"position {games[1]['first']} of {n}"
    assert "score alice 2 - 0 bob" in page.inner_text("#replay-score")
    page.click("#replay-last")
    assert page.inner_text("#replay-pos") == f"position {n} of {n}"
    assert "game 3 (3 of 3)" in page.inner_text("#replay-score")
    assert "alice wins 1 point" in page.inner_text("#status")
    for _ in range(n - games[1]["last"]):  # back across the game boundary to the drop
        page.click("#replay-back")
    assert page.inner_text("#status") == "alice drops: bob wins 1 point (C.2)"
    page.click("#log li:first-child")  # a click in the move list jumps there
    assert page.inner_text("#replay-pos") == f"position {games[1]['first'] + 1} of {n}"
    page.click("#replay-first")
    assert page.inner_text("#replay-pos") == f"position 0 of {n}"
    assert page.locator("#error").is_hidden()


def test_a_bear_off_with_either_die_is_chosen_by_a_click(page, server_url):
    start(page, server_url, "backgammon", **{"position-id": board_id(WIN_BOARD), "dice": "6-4"})
    page.click("g[data-point='3']")
    page.click("g.off")  # off from 3 with the 6 or the 4: the page asks
    assert page.locator("#die-choice").is_visible()
    assert page.locator("#die-choice button").all_inner_texts() == ["the 4", "the 6"]
    assert page.locator("g.die.chosen").count() == 2
    with page.expect_response(lambda r: "/action" in r.url):
        page.click("#die-choice button[data-die='6']")
    settle(page)
    assert page.evaluate("view.board.dice") == [4] and page.locator("#die-choice").is_hidden()
    # or click the die first: the 4, then the checker, then off
    start(page, server_url, "backgammon", **{"position-id": board_id(WIN_BOARD), "dice": "6-4"})
    page.click("g.die[data-die='4']")
    assert page.locator("g.die.chosen").count() == 1
    page.click("g[data-point='3']")
    with page.expect_response(lambda r: "/action" in r.url):
        page.click("g.off")
    settle(page)
    assert page.evaluate("view.board.dice") == [6]


def test_backgammon_undo_and_a_bad_position_id(page, server_url):
    start(page, server_url, "backgammon", seed=3)
    board = page.evaluate("JSON.stringify(view.board)")
    assert not page.is_enabled("#undo")
    click_a_move(page)
    assert page.is_enabled("#undo")
    with page.expect_response(lambda r: "/undo" in r.url):
        page.click("#undo")
    settle(page)
    assert page.evaluate("JSON.stringify(view.board)") == board
    page.fill("#position-id", "not-an-id")
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#new-game")
    settle(page)
    assert "Position ID" in page.inner_text("#error")
    page.fill("#position-id", "")
    page.fill("#dice", "7-1")
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#new-game")
    settle(page)
    assert "'dice' must be two dice 1..6" in page.inner_text("#error")


AGENT_DOUBLES = "dwMAAMDbAAAAAA"  # a race td doubles after the person's first play (seed 0)


def test_the_agent_doubles_and_the_person_takes_by_the_button(page, server_url):
    start(
        page,
        server_url,
        "backgammon",
        agent="td",
        cube=True,
        **{"position-id": AGENT_DOUBLES, "seed": 0},
    )
    for _ in range(4):
        if page.evaluate("view.cube_choices.includes('take') || view.over"):
            break
        if page.is_enabled("#cube-roll"):
            with page.expect_response(lambda r: "/action" in r.url):
                page.click("#cube-roll")
            settle(page)
        else:
            click_a_move(page)
    assert "td doubles: take or drop?" in page.inner_text("#status")
    assert page.is_enabled("#cube-take") and page.is_enabled("#cube-drop")
    assert not page.is_enabled("#cube-double")
    with page.expect_response(lambda r: "/action" in r.url):
        page.click("#cube-take")
    settle(page)
    assert page.evaluate("view.board.cube") == [2, 0]  # the taker owns the cube at 2
    assert "you take" in page.inner_text("#log").splitlines()
    assert page.text_content("svg text.cube-value") == "2"


@pytest.mark.parametrize("game", ["draughts", "backgammon"])
def test_playing_the_second_seat_by_clicks(page, server_url, game):
    page.goto(f"{server_url}/{game}")
    page.wait_for_selector("#agent option[value=greedy]", state="attached")
    page.select_option("#seat", "1")
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#new-game")
    settle(page)
    assert page.evaluate("view.seat") == 1
    log = page.inner_text("#log")
    assert "greedy" in log  # the agent (player_0) moved first
    if game == "backgammon" and page.is_enabled("#cube-roll"):
        page.click("#cube-roll")
        settle(page)
    n = page.evaluate("view.log.length")
    for _ in range(4):
        if page.evaluate("view.log.length") > n:
            break
        click_a_move(page)
    mine = [line for line in page.evaluate("view.log") if line.startswith("you")]
    assert mine and page.locator("#error").is_hidden()
    if game == "draughts":  # Black at the bottom: rank 1 at the top of the board
        box = {sq: page.locator(f"g[data-name={sq}]").bounding_box() for sq in ("a1", "h8")}
        assert box["a1"]["y"] < box["h8"]["y"] and box["a1"]["x"] > box["h8"]["x"]


def test_a_reload_keeps_the_tabs_game(browser, server_url):
    context = browser.new_context(viewport={"width": 1400, "height": 760})
    try:
        tab = context.new_page()
        start(tab, server_url, "draughts")
        click_a_move(tab)
        before = tab.evaluate("[view.id, JSON.stringify(view.board), view.log.length]")
        tab.reload()
        tab.wait_for_selector("#board-svg")
        settle(tab)
        assert tab.evaluate("[view.id, JSON.stringify(view.board), view.log.length]") == before
        assert tab.inner_text("#log").startswith("you (White) played")
        other = context.new_page()  # another tab: its own (no) game
        other.goto(f"{server_url}/draughts")
        other.wait_for_selector("#agent option[value=greedy]", state="attached")
        settle(other)
        assert other.evaluate("view") is None and other.inner_text("#status") == "press New game"
    finally:
        context.close()


MARKS = (
    "[...document.querySelectorAll('#board-svg rect.last-move')]"
    ".map(r => [+r.getAttribute('x'), +r.getAttribute('y'), getComputedStyle(r).stroke])"
)


def test_the_last_move_is_marked_on_both_boards(page, server_url):
    start(page, server_url, "draughts", fen=WIN_FEN)
    assert page.locator("#board-svg .last-move").count() == 0  # no move yet
    page.click("g[data-name=b4]")
    click_dest(page)
    click_dest(page)  # b4:d6:f8; the agent replies
    route = page.evaluate("view.board.last_move")
    reply = [ln for ln in page.inner_text("#log").splitlines() if "greedy" in ln][-1]
    move = reply.split(" played ")[1].split()[0]
    assert dr_api.format_move(route, ":" in move) == move  # the agent's move, every square

    def corner(sq):  # app.js's sqXY from White's side, 60-pixel squares, the frame inset
        r, f = sq // 4, 2 * (sq % 4) + (sq // 4) % 2
        return [f * 60 + 1.5, (7 - r) * 60 + 1.5, "rgb(30, 144, 255)"]

    assert sorted(page.evaluate(MARKS)) == sorted([corner(route[0]), corner(route[-1])])
    assert page.locator("#board-svg polyline.last-move").count() == 1
    click_a_move(page)  # the marks let clicks through to the squares under them
    assert page.evaluate("view.board.last_move") != route
    # backgammon: the person's first checker moved is marked at once, then the agent's play
    start(page, server_url, "backgammon", dice="3-1")
    click_a_move(page)
    last = page.evaluate("view.board.last_move")
    assert last["player"] == 0 and len(last["moves"]) == 1
    assert len(page.evaluate(MARKS)) == 2  # the point it left and the point it reached
    for _ in range(4):
        if page.evaluate("view.board.last_move.player") == 1:
            break
        click_a_move(page)
    last = page.evaluate("view.board.last_move")
    places = {p for move in last["moves"] for p in move}
    assert last["player"] == 1 and len(page.evaluate(MARKS)) == len(places)
