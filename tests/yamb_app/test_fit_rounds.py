"""A fit stopped between rounds (``yamb fit``, ``fit-afterstates``, ``fit-values``, ``imitate``) keeps the rounds it finished
(``yamb_app.cli.partial``): the same command goes on from them and writes the file an unbroken run writes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import robo_players.training.afterstates as afterstates
import robo_players.training.demonstrations as demonstrations
import robo_players.training.returns as returns
import robo_players.training.value_fit as value_fit
from robo_players.training.kept_rounds import partial_path
from yamb_app.cli import main

COMMANDS = {  # the command, its output's suffix, and where it records a round (a function ``module.name``)
    "fit": (["fit", "--preset", "yamb", "--games", "30", "--rounds", "2", "--hidden", "8", "--epochs", "1",
             "--check-games", "10", "--threads", "1"], ".safetensors", (returns, "record_round")),
    "fit-afterstates": (["fit-afterstates", "--preset", "yamb", "--games", "30", "--rounds", "2", "--hidden", "8",
                         "--epochs", "1", "--check-games", "10"], ".npz", (afterstates, "record_round")),
    "imitate": (["imitate", "--preset", "yatzy", "--teacher", "expectimax", "--games", "20", "--dagger", "1",
                 "--hidden", "8", "--epochs", "1", "--cell-games", "10", "--check-games", "10"], ".safetensors",
                (demonstrations, "record")),
    "fit-values": (["fit-values", "--preset", "yatzy", "--rounds", "2", "--games", "30", "--hidden", "8",
                    "--epochs", "1"], ".npz", (value_fit, "play_round")),
}
AGAIN = {"fit": [1], "fit-afterstates": [1], "imitate": [1, 2], "fit-values": [1]}  # rounds recorded on going on after round 1


def stop_at_round(monkeypatch: pytest.MonkeyPatch, where: tuple[object, str], stop_at: int) -> list[int]:
    """Ctrl-C as round ``stop_at`` (from 1) starts recording; the rounds recorded so far."""
    module, name = where
    record_round, started = getattr(module, name), []

    def record(*args, **kwargs):
        started.append(len(started) + 1)
        if len(started) == stop_at:
            raise KeyboardInterrupt
        return record_round(*args, **kwargs)

    monkeypatch.setattr(module, name, record)
    return started


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_fit_stopped_after_a_round_goes_on_to_the_file_an_unbroken_fit_writes(
        command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    argv, suffix, where = COMMANDS[command]
    whole, broken = tmp_path / f"whole{suffix}", tmp_path / "broken" / f"out{suffix}"
    broken.parent.mkdir()
    assert main([*argv, "--out", str(whole)]) == 0
    assert not partial_path(whole).exists()  # written, so nothing is kept

    with monkeypatch.context() as patched:
        stop_at_round(patched, where, 2)
        capsys.readouterr()
        assert main([*argv, "--out", str(broken)]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (f"yamb {command}: interrupted with 1 of 2 rounds kept in {partial_path(broken)}; "
                       f"run the same command to go on from there")
    assert not broken.exists() and partial_path(broken).exists()

    started = stop_at_round(monkeypatch, where, 0)
    assert main([*argv, "--out", str(broken)]) == 0
    assert started == AGAIN[command]  # round 2 (imitate: round 1's games again, not its training)
    said = capsys.readouterr()
    assert f"kept in {partial_path(broken)}" in said.out + said.err
    assert broken.read_bytes() == whole.read_bytes()
    assert not partial_path(broken).exists()


def test_a_fit_stopped_before_its_first_round_ends_keeps_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    argv, suffix, where = COMMANDS["fit"]
    out = tmp_path / f"out{suffix}"
    stop_at_round(monkeypatch, where, 1)
    assert main([*argv, "--out", str(out)]) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "yamb fit: interrupted before a round was finished; run the same command to start again")
    assert not partial_path(out).exists() and not out.exists()


def test_kept_rounds_are_refused_to_other_options_and_when_damaged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    argv, suffix, where = COMMANDS["fit"]
    out = tmp_path / f"out{suffix}"
    with monkeypatch.context() as patched:
        stop_at_round(patched, where, 2)
        assert main([*argv, "--out", str(out)]) == 130
    kept = partial_path(out)
    capsys.readouterr()

    other = [*argv, "--out", str(out)]
    other[other.index("--games") + 1] = "40"
    assert main(other) == 2
    assert capsys.readouterr().err.strip() == (
        f"yamb fit: error: {kept} holds the rounds of a fit with --games 30, not 40: give the same options "
        f"to go on, or delete it to start afresh")

    data = bytearray(kept.read_bytes())
    genome_at = data.find(np.float32(1).tobytes()[:2], len(data) // 2)  # a byte inside the arrays
    data[genome_at] ^= 0x40
    kept.write_bytes(bytes(data))
    assert main([*argv, "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"yamb fit: error: {kept}: the rounds kept there are damaged; delete it to start the fit afresh")
    assert not out.exists()
