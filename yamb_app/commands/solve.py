"""``yamb solve``: the optimal expected score of a one-column table, solved exactly."""

from __future__ import annotations

import argparse
import json

from yamb_app.cli import options
from yamb_app.cli.options import add_table_arguments, arg

HELP = "solve a one-column table exactly (yatzy, yahtzee; or one down/up/free/announce column) and print its optimum"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_table_arguments(parser, files=False)
    parser.add_argument("--cached", action="store_true", help="reuse a cached solution instead of solving")
    parser.add_argument("--games", type=arg(options.integer(0, options.MAX_GAMES)), default=0,
                        help="also play N games optimally on the engine and summarize the scores (default 0: none)")
    parser.add_argument("--seed", type=arg(options.seed), default=0, help="dice seed of those games (default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from expected_scores.optimal_play import SolvedPlayer
    from expected_scores.solve import UnknownColumnError, cache_path, solve, table_kind
    from robo_players.measure.simulate import simulate, summary
    from yamb.errors import YambError
    from yamb.layout import layout
    from yamb_app.cli.options import rules_from

    columns = None if args.columns is None else [c.strip() for c in args.columns.split(",") if c.strip()]
    rules = rules_from(args)
    try:
        kind = table_kind(rules, columns)
    except UnknownColumnError as error:
        if columns is not None:
            raise
        raise YambError(f"{error} (try --preset yatzy, or --columns free)") from None  # the preset's own table
    if kind == "announce" and args.games:
        raise YambError("--games: an announce column's optimal play on the engine is not built; leave out --games")
    cache = cache_path(rules, kind)
    before = cache.stat().st_mtime_ns if cache.is_file() else None
    solution = solve(args.preset, columns, args.joker, args.dice, use_cache=args.cached)
    loaded = before is not None and cache.is_file() and cache.stat().st_mtime_ns == before  # a solve rewrites it
    result = {
        "preset": rules.name, "dice": rules.n_dice, "columns": [kind], "joker": rules.joker,
        "expected_score": solution.expected_score, "seconds": solution.seconds, "loaded": loaded,
        "states": solution.states, "cache": str(cache),
    }
    if args.games:
        scores = simulate(layout(rules, [kind]), SolvedPlayer(solution), args.games, seed=args.seed)
        result["simulation"] = {**summary(scores), "seed": args.seed}
    if args.json:
        print(json.dumps(result))
    else:
        joker = f", {rules.joker} joker" if rules.joker else ""
        print(f"{rules.name} ({rules.n_dice} dice, one {kind} column{joker}): "
              f"optimal expected score {solution.expected_score:.4f}")
        when = " once, loaded from the cache now" if loaded else ""
        print(f"{solution.states:,} states solved in {solution.seconds:.1f} s{when}; values in {result['cache']}")
        if args.games:
            sim = result["simulation"]
            print(f"{sim['games']:,} games played optimally (seed {args.seed}): mean {sim['mean']:.2f} "
                  f"± {sim['sem']:.2f}, std {sim['std']:.2f}, percentiles 5/25/50/75/95: "
                  + " ".join(f"{sim[f'p{q}']:.0f}" for q in (5, 25, 50, 75, 95)))
    return 0
