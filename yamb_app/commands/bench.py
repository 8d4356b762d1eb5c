"""``yamb bench``: engine throughput with random legal play."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from yamb_app.cli import options
from yamb_app.cli.options import arg

HELP = "measure engine throughput (random legal play, games per second)"

# (JSON key, preset, check every action): every case plays the preset's default table.
CASES = (
    ("games_per_second", "yamb", False),
    ("jamb6_games_per_second", "jamb6", False),
    ("yatzy_games_per_second", "yatzy", False),
    ("yahtzee_games_per_second", "yahtzee", False),
    ("checked_games_per_second", "yamb", True),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=arg(options.games), default=100_000, help="games per measurement (default 100000)")
    parser.add_argument("--batch-size", type=arg(options.batch_size), default=20_000, help="games per batch (default 20000)")
    parser.add_argument("--repeat", type=arg(options.integer(1, 100)), default=3,
                        help="each number is the best of this many measurements (default 3)")
    parser.add_argument("--threads", type=arg(options.threads), default=None,
                        help="numba threads (default: all cores; 1 is faster on a busy machine)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _rate(preset: str, games: int, batch_size: int, check: bool, repeat: int,
          done: Callable[[], None] = lambda: None) -> float:
    """Best games per second of ``repeat`` runs of ``games`` random games (``done()`` after the warm-up
    and after each run)."""
    from robo_players.measure.simulate import simulate
    from robo_players.random_player import RandomPlayer
    from yamb.engine import PARALLEL_GAMES
    from yamb.layout import layout
    from yamb.rules import rules

    lay = layout(rules(preset))
    simulate(lay, RandomPlayer(), min(games, PARALLEL_GAMES), check=check)  # compile, start threads
    done()
    best = 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        simulate(lay, RandomPlayer(), games, seed=1, batch_size=batch_size, check=check)
        best = max(best, games / (time.perf_counter() - start))
        done()
    return best


def run(args: argparse.Namespace) -> int:
    import numba
    from rich.console import Console
    from rich.progress import Progress

    from yamb.errors import YambError

    if args.threads is not None and not 1 <= args.threads <= numba.config.NUMBA_NUM_THREADS:
        raise YambError(f"--threads must be from 1 to {numba.config.NUMBA_NUM_THREADS}")
    threads = numba.get_num_threads()
    numba.set_num_threads(args.threads or threads)
    results: dict[str, float | int | str] = {
        "games": args.games, "batch_size": args.batch_size, "repeat": args.repeat,
        "threads": numba.get_num_threads(),
    }
    errors = Console(stderr=True)  # progress on stderr, so shown with --json too; nothing off a terminal
    try:
        with Progress(transient=True, console=errors, disable=not errors.is_terminal) as progress:
            task = progress.add_task("", total=len(CASES) * (args.repeat + 1))
            for key, preset, check in CASES:
                progress.update(task, description=f"{preset}{', every action checked' if check else ''}",
                                refresh=True)
                results[key] = _rate(preset, args.games, args.batch_size, check, args.repeat,
                                     lambda: progress.advance(task))
    finally:
        numba.set_num_threads(threads)
    results["note"] = "random legal play; games_per_second is the standard yamb table"
    if args.json:
        print(json.dumps(results))
    else:
        for key, value in results.items():
            print(f"{key:28s} {value:,.0f}" if isinstance(value, float) else f"{key:28s} {value}")
    return 0
