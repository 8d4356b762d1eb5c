"""Arguments shared by several subcommands: the rules and the table, and one validator per kind
of argument (seeds, counts, files and directories to read or write).

A validator is a function of the command-line text that returns the value or raises
``ArgumentError`` (a ``YambError``) with one line naming the problem; ``arg(check)`` turns
it into an ``argparse`` type, whose error ``Parser`` prints as one line with exit code 2.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TypeVar

from yamb.checks import MAX_DIGITS, MAX_SEED, ascii_integer
from yamb.errors import YambError, shown
from yamb.layout import Layout, layout
from yamb.rules import Rules, rules

T = TypeVar("T")
MAX_GAMES = 100_000_000  # games of one command: their scores are kept in memory (8 bytes each)
MAX_BATCH = 1_000_000  # games played at once: a batch holds every game's state in memory
MAX_WORKERS = 1024
PLOT_FORMATS = (".png", ".svg", ".pdf")


class ArgumentError(YambError):
    """A command-line value of the wrong kind or out of range."""


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (and exit code 2), like every other error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def note(command: str, text: str) -> None:
    """A one-line note on stderr (an old spelling read as the new one, ...), beside the command's output."""
    print(f"yamb {command}: note: {text}", file=sys.stderr, flush=True)


def arg(check: Callable[[str], T]) -> Callable[[str], T]:
    """``check`` as an ``argparse`` type: its ``ArgumentError`` becomes argparse's message."""

    def convert(text: str) -> T:
        try:
            return check(text)
        except YambError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        except OSError as error:  # a name too long, a loop of links, a folder not to be read: one line
            raise argparse.ArgumentTypeError(f"{shown(text)}: {error.strerror or error}") from None

    convert.__name__ = check.__name__
    return convert


def whole_number(text: str) -> int:
    """An integer in ASCII digits (``int`` also reads other scripts' digits, such as ``'٣'``,
    and underscores, ``1_000``), at most ``MAX_DIGITS`` of them."""
    value = ascii_integer(text)
    if value is None:
        raise ArgumentError(f"{shown(text)} is not a whole number (ASCII digits 0-9, at most {MAX_DIGITS})")
    return value


def integer(low: int, high: int, high_text: str | None = None) -> Callable[[str], int]:
    """A validator of whole numbers from ``low`` to ``high`` (``high_text`` names the limit)."""

    def check(text: str) -> int:
        try:
            value = whole_number(text)
        except ArgumentError:
            value = None
        if value is None or not low <= value <= high:
            raise ArgumentError(f"{shown(text)} is not a whole number from {low:,} to {high_text or f'{high:,}'}")
        return value

    check.__name__ = "integer"
    return check


def threads(text: str) -> int:
    """Threads of torch and numba, from 1 to this machine's cores (numba's pool; more only slows): every
    ``--threads`` reads it."""
    cores = os.cpu_count() or 1
    return integer(1, cores, f"{cores:,} (this machine's cores)")(text)


seed = integer(0, MAX_SEED, "2**64-1")
games = integer(1, MAX_GAMES)
batch_size = integer(1, MAX_BATCH)
workers = integer(1, MAX_WORKERS)


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; an ``OSError`` other than "no such file" (a name too long, a loop of
    links, a folder not to be searched) is raised, where ``Path.exists`` would call the path new."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def _nearest_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists."""
    path = Path(path).absolute()
    while not _exists(path) and path != path.parent:
        path = path.parent
    return path


def _check_writable(path: Path, folder: Path) -> None:
    """Refuse ``path`` when its nearest existing folder cannot be written (its permissions, a read-only
    file system): before the work, not when it is done and the result would be lost."""
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ArgumentError(f"cannot write {path}: {folder} is not writable")


def input_file(text: str) -> Path:
    """A regular file to read."""
    path = Path(text)
    if not _exists(path):
        raise ArgumentError(f"no such file: {path}")
    if path.is_dir():
        raise ArgumentError(f"{path} is a directory, not a file")
    if not path.is_file():
        raise ArgumentError(f"{path} is not a regular file")
    return path


def output_file(text: str) -> Path:
    """A file to write (atomically: by a rename into place): a regular file or a new one."""
    path = Path(text)
    if not text.strip():
        raise ArgumentError("an empty file name")
    if _exists(path) and path.is_dir():
        raise ArgumentError(f"{path} is a directory, not a file")
    if _exists(path) and not path.is_file():
        raise ArgumentError(f"{path} is not a regular file (a device or a pipe); name a file to write")
    ancestor = _nearest_existing(path.parent)
    if not ancestor.is_dir():
        raise ArgumentError(f"cannot write {path}: {ancestor} is not a directory")
    _check_writable(path, ancestor)
    return path


def plot_file(text: str) -> Path:
    """An image file to write: a ``.png``, ``.svg`` or ``.pdf`` (matplotlib picks the format by it)."""
    path = output_file(text)
    if path.suffix.lower() not in PLOT_FORMATS:
        raise ArgumentError(f"{path}: a plot is written as {', '.join(PLOT_FORMATS)}, not {path.suffix or 'no suffix'}")
    return path


def output_dir(text: str) -> Path:
    """A directory to write into: an existing one or a new one."""
    path = Path(text)
    if not text.strip():
        raise ArgumentError("an empty directory name")
    ancestor = _nearest_existing(path)
    if not ancestor.is_dir():
        raise ArgumentError(f"{ancestor} is not a directory" if ancestor == path.absolute()
                            else f"cannot make {path}: {ancestor} is not a directory")
    _check_writable(path, ancestor)
    return path


def storage(text: str) -> str:
    """An Optuna storage: a database URL (``scheme://...``), or a journal file to write (a new one, or an
    Optuna journal: not a file of another kind)."""
    if "://" in text:
        return text
    from evolution.sweeps.study import check_journal

    path = output_file(text)
    check_journal(path)
    return str(path)


def add_rules_arguments(parser: argparse.ArgumentParser, files: bool = True) -> None:
    """``--preset``, ``--dice`` and ``--joker``; ``files``: the command plays weights files, whose game is the default."""
    parser.add_argument("--preset", default=None, metavar="GAME",
                        help="the game: yamb, jamb6, yatzy or yahtzee (default yamb"
                             f"{', or the game of the weights file played' if files else ''})")
    parser.add_argument("--dice", type=arg(whole_number), default=None,
                        help="5 or 6 dice where the preset allows it (default 6 for jamb6, else 5)")
    parser.add_argument("--joker", default=None, help="yahtzee joker rule: free (default) or forced")


def add_table_arguments(parser: argparse.ArgumentParser, files: bool = True) -> None:
    add_rules_arguments(parser, files)
    parser.add_argument(
        "--columns", default=None,
        help="comma-separated column kinds, e.g. down,up,free,announce (default: the preset's table)",
    )


def rules_from(args: argparse.Namespace) -> Rules:
    """The rules of ``args`` (``args.preset`` filled in: ``yamb`` when not given)."""
    args.preset = args.preset or "yamb"
    return rules(args.preset, dice=args.dice, joker=args.joker)


def layout_from(args: argparse.Namespace, players: int = 1, named: tuple[str, ...] = ()) -> Layout:
    """The table of ``args``; without ``--preset``, that of the weights files among the players ``named``."""
    if args.preset is None:
        _table_of_files(args, named)
    columns = None if args.columns is None else [c.strip() for c in args.columns.split(",") if c.strip()]
    return layout(rules_from(args), columns, players)


def _table_of_files(args: argparse.Namespace, named: tuple[str, ...]) -> None:
    """Fill in the game, columns, dice and joker of ``args`` not given from the weights files ``named``
    (with or without ``+lookahead``); an ``ArgumentError`` when they are for different tables."""
    from robo_players.search.lookahead import split_name

    files = [(split_name(name) or (name, 1))[0] for name in named]
    if not any(Path(name).suffix for name in files):
        return  # no file named: the network library is not loaded (seconds)
    from robo_players.neural.build import file_spec, is_weights_file

    tables = {(s.preset, s.columns, s.dice, s.joker) for s in map(file_spec, filter(is_weights_file, files))}
    if len(tables) > 1:
        raise ArgumentError(f"the weights files are for different games ({', '.join(sorted(t[0] for t in tables))}); "
                            "name the game with --preset")
    if tables:
        args.preset, columns, dice, joker = tables.pop()
        args.columns = ",".join(columns) if args.columns is None else args.columns
        args.dice = dice if args.dice is None else args.dice
        args.joker = joker if args.joker is None else args.joker


def layer_sizes(text: str) -> tuple[int, ...]:
    """Hidden layer sizes, comma-separated: ``32`` or ``64,32`` (1 to 8 layers of 1 to 4096 units)."""
    parts = text.split(",")
    size = integer(1, 4096)
    if not 1 <= len(parts) <= 8:
        raise ArgumentError(f"{shown(text)}: give 1 to 8 hidden layer sizes, comma-separated")
    try:
        return tuple(size(part) for part in parts)
    except ArgumentError as error:
        raise ArgumentError(f"hidden layer sizes {shown(text)}: {error}") from None


_DECIMAL = re.compile(r"[ \t]*\+?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[ \t]*")  # ASCII, not negative


def learning_rate(text: str) -> float:
    """A step size above 0 and at most 1, in ASCII (e.g. ``0.003`` or ``3e-3``)."""
    if _DECIMAL.fullmatch(text):
        value = float(text)
        if 0 < value <= 1:
            return value
    raise ArgumentError(f"{shown(text)} is not a learning rate above 0 and at most 1")


def fraction(text: str) -> float:
    """A number from 0 up to (not including) 1, in ASCII."""
    if _DECIMAL.fullmatch(text) and 0 <= float(text) < 1:
        return float(text)
    raise ArgumentError(f"{shown(text)} is not a number from 0 to below 1")


def share(high: float) -> Callable[[str], float]:
    """A validator of numbers from 0 to ``high``, both included, in ASCII."""

    def check(text: str) -> float:
        if _DECIMAL.fullmatch(text) and 0 <= float(text) <= high:
            return float(text)
        raise ArgumentError(f"{shown(text)} is not a number from 0 to {high:g}")

    check.__name__ = "share"
    return check


unit_interval = share(1)
held_out = share(0.5)  # a validation share: at least half of the recorded games are trained on
