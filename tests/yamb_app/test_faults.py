"""Faults and hostile input: one line and exit code 2 instead of a traceback, a loop or a wrong result.

Bad command-line values, paths of the wrong kind, a full disk (simulated, and a real
tmpfs where this process may mount one), a network that outputs NaN, a damaged
checkpoint, and runs killed at the awkward moments.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evolution.checkpoint import CheckpointError
from evolution.config import ConfigError
from evolution.individual import Individual
from evolution.run import evolve, resume, start
from evolution.run_dir import RunDir
from evolution.run_files import CHECKPOINT
from robo_players.base import play
from robo_players.random_player import RandomPlayer
from tests.evolution.test_evolution import assert_same, outputs, tiny
from tests.programs import error_lines
from yamb import atomic
from yamb.engine import GameBatch
from yamb.errors import IllegalMoveError
from yamb.game import Game
from yamb.layout import layout
from yamb.rules import rules
from yamb_app.cli import main

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "robo_players" / "bots" / "yatzy-5d-free.safetensors"
TINY_ARGS = ["--generations", "1", "--population", "3", "--games", "2", "--hidden", "2", "--workers", "1",
             "--set", "final_games=3", "--set", "elite=1", "--set", "hall_of_fame=1"]


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    """The one line of standard error (after any progress lines), asserted to be one, with no traceback."""
    lines = error_lines(capsys.readouterr().err)
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    return lines[0]


@pytest.fixture
def paths(tmp_path: Path) -> dict[str, str]:
    """Paths of every kind: a directory, a regular file, a device, a path under a file."""
    (tmp_path / "file").write_text("not what you think\n")
    return {"dir": str(tmp_path), "file": str(tmp_path / "file"), "under_file": str(tmp_path / "file" / "x"),
            "new": str(tmp_path / "new"), "null": os.devnull, "proc": "/proc/self"}


# ----------------------------------------------------------------------------- hostile arguments
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["score", "yamb", "²", "1", "1", "1", "1"], "die value '²' is not an integer from 1 to 6"),
        (["score", "yamb", "٣", "1", "1", "1", "1"], "die value '٣' is not an integer from 1 to 6"),
        (["simulate", "--batch-size", "-5"], "argument --batch-size: '-5' is not a whole number from 1 to 1,000,000"),
        (["simulate", "--batch-size", "0"], "argument --batch-size: '0' is not a whole number from 1"),
        (["simulate", "--games", "1000000000000"], "'1000000000000' is not a whole number from 1 to 100,000,000"),
        (["simulate", "--seed", "-1"], "argument --seed: '-1' is not a whole number from 0 to 2**64-1"),
        (["simulate", "--seed", str(2**64)], f"'{2**64}' is not a whole number from 0 to 2**64-1"),
        (["simulate", "--dice", "٣"], "argument --dice: '٣' is not a whole number"),
        (["simulate", "--games"], "argument --games: expected one argument"),
        (["compare", "random", "--seed", "-1"], "argument --seed"),
        (["compare", "random", "--plot", "{dir}"], "is a directory, not a file"),
        (["solve", "--seed", str(2**64)], "argument --seed"),
        (["bench", "--batch-size", "0"], "argument --batch-size"),
        (["play", "--seed", "-1"], "argument --seed"),
        (["play", "--save", "{dir}"], "argument --save: {dir} is a directory, not a file"),
        (["evolve", "--seed", "-1"], "seed must be from 0 to 2**64-1"),
        (["evolve", "--workers", "100000"], "workers must be at most 1,024"),
        (["evolve", "--generations", "٣"], "argument --generations: '٣' is not a whole number"),
        (["evolve", "--set", "seed=-1"], "seed must be from 0 to 2**64-1"),
        (["evolve", "--set", f"seed={2**64}"], "seed must be from 0 to 2**64-1"),
        (["evolve", "--hidden", "1000000000"], "is not a whole number from 1 to 4,096"),
        (["evolve", "--games", "1000000000000"], "must be at most 10,000,000 (the games played at once)"),
        (["evolve", "--set", "mutation_sigma=inf"], "mutation_sigma must be a finite number, not inf"),
        (["evolve", "--set", "mutation_sigma=nan"], "mutation_sigma must be a finite number, not nan"),
        (["evolve", "--set", "cma_sigma=-inf"], "cma_sigma must be a finite number"),
        (["evolve", "--config", "{dir}"], "argument --config: {dir} is a directory, not a file"),
        (["evolve", "--config", "{proc}"], "is a directory, not a file"),
        (["evolve", "--out", "{file}"], "argument --out: {file} is not a directory"),
        (["evolve", "--out", "{under_file}"], "cannot make {under_file}: {file} is not a directory"),
        (["evolve", "--resume", "{file}"], "argument --resume: {file} is not a directory"),
        (["export", str(BOT), "--format", "pt", "--out", "{dir}"], "argument --out: {dir} is a directory"),
        (["export", str(BOT), "--format", "pt", "--out", "{null}"], "is not a regular file"),
        (["expected-scores", "--preset", "yatzy", "--out", "{null}"], "argument --out: /dev/null is not a directory"),
        (["expected-scores", "--preset", "yatzy", "--out", "{file}"], "is not a directory"),
        (["sweep", "{file}"], "{file} is not a directory"),
        (["serve", "--port", "٣"], "argument --port: '٣' is not a whole number from 0 to 65,535"),
        (["serve", "--port", "70000"], "argument --port: '70000' is not a whole number from 0 to 65,535"),
        (["serve", "--db", "{dir}"], "argument --db: {dir} is a directory, not a file"),
        (["sweep", "{new}", "--seed", "-1"], "argument --seed: '-1' is not a whole number from 0 to 2**64-1"),
        (["sweep", "{new}", "--storage", "{dir}"], "argument --storage: {dir} is a directory, not a file"),
    ],
)
def test_hostile_arguments_are_one_line_and_exit_2(args: list[str], needle: str, paths: dict[str, str],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main([a.format(**paths) for a in args]) == 2
    assert needle.format(**paths) in one_line_error(capsys)


@pytest.mark.parametrize("args", [["score", "yamb", "²", "1", "1", "1", "1"], ["simulate", "--batch-size", "-5"],
                                  ["sweep", "DIR", "--seed", "-1"],
                                  pytest.param(["evolve", "--set", "mutation_sigma=inf"], marks=pytest.mark.slow)])
def test_hostile_arguments_in_a_real_process(args: list[str], tmp_path: Path) -> None:
    args = [str(tmp_path / "s") if a == "DIR" else a for a in args]
    result = subprocess.run([sys.executable, "-m", "yamb", *args], capture_output=True, text=True, timeout=300)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert result.stdout == ""


# ----------------------------------------------------------------------------- play --load
def test_a_saved_game_with_an_illegal_move_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = Game("yatzy", players=2)
    lay = layout(rules("yatzy"))
    keep = min(a for a in game.legal_actions() if a >= lay.n_cells)  # keep nothing: legal while rolls last
    save = tmp_path / "game.json"
    seats = [{"name": "You", "bot": None}, {"name": "random", "bot": "random"}]
    save.write_text(json.dumps({"format": "yamb-play", "version": 1, "seats": seats,
                                "game": {**game.to_dict(), "actions": [keep] * 3}}))
    assert main(["play", "--load", str(save)]) == 2
    assert f"yamb play: error: {save} is damaged: game snapshot, action 2: cannot keep" in one_line_error(capsys)
    for flags in (["--preset", "yatzy"], ["--columns", "free"], ["--seed", "3"], ["--bots", "2"]):
        assert main(["play", "--load", str(save), *flags]) == 2
        assert f"--load plays the saved game's table and seats; drop {flags[0]}" in one_line_error(capsys)


# ----------------------------------------------------------------------------- players that never end a game
def test_an_out_of_range_action_played_unchecked_is_an_error_naming_the_player() -> None:
    class NoChoice:
        name = "no-choice"

        def act(self, batch, games):
            return np.full(len(games), -1)  # what a network whose outputs are all NaN picks

    with pytest.raises(IllegalMoveError, match=r"player no-choice: action -1 is out of range 0\.\.\d+"):
        play(GameBatch(layout(rules("yatzy")), 4, seed=1), [NoChoice()], check=False)


def test_a_player_that_never_fills_a_cell_is_stopped_naming_it() -> None:
    lay = layout(rules("yatzy"))

    class Roller:  # keeps nothing and rolls again, for ever: illegal after the third roll
        name = "roller"

        def act(self, batch, games):
            return np.full(len(games), lay.n_cells + int(np.flatnonzero(batch.rules.dice.keep_size == 0)[0]))

    most = lay.n_cells * (max(lay.rules.rolls, lay.rules.spec.last_turn_rolls) + 1)
    with pytest.raises(IllegalMoveError, match=f"player roller: a game is not over after {most:,} steps"):
        play(GameBatch(lay, 3, seed=1), [Roller()], check=False)
    scores = play(GameBatch(lay, 3, seed=1), [RandomPlayer()], check=False)  # a legal player is unaffected
    assert scores.shape == (3, 1) and (scores > 0).all()


def test_a_network_whose_output_is_nan_stops_evolution_naming_the_player(tmp_path: Path) -> None:
    state = start(tiny(), tmp_path)
    state.population = [Individual(np.full_like(ind, np.nan)) for ind in state.population]
    state.population[1][:] = 1e30  # finite weights, infinite outputs
    with pytest.raises(IllegalMoveError, match=r"player neural-direct: action -1 is out of range 0\.\.\d+ \(a network's "
                                               r"output is NaN or infinite; 5 of the 6 networks played have non-finite"):
        evolve(state, tmp_path)


def test_infinite_and_nan_settings_are_refused() -> None:
    for setting in ("mutation_sigma", "cxpb", "cma_sigma", "blend_alpha", "played", "es_sigma", "es_learning_rate",
                    "es_weight_decay"):
        for value in ("inf", "-inf", "nan"):
            with pytest.raises(ConfigError, match=f"^{setting} must be a finite number, not {value}$"):
                tiny(**{setting: value}).validate()


# ----------------------------------------------------------------------------- checkpoints and the logbook
@pytest.mark.slow
def test_a_damaged_checkpoint_is_refused_naming_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main(["evolve", "--out", str(run), *TINY_ARGS, "--generations", "2"]) == 0
    good = (run / CHECKPOINT).read_bytes()
    header_length = good.index(b"\n") + 1
    rng = np.random.default_rng(0)
    for position in rng.integers(header_length, len(good), 5):  # flipped bits anywhere in the payload
        damaged = bytearray(good)
        damaged[position] ^= 1 << int(rng.integers(8))
        (run / CHECKPOINT).write_bytes(bytes(damaged))
        with pytest.raises(CheckpointError, match="damaged checkpoint \\(its content does not match its SHA-256\\)"):
            RunDir(run).load_checkpoint()
    damaged = bytearray(good)
    damaged[header_length - 5] ^= 1  # a flipped digest
    (run / CHECKPOINT).write_bytes(bytes(damaged))
    assert main(["evolve", "--resume", str(run), "--generations", "3"]) == 2
    assert f"{run / CHECKPOINT}: damaged checkpoint" in one_line_error(capsys)
    (run / CHECKPOINT).write_bytes(good)
    assert RunDir(run).load_checkpoint().generation == 2


def test_killed_between_the_last_checkpoint_and_its_logbook_row_resumes_with_every_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tiny()
    evolve(start(config, tmp_path / "whole"), tmp_path / "whole")
    cut = tmp_path / "cut"
    real_write_logbook = RunDir.write_logbook

    def killed_on_the_last(run_dir, state) -> None:
        if state.generation == config.generations:
            raise KeyboardInterrupt  # the process dies here: the checkpoint is written, the row is not
        real_write_logbook(run_dir, state)

    with monkeypatch.context() as patch:
        patch.setattr(RunDir, "write_logbook", killed_on_the_last)
        with pytest.raises(KeyboardInterrupt):
            evolve(start(config, cut), cut)
    assert RunDir(cut).load_checkpoint().generation == config.generations
    assert len(pd.read_csv(cut / "logbook.csv")) == config.generations - 1
    evolve(resume(cut, {}), cut)
    logbook = pd.read_csv(cut / "logbook.csv")
    assert list(logbook.gen) == list(range(1, config.generations + 1))
    assert_same(outputs(tmp_path / "whole"), outputs(cut))


def test_a_run_killed_before_its_first_checkpoint_starts_again_and_temporaries_are_cleaned(tmp_path: Path) -> None:
    config = tiny(generations=2)
    evolve(start(config, tmp_path / "whole"), tmp_path / "whole")
    cut = tmp_path / "cut"
    start(config, cut)  # config.toml written; killed before generation 1 was saved
    left = [cut / f".{CHECKPOINT}.{uuid.uuid4().hex}.tmp", cut / f".logbook.csv.{uuid.uuid4().hex}.tmp"]
    for path in left:
        path.write_bytes(b"half a file")
    keep = cut / ".notes.tmp"  # not the name of a temporary file: kept
    keep.write_text("mine")
    assert not (cut / CHECKPOINT).exists()
    state = resume(cut, {})
    assert state.generation == 0 and not any(p.exists() for p in left) and keep.exists()
    evolve(state, cut)
    assert_same(outputs(tmp_path / "whole"), outputs(cut))


@pytest.mark.slow
def test_the_logbook_numbers_generations_as_the_console_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main(["evolve", "--out", str(run), *TINY_ARGS, "--generations", "2", "--population", "4"]) == 0
    console = capsys.readouterr().out
    logbook = pd.read_csv(run / "logbook.csv")
    assert list(logbook.columns) == ["gen", "individuals", "games", "avg", "std", "min", "max", "expectimax",
                                     "seconds", "compile_seconds"]
    assert list(logbook.gen) == [1, 2] and "gen   1/2" in console and "gen   2/2" in console
    assert list(logbook.individuals) == [4, 4] and list(logbook.games) == [2, 2]
    assert logbook.compile_seconds.iloc[0] > 0 and logbook.compile_seconds.iloc[1] == 0
    documented = (ROOT / "docs" / "guide" / "evolve.md").read_text()  # the run directory's files
    for column in logbook.columns:
        assert f"| `{column}`" in documented or f"`{column}`," in documented or f", `{column}`" in documented


# ----------------------------------------------------------------------------- a full disk
@pytest.mark.slow
def test_a_full_disk_in_evolve_is_one_line_and_the_last_checkpoint_stays_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert main(["evolve", "--out", str(run), *TINY_ARGS]) == 0
    capsys.readouterr()
    saved = (run / CHECKPOINT).read_bytes()

    real_fsync, full_for = os.fsync, [CHECKPOINT]

    def fsync(fd: int) -> None:  # delayed allocation: the disk fills when the data is synced
        if any(f".{name}." in os.readlink(f"/proc/self/fd/{fd}") for name in full_for):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    assert main(["evolve", "--resume", str(run), "--generations", "2"]) == 2
    assert f"cannot write {run / CHECKPOINT}: No space left on device" in one_line_error(capsys)
    assert (run / CHECKPOINT).read_bytes() == saved and RunDir(run).load_checkpoint().generation == 1
    assert not [p for p in run.iterdir() if p.name.endswith(".tmp")]
    out = tmp_path / "best.onnx"
    full_for[:] = [out.name, "sweep.json", "config.toml"]
    assert main(["export", str(run), "--format", "onnx", "--out", str(out)]) == 2
    assert f"cannot write {out}: No space left on device" in one_line_error(capsys)
    assert main(["sweep", str(tmp_path / "sweep"), "--trials", "1"]) == 2
    assert "No space left on device" in one_line_error(capsys)


@pytest.fixture
def small_disk(tmp_path: Path):
    """An 8 MB tmpfs, where this process may mount one (root, with mount allowed)."""
    where = tmp_path / "disk"
    where.mkdir()
    if not shutil.which("mount") or os.geteuid() != 0 or subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(where)], capture_output=True
    ).returncode:
        pytest.skip("cannot mount a tmpfs here (the simulated full disk above still runs)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "--lazy", str(where)], check=True)  # the sweep's storage may still be open


def fill(disk: Path) -> None:
    try:
        with open(disk / "filler", "wb") as f:
            while True:
                f.write(b"\0" * 4096)
                f.flush()
    except OSError as error:
        assert error.errno == errno.ENOSPC


@pytest.mark.slow
def test_a_real_full_disk(small_disk: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from evolution.sweeps.space import SPACES
    from evolution.sweeps.study import settle_settings
    from evolution.sweeps.sweep import prepare
    from tests.evolution.test_sweep import TINY

    monkeypatch.setitem(SPACES, "tiny", TINY)
    sweep = small_disk / "sweep"  # its settings and study made, no trial yet
    prepare(sweep, settle_settings(sweep, {"recipe": "tiny", "pruner": "none", "seed": None, "storage": None}, {}))
    run = small_disk / "run"
    assert main(["evolve", "--out", str(run), *TINY_ARGS]) == 0
    capsys.readouterr()
    saved = (run / CHECKPOINT).read_bytes()
    fill(small_disk)
    assert main(["evolve", "--resume", str(run), "--generations", "2"]) == 2
    assert f"cannot write {run}/" in one_line_error(capsys)
    assert (run / CHECKPOINT).read_bytes() == saved and RunDir(run).load_checkpoint().generation == 1
    for fmt in ("pt", "safetensors", "onnx", "npz"):
        out = small_disk / f"best.{fmt}"
        assert main(["export", str(run), "--format", fmt, "--out", str(out)]) == 2
        assert f"cannot write {out}: No space left on device" in one_line_error(capsys)
        assert not out.exists()
    assert main(["sweep", str(sweep), "--trials", "1"]) == 2
    assert f"the storage {sweep / 'sweep.db'} failed: database or disk is full" in one_line_error(capsys)


@pytest.mark.slow
def test_a_real_full_disk_leaves_no_empty_plot_or_tables_folder(small_disk: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A plot and the CSV tables on a full disk: one line naming the file, no 0-byte plot, no empty folder."""
    fill(small_disk)
    plot = small_disk / "scores.png"
    assert main(["compare", "greedy", "random", "--preset", "yatzy", "--games", "20", "--plot", str(plot)]) == 2
    assert f"cannot write {plot}: No space left on device" in one_line_error(capsys)
    assert not plot.exists()
    tables = small_disk / "tables"
    assert main(["expected-scores", "--preset", "yatzy", "--out", str(tables)]) == 2
    line = one_line_error(capsys)
    assert f"cannot write {tables}/" in line and "No space left on device" in line, line
    assert not tables.exists()
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]
