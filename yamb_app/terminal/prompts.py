"""Reading a person's choices: dice to keep, a cell to announce or fill.

Parsers turn one line of text into a choice or raise ``InputError`` saying what
was wrong; ``ask`` repeats a prompt until its parser accepts the answer. Only
the form of the input is checked here: whether a move is legal is the
engine's to say (its ``IllegalMoveError`` is shown the same way).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from rich.console import Console
from rich.text import Text

from yamb.errors import YambError
from yamb_app.terminal.hand import positions_of

T = TypeVar("T")
HINT = "?"
OTHERS_KEY = "="  # shows the sheets of the players summarised on screen
STOP_WORDS = ("fill", "stop", "s")
REROLL_WORDS = ("none", "-", "r")
NO_WORDS = ("", "no", "n")
KEEP_HELP = "positions to keep (1 3 4), faces (f 6 6 6), none rerolls all, fill stops"


class InputError(YambError):
    """A line typed at a prompt that cannot be used; the message says why."""


def ask(console: Console, prompt: str, parse: Callable[[str], T], hint: Callable[[], str],
        others: Callable[[], None] | None = None, say: Callable[[Text], None] | None = None) -> T:
    """Prompt until ``parse`` accepts the answer; ``?`` shows ``hint()`` instead, ``=`` calls ``others``.

    ``say`` shows the hint, or why an answer was refused (printed under the prompt by default).
    """
    say = say or console.print
    while True:
        text = console.input(prompt).strip()
        if text == HINT:
            say(Text(hint(), style="cyan"))
            continue
        if text == OTHERS_KEY and others is not None:
            others()
            continue
        try:
            return parse(text)
        except YambError as error:
            say(Text(f"{error}; try again", style="red"))


def parse_keep(text: str, shown: tuple[int, ...]) -> tuple[int, ...] | None:
    """Positions (0-based) of the dice to keep and reroll the rest, or None to stop rolling.

    Keeping every die is stopping: a roll throws at least one die.
    """
    words = text.lower().replace(",", " ").split()
    if text.lower() in STOP_WORDS:
        return None
    if text.lower() in REROLL_WORDS:
        return ()
    if not words:
        raise InputError(f"type {KEEP_HELP}")
    if words[0] == "f" or (words[0].startswith("f") and words[0][1:].isdigit()):
        faces = _digits("".join(words)[1:], "face", 1, 6)
        try:
            kept = positions_of(shown, faces)
        except ValueError as error:
            raise InputError(str(error)) from None
    else:
        kept = tuple(p - 1 for p in _digits("".join(words), "position", 1, len(shown)))
        if len(set(kept)) != len(kept):
            raise InputError("a position is given twice")
    return None if len(kept) == len(shown) else tuple(sorted(kept))


def _digits(text: str, what: str, low: int, high: int) -> tuple[int, ...]:
    """Single digits from ``low`` to ``high``, e.g. ``134`` for 1, 3 and 4."""
    if not text:
        raise InputError(f"no {what}s given; type {KEEP_HELP}")
    for char in text:
        if not char.isdigit() or not low <= int(char) <= high:
            raise InputError(f"{char!r} is not a {what} from {low} to {high}; type {KEEP_HELP}")
    return tuple(int(char) for char in text)


def match_name(token: str, names: tuple[str, ...], what: str) -> int:
    """Index of ``token`` among ``names``: a name, a number from 1, or the start of one name."""
    token = token.lower()
    if token in names:
        return names.index(token)
    if token.isdigit():
        if 1 <= int(token) <= len(names):
            return int(token) - 1
        raise InputError(f"there is no {what} {token}; {what}s are numbered 1 to {len(names)}")
    starts = [i for i, name in enumerate(names) if name.startswith(token)]
    if len(starts) == 1:
        return starts[0]
    if starts:
        options = [names[i] for i in starts]
        raise InputError(f"{token!r} could be {', '.join(options[:-1])} or {options[-1]}")
    raise InputError(f"no {what} {token!r}; {what}s are {', '.join(names)}")


def cell_help(columns: tuple[str, ...], rows: tuple[str, ...], only_column: int | None) -> str:
    """How to type a cell, with an example from this table."""
    if only_column is not None:
        return f"a row by name or number ({rows[-1]}, {len(rows)})"
    return f"a column and a row by name or number ({columns[-1]} {rows[-1]}, {len(columns)} {len(rows)})"


def parse_cell(text: str, columns: tuple[str, ...], rows: tuple[str, ...],
               only_column: int | None) -> tuple[int, int]:
    """(column, row) of a cell typed as ``column row``; the row alone when ``only_column`` is set.

    Names may be shortened to any unique start; a row of several words may be
    typed with spaces (``two pairs``).
    """
    tokens = text.lower().replace(":", " ").replace(",", " ").split()
    if not tokens:
        raise InputError(f"type {cell_help(columns, rows, only_column)}")
    if only_column is not None:
        if len(tokens) == 1:
            return only_column, match_name(tokens[0], rows, "row")
        try:
            column = match_name(tokens[0], columns, "column")
        except InputError:
            if tokens[0].isdigit():
                raise
            return only_column, match_name("_".join(tokens), rows, "row")
        return column, match_name("_".join(tokens[1:]), rows, "row")
    if len(tokens) == 1:
        raise InputError(f"{tokens[0]!r} is not enough: type {cell_help(columns, rows, only_column)}")
    return match_name(tokens[0], columns, "column"), match_name("_".join(tokens[1:]), rows, "row")
