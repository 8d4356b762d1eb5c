"""The evolution runs the server shows: run directories directly under ``--runs``.

A run is known by its directory's name only; the server builds the list
itself, so a client picks a run from it and never names a path. A run's
fitness curve is its ``logbook.csv`` (rewritten atomically by ``yamb
evolve`` after every generation, so it is read whole or not at all), and its
best player is ``best.pt`` once the run is done.

A damaged run (a ``logbook.csv`` or ``config.toml`` that is not UTF-8 text
or does not parse, a ``best.pt`` that does not load) is listed with its
``problem`` in words and what could be read; it never fails the list.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

from evolution.run_files import BEST_FILE, CONFIG_FILE, LOGBOOK_FILE
from yamb.errors import YambError
from yamb.parsing import ParseError, parse_toml
from yamb_app.seats import RUN_BOT_PREFIX

CURVE_COLUMNS = ("gen", "avg", "std", "min", "max", "expectimax")
SHOWN_SETTINGS = ("game", "columns", "dice", "joker", "player", "algorithm", "population", "generations", "games")


@dataclass(frozen=True)
class RunInfo:
    """A run directory as listed: its name, generations logged, whether its best player exists, and
    what is damaged in it (None when nothing is)."""

    name: str
    generations: int
    has_best: bool
    updated: float
    settings: dict
    problem: str | None = None

    @property
    def bot(self) -> str:
        """The seat's bot name of this run's best player."""
        return RUN_BOT_PREFIX + self.name


@dataclass
class Logbook:
    """A run's ``logbook.csv`` as read: its rows (generations), the points of its curve, what is wrong."""

    rows: int = 0
    curve: list[dict[str, float]] = field(default_factory=list)
    problem: str | None = None


def _is_run(path: Path) -> bool:
    return path.is_dir() and any((path / f).is_file() for f in (CONFIG_FILE, LOGBOOK_FILE, BEST_FILE))


def _shown(value: object) -> bool:
    """Whether a setting's value is plain JSON (text, a whole or finite number, a flag, a list of them)."""
    if isinstance(value, list):
        return all(_shown(item) for item in value)
    return isinstance(value, (str, bool, int)) or (isinstance(value, float) and math.isfinite(value))


def read_settings(run_dir: Path) -> tuple[dict, str | None]:
    """The run's table and algorithm settings from its ``config.toml`` ({} when it has none), and what is
    wrong with the file (None when nothing is)."""
    path = run_dir / CONFIG_FILE
    if not path.is_file():
        return {}, None
    try:
        config = parse_toml(path.read_bytes())
    except OSError as error:
        return {}, f"{CONFIG_FILE} cannot be read ({error.strerror or error})"
    except ParseError as error:  # not UTF-8, not TOML, nested too deep or an integer too long to read
        return {}, f"{CONFIG_FILE} is {error}"
    return {k: config[k] for k in SHOWN_SETTINGS if k in config and _shown(config[k])}, None


def read_logbook(run_dir: Path) -> Logbook:
    """The logbook's rows and its curve (generation, mean, std, min, max, expectimax: numbers only, rows
    without a generation or with a number that is not finite left out); an empty one when there is none."""
    path = run_dir / LOGBOOK_FILE
    if not path.is_file():
        return Logbook()
    try:
        rows = list(csv.DictReader(io.StringIO(path.read_bytes().decode("utf-8"), newline="")))
    except OSError as error:
        return Logbook(problem=f"{LOGBOOK_FILE} cannot be read ({error.strerror or error})")
    except UnicodeDecodeError as error:
        return Logbook(problem=f"{LOGBOOK_FILE} is not UTF-8 text (byte {error.start})")
    except csv.Error as error:
        return Logbook(problem=f"{LOGBOOK_FILE} is not CSV ({error})")
    curve = []
    for row in rows:
        try:
            point = {k: float(row[k]) for k in CURVE_COLUMNS if row.get(k) not in (None, "")}
        except (ValueError, TypeError):
            continue
        if "gen" in point and all(math.isfinite(v) for v in point.values()):
            curve.append(point)
    return Logbook(len(rows), curve)


def _named(path: Path) -> bool:
    """Whether a directory's name is text (a name of bytes that are not UTF-8 cannot be shown or asked for)."""
    try:
        path.name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class RunList:
    """The runs under one directory (none without one)."""

    def __init__(self, root: Path | None) -> None:
        self.root = None if root is None else Path(root)

    def runs(self) -> list[RunInfo]:
        """Every run directory under the root, newest first (one that vanishes meanwhile left out)."""
        if self.root is None or not self.root.is_dir():
            return []
        found = []
        for path in self.root.iterdir():
            try:
                if not _named(path) or not _is_run(path):
                    continue
                stamps = [f.stat().st_mtime for f in (path / LOGBOOK_FILE, path / BEST_FILE, path / CONFIG_FILE)
                          if f.is_file()]
            except OSError:
                continue
            logbook = read_logbook(path)
            settings, problem = read_settings(path)
            problems = [p for p in (logbook.problem, problem) if p]
            found.append(RunInfo(path.name, logbook.rows, (path / BEST_FILE).is_file(), max(stamps, default=0.0),
                                 settings, "; ".join(problems) or None))
        return sorted(found, key=lambda run: (-run.updated, run.name))

    def directory(self, name: str) -> Path | None:
        """The directory of the listed run called ``name``; None when no such run is listed."""
        if self.root is None:
            return None
        listed = {run.name for run in self.runs()}
        return self.root / name if name in listed else None

    def best_file(self, name: str) -> Path | None:
        """The best player's weights of the listed run ``name``, if it has them."""
        path = self.directory(name)
        return path / BEST_FILE if path is not None and (path / BEST_FILE).is_file() else None

    def best_table(self, name: str) -> tuple[dict | None, str | None]:
        """The table (preset, dice, joker, columns) the listed run ``name``'s best player was evolved for
        (None without one), and why it cannot be read (None when it can)."""
        path = self.best_file(name)
        if path is None:
            return None, None
        from robo_players.neural.files import load_weights  # torch, once a run is asked for

        try:
            spec = load_weights(path).spec
        except YambError as error:
            return None, str(error).replace(str(path), BEST_FILE)
        return {"preset": spec.preset, "dice": spec.dice, "joker": spec.joker, "columns": list(spec.columns)}, None
