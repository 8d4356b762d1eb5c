"""``yamb sweep``: an Optuna study over evolution settings; ``yamb sweep report DIR`` shows what it found.

``yamb sweep [DIR] --trials N`` runs (or continues) the sweep in ``DIR``
(default ``sweeps/<recipe>``) until ``N`` trials are complete or pruned. ``--recipe``
names the search space (``quick``, ``full``), ``--preset`` the game, as in ``yamb evolve``.
"""

from __future__ import annotations

import argparse

from yamb_app.cli import options
from yamb_app.cli.lines import show
from yamb_app.cli.options import arg

HELP = "sweep evolution settings with Optuna (yamb sweep [DIR] --trials N; yamb sweep report DIR)"
DEFAULT_TRIALS = 20
DEFAULT_TOP = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("words", nargs="*", metavar="[report] DIR",
                        help="the sweep directory (default sweeps/<recipe>); 'report DIR' shows a sweep")
    parser.add_argument("--trials", type=arg(options.integer(1, 1_000_000)), default=None,
                        help=f"finished (complete or pruned) trials to reach (default {DEFAULT_TRIALS})")
    parser.add_argument("--workers", type=arg(options.workers), default=None, help="worker processes on this machine (default 1)")
    parser.add_argument("--storage", default=None, type=arg(options.storage),
                        help="Optuna RDB URL (postgresql://..., sqlite:///...) or journal file path "
                             "(default DIR/sweep.db)")
    parser.add_argument("--pruner", default=None, help="median (default), hyperband or none")
    parser.add_argument("--seed", type=arg(options.seed), default=None, help="seed of the sampler and of every run (default 0)")
    parser.add_argument("--recipe", default=None,
                        help="search space: quick (default, minutes; evolve's quick recipe, the search-guided "
                             "player) or full (hours)")
    parser.add_argument("--preset", default=None, metavar="GAME",
                        help="the game of every trial: yamb (default), jamb6, yatzy or yahtzee (new sweeps)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="an evolution setting every trial keeps, e.g. --set game=yatzy (new sweeps)")
    parser.add_argument("--top", type=arg(options.integer(1, 1_000_000)), default=DEFAULT_TOP, help=f"best trials shown (default {DEFAULT_TOP})")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from evolution.run_files import SWEEP_SETTINGS_FILE
    from yamb.errors import YambError

    words = list(args.words)
    report_of = words[1] if words[:1] == ["report"] and len(words) == 2 and not _not_for_report(args) else None
    if report_of is not None and not (Path(report_of) / SWEEP_SETTINGS_FILE).exists():
        raise YambError(_not_a_sweep(report_of))  # said before Optuna loads (seconds)
    import optuna

    from evolution.sweeps.study import SweepError

    optuna.logging.set_verbosity(optuna.logging.ERROR)  # a failed trial's error ends the sweep in one line
    if words[:1] == ["report"]:
        if len(words) != 2:
            raise SweepError("usage: yamb sweep report DIR")
        given = _not_for_report(args)
        if given:
            raise SweepError(f"yamb sweep report takes DIR, --top and --storage, not --{given[0]}")
        return report(args, words[1])
    if len(words) > 1:
        raise SweepError(f"one sweep directory, not {len(words)}: {' '.join(words)}")
    return sweep(args, None if not words else str(options.output_dir(words[0])))


def _not_for_report(args: argparse.Namespace) -> list[str]:
    """The options given that only a sweep takes, not its report."""
    given = [name for name in ("trials", "workers", "pruner", "seed", "recipe", "preset") if getattr(args, name) is not None]
    return given + ["set"] * bool(args.set)


def sweep(args: argparse.Namespace, directory: str | None) -> int:
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from evolution.config import parse_assignments
    from evolution.sweeps.study import SweepError, hide_password, settle_settings, storage_failures
    from evolution.sweeps.sweep import run_sweep

    _old_preset(args)
    path = Path(directory or f"sweeps/{args.recipe or 'quick'}")
    fixed = parse_assignments(args.set)
    if args.preset is not None:
        if "game" in fixed:
            raise SweepError(f"--preset {args.preset} and --set game={fixed['game']} both set the game; give it once")
        fixed["game"] = args.preset
    settings = settle_settings(path, {"recipe": args.recipe, "pruner": args.pruner, "seed": args.seed,
                                      "storage": args.storage}, fixed)
    trials = DEFAULT_TRIALS if args.trials is None else args.trials
    console = Console()
    fixed_text = "".join(f", {key}={value}" for key, value in settings.space.settings.items())
    show(console, f"sweep {path}: recipe {settings.recipe}{fixed_text}, pruner {settings.pruner}, "
                  f"seed {settings.seed}, study {settings.study!r} in {hide_password(settings.storage or str(path / 'sweep.db'))}")
    columns = (TextColumn("[bold]trials"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.description}"))
    try:
        with storage_failures(settings.storage or str(path / "sweep.db")), \
                Progress(*columns, console=console, disable=not console.is_terminal) as progress:
            task = progress.add_task("", total=trials)
            said = [-1]  # the finished trials a line was printed for, off a terminal

            def advance(finished: int, note: str) -> None:
                progress.update(task, completed=finished, description=note)
                if not console.is_terminal and finished != said[0]:  # a log: a line as it starts, and as each trial ends
                    said[0] = finished
                    show(console, f"trials {finished}/{trials}: {note}")

            study = run_sweep(path, settings, trials, args.workers or 1, advance)
    except KeyboardInterrupt:
        console.print(f"interrupted; continue with: yamb sweep {path} --trials {trials}")
        raise
    print_best(console, study, args.top)
    console.print(f"plots and the full table: yamb sweep report {path}")
    return 0


def _old_preset(args: argparse.Namespace) -> None:
    """``--preset RECIPE``, the spelling before ``--recipe``: read as ``--recipe`` with a one-line note."""
    from evolution.sweeps.space import SPACES
    from evolution.sweeps.study import SweepError

    if args.preset in SPACES:
        if args.recipe is not None:
            raise SweepError(f"--preset names the game, not a search space like {args.preset!r}; "
                             "give the space once, as --recipe")
        options.note("sweep", f"--preset {args.preset} is read as --recipe {args.preset} "
                              "(--preset names the game: yamb, jamb6, yatzy or yahtzee)")
        args.recipe, args.preset = args.preset, None


def print_best(console, study, top: int) -> None:
    """The trial counts and a table of the best complete trials."""
    from rich.table import Table

    from evolution.sweeps.report import best_trials, state_counts, trial_row

    counts = ", ".join(f"{n} {state}" for state, n in sorted(state_counts(study).items()))
    table = Table(title=f"study {study.study_name}: {counts}")
    rows = [trial_row(trial) for trial in best_trials(study, top)]
    for row in rows:  # a parameter a line, each whole (no "es_learning_rate=0.0" / "0189")
        row[3] = row[3].replace(" ", "\n")
    widest = max((len(line) for row in rows for line in row[3].splitlines()), default=10)
    for name, justify in (("trial", "right"), ("mean score", "right"), ("gens", "right"),
                          ("parameters", "left"), ("run directory", "left")):  # 80 columns hold them
        table.add_column(name, justify=justify, overflow="fold", no_wrap=name in ("mean score", "gens"),
                         min_width=widest if name == "parameters" else None)
    for row in rows:
        table.add_row(*row)
    console.print(table)


def report(args: argparse.Namespace, directory: str) -> int:
    from pathlib import Path

    from rich.console import Console

    from evolution.sweeps.report import PLOTS_DIR, best_trials, write_plots
    from evolution.sweeps.study import SweepError, open_study, read_settings, settle_settings, storage_failures
    from evolution.sweeps.sweep import RUN_DIR

    path = Path(directory)
    settings = read_settings(path)
    if settings is None:
        raise SweepError(_not_a_sweep(directory))
    if args.storage is not None:  # the sweep's storage with its password (sweep.json keeps none)
        settings = settle_settings(path, {"storage": args.storage})
    console = Console()
    with storage_failures(settings.storage or str(path / "sweep.db")):  # a damaged database: one line
        study = open_study(path, settings)
        print_best(console, study, args.top)
        best = best_trials(study, 1)
        if best:
            run_dir = path / best[0].user_attrs[RUN_DIR]
            show(console, f"best trial {best[0].number}; run it again with: "
                          f"yamb evolve --config {run_dir / 'config.toml'} --out runs/sweep-best")
        plots = write_plots(study, path / PLOTS_DIR)
    for name, where in plots.items():
        console.print(f"{name}: {where}")
    return 0


def _not_a_sweep(directory: str) -> str:
    """What ``yamb sweep report`` says of a directory without a sweep's settings."""
    from evolution.run_files import SWEEP_SETTINGS_FILE

    return f"{directory} is not a sweep directory (no {SWEEP_SETTINGS_FILE})"
