"""yamb sweep: a tiny sweep completes, resumes after an interruption, and its best trial reproduces."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path

import optuna
import pandas as pd
import pytest
from optuna.trial import TrialState

from evolution.config import ALGORITHMS, CMA_MAX_WEIGHTS, ConfigError, EvolveConfig, read_toml, with_settings
from evolution.run import evolve, start
from evolution.run_dir import RunDir
from evolution.state import net_spec
from evolution.sweeps import sweep
from evolution.sweeps.space import SPACES, SearchSpace, check_space, suggest, trial_config
from evolution.sweeps.study import (
    SweepError,
    SweepSettings,
    open_storage,
    read_settings,
    settle_settings,
    write_settings,
)
from evolution.sweeps.sweep import RUN_DIR, finished_trials, objective, prepare, run_sweep
from robo_players.neural.population import genome_size
from yamb_app.cli import main

TINY = SearchSpace(base="direct", population=(4, 6), games=(4, 6), generations=(2, 3),
                   ga_hidden=("2", "4"), cma_hidden=("1", "2"), final_games=30, settings={"game": "yatzy"})


def tiny_settings(pruner: str = "none") -> SweepSettings:
    return SweepSettings(space=TINY, recipe="tiny", pruner=pruner, study="tiny")


def rerun(run_dir: Path, out: Path) -> float:
    """A trial's config.toml played again as a plain evolution run: its final check's mean."""
    config = with_settings(EvolveConfig(), read_toml(run_dir / "config.toml"))
    return evolve(start(config, out), out)["best"]["mean"]


def stop_after_first_generation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the next trial's run raise KeyboardInterrupt (Ctrl-C) once its first generation is saved."""
    real_evolve = sweep.evolve

    def evolve_until_ctrl_c(state, run_dir, report):
        def report_then_stop(state, entry):
            report(state, entry)
            raise KeyboardInterrupt

        return real_evolve(state, run_dir, report_then_stop)

    monkeypatch.setattr(sweep, "evolve", evolve_until_ctrl_c)


@pytest.mark.slow
def test_sweep_resumes_after_an_interruption_and_its_best_trial_reproduces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory, settings = tmp_path / "sweep", tiny_settings()
    # two worker processes share the study; each finishes its trial, so there may be three
    study = run_sweep(directory, settings, trials=2, workers=2)
    trials = finished_trials(study) + 1
    assert trials in (3, 4)
    with monkeypatch.context() as patch:
        stop_after_first_generation(patch)
        with pytest.raises(KeyboardInterrupt):
            run_sweep(directory, settings, trials=trials)
    study = run_sweep(directory, settings, trials=trials)

    everything = study.get_trials()
    assert [t.state for t in everything].count(TrialState.COMPLETE) == trials
    (failed,) = [t for t in everything if t.state == TrialState.FAIL]
    (retry,) = [t for t in everything if t.system_attrs.get("failed_trial") == failed.number]
    assert retry.state == TrialState.COMPLETE
    assert retry.params == failed.params and retry.user_attrs[RUN_DIR] == failed.user_attrs[RUN_DIR]
    # the retry resumed the interrupted run: every generation played and reported once
    generations = retry.params["generations"]
    logbook = pd.read_csv(directory / retry.user_attrs[RUN_DIR] / "logbook.csv")
    assert list(logbook.gen) == list(range(1, generations + 1))
    assert sorted(retry.intermediate_values) == list(range(1, generations + 1))
    assert retry.intermediate_values[1] == failed.intermediate_values[1]
    # each trial has its own run directory, and no two complete trials drew the same settings
    assert len({t.user_attrs[RUN_DIR] for t in everything}) == trials
    assert len({tuple(sorted(t.params.items())) for t in everything if t.state == TrialState.COMPLETE}) == trials

    # the best trial and the resumed one, run again as plain evolution runs, score the same
    again = {study.best_trial.number: study.best_trial, retry.number: retry}
    for trial in again.values():
        assert rerun(directory / trial.user_attrs[RUN_DIR], tmp_path / f"rerun-{trial.number}") == trial.value


def test_a_pruned_trial_stops_its_run_after_the_saved_generation(tmp_path: Path) -> None:
    study = optuna.create_study(direction="maximize", pruner=optuna.pruners.ThresholdPruner(lower=1e9))
    study.optimize(lambda trial: objective(trial, tmp_path, TINY, seed=0), n_trials=1)
    (trial,) = study.trials
    assert trial.state == TrialState.PRUNED
    assert list(trial.intermediate_values) == [1]
    run_dir = tmp_path / trial.user_attrs[RUN_DIR]
    assert RunDir(run_dir).load_checkpoint().generation == 1
    assert not (run_dir / "summary.json").exists()


@pytest.mark.parametrize("preset", sorted(SPACES))
def test_every_drawn_setting_makes_a_valid_run(preset: str) -> None:
    space = SPACES[preset]
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    configs = []
    study.optimize(lambda trial: configs.append(trial_config(space, suggest(trial, space), 7)) or 0.0,
                   n_trials=60)
    assert {c.algorithm for c in configs} == {"ga", "cma", "sep-cma", "es"}
    for c in configs:
        assert c.seed == 7 and c.final_games == space.final_games and c.workers == 1
        assert space.population[0] <= c.population <= space.population[1]
        if c.algorithm == "cma":
            assert genome_size(net_spec(c).build()) <= CMA_MAX_WEIGHTS
        if c.algorithm == "es":
            assert c.population % 2 == 0 and space.es_sigma[0] <= c.es_sigma <= space.es_sigma[1]
        assert ",".join(map(str, c.hidden)) in (space.cma_hidden if c.algorithm == "cma" else space.ga_hidden)


def test_a_space_saved_before_algorithms_were_listed_draws_ga_and_cma() -> None:
    saved = {k: v for k, v in asdict(SPACES["quick"]).items() if k != "algorithms"}
    space = SearchSpace.from_dict(json.loads(json.dumps(saved)))
    assert space.algorithms == ("ga", "cma") and SPACES["quick"].algorithms == ALGORITHMS
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    study.optimize(lambda trial: suggest(trial, space) and 0.0, n_trials=20)
    assert {t.params["algorithm"] for t in study.trials} == {"ga", "cma"}
    with pytest.raises(ConfigError, match="a sweep's algorithms are among ga, cma, sep-cma, es, not \\['pso'\\]"):
        check_space(replace(space, algorithms=("ga", "pso")))


def test_a_sweep_json_of_an_earlier_version_names_its_recipe_preset(tmp_path: Path) -> None:
    write_settings(tmp_path, tiny_settings())
    path = tmp_path / "sweep.json"
    data = json.loads(path.read_text())
    data["preset"] = data.pop("recipe")
    path.write_text(json.dumps(data))
    assert read_settings(tmp_path) == tiny_settings()


def test_settings_are_kept_and_a_resume_refuses_other_ones(tmp_path: Path) -> None:
    assert settle_settings(tmp_path, {"recipe": None, "seed": 3}).space == SPACES["quick"]
    write_settings(tmp_path, tiny_settings())
    assert read_settings(tmp_path) == tiny_settings()
    assert settle_settings(tmp_path, {"recipe": None, "pruner": "none"}) == tiny_settings()
    with pytest.raises(SweepError, match="started with pruner 'none', not 'median'"):
        settle_settings(tmp_path, {"pruner": "median"})
    with pytest.raises(SweepError, match="started with fixed settings {'game': 'yatzy'}"):
        settle_settings(tmp_path, {}, {"game": "yahtzee"})


def test_sweep_json_keeps_no_password_and_a_resume_takes_the_one_given(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture) -> None:
    url = "postgresql+psycopg://yamb:s3cret@127.0.0.1:5432/sweeps"
    settings = settle_settings(tmp_path, {"recipe": None, "storage": url})
    assert settings.storage == url  # this run connects with it
    write_settings(tmp_path, settings)
    assert "s3cret" not in (tmp_path / "sweep.json").read_text()
    assert read_settings(tmp_path).storage == "postgresql+psycopg://yamb@127.0.0.1:5432/sweeps"  # PGPASSWORD, ~/.pgpass
    assert settle_settings(tmp_path, {"storage": url}).storage == url
    with pytest.raises(SweepError, match="started with storage 'postgresql[+]psycopg://yamb@127.0.0.1:5432/sweeps', "
                                         "not 'postgresql[+]psycopg://yamb@10.0.0.1:5432/sweeps'$"):
        settle_settings(tmp_path, {"storage": url.replace("127.0.0.1", "10.0.0.1")})
    assert main(["sweep", "report", str(tmp_path), "--storage", url.replace("5432", "5433")]) == 2  # another one
    assert "was started with storage" in capsys.readouterr().err


def test_a_second_machine_joins_the_study_of_the_same_space_only(tmp_path: Path) -> None:
    shared = f"sqlite:///{tmp_path / 'shared.db'}"
    first = replace(tiny_settings(), storage=shared, seed=5)
    prepare(tmp_path / "first", first)
    # another machine: its own directory and seed, the same storage and study
    study = prepare(tmp_path / "second", replace(first, seed=6))
    assert study.user_attrs["run_seed"] == 5
    other_space = replace(first, space=replace(TINY, games=(4, 8)))
    with pytest.raises(SweepError, match="searches another space"):
        prepare(tmp_path / "third", other_space)


def test_storages(tmp_path: Path) -> None:
    assert isinstance(open_storage(str(tmp_path / "sweep.log")), optuna.storages.JournalStorage)
    assert isinstance(open_storage(f"sqlite:///{tmp_path / 'sweep.db'}"), optuna.storages.RDBStorage)
    with pytest.raises(SweepError, match="cannot open storage 'nosuchdb://x'"):
        open_storage("nosuchdb://x")


def test_a_file_that_is_not_a_journal_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    """A journal storage appends to its file: a file of another kind would gain a record, then fail to be read."""
    notes = tmp_path / "notes.txt"
    notes.write_text("someone's notes\n")
    with pytest.raises(SweepError, match="is not an Optuna journal file"):
        open_storage(str(notes))
    assert notes.read_text() == "someone's notes\n"
    journal = tmp_path / "sweep.log"
    optuna.create_study(storage=open_storage(str(journal)), study_name="s")
    assert isinstance(open_storage(str(journal)), optuna.storages.JournalStorage)  # a journal opens again


@pytest.mark.slow
def test_cli_sweeps_and_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setitem(SPACES, "tiny", TINY)
    directory = str(tmp_path / "sweep")
    assert main(["sweep", directory, "--trials", "1", "--recipe", "tiny", "--pruner", "none",
                 "--storage", str(tmp_path / "journal.log")]) == 0
    out = capsys.readouterr().out
    assert "1 complete" in out
    lines = out.splitlines()  # off a terminal: a line as the sweep starts and as each trial ends, and no bar
    assert lines[1].startswith("trials 0/1: trial 0: generation 1/") and lines[2].startswith("trials 1/1: trial 0: ")
    assert not any(line.startswith("trials ━") for line in lines), out
    assert main(["sweep", "report", directory]) == 0
    out = capsys.readouterr().out
    assert "yamb evolve --config" in out
    for name in ("optimization_history", "param_importances", "parallel_coordinate", "intermediate_values"):
        assert (tmp_path / "sweep" / "plots" / f"{name}.png").stat().st_size > 0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["report"], "usage: yamb sweep report DIR"),
        (["report", "{tmp}/nothing"], "is not a sweep directory"),
        (["report", "{tmp}", "--seed", "1"], "takes DIR, --top and --storage, not --seed"),
        (["{tmp}/a", "{tmp}/b"], "one sweep directory, not 2"),
        (["{tmp}/s", "--trials", "0"], "argument --trials: '0' is not a whole number from 1 to 1,000,000"),
        (["{tmp}/s", "--seed", "-1"], "argument --seed: '-1' is not a whole number from 0 to 2**64-1"),
        (["{tmp}/s", "--storage", "{tmp}"], "is a directory, not a file"),
        (["{tmp}/s", "--storage", "{tmp}/notes.txt"], "notes.txt is not an Optuna journal file"),
        (["{tmp}/s", "--pruner", "best"], "unknown pruner 'best'"),
        (["{tmp}/s", "--recipe", "huge"], "unknown sweep recipe 'huge'"),
        (["{tmp}/s", "--preset", "huge"], "unknown preset 'huge'"),
        (["{tmp}/s", "--preset", "yatzy", "--set", "game=yahtzee"], "both set the game"),
        (["{tmp}/s", "--preset", "quick", "--recipe", "full"], "give the space once, as --recipe"),
        (["{tmp}/s", "--storage", "nosuchdb://x"], "cannot open storage"),
        (["{tmp}/s", "--set", "population=8"], "the sweep sets population itself"),
        (["{tmp}/s", "--set", "game=yams"], "unknown preset 'yams'"),
        (["{tmp}/s", "--set", "game"], "--set expects KEY=VALUE"),
        (["{tmp}/s", "--set", "game=yatzy", "--set", "game=yamb"], "--set game= is given twice"),
    ],
)
def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture, args: list[str], needle: str) -> None:
    (tmp_path / "notes.txt").write_text("someone's notes\n")
    assert main(["sweep", *(a.replace("{tmp}", str(tmp_path)) for a in args)]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1


def test_a_new_sweep_writes_nothing_into_a_directory_of_other_files(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "notes.txt").write_text("someone's notes\n")
    assert main(["sweep", str(tmp_path), "--trials", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"yamb sweep: error: {tmp_path} holds other files and no sweep (no sweep.json); "
                   "name a new or empty directory")
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def a_sweep_of_five_trials(directory: Path, storage: str | None = None) -> None:
    """A sweep directory whose study holds five complete trials (made directly, no run played)."""
    settings = replace(tiny_settings(), storage=storage)
    directory.mkdir()
    write_settings(directory, settings)
    study = optuna.create_study(storage=open_storage(storage or f"sqlite:///{directory / 'sweep.db'}"),
                                study_name=settings.study, direction="maximize")
    for i in range(5):
        study.add_trial(optuna.trial.create_trial(value=100.0 + i, user_attrs={RUN_DIR: f"trials/{i}"}))


def zero_page(path: Path) -> None:
    """The database's second page (a table's root) as zeros."""
    with path.open("r+b") as file:
        file.seek(4096)
        file.write(bytes(4096))


def cut_in(path: Path, line: str, at: int = 2) -> None:
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:at] + [line + "\n"] + lines[at:]))


DEEP, LONG = "[" * 100_000 + "]" * 100_000, "1" * 5000
SWEEP_DAMAGE = {  # name: (what is done to the sweep, what its one line says)
    "sweep.json too deep": (lambda d: (d / "sweep.json").write_text(DEEP), "is not a sweep settings file: not readable: nested"),
    "sweep.json integer": (lambda d: (d / "sweep.json").write_text(f'{{"seed": {LONG}}}'),
                           "is not a sweep settings file: not readable: an integer of over 4,300 digits"),
    "journal's first record too deep": (lambda d: (d / "journal.log").write_text(f'{{"op_code": {DEEP}}}\n'),
                                        "journal.log is not an Optuna journal file"),
    "journal record too deep": (lambda d: cut_in(d / "journal.log", f'{{"op_code": 5, "x": {DEEP}}}'),
                                "journal.log is damaged (a record: not readable: nested over 64 levels deep"),
    "journal record integer": (lambda d: cut_in(d / "journal.log", f'{{"op_code": 5, "x": {LONG}}}'),
                               "journal.log is damaged (a record: not readable: an integer of over 4,300 digits"),
    "journal record not JSON": (lambda d: cut_in(d / "journal.log", '{"op_code": 5, '),
                                "journal.log is damaged (a record: not JSON"),
    "sweep.db zeroed page": (lambda d: zero_page(d / "sweep.db"), "sweep.db failed: database disk image is malformed"),
}


@pytest.mark.parametrize("damage", SWEEP_DAMAGE)
def test_a_damaged_sweep_is_reported_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture, damage: str) -> None:
    directory = tmp_path / "s"
    journal = "journal" in damage
    a_sweep_of_five_trials(directory, str(directory / "journal.log") if journal else None)
    assert main(["sweep", "report", str(directory)]) == 0
    capsys.readouterr()
    harm, needle = SWEEP_DAMAGE[damage]
    harm(directory)
    assert main(["sweep", "report", str(directory)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("yamb sweep: error: ") and needle in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize(("edit", "needle"), [
    (lambda d: (d / "sweep.db").unlink(), "has no storage sqlite:///"),
    (lambda d: (d / "sweep.db").write_bytes(b""), "has no storage sqlite:///"),
    (lambda d: (d / "sweep.json").write_text((d / "sweep.json").read_text().replace('"study": "tiny"',
                                                                                    '"study": "other"')),
     "holds no study 'other'"),
    (lambda d: (d / "sweep.json").write_text((d / "sweep.json").read_text().replace('"seed": 0', '"seed": -1')),
     "seed must be a whole number from 0 to 2**64-1, not -1"),
    (lambda d: (d / "sweep.json").write_text((d / "sweep.json").read_text().replace('"recipe": "tiny"',
                                                                                    '"recipe": "../x"')),
     "recipe must be a name"),
])
def test_a_report_opens_the_sweep_s_study_and_never_makes_one(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                               edit, needle: str) -> None:
    directory = tmp_path / "s"
    a_sweep_of_five_trials(directory)
    edit(directory)
    before = sorted(p.name for p in directory.iterdir())
    assert main(["sweep", "report", str(directory)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("yamb sweep: error: ") and needle in err and len(err.splitlines()) == 1, err
    assert sorted(p.name for p in directory.iterdir()) == before  # no sweep.db made, no plots


def test_the_start_line_hides_the_storage_s_password(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    url = "postgresql+psycopg://yamb:s3cret@127.0.0.1:1/none"
    assert main(["sweep", str(tmp_path / "s"), "--trials", "1", "--storage", url]) == 2
    captured = capsys.readouterr()
    assert "s3cret" not in captured.out + captured.err
    assert "postgresql+psycopg://yamb:***@127.0.0.1:1/none" in captured.out
