"""Outside programs the tests run (Debian packages of the README's set-up), found on the PATH, and what a
program says on standard error besides its progress lines."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sys
from pathlib import Path

import pexpect
import pytest

from yamb_app.cli.compiling import MESSAGE

ROOT = Path(__file__).resolve().parents[1]


def require_binary(name: str) -> str:
    """The path of the program ``name``; the test is skipped when it is missing, or fails
    when the environment variable ``YAMB_REQUIRE_SERVERS=1`` is set (as CI sets it)."""
    path = shutil.which(name)
    if path is None:
        message = f"{name} is not installed (Debian package; see the README's set-up)"
        if os.environ.get("YAMB_REQUIRE_SERVERS") == "1":
            pytest.fail(f"{message}, and YAMB_REQUIRE_SERVERS=1 requires it")
        pytest.skip(message)
    return path


COMPILING = rf"yamb [a-z-]+: {re.escape(MESSAGE)}"  # numba's first compile (yamb_app.cli.compiling)
WORKERS = r"yamb evolve: starting \d+ worker process(es)? .*"  # yamb evolve's workers starting
PLAYED = r"(.+): ([\d,]+) of ([\d,]+) games  \(\d+ s\)"  # task, games played, of all: a log's line (yamb_app.cli.games_progress)


def error_lines(err: str, progress: tuple[str, ...] = (COMPILING, WORKERS, PLAYED)) -> list[str]:
    """The lines of a command's standard error but its progress lines, which may come before a one-line
    error: those that match one of the regular expressions ``progress`` as a whole."""
    return [line for line in err.strip().splitlines() if not any(re.fullmatch(kind, line) for kind in progress)]


def spawn_play(*args: str, env: dict[str, str], lines: int, columns: int) -> pexpect.spawn:
    """``yamb play ARGS`` on a pseudo-terminal of ``lines`` x ``columns`` with environment ``env``,
    Ctrl-C interrupting it as at a terminal: a test run started in the background of a shell
    without job control ignores SIGINT, and a child would inherit that (its Ctrl-C would then wait
    forever). The timeout is a deadline against a hang, not a measure: a cold start on a loaded
    machine compiles the coach and the bots."""
    return pexpect.spawn(sys.executable, ["-m", "yamb", "play", *args], cwd=ROOT, env=env, encoding="utf-8",
                         timeout=900, dimensions=(lines, columns),
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
