"""The import rules of ``[tool.importlinter]`` in pyproject.toml hold, and break where they should.

The packages are layers, each importing only those below it: the applications
(``yamb_app``) over ``evolution`` over the players (``robo_players``) over the
solver (``expected_scores``) over the rules core (``yamb``), with no exemptions;
the terminal game and the web app share only what lies in ``yamb_app`` itself.
And ``ruff`` finds no unused names or imports out of order.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("yamb", "expected_scores", "robo_players", "evolution", "yamb_app")
LINT = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` over the packages under ``root`` with ``root``'s pyproject.toml, its report captured."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-c", LINT, "--no-cache", "--no-logo", str(root / "pyproject.toml")],
                          cwd=root, env=env, capture_output=True, text=True)


def test_the_import_contracts_are_kept() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_upward_import_breaks_its_contract(tmp_path: Path) -> None:
    """A copy of the sources with an application imported by the core (inside a function, as a lazy
    import would be) and evolution imported by the players: the layers contract reports both."""
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            copy = tmp_path / path.relative_to(ROOT)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
    shutil.copyfile(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    with open(tmp_path / "yamb" / "env.py", "a") as f:
        f.write("\n\ndef _upward() -> None:\n    from yamb_app.seats import default_bot\n")
    with open(tmp_path / "robo_players" / "greedy.py", "a") as f:
        f.write("\nimport evolution.report\n")
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "yamb.env -> yamb_app.seats" in done.stdout
    assert "robo_players.greedy -> evolution.report" in done.stdout
    assert "Contracts: 2 kept, 1 broken." in done.stdout


def test_no_unused_or_undefined_names_and_imports_in_order() -> None:
    """``ruff check`` with pyproject.toml's rules (pyflakes and import order) finds nothing."""
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_nothing_under_scripts_imports_the_tests() -> None:
    """The scripts are tools beside the package; what they share with the tests lives in ``scripts/``."""
    import ast

    offenders = []
    for path in sorted((ROOT / "scripts").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] == "tests"]
    assert not offenders, offenders


PLAY_EVERY_BOT = """
import sys
from robo_players.registry import make_player
from robo_players.measure.simulate import simulate
from yamb.layout import layout
from yamb.rules import rules

for preset, columns, name in [("yamb", None, "best"), ("yamb", None, "best+lookahead"), ("yamb", None, "best-direct"),
                              ("yamb", None, "best-values"), ("yatzy", None, "best-values"),
                              ("yamb", ("down",), "optimal")]:
    lay = layout(rules(preset), columns)
    assert simulate(lay, make_player(name, lay), 2, seed=1).shape == (2,)
print(" ".join(sorted(m for m in sys.modules if m.split(".")[0] in ("robo_players", "evolution", "yamb_app"))))
"""


def test_playing_every_bot_loads_no_training_code() -> None:
    """Building and playing each bot of the registry (``best``, its look-ahead, ``best-direct``,
    ``best-values`` in both kinds, ``optimal``) imports nothing of the fitting code, evolution or
    the applications (the ``playing-apart-from-training`` contract, at run time)."""
    done = subprocess.run([sys.executable, "-c", PLAY_EVERY_BOT], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.split()
    assert "robo_players.neural.afterstate_values" in loaded and "robo_players.search.lookahead" in loaded
    assert [m for m in loaded if m.startswith(("robo_players.training", "evolution", "yamb_app"))] == []


COACH_ALONE = """
import sys
import numpy as np
from expected_scores.distributions import endgame_tables
from expected_scores.solitaire import solve_solitaire
from yamb_app.coach import coach_for, finals_for_table
from yamb_app.seats import bot_names
from yamb_app.web.app import create_app
from robo_players.optimal_win import WinPlayer
from robo_players.registry import make_player
from robo_players.measure.simulate import simulate
from yamb.engine import GameBatch
from yamb.layout import layout
from yamb.rules import rules
lay = layout(rules("yatzy"), players=2)
names = bot_names(lay)
coach = coach_for(lay)
finals_for_table(lay, coach)
for name in ("optimal", "expectimax"):
    simulate(layout(rules("yatzy")), make_player(name, layout(rules("yatzy"))), 1, seed=1)
make_player("optimal-win", lay)  # its score tables load at its first move (built: many minutes)
filled = (1 << lay.n_rows) - 4  # so it decides in an endgame of two open rows, from that endgame's tables
endgame = GameBatch(lay, 1, seed=1)
endgame.filled[:] = np.uint32(filled)
win = WinPlayer(solve_solitaire(lay.rules, filled), endgame_tables(lay.rules, filled), by_reach=False)
assert win.act(endgame, np.arange(1))[0] in endgame.legal_actions().nonzero()[1]
print(len(names), "torch" in sys.modules)
"""


def test_the_coach_the_exact_players_and_the_web_app_start_without_torch() -> None:
    """A person coached on Yatzy, the players that are no network, the list of the table's bots and the
    web app load no network library: torch takes seconds to import, and is loaded when a network is built."""
    done = subprocess.run([sys.executable, "-c", COACH_ALONE], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    listed, torch_loaded = done.stdout.split()
    assert int(listed) >= 5 and torch_loaded == "False"


@pytest.mark.parametrize(("args", "said", "unloaded"), [
    (["evolve", "--population", "0"], "population must be at least 2", "torch"),
    (["sweep", "report", "/nonexistent"], "/nonexistent is not a sweep directory (no sweep.json)", "optuna"),
])
def test_a_bad_setting_or_sweep_directory_is_refused_before_the_heavy_libraries_load(args: list[str], said: str,
                                                                                    unloaded: str) -> None:
    """``yamb evolve`` checks its settings (``evolution.config``, which loads no torch) before it plans the run;
    ``yamb sweep report`` looks for the sweep's settings before Optuna loads."""
    code = (f"import sys; from yamb_app.cli import main; code = main({args!r}); "
            f"print(code, {unloaded!r} in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout.split() == ["2", "False"], done.stderr
    assert said in done.stderr


def test_every_folder_of_modules_is_a_package() -> None:
    """A folder of modules without ``__init__.py`` would be left out of the wheel (setuptools finds
    packages, not namespace folders) and out of the API reference."""
    folders = {path.parent for package in PACKAGES for path in (ROOT / package).rglob("*.py")}
    assert len(folders) >= 15
    assert sorted(str(f.relative_to(ROOT)) for f in folders if not (f / "__init__.py").is_file()) == []
