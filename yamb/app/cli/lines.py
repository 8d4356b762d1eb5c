"""Long report lines fitted to the terminal's width, broken between fields and never inside one.

A line breaks only at a space before a word: never before a number (``best 1018.5``),
a sign or ``±`` (``1018.5 ± 3.5``), ``=`` (``p = 3.8e-50``) or a word of one or two
letters (``12.3 s``), so a value stays with its label and its error. Off a terminal
(piped, redirected) a line is not broken at all: one record, one line.
"""

from __future__ import annotations

import shutil
import sys
from typing import TextIO

INDENT = "    "  # the lines a long line continues on


def _starts_field(word: str) -> bool:
    """Whether a line may break before ``word``: a word of letters, not a value or its unit."""
    return len(word) > 2 and (word[0].isalpha() or word[0] in "(['\"")


def fit(text: str, width: int | None) -> list[str]:
    """``text`` as lines of at most ``width`` characters where it can be (``None``: one line),
    continued lines indented by ``INDENT``; a field longer than the width stays whole."""
    if width is None or len(text) <= width:
        return [text]
    lead = text[: len(text) - len(text.lstrip(" "))]
    fields: list[str] = []
    for word in text.split(" "):
        if not word:
            continue
        if fields and not _starts_field(word):
            fields[-1] += " " + word
        else:
            fields.append(word)
    lines, line = [], lead
    for field in fields:
        if line.strip() and len(line) + 1 + len(field) > width:
            lines.append(line)
            line = lead + INDENT + field
        else:
            line = f"{line} {field}" if line.strip() else line + field
    return [*lines, line]


def terminal_width(stream: TextIO | None = None) -> int | None:
    """The columns of the terminal ``stream`` (default stdout) writes to, or None off a terminal."""
    stream = stream or sys.stdout
    try:
        return shutil.get_terminal_size().columns if stream.isatty() else None
    except (AttributeError, ValueError, OSError):  # a stream without a file behind it, or one closed
        return None


def say(text: str, stream: TextIO | None = None) -> None:
    """Print ``text`` to ``stream`` (default stdout), fitted to its terminal's width."""
    stream = stream or sys.stdout
    print("\n".join(fit(text, terminal_width(stream))), file=stream, flush=True)
