"""The first compile's progress: a count of the kernels compiled that moves while they compile (on a
terminal), wiped before the command goes on; a command with a bar of its own follows the count."""

from __future__ import annotations

import io
import time

from yamb_app.cli import compiling

HANG_SECONDS = 600  # a deadline against a hang, never a measure


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_status_line_counts_kernels_while_they_compile_and_is_wiped_after(monkeypatch) -> None:
    err = Terminal()
    monkeypatch.setattr(compiling.sys, "stderr", err)
    followed = []
    monkeypatch.setattr(compiling, "_followers", [])
    compiling.follow(lambda kernels, seconds: followed.append((kernels, seconds)))
    status = compiling.Status()
    status.begin(live=True)  # a kernel compiles: the line shows (and moves) until it ends
    deadline = time.monotonic() + HANG_SECONDS
    while "0 kernels compiled" not in err.getvalue() and time.monotonic() < deadline:
        time.sleep(0.05)
    status.begin(live=True)  # one it calls
    status.end()
    assert "\r\033[K" not in err.getvalue()  # still compiling: the line stays
    status.end()
    assert err.getvalue().endswith("\r\033[K") and not status.shown  # wiped before the command goes on
    shown = len(err.getvalue())
    time.sleep(0.6)  # nothing compiles: nothing more is written
    assert len(err.getvalue()) == shown
    assert [kernels for kernels, _ in followed] == [1, 2] and followed[1][1] >= followed[0][1] >= 0
