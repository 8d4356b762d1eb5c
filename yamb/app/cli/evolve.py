"""``yamb evolve``: evolve neural players with DEAP (GA, CMA-ES, sep-CMA-ES or the OpenAI ES), resumable, into a run directory."""

from __future__ import annotations

import argparse

from yamb.app.cli import options
from yamb.app.cli.options import arg

TYPES = {int: arg(options.whole_number)}  # ASCII digits; evolution/config.py checks the ranges

HELP = "evolve neural players (GA, CMA-ES, sep-CMA-ES or OpenAI ES); writes a run directory, --resume continues one"

OVERRIDES = (  # (flag, setting, type, help)
    ("--generations", "generations", int, "generations to play (a resumed run may be extended)"),
    ("--population", "population", int, "individuals per generation"),
    ("--games", "games", int, "games per individual per generation (fitness = mean score)"),
    ("--final-games", "final_games", int, "fresh games per hall-of-fame member at the end"),
    ("--seed", "seed", int, "seed of every random choice (dice, initial weights, variation)"),
    ("--workers", "workers", int, "worker processes playing parts of the population"),
    ("--threads", "threads", int, "torch and numba threads per process (default 1)"),
    ("--backend", "backend", str, "processes (default: this machine) or ray (a Ray cluster or a local Ray)"),
    ("--ray-address", "ray_address", str, "backend ray: join the cluster at HOST:PORT (default: a local Ray)"),
    ("--player", "player", str, "neural player kind: direct or guided"),
    ("--algorithm", "algorithm", str, "ga (genetic algorithm), cma (CMA-ES, at most 2,000 weights), "
                                      "sep-cma (separable CMA-ES) or es (OpenAI ES; population even); "
                                      "the last two are linear in the weights"),
    ("--game", "game", str, "game preset: yamb, jamb6, yatzy or yahtzee"),
    ("--columns", "columns", str, "comma-separated column kinds (default: the game's table)"),
    ("--hidden", "hidden", str, "hidden layer sizes, comma-separated, e.g. 32 or 32,16"),
    ("--init", "init", str, "start from this weights file (or 'best', the shipped bot) instead of afresh"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", default="quick", help="run preset: quick (default, minutes), direct (the network alone), direct-imitation (with --init FILE), full (hours) or polish (on from a strong player: --init best or FILE)")
    parser.add_argument("--config", metavar="FILE", type=arg(options.input_file), help="TOML file of settings (over the preset)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--out", metavar="DIR", type=arg(options.output_dir), help="run directory (default runs/<preset>-<date>-<time>)")
    where.add_argument("--resume", metavar="DIR", type=arg(options.output_dir), help="continue the run in DIR where it stopped")
    for flag, setting, kind, text in OVERRIDES:
        parser.add_argument(flag, dest=setting, type=TYPES.get(kind, kind), default=None, metavar=setting.upper(),
                            help=text)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="any other setting of evolution/config.py, e.g. --set mutation_sigma=0.02")


def _line(state, entry: dict) -> str:
    c = state.config
    compiled = f" (and {entry['compile_seconds']:.1f} s compiling)" if entry["compile_seconds"] else ""
    return (f"gen {entry['gen']:>3}/{c.generations}  best {entry['max']:.1f}  "
            f"mean {entry['avg']:.1f} ± {entry['std']:.1f}  worst {entry['min']:.1f}  "
            f"expectimax {entry['expectimax']:.1f}  {entry['seconds']:.1f} s{compiled}{_noise(entry)}")


def _noise(entry: dict) -> str:
    """The games, noise measure and challenge of a generation, when the run handles noise."""
    if "accepted" not in entry:
        return ""
    words = [f"  games {entry['games']}"]
    if entry["noise"] == entry["noise"]:
        words.append(f"noise {entry['noise']:+.2f}")
    if entry["challenger"] == entry["challenger"]:
        words.append(f"challenger {entry['challenger']:+.2f} ± {entry['challenger_sem']:.2f}"
                     f"{({1: ' accepted', -1: ' worse: back to the incumbent'}).get(entry['accepted'], '')}")
    return "  ".join(words)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from evolution.config import from_preset, parse_assignment, read_toml, with_settings
    from evolution.report import candidates
    from evolution.run import default_run_dir, evolve, resume, run_lock, start
    from evolution.verdict import verdict_lines

    changes = dict(parse_assignment(text) for text in args.set)
    changes.update({s: getattr(args, s) for _, s, _, _ in OVERRIDES if getattr(args, s) is not None})
    console = Console()
    if args.resume:
        run_dir = Path(args.resume)
    else:
        config = from_preset(args.preset)
        if args.config:
            config = with_settings(config, read_toml(Path(args.config)))
        config = with_settings(config, changes).validate()
        run_dir = Path(args.out) if args.out else default_run_dir(config)
    columns = (TextColumn("[bold]generation"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    try:
        with run_lock(run_dir, create=not args.resume), Progress(*columns, console=console) as progress:
            if args.resume:
                state = resume(run_dir, changes)
                progress.console.print(f"resuming {run_dir} after generation {state.generation}")
            else:
                state = start(config, run_dir)
                c = state.config
                progress.console.print(f"run directory {run_dir}: {c.player} player (hidden {c.hidden}), "
                                       f"{c.algorithm}, {c.population} x {c.games} games, {c.generations} generations")
            task = progress.add_task("evolve", total=state.config.generations, completed=state.generation)

            def report(state, entry: dict) -> None:
                progress.console.print(_line(state, entry), soft_wrap=True)
                progress.update(task, completed=state.generation)
                if state.generation == state.config.generations:
                    members = "the hall of fame" if state.incumbent is None else "the incumbent"
                    progress.console.print(f"checking {len(candidates(state))} candidates ({members}"
                                           f"{', the strategy mean' if state.strategy is not None else ''}) and "
                                           f"expectimax on {state.config.final_games:,} fresh games each")

            result = evolve(state, run_dir, report, lambda line: progress.console.print(line, soft_wrap=True))
    except KeyboardInterrupt:
        console.print(f"interrupted; continue with: yamb evolve --resume {run_dir}")
        raise
    for line in verdict_lines(result["verdict"]):
        console.print(line, soft_wrap=True)
    console.print(f"wrote {run_dir}/best.pt, summary.json, logbook.csv, fitness.png, scores.png")
    return 0
