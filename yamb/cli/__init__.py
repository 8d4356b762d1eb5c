"""The ``yamb`` command-line program: one module per subcommand.

Each subcommand module defines ``HELP`` (one line), ``add_arguments(parser)``
and ``run(args) -> int``; heavy imports happen inside ``run`` so that the
program starts fast. A ``YambError`` (bad input) becomes a one-line message and
exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from yamb.errors import YambError

COMMANDS = ("score", "simulate", "bench", "play", "expected-scores", "solve", "compare", "evolve", "export", "sweep", "serve")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="yamb", description="Yamb, Yatzy and Yahtzee: engine, solver, players and evolution."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"yamb.cli.{name.replace('-', '_')}")
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except YambError as error:
        print(f"yamb {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"yamb {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
