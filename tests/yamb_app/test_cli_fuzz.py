"""A seeded fuzz of the command line: hostile numbers, unicode, paths of the wrong kind and missing
values over every subcommand. No invocation may end in a traceback: exit 0, or exit 2 with one line.

The cases come from a seeded generator (the same ones every run); they run in this process
through ``main()``, all ``CASES`` of them (a fixed count, never a time limit: a busy machine
runs the same cases, only slower), and the first few also as real processes. Each case starts from a fast valid command and spoils one or two of
its arguments; values that would start long work (a sweep, a large valid count) are drawn
only from pools whose every value is refused.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.programs import COMPILING, PLAYED, error_lines
from yamb_app.cli import main

SEED = 20261124
CASES = 300
SUBPROCESS_CASES = 4
ROOT = Path(__file__).resolve().parents[2]
BOT = str(ROOT / "robo_players" / "bots" / "yatzy-5d-free.safetensors")

REFUSED_NUMBERS = ["-1", "-0x1", "1e3", "1.5", "nan", "inf", "-inf", "²", "٣", "９", "", " ", "0x10", "1_000",
                   "9" * 40, str(2**64), "-5", "1,000", "+-1", "١٢", "１２", "9" * 5000, "1\u20030", "\u20031"]
NUMBERS = REFUSED_NUMBERS + ["0", "1", str(2**64 - 1), "3"]
TEXTS = ["", " ", "²", "ÿ", "\u202e", ",,,", "x" * 300, "../..", "💥", "none", "NaN", "yamb,", "down,sideways",
         "free,free", "-", "=", "a=b=c", "\t"]
SETTINGS = ["seed", "population", "games", "generations", "mutation_sigma", "cxpb", "hidden", "elite", "tournament",
            "hall_of_fame", "final_games", "played", "player", "algorithm", "game", "columns", "nope", ""]


def path_kinds(tmp: Path) -> list[str]:
    (tmp / "file.txt").write_text("not a weights file, a config or a save\n")
    (tmp / "hostile.toml").write_text("mutation_sigma = nan\nhidden = [1000000000]\nseed = -1\n")
    (tmp / "garbage.pt").write_bytes(bytes(range(256)) * 4)
    if not (tmp / "loop").is_symlink():
        (tmp / "loop").symlink_to(tmp / "loop")
    (tmp / "folder.pt").mkdir(exist_ok=True)
    return [str(tmp), str(tmp / "file.txt"), str(tmp / "file.txt" / "under"), "/dev/null", "/proc/self",
            "/proc/self/fd", str(tmp / "new" / "deeper"), "", "~nobody/x", str(tmp / "bad.pt"),
            str(tmp / "hostile.toml"), str(tmp / "garbage.pt"), "/dev/zero", "y" * 300, str(tmp / ("z" * 300) / "a.pt"),
            str(tmp / "loop"), str(tmp / "loop" / "x.png"), str(tmp / "folder.pt")]


def commands(tmp: Path, n: int) -> dict[str, tuple[list[str], dict[str, list[str]]]]:
    """Each subcommand: a fast valid command, and the values each of its options may be spoiled with."""
    paths = path_kinds(tmp)
    tiny = ["--generations", "1", "--population", "3", "--games", "2", "--hidden", "2", "--set", "final_games=3",
            "--set", "elite=1", "--set", "hall_of_fame=1"]
    return {
        "simulate": (["simulate", "--games", "20", "--json"],
                     {"--games": NUMBERS, "--seed": NUMBERS, "--batch-size": NUMBERS, "--preset": TEXTS,
                      "--dice": NUMBERS, "--joker": TEXTS, "--columns": TEXTS, "--player": TEXTS + paths}),
        "compare": (["compare", "random", "greedy", "--games", "20", "--json"],
                    {"--games": NUMBERS, "--seed": NUMBERS, "--batch-size": NUMBERS, "--plot": paths,
                     "--columns": TEXTS, "--preset": TEXTS}),
        "match": (["match", "random", "greedy", "--games", "4", "--json"],
                  {"--games": NUMBERS, "--seed": NUMBERS, "--batch-size": NUMBERS, "--columns": TEXTS,
                   "--preset": TEXTS}),
        "solve": (["solve", "--preset", "yatzy", "--games", "-1"],
                  {"--games": REFUSED_NUMBERS, "--seed": REFUSED_NUMBERS, "--columns": TEXTS, "--dice": REFUSED_NUMBERS}),
        "bench": (["bench", "--games", "0"],
                  {"--games": REFUSED_NUMBERS, "--batch-size": REFUSED_NUMBERS, "--repeat": REFUSED_NUMBERS,
                   "--threads": REFUSED_NUMBERS}),
        "play": (["play", "--humans", "0", "--bots", "1", "--bot", "random", "--seed", "1", "--preset", "yatzy"],
                 {"--humans": REFUSED_NUMBERS, "--bots": REFUSED_NUMBERS, "--seed": NUMBERS, "--save": paths,
                  "--load": paths, "--bot": TEXTS, "--columns": TEXTS}),
        "evolve": (["evolve", "--out", str(tmp / f"run-{n}"), *tiny],
                   {"--seed": NUMBERS, "--generations": REFUSED_NUMBERS, "--population": REFUSED_NUMBERS,
                    "--games": REFUSED_NUMBERS, "--final-games": REFUSED_NUMBERS, "--workers": REFUSED_NUMBERS,
                    "--threads": REFUSED_NUMBERS, "--hidden": TEXTS + REFUSED_NUMBERS, "--config": paths,
                    "--out": paths, "--resume": paths, "--init": TEXTS + paths, "--player": TEXTS,
                    "--algorithm": TEXTS, "--preset": TEXTS, "--recipe": TEXTS, "--columns": TEXTS,
                    "--backend": TEXTS, "--ray-address": TEXTS,
                    "--set": [f"{k}={v}" for k in SETTINGS
                              for v in ("", "-1", "inf", "nan", "²", str(2**64), "٣", "1_0", "9" * 5000)]}),
        "export": (["export", BOT, "--format", "npz", "--out", str(tmp / f"out-{n}.npz")],
                   {"--format": TEXTS, "--out": paths}),
        "expected-scores": (["expected-scores", "--preset", "yatzy", "--out", "/dev/null"],
                            {"--preset": TEXTS, "--out": paths[1:6]}),
        "serve": (["serve", "--port", "-1"],  # a valid command would serve for ever
                  {"--port": REFUSED_NUMBERS, "--max-open-games": REFUSED_NUMBERS, "--db": paths[:6],
                   "--runs": paths, "--host": TEXTS}),
        "imitate": (["imitate", "--teacher", "random", "--preset", "yatzy", "--games", "4", "--epochs", "1",
                     "--hidden", "2", "--cell-games", "2", "--check-games", "2", "--out", str(tmp / f"im-{n}.pt")],
                    {"--games": REFUSED_NUMBERS, "--epochs": REFUSED_NUMBERS, "--dagger": REFUSED_NUMBERS,
                     "--batch-size": REFUSED_NUMBERS, "--learning-rate": NUMBERS,
                     "--validation": NUMBERS, "--cell-games": REFUSED_NUMBERS,
                     "--check-games": REFUSED_NUMBERS, "--seed": NUMBERS, "--hidden": TEXTS + REFUSED_NUMBERS,
                     "--teacher": TEXTS + paths, "--out": paths, "--preset": TEXTS}),
        "fit": (["fit", "--start", "random", "--preset", "yatzy", "--games", "4", "--rounds", "1", "--epochs", "1",
                 "--hidden", "2", "--check-games", "2", "--threads", "1", "--out", str(tmp / f"fit-{n}.pt")],
                {"--games": REFUSED_NUMBERS, "--rounds": REFUSED_NUMBERS, "--epochs": REFUSED_NUMBERS,
                 "--batch-size": REFUSED_NUMBERS, "--learning-rate": NUMBERS, "--decay": NUMBERS,
                 "--validation": NUMBERS, "--check-games": REFUSED_NUMBERS, "--seed": NUMBERS,
                 "--threads": REFUSED_NUMBERS, "--hidden": TEXTS + REFUSED_NUMBERS, "--start": TEXTS + paths,
                 "--out": paths, "--preset": TEXTS}),
        "fit-values": (["fit-values", "--preset", "yahtzee", "--rounds", "1", "--games", "4", "--hidden", "2",
                        "--out", str(tmp / f"values-{n}.npz")],
                       {"--games": REFUSED_NUMBERS, "--rounds": REFUSED_NUMBERS, "--epochs": REFUSED_NUMBERS,
                        "--memory": REFUSED_NUMBERS, "--explore": NUMBERS, "--learning-rate": NUMBERS,
                        "--seed": NUMBERS, "--threads": REFUSED_NUMBERS, "--hidden": TEXTS + REFUSED_NUMBERS,
                        "--joker": TEXTS, "--out": paths, "--preset": TEXTS}),
        "fit-afterstates": (["fit-afterstates", "--start", "random", "--preset", "yatzy", "--games", "4", "--rounds", "1",
                             "--epochs", "1", "--hidden", "2", "--check-games", "2", "--out", str(tmp / f"after-{n}.npz")],
                            {"--games": REFUSED_NUMBERS, "--rounds": REFUSED_NUMBERS, "--epochs": REFUSED_NUMBERS,
                             "--learning-rate": NUMBERS, "--check-games": REFUSED_NUMBERS, "--seed": NUMBERS,
                             "--threads": REFUSED_NUMBERS, "--hidden": TEXTS + REFUSED_NUMBERS,
                             "--start": TEXTS + paths, "--out": paths, "--preset": TEXTS}),
        "sweep": (["sweep", str(tmp / "sweep"), "--trials", "0"],
                  {"--trials": REFUSED_NUMBERS, "--workers": REFUSED_NUMBERS, "--seed": REFUSED_NUMBERS,
                   "--top": REFUSED_NUMBERS, "--storage": paths[:6] + paths[-5:], "--pruner": TEXTS, "--preset": TEXTS,
                   "--recipe": TEXTS}),
    }


def spoiled(rng: random.Random, base: list[str], options: dict[str, list[str]]) -> list[str]:
    """``base`` with one or two options given hostile values, a value missing, or an unknown option."""
    args = list(base)
    for _ in range(rng.randint(1, 2)):
        how = rng.random()
        flag = rng.choice(sorted(options))
        if how < 0.8:
            args += [flag, rng.choice(options[flag])]
        elif how < 0.9:
            args.append(flag)  # the value is missing
        else:
            args.append(rng.choice(["--nope", "-x", "--", "²", "--games=", f"{flag}={rng.choice(NUMBERS)}"]))
    return args


def score_case(rng: random.Random) -> list[str]:
    dice = [rng.choice(NUMBERS + ["1", "2", "6"]) for _ in range(rng.choice([4, 5, 5, 5, 6]))]
    return ["score", rng.choice(["yamb", "full_house", "straight"] + TEXTS), *dice]


def cases(tmp: Path) -> list[list[str]]:
    rng = random.Random(SEED)
    out = []
    for n in range(CASES):
        name = rng.choice(["score", *commands(tmp, 0)])
        if name == "score":
            out.append(score_case(rng))
        else:
            base, options = commands(tmp, n)[name]
            out.append(spoiled(rng, base, options))
    return out


@pytest.mark.slow
def test_the_cli_survives_a_seeded_fuzz(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # whatever a case writes by default stays here
    monkeypatch.setattr(sys, "stdin", open("/dev/null"))  # noqa: SIM115 - no case may wait for a person
    exits = {0: 0, 2: 0}
    for args in cases(tmp_path):
        code = main(args)
        out, err = capsys.readouterr()
        assert code in (0, 2), (args, code, err)
        assert "Traceback" not in err + out, (args, err)
        if code == 2:
            lines = error_lines(err, progress=(COMPILING, PLAYED))
            assert len(lines) == 1 and lines[0].startswith("yamb") and len(lines[0]) < 600, (args, err)
        exits[code] += 1
    print(f"{CASES} fuzz cases: {exits[0]} exit 0, {exits[2]} exit 2")
    assert exits[2] > exits[0] > 0  # mostly refusals, and some spoilt values that are fine


@pytest.mark.slow
def test_fuzz_cases_in_real_processes(tmp_path: Path) -> None:
    for args in cases(tmp_path)[:SUBPROCESS_CASES]:
        result = subprocess.run([sys.executable, "-m", "yamb", *args], capture_output=True, text=True,
                                timeout=300, cwd=tmp_path, stdin=subprocess.DEVNULL)
        assert result.returncode in (0, 2) and "Traceback" not in result.stderr, (args, result.stderr)
        if result.returncode == 2:
            assert len(error_lines(result.stderr, progress=(COMPILING, PLAYED))) == 1, (args, result.stderr)
