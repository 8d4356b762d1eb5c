"""The coach on the page, in a real headless Chromium against a real ``yamb serve``: a whole Yatzy game
with a deliberate blunder, the coach's word right after it, and the review that shows it with its loss."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scripts.web_helpers import STEP_MS, chromium, play_my_turns
from tests.yamb_app.test_web_pages_policy import RECORD_VIOLATIONS
from yamb.dice import counts_of

pytestmark = pytest.mark.slow  # a real Chromium against a real yamb serve

SEED = 5


def test_a_blunder_is_named_at_once_and_in_the_review(server, browser_path, tmp_path):
    with chromium(tmp_path / "profile", browser_path) as page:
        page.add_init_script(RECORD_VIOLATIONS)
        page.goto(server.url + "/")
        page.get_by_test_id("preset").select_option("yatzy")
        page.locator("#seed").fill(str(SEED))
        page.get_by_test_id("start").click()
        page.wait_for_url(re.compile(r"#g="))
        page.locator("#speed").select_option("0")
        game_id = page.url.split("#g=")[1]
        state = server.get(f"/api/games/{game_id}")
        assert max(counts_of(state["dice"])) < 5  # so writing the first roll in yatzy scores 0: a blunder
        page.get_by_test_id("fill-free-yatzy").click()  # the page sends the state it shows (its moves)
        coach = page.get_by_test_id("coach-box")
        expect(coach).to_contain_text("blunder", timeout=STEP_MS)
        expect(coach).to_contain_text("exact values")
        note = server.get(f"/api/games/{game_id}/log")[0]["coach"]
        assert note["label"] == "blunder" and note["loss"] >= 5
        expect(page.get_by_test_id("coach-1")).to_have_text(f"−{note['loss']:.1f}")
        page.get_by_test_id("coach-on").uncheck()  # the coach turned off: no word, no badges
        expect(coach).to_be_hidden()
        expect(page.get_by_test_id("coach-1")).to_have_count(0)
        page.get_by_test_id("coach-on").check()
        play_my_turns(page, game_id, server)  # the rest of the game
        review = server.get(f"/api/games/{game_id}/review")
        page.get_by_test_id("review-summary").click()
        expect(page.get_by_test_id("review-curve")).to_be_visible(timeout=STEP_MS)
        mine = review["players"][0]
        expect(page.get_by_test_id("review-loss-0")).to_have_text(f"{mine['loss']:.1f}")
        blunder = review["decisions"][0]
        assert blunder["label"] == "blunder" and blunder["loss"] == pytest.approx(note["loss"], abs=1e-3)
        biggest = page.get_by_test_id("review-biggest")
        expect(biggest).to_contain_text(f"−{blunder['loss']:.1f}")
        expect(biggest).to_contain_text("turn 1, roll 1")
        expect(biggest).to_contain_text("fill free:yatzy")
        # one line per player, a point per turn and the final score
        paths = page.locator("[data-testid=review-curve] path")
        expect(paths).to_have_count(2)
        assert len(paths.first.get_attribute("d").split("L")) == len(mine["curve"]) == 16
        page.get_by_test_id("review-close").click()
        expect(page.get_by_test_id("review")).to_be_hidden()
        page.get_by_test_id("review-open").click()  # from the Moves list too
        expect(page.get_by_test_id("review-biggest")).to_contain_text("fill free:yatzy", timeout=STEP_MS)
        assert page.evaluate("window.violations") == []  # the coach and the review keep to the page's policy


LABELS = """() => [...document.querySelectorAll('[data-testid=review-curve] > text')].map((t) => {
  const r = t.getBoundingClientRect(); return {text: t.textContent, left: r.left, right: r.right, top: r.top,
  bottom: r.bottom}; })"""


def test_the_review_of_a_first_turn_has_labels_that_do_not_overlap(server, browser_path, tmp_path):
    """A review opened after the first turn: one point a player, its turn's label once, in the middle."""
    state = server.post("/api/games", {"preset": "yatzy", "seed": SEED, "seats": [{"name": "You"}]})
    server.post(f"/api/games/{state['id']}/moves",
                {"moves": state["moves"], "kind": "fill", "column": "free", "row": "chance"})
    with chromium(tmp_path / "profile", browser_path) as page:
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(f"{server.url}/#g={state['id']}")
        page.get_by_test_id("review-open").click()
        expect(page.get_by_test_id("review-curve")).to_be_visible()
        labels = page.evaluate(LABELS)
        boxes = [b for b in labels if b["right"] > b["left"]]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                apart = a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"] or \
                    b["bottom"] <= a["top"]
                assert apart, (a, b)
        assert [b["text"] for b in labels].count("turn 1") == 1, labels
