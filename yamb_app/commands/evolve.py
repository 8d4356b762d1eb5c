"""``yamb evolve``: evolve neural players with DEAP (GA, CMA-ES, sep-CMA-ES or the OpenAI ES), resumable, into a run directory."""

from __future__ import annotations

import argparse

from yamb_app.cli import options
from yamb_app.cli.compiling import follow, said
from yamb_app.cli.lines import show
from yamb_app.cli.options import arg
from yamb_app.cli.stopping import stop_on_sigterm, stopped

TYPES = {int: arg(options.whole_number), tuple: arg(options.layer_sizes)}  # ASCII digits; config.py checks the ranges

HELP = "evolve neural players (GA, CMA-ES, sep-CMA-ES or OpenAI ES); writes a run directory, --resume continues one"

OVERRIDES = (  # (flag, setting, type (or a checked argparse type), help)
    ("--preset", "game", str, "the game: yamb, jamb6, yatzy or yahtzee (default: the recipe's, yamb)"),
    ("--generations", "generations", int, "generations to play (a resumed run may be extended)"),
    ("--population", "population", int, "individuals per generation"),
    ("--games", "games", int, "games per individual per generation (fitness = mean score)"),
    ("--final-games", "final_games", int, "fresh games per hall-of-fame member at the end"),
    ("--seed", "seed", int, "seed of every random choice (dice, initial weights, variation)"),
    ("--workers", "workers", int, "worker processes playing parts of the population"),
    ("--threads", "threads", arg(options.threads), "torch and numba threads per process (default 1)"),
    ("--backend", "backend", str, "processes (default: this machine) or ray (a Ray cluster or a local Ray)"),
    ("--ray-address", "ray_address", str, "backend ray: join the cluster at HOST:PORT (default: a local Ray)"),
    ("--player", "player", str, "neural player kind: direct or guided"),
    ("--algorithm", "algorithm", str, "ga (genetic algorithm), cma (CMA-ES, at most 2,000 weights), "
                                      "sep-cma (separable CMA-ES) or es (OpenAI ES; population even); "
                                      "the last two are linear in the weights"),
    ("--columns", "columns", str, "comma-separated column kinds (default: the game's table)"),
    ("--hidden", "hidden", tuple, "hidden layer sizes, comma-separated, e.g. 32 or 32,16"),
    ("--init", "init", str, "start from this weights file (or 'best', the shipped bot) instead of afresh"),
    ("--objective", "objective", str, "points (default: fitness = mean score) or win (fitness = share of wins "
                                      "against --set field=best (or a file, or hall-of-fame: the run's best so "
                                      "far, its start until there are any) in games of --set opponents=1 + 1 "
                                      "players, seats rotated)"),
)
DEFAULT_RECIPE = "quick"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--recipe", default=None,
                        help=f"run recipe: {DEFAULT_RECIPE} (default, minutes), direct (the network alone), "
                             "direct-imitation (with --init FILE), full (hours), polish (on from a strong "
                             "player: --init best or FILE) or win (on from --init best or FILE for the share of "
                             "wins against best)")
    parser.add_argument("--config", metavar="FILE", type=arg(options.input_file), help="TOML file of settings (over the recipe)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--out", metavar="DIR", type=arg(options.output_dir),
                       help="a new or empty run directory (default runs/<recipe>-<game>-<date>-<time>)")
    where.add_argument("--resume", metavar="DIR", type=arg(options.output_dir), help="continue the run in DIR where it stopped")
    for flag, setting, kind, text in OVERRIDES:
        parser.add_argument(flag, dest=setting, type=TYPES.get(kind, kind), default=None,
                            metavar="GAME" if flag == "--preset" else setting.upper(), help=text)
    parser.add_argument("--game", dest="old_game", default=None, help=argparse.SUPPRESS)  # before --preset
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="any other setting of evolution/config.py, e.g. --set mutation_sigma=0.02")


def _old_spellings(args: argparse.Namespace, recipes: dict) -> None:
    """``--preset RECIPE`` and ``--game GAME``, the spellings before ``--recipe`` and ``--preset GAME``:
    read as the new ones, with a one-line note on stderr."""
    from evolution import ConfigError

    if args.game in recipes:
        if args.recipe is not None:
            raise ConfigError(f"--preset names the game, not a run recipe like {args.game!r}; "
                              f"give the recipe once, as --recipe")
        options.note("evolve", f"--preset {args.game} is read as --recipe {args.game} "
                               "(--preset names the game: yamb, jamb6, yatzy or yahtzee)")
        args.recipe, args.game = args.game, None
    if args.old_game is not None:
        if args.game is not None:
            raise ConfigError("--game is the old spelling of --preset; give the game once, as --preset")
        options.note("evolve", f"--game {args.old_game} is read as --preset {args.old_game} (the new spelling)")
        args.game = args.old_game


def _changes(args: argparse.Namespace) -> dict:
    """The settings given by ``--set`` and by the flags; a setting given twice is refused."""
    from evolution import ConfigError, parse_assignments

    changes: dict = parse_assignments(args.set)
    for flag, setting, _, _ in OVERRIDES:
        value = getattr(args, setting)
        if value is None:
            continue
        if setting in changes:
            raise ConfigError(f"{flag} {value} and --set {setting}={changes[setting]} both set {setting}; give it once")
        changes[setting] = value
    return changes


def _heading(state, run_dir) -> str:
    """What a new run evolves (as its start file's settings made it), how and for how long."""
    c = state.config
    part = ""
    if c.genes != "all":
        from evolution import gene_index

        part = f", its output layer's biases ({len(gene_index(state.spec, c.genes)):,} of its weights)"
    return (f"run directory {run_dir}: {c.player} player for {c.game} (hidden {c.hidden}){part}, "
            f"{c.algorithm}, {c.population} x {c.games} games, {c.generations} generation{'s' * (c.generations != 1)}"
            + (f"; scores less the luck {c.luck} sees in the dice" if c.luck else ""))


def _line(state, entry: dict) -> str:
    c = state.config
    compiled = f" (and {entry['compile_seconds']:.1f} s compiling)" if entry["compile_seconds"] else ""

    def fitness(value: float) -> str:  # points to a tenth; a share of the wins in per cent, to a hundredth
        return f"{100 * value:.2f}%" if c.objective == "win" else f"{value:.1f}"

    return (f"gen {entry['gen']:>3}/{c.generations}  best {fitness(entry['max'])}  "
            f"mean {fitness(entry['avg'])} ± {fitness(entry['std'])}  worst {fitness(entry['min'])}  "
            f"expectimax {fitness(entry['expectimax'])}  {entry['seconds']:.1f} s{compiled}{_noise(entry)}")


def _noise(entry: dict) -> str:
    """The games, noise measure and challenge of a generation, when the run handles noise."""
    if "accepted" not in entry:
        return ""
    words = [f"  games {entry['games']}"]
    if entry["noise"] == entry["noise"]:
        words.append(f"noise {entry['noise']:+.2f}")
    if entry["challenger"] == entry["challenger"]:
        confirmed = entry.get("confirmed", float("nan"))
        again = f", again {confirmed:+.2f}" if confirmed == confirmed else ""
        words.append(f"challenger {entry['challenger']:+.2f} ± {entry['challenger_sem']:.2f}{again}"
                     f"{({1: ' accepted', -1: ' worse: back to the incumbent'}).get(entry['accepted'], '')}")
    return "  ".join(words)


def _where_the_time_went(times: dict[str, float], result: dict) -> str:
    """Where the wall time of ``yamb evolve`` went, from the clock readings ``times`` (``start``,
    ``evolve`` when the workers start, ``last`` when the last generation was reported, ``end``) and
    the compile time the generations logged."""
    check, verdict = result["final_check"]["seconds"], result["verdict"]["seconds"]
    parts = {"loading and setting up": times["evolve"] - times["start"], "compiling": times["compiling"],
             "generations and their checkpoints": times["last"] - times["evolve"] - times["compiling"],
             "final check": check, "verdict": verdict,
             "best.pt, the plots and stopping the workers": times["end"] - times["last"] - check - verdict}
    return (f"{times['end'] - times['start']:.0f} s in all: "
            + ", ".join(f"{name} {max(seconds, 0.0):.0f} s" for name, seconds in parts.items()))


def run(args: argparse.Namespace) -> int:
    import time

    times = {"start": time.perf_counter(), "compiling": 0.0}
    import sys
    from pathlib import Path

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    import evolution

    _old_spellings(args, evolution.RECIPES)
    changes = _changes(args)
    console = Console()
    if args.resume:
        run_dir = Path(args.resume)
        if args.recipe is not None or args.config is not None:
            raise options.ArgumentError("a resumed run keeps its recipe and settings; drop --recipe and --config")
    else:
        config = evolution.from_recipe(args.recipe or DEFAULT_RECIPE)
        if args.config:
            config = evolution.with_settings(config, evolution.read_toml(Path(args.config)))
        config = evolution.with_settings(config, changes)
        if not (config.init and config.from_init):  # no settings to come from a file: a bad one said in a second
            config.validate()
        plan = evolution.plan(config)  # all that can refuse it (the network library loaded), before writing
        run_dir = Path(args.out) if args.out else evolution.default_run_dir(plan.config)
    where = evolution.RunDir(run_dir)
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())
    new_directory = not args.resume and not run_dir.exists()
    try:
        with stop_on_sigterm(), where.lock(create=not args.resume):
            if args.resume:
                state = evolution.resume(run_dir, changes)
                summary = where.finished(state)
                if summary is not None:  # nothing to play: its results are written
                    show(console, f"{run_dir} is finished: {state.generation} generations played and its results "
                                  f"written (give --generations N, more than {state.generation}, to go on)")
                    for line in evolution.verdict_lines(summary["verdict"]):
                        show(console, line)
                    return 0
                show(console, f"resuming {run_dir} after generation {state.generation}")
            else:
                state = evolution.start(plan, run_dir)
                show(console, _heading(state, run_dir))
            c = state.config
            print(f"yamb evolve: starting {c.workers} worker process{'es' if c.workers > 1 else ''} "
                  f"({c.backend}); this process compiles the game's kernels first, once after an install or an "
                  f"update (a few minutes; the workers then load them, as later runs do, in seconds)",
                  file=sys.stderr, flush=True)
            said()
            times["evolve"] = times["last"] = time.perf_counter()
            with Progress(*columns, console=console, disable=not console.is_terminal) as progress:  # a log: lines
                task = progress.add_task("generation", total=c.generations, completed=state.generation)
                follow(lambda kernels, seconds: progress.update(task, description=f"compiling: {kernels} kernels"))

                def report(state, entry: dict) -> None:
                    progress.update(task, description="generation")
                    times["compiling"] += entry["compile_seconds"]
                    times["last"] = time.perf_counter()
                    show(progress.console, _line(state, entry))
                    progress.update(task, completed=state.generation)
                    if state.generation == state.config.generations:
                        members = "the hall of fame" if state.incumbent is None else "the incumbent"
                        show(progress.console,
                             f"checking {len(evolution.candidates(state))} candidates ({members}"
                             f"{', the strategy mean' if state.strategy is not None else ''}) and "
                             f"expectimax on {state.config.final_games:,} fresh games each")

                result = evolution.evolve(state, run_dir, report, lambda line: show(progress.console, line))
    except KeyboardInterrupt as stop:
        how, code = stopped(stop)
        if where.is_run():
            print(f"yamb evolve: {how}; continue with: yamb evolve --resume {run_dir}", file=sys.stderr)
        else:
            if new_directory:
                where.discard_unsaved()
            print(f"yamb evolve: {how} before the run saved anything; run the same command to start it again",
                  file=sys.stderr)
        return code
    except Exception:
        if new_directory:
            where.discard_unsaved()  # a new run that failed before it saved anything leaves no folder behind
        raise
    for line in evolution.verdict_lines(result["verdict"]):
        show(console, line)
    times["end"] = time.perf_counter()
    show(console, _where_the_time_went(times, result))
    show(console, f"wrote {run_dir}/best.pt, summary.json, logbook.csv, fitness.png, scores.png")
    return 0
