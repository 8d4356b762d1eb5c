"""``yamb match``: players at one table, every deal played once per seat rotation on the same dice."""

from __future__ import annotations

import argparse
import json

from yamb_app.cli import options
from yamb_app.cli.lines import titled_table
from yamb_app.cli.options import add_table_arguments, arg, layout_from

HELP = "play deals at one table, one seat per player, every seat for everyone on the same dice (win shares)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("players", nargs="+", metavar="PLAYER",
                        help="two or more player names or weights files; a name given again takes another seat "
                             "(shown as NAME #2, ...)")
    add_table_arguments(parser)
    parser.add_argument("--games", type=arg(options.integer(2, options.MAX_GAMES)), default=10_000,
                        help="deals, each played once per seat rotation (default 10000)")
    parser.add_argument("--seed", type=arg(options.seed), default=0, help="dice seed (default 0)")
    parser.add_argument("--batch-size", type=arg(options.batch_size), default=10_000,
                        help="deals played at once (default 10000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (key players: each name's "
                                                            "win_share, win_share_sem, mean)")


def _tables(report: dict, title: str) -> list:
    names = list(report["players"])
    stats = titled_table(title)
    stats.add_column("player")
    for key in ("wins (ties shared)", "mean score"):
        stats.add_column(key, justify="right")
    for name, r in report["players"].items():
        stats.add_row(name, f"{100 * r['win_share']:.2f} % ± {100 * r['win_share_sem']:.2f}",
                      f"{r['mean']:.2f} ± {r['mean_sem']:.2f}")
    pairs = titled_table("row's wins minus column's, deal by deal (percentage points, mean ± sem)")
    pairs.add_column("")
    for name in names:
        pairs.add_column(name, justify="right")
    for name in names:
        diff = report["win_difference"][name]
        pairs.add_row(name, *("-" if o == name else f"{100 * diff[o]['mean']:+.2f} ± {100 * diff[o]['sem']:.2f}"
                              for o in names))
    return [stats, pairs]


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from robo_players.measure.match import match_report, play_match, seat_names
    from robo_players.registry import check_name, make_player
    from yamb.errors import YambError
    from yamb_app.cli.games_progress import games_progress

    if len(args.players) < 2:
        raise YambError("a match needs two players or more")
    layout = layout_from(args, players=len(args.players), named=tuple(args.players))
    for name in args.players:  # every name checked before the first player is built (seconds)
        check_name(name, layout)
    players = {label: make_player(name, layout) for label, name in zip(seat_names(args.players), args.players)}
    title = (f"{args.preset} ({', '.join(layout.columns)}), {args.games:,} deals x {len(players)} seat orders, "
             f"seed {args.seed}")
    with games_progress() as task:
        results = play_match(layout, players, args.games, seed=args.seed, batch_size=args.batch_size,
                             progress=task(" v ".join(players), args.games * len(players)))
    report = match_report(results)
    if args.json:
        print(json.dumps(report))
        return 0
    console = Console()
    for table in _tables(report, title):
        console.print(table)
    return 0
