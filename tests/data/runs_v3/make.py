"""Remake the run directories of ``tests/data/runs_v3`` (checkpoint version 3) and ``resumed.json``.

Run with the code of commit 45441a4 (checkpoint version 3) on the path, e.g. from a worktree of it::

    git worktree add --detach /tmp/v3 45441a4 && cd /tmp/v3 && PYTHONPATH=. python <this file> <out dir>

Each run (CMA-ES, sep-CMA-ES, GA; Yatzy, tiny networks) is stopped after generation 2 of 4;
``resumed.json`` holds what that code makes of resuming a copy of each to the end.
"""

import json
import shutil
import sys
import tempfile
from pathlib import Path

import pandas as pd

from evolution.config import from_preset, with_settings
from evolution.run import evolve, resume, start

SMALL = dict(game="yatzy", population=6, games=3, generations=4, final_games=8, hall_of_fame=2, workers=1)
RUNS = {
    "cma": ("quick", dict(SMALL, hidden="1", seed=7)),
    "sep-cma": ("quick", dict(SMALL, algorithm="sep-cma", hidden="2", seed=8)),
    "ga": ("direct", dict(SMALL, hidden="2", elite=1, seed=9)),
}


class Stop(Exception):
    """Raised after generation 2."""


def stop_after_two(state, entry) -> None:
    if state.generation == 2:
        raise Stop


def main(out: Path) -> None:
    expected = {}
    for name, (recipe, settings) in RUNS.items():
        run_dir = out / name
        try:
            evolve(start(with_settings(from_preset(recipe), settings), run_dir), run_dir, stop_after_two)
        except Stop:
            pass
        (run_dir / ".lock").unlink(missing_ok=True)
        copy = Path(tempfile.mkdtemp()) / name
        shutil.copytree(run_dir, copy)
        result = evolve(resume(copy, {}), copy)
        logbook = pd.read_csv(copy / "logbook.csv")
        expected[name] = {
            "logbook": {k: logbook[k].tolist() for k in ("gen", "avg", "std", "min", "max", "expectimax")},
            "best": result["best"]["mean"], "candidate": result["best"]["candidate"],
            "final_means": [c["final_mean"] for c in result["candidates"]],
            "verdict": {k: v for k, v in result["verdict"].items() if k not in ("play", "seconds")},
        }
    (out / "resumed.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
