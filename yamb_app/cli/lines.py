"""Long report lines fitted to the terminal's width, broken between fields and never inside one.

A line breaks only at a space before a word: never before a number (``best 1018.5``),
a sign or ``±`` (``1018.5 ± 3.5``), ``=`` (``p = 3.8e-50``) or a word of one or two
letters (``12.3 s``), so a value stays with its label and its error. Off a terminal
(piped, redirected) a line is not broken at all: one record, one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

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


def show(console: Console, text: str) -> None:
    """``text`` on a rich ``console``, broken between fields to fit its terminal's width (rich reads it
    with ``shutil.get_terminal_size``, and again as the window changes); off a terminal, one line."""
    for line in fit(text, console.width if console.is_terminal else None):
        console.print(line, soft_wrap=True, markup=False, highlight=False)


def titled_table(title: str) -> Table:
    """A rich ``Table`` at least as wide as its ``title``, which stays on one line (rich wraps a title
    to the table's width: ``expectimax on yamb (down, up,`` over ``free, announce)``)."""
    from rich.table import Table

    return Table(title=title, min_width=len(title))
