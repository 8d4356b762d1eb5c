"""``yamb expected-scores``: exact per-row expected scores, and the CSV tables that ship them."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from yamb_app.cli import options
from yamb_app.cli.options import arg

HELP = "exact expected score of every row (one roll; one optimal turn); --out DIR writes the CSV tables"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", default=None, help="yamb, jamb6, yatzy or yahtzee (default: all)")
    parser.add_argument("--out", type=arg(options.output_dir), default=None, help="write the CSV tables into this folder")
    parser.add_argument("--layout", choices=("project", "original"), default="project",
                        help="files in this project's layout (default) or the original Yamb project's "
                             "(Slot_Index;Slot_Name;Value;...; needs --out)")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from expected_scores.column import column_total
    from expected_scores.tables import compute, write
    from yamb.rules import rules

    presets = None if args.preset is None else [args.preset]
    if args.layout == "original":
        return _write_original(presets, args.out)
    tables = compute(presets)
    console = Console()
    df = tables["table"]
    for (preset, dice), group in df.groupby(["preset", "dice"], sort=False):
        values = group.pivot(index="row", columns="policy", values="value")
        r = rules(preset, int(dice))
        table = Table(title=f"{preset}, {dice} dice: expected score of each row played alone")
        for name in ("row", "one roll", f"one turn ({r.rolls} rolls)"):
            table.add_column(name, justify="left" if name == "row" else "right")
        for row in r.rows:
            table.add_row(row, f"{values.loc[row, 'roll']:.4f}", f"{values.loc[row, 'turn']:.4f}")
        totals = [column_total(r, rolls) for rolls in (1, r.rolls)]
        table.add_row("column total", *(f"{float(t['total']):.4f}" for t in totals))
        table.add_row("  without bonus", *(f"{float(t['total'] - t['bonus']):.4f}" for t in totals))
        console.print(table)
        console.print(f"  one-roll column total without bonus = {totals[0]['total'] - totals[0]['bonus']}")
    if args.out is not None:
        with no_empty_folder(args.out):
            for path in write(tables, args.out):
                console.print(f"wrote {path}")
    return 0


@contextmanager
def no_empty_folder(folder: Path) -> Iterator[None]:
    """A folder the block makes and writes into is removed again if the block fails before writing any
    file into it (a full disk: no empty tables folder is left behind)."""
    made = not folder.exists()
    try:
        yield
    except BaseException:
        if made and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
        raise


def _write_original(presets: list[str] | None, out: Path | None) -> int:
    from expected_scores.original_layout import write_original
    from expected_scores.tables import preset_dice
    from yamb.errors import YambError

    if out is None:
        raise YambError("--layout original writes files: give --out DIR")
    with no_empty_folder(out):
        for path in write_original(preset_dice(presets), out):
            print(f"wrote {path}")
    return 0
