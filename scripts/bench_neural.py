"""Population throughput of the neural players: P networks x G games in one batched pass.

    python scripts/bench_neural.py                      # both kinds, 200 networks x 100 games
    python scripts/bench_neural.py --kind direct --hidden 32 --threads 2

Prints one JSON line per kind: games per second of a whole population playing
its games to the end (networks, features, legal moves, engine; compile and
warm-up excluded). Targets on the 2-core reference machine: >= 10,000 games/s
(direct), >= 2,000 games/s (guided).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from evolution.evaluate import Task, init_worker, play_task
from robo_players.neural.kinds import KINDS
from robo_players.neural.networks import NetSpec
from yamb.layout import layout
from yamb.rules import rules


def population(spec: NetSpec, members: int, seed: int = 0) -> np.ndarray:
    """Initial genomes with a little noise, so that guided networks do correct their cells."""
    rng = np.random.default_rng(seed)
    net = spec.build()
    genomes = np.stack([net.initial_genome(rng) for _ in range(members)])
    return (genomes + 0.01 * rng.standard_normal(genomes.shape)).astype(np.float32)


def bench(kind: str, members: int, games: int, hidden: tuple[int, ...], repeats: int) -> dict:
    lay = layout(rules("yamb"))
    spec = NetSpec.for_layout(kind, lay, hidden)
    genomes = population(spec, members)
    values = np.full((members, lay.n_cells), 10.0, dtype=np.float32)
    play_task(Task(spec, genomes[:2], values[:2], 40, seed=0))  # compile and warm up
    times = []
    for r in range(repeats):
        start = time.perf_counter()
        play_task(Task(spec, genomes, values, games, seed=r + 1))
        times.append(time.perf_counter() - start)
    best = min(times)
    return {"kind": kind, "networks": members, "games_each": games, "hidden": list(hidden),
            "seconds": best, "games_per_second": members * games / best, "load": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=KINDS, action="append", help="default: both")
    parser.add_argument("--networks", type=int, default=200)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--hidden", default="16", help="hidden layer sizes, comma-separated")
    parser.add_argument("--threads", type=int, default=1, help="torch and numba threads")
    parser.add_argument("--repeats", type=int, default=2, help="best of this many runs")
    args = parser.parse_args()
    init_worker(args.threads)
    hidden = tuple(int(h) for h in args.hidden.split(","))
    for kind in args.kind or KINDS:
        result = bench(kind, args.networks, args.games, hidden, args.repeats)
        print(json.dumps({**result, "threads": args.threads}))


if __name__ == "__main__":
    main()
