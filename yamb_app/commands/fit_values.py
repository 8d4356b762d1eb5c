"""``yamb fit-values``: a state-value network for Yatzy or Yahtzee, fitted to its own play.

Fitted value iteration (``robo_players.training.value_fit``): each round the
network's player plays games (a share of fills at random), and the network is
fitted to the exact one-turn expectation of every turn start met, over its own
values of the next states. The solver is not consulted. The result is a values
file (``.npz``) played by exact turn planning over the network's values:
``best-values`` when shipped in ``robo_players/bots/values/``.
"""

from __future__ import annotations

import argparse

from yamb.errors import YambError
from yamb_app.cli import options
from yamb_app.cli.options import arg

HELP = "fit a state-value network (Yatzy, Yahtzee) to its own play by fitted value iteration"
PRESETS = ("yatzy", "yahtzee")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", default="yatzy", metavar="GAME", help="the game: yatzy (default) or yahtzee (one free column; not yamb or jamb6)")
    parser.add_argument("--joker", default=None, help="yahtzee joker rule: free (default) or forced")
    parser.add_argument("--rounds", type=arg(options.integer(1, 10_000)), default=40,
                        help="rounds: play, then fit to the one-turn expectations (default 40)")
    parser.add_argument("--games", type=arg(options.integer(1, 1_000_000)), default=2000,
                        help="games played per round (default 2000)")
    parser.add_argument("--explore", type=arg(options.fraction), default=0.1,
                        help="share of fills made at random while fitting (default 0.1)")
    parser.add_argument("--memory", type=arg(options.integer(1, 1000)), default=4,
                        help="rounds of turn starts kept and refitted (default 4)")
    parser.add_argument("--hidden", type=arg(options.layer_sizes), default=(256, 256),
                        help="hidden layer sizes, comma-separated (default 256,256)")
    parser.add_argument("--epochs", type=arg(options.integer(1, 10_000)), default=4,
                        help="passes over the kept turn starts per round (default 4)")
    parser.add_argument("--learning-rate", type=arg(options.learning_rate), default=1e-3,
                        help="Adam's in the first round, decaying tenfold by the last (default 0.001)")
    parser.add_argument("--seed", type=arg(options.seed), default=0, help="seed of every random choice (default 0)")
    parser.add_argument("--threads", type=arg(options.threads), default=1,
                        help="torch and numba threads (default 1; the result depends on it)")
    parser.add_argument("--out", metavar="FILE", type=arg(options.output_file), required=True,
                        help="values file to write (.npz)")


def run(args: argparse.Namespace) -> int:
    import json
    import time
    from dataclasses import asdict

    import numpy as np
    from rich.console import Console

    from robo_players.neural.state_values import predict
    from robo_players.neural.value_nets import SUFFIX, ValueSpec, net_of, save_values, state_arrays
    from robo_players.threads import use_threads
    from robo_players.training.kept_rounds import drop_rounds, keep_round, kept_rounds, options_of, partial_path
    from robo_players.training.value_fit import FitSettings, FitState, fit_values
    from yamb.rules import rules
    from yamb_app.cli.lines import show
    from yamb_app.cli.stopping import say_stopped, stop_on_sigterm

    if args.preset not in PRESETS:
        raise YambError(f"fit-values fits one free column of {' or '.join(PRESETS)}, not {args.preset}")
    if args.out.suffix != SUFFIX:
        raise YambError(f"{args.out}: a values file is written as {SUFFIX}, not {args.out.suffix or 'no suffix'}")
    joker = rules(args.preset, joker=args.joker).joker
    use_threads(args.threads)
    spec = ValueSpec(args.preset, joker, tuple(args.hidden))
    settings = FitSettings(rounds=args.rounds, games=args.games, explore=args.explore, memory=args.memory,
                           epochs=args.epochs, lr=args.learning_rate, final_lr=args.learning_rate / 10,
                           seed=args.seed)
    err = Console(stderr=True)
    started = time.perf_counter()

    def progress(r) -> None:
        show(err, f"round {r.round + 1}/{args.rounds}: start value {r.start_value:.2f}, mean score "
                  f"{r.mean_score:.2f} (exploring), fit error {r.loss ** 0.5:.3f} on {r.states:,} turn starts, "
                  f"{r.seconds:.0f} s")

    def keep(k: int, state: FitState) -> None:
        arrays = {**{f"net.{name}": a for name, a in state_arrays(state.net).items()},
                  **{f"buffer{i}": states for i, states in enumerate(state.buffer)},
                  "rng": np.frombuffer(json.dumps(state.rng).encode(), dtype=np.uint8)}
        keep_round(args.out, fit_options, k, arrays)

    fit_options = options_of(vars(args))  # what decides the rounds: a later run must give the same

    kept = kept_rounds(args.out, fit_options)
    state = None
    if kept is not None:
        net = net_of(spec, {k[4:]: a for k, a in kept.arrays.items() if k.startswith("net.")})
        state = FitState(net, json.loads(kept.arrays["rng"].tobytes()),
                         [kept.arrays[f"buffer{i}"] for i in range(sum(k.startswith("buffer") for k in kept.arrays))])
    show(err, f"fitting a value network for {args.preset}: {args.rounds} rounds of {args.games:,} games, "
              f"a line after each" + ("" if kept is None else f"; going on after round {kept.rounds}, kept in "
                                                              f"{partial_path(args.out)}"))
    try:
        with stop_on_sigterm():
            net, _ = fit_values(spec, settings, progress=progress, done=0 if kept is None else kept.rounds,
                                state=state, round_done=keep)
    except KeyboardInterrupt as stop:
        return say_stopped("fit-values", stop, args.out, args.rounds)
    seconds = time.perf_counter() - started
    start_value = float(predict(net, spec.rules(), *np.zeros((3, 1), dtype=np.int64))[0])  # the empty sheet
    save_values(args.out, net, spec, {"settings": asdict(settings), "threads": args.threads,
                                      "start_value": start_value})  # no wall time: the same fit, the same bytes
    drop_rounds(args.out)
    show(Console(), f"wrote {args.out}: value network {list(args.hidden)}, start value {start_value:.2f}, "
                    f"{args.rounds} round{'s' * (args.rounds > 1)} of {args.games:,} game{'s' * (args.games > 1)}, {seconds:.0f} s; play it: "
                    f"yamb compare {args.out} expectimax --preset {args.preset}")
    return 0
