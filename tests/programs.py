"""Outside programs the tests run (Debian packages of the README's set-up), found on the PATH, and what a
program says on standard error besides its progress lines."""

from __future__ import annotations

import os
import re
import shutil

import pytest

from yamb.app.cli.compiling import MESSAGE


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


COMPILING = rf"yamb [a-z-]+: {re.escape(MESSAGE)}"  # numba's first compile (yamb.app.cli.compiling)
WORKERS = r"yamb evolve: starting \d+ worker process(es)? .*"  # yamb evolve's workers starting


def error_lines(err: str, progress: tuple[str, ...] = (COMPILING, WORKERS)) -> list[str]:
    """The lines of a command's standard error but its progress lines, which may come before a one-line
    error: those that match one of the regular expressions ``progress`` as a whole."""
    return [line for line in err.strip().splitlines() if not any(re.fullmatch(kind, line) for kind in progress)]
