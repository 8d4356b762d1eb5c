"""Hyperparameter sweeps: an Optuna study whose trials are evolution runs.

A sweep directory holds ``sweep.json`` (its settings and search space), the
study's storage (``sweep.db`` by default) and one normal run directory per
trial under ``trials/`` (inspect, resume or export it like any run). One
trial::

    settings = suggest(trial, space)                # evolution/sweeps/space.py
    start the run in trials/trial-NNNN (or resume it: a retried trial)
    after every generation (and its checkpoint):
        trial.report(mean fitness of the generation, generation)
        if trial.should_prune(): stop the run         # TrialPruned
    value = the best player's mean score in the run's final check

The generation's mean fitness (not its best) is what the pruner compares: the
best of a noisy generation is biased upwards, the more so the fewer games an
evaluation plays. The value is unbiased: every trial's best player plays the
same ``final_games`` fresh games.

A sweep stops when ``trials`` trial numbers are complete or pruned; running
it again with a larger number continues it. A trial interrupted by Ctrl-C (or
by an error) fails and is queued again with the same parameters: the retry
resumes the run directory from its last checkpoint. A worker killed outright
leaves its trial running in the storage until a worker finds its process gone
(on the same machine) or its heartbeat stale (RDB storages), fails it and
queues the same retry. ``evolution/sweeps/worker.py`` holds the loop that
makes every trial number end complete or pruned exactly once.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Callable
from multiprocessing import get_context
from multiprocessing.connection import wait
from pathlib import Path

import numpy as np
import optuna
from optuna.trial import TrialState

from evolution.processes import end_with_parent
from evolution.run import evolve, resume, start
from evolution.run_files import CHECKPOINT
from evolution.sweeps.space import SearchSpace, check_space, suggest, trial_config
from evolution.sweeps.study import (
    SweepError,
    SweepSettings,
    join_study,
    load_study,
    make_pruner,
    read_settings,
    retry_callback,
    write_settings,
)
from evolution.sweeps.worker import DUPLICATE_OF, finished_numbers, trial_number, work_trials

TRIALS_DIR = "trials"
RUN_DIR = "run_dir"  # user attribute of a trial: its run directory, relative to the sweep directory
POLL_SECONDS = 2.0
INTERRUPT_SECONDS = 10.0  # after Ctrl-C, how long workers get to stop by themselves

Progress = Callable[[int, str], None]  # (finished trials, what is running)


def finished_trials(study: optuna.Study) -> int:
    """Trial numbers complete or pruned (a retried trial counts once, under its original number)."""
    return len(finished_numbers(study))


def _run_dir(directory: Path, trial: optuna.Trial) -> Path:
    """The trial's run directory: its own, or the one of the trial it retries (user attributes are inherited)."""
    if RUN_DIR not in trial.user_attrs:
        trial.set_user_attr(RUN_DIR, f"{TRIALS_DIR}/trial-{trial.number:04d}")
        if (directory / trial.user_attrs[RUN_DIR] / CHECKPOINT).exists():
            raise SweepError(f"{directory / trial.user_attrs[RUN_DIR]} holds a run this sweep's study does not "
                             "know; move it away or use a new sweep directory")
    return directory / trial.user_attrs[RUN_DIR]


def objective(trial: optuna.Trial, directory: Path, space: SearchSpace, seed: int,
              progress: Progress | None = None) -> float:
    """Run (or resume) the trial's evolution; its value is the final check's mean score."""
    config = trial_config(space, suggest(trial, space), seed)
    run_dir = _run_dir(directory, trial)
    state = resume(run_dir, {}) if (run_dir / CHECKPOINT).exists() else start(config, run_dir)
    if state.config != config:
        raise SweepError(f"{run_dir} was run with other settings than trial {trial.number} asks for")

    def report(state, entry: dict) -> None:
        trial.report(entry["avg"], entry["gen"])
        if progress is not None:
            progress(finished_trials(trial.study), f"trial {trial.number}: generation {state.generation}/"
                     f"{config.generations}, mean {entry['avg']:.1f}")
        if trial.should_prune():
            raise optuna.TrialPruned(f"pruned after generation {state.generation}")

    result = evolve(state, run_dir, report)
    trial.set_user_attr("sem", result["best"]["sem"])
    return result["best"]["mean"]


def retry_failed(study: optuna.Study) -> None:
    """Queue a retry (same parameters, same run directory) of every failed trial that has none yet.

    The worker that fails a trial queues its retry (``evolution.sweeps.worker``); this
    catches a failure whose worker died before it could. Each trial is retried
    at most ``study.MAX_RETRIES`` times.
    """
    trials = study.get_trials(deepcopy=False)
    retried = {n for t in trials for n in t.system_attrs.get("retry_history", [])}
    alive = {trial_number(t) for t in trials if t.state != TrialState.FAIL}
    retry = retry_callback()
    for t in trials:
        if (t.state == TrialState.FAIL and t.number not in retried and trial_number(t) not in alive
                and DUPLICATE_OF not in t.system_attrs):
            retry(study, t)


def work(directory: Path, settings: SweepSettings, trials: int, worker: int,
         progress: Progress | None = None, study: optuna.Study | None = None) -> None:
    """One worker: run trials from the shared study (``study``, or loaded here: one storage, and its
    connections, per process) until ``trials`` are finished."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # a failed trial ends the sweep with its error, in one line
    space = settings.space
    study = study or load_study(directory, settings)
    # two sweeps on one study never share a sampler seed, even when started at the same moment
    identity = [int.from_bytes(socket.gethostname().encode()[:16], "big"), os.getpid(), worker, len(study.trials)]
    seed = np.random.SeedSequence([settings.seed, *identity]).generate_state(1)[0]
    study.sampler = optuna.samplers.TPESampler(seed=int(seed), multivariate=True, group=True)
    study.pruner = make_pruner(settings.pruner, space.generations[1])
    run_seed = study.user_attrs["run_seed"]

    def finished(trial: optuna.trial.FrozenTrial) -> None:
        if progress is not None:
            value = f"{trial.value:.1f}" if trial.state == TrialState.COMPLETE else trial.state.name.lower()
            progress(finished_trials(study), f"trial {trial_number(trial)}: {value}")

    work_trials(study, lambda trial: objective(trial, directory, space, run_seed, progress), trials, finished)


def work_with_parent(parent: int, directory: Path, settings: SweepSettings, trials: int, worker: int) -> None:
    """A worker process of ``run_sweep``: ``work``, ended with the sweep's process however that ends
    (its trial is then failed and retried like a killed worker's)."""
    end_with_parent(parent)
    work(directory, settings, trials, worker)


def prepare(directory: Path, settings: SweepSettings) -> optuna.Study:
    """Check the search space, write the settings, create or join the study, queue retries of failed trials."""
    check_space(settings.space)
    directory = Path(directory)
    if read_settings(directory) is None:
        write_settings(directory, settings)
    study = load_study(directory, settings)
    join_study(study, settings)
    retry_failed(study)
    return study


def run_sweep(directory: Path, settings: SweepSettings, trials: int, workers: int = 1,
              progress: Progress | None = None) -> optuna.Study:
    """Run the sweep in ``directory`` until ``trials`` trials are finished, with ``workers`` processes.

    With several workers the study may end with a few more trials than
    asked: each worker finishes the trial it is running.
    """
    if trials < 1 or workers < 1:
        raise SweepError("--trials and --workers must be at least 1")
    directory = Path(directory).resolve()
    study = prepare(directory, settings)
    if workers == 1:
        work(directory, settings, trials, 0, progress, study)
        return study
    processes = [get_context("spawn").Process(target=work_with_parent, name=f"sweep-worker-{i}",
                                              args=(os.getpid(), directory, settings, trials, i))
                 for i in range(workers)]
    for process in processes:
        process.start()
    try:
        while alive := [process.sentinel for process in processes if process.is_alive()]:
            if progress is not None:
                progress(finished_trials(study), f"{len(alive)} workers")
            wait(alive, POLL_SECONDS)
        if progress is not None:
            progress(finished_trials(study), "done")
    except KeyboardInterrupt:
        # Ctrl-C in a terminal reaches the workers too: each fails its trial, to be retried
        deadline = time.monotonic() + INTERRUPT_SECONDS
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
        for process in processes:
            if process.is_alive():
                os.kill(process.pid, signal.SIGINT)
                process.join()
        raise
    failed = [f"worker {i} (exit code {p.exitcode})" for i, p in enumerate(processes) if p.exitcode]
    if failed:
        raise SweepError(f"{', '.join(failed)} stopped with an error shown above; rerun the same command to resume")
    return study
