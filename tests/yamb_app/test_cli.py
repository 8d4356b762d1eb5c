"""The command-line program: outputs checked against docs/rules.md, exit codes for bad input."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.programs import COMPILING, PLAYED, error_lines
from yamb_app.cli import build_parser, main
from yamb_app.cli.compiling import MESSAGE


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


def test_simulate_s_games_per_second_leave_out_numba_s_compiling(capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A first run compiles for a minute: the rate is the games', not 200 games in 60 seconds."""
    import time

    from numba.core.event import trigger_event

    import robo_players.measure.simulate

    play = robo_players.measure.simulate.simulate

    def compile_then_play(*args, **kwargs):
        with trigger_event("numba:compile"):  # as numba says it compiles, for a second
            time.sleep(1.0)
        return play(*args, **kwargs)

    monkeypatch.setattr(robo_players.measure.simulate, "simulate", compile_then_play)
    started = time.perf_counter()
    assert main(["simulate", "--preset", "yatzy", "--games", "20", "--json"]) == 0
    wall = time.perf_counter() - started
    stats = json.loads(capsys.readouterr().out)
    assert stats["compile_seconds"] >= 1.0  # however busy the machine, the games' time leaves the compile out:
    assert 0 < stats["seconds"] <= wall - stats["compile_seconds"]
    assert stats["games_per_second"] == pytest.approx(20 / stats["seconds"])


def test_table_titles_stay_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """rich wrapped a title to its table's width: ``expectimax on yamb (down, up,`` over ``free, announce)``."""
    assert main(["simulate", "--player", "greedy", "--columns", "down,up,free,announce", "--games", "20"]) == 0
    assert main(["compare", "random", "greedy", "--preset", "yatzy", "--games", "20"]) == 0
    out = capsys.readouterr().out
    for title in ("greedy on yamb (down, up, free, announce)", "head to head: row beats column (ties count 1/2)"):
        assert title in out, out


def test_an_unknown_option_is_named_by_its_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    """It was ``yamb: error: unrecognized arguments: --gmes 10 (see yamb --help)``, whose help lists no options."""
    assert main(["simulate", "--gmes", "10"]) == 2
    assert capsys.readouterr().err == ("yamb simulate: error: unrecognized arguments: --gmes 10 "
                                       "(see yamb simulate --help)\n")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"yamb {version('yamb-evolution')}\n"


def test_every_option_with_a_default_says_it_in_its_help() -> None:
    """``--batch-size`` said "games per batch" and not that it is 20000; ``yamb score --help`` offered the game
    of a weights file that score never reads."""
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    unsaid = [(name, action.option_strings[-1]) for name, sub in commands.items() for action in sub._actions
              if action.option_strings and action.default not in (None, False, [], argparse.SUPPRESS)
              and "default" not in (action.help or "")]
    assert unsaid == []
    for name in ("score", "solve"):
        assert "weights file" not in " ".join(commands[name].format_help().split()), name


def test_evolve_help_names_every_recipe(capsys: pytest.CaptureFixture[str]) -> None:
    from evolution.config import RECIPES
    from yamb_app.cli import main

    assert main(["evolve", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for name in RECIPES:
        assert f"{name} (" in text, name


@pytest.mark.slow
@pytest.mark.parametrize("command", [["simulate", "--player", "greedy"], ["compare", "greedy", "random"],
                                     ["match", "greedy", "random"]])
def test_progress_goes_to_stderr_and_json_stays_pure(command: list[str]) -> None:
    """Long runs show progress with ``--json`` too, on stderr: a bar on a terminal; off a terminal (a log),
    where no bar is drawn, a line at each tenth of each task's games, the last at all of them, though
    the games are one batch (counted as its turns go by)."""
    args = [sys.executable, "-m", "yamb", *command, "--preset", "yatzy", "--games", "3000", "--json"]
    logged = subprocess.run(args, capture_output=True, text=True, check=True)
    assert json.loads(logged.stdout)  # the progress never reaches stdout
    assert error_lines(logged.stderr) == []  # the tests read past these lines before a one-line error
    said: dict[str, list[tuple[int, int]]] = {}
    for line in logged.stderr.splitlines():
        if line != f"yamb {command[0]}: {MESSAGE}":  # compiling: said
            task, done, total = re.fullmatch(PLAYED, line).groups()
            said.setdefault(task, []).append((int(done.replace(",", "")), int(total.replace(",", ""))))
    tasks = {"simulate": ["greedy on yatzy"], "compare": ["greedy", "random"], "match": ["greedy v random"]}
    assert list(said) == tasks[command[0]], logged.stderr
    for counts in said.values():  # a line as each tenth is passed
        total = counts[0][1]  # the match plays each deal once per seat order: 6,000 games
        assert [10 * done // total for done, _ in counts] == list(range(1, 11)), logged.stderr
        assert counts[-1] == (total, total) and {t for _, t in counts} == {total}, logged.stderr
    env = {**os.environ, "FORCE_COLOR": "1", "TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1"}
    shown = subprocess.run(args, capture_output=True, text=True, check=True, env=env)
    assert json.loads(shown.stdout)
    assert "greedy" in shown.stderr and "━" in shown.stderr and " of 3,000 games" not in shown.stderr  # a bar


@pytest.mark.slow
def test_bench_shows_its_progress_on_a_terminal_s_stderr() -> None:
    """``yamb bench`` plays for a minute: a bar says which case it measures; stdout stays one JSON object."""
    args = [sys.executable, "-m", "yamb", "bench", "--games", "200", "--repeat", "1", "--threads", "1", "--json"]
    env = {**os.environ, "FORCE_COLOR": "1", "TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "1"}
    shown = subprocess.run(args, capture_output=True, text=True, check=True, env=env)
    assert json.loads(shown.stdout)["games"] == 200
    assert "yamb" in shown.stderr and "━" in shown.stderr  # the first case, shown as it starts
    quiet = subprocess.run(args, capture_output=True, text=True, check=True)
    assert quiet.stderr in ("", f"yamb bench: {MESSAGE}\n")  # off a terminal: no bar


def test_rounds_off_a_terminal_say_each_tenth_of_the_games() -> None:
    """``yamb fit`` and ``imitate`` into a log: no bar is drawn there, so a line at each tenth of a round."""
    import io

    from rich.console import Console

    from yamb_app.cli.rounds import rounds_progress

    console = Console(file=io.StringIO(), force_terminal=False)
    with rounds_progress(console, 1000) as (say, advance):
        for r in (1, 2):
            say(f"round {r}/2: 1,000 games played by expectimax")
            for _ in range(20):
                advance(50)
    lines = [line for line in console.file.getvalue().splitlines() if line]  # type: ignore[attr-defined]
    tenths = [f"  {n:,} of 1,000 games" for n in range(100, 1001, 100)]
    assert [line.partition("  (")[0] for line in lines] == [
        "round 1/2: 1,000 games played by expectimax", *tenths, "round 2/2: 1,000 games played by expectimax", *tenths]


# ---------------------------------------------------------------- the command line's classes of bad input
# (in this process, through main(): each case is refused while the arguments are read, before any game)

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "robo_players" / "bots" / "yatzy-5d-free.safetensors"
PATH_CHECKS = ("input_file", "output_file", "output_dir", "plot_file", "storage")
INTEGER_CHECKS = ("integer", "whole_number", "layer_sizes", "threads")
REQUIRED = {"score": ["yamb", "1", "1", "1", "1", "1"], "compare": ["random"], "export": [str(BOT), "--format", "npz"],
            "imitate": ["--out", "x.pt"], "fit": ["--out", "x.pt"],
            "fit-values": ["--out", "x.npz"], "fit-afterstates": ["--out", "x.npz"]}  # what each command needs besides the option


def options_checked_by(names: tuple[str, ...]) -> list[tuple[str, str]]:
    """(command, option) of every option of every subcommand whose value is checked by one of ``names``."""
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    return [(name, action.option_strings[-1]) for name, sub in commands.items() for action in sub._actions
            if action.option_strings and getattr(action.type, "__name__", "") in names]


def refused_in_one_line(capsys: pytest.CaptureFixture[str], args: list[str], progress: bool = False) -> str:
    """The one line ``main(args)`` refuses ``args`` with (exit 2, no traceback; nothing on stdout unless
    ``progress``: the refusal comes after some work)."""
    assert main(args) == 2, args
    out, err = capsys.readouterr()
    lines = error_lines(err, progress=(COMPILING, PLAYED))
    assert (progress or out == "") and len(lines) == 1 and "Traceback" not in err + out, (args, err)
    return lines[0]


def test_every_command_has_path_and_integer_options_to_check() -> None:
    paths, integers = options_checked_by(PATH_CHECKS), options_checked_by(INTEGER_CHECKS)
    assert {("evolve", "--out"), ("evolve", "--resume"), ("evolve", "--config"), ("play", "--save"),
            ("play", "--load"), ("serve", "--db"), ("compare", "--plot"), ("fit", "--out")} <= set(paths)
    assert {("evolve", "--hidden"), ("simulate", "--games"), ("serve", "--port"), ("evolve", "--seed")} <= set(integers)


@pytest.mark.parametrize(("command", "option"), options_checked_by(PATH_CHECKS))
def test_every_path_option_refuses_an_unusable_path_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 command: str, option: str) -> None:
    """Names over the system's limit, loops of symbolic links, and (not as root) a folder that cannot be
    searched: the OS error is named in one line, where ``Path.is_dir()`` used to raise it as a traceback."""
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0)
    cases = {"x" * 300: "File name too long", str(tmp_path / "loop" / "x.png"): "Too many levels of symbolic links"}
    if os.geteuid() != 0:  # root searches any folder
        cases[str(locked / "x.png")] = "Permission denied"
    for value, reason in cases.items():
        line = refused_in_one_line(capsys, [command, *REQUIRED.get(command, []), option, value])
        assert reason in line and len(line) < 300, line
    locked.chmod(0o700)


@pytest.mark.parametrize(("command", "option"), options_checked_by(PATH_CHECKS[1:]))
def test_every_output_option_refuses_a_folder_it_cannot_write_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str,
        option: str) -> None:
    """A result to be written into a read-only folder is refused before the work, not lost after it
    (root writes into any folder, but not on a read-only file system: ``os.access`` says so for both)."""
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: access(path, mode) and not (
        mode & os.W_OK and Path(path) == locked))
    for value in (str(locked / "x.png"), str(locked / "new" / "x.png")):
        line = refused_in_one_line(capsys, [command, *REQUIRED.get(command, []), option, value])
        assert f"{locked} is not writable" in line and len(line) < 300, line
    locked.chmod(0o700)


@pytest.mark.parametrize(("command", "option"), options_checked_by(INTEGER_CHECKS))
def test_every_integer_option_takes_ascii_digits_only(capsys: pytest.CaptureFixture[str], command: str,
                                                      option: str) -> None:
    """Python's ``int`` reads other scripts' digits and underscores (``int('٣') == 3``); the options do not,
    and a number of 5,000 digits is refused in a line of reasonable length (``int`` raises past 4,300)."""
    for value in ("٣", "１２", "1_000", "²", "9" * 5000):
        line = refused_in_one_line(capsys, [command, *REQUIRED.get(command, []), option, value])
        assert "whole number" in line and len(line) < 300, line


@pytest.mark.parametrize("value", ["٣", "１２", "1_000", "9" * 5000])
def test_integer_settings_take_ascii_digits_only(capsys: pytest.CaptureFixture[str], value: str) -> None:
    """Every int (and list of int) setting of a run, by --set, by its flag (--hidden is text) and in a TOML file."""
    from dataclasses import fields

    from evolution.config import EvolveConfig

    names = [f.name for f in fields(EvolveConfig) if f.type in ("int", "list[int]")]
    assert {"seed", "hidden", "population", "lookahead"} <= set(names)
    for name in names:
        line = refused_in_one_line(capsys, ["evolve", "--set", f"{name}={value}"])
        assert f"setting {name} = " in line and "ASCII" in line and len(line) < 300, line


def test_score_refuses_a_die_of_5000_digits_in_one_short_line(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused_in_one_line(capsys, ["score", "yamb", "1", "1", "1", "1", "7" * 5000])
    assert "die value" in line and len(line) < 200


def test_a_setting_given_by_a_flag_and_by_set_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """A flag used to override ``--set`` silently, so ``--set population=1e9`` was never checked."""
    from yamb_app.commands.evolve import OVERRIDES

    for flag, setting, _, _ in OVERRIDES:
        line = refused_in_one_line(capsys, ["evolve", flag, "2", "--set", f"{setting}=1e9"])
        assert f"--set {setting}=1e9 both set {setting}" in line, line
    assert "given twice" in refused_in_one_line(capsys, ["evolve", "--set", "seed=1", "--set", "seed=2"])


@pytest.mark.parametrize("value", ["../../../x", "/tmp/x", "a/b", "..", ""])
def test_the_recipe_cannot_lead_the_run_out_of_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """``recipe`` begins the run directory's name; under its old name ``run_preset`` (a config
    file of an earlier version) it is read and checked the same."""
    work = tmp_path / "a" / "b" / "c"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    for name in ("recipe", "run_preset"):
        (work / "run.toml").write_text(f'{name} = "{value}"\n')
        for args in (["--set", f"{name}={value}"], ["--config", "run.toml"]):
            assert "recipe must be a name" in refused_in_one_line(capsys, ["evolve", *args])
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", "c", "run.toml"]  # nothing written


def test_a_validation_share_that_leaves_no_game_to_train_on_is_one_line(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A share over a half is refused before any game is played; so is a share that draws both of two
    games for validation (0.5, seed 3: imitate used to divide by zero training steps, then to refuse it
    only after recording the games)."""
    tiny = ["imitate", "--teacher", "random", "--preset", "yatzy", "--games", "2", "--epochs", "1", "--hidden", "2",
            "--cell-games", "2", "--check-games", "2", "--out", str(tmp_path / "x.pt")]
    for share in ("0.99", "0.51", "1"):
        line = refused_in_one_line(capsys, [*tiny, "--validation", share])
        assert f"argument --validation: '{share}' is not a number from 0 to 0.5" in line, line
    line = refused_in_one_line(capsys, [*tiny, "--validation", "0.5", "--seed", "3"])  # nothing played
    assert "held out all 2 recorded games" in line and "--validation" in line
    assert not (tmp_path / "x.pt").exists()


@pytest.mark.parametrize("args", [["export", str(BOT), "--format", "onnx", "--out", "{tmp}/x.onnx"],
                                  ["simulate", "--player", "{tmp}/x.onnx", "--games", "2"]])
def test_a_missing_optional_package_names_its_extra(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    """As after ``pip install -e .`` without extras: ``import onnx`` fails (None in sys.modules)."""
    for module in ("onnx", "onnxruntime"):
        monkeypatch.setitem(sys.modules, module, None)
    line = refused_in_one_line(capsys, [a.replace("{tmp}", str(tmp_path)) for a in args])
    assert "needs the onnx extra (onnx is not installed): pip install -e '.[onnx]'" in line


def test_preset_is_the_game_in_every_command() -> None:
    """One meaning per option name: ``--preset`` takes a game wherever it exists; the run recipe is ``--recipe``."""
    from evolution.config import RECIPES
    from evolution.sweeps.space import SPACES
    from yamb.presets import PRESETS as GAMES

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    with_preset = [name for name, sub in commands.items() if "--preset" in sub._option_string_actions]
    assert {"simulate", "compare", "play", "solve", "evolve", "sweep", "imitate", "fit", "score"} <= set(with_preset)
    for name in with_preset:
        text = commands[name]._option_string_actions["--preset"].help
        assert all(game in text for game in GAMES), (name, text)
        assert not any(f"{recipe} (" in text for recipe in RECIPES), (name, text)
    assert not set(GAMES) & (set(RECIPES) | set(SPACES))  # an old --preset RECIPE is never a game


def test_old_spellings_are_read_with_a_one_line_note(capsys: pytest.CaptureFixture[str]) -> None:
    for args, note in ((["--preset", "quick"], "--preset quick is read as --recipe quick"),
                       (["--game", "yatzy"], "--game yatzy is read as --preset yatzy")):
        assert main(["evolve", *args, "--set", "nope=1"]) == 2  # refused after the note, before any work
        err = capsys.readouterr().err.splitlines()
        assert err[0] == f"yamb evolve: note: {note}" + err[0].split(note)[1] and "unknown setting" in err[1]
    refused = refused_in_one_line(capsys, ["evolve", "--preset", "quick", "--recipe", "full"])
    assert "give the recipe once" in refused
    assert "give the game once" in refused_in_one_line(capsys, ["evolve", "--preset", "yatzy", "--game", "yatzy"])


def test_sweep_quick_plays_the_player_of_evolve_quick() -> None:
    """The sweep's quick space used to run the direct player (about 130 on Yatzy) under evolve's recipe name."""
    from evolution.config import from_recipe
    from evolution.sweeps.space import SPACES, trial_config

    quick = from_recipe("quick")
    for algorithm, hidden in (("cma", "4"), ("ga", "8")):
        trial = trial_config(SPACES["quick"], {"algorithm": algorithm, "hidden": hidden}, seed=0)
        assert (trial.player, trial.played, trial.bonus, trial.lookahead) == \
               (quick.player, quick.played, quick.bonus, quick.lookahead)


def test_init_of_another_shape_names_the_options_that_fix_it(capsys: pytest.CaptureFixture[str],
                                                             tmp_path: Path) -> None:
    from robo_players.neural.files import load_weights

    shipped = load_weights(BOT).spec
    other = "2" if shipped.hidden != (2,) else "3"
    line = refused_in_one_line(capsys, ["evolve", "--preset", "yatzy", "--player", shipped.kind, "--hidden", other,
                                        "--init", str(BOT), "--out", str(tmp_path / "run")])
    assert f"add --hidden {','.join(map(str, shipped.hidden))}" in line, line
    assert not (tmp_path / "run").exists()  # checked before the run directory is made


def test_the_quick_recipe_from_the_shipped_bot_names_the_way_there(capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path) -> None:
    """The yamb bot (hidden 64, 14,312 weights) is too large for quick's CMA-ES: the line says the shape,
    the algorithm that takes it and the recipe that starts from it; the network's size is checked
    before the run directory is made."""
    from robo_players.neural.files import load_weights

    bot = load_weights(ROOT / "robo_players" / "bots" / "yamb-5d-down-up-free-announce.safetensors")
    assert bot.spec.hidden == (64,) and bot.genome.size == 14_312
    run = ["--out", str(tmp_path / "run")]
    line = refused_in_one_line(capsys, ["evolve", "--recipe", "quick", "--init", "best", *run])
    assert ("init: best (the shipped bot yamb-5d-down-up-free-announce.safetensors) holds a guided network "
            "(hidden [64], 14,312 weights)") in line, line
    assert line.endswith("; to carry it on, add --hidden 64 --algorithm sep-cma (CMA-ES takes at most 2,000 weights), "
                         "or take its network and search as they are: --recipe polish"), line
    line = refused_in_one_line(capsys, ["evolve", "--recipe", "quick", "--init", "best", "--hidden", "64", *run])
    assert "CMA-ES keeps a full covariance matrix: 14,312 weights is too many" in line, line
    assert not (tmp_path / "run").exists()


def test_the_polish_recipe_starts_from_the_shipped_bot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``--recipe polish --init best`` takes the bot's network: its shape is not checked against the recipe's."""
    tiny = ["--generations", "1", "--population", "4", "--games", "2", "--final-games", "3", "--set", "games_max=4",
            "--set", "reevaluate=2", "--set", "accept_games=4"]
    assert main(["evolve", "--recipe", "polish", "--preset", "yatzy", "--init", "best", "--out", str(tmp_path / "run"),
                 *tiny]) == 0, capsys.readouterr().err
    assert (tmp_path / "run" / "best.pt").is_file()
    out = capsys.readouterr().out
    assert "; scores less the luck best sees in the dice" in out  # the recipe counts the luck
    assert "    less the luck best sees in the dice: " in out  # and the verdict gives it beside the raw figures
    line = refused_in_one_line(capsys, ["evolve", "--recipe", "polish", "--preset", "yatzy", "--init", "best",
                                        "--set", "luck=greedy", "--out", str(tmp_path / "other")])
    assert line.endswith("luck: the luck of a roll is valued by a search player (expectimax, best, a guided network), "
                         "not greedy"), line
    assert not (tmp_path / "other").exists()


def test_backend_ray_without_ray_is_refused_before_anything_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    line = refused_in_one_line(capsys, ["evolve", "--backend", "ray", "--out", str(tmp_path / "run")])
    assert "needs Ray" in line and "[cluster]" in line
    assert not (tmp_path / "run").exists()


def test_an_unknown_bot_is_refused_before_the_game_is_shown(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused_in_one_line(capsys, ["play", "--bot", "nonexistent", "--humans", "0", "--bots", "1"])
    assert "unknown player 'nonexistent'" in line


def test_play_saves_over_a_save_never_over_another_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--save notes.txt`` used to replace someone's notes with the game after its first turn."""
    notes = tmp_path / "notes.txt"
    notes.write_text("someone's notes\n")
    game = ["play", "--humans", "0", "--bots", "1", "--bot", "random", "--seed", "1", "--no-coach"]
    line = refused_in_one_line(capsys, [*game, "--save", str(notes)])
    assert f"{notes} holds a file that is not a saved game of yamb play" in line
    assert notes.read_text() == "someone's notes\n"
    assert main([*game, "--save", str(tmp_path / "g.json")]) == 0  # a new file, then a save: written
    assert main([*game, "--save", str(tmp_path / "g.json")]) == 0
    capsys.readouterr()


def test_a_folder_where_a_weights_file_belongs_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "net.pt").mkdir()
    for args in (["simulate", "--player"], ["compare", "--games", "2", "random"], ["play", "--bots", "1", "--bot"]):
        line = refused_in_one_line(capsys, [*args, str(tmp_path / "net.pt")])
        assert f"{tmp_path / 'net.pt'} is a directory, not a weights file" in line, line


def test_export_names_a_folder_of_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("quick-yatzy-1", "quick-yatzy-2"):
        (tmp_path / "runs" / name).mkdir(parents=True)
        (tmp_path / "runs" / name / "config.toml").write_text('game = "yatzy"\n')
    line = refused_in_one_line(capsys, ["export", str(tmp_path / "runs"), "--format", "npz"])
    assert "is a folder of 2 runs, not a run" in line and "quick-yatzy-2" in line
    assert "has not finished" in refused_in_one_line(capsys, ["export", str(tmp_path / "runs" / name), "--format", "pt"])
    assert "not a run directory" in refused_in_one_line(capsys, ["export", str(tmp_path), "--format", "pt"])
    line = refused_in_one_line(capsys, ["export", str(tmp_path / "runs" / "quick-yatzy-3"), "--format", "pt"])
    assert line.endswith(f"no such run directory or weights file: {tmp_path / 'runs' / 'quick-yatzy-3'}"), line


def test_a_weights_file_brings_its_game(capsys: pytest.CaptureFixture[str]) -> None:
    """``simulate --player FILE`` without --preset plays the file's table (the shipped Yatzy bot here)."""
    from robo_players.neural.files import load_weights

    spec = load_weights(BOT).spec
    assert main(["simulate", "--player", str(BOT), "--games", "2", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["preset"], tuple(stats["columns"])) == (spec.preset, spec.columns) == ("yatzy", ("free",))
    assert "was evolved for" in refused_in_one_line(capsys, ["simulate", "--player", str(BOT), "--preset", "yamb"])


def test_the_first_compile_is_said_on_stderr() -> None:
    """numba's compile event, not a cache load: a fresh function compiles, and the line says so, piped too."""
    code = ("from yamb_app.cli.compiling import watch; watch('simulate'); import numba; "
            "print(numba.njit(lambda a: a + 1)(1)); print(numba.njit(lambda a: a + 2)(1))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["2", "3"]
    assert result.stderr.splitlines() == [f"yamb simulate: {MESSAGE}"]  # once


def test_run_directories_name_the_game() -> None:
    from evolution.config import from_recipe, with_settings
    from evolution.run import default_run_dir

    config = with_settings(from_recipe("quick"), {"game": "yatzy"})
    assert default_run_dir(config, Path("runs")).name.startswith("quick-yatzy-")


# ---------------------------------------------------------------- lines that fit the terminal

GEN = "gen  12/60  best 1018.5  mean 1000.1 ± 3.5  worst 940.0  expectimax 1013.2  3.4 s (and 41.2 s compiling)"
VERDICT = "  against expectimax, where it started: +63.3 ± 4.0 game by game, p = 3.8e-50: better"


@pytest.mark.parametrize("width", [40, 60, 80])
def test_long_lines_break_between_fields_never_inside_one(width: int) -> None:
    from yamb_app.cli.lines import fit

    for text, fields in ((GEN, ["best 1018.5", "mean 1000.1 ± 3.5", "expectimax 1013.2", "3.4 s", "41.2 s"]),
                         (VERDICT, ["+63.3 ± 4.0", "p = 3.8e-50"])):
        lines = fit(text, width)
        assert len(lines) > 1 and all(len(line) <= width for line in lines), lines
        assert " ".join(line.strip() for line in lines).split() == text.split()  # the words, in order
        for field in fields:  # each value with its label, its error or its unit, on one line
            assert any(field in line for line in lines), (field, lines)
    assert fit(GEN, None) == [GEN] and fit(GEN, len(GEN)) == [GEN]


def test_report_lines_fit_an_80_column_terminal() -> None:
    import io

    from rich.console import Console

    from yamb_app.cli.lines import show

    screen = io.StringIO()
    show(Console(file=screen, width=80, force_terminal=True, color_system=None), GEN)
    lines = screen.getvalue().splitlines()
    assert len(lines) == 2 and all(len(line) <= 80 for line in lines) and "mean 1000.1 ± 3.5" in screen.getvalue()
    piped = io.StringIO()
    show(Console(file=piped, width=80), GEN)
    assert piped.getvalue() == GEN + "\n"  # off a terminal: one record, one line


def test_the_verdict_says_a_start_that_is_expectimax_once() -> None:
    import numpy as np

    from evolution.verdict import verdict_lines, verdict_of

    rng = np.random.default_rng(1)
    start = rng.normal(1000, 100, 300).round()
    evolved = start + rng.normal(30, 20, 300).round()
    v = {"games": 300, "start_player": "expectimax", "play": "yamb play --bot x.pt"}
    same = verdict_lines({**verdict_of(evolved, start, start.copy()), **v})
    assert sum(line.startswith("  against") for line in same) == 1 and "two players" in same[0]
    other = verdict_lines({**verdict_of(evolved, start, start + 1), **v})
    assert sum(line.startswith("  against") for line in other) == 2 and "three players" in other[0]


def test_the_time_of_a_run_is_accounted_for() -> None:
    from yamb_app.commands.evolve import _where_the_time_went

    times = {"start": 100.0, "evolve": 104.0, "compiling": 20.0, "last": 153.0, "end": 158.0}
    text = _where_the_time_went(times, {"final_check": {"seconds": 2.0}, "verdict": {"seconds": 1.0}})
    assert text == ("58 s in all: loading and setting up 4 s, compiling 20 s, generations and their checkpoints 29 s, "
                    "final check 2 s, verdict 1 s, best.pt, the plots and stopping the workers 2 s")  # 158 - 153 - 2 - 1


def test_the_sweep_table_keeps_each_parameter_whole_at_80_columns(tmp_path: Path) -> None:
    import io

    import optuna
    from rich.console import Console

    from yamb_app.commands.sweep import print_best

    study = optuna.create_study(direction="maximize")
    params = {"algorithm": "es", "es_learning_rate": 0.00189, "es_sigma": 0.0123, "population": 24}
    distributions = {"algorithm": optuna.distributions.CategoricalDistribution(["es", "ga"]),
                     "es_learning_rate": optuna.distributions.FloatDistribution(0.001, 0.1, log=True),
                     "es_sigma": optuna.distributions.FloatDistribution(0.005, 0.3, log=True),
                     "population": optuna.distributions.IntDistribution(8, 40)}
    study.add_trial(optuna.trial.create_trial(params=params, distributions=distributions, value=236.4,
                                              user_attrs={"sem": 1.2, "run_dir": "trials/trial-0000"}))
    screen = io.StringIO()
    print_best(Console(file=screen, width=80, color_system=None), study, 10)
    text = screen.getvalue()
    table = [line for line in text.splitlines() if line.strip() and "study" not in line]
    assert all(len(line) <= 80 and line[-1] in "┓┃┩│┘" for line in table), text  # whole: rich crops the right
    for whole in ("es_learning_rate=0.00189", "es_sigma=0.0123", "236.4 ± 1.2"):
        assert whole in text, text


def test_solve_on_a_table_it_cannot_solve_says_what_it_can(capsys) -> None:
    assert main(["solve"]) == 2  # yamb's standard table, four columns
    err = capsys.readouterr().err.strip()
    assert err.startswith("yamb solve: error: the exact solver handles one free column") and "\n" not in err
    assert err.endswith("not down,up,free,announce for yamb (try --preset yatzy, or --columns free)")


def test_every_threads_option_has_the_same_limit(capsys: pytest.CaptureFixture[str]) -> None:
    """One validator: from 1 to this machine's cores (numba's pool; more threads only slow), at parsing."""
    cores = os.cpu_count() or 1
    commands = sorted(name for name, flag in options_checked_by(("threads",)) if flag == "--threads")
    assert commands == ["bench", "evolve", "fit", "fit-afterstates", "fit-values", "imitate"]
    parser = build_parser()
    for command in commands:
        for text in (str(cores + 1), "999"):
            line = refused_in_one_line(capsys, [command, "--threads", text])
            assert f"argument --threads: '{text}' is not a whole number from 1 to {cores:,} (this machine's cores)" in line
        args, _ = parser.parse_known_args([command, *REQUIRED.get(command, []), "--threads", str(cores)])
        assert args.threads == cores


EARLY_STOP = """
import os, signal, sys

class SignalAtImport:
    # the signal to this process while the program imports numpy, before the command line has begun
    def find_spec(self, name, path=None, target=None):
        if name == "numpy":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.{how})
        return None

sys.meta_path.insert(0, SignalAtImport())
sys.argv[1:] = ["simulate", "--preset", "yatzy", "--games", "1"]
from yamb_app.program import main
sys.exit(main())
"""


@pytest.mark.parametrize(("how", "code", "said"), [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "stopped (SIGTERM)")])
def test_a_stop_while_the_program_imports_is_one_line(tmp_path: Path, how: str, code: int, said: str) -> None:
    done = subprocess.run([sys.executable, "-c", EARLY_STOP.format(how=how)], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == code, (done.returncode, done.stderr)
    assert done.stderr.splitlines() == [f"yamb: {said} while starting"], done.stderr
