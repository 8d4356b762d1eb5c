"""Seconds to review a whole game: every decision valued by the coach (``robo_players.coach``).

    python -m scripts.bench_review                       # yatzy (exact) and yamb (best), seed 1
    python -m scripts.bench_review --preset yamb --coach best --seed 3 --repeats 5

A game is played by the coach bot with one random move in five (so decisions differ from the
best); the coach is built (the solver's values loaded, the bot's tables made) and a first review
warms the kernels (loaded from numba's cache, or compiled), both timed; then the review of the
game is timed (wall clock, best of ``--repeats``, all numba threads) with the machine's load.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from robo_players.coach.review import review_game
from robo_players.coach.values import make_coach
from robo_players.registry import make_player
from yamb.game import Game


def played_game(preset: str, bot: str, seed: int, players: int = 1) -> Game:
    """A game of ``preset`` (``players`` seats) played by ``bot`` at every seat, one move in five random."""
    game = Game(preset, players=players, seed=seed)
    player = make_player(bot, game.layout)
    rng = np.random.default_rng(seed)
    while not game.is_over():
        action = int(player.act(game.batch, np.zeros(1, dtype=np.int64))[0])
        if rng.random() < 0.2:
            action = int(rng.choice(game.legal_actions()))
        game.apply(action)
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", action="append", help="preset (repeatable; default yatzy and yamb)")
    parser.add_argument("--coach", default=None, help="coach name (default: optimal on yatzy, best elsewhere)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    for preset in args.preset or ["yatzy", "yamb"]:
        print(f"{preset}: playing a game, building the coach (compiles the kernels once)...", flush=True)
        start = time.perf_counter()
        coach = make_coach(Game(preset).layout, args.coach)
        built = time.perf_counter() - start
        game = played_game(preset, "optimal" if coach.exact else coach.name, args.seed)
        start = time.perf_counter()
        review_game(game, coach)
        first = time.perf_counter() - start
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            review = review_game(game, coach)
            times.append(time.perf_counter() - start)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"{preset}: coach {coach.name} ({'exact' if coach.exact else 'bot'}), {len(review.decisions)} "
              f"decisions, review {min(times):.3f} s (best of {args.repeats}; the first {first:.2f} s, the coach "
              f"built in {built:.2f} s; load average {load})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
