"""Outside programs the tests run (Debian packages of the README's set-up), found on the PATH."""

from __future__ import annotations

import os
import shutil

import pytest


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


def error_lines(err: str) -> list[str]:
    """The lines of a command's standard error but its progress lines (numba's first compile, the
    workers starting), which may come before a one-line error."""
    from yamb.app.cli.compiling import MESSAGE

    return [line for line in err.strip().splitlines()
            if not line.endswith(MESSAGE) and not line.startswith("yamb evolve: starting ")]
