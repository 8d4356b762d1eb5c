"""What the commands that train a network on recorded games (``imitate``, ``fit``) share: their
options, the set-up before the first round and the weights file at the end."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from yamb_app.cli import options
from yamb_app.cli.options import arg, layout_from

if TYPE_CHECKING:  # the commands start without numpy, torch and the players
    from collections.abc import Callable

    import numpy as np
    from rich.console import Console

    from robo_players.base import Player
    from robo_players.neural.networks import NetSpec
    from yamb.layout import Layout


def add_training_arguments(parser: argparse.ArgumentParser, hidden: tuple[int, ...], epochs: int, batch_size: int,
                           rate: float, threads: int) -> None:
    """The options of a command that trains a network on recorded games (``imitate``, ``fit``),
    with its defaults: layers, epochs, minibatch, Adam's rate, validation share, seed, threads, output."""
    parser.add_argument("--hidden", type=arg(options.layer_sizes), default=hidden,
                        help=f"hidden layer sizes, comma-separated (default {','.join(map(str, hidden))})")
    parser.add_argument("--epochs", type=arg(options.integer(1, 10_000)), default=epochs,
                        help=f"epochs per round (default {epochs})")
    parser.add_argument("--batch-size", type=arg(options.integer(1, 1_000_000)), default=batch_size,
                        help=f"minibatch (default {batch_size})")
    parser.add_argument("--learning-rate", type=arg(options.learning_rate), default=rate, help=f"Adam's (default {rate:g})")
    parser.add_argument("--validation", type=arg(options.held_out), default=0.1,
                        help="share of the games held out for validation, from 0 to 0.5 (default 0.1)")
    parser.add_argument("--seed", type=arg(options.seed), default=0, help="seed of every random choice (default 0)")
    parser.add_argument("--threads", type=arg(options.threads), default=threads,
                        help=f"torch and numba threads (default {threads})")
    parser.add_argument("--out", metavar="FILE", type=arg(options.output_file), required=True,
                        help="weights file to write (.pt, .safetensors, .npz or .onnx)")


def add_round_arguments(parser: argparse.ArgumentParser, games: int, most_games: int) -> None:
    """The options of a command that fits in rounds of policy iteration (``fit``, ``fit-afterstates``):
    who records the first round, the games a round records, the rounds, the check's games."""
    parser.add_argument("--start", default="best",
                        help="player who records the first round: a player name or a file (default best)")
    parser.add_argument("--games", type=arg(options.integer(1, most_games)), default=games,
                        help=f"games recorded per round (default {games})")
    parser.add_argument("--rounds", type=arg(options.integer(1, 100)), default=2,
                        help="rounds: record, fit, and the fitted player records the next (default 2)")
    parser.add_argument("--check-games", type=arg(options.games), default=2000,
                        help="fresh games the result and the start play at the end, paired (default 2000)")


def add_td_lambda_argument(parser: argparse.ArgumentParser, default: float, refits: str) -> None:
    """``--td-lambda``: 1 fits the recorded returns; below 1 ``refits`` to TD(lambda) returns."""
    parser.add_argument("--td-lambda", type=arg(options.unit_interval), default=default,
                        help=f"1: fit the returns as recorded; below 1: refit {refits} to TD(lambda) returns, "
                             f"the previous fit's values standing in for later turns' luck (default {default:g})")


def start_training(args: argparse.Namespace, player: str) -> tuple[Layout, Player]:
    """The table of ``args`` and the ``player`` who records the first round, once the output's
    format is known to be writable and torch and numba have their threads."""
    from robo_players.neural.files import format_of
    from robo_players.registry import make_player
    from robo_players.threads import use_threads

    format_of(args.out)  # an unknown suffix fails now, not after the training
    use_threads(args.threads)
    layout = layout_from(args, named=(player,))
    return layout, make_player(player, layout)


def save_network(args: argparse.Namespace, spec: NetSpec, genome: np.ndarray, cell_values: np.ndarray,
                 fitness: float, run_preset: str, generation: int, games: int) -> None:
    """Write the trained network to ``args.out``, with what it scored and how it was made."""
    from robo_players.neural.files import NeuralWeights, save_weights

    info = {"fitness": fitness, "seed": args.seed, "run_preset": run_preset, "generation": generation, "games": games}
    save_weights(NeuralWeights(spec, genome, cell_values, info), args.out)


def check_fit(args: argparse.Namespace, layout: Layout, fitted: Player, start: Player,
              say: Callable[[str], None]) -> tuple[np.ndarray, np.ndarray, dict]:
    """The fitted player and the start on ``args.check_games`` fresh games, the same dice for both:
    their scores and the paired difference."""
    from robo_players.training.check import check_fitted

    say(f"check: {args.check_games:,} fresh games, the fitted player and {start.name} on the same dice")
    return check_fitted(layout, fitted, start, args.check_games, args.seed)


def say_check(out: Console, args: argparse.Namespace, start: Player, ours: np.ndarray, theirs: np.ndarray,
              diff: dict) -> None:
    """The check's verdict (``check_fit``), in a line."""
    from yamb_app.cli.lines import show

    verdict = "better" if diff["mean"] > 0 and diff["p"] < 0.05 else "worse" if diff["p"] < 0.05 else "no clear difference"
    show(out, f"on {args.check_games:,} fresh games: fitted {ours.mean():.2f}, {start.name} {theirs.mean():.2f}; "
              f"difference {diff['mean']:+.2f} ± {diff['sem']:.2f} (p = {diff['p']:.2g}): {verdict}")
