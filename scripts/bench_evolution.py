"""Seconds per generation of ``yamb evolve``: 200 individuals x 100 games (target <= 10 s).

    python scripts/bench_evolution.py                     # direct player, GA, 3 generations
    python scripts/bench_evolution.py --player guided --workers 2

Runs a short evolution in a temporary directory and prints one JSON line: the
mean seconds of the generations after the first (the first compiles and warms
up), from the run's logbook.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

import pandas as pd

from evolution.config import from_recipe, with_settings
from evolution.run import evolve, start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="direct", choices=("direct", "guided"))
    parser.add_argument("--algorithm", default="ga", choices=("ga", "cma"))
    parser.add_argument("--population", type=int, default=200)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--generations", type=int, default=3)
    parser.add_argument("--hidden", default="16")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    settings = dict(player=args.player, algorithm=args.algorithm, population=args.population,
                    games=args.games, generations=args.generations, hidden=args.hidden,
                    workers=args.workers, threads=args.threads, final_games=10, hall_of_fame=1)
    config = with_settings(from_recipe("direct"), settings)
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "run"
        evolve(start(config, run_dir), run_dir)
        seconds = pd.read_csv(run_dir / "logbook.csv")["seconds"]
    later = seconds.iloc[1:] if len(seconds) > 1 else seconds
    print(json.dumps({**settings, "seconds_per_generation": float(later.mean()),
                      "first_generation_seconds": float(seconds.iloc[0]), "load": os.getloadavg()[0]}))


if __name__ == "__main__":
    main()
