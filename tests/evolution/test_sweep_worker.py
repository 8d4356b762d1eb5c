"""The sweep worker's loop: lost trials are failed and retried once, duplicate retries run once, pruned
trials carry no value."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import optuna
from optuna.trial import TrialState

from evolution.sweeps.study import open_storage, retry_callback
from evolution.sweeps.worker import (
    DUPLICATE_OF,
    WORKER,
    fail_lost_trials,
    finished_numbers,
    trial_number,
    work_trials,
    worker_id,
)


def new_study(tmp_path: Path) -> optuna.Study:
    return optuna.create_study(storage=open_storage(f"sqlite:///{tmp_path / 's.db'}"), direction="maximize")


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", 0, 1)
    trial.report(x, 0)
    if x < 0.3:
        raise optuna.TrialPruned
    return 10 + x  # another measure than the intermediate value


def test_a_trial_of_a_dead_process_on_this_machine_is_retried_at_once(tmp_path: Path) -> None:
    study = new_study(tmp_path)
    trial = study.ask({"x": optuna.distributions.FloatDistribution(0, 1)})
    dead = subprocess.Popen(["true"])
    dead.wait()
    trial.set_user_attr(WORKER, f"{socket.gethostname()}:{dead.pid}:0:{trial.number}")
    alive = study.ask()  # a trial of this (living) process: left alone
    alive.set_user_attr(WORKER, worker_id(alive))
    fail_lost_trials(study)
    states = {t.number: t.state for t in study.get_trials()}
    assert states[trial.number] == TrialState.FAIL and states[alive.number] == TrialState.RUNNING
    (retry,) = study.get_trials(states=(TrialState.WAITING,))
    assert trial_number(retry) == trial.number and retry.params == {"x": trial.params["x"]}
    fail_lost_trials(study)  # once only
    assert len(study.get_trials(states=(TrialState.WAITING,))) == 1


def test_two_retries_of_one_trial_run_once_and_pruned_trials_have_no_value(tmp_path: Path) -> None:
    study = new_study(tmp_path)
    trial = study.ask()
    trial.suggest_float("x", 0, 1)
    study.tell(trial, state=TrialState.FAIL)
    failed = study.get_trials()[0]
    retry_callback()(study, failed)
    retry_callback()(study, failed)  # a second sweep started at the same moment queued another
    work_trials(study, objective, trials=6)
    trials = study.get_trials()
    assert [t.state for t in trials if t.state in (TrialState.RUNNING, TrialState.WAITING)] == []
    copies = [t for t in trials if trial_number(t) == failed.number]
    assert [t.state for t in copies][0] == TrialState.FAIL
    assert sorted(t.system_attrs.get(DUPLICATE_OF, -1) for t in copies) == [-1, -1, copies[1].number]
    assert len(finished_numbers(study)) == 6
    for t in trials:
        assert (t.value is not None) == (t.state == TrialState.COMPLETE)
        if t.state == TrialState.COMPLETE:
            assert t.value == 10 + t.params["x"]


def test_a_postgresql_url_without_psycopg_names_the_extra(tmp_path: Path, monkeypatch, capsys) -> None:
    import sys

    from yamb_app.cli import main

    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg raises ImportError
    url = "postgresql+psycopg://user:secret@127.0.0.1:1/sweeps"
    assert main(["sweep", str(tmp_path / "s"), "--storage", url]) == 2
    err = capsys.readouterr().err.strip()
    assert 'pip install -e ".[cluster]"' in err and "secret" not in err and len(err.splitlines()) == 1
