"""The play page on common screens: the dice, Roll and Hint beside the sheets and above the fold; no sideways
scrolling on a phone.

Games are set up through the API of a real ``yamb serve`` (127.0.0.1, a free port, stopped by its pid) and
shown in Debian's Chromium at each viewport; the positions come from ``getBoundingClientRect``.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.programs import require_binary
from tests.web_helpers import chromium, start_server

pytestmark = pytest.mark.slow  # a real Chromium against a real yamb serve

DESKTOPS = [(1280, 800), (1366, 768), (1920, 1080)]
PHONE = (390, 844)
NEXT_TO = 40  # px: at most this between the last sheet and the panel (a gap, not an empty strip)
STEP_MS = 120_000  # the first hint may wait for the engine's kernels to compile
BOXES = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const one = (s) => box(document.querySelector(s));
  return {sheets: [...document.querySelectorAll('.sheet')].map(box), panel: one('.panel'), dice: one('#dice'),
          roll: one('#roll'), hint: one('#hint'), hintBox: one('#hint-box'),
          width: innerWidth, height: innerHeight, scrollWidth: document.documentElement.scrollWidth};
}"""


@pytest.fixture(scope="module")
def browser_path():
    return require_binary("chromium")


@pytest.fixture(scope="module")
def server(browser_path, tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("web") / "games.sqlite3")
    yield server
    server.stop()


@pytest.fixture
def page(browser_path, tmp_path):
    with chromium(tmp_path / "profile", browser_path) as page:
        yield page


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


def test_the_hint_shows_above_the_fold_at_1280x800(server, page) -> None:
    show(page, server, "yamb", (1280, 800))
    page.get_by_test_id("hint").click()
    expect(page.get_by_test_id("hint-box")).to_contain_text(re.compile(r"would (keep|fill|announce)"), timeout=STEP_MS)
    boxes = page.evaluate(BOXES)
    assert boxes["hintBox"]["bottom"] < boxes["height"], boxes
