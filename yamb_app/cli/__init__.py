"""The ``yamb`` command-line program, over its subcommands (``yamb_app.commands``, one module each),
and the helpers they share (options, progress lines, stopping).

A ``YambError`` (bad input) becomes a one-line message and
exit code 2; so do an operating-system error (a full disk, a path of the wrong kind),
running out of memory, and a missing optional package (the line names the extra that
installs it), named in one line instead of a traceback. A command that plays says so
on stderr when numba starts compiling (``compiling.py``).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from contextlib import nullcontext

from yamb.errors import YambError
from yamb_app.cli.compiling import watch
from yamb_app.cli.options import Parser
from yamb_app.cli.stopping import stop_on_sigterm, stopped

QUICK = ("score",)  # commands that compile nothing (and start without numba)
# commands that take SIGTERM as a stop (one line, exit code 143) from their start, imports included; their
# own blocks say what they kept
STOPPABLE = ("evolve", "imitate", "fit", "fit-values", "fit-afterstates")
COMMANDS = ("score", "simulate", "bench", "play", "expected-scores", "solve", "compare", "match", "evolve", "imitate", "fit", "fit-values", "fit-afterstates", "export", "sweep", "serve", "review")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="yamb", description="Yamb, Yatzy and Yahtzee: engine, solver, players and evolution."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"yamb_app.commands.{name.replace('-', '_')}")
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(run=module.run, parser=command)
    return parser


def _version() -> str:
    """This project's installed version (``pyproject.toml``), or ``unknown`` when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("yamb-evolution")
    except PackageNotFoundError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    try:
        with stop_on_sigterm():
            parser = build_parser()
            args, unknown = parser.parse_known_args(argv)
            if unknown:  # named by the subcommand, whose --help lists its options
                args.parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as done:  # --help, or a bad argument (its one-line error is printed)
        return int(done.code or 0)
    except KeyboardInterrupt as stop:
        how, code = stopped(stop)
        print(f"yamb: {how} while starting", file=sys.stderr)
        return code
    if args.command not in QUICK:
        watch(args.command)
    try:
        with stop_on_sigterm() if args.command in STOPPABLE else nullcontext():
            return int(args.run(args) or 0)
    except ModuleNotFoundError as error:
        extra = extra_of(error.name or "")
        if extra is None:
            raise
        return _fail(args.command, f"this needs the {extra} extra ({error.name} is not installed): "
                                   f"pip install -e '.[{extra}]'")
    except YambError as error:
        return _fail(args.command, str(error))
    except OSError as error:
        where = "".join(f": {name}" for name in (error.filename, error.filename2) if name is not None)
        return _fail(args.command, f"{error.strerror or error}{where}")
    except MemoryError:
        return _fail(args.command, "out of memory; ask for fewer games, smaller batches or smaller networks")
    except KeyboardInterrupt as stop:  # a stop the command did not take itself (while it starts, say)
        how, code = stopped(stop)
        print(f"yamb {args.command}: {how}", file=sys.stderr)
        return code


def extra_of(module: str) -> str | None:
    """The optional extra of this project (``pyproject.toml``) that installs ``module``, or None."""
    from importlib.metadata import PackageNotFoundError, requires

    try:
        needs = requires("yamb-evolution") or []
    except PackageNotFoundError:
        return None
    top = module.partition(".")[0].replace("_", "-").lower()
    for need in needs:
        found = re.match(r"\s*([A-Za-z0-9_.-]+)[^;]*;.*extra\s*==\s*['\"]([^'\"]+)['\"]", need)
        if found and found[1].replace("_", "-").lower() == top and found[2] != "test":
            return found[2]
    return None


def _fail(command: str, message: str) -> int:
    print(f"yamb {command}: error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
