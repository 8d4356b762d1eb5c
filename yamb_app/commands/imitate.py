"""``yamb imitate``: train a direct network (no search at play time) to play like a teacher.

The teacher (any player: ``best``, ``expectimax``, a weights file) plays
games; at every decision the network's features, legal choices and the
teacher's move are recorded (``robo_players.training.demonstrations``), and the
network is trained by cross-entropy (``robo_players.training.imitation``),
optionally for more rounds on games it plays itself, labelled by the teacher
(DAgger). The result is an ordinary weights file: ``--player FILE``,
``yamb compare``, ``yamb play --bot`` and ``yamb evolve --recipe
direct-imitation --init FILE`` (or ``--player direct --init FILE``) read it.
"""

from __future__ import annotations

import argparse

from yamb_app.cli import options
from yamb_app.cli.options import add_table_arguments, arg
from yamb_app.cli.training import add_training_arguments, save_network, start_training

HELP = "train a direct network to imitate a teacher player (a warm start for yamb evolve --init)"
MAX_GAMES = 1_000_000  # games recorded per round: about 160 decisions of 200 float32 features each


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_table_arguments(parser)
    parser.add_argument("--teacher", default="best", help="player to imitate: a player name or a weights file (default best)")
    parser.add_argument("--games", type=arg(options.integer(1, MAX_GAMES)), default=10_000,
                        help="games recorded per round (default 10000)")
    parser.add_argument("--dagger", type=arg(options.integer(0, 100)), default=0,
                        help="more rounds on games the network plays, labelled by the teacher (default 0)")
    parser.add_argument("--cell-games", type=arg(options.games), default=2000,
                        help="teacher games whose mean final cells become the network's cell values (default 2000)")
    parser.add_argument("--check-games", type=arg(options.games), default=1000,
                        help="fresh games played by the result at the end (default 1000)")
    add_training_arguments(parser, hidden=(64,), epochs=10, batch_size=512, rate=3e-3, threads=1)


def run(args: argparse.Namespace) -> int:
    import time
    from types import SimpleNamespace

    import numpy as np
    from rich.console import Console

    from robo_players.neural.networks import NetSpec
    from robo_players.training.imitation import TrainSettings, imitate, training_split
    from robo_players.training.kept_rounds import drop_rounds, keep_round, kept_rounds, options_of, partial_path
    from yamb_app.cli.lines import show
    from yamb_app.cli.rounds import rounds_progress
    from yamb_app.cli.stopping import say_stopped, stop_on_sigterm

    layout, teacher = start_training(args, args.teacher)
    spec = NetSpec.for_layout("direct", layout, args.hidden)
    settings = TrainSettings(epochs=args.epochs, batch_size=args.batch_size, learning_rate=args.learning_rate,
                             validation=args.validation, seed=args.seed)
    # the split of round 0's games (numbered 0 .. games-1), drawn now: a share that leaves none to train on
    # is refused before any game is played
    training_split(SimpleNamespace(game=np.arange(args.games)), settings.validation, settings.seed)
    fit_options = options_of(vars(args))  # what decides the rounds: a later run must give the same
    kept = kept_rounds(args.out, fit_options)
    weights = [] if kept is None else [kept.arrays[f"round{r}"] for r in range(kept.rounds)]
    console = Console()
    started = time.perf_counter()
    try:
        with stop_on_sigterm(), rounds_progress(console, args.games) as (say, advance):

            def epoch_done(result) -> None:
                validation = ("no validation games" if np.isnan(result.val_loss) else
                              f"validation loss {result.val_loss:.4f}  top choice {100 * result.val_top_accuracy:.1f}%  "
                              f"keep {100 * result.val_keep_accuracy:.1f}%")
                say(f"epoch {result.epoch:>3}/{args.epochs}  train loss {result.train_loss:.4f}  {validation}")

            if kept is not None:
                say(f"going on after round {kept.rounds - 1} (of rounds 0 to {args.dagger}), kept in "
                    f"{partial_path(args.out)}: the games of the rounds kept are recorded again, not trained on again")
            result = imitate(spec, teacher, args.games, settings, dagger=args.dagger, cell_games=args.cell_games,
                             check_games=args.check_games, say=say, advance=advance, epoch_done=epoch_done,
                             kept=weights, round_done=lambda reached: keep_round(
                                 args.out, fit_options, len(reached), {f"round{r}": g for r, g in enumerate(reached)}))
    except KeyboardInterrupt as stop:
        return say_stopped("imitate", stop, args.out, args.dagger + 1)

    scores = result.check_scores
    sem = f" ± {scores.std(ddof=1) / np.sqrt(len(scores)):.2f}" if len(scores) > 1 else ""
    save_network(args, spec, result.genome, result.cell_values, fitness=float(scores.mean()),
                 run_preset=f"imitate-{teacher.name}", generation=0, games=args.games * (args.dagger + 1))
    drop_rounds(args.out)
    show(console, f"on {len(scores):,} fresh games: {scores.mean():.2f}{sem} (teacher {teacher.name}: "
                  f"{result.teacher_mean:.2f} on the recorded games); {time.perf_counter() - started:.0f} s")
    show(console, f"wrote {args.out}: direct network {list(args.hidden)}, {result.genome.size:,} weights; "
                  f"evolve on with: yamb evolve --recipe direct-imitation --hidden {','.join(map(str, args.hidden))} "
                  f"--init {args.out}")
    return 0
