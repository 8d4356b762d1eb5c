"""Plans per CPU-second of the turn optimizer's compiled core (``expected_scores.turn.plan_one``).

    python -m scripts.bench_turn                  # 5 and 6 dice, 3 rolls
    python -m scripts.bench_turn --rolls 5 --pure --json

Plans a batch of turns of the yamb table in one compiled loop, as the
expectimax player does once per turn: each turn ends in the best of the
table's rows, each row worth its score plus a random offset (some rows
closed). Reports the best of ``--repeats`` CPU-time measurements, one thread.
"""

from __future__ import annotations

import argparse
import json
import time

import numba
import numpy as np
from numba import njit

from expected_scores.turn import plan_one
from yamb.rules import rules


@njit(cache=True)
def _plan_all(options, pure, add_die, remove_die, first_prob, rolls, start):
    """``plan_one`` of every turn (row of ``options`` and ``pure``) in one set of work arrays.

    As in the expectimax player, each turn's options are copied into a batch of one.
    """
    n_keeps, n_multisets = add_die.shape[0], options.shape[1]
    turn_options = np.empty((1, 1, n_multisets))
    turn_pure = np.empty((min(pure.shape[0], 1), 1, n_multisets))
    value = np.empty((rolls, 1, n_multisets))
    keep = np.empty((rolls, 1, n_multisets), dtype=np.int16)
    kv = np.empty(n_keeps)
    best = np.empty(n_keeps)
    arg = np.empty(n_keeps, dtype=np.int32)
    for b in range(options.shape[0]):
        turn_options[0, 0] = options[b]
        if pure.shape[0] > 0:
            turn_pure[0, 0] = pure[b]
        start[b] = plan_one(turn_options, turn_pure, 0, add_die, remove_die, first_prob, value, keep, kv, best,
                            arg)


def turn_options(n_dice: int, turns: int, rng: np.random.Generator) -> np.ndarray:
    """(turns, M): the best of the yamb rows, each worth its score plus an offset; a third of rows closed."""
    scores = rules("yamb", dice=n_dice).scores.astype(np.float64)  # (M, R)
    offset = rng.normal(0.0, 10.0, (turns, 1, scores.shape[1]))
    offset[rng.random(offset.shape) < 1 / 3] = -np.inf
    return (scores[None] + offset).max(axis=2)


def plans_per_cpu_second(n_dice: int, rolls: int, pure: bool, turns: int, repeats: int) -> float:
    """Best-of-``repeats`` plans per CPU-second of ``turns`` turns of ``n_dice`` dice."""
    dice = rules("yamb", dice=n_dice).dice
    rng = np.random.default_rng(0)
    options = turn_options(n_dice, turns, rng)
    pure_options = turn_options(n_dice, turns, rng) if pure else np.empty((0, dice.n_multisets))
    start = np.empty(turns)
    args = (options, pure_options, dice.add_die, dice.remove_die, dice.outcome_prob[0], rolls, start)
    _plan_all(*args)  # compile and warm up
    best = np.inf
    for _ in range(repeats):
        cpu = time.process_time()
        _plan_all(*args)
        best = min(best, time.process_time() - cpu)
    return turns / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=3)
    parser.add_argument("--pure", action="store_true", help="with jamb6's pure-hand options")
    parser.add_argument("--turns", type=int, default=20000, help="turns per measurement")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    numba.set_num_threads(1)
    results = {}
    for n_dice in (5, 6):
        rate = plans_per_cpu_second(n_dice, args.rolls, args.pure, args.turns, args.repeats)
        results[n_dice] = {"plans_per_cpu_second": round(rate), "us_per_plan": round(1e6 / rate, 2)}
        if not args.json:
            print(f"{n_dice} dice, {args.rolls} rolls{' (pure)' if args.pure else ''}: "
                  f"{rate:>10,.0f} plans/cpu-s ({1e6 / rate:.2f} us/plan)", flush=True)
    if args.json:
        print(json.dumps({"rolls": args.rolls, "pure": args.pure, "dice": results}))


if __name__ == "__main__":
    main()
