"""``yamb bench``: engine throughput with random legal play."""

from __future__ import annotations

import argparse
import json
import time

HELP = "measure engine throughput (random legal play, games per second)"

CASES = (
    ("games_per_second", "yamb", None),
    ("jamb6_games_per_second", "jamb6", None),
    ("yatzy_games_per_second", "yatzy", None),
    ("yahtzee_games_per_second", "yahtzee", None),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=100_000, help="games per measurement")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _rate(preset: str, games: int, check: bool) -> float:
    from robo_players.random_player import RandomPlayer
    from robo_players.simulate import simulate
    from yamb.layout import layout
    from yamb.rules import rules

    lay = layout(rules(preset))
    simulate(lay, RandomPlayer(), 200, check=check)  # compile and warm up
    start = time.perf_counter()
    simulate(lay, RandomPlayer(), games, seed=1, batch_size=games, check=check)
    return games / (time.perf_counter() - start)


def run(args: argparse.Namespace) -> int:
    results: dict[str, float | int | str] = {"games": args.games}
    for key, preset, _ in CASES:
        results[key] = _rate(preset, args.games, check=False)
    results["checked_games_per_second"] = _rate("yamb", args.games, check=True)
    results["note"] = "random legal play; games_per_second is the standard yamb table"
    if args.json:
        print(json.dumps(results))
    else:
        for key, value in results.items():
            print(f"{key:28s} {value:,.0f}" if isinstance(value, float) else f"{key:28s} {value}")
    return 0
