"""The numbers and plots of the lab's results page (docs/lab/results.md): every player on every preset, and the evolution curves.

    python -m scripts.results                                  # all presets, 10,000 games, seed 12345
    python -m scripts.results --presets yahtzee --games 2000   # a quick look
    python -m scripts.results --curves-only                    # only the plots, from the runs in RUNS

Each preset's players play the same ``--games`` games (common random numbers,
``yamb compare``'s machinery); the report is written to
``lab/results/<preset>.json`` and printed as a Markdown table. The evolution
curve of a preset is drawn from the logbook of the run that made the shipped
bot (``RUNS``, under ``runs/``) when that directory exists, into
``docs/lab/figures/evolution-<preset>.png`` (a figure of the pages).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from evolution.report import new_axes, save_plot
from robo_players.measure.compare import play_games, report
from robo_players.registry import make_player
from yamb.layout import layout
from yamb.rules import rules

SEARCHERS = ["random", "greedy", "smart", "expectimax", "expectimax-played", "expectimax-exact", "best"]
PLAYERS = {
    "yamb": SEARCHERS,
    "jamb6": SEARCHERS,
    "yatzy": [*SEARCHERS, "optimal"],
    "yahtzee": [*SEARCHERS, "optimal"],
}
# the run directory (under --runs) that made each preset's shipped bot
RUNS = {"yamb": "yamb-full", "jamb6": "jamb6-full", "yatzy": "yatzy-exact", "yahtzee": "yahtzee-full"}
SMOOTH = 10  # generations in the curves' rolling mean


def table(rep: dict[str, dict]) -> str:
    """A Markdown table: each player's mean, sem, std and percentiles, and how often ``best`` beats it."""
    lines = ["| player | mean ± sem | std | p5 | p25 | p50 | p75 | p95 | best wins |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, r in rep.items():
        wins = f"{100 * rep['best']['win_rate'][name]:.1f} %" if name != "best" else ""
        lines.append(f"| `{name}` | {r['mean']:.2f} ± {r['sem']:.2f} | {r['std']:.1f} | {r['p5']:.0f} | "
                     f"{r['p25']:.0f} | {r['p50']:.0f} | {r['p75']:.0f} | {r['p95']:.0f} | {wins} |")
    return "\n".join(lines)


def measure(preset: str, games: int, seed: int, out: Path) -> dict:
    """Play every player of ``preset`` on the same games; write and return the results:
    the command, each player's report, and best minus expectimax game by game."""
    lay = layout(rules(preset), None)
    results = {}
    for name in PLAYERS[preset]:
        results[name] = play_games(lay, make_player(name, lay), games, seed)
        print(f"  {preset} {name}: {results[name].scores.mean():.2f}", flush=True)
    diff = (results["best"].scores - results["expectimax"].scores).astype(np.float64)
    measured = {
        "command": f"python -m scripts.results --presets {preset} --games {games} --seed {seed}",
        "players": report(lay, results),
        "best_minus_expectimax": {"mean": float(diff.mean()), "sem": float(diff.std(ddof=1) / np.sqrt(games))},
    }
    (out / f"{preset}.json").write_text(json.dumps(measured, indent=1) + "\n")
    return measured


def plot_curve(preset: str, frame: pd.DataFrame, path: Path) -> None:
    """The run's advantage over expectimax on each generation's dice: the population mean and its best."""
    fig, ax = new_axes(3.6)
    for column, label in (("avg", "population mean"), ("max", "best individual")):
        advantage = frame[column] - frame["expectimax"]
        ax.plot(frame.gen, advantage, alpha=0.25)
        ax.plot(frame.gen, advantage.rolling(SMOOTH, min_periods=1).mean(), label=f"{label} ({SMOOTH}-generation mean)",
                color=ax.lines[-1].get_color())
    ax.axhline(0, color="grey", linestyle="--", linewidth=1)
    save_plot(fig, ax, path, "generation", "score minus expectimax's\non the same dice",
              f"{preset}: evolution of the search-guided player (CMA-ES)", legend="lower right")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", nargs="+", default=list(PLAYERS), choices=list(PLAYERS))
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--runs", type=Path, default=Path("runs"), help="where the run directories of RUNS are")
    parser.add_argument("--out", type=Path, default=Path("lab/results"), help="where the JSON reports go")
    parser.add_argument("--figures", type=Path, default=Path("docs/lab/figures"), help="where the curves go")
    parser.add_argument("--curves-only", action="store_true")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.figures.mkdir(parents=True, exist_ok=True)
    for preset in args.presets:
        logbook = args.runs / RUNS[preset] / "logbook.csv"
        frame = pd.read_csv(logbook) if logbook.is_file() else None
        if frame is not None and "expectimax" in frame.columns:  # older logbooks lack it
            plot_curve(preset, frame, args.figures / f"evolution-{preset}.png")
        if not args.curves_only:
            measured = measure(preset, args.games, args.seed, args.out)
            diff = measured["best_minus_expectimax"]
            print(f"\n{preset}, {args.games:,} games, seed {args.seed}:\n{table(measured['players'])}\n"
                  f"best - expectimax on the same dice: {diff['mean']:+.2f} ± {diff['sem']:.2f}\n", flush=True)


if __name__ == "__main__":
    main()
