"""A run: start or resume it in its directory, play its generations, check and save the best player.

The run directory's files are ``evolution.run_dir``'s; a new run's settings are checked and
its start read once, by ``evolution.planning``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from evolution.algorithms import GENERATIONS, make_toolbox, warm_up
from evolution.backends import backend_map, import_ray
from evolution.config import ConfigError, EvolveConfig, with_settings
from evolution.evaluate import init_worker
from evolution.planning import Plan, init_weights, plan, starting_point
from evolution.report import final_check, write_results
from evolution.run_dir import RunDir
from evolution.run_files import CONFIG_FILE
from evolution.state import RunState, new_state
from evolution.verdict import play_verdict, start_strength

RESUMABLE = ("generations", "games", "games_max", "accept_games", "workers", "threads", "final_games", "backend",
             "ray_address")  # settings a resume may change

Report = Callable[[RunState, dict], None]


def default_run_dir(config: EvolveConfig, root: Path = Path("runs")) -> Path:
    """``runs/<run recipe>-<game>-<date>-<time>``, with a suffix if that exists."""
    stem = f"{config.recipe}-{config.game}-{datetime.now():%Y%m%d-%H%M%S}"
    path, n = root / stem, 1
    while path.exists():
        n += 1
        path = root / f"{stem}-{n}"
    return path


def start(setup: Plan | EvolveConfig, run_dir: Path) -> RunState:
    """A new run of ``setup`` (a plan, or the settings to plan) in ``run_dir``, which must not
    hold one already; temporary files of a run killed before its first checkpoint are deleted."""
    where = RunDir(Path(run_dir))
    if where.has_checkpoint():
        raise ConfigError(f"{run_dir} already holds a run; resume it with --resume {run_dir}")
    where.remove_temporaries()
    state = new_state(setup if isinstance(setup, Plan) else plan(setup))
    where.write_config(state.config)
    return state


def resume(run_dir: Path, changes: dict) -> RunState:
    """The run saved in ``run_dir``, with ``changes`` to the settings a resume may change (those edited in
    its ``config.toml`` too, the command line's first), checked.

    A run stopped before its first checkpoint starts again from its ``config.toml``. The
    temporary files of interrupted writes are deleted, and the logbook is rewritten from
    the checkpoint's (a run stopped between the two writes loses no row). A checkpoint of
    version 3 gets the player its run started from.
    """
    other = sorted(set(changes) - set(RESUMABLE))
    if other:
        raise ConfigError(f"a resumed run keeps its settings; only {', '.join(RESUMABLE)} may change, not {', '.join(other)}")
    where = RunDir(Path(run_dir))
    where.check_run()
    if not where.has_checkpoint() and (where / CONFIG_FILE).is_file():
        return start(with_settings(where.read_config(), changes), run_dir)
    where.remove_temporaries()
    state = where.load_checkpoint()
    saved = where.read_config()
    if replace(saved, **{k: getattr(state.config, k) for k in RESUMABLE}) != state.config:
        raise ConfigError(f"{where / CONFIG_FILE} does not match the checkpoint; restore it or start a new run")
    # settings a resume may change, edited in config.toml: honoured (and checked) as if given on the command line
    edited = {k: getattr(saved, k) for k in RESUMABLE if getattr(saved, k) != getattr(state.config, k)}
    if changes.get("backend") == "processes":
        changes = {"ray_address": "", **changes}  # the cluster of a ray run is left behind
    changes = {**edited, **changes}
    if changes.get("generations", state.generation) < state.generation:
        given = "--generations" if "generations" not in edited else f"generations in {where / CONFIG_FILE} ="
        raise ConfigError(f"{run_dir} has played {state.generation} generations: {given} "
                          f"{changes['generations']} would end it before them; give {state.generation} or more")
    state.config = with_settings(state.config, changes).validate()
    if state.config.backend == "ray":
        import_ray()
    if state.start is None:
        c = state.config
        state.start = starting_point(c, state.spec, init_weights(c, state.spec.layout()) if c.init else None)
    where.write_config(state.config)
    where.write_logbook(state)
    return state


def evolve(state: RunState, run_dir: Path, report: Report | None = None,
           say: Callable[[str], None] | None = None) -> dict:
    """Play the remaining generations of ``state``, then check the hall of fame and write the results.

    A checkpoint follows every generation; ``report(state, logbook entry)`` is
    called after it (a progress line, or a test that interrupts the run), the entry's
    ``seconds`` the generation's wall time: its games, the strategy's update and the checkpoint. A run
    started from a file (``init``) that has played no generation first plays its
    start on the verdict's games and ``say``s how strong it is.
    """
    c, where = state.config, RunDir(Path(run_dir))
    init_worker(c.threads)
    with backend_map(c) as map_function:
        toolbox = make_toolbox(state, map_function)
        generation = GENERATIONS[c.algorithm]
        compile_seconds = warm_up(state, toolbox) if state.generation < c.generations else 0.0
        if say is not None and c.init and state.generation == 0:
            for line in start_strength(state, toolbox):
                say(line)
        while state.generation < c.generations:
            started = time.perf_counter()
            entry = generation(state, toolbox)
            entry["compile_seconds"], compile_seconds = compile_seconds, 0.0
            entry["seconds"] = time.perf_counter() - started  # its games and the strategy's update
            where.save_checkpoint(state)
            where.write_logbook(state)
            if report is not None:  # the whole generation's wall time, its checkpoint included
                report(state, {**entry, "seconds": time.perf_counter() - started})
        started = time.perf_counter()
        check = final_check(state, toolbox)
        check_seconds = time.perf_counter() - started
        verdict = play_verdict(state, toolbox, check.members[check.best], run_dir)
    return write_results(state, check, where, check_seconds, verdict)
