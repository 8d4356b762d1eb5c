"""The evolution runs the server shows: run directories directly under ``--runs``.

A run is known by its directory's name only; the server builds the list
itself, so a client picks a run from it and never names a path. A run's
fitness curve is its ``logbook.csv`` (rewritten atomically by ``yamb
evolve`` after every generation, so it is read whole or not at all), and its
best player is ``best.pt`` once the run is done.
"""

from __future__ import annotations

import csv
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

from evolution.report import BEST_FILE, LOGBOOK_FILE
from evolution.run import CONFIG_FILE
from robo_players.neural.files import load_weights
from yamb.app.seats import RUN_BOT_PREFIX

CURVE_COLUMNS = ("gen", "avg", "std", "min", "max", "expectimax")
SHOWN_SETTINGS = ("game", "columns", "dice", "joker", "player", "algorithm", "population", "generations", "games")


@dataclass(frozen=True)
class RunInfo:
    """A run directory as listed: its name, generations logged, whether its best player exists."""

    name: str
    generations: int
    has_best: bool
    updated: float
    settings: dict


    @property
    def bot(self) -> str:
        """The seat's bot name of this run's best player."""
        return RUN_BOT_PREFIX + self.name


def _is_run(path: Path) -> bool:
    return path.is_dir() and any((path / f).is_file() for f in (CONFIG_FILE, LOGBOOK_FILE, BEST_FILE))


def read_settings(run_dir: Path) -> dict:
    """The run's table and algorithm settings from its ``config.toml`` ({} when unreadable)."""
    try:
        with open(run_dir / CONFIG_FILE, "rb") as f:
            config = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    return {k: config[k] for k in SHOWN_SETTINGS if k in config}


def read_curve(run_dir: Path) -> list[dict[str, float]]:
    """The logbook's rows (generation, mean, std, min, max, expectimax), numbers only; [] if none."""
    path = run_dir / LOGBOOK_FILE
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return []
    curve = []
    for row in rows:
        try:
            point = {k: float(row[k]) for k in CURVE_COLUMNS if row.get(k) not in (None, "")}
        except ValueError:
            continue
        if "gen" in point and all(math.isfinite(v) for v in point.values()):
            curve.append(point)
    return curve


class RunList:
    """The runs under one directory (none without one)."""

    def __init__(self, root: Path | None) -> None:
        self.root = None if root is None else Path(root)

    def runs(self) -> list[RunInfo]:
        """Every run directory under the root, newest first."""
        if self.root is None or not self.root.is_dir():
            return []
        found = []
        for path in self.root.iterdir():
            if not _is_run(path):
                continue
            logbook = path / LOGBOOK_FILE
            stamps = [f.stat().st_mtime for f in (logbook, path / BEST_FILE, path / CONFIG_FILE) if f.is_file()]
            generations = max(0, sum(1 for _ in open(logbook)) - 1) if logbook.is_file() else 0
            found.append(RunInfo(path.name, generations, (path / BEST_FILE).is_file(), max(stamps),
                                 read_settings(path)))
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

    def best_table(self, name: str) -> dict | None:
        """The table (preset, dice, joker, columns) the listed run ``name``'s best player was evolved for."""
        path = self.best_file(name)
        if path is None:
            return None
        spec = load_weights(path).spec
        return {"preset": spec.preset, "dice": spec.dice, "joker": spec.joker, "columns": list(spec.columns)}
