"""Milliseconds for one decision's chances to win: every player's before it and after each legal action.

    python -m scripts.bench_win_chances                  # yatzy and yamb, two players, seed 1
    python -m scripts.bench_win_chances --preset yahtzee --players 3 --seed 2

A game of ``--players`` is played by ``greedy`` with one random move in five; the coach and the model
of the final totals are built (the score tables mapped, or the spread read or fitted: timed) and the
kernels warmed on the first decision; then at every decision of the game the coach's values and
``decision_chances`` are timed together and the chances alone (wall clock, one thread), with the
machine's load.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from robo_players.coach.positions import decision_batch
from robo_players.coach.values import make_coach
from robo_players.coach.win_chances import decision_chances, finals_for
from scripts.bench_review import played_game
from yamb.engine import single_thread


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", action="append", help="preset (repeatable; default yatzy and yamb)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for preset in args.preset or ["yatzy", "yamb"]:
        game = played_game(preset, "greedy", args.seed, args.players)
        start = time.perf_counter()
        coach = make_coach(game.layout)
        finals = finals_for(coach, game.layout)
        positions = decision_batch(game)
        with single_thread():
            decision_chances(finals, positions.batch, 0, coach.values(positions.batch, np.array([0]))[0])
            built = time.perf_counter() - start
            times, alone = [], []
            for i in range(len(positions.actions)):
                start = time.perf_counter()
                values = coach.values(positions.batch, np.array([i]))[0]
                middle = time.perf_counter()
                decision_chances(finals, positions.batch, i, values)
                end = time.perf_counter()
                times.append(1000 * (end - start))
                alone.append(1000 * (end - middle))
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"{preset}, {args.players} players: {'exact' if finals.exact else 'estimated'}, {len(times)} decisions; "
              f"with the coach's values: median {np.median(times):.1f} ms, 90th percentile "
              f"{np.percentile(times, 90):.1f} ms, most {max(times):.1f} ms; the chances alone (the values given, as "
              f"the coach's word and the review give them): median {np.median(alone):.1f} ms, most {max(alone):.1f} ms "
              f"(the model built and the kernels warmed in {built:.1f} s; load average {load})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
