"""The pages under the server's content-security policy, in a real headless Chromium against a real
``yamb serve``: a game played, the runs page and Swagger UI drawn with no policy violation and no request
to any other host (Swagger UI's files come from the server, not a CDN)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scripts.web_helpers import STEP_MS, chromium, make_run, start_server
from tests.programs import require_binary

pytestmark = pytest.mark.slow  # a real Chromium against a real yamb serve

RECORD_VIOLATIONS = """window.violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.violations.push(`${e.violatedDirective} ${e.blockedURI}`));
"""


def test_the_pages_keep_to_the_policy_and_this_server(tmp_path):
    browser = require_binary("chromium")
    make_run(tmp_path / "runs")
    server = start_server(tmp_path / "games.sqlite3", tmp_path / "runs")
    try:
        with chromium(tmp_path / "profile", browser) as page:
            page.add_init_script(RECORD_VIOLATIONS)
            requested = []
            page.on("request", lambda request: requested.append(request.url))
            page.goto(server.url + "/")
            page.get_by_test_id("preset").select_option("yatzy")
            page.get_by_test_id("start").click()
            page.wait_for_url(re.compile(r"#g="))
            page.locator("#speed").select_option("0")
            page.get_by_test_id("roll").click()
            expect(page.get_by_test_id("roll-counter")).to_contain_text("roll 2 of", timeout=STEP_MS)
            page.locator("button.fill").first.click()
            page.wait_for_function("() => game && game.moves >= 2", timeout=STEP_MS)
            assert page.evaluate("window.violations") == []
            page.goto(server.url + "/runs")
            expect(page.get_by_test_id("run-yatzy-demo")).to_contain_text("40 of 40 generations")
            # the legend's swatches are styled through the CSSOM, which the policy allows
            assert page.locator(".legend i").first.evaluate(
                "node => node.style.background") != ""
            assert page.evaluate("window.violations") == []
            page.goto(server.url + "/api/docs")
            expect(page.locator(".opblock").first).to_be_visible(timeout=STEP_MS)
            assert page.locator(".opblock").count() >= 8
            assert page.evaluate("window.violations") == []
            page.screenshot(path=str(tmp_path / "docs.png"))
        foreign = [url for url in requested if not url.startswith(server.url) and not url.startswith("data:")]
        assert foreign == []
    finally:
        server.stop()
