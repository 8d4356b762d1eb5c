"""``yamb simulate``: play many games with one player and summarize the scores."""

from __future__ import annotations

import argparse
import json
import time

from yamb_app.cli import options
from yamb_app.cli.lines import titled_table
from yamb_app.cli.options import add_table_arguments, arg, layout_from

HELP = "play N solitaire games with a player and print score statistics"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_table_arguments(parser)
    parser.add_argument("--player", default="random",
                        help="player name (default random) or a weights file (.pt, .safetensors, .onnx, .npz)")
    parser.add_argument("--games", type=arg(options.games), default=10_000, help="number of games (default 10000)")
    parser.add_argument("--seed", type=arg(options.seed), default=0, help="dice seed (default 0)")
    parser.add_argument("--batch-size", type=arg(options.batch_size), default=20_000,
                        help="games played at once (default 20000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from numba.core.event import TimingListener, install_listener
    from rich.console import Console

    from robo_players.measure.simulate import simulate, summary
    from robo_players.registry import make_player
    from yamb_app.cli.games_progress import games_progress
    layout = layout_from(args, named=(args.player,))
    player = make_player(args.player, layout)
    start = time.perf_counter()
    compiling = TimingListener()  # numba's compile time, left out of the games' seconds
    with install_listener("numba:compile", compiling), games_progress() as task:
        scores = simulate(layout, player, args.games, seed=args.seed, batch_size=args.batch_size,
                          progress=task(f"{player.name} on {args.preset}", args.games))
    compile_seconds = compiling.duration if compiling.done else 0.0
    seconds = time.perf_counter() - start - compile_seconds
    stats = summary(scores)
    stats.update(player=player.name, preset=args.preset, columns=list(layout.columns), seed=args.seed,
                 seconds=seconds, compile_seconds=compile_seconds, games_per_second=args.games / seconds)
    if args.json:
        print(json.dumps(stats))
        return 0
    table = titled_table(f"{player.name} on {args.preset} ({', '.join(layout.columns)})")
    table.add_column("statistic")
    table.add_column("value", justify="right")
    for key in ("games", "mean", "std", "sem", "min", "p5", "p25", "p50", "p75", "p95", "max",
                "games_per_second"):
        value = stats[key]
        table.add_row(key, f"{value:,.0f}" if key in ("games", "games_per_second") else f"{value:.2f}")
    Console().print(table)
    return 0
