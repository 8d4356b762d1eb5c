"""A sweep worker's loop: every trial number ends complete or pruned exactly once, whoever dies.

A trial that fails is retried: a new trial with the same parameters, user
attributes (its run directory) and reported values, which resumes the run
from its last checkpoint. The retry carries the original trial's number in
its system attributes (``failed_trial``, Optuna's ``RetryFailedTrialCallback``),
so a trial *number* below means the original's: the original fails, one of
its copies ends complete or pruned.

Who queues a retry is whoever moved the trial to FAIL, which the storage does
once (on PostgreSQL the trial's row is locked; a second attempt sees a
finished trial):

- the worker itself, when its trial raised (Ctrl-C, an error);
- a worker on the same machine, when the trial's worker process is gone (a
  restarted ``yamb sweep`` after ``kill -9``, before the grace period ends);
- any worker, when the trial's heartbeat is older than the grace period
  (Optuna's ``fail_stale_trials``: a lost machine).

Two copies of one trial number can still be queued (an older failure retried
by two sweeps started at once, see ``evolution.sweeps.sweep.retry_failed``): the
copy a worker takes runs only if it is the first unfailed copy of its
number; any other is failed at once as a duplicate (system attribute
``duplicate_of``) and not retried.

When the sweep has its trials, a worker still stays while any trial is
running or waiting: it fails stale trials and runs their retries, so none is
left running for good while a worker lives.

A pruned trial has no value: the value is always the objective, the final
check's mean score (``study.OBJECTIVE``); the generation means are the
intermediate values.
"""

from __future__ import annotations

import os
import socket
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import optuna
from optuna.storages._heartbeat import get_heartbeat_thread, is_heartbeat_enabled  # what study.optimize uses
from optuna.trial import FrozenTrial, TrialState

from evolution.sweeps.study import heartbeat_seconds, retry_callback

FINISHED = (TrialState.COMPLETE, TrialState.PRUNED)
WORKER = "worker"  # user attribute: host:pid:start:trial of the process running the trial
DUPLICATE_OF = "duplicate_of"  # system attribute of a copy failed as a duplicate

Objective = Callable[[optuna.Trial], float]


def trial_number(trial: FrozenTrial) -> int:
    """The number of the trial this one is, or retries."""
    return trial.system_attrs.get("failed_trial", trial.number)


def finished_numbers(study: optuna.Study) -> dict[int, TrialState]:
    """Trial number (the original's) -> complete or pruned."""
    return {trial_number(t): t.state for t in study.get_trials(deepcopy=False, states=FINISHED)}


def worker_id(trial: optuna.Trial) -> str:
    """``host:pid:start:trial``: this process (told apart from a later one that reuses its pid) running
    ``trial`` (a retry inherits its original's user attributes, and so this one, until it is taken)."""
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_start_time(pid)}:{trial.number}"


def _start_time(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "gone"
    return stat[stat.rindex(")") + 2:].split()[19]  # field 22, starttime


def _gone(trial: FrozenTrial) -> bool:
    """Whether ``trial``'s worker ran on this machine and no longer runs."""
    host, pid, start, number = (trial.user_attrs.get(WORKER, "").split(":") + ["", "", "", ""])[:4]
    return (host == socket.gethostname() and number == str(trial.number) and pid.isdigit()
            and _start_time(int(pid)) != start)


def fail(study: optuna.Study, trial: FrozenTrial, retry: bool = True) -> bool:
    """Move a running ``trial`` to FAIL and (``retry``) queue its retry; False if another process did."""
    try:
        if not study._storage.set_trial_state_values(trial._trial_id, TrialState.FAIL):
            return False
    except optuna.exceptions.UpdateFinishedTrialError:
        return False
    if retry:
        retry_callback()(study, study._storage.get_trial(trial._trial_id))
    return True


def fail_lost_trials(study: optuna.Study) -> None:
    """Fail (and retry) running trials whose worker process on this machine is gone, and, with a
    heartbeat, every trial whose heartbeat is older than the grace period."""
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if _gone(trial):
            fail(study, trial)
    if is_heartbeat_enabled(study._storage):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            optuna.storages.fail_stale_trials(study)


def _first_copy(study: optuna.Study, trial: optuna.Trial) -> int:
    """The lowest trial id among the unfailed copies of ``trial``'s number (``trial`` included)."""
    number = trial_number(study._storage.get_trial(trial._trial_id))
    copies = [t._trial_id for t in study.get_trials(deepcopy=False)
              if trial_number(t) == number and t.state != TrialState.FAIL]
    return min(copies)


def run_trial(study: optuna.Study, objective: Objective) -> FrozenTrial:
    """Take the next trial (a waiting retry first), run it with a heartbeat, and record how it ended."""
    fail_lost_trials(study)
    with warnings.catch_warnings():  # "heartbeat ... supposed to be used with Study.optimize": it is kept here
        warnings.simplefilter("ignore", UserWarning)
        trial = study.ask()
    storage = study._storage
    if (first := _first_copy(study, trial)) != trial._trial_id:
        storage.set_trial_system_attr(trial._trial_id, DUPLICATE_OF, storage.get_trial(first).number)
        fail(study, storage.get_trial(trial._trial_id), retry=False)
        return storage.get_trial(trial._trial_id)
    trial.set_user_attr(WORKER, worker_id(trial))
    with get_heartbeat_thread(trial._trial_id, storage):
        try:
            value = objective(trial)
        except optuna.TrialPruned:
            storage.set_trial_state_values(trial._trial_id, TrialState.PRUNED)  # no value: see above
        except BaseException:
            fail(study, storage.get_trial(trial._trial_id))
            raise
        else:
            study.tell(trial, value)
    return storage.get_trial(trial._trial_id)


def _unsettled(study: optuna.Study) -> tuple[int, int]:
    """Trials waiting, and trials running that a worker is, or may be found, responsible for."""
    waiting = len(study.get_trials(deepcopy=False, states=(TrialState.WAITING,)))
    running = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
    if not is_heartbeat_enabled(study._storage):  # without heartbeats a lost machine's trial is never noticed
        host = socket.gethostname()
        running = [t for t in running if t.user_attrs.get(WORKER, "").partition(":")[0] == host]
    return waiting, len(running)


def work_trials(study: optuna.Study, objective: Objective, trials: int,
                finished: Callable[[FrozenTrial], None] | None = None) -> None:
    """Run trials until ``trials`` trial numbers are complete or pruned and none is running or waiting."""
    while True:
        done = len(finished_numbers(study))
        waiting, running = _unsettled(study)
        if done < trials or waiting:
            trial = run_trial(study, objective)
            if finished is not None:
                finished(trial)
        elif running:
            time.sleep(heartbeat_seconds())
            fail_lost_trials(study)
        else:
            return
