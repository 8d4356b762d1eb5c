"""``yamb fit-afterstates``: a network's value of the table each fill leaves, fitted to the returns of play.

A player (``best`` by default) plays games; at each turn's start the base
search's values of that turn's and every later fill are summed, the rest of
the game beyond the base's estimate of the table, and a value network is
fitted to them, then refitted to TD(lambda) returns
(``robo_players.neural.afterstate_values``); its player, the
base search with each ending's next table valued by the network, records the
next round. The result is a values file (``yamb compare FILE``, ``yamb play
--bot FILE``), checked at the end against the start on fresh games, paired.
"""

from __future__ import annotations

import argparse

from yamb_app.cli import options
from yamb_app.cli.options import add_table_arguments, arg
from yamb_app.cli.training import add_round_arguments, add_td_lambda_argument

HELP = "fit a network's values of the tables fills leave to the returns of play, round by round"
MAX_GAMES = 400_000  # games recorded per round: about 50 turns of 120 float32 features each (24 KB a game)
SUFFIX = ".npz"
TD_LAMBDA, REFITS = 0.8, 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_table_arguments(parser)
    add_round_arguments(parser, games=80_000, most_games=MAX_GAMES)
    parser.add_argument("--hidden", type=arg(options.layer_sizes), default=(256, 256),
                        help="hidden layer sizes, comma-separated (default 256,256)")
    parser.add_argument("--epochs", type=arg(options.integer(1, 10_000)), default=6, help="epochs per fit (default 6)")
    add_td_lambda_argument(parser, TD_LAMBDA, "--refits times")
    parser.add_argument("--refits", type=arg(options.integer(1, 100)), default=None,
                        help=f"fits to TD(lambda) returns after the first, each from the previous, with "
                             f"--td-lambda below 1 (default {REFITS})")
    parser.add_argument("--learning-rate", type=arg(options.learning_rate), default=1e-3, help="Adam's (default 0.001)")
    parser.add_argument("--seed", type=arg(options.seed), default=0, help="seed of every random choice (default 0)")
    parser.add_argument("--threads", type=arg(options.threads), default=1,
                        help="torch and numba threads (default 1)")
    parser.add_argument("--out", metavar="FILE", type=arg(options.output_file), required=True,
                        help=f"values file to write ({SUFFIX})")


def run(args: argparse.Namespace) -> int:
    import time

    from rich.console import Console

    from robo_players.neural.afterstate_values import afterstate_player
    from robo_players.neural.guided import solved_kinds
    from robo_players.neural.value_nets import AFTERSTATE, ValueSpec, net_of, save_values, state_arrays
    from robo_players.search.row_means import DEFAULT_PLAYED
    from robo_players.training.afterstates import improve_afterstates
    from robo_players.training.imitation import TrainSettings
    from robo_players.training.kept_rounds import drop_rounds, keep_round, kept_rounds, options_of, partial_path
    from yamb.errors import YambError
    from yamb_app.cli.lines import show
    from yamb_app.cli.rounds import rounds_progress
    from yamb_app.cli.stopping import say_stopped, stop_on_sigterm
    from yamb_app.cli.training import check_fit, say_check, start_training

    if args.out.suffix != SUFFIX:
        raise YambError(f"{args.out}: a values file is written as {SUFFIX}, not {args.out.suffix or 'no suffix'}")
    if args.refits is not None and args.td_lambda == 1:
        raise YambError("--refits fits to TD(lambda) returns: give --td-lambda below 1 with it "
                        "(--td-lambda 1 fits the returns as recorded, once)")
    refits = 0 if args.td_lambda == 1 else REFITS if args.refits is None else args.refits
    layout, start = start_training(args, args.start)
    r = layout.rules
    spec = ValueSpec(r.name, r.joker, tuple(args.hidden), AFTERSTATE, tuple(layout.columns), r.n_dice,
                     DEFAULT_PLAYED, solved_kinds(layout))
    settings = TrainSettings(epochs=args.epochs, batch_size=1024, learning_rate=args.learning_rate, seed=args.seed)
    fit_options = options_of(vars(args))  # what decides the rounds: a later run must give the same
    kept = kept_rounds(args.out, fit_options)
    console = Console(stderr=True)
    started = time.perf_counter()
    try:
        with stop_on_sigterm(), rounds_progress(console, args.games) as (say, advance):
            net, policy = None, start
            if kept is not None:
                net = net_of(spec, kept.arrays)
                policy = afterstate_player(net, spec, layout, f"fitted-{kept.rounds}")
                say(f"going on after round {kept.rounds}/{args.rounds}, kept in {partial_path(args.out)}")
            done = 0 if kept is None else kept.rounds
            last = improve_afterstates(spec, policy, args.games, args.rounds, settings, args.td_lambda, refits,
                                       say=say, advance=advance, done=done,
                                       round_done=lambda r, n: keep_round(args.out, fit_options, r, state_arrays(n)))
            net = last if last is not None else net
            fitted = afterstate_player(net, spec, layout, args.out.stem)
            ours, theirs, diff = check_fit(args, layout, fitted, start, say)
    except KeyboardInterrupt as stop:
        return say_stopped("fit-afterstates", stop, args.out, args.rounds)
    check = {"fitted": float(ours.mean()), "start": float(theirs.mean()), **diff}
    save_values(args.out, net, spec, {"start": start.name, "games": args.games, "rounds": args.rounds,
                                      "td_lambda": args.td_lambda, "refits": refits, "seed": args.seed,
                                      "check": check})
    drop_rounds(args.out)
    out = Console()
    say_check(out, args, start, ours, theirs, diff)
    show(out, f"wrote {args.out}: after-state network {list(args.hidden)} over exact columns "
              f"{', '.join(spec.exact) or 'none'}, {time.perf_counter() - started:.0f} s; "
              f"play it: yamb play --preset {r.name} --bot {args.out}")
    return 0
