"""What the browser tests share: Debian's Chromium, and a real ``yamb serve`` of the test's own."""

from __future__ import annotations

import pytest

from scripts.web_helpers import start_server
from tests.programs import require_binary


@pytest.fixture(scope="session")
def browser_path() -> str:
    """Debian's Chromium (skipped without it, failed under ``YAMB_REQUIRE_SERVERS=1``)."""
    return require_binary("chromium")


@pytest.fixture
def server(browser_path, tmp_path):
    """A ``yamb serve`` on an empty database of the test's own, stopped by its pid at the end (a module may
    share one of its own instead)."""
    server = start_server(tmp_path / "games.sqlite3")
    yield server
    server.stop()
