"""A run directory: start or resume a run, play its generations, check and save the best player.

``RUN_DIR`` holds ``config.toml``, ``checkpoint.pkl`` (after every generation),
``logbook.csv``, and when the run is done ``hall_of_fame.npz``, ``best.pt``
(the best player's weights; ``yamb export`` converts it), ``fitness.png``,
``scores.png`` and ``summary.json``. Every file is written atomically.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from evolution.algorithms import GENERATIONS, make_toolbox, warm_up
from evolution.backends import backend_map
from evolution.config import ConfigError, EvolveConfig, read_toml, to_toml, with_settings
from evolution.evaluate import init_worker
from evolution.report import final_check, write_logbook, write_results
from evolution.state import CHECKPOINT, RunState, adopt_init, load_checkpoint, new_state, save_checkpoint
from evolution.verdict import play_verdict, start_strength
from yamb.atomic import holds_files, remove_temporaries, write_atomically

CONFIG_FILE = "config.toml"
LOCK_FILE = ".lock"
RESUMABLE = ("generations", "games", "games_max", "accept_games", "workers", "threads", "final_games", "backend", "ray_address")  # settings a resume may change

Report = Callable[[RunState, dict], None]


def default_run_dir(config: EvolveConfig, root: Path = Path("runs")) -> Path:
    """``runs/<run recipe>-<game>-<date>-<time>``, with a suffix if that exists."""
    stem = f"{config.run_preset}-{config.game}-{datetime.now():%Y%m%d-%H%M%S}"
    path, n = root / stem, 1
    while path.exists():
        n += 1
        path = root / f"{stem}-{n}"
    return path


@contextmanager
def run_lock(run_dir: Path, create: bool = True) -> Iterator[None]:
    """Hold ``run_dir``'s lock while this process works in it: a second process that tries (a
    second ``yamb evolve --resume`` of a running run) gets a one-line error instead of writing
    the same checkpoint. The lock is the operating system's (``flock``): it goes with the process,
    however that ends. Without ``create`` (a resume), ``run_dir`` must be a run; with it, a run,
    an empty directory or a new one: nothing of any other directory is touched."""
    run_dir = Path(run_dir)
    if not create:
        check_run(run_dir)
    elif not is_run(run_dir) and holds_files(run_dir, but=(LOCK_FILE,)):  # what a run killed early leaves
        raise ConfigError(f"{run_dir} holds other files and no run; name a new or empty directory with --out "
                          "(or leave --out out for a new one under runs/)")
    run_dir.mkdir(parents=True, exist_ok=True)
    with open(run_dir / LOCK_FILE, "a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            raise ConfigError(f"{run_dir} is in use by another process (pid {f.read().strip() or '?'}); "
                              f"wait for it to end or stop it first") from None
        f.seek(0)
        f.truncate()
        f.write(f"{os.getpid()}\n")
        f.flush()
        yield


def is_run(run_dir: Path) -> bool:
    """Whether ``run_dir`` holds a run that ``resume`` continues (its settings, at least)."""
    return (run_dir / CONFIG_FILE).is_file() or (run_dir / CHECKPOINT).is_file()


def check_run(run_dir: Path) -> None:
    """A ``ConfigError`` unless ``run_dir`` is a run directory."""
    if not run_dir.is_dir():
        raise ConfigError(f"{run_dir}: no such run directory")
    if not is_run(run_dir):
        raise ConfigError(f"{run_dir} is not a run directory of yamb evolve (it holds no {CONFIG_FILE}); "
                          "nothing was changed")


def discard_unsaved(run_dir: Path) -> None:
    """Remove ``run_dir`` if it holds nothing but its lock: a new run stopped before it saved anything."""
    if run_dir.is_dir() and [p.name for p in run_dir.iterdir()] == [LOCK_FILE]:
        (run_dir / LOCK_FILE).unlink()
        run_dir.rmdir()


def start(config: EvolveConfig, run_dir: Path) -> RunState:
    """A new run in ``run_dir`` (which must not hold one already; temporary files of a run killed
    before its first checkpoint are deleted)."""
    if (run_dir / CHECKPOINT).exists():
        raise ConfigError(f"{run_dir} already holds a run; resume it with --resume {run_dir}")
    remove_temporaries(run_dir)
    state = new_state(adopt_init(config.validate()))
    write_atomically(run_dir / CONFIG_FILE, lambda tmp: tmp.write_text(to_toml(state.config)))
    return state


def resume(run_dir: Path, changes: dict) -> RunState:
    """The run saved in ``run_dir``, with ``changes`` to the settings a resume may change.

    A run stopped before its first checkpoint starts again from its ``config.toml``. The
    temporary files of interrupted writes are deleted, and the logbook is rewritten from
    the checkpoint's (a run stopped between the two writes loses no row).
    """
    other = sorted(set(changes) - set(RESUMABLE))
    if other:
        raise ConfigError(f"a resumed run keeps its settings; only {', '.join(RESUMABLE)} may change, not {', '.join(other)}")
    check_run(run_dir)
    if not (run_dir / CHECKPOINT).exists() and (run_dir / CONFIG_FILE).is_file():
        return start(with_settings(with_settings(EvolveConfig(), read_toml(run_dir / CONFIG_FILE)), changes), run_dir)
    remove_temporaries(run_dir)
    state = load_checkpoint(run_dir)
    saved = with_settings(EvolveConfig(), read_toml(run_dir / CONFIG_FILE))
    if replace(saved, **{k: getattr(state.config, k) for k in RESUMABLE}) != state.config:
        raise ConfigError(f"{run_dir / CONFIG_FILE} does not match the checkpoint; restore it or start a new run")
    if changes.get("generations", state.generation) < state.generation:
        raise ConfigError(f"{run_dir} has played {state.generation} generations: --generations "
                          f"{changes['generations']} would end it before them; give {state.generation} or more")
    if changes.get("backend") == "processes":
        changes = {"ray_address": "", **changes}  # the cluster of a ray run is left behind
    state.config = with_settings(state.config, changes).validate()
    write_atomically(run_dir / CONFIG_FILE, lambda tmp: tmp.write_text(to_toml(state.config)))
    write_logbook(state, run_dir)
    return state


def evolve(state: RunState, run_dir: Path, report: Report | None = None,
           say: Callable[[str], None] | None = None) -> dict:
    """Play the remaining generations of ``state``, then check the hall of fame and write the results.

    A checkpoint follows every generation; ``report(state, logbook entry)`` is
    called after it (a progress line, or a test that interrupts the run). A run
    started from a file (``init``) that has played no generation first plays its
    start on the verdict's games and ``say``s how strong it is.
    """
    c = state.config
    init_worker(c.threads)
    with backend_map(c) as map_function:
        toolbox = make_toolbox(state, map_function)
        generation = GENERATIONS[c.algorithm]
        compile_seconds = warm_up(state, toolbox) if state.generation < c.generations else 0.0
        if say is not None and c.init and state.generation == 0:
            for line in start_strength(state, toolbox):
                say(line)
        while state.generation < c.generations:
            entry = generation(state, toolbox)
            entry["compile_seconds"], compile_seconds = compile_seconds, 0.0
            save_checkpoint(state, run_dir)
            write_logbook(state, run_dir)
            if report is not None:
                report(state, entry)
        started = time.perf_counter()
        check = final_check(state, toolbox)
        check_seconds = time.perf_counter() - started
        verdict = play_verdict(state, toolbox, check.members[check.best], run_dir)
    return write_results(state, check, run_dir, check_seconds, verdict)
