"""``yamb compare``: several players on the same dice, with statistics, per-row means and tests."""

from __future__ import annotations

import argparse
import json

from yamb_app.cli import options
from yamb_app.cli.lines import titled_table
from yamb_app.cli.options import add_table_arguments, arg, layout_from

HELP = "play the same games with several players and compare them (mean, sem, rows, wins, paired differences, Mann-Whitney U)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("players", nargs="+", metavar="PLAYER", help="player names or weights files, e.g. greedy smart expectimax best.pt")
    add_table_arguments(parser)
    parser.add_argument("--games", type=arg(options.integer(2, options.MAX_GAMES)), default=10_000, help="games per player (default 10000)")
    parser.add_argument("--seed", type=arg(options.seed), default=0, help="dice seed, the same for every player (default 0)")
    parser.add_argument("--batch-size", type=arg(options.batch_size), default=20_000,
                        help="games played at once (default 20000)")
    parser.add_argument("--luck", metavar="PLAYER",
                        help="also subtract each roll's luck as this search player values the hands it could "
                             "give (e.g. best): luck-adjusted means and differences, the same in expectation, "
                             "with a fraction of the standard error")
    parser.add_argument("--json", action="store_true", help="print one JSON object keyed by player name")
    parser.add_argument("--plot", metavar="FILE.png", type=arg(options.plot_file), help="save a histogram of the scores")


def _tables(report: dict[str, dict], title: str) -> list:
    names = list(report)
    stats = titled_table(title)
    stats.add_column("player")
    for key in ("mean", "std", "sem", "min", "p50", "max"):
        stats.add_column(key, justify="right")
    for name, r in report.items():
        stats.add_row(name, *(f"{r[key]:.2f}" for key in ("mean", "std", "sem", "min", "p50", "max")))
    rows = titled_table("mean score of each row (all columns)")
    rows.add_column("row")
    for name in names:
        rows.add_column(name, justify="right")
    for row in report[names[0]]["rows"]:
        rows.add_row(row, *(f"{report[n]['rows'][row]:.2f}" for n in names))
    out = [stats, rows]
    adjusted = "adjusted" in report[names[0]]
    if adjusted:
        luck = titled_table("luck-adjusted: the score less its dice's luck (the same mean in expectation)")
        luck.add_column("player")
        for key in ("mean", "std", "sem"):
            luck.add_column(key, justify="right")
        for name, r in report.items():
            luck.add_row(name, *(f"{r['adjusted'][key]:.2f}" for key in ("mean", "std", "sem")))
        out.append(luck)
    if len(names) > 1:
        cells = {
            "head to head: row beats column (ties count 1/2)": lambda r, o: f"{r['win_rate'][o]:.3f}",
            "row minus column, game by game (mean ± sem)":
                lambda r, o: f"{r['difference'][o]['mean']:+.2f} ± {r['difference'][o]['sem']:.2f}",
            "Mann-Whitney U p-value (two-sided)": lambda r, o: f"{r['mann_whitney_p'][o]:.3g}",
        }
        if adjusted:
            cells["row minus column, luck-adjusted, game by game (mean ± sem, p)"] = lambda r, o: (
                f"{r['adjusted_difference'][o]['mean']:+.2f} ± {r['adjusted_difference'][o]['sem']:.2f}, "
                f"{r['adjusted_difference'][o]['p']:.2g}")
        for label, cell in cells.items():
            pairs = titled_table(label)
            pairs.add_column("")
            for name in names:
                pairs.add_column(name, justify="right")
            for name in names:
                pairs.add_row(name, *("-" if o == name else cell(report[name], o) for o in names))
            out.append(pairs)
    return out


def _plot(scores: dict, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(8, 4.5))
    low = min(int(s.min()) for s in scores.values())
    high = max(int(s.max()) for s in scores.values())
    bins = np.linspace(low, high + 1, 60)
    for name, s in scores.items():
        ax.hist(s, bins=bins, histtype="step", linewidth=1.5, label=f"{name} (mean {s.mean():.1f})")
    ax.set_xlabel("final score")
    ax.set_ylabel("games")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    from pathlib import Path

    from yamb.atomic import write_atomically

    kind = Path(path).suffix[1:].lower()  # the temporary file's name does not end with it
    try:  # whole or not at all: a full disk leaves no 0-byte plot, and its error names the file
        write_atomically(Path(path), lambda tmp: fig.savefig(tmp, dpi=120, format=kind))
    finally:
        plt.close(fig)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from robo_players.measure.compare import check_names, play_games, report
    from robo_players.measure.luck import luck_reference
    from robo_players.registry import check_name, make_player
    from yamb_app.cli.games_progress import games_progress
    check_names(args.players)
    layout = layout_from(args, named=tuple(args.players))
    for name in args.players:  # every name checked before the first player is built (seconds)
        check_name(name, layout)
    players = {name: make_player(name, layout) for name in args.players}
    luck = luck_reference(args.luck, layout) if args.luck else None
    title = f"{args.preset} ({', '.join(layout.columns)}), {args.games:,} games, seed {args.seed}"
    if args.luck:
        title += f", luck valued by {args.luck}"
    results = {}
    with games_progress() as task:
        for name, player in players.items():
            results[name] = play_games(layout, player, args.games, seed=args.seed, batch_size=args.batch_size,
                                       progress=task(name, args.games), luck=luck)
    out = report(layout, results)
    if args.plot:
        _plot({name: r.scores for name, r in results.items()}, args.plot, title)
    if args.json:
        print(json.dumps(out))
        return 0
    console = Console()
    for table in _tables(out, title):
        console.print(table)
    return 0
