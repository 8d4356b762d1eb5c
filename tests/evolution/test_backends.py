"""Backends of ``yamb evolve``: the same seed gives the same run in one process, in two, and on Ray;
bad backend settings are one line and exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evolution.config import from_recipe, with_settings
from evolution.run import evolve, resume, start
from evolution.run_dir import RunDir
from robo_players.neural.files import load_weights
from tests.programs import error_lines, require_binary
from tests.servers import free_port, loopback_network
from yamb_app.cli import main

pytestmark = pytest.mark.slow  # Ray and its address checks: an evolve on a local Ray instance


# the command (``yamb evolve --recipe quick --generations 5 --seed 4``), on a smaller population
RUN = ["--recipe", "quick", "--generations", "5", "--seed", "4", "--population", "12", "--games", "20",
       "--final-games", "200", "--hidden", "8"]


def run_outputs(run_dir: Path) -> tuple:
    """What a finished run wrote that must not depend on where its games were played."""
    logbook = pd.read_csv(run_dir / "logbook.csv")
    logbook = logbook.drop(columns=[c for c in logbook.columns if "second" in c])
    best = load_weights(run_dir / "best.pt")
    with np.load(run_dir / "hall_of_fame.npz") as hall:
        return logbook, best.genome, best.cell_values, hall["genomes"]


def assert_same_run(a: Path, b: Path) -> None:
    x, y = run_outputs(a), run_outputs(b)
    pd.testing.assert_frame_equal(x[0], y[0], check_exact=True)
    for u, v in zip(x[1:], y[1:]):
        assert np.array_equal(u, v)


def yamb(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``python -m yamb ARGS`` in a fresh interpreter (Ray in its own process, not in pytest's)."""
    return subprocess.run([sys.executable, "-m", "yamb", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)


def test_one_process_two_processes_and_ray_give_the_same_run(tmp_path: Path) -> None:
    require_binary("ray")
    assert main(["evolve", *RUN, "--workers", "1", "--out", str(tmp_path / "one")]) == 0
    assert main(["evolve", *RUN, "--workers", "2", "--out", str(tmp_path / "two")]) == 0
    with loopback_network():  # the local Ray instance listens on 127.0.0.1 only
        done = yamb("evolve", *RUN, "--backend", "ray", "--workers", "2", "--out", str(tmp_path / "ray"))
    assert done.returncode == 0, done.stderr
    assert_same_run(tmp_path / "one", tmp_path / "two")
    assert_same_run(tmp_path / "one", tmp_path / "ray")
    assert len(pd.read_csv(tmp_path / "ray" / "logbook.csv")) == 5
    assert RunDir(tmp_path / "ray").load_checkpoint().config.backend == "ray"


def test_a_resume_may_change_the_backend(tmp_path: Path) -> None:
    config = with_settings(from_recipe("quick"), dict(population=4, games=2, generations=1, hidden="2",
                                                      final_games=4, hall_of_fame=1, elite=1))
    evolve(start(config, tmp_path), tmp_path)
    state = resume(tmp_path, {"generations": 2, "backend": "ray", "ray_address": "10.0.0.1:6379", "workers": 8})
    assert (state.config.backend, state.config.ray_address, state.config.workers) == ("ray", "10.0.0.1:6379", 8)
    assert "10.0.0.1:6379" in (tmp_path / "config.toml").read_text()
    state = resume(tmp_path, {"backend": "processes"})  # the cluster's address goes with the backend
    assert (state.config.backend, state.config.ray_address) == ("processes", "")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--backend", "threads"], "backend must be one of processes, ray, not 'threads'"),
        (["--ray-address", "10.0.0.1:6379"], "ray_address applies to backend ray only"),
        (["--backend", "ray", "--ray-address", "nowhere"], "ray_address 'nowhere' is not HOST:PORT"),
        (["--backend", "ray", "--ray-address", "127.0.0.1:{port}"], "cannot reach the Ray cluster at 127.0.0.1:{port}"),
    ],
)
def test_bad_backend_settings_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture, args: list[str],
                                           needle: str) -> None:
    port = str(free_port())  # nothing listens there
    args = [a.replace("{port}", port) for a in args]
    assert main(["evolve", *RUN, "--out", str(tmp_path / "run"), *args]) == 2
    err = error_lines(capsys.readouterr().err)
    assert len(err) == 1 and needle.replace("{port}", port) in err[0], err


def test_without_ray_the_ray_backend_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    assert main(["evolve", *RUN, "--backend", "ray", "--out", str(tmp_path / "run")]) == 2
    err = error_lines(capsys.readouterr().err)
    assert len(err) == 1 and 'pip install -e ".[cluster]"' in err[0], err
