"""Arguments shared by several subcommands: the rules and the table."""

from __future__ import annotations

import argparse

from yamb.layout import Layout, layout
from yamb.rules import Rules, rules


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", default="yamb", help="yamb, jamb6, yatzy or yahtzee (default yamb)")
    parser.add_argument("--dice", type=int, default=None, help="5 or 6 dice where the preset allows it")
    parser.add_argument("--joker", default=None, help="yahtzee joker rule: free (default) or forced")


def add_table_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules_arguments(parser)
    parser.add_argument(
        "--columns", default=None,
        help="comma-separated column kinds, e.g. down,up,free,announce (default: the preset's table)",
    )


def rules_from(args: argparse.Namespace) -> Rules:
    return rules(args.preset, dice=args.dice, joker=args.joker)


def layout_from(args: argparse.Namespace, players: int = 1) -> Layout:
    columns = None if args.columns is None else [c.strip() for c in args.columns.split(",") if c.strip()]
    return layout(rules_from(args), columns, players)
