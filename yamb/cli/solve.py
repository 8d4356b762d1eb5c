"""``yamb solve``: the optimal expected score of a one-column table, solved exactly."""

from __future__ import annotations

import argparse
import json

from yamb.cli.options import add_table_arguments

HELP = "solve a one-column table exactly (yatzy, yahtzee; or one down/up column) and print its optimum"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_table_arguments(parser)
    parser.set_defaults(preset="yahtzee")
    parser.add_argument("--cached", action="store_true", help="reuse a cached solution instead of solving")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from expected_scores.solve import cache_path, solve, table_kind
    from yamb.cli.options import rules_from

    columns = None if args.columns is None else [c.strip() for c in args.columns.split(",") if c.strip()]
    rules = rules_from(args)
    kind = table_kind(rules, columns)
    solution = solve(args.preset, columns, args.joker, args.dice, use_cache=args.cached)
    result = {
        "preset": rules.name, "dice": rules.n_dice, "columns": [kind], "joker": rules.joker,
        "expected_score": solution.expected_score, "seconds": solution.seconds,
        "states": solution.states, "cache": str(cache_path(rules, kind)),
    }
    if args.json:
        print(json.dumps(result))
    else:
        joker = f", {rules.joker} joker" if rules.joker else ""
        print(f"{rules.name} ({rules.n_dice} dice, one {kind} column{joker}): "
              f"optimal expected score {solution.expected_score:.4f}")
        print(f"{solution.states:,} states solved in {solution.seconds:.1f} s; values in {result['cache']}")
    return 0
