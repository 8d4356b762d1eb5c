"""What a random step of a shipped bot's evolved genes costs in play: the scale for ``cma_sigma``.

    python -m scripts.step_cost --preset jamb6 --sigmas 0.005 0.01 0.02 --games 3000
    python -m scripts.step_cost --preset yatzy --genes all --sigmas 0.002 --games 20000
    python -m scripts.step_cost --preset yamb --sigmas 0.002 0.005 --games 2000 --luck best

The shipped bot of the preset and ``--steps`` random steps of each size (Gaussian, sd
``sigma`` on every gene of ``--genes``, as a strategy's first generation draws them) play the
same dice (one batch, common random numbers); each step's paired difference to the bot is
printed with its standard error (with ``--luck``, of the scores less their luck: the same
difference in expectation, a fraction of the error). A step that costs a few tenths of a point is one a
strategy can still rank on a few thousand games.
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np

from evolution.config import GENES
from evolution.evaluate import Task, init_worker, play_task
from evolution.strategies.genes import gene_index
from robo_players.measure.compare import paired_difference
from robo_players.neural.bots import BOTS_DIR, bot_name
from robo_players.neural.files import load_weights
from yamb.layout import layout
from yamb.rules import rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="yatzy")
    parser.add_argument("--genes", choices=GENES, default="output-bias")
    parser.add_argument("--sigmas", type=float, nargs="+", default=[0.005, 0.01, 0.02])
    parser.add_argument("--steps", type=int, default=4, help="random steps of each size (default 4)")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=12345, help="the dice, and the steps")
    parser.add_argument("--luck", default="", help="a search player valuing each roll's luck (e.g. best)")
    args = parser.parse_args()
    init_worker(1)
    weights = load_weights(BOTS_DIR / bot_name(layout(rules(args.preset))))
    index = gene_index(weights.spec, args.genes)
    rng = np.random.default_rng(args.seed)
    genomes = [weights.genome.astype(np.float64)]
    for sigma in args.sigmas:
        for _ in range(args.steps):
            genome = genomes[0].copy()
            genome[index] += sigma * rng.standard_normal(len(index))
            genomes.append(genome)
    task = Task(weights.spec, np.array(genomes, dtype=np.float32),
                np.tile(weights.cell_values, (len(genomes), 1)).astype(np.float32), args.games, args.seed,
                luck=args.luck)
    outcome = play_task(task)
    scores = outcome.scores - outcome.luck
    steps = [{"sigma": sigma, **paired_difference(row, scores[0])}
             for sigma, row in zip(np.repeat(args.sigmas, args.steps), scores[1:])]
    print(json.dumps({"preset": args.preset, "genes": args.genes, "genes_evolved": len(index), "games": args.games,
                      "luck": args.luck, "bot": float(scores[0].mean()), "steps": steps,
                      "load_average": [round(x, 2) for x in os.getloadavg()]}, indent=1))


if __name__ == "__main__":
    main()
