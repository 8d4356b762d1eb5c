"""``yamb export``: the best player of a run as a pt, safetensors, onnx or npz file, with metadata."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from robo_players.neural.networks import NetSpec

from yamb_app.cli import options
from yamb_app.cli.options import arg

HELP = "export a run's best player (weights and metadata) as pt, safetensors, onnx or npz"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="RUN_DIR", help="a run directory of yamb evolve (or a weights file)")
    parser.add_argument("--format", required=True, choices=("pt", "safetensors", "onnx", "npz"),
                        help="file format")
    parser.add_argument("--out", metavar="FILE", type=arg(options.output_file), help="output file (default RUN_DIR/best.<format>)")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from evolution.run_files import BEST_FILE
    from robo_players.neural.files import WeightsFileError, load_weights, save_weights

    source = Path(args.source)
    if not source.exists():
        raise options.ArgumentError(f"no such run directory or weights file: {source}")
    weights_file = source / BEST_FILE if source.is_dir() else source
    if source.is_dir() and not weights_file.is_file():
        raise WeightsFileError(_not_a_finished_run(source))
    weights = load_weights(weights_file)
    if source.is_dir():
        _check_run(source, weights_file, weights.spec)
    out = Path(args.out) if args.out else weights_file.with_suffix(f".{args.format}")
    save_weights(weights, out, args.format)
    spec = weights.spec
    print(f"wrote {out} ({args.format}): {spec.kind} player for {spec.table.describe()}, "
          f"{weights.genome.size:,} weights, fitness {weights.info.get('fitness', float('nan')):.1f}")
    if args.format == "onnx":
        from robo_players.neural.onnx_meta import sidecar_path

        print(f"wrote {sidecar_path(out)}: what a program outside Python needs (docs/neural_players.md)")
    return 0


def _not_a_finished_run(folder: Path) -> str:
    """Why ``folder`` (without a ``best.pt``) cannot be exported: a run not finished, a folder of runs, or another folder."""
    from evolution.run_files import BEST_FILE, CONFIG_FILE

    if (folder / CONFIG_FILE).is_file():
        return f"{folder}: no {BEST_FILE} yet (the run has not finished; continue it with yamb evolve --resume {folder})"
    runs = sorted(p.name for p in folder.iterdir() if (p / CONFIG_FILE).is_file())
    if runs:
        return (f"{folder} is a folder of {len(runs)} run{'s' * (len(runs) > 1)}, not a run: name one, "
                f"e.g. yamb export {folder / runs[-1]} --format ...")
    return f"{folder} is not a run directory of yamb evolve (no {CONFIG_FILE}, no {BEST_FILE})"


def _check_run(run_dir: Path, weights_file: Path, spec: NetSpec) -> None:
    """Refuse a run directory whose ``best.pt`` is not the network its ``config.toml`` evolves."""
    from evolution.config import EvolveConfig, read_toml, with_settings
    from evolution.run_files import CONFIG_FILE
    from evolution.state import net_spec
    from robo_players.neural.files import WeightsFileError

    config_file = run_dir / CONFIG_FILE
    if not config_file.is_file():
        return
    run = net_spec(with_settings(EvolveConfig(), read_toml(config_file)))

    def shape(s: NetSpec) -> tuple:
        return s.kind, s.preset, s.columns, s.dice, s.joker, s.hidden

    def describe(s: NetSpec) -> str:
        return f"a {s.kind} network (hidden {list(s.hidden)}) for {s.table.describe()}"

    if shape(spec) != shape(run):
        raise WeightsFileError(f"{weights_file} holds {describe(spec)}, but {config_file} evolves {describe(run)}")
