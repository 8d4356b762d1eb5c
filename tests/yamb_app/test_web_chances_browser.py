"""Every player's chance to win on the page, in a real headless Chromium against a real ``yamb serve``:
the chances box beside the dice, hidden with the coach, the coach's word with the chance, a player alone's
target, and the review's curve of chances; at a 1280x800 laptop and a 390 px phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scripts.web_helpers import STEP_MS, chromium, play_my_turns
from tests.yamb_app.test_web_pages_policy import RECORD_VIOLATIONS

pytestmark = pytest.mark.slow  # a real Chromium against a real yamb serve

SCREENS = {"laptop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def _start(page, server, seed: int, target: str | None = None) -> str:
    page.goto(server.url + "/")
    page.get_by_test_id("preset").select_option("yatzy")
    page.locator("#seed").fill(str(seed))
    if target is not None:
        page.get_by_role("button", name="remove player").last.click()
        expect(page.get_by_test_id("target")).to_be_visible()
        page.get_by_test_id("target").fill(target)
    page.get_by_test_id("start").click()
    page.wait_for_url(re.compile(r"#g="))
    page.locator("#speed").select_option("0")
    return page.url.split("#g=")[1]


@pytest.mark.parametrize("screen", SCREENS)
def test_each_player_s_chance_is_shown_with_the_coach_and_hidden_without(server, browser_path, tmp_path, screen):
    with chromium(tmp_path / "profile", browser_path) as page:
        page.set_viewport_size(SCREENS[screen])
        page.add_init_script(RECORD_VIOLATIONS)
        game_id = _start(page, server, seed=7)
        box = page.get_by_test_id("chances")
        expect(box).to_contain_text("Chance to win", timeout=STEP_MS)
        answer = server.get(f"/api/games/{game_id}/chances")
        expect(page.get_by_test_id("chances-kind")).to_have_text("exact" if answer["exact"] else "estimated")
        expect(page.get_by_test_id("chance-0")).to_contain_text("You")
        expect(page.get_by_test_id("chance-1")).to_be_visible()
        page.locator("button.fill").first.click()  # a move: the coach's word carries the chance
        expect(page.get_by_test_id("coach-win")).to_contain_text("chance to win", timeout=STEP_MS)
        expect(page.locator("button.fill").first).to_be_visible(timeout=STEP_MS)  # the bot has played
        box.scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / f"chances-{screen}.png"))
        page.get_by_test_id("coach-on").uncheck()
        expect(box).to_be_hidden()
        expect(page.get_by_test_id("coach-box")).to_be_hidden()
        page.get_by_test_id("coach-on").check()
        expect(box).to_be_visible(timeout=STEP_MS)
        page.get_by_test_id("review-open").click()
        page.get_by_test_id("curve-win").click()
        expect(page.get_by_test_id("review-win-curve")).to_be_visible(timeout=STEP_MS)
        page.screenshot(path=str(tmp_path / f"review-chances-{screen}.png"))
        assert page.evaluate("window.violations") == []


def test_a_player_alone_sees_the_chance_of_the_target(server, browser_path, tmp_path):
    with chromium(tmp_path / "profile", browser_path) as page:
        page.set_viewport_size(SCREENS["laptop"])
        game_id = _start(page, server, seed=3, target="240")
        box = page.get_by_test_id("chances")
        expect(box).to_contain_text("Chance of 240 or more", timeout=STEP_MS)
        chance = server.get(f"/api/games/{game_id}/chances?target=240")["players"][0]["chance"]
        expect(page.get_by_test_id("chance-0")).to_contain_text(f"{100 * chance:.1f}%")
        play_my_turns(page, game_id, server, turns=2)
        expect(page.get_by_test_id("coach-box")).not_to_contain_text("null")
        page.screenshot(path=str(tmp_path / "target.png"))
