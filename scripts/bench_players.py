"""Games per second of each player on a table (default: the standard yamb table).

    python -m scripts.bench_players                       # every player, default games
    python -m scripts.bench_players --players greedy expectimax --games 5000 --json

Each player first plays a few games (compiling its kernels), then the timed
games in batches of ``--batch-size``, without legality checks
(``check=False``), as ``yamb bench`` measures the engine. Wall-clock and CPU rates are both
reported, with the machine's load average: on a shared machine the load
explains much of the spread of the wall-clock rate.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from robo_players.measure.simulate import simulate
from robo_players.registry import make_player
from yamb.engine import PARALLEL_GAMES
from yamb.layout import layout
from yamb.rules import rules

GAMES = 2000
SLOW_GAMES = {"montecarlo": 20}
WARM_UP = 20


def rate(preset: str, columns: list[str] | None, name: str, games: int, batch_size: int) -> dict[str, float]:
    """Games per second of player ``name`` over ``games`` games (after a warm-up)."""
    lay = layout(rules(preset), columns)
    player = make_player(name, lay)
    simulate(lay, player, min(WARM_UP, games), seed=1, check=False)
    start, cpu = time.perf_counter(), time.process_time()
    simulate(lay, player, games, seed=2, batch_size=batch_size, check=False)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"games": games, "seconds": round(seconds, 3), "games_per_second": round(games / seconds, 1),
            "cpu_seconds": round(cpu, 3), "games_per_cpu_second": round(games / cpu, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", nargs="+",
                        default=["random", "greedy", "smart", "expectimax", "montecarlo"])
    parser.add_argument("--preset", default="yamb")
    parser.add_argument("--columns", default=None, help="comma-separated column kinds (default: the preset's)")
    parser.add_argument("--games", type=int, default=None,
                        help=f"timed games per player (default {GAMES}, montecarlo {SLOW_GAMES['montecarlo']})")
    parser.add_argument("--batch-size", type=int, default=1000,
                        help="games per batch (default 1000: the engine's serial kernels; from "
                             f"{PARALLEL_GAMES} on, kernels run on all numba threads)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    columns = args.columns.split(",") if args.columns else None
    results = {}
    for name in args.players:
        games = args.games or SLOW_GAMES.get(name, GAMES)
        results[name] = rate(args.preset, columns, name, games, args.batch_size)
        if not args.json:
            r = results[name]
            print(f"{name:12s} {r['games_per_second']:>10,.1f} games/s {r['games_per_cpu_second']:>10,.1f} "
                  f"games/cpu-s ({r['games']} games, {r['seconds']} s)", flush=True)
    load = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        print(json.dumps({"preset": args.preset, "players": results, "load_average": load,
                          "cpus": os.cpu_count()}))
    else:
        print(f"load average {load}, {os.cpu_count()} cpus")


if __name__ == "__main__":
    main()
