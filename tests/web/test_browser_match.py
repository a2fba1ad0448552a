"""The web board's match view and board fixes in headless Chromium (Playwright, the system's
chromium): a backgammon match against an agent (the score of both sides, the Crawford marker,
the cube at 1, the Double button refused in the Crawford game, the result line, the whole match
downloaded), a match started from a score (the Crawford game checked by the server), a watched
match, the controls on an 800-pixel-wide screen, the start position drawn
before a game, a selection that stays in its game, replay captions numbered once, the selected
point drawn over its checkers."""

import re
from pathlib import Path

from test_browser import click_dest, settle, start
from web_api import api

from boardgym.envs import backgammon_match


def drive(url, v, done, limit=3000):
    """The person's actions through the API (roll at a cube decision, else the first legal
    move) until done(view) or the match is over."""
    for _ in range(limit):
        if done(v) or v["over"]:
            return v
        body = {"cube": "roll"} if v["cube_choices"] else {"action": v["legal"][0]["action"]}
        v = api(f"{url}/api/games/{v['id']}/action", body)
    raise AssertionError("the match did not get there")


def reload(page):
    page.reload()
    page.wait_for_selector("#agent option[value=greedy]", state="attached")
    settle(page)


def test_a_match_against_an_agent_score_crawford_cube_and_result(page, server_url):
    # seed 1, the first legal action each time: greedy wins game 1 with a gammon (0-2), so
    # game 2 is the Crawford game (tests/web/test_match_web.py)
    start(page, server_url, "backgammon", match=3, seed=1)
    assert page.is_visible("#match-info") and page.is_hidden("#crawford")
    score = page.inner_text("#match-score")
    assert score == "match to 3: White (you, player_0) 0 – 0 Red (greedy, player_1) · game 1"
    assert page.text_content("text.cube-value") == "1"
    info = page.inner_text("#board-info")
    assert re.fullmatch(
        r"pips: White \(you, player_0\) \d+ · Red \(greedy, player_1\) \d+ · cube 1, centred", info
    )
    pips = [int(t) for t in re.findall(r"\) (\d+)", info)]
    assert pips == page.evaluate("view.board.pips")
    v = drive(server_url, page.evaluate("view"), lambda v: v["match"]["game"] == 2)
    reload(page)  # the tab finds its game again, now in the Crawford game
    assert page.evaluate("view.match.crawford") and page.is_visible("#crawford")
    assert page.inner_text("#crawford") == "Crawford game: no doubling"
    assert page.inner_text("#match-score").endswith(" 0 – 2 Red (greedy, player_1) · game 2")
    assert page.inner_text("#match-last").startswith("last game: game 1 over: greedy wins")
    assert page.text_content("text.cube-value") == "1" and page.is_disabled("#cube-double")
    drive(server_url, v, lambda v: False)
    reload(page)
    assert page.inner_text("#status") == (
        "match over: greedy wins (player_1): the match to 3, 0-3 after 2 games"
    )
    assert page.inner_text("#match-score") == (
        "match to 3: White (you, player_0) 0 – 3 Red (greedy, player_1)"
    )
    assert page.is_hidden("#crawford")
    with page.expect_download() as info:
        page.click("#download")
    assert info.value.suggested_filename == "match.mat"
    back = backgammon_match.read_match(Path(info.value.path()).read_text())
    assert back["match_length"] == 3 and [g["score"] for g in back["games"]] == [[0, 0], [0, 2]]


def test_a_match_from_a_score_and_the_crawford_game(page, server_url):
    start(page, server_url, "backgammon", match=7, score0=4, score1=5, seed=2)
    assert page.inner_text("#match-score") == (
        "match to 7: White (you, player_0) 4 – 5 Red (greedy, player_1) · game 1"
    )
    assert page.is_hidden("#crawford") and page.is_hidden("#error")
    page.fill("#score0", "6")
    page.fill("#score1", "3")  # 6-3 without the Crawford game: post-Crawford, refused
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#new-game")
    settle(page)
    assert page.is_visible("#error")
    assert page.inner_text("#error").startswith("'crawford': at 6-3 in a match to 7 without")
    assert page.evaluate("view.match.score") == [4, 5]  # the game before stays
    page.check("#crawford-start")
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#new-game")
    settle(page)
    assert page.is_hidden("#error") and page.is_visible("#crawford")
    assert page.inner_text("#match-score") == (
        "match to 7: White (you, player_0) 6 – 3 Red (greedy, player_1) · game 1"
    )
    assert page.text_content("text.cube-value") == "1" and page.is_disabled("#cube-double")
    with page.expect_download() as info:
        page.click("#download")
    back = backgammon_match.read_match(Path(info.value.path()).read_text())
    assert back["match_length"] == 7 and back["games"][0]["score"] == [6, 3]
    assert back["games"][0]["crawford"]


def test_watch_a_match_to_its_end(page, server_url):
    page.goto(f"{server_url}/backgammon")
    page.wait_for_selector("#agent0 option[value=greedy]", state="attached")
    page.select_option("#mode", "watch")
    page.fill("#watch-match", "1")
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#watch-new")
    settle(page)
    assert page.inner_text("#match-score").startswith("match to 1: White (greedy, player_0) 0")
    page.fill("#speed", "60")
    page.click("#watch-run")
    page.wait_for_function("() => view && view.over", timeout=120_000)
    settle(page)
    winner = page.evaluate("view.match.winner")
    assert page.inner_text("#status").startswith(f"match over: greedy wins (player_{winner})")
    assert page.evaluate("view.match.score")[winner] == 1


def test_an_800_pixel_wide_screen_shows_every_control(browser, server_url):
    context = browser.new_context(viewport={"width": 800, "height": 700})
    try:
        page = context.new_page()
        for game in ("backgammon", "draughts"):
            start(page, server_url, game)
            assert page.evaluate("document.documentElement.scrollWidth") <= 800
            assert page.locator("#side").bounding_box()["width"] >= 260  # not squeezed
            for sel in ("#new-game", "#undo", "#download", "#board-svg", "#log"):
                box = page.locator(sel).bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 800, sel
            if game == "backgammon":
                box = page.locator("#cube-drop").bounding_box()
                assert box["x"] + box["width"] <= 800
    finally:
        context.close()


def test_draughts_opens_with_a_board_and_a_selection_stays_in_its_game(page, server_url):
    page.goto(f"{server_url}/draughts")
    page.wait_for_selector("#agent option[value=greedy]", state="attached")
    settle(page)
    assert page.evaluate("view") is None
    assert page.locator("#board-svg circle").count() == 2 * 24  # the start: 12 a side, 2 rings each
    start(page, server_url, "draughts")
    page.locator("g.target:has(.movable)").first.click()
    assert page.locator("#board-svg rect.selected").count() == 1
    page.select_option("#mode", "watch")
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#watch-new")
    settle(page)
    assert page.locator("#board-svg rect.selected").count() == 0
    page.select_option("#mode", "replay")
    page.fill("#replay-text", '[GameType "25"]\n1. c3-d4 f6-e5 2. d4:f6 g7:e5 *\n')
    with page.expect_response(lambda r: "/api/replay" in r.url):
        page.click("#replay-load")
    settle(page)
    assert page.locator("#board-svg rect.selected").count() == 0
    first = page.locator("#log li").first
    assert first.inner_text() == "1. c3-d4"  # its own number, and the list adds none
    assert first.evaluate("li => getComputedStyle(li).listStyleType") == "none"


def test_the_selected_point_is_drawn_over_its_checkers(page, server_url):
    start(page, server_url, "backgammon", seed=3)
    if page.evaluate("view.cube_choices.length"):  # (no cube in this game)
        raise AssertionError("a money game without the cube has no cube decision")
    point = page.locator("g.point:has(.movable)").first
    point.click()
    assert page.locator("g.point rect.selected").count() == 1
    order = page.evaluate(
        "() => [...document.querySelector('g.point:has(rect.selected)').children]"
        ".map((e) => e.tagName + (e.classList.contains('selected') ? '.selected' : ''))"
    )
    assert "circle" in order and order.index("rect.selected") > max(
        i for i, t in enumerate(order) if t == "circle"
    )
    size = page.locator("text.point-number").first.get_attribute("font-size")
    assert int(size) >= 13
    click_dest(page)
    assert page.locator("#error").is_hidden()
