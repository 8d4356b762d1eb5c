"""``yamb fit``: a stronger search-guided network by policy iteration on the returns of play.

A player (``best`` by default, any player or weights file) plays games; at
every fill the table, the cell and the points scored from there to the end
are recorded, and a guided network over the exact column values is fitted to
them (``robo_players.training.returns``); the fitted player records the next
round. The result is an ordinary weights file (``--player FILE``, ``yamb
compare``, ``yamb play --bot``, ``yamb evolve --init``), checked at the end
against the start on fresh games, paired game by game.
"""

from __future__ import annotations

import argparse

from yamb_app.cli import options
from yamb_app.cli.options import add_table_arguments, arg
from yamb_app.cli.training import (
    add_round_arguments,
    add_td_lambda_argument,
    add_training_arguments,
    check_fit,
    save_network,
    say_check,
    start_training,
)

HELP = "fit a search-guided network to the returns of play, round by round (policy iteration)"
MAX_GAMES = 400_000  # games recorded per round: about 50 fills of 120 float32 features each (24 KB a game)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_table_arguments(parser)
    add_round_arguments(parser, games=60_000, most_games=MAX_GAMES)
    parser.add_argument("--decay", type=arg(options.fraction), default=1e-2,
                        help="L2 penalty on the value outputs' weights, from 0 to below 1 (default 0.01)")
    add_td_lambda_argument(parser, 1.0, "once")
    add_training_arguments(parser, hidden=(32,), epochs=6, batch_size=1024, rate=2e-3, threads=2)


def run(args: argparse.Namespace) -> int:
    import time

    from rich.console import Console

    from robo_players.neural.build import network_player
    from robo_players.neural.guided import feature_cell_values, solved_kinds
    from robo_players.neural.networks import NetSpec
    from robo_players.search.row_means import DEFAULT_PLAYED
    from robo_players.training.kept_rounds import drop_rounds, keep_round, kept_rounds, options_of, partial_path
    from robo_players.training.returns import FitSettings, improve
    from yamb_app.cli.lines import show
    from yamb_app.cli.rounds import rounds_progress
    from yamb_app.cli.stopping import say_stopped, stop_on_sigterm

    layout, start = start_training(args, args.start)
    spec = NetSpec.for_layout("guided", layout, args.hidden, played=DEFAULT_PLAYED, exact=solved_kinds(layout))
    settings = FitSettings(epochs=args.epochs, batch_size=args.batch_size, learning_rate=args.learning_rate,
                           decay=args.decay, validation=args.validation, seed=args.seed,
                           td_lambda=args.td_lambda)
    fit_options = options_of(vars(args))  # what decides the rounds: a later run must give the same
    kept = kept_rounds(args.out, fit_options)
    console = Console(stderr=True)
    started = time.perf_counter()
    try:
        with stop_on_sigterm(), rounds_progress(console, args.games) as (say, advance):
            cell_values = feature_cell_values(layout)
            genome, policy = None, start
            if kept is not None:
                genome = kept.arrays["genome"]
                policy = network_player(spec, genome, cell_values, f"fitted-{kept.rounds}")
                say(f"going on after round {kept.rounds}/{args.rounds}, kept in {partial_path(args.out)}")
            done = 0 if kept is None else kept.rounds
            last, _, _ = improve(spec, policy, args.games, args.rounds, settings, say=say, advance=advance, done=done,
                                 round_done=lambda r, g: keep_round(args.out, fit_options, r, {"genome": g}))
            genome = last if last is not None else genome
            fitted = network_player(spec, genome, cell_values, str(args.out))
            ours, theirs, diff = check_fit(args, layout, fitted, start, say)
    except KeyboardInterrupt as stop:
        return say_stopped("fit", stop, args.out, args.rounds)
    save_network(args, spec, genome, cell_values, fitness=float(ours.mean()), run_preset=f"fit-{start.name}",
                 generation=args.rounds, games=args.games * args.rounds)
    drop_rounds(args.out)
    out = Console()
    say_check(out, args, start, ours, theirs, diff)
    show(out, f"wrote {args.out}: guided network {list(args.hidden)} over exact columns "
              f"{', '.join(spec.exact) or 'none'}, {genome.size:,} weights, {time.perf_counter() - started:.0f} s; "
              f"play it: yamb play --preset {layout.rules.name} --bot {args.out}")
    return 0
