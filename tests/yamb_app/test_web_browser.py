"""Whole games through the page in a real headless Chromium, against a real ``yamb serve``; the page's
layout on common screens (desktops and a phone).

The server runs on 127.0.0.1 and a free port, started by the fixture and
stopped by its pid; the browser is Debian's ``chromium`` driven by Playwright
with a fresh profile. Skipped when ``chromium`` is missing, failed instead when
``YAMB_REQUIRE_SERVERS=1``.
"""

from __future__ import annotations

import re
import signal

import numpy as np
import pytest
from playwright.sync_api import expect

from scripts.web_helpers import STEP_MS, chromium, make_run, play_my_turns, start_server
from yamb.game import Game

pytestmark = pytest.mark.slow  # a real Chromium against a real yamb serve




@pytest.fixture(scope="module")
def server(browser_path, tmp_path_factory):  # one server for the module's tests, with runs to show
    root = tmp_path_factory.mktemp("web")
    make_run(root / "runs")
    (root / "runs" / "damaged").mkdir()
    (root / "runs" / "damaged" / "config.toml").write_text("game = = 1\n")
    server = start_server(root / "games.sqlite3", root / "runs")
    yield server
    server.stop()


@pytest.fixture
def page(browser_path, tmp_path):
    with chromium(tmp_path / "profile", browser_path) as page:
        yield page


def start_from_form(page, url: str, preset: str) -> str:
    """Open the page, pick the preset (the default seats: you and the default bot), start; the game id."""
    page.goto(url + "/")
    page.get_by_test_id("preset").select_option(preset)
    page.get_by_test_id("start").click()
    page.wait_for_url(re.compile(r"#g="))
    page.locator("#speed").select_option("0")
    return page.url.split("#g=")[1]


def test_a_whole_game_through_the_page(server, page):
    game_id = start_from_form(page, server.url, "yatzy")
    played = play_my_turns(page, game_id, server)
    assert played == 15  # yatzy: one free column of 15 rows
    state = server.get(f"/api/games/{game_id}")
    assert state["over"]
    expect(page.get_by_test_id("summary")).to_contain_text(state["summary"]["text"])
    for p, seat in enumerate(state["seats"]):
        expect(page.get_by_test_id(f"total-{p}")).to_have_text(str(seat["score"]))
    # the bot's turns were played step by step: its keeps and fills are in the log
    assert any(step["kind"] == "roll" and step["player"] == 1 for step in state["log"])
    # the same dice and moves on the engine give the same totals
    local = Game("yatzy", players=2, seed=state["seed"])
    for step in server.get(f"/api/games/{game_id}/log"):
        if step["kind"] == "roll":
            local.roll(keep=step["kept"])
        elif step["kind"] == "fill":
            local.fill(step["column"], step["row"])
        else:
            local.announce(step["column"], step["row"])
    assert local.is_over() and local.scores() == [s["score"] for s in state["seats"]]


def test_hint_shows_the_bots_move_and_cell_values(server, page):
    start_from_form(page, server.url, "yamb")
    page.get_by_test_id("die-2").click()
    expect(page.get_by_test_id("die-2")).to_have_class(re.compile("kept"))
    page.get_by_test_id("die-2").click()
    expect(page.get_by_test_id("die-2")).not_to_have_class(re.compile("kept"))
    page.get_by_test_id("hint").click()
    # the first hint may wait for the kernels of the bot's exact column values to compile
    expect(page.get_by_test_id("hint-box")).to_contain_text(re.compile(r"would (keep|fill|announce)"), timeout=STEP_MS)
    # 52 open cells of the person, each with the bot's value
    expect(page.locator("[data-testid=sheet-0] .value")).to_have_count(52)


def test_runs_page_draws_the_curve_and_plays_the_runs_best(server, page):
    page.goto(server.url + "/runs")
    card = page.get_by_test_id("run-yatzy-demo")
    expect(card).to_contain_text("40 of 40 generations")
    assert len(card.locator("path.mean").get_attribute("d").split("L")) == 40
    expect(card.get_by_test_id("problem-yatzy-demo")).to_have_count(0)
    damaged = server.get("/api/runs/damaged")["problem"]
    assert damaged.startswith("config.toml is not TOML")
    expect(page.get_by_test_id("problem-damaged")).to_have_text(f"damaged: {damaged}")
    card.get_by_test_id("play-yatzy-demo").click()
    page.wait_for_url(re.compile(r"#run=yatzy-demo"))
    expect(page.get_by_test_id("columns")).to_have_text(re.compile(r"^free"))
    page.get_by_test_id("start").click()
    page.wait_for_url(re.compile(r"#g="))
    game_id = page.url.split("#g=")[1]
    state = server.get(f"/api/games/{game_id}")
    assert state["preset"] == "yatzy" and [s["bot"] for s in state["seats"]] == [None, "run:yatzy-demo"]


def test_the_seats_offer_the_bots_the_table_takes(server, page, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(server.url + "/")
    seat = page.locator(".seat-bot").nth(1)
    exact = [seat.locator(f'option[value="{bot}"]') for bot in ("optimal", "best-values")]
    expect(seat).to_have_value("best+lookahead")  # the strongest bot on yamb's standard table
    expect(exact[0]).to_have_count(0)  # yamb: no exact solver for its table, a shipped values file
    expect(exact[1]).to_have_count(1)
    page.get_by_test_id("preset").select_option("yatzy")
    for option in exact:
        expect(option).to_have_count(1)
    seat.select_option("optimal")
    page.screenshot(path=tmp_path / "yatzy-bots.png")
    page.locator("#add-column").select_option("free")  # two free columns: the bot the seat had is refused
    for option in exact:
        expect(option).to_have_count(0)
    expect(seat).to_have_value("best")  # no bot is named for this table: the strongest that plays any
    page.get_by_role("button", name="remove free").first.click()
    seat.select_option("best-values")
    page.get_by_test_id("start").click()
    page.wait_for_url(re.compile(r"#g="))
    state = server.get(f"/api/games/{page.url.split('#g=')[1]}")
    assert state["preset"] == "yatzy" and [s["bot"] for s in state["seats"]] == [None, "best-values"]


def test_a_game_goes_on_after_the_server_is_killed(browser_path, tmp_path):
    """Half a game, ``kill -9``, a new server on the same database: the same state, then the rest."""
    db = tmp_path / "games.sqlite3"
    first = start_server(db)
    try:
        state = first.post("/api/games", {"preset": "yatzy", "seed": 9, "seats": [
            {"name": "You"}, {"name": "bot", "bot": "expectimax"}]})
        rng = np.random.default_rng(0)
        while state["seats"][0]["table"]["free"]["chance"] is None or state["to_move"] == 1:
            if state["to_move"] == 1:
                state = first.post(f"/api/games/{state['id']}/bot")
            elif state["can_roll"] and rng.random() < 0.5:
                state = first.post(f"/api/games/{state['id']}/moves",
                                   {"moves": state["moves"], "kind": "roll", "keep": state["dice"][:3]})
            else:
                cell = state["fillable"][-1]
                state = first.post(f"/api/games/{state['id']}/moves",
                                   {"moves": state["moves"], "kind": "fill", "column": cell["column"], "row": cell["row"]})
        assert 0 < state["turn"] < state["turns_per_player"]
    finally:
        first.stop(signal.SIGKILL)
    assert first.process.returncode == -signal.SIGKILL
    second = start_server(db)
    try:
        assert second.get(f"/api/games/{state['id']}") == state
        with chromium(tmp_path / "profile", browser_path) as page:
            page.goto(f"{second.url}/#g={state['id']}")
            expect(page.get_by_test_id("status")).to_contain_text(f"turn {state['turn']} of 15")
            page.locator("#speed").select_option("0")
            dice = [int(d) for d in page.locator("[data-testid^=die-]").evaluate_all(
                "nodes => nodes.map(n => n.dataset.face)")]
            assert sorted(dice) == state["dice"]
            play_my_turns(page, state["id"], second)
        final = second.get(f"/api/games/{state['id']}")
        log = second.get(f"/api/games/{state['id']}/log")
        assert final["over"] and log[state["moves"] - len(state["log"]): state["moves"]] == state["log"]
    finally:
        second.stop()


# ----------------------------------------------------------------------------- the page on common screens
# The dice, Roll and Hint beside the sheets and above the fold on desktops; no sideways scrolling on a phone.
# Positions come from getBoundingClientRect.
DESKTOPS = [(1024, 768), (1280, 800), (1366, 768), (1920, 1080)]
PHONE = (390, 844)
NEXT_TO = 40  # px: at most this between the last sheet and the panel (a gap, not an empty strip)
BOXES = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const one = (s) => box(document.querySelector(s));
  return {sheets: [...document.querySelectorAll('.sheet')].map(box), panel: one('.panel'), dice: one('#dice'),
          roll: one('#roll'), hint: one('#hint'), hintBox: one('#hint-box'),
          width: innerWidth, height: innerHeight, scrollWidth: document.documentElement.scrollWidth};
}"""


def show(page, server, preset: str, size: tuple[int, int]) -> dict:
    """A new game of ``preset`` (you against a bot) at a viewport of ``size``; the boxes of its parts."""
    seats = [{"name": "You"}, {"name": "greedy", "bot": "greedy"}]
    game = server.post("/api/games", {"preset": preset, "seed": 7, "seats": seats})
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{server.url}/#g={game['id']}")
    expect(page.get_by_test_id("roll")).to_be_enabled()
    expect(page.locator(".sheet")).to_have_count(2)
    return page.evaluate(BOXES)


@pytest.mark.parametrize("preset", ["yamb", "yatzy"])
@pytest.mark.parametrize("size", DESKTOPS, ids=[f"{w}x{h}" for w, h in DESKTOPS])
def test_on_a_desktop_the_panel_is_next_to_the_sheets_and_above_the_fold(server, page, preset, size) -> None:
    boxes = show(page, server, preset, size)
    sheets, panel = boxes["sheets"], boxes["panel"]
    right_of_sheets = max(sheet["right"] for sheet in sheets)
    assert right_of_sheets <= panel["left"] <= right_of_sheets + NEXT_TO, boxes
    assert panel["top"] <= min(sheet["top"] for sheet in sheets) + 1, boxes  # beside them, not under
    assert panel["right"] <= boxes["width"], boxes
    for part in ("dice", "roll", "hint"):
        assert 0 <= boxes[part]["top"] and boxes[part]["bottom"] < boxes["height"], (part, boxes)
    assert boxes["scrollWidth"] <= boxes["width"], boxes


@pytest.mark.parametrize("preset", ["yamb", "yatzy"])
def test_on_a_phone_nothing_scrolls_sideways(server, page, preset) -> None:
    boxes = show(page, server, preset, PHONE)
    assert boxes["scrollWidth"] <= boxes["width"], boxes
    assert all(0 <= sheet["left"] and sheet["right"] <= boxes["width"] for sheet in boxes["sheets"]), boxes
    assert boxes["panel"]["right"] <= boxes["width"], boxes


SEATS = """() => {
  const box = (e) => e.getBoundingClientRect(), card = box(document.querySelector('#setup-form'));
  const ctx = document.createElement('canvas').getContext('2d');
  return {card: {left: card.left, right: card.right}, width: innerWidth,
          scrollWidth: document.documentElement.scrollWidth,
          seats: [...document.querySelectorAll('.seat')].map((seat) => {
            const select = seat.querySelector('.seat-bot'), style = getComputedStyle(select);
            ctx.font = style.font;
            return {parts: [...seat.children].map((e) => ({left: box(e).left, right: box(e).right})),
                    text: select.selectedOptions[0].text, select: box(select).width,
                    needed: ctx.measureText(select.selectedOptions[0].text).width};
          })};
}"""


@pytest.mark.parametrize("size", [*DESKTOPS, PHONE], ids=[f"{w}x{h}" for w, h in [*DESKTOPS, PHONE]])
def test_the_new_game_form_fits_the_screen_with_its_longest_bot_names(server, page, size) -> None:
    """Three seats on yamb's standard table, the last one the longest bot name it offers: the form scrolls
    nowhere sideways, every seat's name, player and remove button lie inside the form, and each seat's
    player is wide enough for its whole name."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(server.url + "/")
    page.locator("#add-seat").click()
    last = page.locator(".seat-bot").nth(2)
    # a yamb table of three offers the strongest bot playing to win, once the page has the table's bots
    expect(last.locator("option[value='best-win+lookahead']")).to_have_count(1, timeout=STEP_MS)
    offered = [b for b in last.locator("option").evaluate_all("(os) => os.map((o) => o.value)") if b]
    last.select_option(max(offered, key=len))
    boxes = page.evaluate(SEATS)
    assert boxes["scrollWidth"] <= boxes["width"], boxes
    for seat in boxes["seats"]:
        assert all(boxes["card"]["left"] <= p["left"] and p["right"] <= boxes["card"]["right"] for p in seat["parts"]), seat
        assert seat["select"] >= seat["needed"] + 20, seat  # the whole name shows, and the select's arrow beside it


SHOWN = """(ids) => ids.map((id) => { const r = document.getElementById(id).getBoundingClientRect();
  return {id, top: r.top, bottom: r.bottom, height: r.height}; })"""
CLIPPED = """() => [...document.querySelectorAll('.sheet')].map((s) => {
  const sum = s.querySelector('thead th.sum').getBoundingClientRect(), box = s.getBoundingClientRect();
  return {scroll: s.scrollWidth, client: s.clientWidth, sumWidth: sum.width, inside: sum.right <= box.right}; })"""


@pytest.mark.parametrize("preset", ["yamb", "yatzy"])
def test_on_a_phone_the_dice_the_hint_and_the_coachs_word_are_on_screen(server, page, preset) -> None:
    """At 390x844, at the top of the page and scrolled to the sheet's last row: the dice, Roll, Hint, the
    hint and the coach's word after a move are all on the screen; every sheet's sum column whole."""
    show(page, server, preset, PHONE)
    page.get_by_test_id("hint").click()
    expect(page.get_by_test_id("hint-box")).to_contain_text(re.compile(r"would (keep|fill|announce)"), timeout=STEP_MS)
    page.get_by_test_id("roll").click()  # a move: the coach's word on it, and the old hint put away
    expect(page.get_by_test_id("coach-box")).to_be_visible(timeout=STEP_MS)
    expect(page.get_by_test_id("hint-box")).to_be_hidden()  # it keeps its old words while hidden
    page.get_by_test_id("hint").click()
    expect(page.get_by_test_id("hint-box")).to_be_visible(timeout=STEP_MS)
    expect(page.get_by_test_id("hint-box")).to_contain_text(re.compile(r"would (keep|fill|announce)"), timeout=STEP_MS)
    last_row = page.locator(".sheet.to-move tbody tr").last
    for where in ("top", "the sheet's end"):
        if where != "top":
            last_row.scroll_into_view_if_needed()
        shown = page.evaluate(SHOWN, ["dice", "roll", "hint", "coach-box", "hint-box"])
        for box in shown:
            assert box["height"] > 0 and 0 <= box["top"] and box["bottom"] <= PHONE[1], (where, box)
    sheets = page.evaluate(CLIPPED)
    assert all(s["scroll"] <= s["client"] and s["inside"] and s["sumWidth"] >= 30 for s in sheets), sheets
    assert page.evaluate(BOXES)["scrollWidth"] <= PHONE[0]


def test_the_hint_shows_above_the_fold_at_1280x800(server, page) -> None:
    show(page, server, "yamb", (1280, 800))
    page.get_by_test_id("hint").click()
    expect(page.get_by_test_id("hint-box")).to_contain_text(re.compile(r"would (keep|fill|announce)"), timeout=STEP_MS)
    boxes = page.evaluate(BOXES)
    assert boxes["hintBox"]["bottom"] < boxes["height"], boxes
