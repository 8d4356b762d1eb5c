"""Whole games through the page in a real headless Chromium, against a real ``yamb serve``.

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

from tests.programs import require_binary
from tests.web_helpers import chromium, make_run, start_server
from yamb.game import Game

pytestmark = pytest.mark.slow  # a real Chromium against a real yamb serve


STEP_MS = 120_000  # the first bot move may wait for the engine's kernels to compile


@pytest.fixture(scope="module")
def browser_path():
    return require_binary("chromium")


@pytest.fixture(scope="module")
def server(browser_path, tmp_path_factory):
    root = tmp_path_factory.mktemp("web")
    make_run(root / "runs")
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


def play_my_turns(page, game_id: str, server, turns: int | None = None) -> int:
    """Play the person's turns through the page until the game ends (or ``turns`` are played): keep the
    first two dice and roll once when a roll is allowed, then write the dice in the first green cell.
    The number of turns played."""
    played = 0
    summary = page.get_by_test_id("summary")
    while turns is None or played < turns:
        fill = page.locator("button.fill").first
        announce = page.locator("button.announce").first
        ready = "button.fill, button.announce, [data-testid=summary]:not([hidden])"
        expect(page.locator(ready).first).to_be_visible(timeout=STEP_MS)
        if summary.is_visible():
            break
        state = server.get(f"/api/games/{game_id}")
        if state["can_roll"] and state["roll"] == 1:
            page.get_by_test_id("die-0").click()
            page.get_by_test_id("die-1").click()
            expect(page.get_by_test_id("die-0")).to_have_class(re.compile("kept"))
            page.get_by_test_id("roll").click()
            expect(page.get_by_test_id("roll-counter")).to_contain_text("roll 2 of", timeout=STEP_MS)
            continue
        moves = state["moves"]
        (fill if fill.count() else announce).click()
        page.wait_for_function(f"() => game && game.moves > {moves}", timeout=STEP_MS)
        if fill.count() == 0 and state["must_announce"]:
            continue
        played += 1
    return played


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
    card.get_by_test_id("play-yatzy-demo").click()
    page.wait_for_url(re.compile(r"#run=yatzy-demo"))
    expect(page.get_by_test_id("columns")).to_have_text(re.compile(r"^free"))
    page.get_by_test_id("start").click()
    page.wait_for_url(re.compile(r"#g="))
    game_id = page.url.split("#g=")[1]
    state = server.get(f"/api/games/{game_id}")
    assert state["preset"] == "yatzy" and [s["bot"] for s in state["seats"]] == [None, "run:yatzy-demo"]


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
