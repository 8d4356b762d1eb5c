"""A run directory: ``--resume`` touches nothing of a directory that is not a run, an interrupted run says
the command that continues it, and two identical runs write the same bytes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from evolution import run as run_module
from evolution.run import evolve, resume, start
from tests.evolution.test_evolution import tiny
from tests.yamb_app.test_faults import TINY_ARGS, one_line_error
from yamb_app.cli import main


def snapshot(directory: Path) -> dict[str, tuple]:
    """Every entry of ``directory``: its bytes (files), size and modification time."""
    return {p.name: (p.read_bytes() if p.is_file() else None, p.stat().st_mtime_ns) for p in directory.iterdir()}


def test_resume_touches_nothing_of_a_directory_that_is_not_a_run(tmp_path: Path, capsys) -> None:
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / ".lock").write_text("another program's lock\n")
    (foreign / f".notes.{'0' * 32}.tmp").write_text("someone's file, named like ours\n")
    before = snapshot(foreign)
    assert main(["evolve", "--resume", str(foreign)]) == 2
    assert (f"yamb evolve: error: {foreign} is not a run directory of yamb evolve (it holds no config.toml); "
            "nothing was changed") == one_line_error(capsys)
    assert snapshot(foreign) == before
    missing = tmp_path / "missing"
    assert main(["evolve", "--resume", str(missing)]) == 2
    assert f"{missing}: no such run directory" in one_line_error(capsys)
    assert not missing.exists()



@pytest.mark.parametrize(("text", "reason"), [("a = " + "[" * 100_000 + "]" * 100_000, "nested over 64 levels deep"),
                                              ("generations = " + "9" * 5000, "an integer of over 4,300 digits")],
                         ids=["deep", "long integer"])
def test_a_settings_file_too_deep_or_too_long_to_read_is_one_line(tmp_path: Path, capsys, text: str,
                                                                   reason: str) -> None:
    """``--config FILE`` and a run's ``config.toml`` (``--resume``) read through ``yamb.parsing``."""
    config = tmp_path / "run.toml"
    config.write_text(text)
    assert main(["evolve", "--config", str(config), "--out", str(tmp_path / "new")]) == 2
    assert one_line_error(capsys).startswith(f"yamb evolve: error: {config}: not readable: {reason}")
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.toml").write_text(text)
    assert main(["evolve", "--resume", str(run)]) == 2
    assert f"{run / 'config.toml'}: not readable: {reason}" in one_line_error(capsys)
    assert [p.name for p in run.iterdir() if p.name != ".lock"] == ["config.toml"]
    assert (run / "config.toml").read_text() == text
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("text", ["", "# yamb evolve settings (see evolution/config.py)\n"], ids=["0 bytes", "comment"])
def test_a_run_whose_config_holds_no_settings_is_refused_not_started_afresh(tmp_path: Path, capsys,
                                                                          text: str) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.toml").write_text(text)
    assert main(["evolve", "--resume", str(run)]) == 2
    assert one_line_error(capsys) == (f"yamb evolve: error: {run / 'config.toml'} holds no settings (it is empty): "
                                      "it is not the run's; restore it, or start a new run")
    assert (run / "config.toml").read_text() == text
    assert sorted(p.name for p in run.iterdir() if p.name != ".lock") == ["config.toml"]

def test_a_new_run_writes_nothing_into_a_directory_of_other_files(tmp_path: Path, capsys) -> None:
    """``--out DIR`` where DIR holds files but no run: refused in one line, before anything is written."""
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("someone's notes\n")
    before = snapshot(foreign)
    assert main(["evolve", "--out", str(foreign), *TINY_ARGS]) == 2
    assert (f"yamb evolve: error: {foreign} holds other files and no run; name a new or empty directory with --out "
            "(or leave --out out for a new one under runs/)") == one_line_error(capsys)
    assert snapshot(foreign) == before
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / ".lock").write_text("")  # left by a run killed before it saved anything
    assert main(["evolve", "--out", str(tmp_path / "empty"), *TINY_ARGS]) == 0
    capsys.readouterr()
    assert main(["evolve", "--out", str(tmp_path / "empty"), *TINY_ARGS]) == 2  # a run: resume it
    assert f"already holds a run; resume it with --resume {tmp_path / 'empty'}" in one_line_error(capsys)


@pytest.mark.parametrize("where", ["new_state", "warm_up"])
def test_an_interrupted_run_names_the_command_that_continues_it(tmp_path: Path, where: str, capsys,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt  # Ctrl-C before the first checkpoint: compiling, or making generation 0

    run = tmp_path / "run"
    with monkeypatch.context() as patch:
        patch.setattr(run_module, where, interrupt)
        assert main(["evolve", "--out", str(run), *TINY_ARGS]) == 130
    if where == "new_state":  # nothing was saved: the same command starts it, in the same directory
        assert one_line_error(capsys) == ("yamb evolve: interrupted before the run saved anything; run the same "
                                          "command to start it again")
        assert not run.exists()
        assert main(["evolve", "--out", str(run), *TINY_ARGS]) == 0
    else:  # after the line that says the workers are starting, one line: the command that continues
        err = capsys.readouterr().err.strip().splitlines()
        assert err[0].startswith("yamb evolve: starting ") and "Traceback" not in "".join(err), err
        assert err[1:] == [f"yamb evolve: interrupted; continue with: yamb evolve --resume {run}"]
        assert main(["evolve", "--resume", str(run)]) == 0
    assert (run / "best.pt").is_file()



def test_resuming_a_finished_run_says_so_and_plays_nothing(tmp_path: Path, capsys,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A finished run resumed says it is finished and its verdict, exit 0, without a game played or a file
    of its results written again; extended (``--generations``), or its summary lost, it plays on."""
    run = tmp_path / "run"
    assert main(["evolve", "--out", str(run), *TINY_ARGS]) == 0
    capsys.readouterr()
    results = {name: (run / name).read_bytes() for name in ("best.pt", "summary.json", "hall_of_fame.npz")}
    stamps = {name: (run / name).stat().st_mtime_ns for name in results}

    def no_work(*args, **kwargs):
        raise AssertionError("a finished run played again")

    with monkeypatch.context() as patch:
        patch.setattr(run_module, "evolve", no_work)
        assert main(["evolve", "--resume", str(run)]) == 0
    out = capsys.readouterr().out
    assert f"{run} is finished: 1 generations played and its results written" in out
    assert "evolved" in out  # the verdict, as the run said it
    assert {name: (run / name).read_bytes() for name in results} == results
    assert {name: (run / name).stat().st_mtime_ns for name in results} == stamps
    (run / "summary.json").write_text("{")  # cut short: the results are written again
    assert main(["evolve", "--resume", str(run)]) == 0
    assert json.loads((run / "summary.json").read_text())["generations"] == 1
    assert main(["evolve", "--resume", str(run), "--generations", "2"]) == 0
    assert json.loads((run / "summary.json").read_text())["generations"] == 2

def test_two_identical_runs_write_the_same_best_player_and_hall_of_fame(tmp_path: Path) -> None:
    config = tiny()
    for name in ("one", "two"):
        evolve(start(config, tmp_path / name), tmp_path / name)
    for name in ("best.pt", "hall_of_fame.npz"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


RUNS_V3 = Path(__file__).resolve().parents[1] / "data" / "runs_v3"  # written by 45441a4 (checkpoint version 3): make.py


@pytest.mark.parametrize("name", ["cma", "sep-cma", "ga"])
def test_a_run_written_by_checkpoint_version_3_resumes_as_that_code_resumed_it(tmp_path: Path, name: str) -> None:
    run_dir = tmp_path / name
    shutil.copytree(RUNS_V3 / name, run_dir)
    expected = json.loads((RUNS_V3 / "resumed.json").read_text())[name]
    state = resume(run_dir, {})
    assert state.generation == 2 and state.config.recipe == ("direct" if name == "ga" else "quick")  # run_preset
    assert "recipe = " in (run_dir / "config.toml").read_text()
    result = evolve(state, run_dir)
    logbook = pd.read_csv(run_dir / "logbook.csv")
    assert {k: logbook[k].tolist() for k in expected["logbook"]} == expected["logbook"]
    assert (result["best"]["mean"], result["best"]["candidate"]) == (expected["best"], expected["candidate"])
    assert [c["final_mean"] for c in result["candidates"]] == expected["final_means"]
    assert {k: result["verdict"][k] for k in expected["verdict"]} == expected["verdict"]
