"""The command-line program: outputs checked against docs/rules.md, exit codes for bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def yamb_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "yamb", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # hand-worked from docs/rules.md
        (["full_house", "2", "2", "3", "3", "3"], 2 + 2 + 3 + 3 + 3 + 30),
        (["carriage", "4", "4", "4", "4", "4"], 4 * 4 + 40),
        (["full_house", "4", "4", "4", "4", "4"], 0),
        (["two_pairs", "6", "6", "6", "6", "6"], 0),
        (["straight", "2", "3", "4", "5", "6"], 45),
        (["--dice", "6", "max", "1", "6", "6", "5", "5", "4"], 6 + 6 + 5 + 5 + 4),
        (["--dice", "6", "min", "1", "6", "6", "5", "5", "4"], 1 + 4 + 5 + 5 + 6),
        (["--preset", "jamb6", "straight", "1", "2", "3", "4", "5", "6"], 50),
        (["--preset", "jamb6", "full_house", "6", "6", "6", "5", "5", "5"], 3 * 6 + 2 * 5 + 40),
        (["--preset", "yatzy", "one_pair", "3", "3", "5", "5", "1"], 10),
        (["--preset", "yahtzee", "small_straight", "1", "2", "3", "4", "6"], 30),
    ],
)
def test_score_prints_the_rule_book_value(args: list[str], expected: int) -> None:
    result = yamb_cli("score", *args)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip().splitlines()[-1]) == expected


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--preset", "yamn", "yamb", "1", "1", "1", "1", "1"], "unknown preset 'yamn'"),
        (["full_houze", "1", "1", "1", "1", "1"], "unknown row 'full_houze'"),
        (["yamb", "1", "1", "1", "1"], "expected 5 dice, got 4"),
        (["yamb", "1", "1", "1", "1", "7"], "die value 7"),
        (["yamb", "1", "1", "x", "1", "1"], "die value 'x'"),
        (["--preset", "yatzy", "--dice", "6", "yatzy", "1", "1", "1", "1", "1", "1"], "5 dice, not 6"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], needle: str) -> None:
    result = yamb_cli("score", *args)
    assert result.returncode == 2
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_simulate_unknown_column_is_exit_2() -> None:
    result = yamb_cli("simulate", "--columns", "down,sideways", "--games", "10")
    assert result.returncode == 2
    assert "unknown column kind 'sideways'" in result.stderr


@pytest.mark.slow
def test_simulate_json_is_reproducible_whatever_the_batch_size() -> None:
    runs = [
        json.loads(yamb_cli("simulate", "--games", "300", "--seed", "5", "--json",
                            "--batch-size", size).stdout)
        for size in ("300", "7")
    ]
    for key in ("mean", "std", "sem", "games", "games_per_second"):
        assert key in runs[0]
    assert runs[0]["games"] == 300
    assert runs[0]["mean"] == runs[1]["mean"]
    assert runs[0]["std"] == runs[1]["std"]
    assert runs[0]["sem"] == pytest.approx(runs[0]["std"] / 300**0.5)


def test_evolve_help_names_every_preset(capsys: pytest.CaptureFixture[str]) -> None:
    from evolution.config import PRESETS
    from yamb.app.cli import main

    assert main(["evolve", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for name in PRESETS:
        assert f"{name} (" in text, name


@pytest.mark.slow
@pytest.mark.parametrize("command", [["simulate", "--player", "greedy"], ["compare", "greedy", "random"]])
def test_progress_goes_to_a_terminal_s_stderr_and_json_stays_pure(command: list[str]) -> None:
    """Long runs show progress with ``--json`` too: on stderr, only when it is a terminal."""
    args = [sys.executable, "-m", "yamb", *command, "--preset", "yatzy", "--games", "3000", "--json"]
    quiet = subprocess.run(args, capture_output=True, text=True, check=True)
    assert quiet.stderr == "" and json.loads(quiet.stdout)
    env = {**__import__("os").environ, "FORCE_COLOR": "1", "TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1"}
    shown = subprocess.run(args, capture_output=True, text=True, check=True, env=env)
    assert json.loads(shown.stdout)  # the progress never reaches stdout
    assert "greedy" in shown.stderr
