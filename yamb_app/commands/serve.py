"""``yamb serve``: the web page and its JSON API (``yamb_app.web``) on uvicorn.

The socket is bound here before anything is printed, so a port in use or an
unknown host is one line and exit code 2, and the address printed is the one
bound (the port ``--port 0`` got, an IPv6 address in brackets).
"""

from __future__ import annotations

import argparse

from yamb_app.cli import options
from yamb_app.cli.options import arg

HELP = "serve the web page to play the bots and watch evolution runs"
KEEP_ALIVE_SECONDS = 60
READ_SECONDS = 30
BACKLOG = 2048  # uvicorn's default


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=arg(options.integer(0, 65535)), default=8000,
                        help="port (default 8000; 0: any free port, printed)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="also answer requests addressed to NAME (a name of this machine, NAME:PORT for one port, "
                             "* for any); repeatable. By default only localhost, 127.0.0.1 and [::1] on the server's "
                             "port, and the --host given, are answered")
    parser.add_argument("--db", default=None, metavar="FILE", type=arg(options.output_file),
                        help="SQLite file of the games (default: games.sqlite3 under the user's data directory, "
                             "$XDG_DATA_HOME/yamb or ~/.local/share/yamb)")
    parser.add_argument("--runs", default=None, metavar="DIR",
                        help="directory of evolution runs to show and play (e.g. runs); none by default")
    parser.add_argument("--max-open-games", type=arg(options.integer(1, 1_000_000)), default=1000,
                        help="unfinished games kept at most (default 1000)")
    parser.add_argument("--max-open-per-client", type=arg(options.integer(1, 1_000_000)), default=50,
                        help="unfinished games one client (an IPv4 address, an IPv6 /64) may hold (default 50; "
                             "a game without a move is dropped an hour after it was made)")
    parser.add_argument("--read-timeout", type=arg(options.integer(1, 3600)), default=READ_SECONDS, metavar="SECONDS",
                        help=f"a request must arrive whole within SECONDS of its first byte, or its connection is "
                             f"closed (default {READ_SECONDS})")


def bind(host: str, port: int):
    """A listening TCP socket on ``host`` and ``port`` (an IPv4 address first when the name has both);
    a ``YambError`` naming the option when it cannot be had."""
    import socket

    from yamb.errors import YambError

    if not host.strip():
        raise YambError("--host is empty; name an address (127.0.0.1 for this machine only, 0.0.0.0 for every "
                        "IPv4 address)")
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as error:
        raise YambError(f"--host {host}: unknown host ({getattr(error, 'strerror', None) or error})") from None
    family, kind, protocol, _, address = min(found, key=lambda info: info[0] != socket.AF_INET)
    # an IPv6 socket as the system makes it (:: takes IPv4 too); the protocol named (TCP), so that asyncio sets
    # TCP_NODELAY on its connections (otherwise each answer waits ~40 ms for a delayed ACK)
    sock = socket.socket(family, kind, protocol or socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
        return sock
    except OSError as error:
        sock.close()
        import errno

        if error.errno == errno.EADDRINUSE:
            raise YambError(f"--port {port}: the port is in use on {host} (another server runs there; "
                            "pick another --port, or 0 for any free one)") from None
        option = "--port" if error.errno == errno.EACCES else "--host"
        raise YambError(f"{option} {host if option == '--host' else port}: cannot listen on {host} port {port} "
                        f"({error.strerror or error})") from None


def url_host(address: str) -> str:
    """An address as a URL names it: an IPv6 address in brackets."""
    return f"[{address}]" if ":" in address else address


def run(args: argparse.Namespace) -> int:
    import ipaddress
    import sys
    from pathlib import Path

    from yamb.errors import YambError

    if args.runs is not None and not Path(args.runs).is_dir():
        raise YambError(f"--runs {args.runs} is not a directory")

    if any(not name.strip() for name in args.allow_host):
        raise YambError("--allow-host is empty; name a host (yamb.lan, yamb.lan:443) or * for any")
    sock = bind(args.host, args.port)  # a bad host or port is said at once, before the app loads (seconds)
    try:
        import sqlite3

        try:
            import uvicorn

            from yamb_app.web import Settings, create_app, default_db
            from yamb_app.web.guards import LOOPBACK_NAMES
            from yamb_app.web.slow_clients import with_read_deadline
            from yamb_app.web.store import NotAGamesDatabase
        except ImportError as error:
            raise YambError(f"yamb serve needs the web extra ({error.name} is missing): "
                            "pip install -e '.[web]'") from None
        db = Path(args.db) if args.db else default_db()
        address, port = sock.getsockname()[:2]
        bound = ipaddress.ip_address(address.split("%")[0])
        hosts = {f"{name}:{port}" for name in (*LOOPBACK_NAMES, url_host(args.host.lower()))}
        hosts.update(name.lower() for name in args.allow_host)
        try:
            app = create_app(Settings(db=db, runs=None if args.runs is None else Path(args.runs),
                                      max_open_games=args.max_open_games,
                                      max_open_per_client=args.max_open_per_client, hosts=frozenset(hosts), port=port,
                                      ip_literals=not bound.is_loopback))
        except NotAGamesDatabase as error:
            raise YambError(f"--db {error}") from None
        except (sqlite3.Error, OSError) as error:
            raise YambError(f"--db {db}: {error}") from None
        problems = app.state.games.store.problems
        if problems:
            print(f"yamb serve: warning: --db {db} is damaged ({problems[0]}); games in its damaged parts answer "
                  "500 with the reason, the others play on", file=sys.stderr, flush=True)
        if not bound.is_loopback:
            print(f"yamb serve: warning: listening on {url_host(address)}, not only this machine: anyone who can "
                  f"reach port {port} can start and play games and read the runs (there are no accounts)",
                  file=sys.stderr, flush=True)
        print(f"yamb serve: http://{url_host(args.host)}:{port}/ (games in {db})", flush=True)
        # keep-alive longer than uvicorn's 5 s: a busy client that sends its next request late must not
        # find the connection closed under it; a request that does not arrive whole in time is cut off
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_keep_alive=KEEP_ALIVE_SECONDS,
                                               http=with_read_deadline(args.read_timeout)))
        server.run(sockets=[sock])
    finally:
        sock.close()
    return 0 if server.started else 2
