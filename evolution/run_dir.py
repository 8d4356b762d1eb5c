"""A run directory's files (their names in ``evolution.run_files``): the lock, and every read and (atomic) write of them.

``config.toml`` (the settings), ``checkpoint.pkl`` (after every generation), ``logbook.csv``,
and when the run is done ``hall_of_fame.npz``, ``best.pt`` (the best player's weights; ``yamb
export`` converts it), ``fitness.png``, ``scores.png`` and ``summary.json``. Every file is
written atomically.
"""

from __future__ import annotations

import fcntl
import os
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from evolution import checkpoint
from evolution.checkpoint import CheckpointError
from evolution.config import ConfigError, EvolveConfig, read_toml, to_toml, with_settings
from evolution.run_files import (
    CHECKPOINT,
    CONFIG_FILE,
    LOCK_FILE,
    LOGBOOK_FILE,
    SUMMARY_FILE,
)
from evolution.state import RunState
from yamb.atomic import holds_files, remove_temporaries, write_atomically
from yamb.parsing import ParseError, parse_json


@dataclass(frozen=True)
class RunDir:
    """The run directory at ``path``."""

    path: Path

    def __truediv__(self, name: str) -> Path:
        return self.path / name

    def is_run(self) -> bool:
        """Whether it holds a run that ``resume`` continues (its settings, at least)."""
        return (self / CONFIG_FILE).is_file() or self.has_checkpoint()

    def has_checkpoint(self) -> bool:
        return (self / CHECKPOINT).exists()

    def finished(self, state: RunState) -> dict | None:
        """The summary of the run ``state`` (its checkpoint) if the run is finished and its results are
        written (its ``summary.json`` is of every generation the settings ask for), else None."""
        if state.generation < state.config.generations or not (self / SUMMARY_FILE).is_file():
            return None
        try:
            summary = parse_json((self / SUMMARY_FILE).read_bytes())
        except (OSError, ParseError):
            return None  # cut short or damaged: the results are written again
        done = isinstance(summary, dict) and summary.get("generations") == state.generation
        return summary if done and isinstance(summary.get("verdict"), dict) else None

    def check_run(self) -> None:
        """A ``ConfigError`` unless it is a run directory."""
        if not self.path.is_dir():
            raise ConfigError(f"{self.path}: no such run directory")
        if not self.is_run():
            raise ConfigError(f"{self.path} is not a run directory of yamb evolve (it holds no {CONFIG_FILE}); "
                              "nothing was changed")

    @contextmanager
    def lock(self, create: bool = True) -> Iterator[None]:
        """Hold its lock while this process works in it: a second process that tries (a second
        ``yamb evolve --resume`` of a running run) gets a one-line error instead of writing the
        same checkpoint. The lock is the operating system's (``flock``): it goes with the process,
        however that ends. Without ``create`` (a resume), it must be a run; with it, a run, an
        empty directory or a new one: nothing of any other directory is touched."""
        if not create:
            self.check_run()
        elif not self.is_run() and holds_files(self.path, but=(LOCK_FILE,)):  # what a run killed early leaves
            raise ConfigError(f"{self.path} holds other files and no run; name a new or empty directory with --out "
                              "(or leave --out out for a new one under runs/)")
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self / LOCK_FILE, "a+") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.seek(0)
                raise ConfigError(f"{self.path} is in use by another process (pid {f.read().strip() or '?'}); "
                                  f"wait for it to end or stop it first") from None
            f.seek(0)
            f.truncate()
            f.write(f"{os.getpid()}\n")
            f.flush()
            yield

    def discard_unsaved(self) -> None:
        """Remove it if it holds nothing but its lock: a new run stopped before it saved anything."""
        if self.path.is_dir() and [p.name for p in self.path.iterdir()] == [LOCK_FILE]:
            (self / LOCK_FILE).unlink()
            self.path.rmdir()

    def remove_temporaries(self) -> None:
        """Delete the temporary files of interrupted writes."""
        remove_temporaries(self.path)

    def write(self, name: str, write: Callable[[Path], object]) -> None:
        """Write its file ``name`` atomically: ``write`` fills a temporary file that then takes its place."""
        write_atomically(self / name, write)

    def read_config(self) -> EvolveConfig:
        """The settings of ``config.toml`` (over the defaults); one that holds none (0 bytes: cut short
        by a full disk or a crash) is refused, never read as the defaults."""
        settings = read_toml(self / CONFIG_FILE)
        if not settings:
            raise ConfigError(f"{self / CONFIG_FILE} holds no settings (it is empty): it is not the run's; "
                              "restore it, or start a new run")
        return with_settings(EvolveConfig(), settings)

    def write_config(self, config: EvolveConfig) -> None:
        self.write(CONFIG_FILE, lambda tmp: tmp.write_text(to_toml(config)))

    def save_checkpoint(self, state: RunState) -> None:
        """``state`` with the current global random state, behind its SHA-256."""
        state.python_random = random.getstate()
        data = checkpoint.dumps(state)
        self.write(CHECKPOINT, lambda tmp: tmp.write_bytes(data))

    def load_checkpoint(self) -> RunState:
        """The state saved in it, with the global random state restored."""
        path = self / CHECKPOINT
        if not path.is_file():
            raise CheckpointError(f"{self.path}: no checkpoint to resume from ({CHECKPOINT} is missing)")
        state = checkpoint.loads(path.read_bytes(), str(path))
        if not isinstance(state, RunState):
            raise CheckpointError(f"{path}: not a checkpoint of yamb evolve")
        random.setstate(state.python_random)
        return state

    def write_logbook(self, state: RunState) -> None:
        frame = pd.DataFrame(list(state.logbook), columns=state.logbook.header)
        self.write(LOGBOOK_FILE, lambda tmp: frame.to_csv(tmp, index=False))
