"""How often other players would move differently from a reference player, on the reference's own games.

    python -m scripts.agreement --preset yamb --reference best+lookahead --players best+lookahead@10 best --games 100

The reference plays ``--games`` games; at every step each other player is asked
what it would do in the same state, and the steps where its action differs are
counted (with the CPU seconds each spent deciding). Far more sensitive than a
difference of mean scores: two players that differ on one step in a thousand
play the same games almost always.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from robo_players.measure.simulate import simulate
from robo_players.registry import make_player
from yamb.engine import GameBatch
from yamb.layout import layout
from yamb.rules import rules


class Shadowed:
    """The reference player, asking the others at each of its steps what they would do."""

    def __init__(self, reference, others: list) -> None:
        self.reference, self.others = reference, others
        self.name = reference.name
        self.steps = 0
        self.seconds = 0.0
        self.differ = np.zeros(len(others), dtype=np.int64)
        self.other_seconds = np.zeros(len(others))

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        started = time.process_time()
        actions = self.reference.act(batch, games)
        self.seconds += time.process_time() - started
        for i, other in enumerate(self.others):
            started = time.process_time()
            theirs = other.act(batch, games)
            self.other_seconds[i] += time.process_time() - started
            self.differ[i] += int((np.asarray(theirs) != np.asarray(actions)).sum())
        self.steps += len(games)
        return actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="yamb")
    parser.add_argument("--reference", default="best+lookahead")
    parser.add_argument("--players", nargs="+", default=["best+lookahead@10", "best"])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    lay = layout(rules(args.preset))
    shadowed = Shadowed(make_player(args.reference, lay), [make_player(name, lay) for name in args.players])
    scores = simulate(lay, shadowed, args.games, seed=args.seed, check=False)
    players = {name: {"steps_differing": int(d), "share": d / shadowed.steps, "cpu_seconds": round(s, 2)}
               for name, d, s in zip(args.players, shadowed.differ, shadowed.other_seconds)}
    print(json.dumps({"preset": args.preset, "reference": args.reference, "games": args.games,
                      "reference_mean": float(scores.mean()), "steps": shadowed.steps,
                      "reference_cpu_seconds": round(shadowed.seconds, 2), "players": players,
                      "load_average": [round(x, 2) for x in os.getloadavg()]}, indent=1))


if __name__ == "__main__":
    main()
