"""The play-to-win targets of issue 40 on Yatzy (the score tables cached, or built first):

    python -m scripts.play_to_win reach --games 100000 --seed 40402          # optimal-reach@300
    python -m scripts.play_to_win win --games 20000 --seed 40401             # optimal-win against optimal

``reach``: the tables' chance of a final total of at least ``--target`` for
``optimal-reach@T`` and for ``optimal`` (from its exact distribution), and the
simulated frequency of ``optimal-reach@T`` with its standard error. ``win``:
two-player matches (every deal in both seat orders, the same dice) of
``optimal-win`` against ``optimal``, for both ways of valuing later turns
(``--modes``), with the rate in deals per second and the load average.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

import yamb
from expected_scores.distributions import score_tables
from expected_scores.optimal_play import SolvedPlayer
from expected_scores.solve import solve
from robo_players.measure.match import match_report, play_match
from robo_players.measure.simulate import simulate
from robo_players.optimal_win import ReachPlayer, WinPlayer
from yamb.layout import layout


def _reach(preset: str, target: int, games: int, seed: int) -> dict:
    solution, tables = solve(preset), score_tables(preset)
    start = tables.state(0, 0)
    player = ReachPlayer(solution, tables, target)
    begin = time.perf_counter()
    scores = simulate(layout(yamb.rules(preset)), player, games, seed=seed,
                      progress=lambda n: print(f"  {n:,} games", file=sys.stderr, flush=True))
    hit = scores >= target
    optimal = tables.distribution(start)[target:].sum()
    return {"target": target, "games": games, "seed": seed, "tables_chance": player.chance(),
            "simulated": float(hit.mean()), "sem": float(hit.std(ddof=1) / np.sqrt(games)),
            "mean": float(scores.mean()), "optimal_chance": float(optimal),
            "seconds": time.perf_counter() - begin, "load": os.getloadavg()}


def _win(preset: str, deals: int, seed: int, modes: list[str], batch: int) -> dict:
    solution, tables = solve(preset), score_tables(preset)
    lay = layout(yamb.rules(preset), players=2)
    out = {}
    for mode in modes:
        begin = time.perf_counter()
        players = {f"optimal-win ({mode})": WinPlayer(solution, tables, by_reach=mode == "reach"),
                   "optimal": SolvedPlayer(solution)}
        results = play_match(lay, players, deals, seed=seed, batch_size=batch,
                             progress=lambda n: print(f"  {mode}: {n:,} games", file=sys.stderr, flush=True))
        seconds = time.perf_counter() - begin
        out[mode] = {**match_report(results), "seed": seed, "seconds": seconds, "deals_per_second": deals / seconds,
                     "load": os.getloadavg()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", choices=["reach", "win"])
    parser.add_argument("--preset", default="yatzy")
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=40401)
    parser.add_argument("--reach", type=int, default=300, help="the reach target (default 300)")
    parser.add_argument("--modes", nargs="+", default=["distribution", "reach"], choices=["distribution", "reach"])
    parser.add_argument("--batch-size", type=int, default=5000)
    args = parser.parse_args()
    if args.target == "reach":
        print(json.dumps(_reach(args.preset, args.reach, args.games, args.seed)))
    else:
        print(json.dumps(_win(args.preset, args.games, args.seed, args.modes, args.batch_size)))


if __name__ == "__main__":
    main()
