"""``yamb export``: the best player of a run as a pt, safetensors, onnx or npz file, with metadata."""

from __future__ import annotations

import argparse

from yamb.cli import options
from yamb.cli.options import arg

HELP = "export a run's best player (weights and metadata) as pt, safetensors, onnx or npz"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="RUN_DIR", help="a run directory of yamb evolve (or a weights file)")
    parser.add_argument("--format", required=True, choices=("pt", "safetensors", "onnx", "npz"),
                        help="file format")
    parser.add_argument("--out", metavar="FILE", type=arg(options.output_file), help="output file (default RUN_DIR/best.<format>)")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from evolution.report import BEST_FILE
    from robo_players.neural.files import WeightsFileError, load_weights, save_weights

    source = Path(args.source)
    weights_file = source / BEST_FILE if source.is_dir() else source
    if source.is_dir() and not weights_file.is_file():
        raise WeightsFileError(f"{source}: no {BEST_FILE} yet (the run has not finished)")
    weights = load_weights(weights_file)
    out = Path(args.out) if args.out else weights_file.with_suffix(f".{args.format}")
    save_weights(weights, out, args.format)
    spec = weights.spec
    print(f"wrote {out} ({args.format}): {spec.kind} player for {spec.table_name()}, "
          f"{weights.genome.size:,} weights, fitness {weights.info.get('fitness', float('nan')):.1f}")
    return 0
