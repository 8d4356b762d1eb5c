"""Sweeps on a real PostgreSQL server: two ``yamb sweep`` processes share a study, one is killed with -9
and started again; every trial number ends complete or pruned exactly once and none stays running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState
from sqlalchemy.pool import NullPool

from evolution.sweeps.study import OBJECTIVE
from evolution.sweeps.sweep import RUN_DIR
from evolution.sweeps.worker import FINISHED, WORKER, trial_number
from tests.servers import postgres_server

TRIALS = 4
HEARTBEAT = "2"  # seconds: the grace period is 6 s
SWEEP = ["--trials", str(TRIALS), "--recipe", "quick", "--set", "game=yatzy", "--seed", "3"]


def sweep(directory: Path, url: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "yamb", "sweep", str(directory), *SWEEP, "--storage", url],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "YAMB_SWEEP_HEARTBEAT": HEARTBEAT})


def running_trial_of(study: optuna.Study, pid: int) -> optuna.trial.FrozenTrial | None:
    """The trial process ``pid`` runs, once it has saved a generation."""
    for trial in study.get_trials(states=(TrialState.RUNNING,)):
        if trial.user_attrs.get(WORKER, "").split(":")[1:2] == [str(pid)] and trial.intermediate_values:
            return trial
    return None


@pytest.mark.slow
def test_two_sweeps_on_postgresql_one_killed_and_restarted(tmp_path: Path) -> None:
    directory = tmp_path / "sweep"
    with postgres_server() as url:
        first, second = sweep(directory, url), sweep(directory, url)
        deadline = time.monotonic() + 900  # a trial starts within a minute or two, even on a busy machine
        storage = study = None
        while (victim := study and running_trial_of(study, first.pid)) is None:
            assert time.monotonic() < deadline, "the first sweep never ran a trial"
            assert first.poll() is None, first.stderr.read()
            time.sleep(0.5)
            try:  # one storage, one connection at a time (a new storage per look left its connections open)
                storage = storage or optuna.storages.RDBStorage(url, engine_kwargs={"poolclass": NullPool})
                study = optuna.load_study(study_name="sweep", storage=storage)
            except KeyError:  # not created yet
                pass
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        again = sweep(directory, url)  # at once: well within the grace period
        for process in (second, again):
            assert process.wait(300) == 0, process.stderr.read()
        study = optuna.load_study(study_name="sweep", storage=storage)
        trials = study.get_trials()
        assert study.metric_names == [OBJECTIVE]

    states = Counter(t.state for t in trials)
    assert states[TrialState.RUNNING] == states[TrialState.WAITING] == 0
    finished = Counter(trial_number(t) for t in trials if t.state in FINISHED)
    assert len(finished) >= TRIALS and set(finished.values()) == {1}  # each trial number finished once
    assert {trial_number(t) for t in trials} == set(finished)  # and every number finished
    # the killed trial failed and its retry (same parameters, same run directory) finished it
    (killed,) = [t for t in trials if t.number == victim.number]
    assert killed.state == TrialState.FAIL
    (retry,) = [t for t in trials if t.state in FINISHED and trial_number(t) == victim.number]
    assert retry.number != victim.number and retry.params == victim.params
    assert retry.user_attrs[RUN_DIR] == victim.user_attrs[RUN_DIR]
    # the generations the killed trial reported are the retry's too (it resumed the run)
    assert {step: retry.intermediate_values[step] for step in victim.intermediate_values} == victim.intermediate_values
    # no two trial numbers ran the same parameters; one measure per column
    assert len({tuple(sorted(t.params.items())) for t in trials if t.state in FINISHED}) == len(finished)
    for t in trials:
        assert (t.value is not None) == (t.state == TrialState.COMPLETE)


def test_the_objective_is_named(tmp_path: Path) -> None:
    from evolution.sweeps.sweep import prepare
    from tests.evolution.test_sweep import tiny_settings

    study = prepare(tmp_path, tiny_settings())
    assert study.metric_names == [OBJECTIVE]


@pytest.mark.slow
@pytest.mark.parametrize(("workers", "connections"), [(1, 2), (2, 6)])
def test_a_sweep_holds_two_connections_per_worker_at_most(tmp_path: Path, workers: int, connections: int) -> None:
    """Each process opens one storage: a worker's main thread and its heartbeat take a connection each, and
    the parent of several workers keeps two (opening the study). A role limited to that many connections
    runs the sweep to its end, however many trials it runs (no connection is left open per trial)."""
    import psycopg
    from sqlalchemy.engine import make_url

    with postgres_server() as url:
        admin = make_url(url)
        with psycopg.connect(f"host={admin.host} port={admin.port} user=postgres dbname=postgres",
                             autocommit=True) as db:
            db.execute(f"CREATE ROLE sweeper LOGIN CONNECTION LIMIT {connections}")
            db.execute("GRANT CREATE ON SCHEMA public TO sweeper")
        limited = admin.set(username="sweeper").render_as_string(hide_password=False)
        done = subprocess.run([sys.executable, "-m", "yamb", "sweep", str(tmp_path / "sweep"), "--trials", "1",
                               "--workers", str(workers), "--recipe", "quick", "--set", "game=yatzy",
                               "--storage", limited],
                              check=False, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
