"""``yamb score``: the score of dice in one row."""

from __future__ import annotations

import argparse

from yamb.errors import InvalidDiceError, shown
from yamb_app.cli.options import ArgumentError, add_rules_arguments, rules_from, whole_number

HELP = "print the score of dice in a row, e.g. yamb score full_house 2 2 3 3 3"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules_arguments(parser, files=False)
    parser.add_argument("row", help="row name, e.g. full_house")
    parser.add_argument("values", nargs="+", metavar="DIE", help="the dice values, 1 to 6")


def run(args: argparse.Namespace) -> int:
    rules = rules_from(args)
    values = []
    for text in args.values:
        try:
            values.append(whole_number(text))
        except ArgumentError:
            raise InvalidDiceError(f"die value {shown(text)} is not an integer from 1 to 6") from None
    print(rules.score(args.row, values))
    return 0
