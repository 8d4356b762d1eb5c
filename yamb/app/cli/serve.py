"""``yamb serve``: the web page and its JSON API (``yamb.app.web``) on uvicorn."""

from __future__ import annotations

import argparse

from yamb.app.cli import options
from yamb.app.cli.options import arg

HELP = "serve the web page to play the bots and watch evolution runs"
KEEP_ALIVE_SECONDS = 60


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=arg(options.integer(0, 65535)), default=8000, help="port (default 8000)")
    parser.add_argument("--db", default=None, metavar="FILE", type=arg(options.output_file),
                        help="SQLite file of the games (default: games.sqlite3 under the user's data directory, "
                             "$XDG_DATA_HOME/yamb or ~/.local/share/yamb)")
    parser.add_argument("--runs", default=None, metavar="DIR",
                        help="directory of evolution runs to show and play (e.g. runs); none by default")
    parser.add_argument("--max-open-games", type=arg(options.integer(1, 1_000_000)), default=1000, help="unfinished games kept at most (default 1000)")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from yamb.errors import YambError

    if args.runs is not None and not Path(args.runs).is_dir():
        raise YambError(f"--runs {args.runs} is not a directory")

    import sqlite3

    try:
        import uvicorn

        from yamb.app.web import Settings, create_app, default_db
    except ImportError as error:
        raise YambError(f"yamb serve needs the web extra ({error.name} is missing): "
                        "pip install -e '.[web]'") from None

    db = Path(args.db) if args.db else default_db()
    try:
        app = create_app(Settings(db=db, runs=None if args.runs is None else Path(args.runs),
                                  max_open_games=args.max_open_games))
    except (sqlite3.Error, OSError) as error:
        raise YambError(f"--db {db}: {error}") from None
    print(f"yamb serve: http://{args.host}:{args.port}/ (games in {db})", flush=True)
    # keep-alive longer than uvicorn's 5 s: a busy client that sends its next request late must not
    # find the connection closed under it
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", timeout_keep_alive=KEEP_ALIVE_SECONDS)
    return 0
