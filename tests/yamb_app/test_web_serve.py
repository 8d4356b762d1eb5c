"""``yamb serve`` starting up: what it prints, what it refuses in one line (exit code 2), what it binds.

Each server is a real ``python -m yamb serve`` on the loopback, stopped by its pid. The bind to every
address (``0.0.0.0``, ``::``) runs in a network namespace whose only interface is the loopback
(``tests/servers.py``), so it is reachable from nowhere else.
"""

from __future__ import annotations

import http.client
import os
import re
import selectors
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.servers import loopback_network

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 600  # a deadline against a hang, not a measure: a cold start imports torch and the engine


def serve(*args: str, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "yamb", "serve", *args], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def refused(*args: str, cwd: Path) -> str:
    """Run ``yamb serve ARGS`` expecting a refusal: exit code 2, one line on stderr, nothing on stdout."""
    done = subprocess.run([sys.executable, "-m", "yamb", "serve", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=START_SECONDS, check=False)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1, (done.stdout, done.stderr)
    assert done.stderr.startswith("yamb serve: error: ")
    return done.stderr


def lines_until_url(process: subprocess.Popen) -> tuple[str, list[str]]:
    """The URL line the server prints on stdout, and the lines it printed on stderr before it."""
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    selector.register(process.stderr, selectors.EVENT_READ)
    errors = []
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        for key, _ in selector.select(timeout=1):
            line = key.fileobj.readline()
            if key.fileobj is process.stdout and line:
                return line.strip(), errors
            if line:
                errors.append(line.strip())
        if process.poll() is not None:
            raise AssertionError(f"yamb serve ended ({process.returncode}): {errors}")
    raise AssertionError(f"yamb serve printed no address in {START_SECONDS} s: {errors}")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
    process.wait(timeout=60)


def status(address: str, port: int, host: str) -> int:
    connection = http.client.HTTPConnection(address, port, timeout=60)
    try:
        connection.request("GET", "/api/options", headers={"host": host})
        return connection.getresponse().status
    finally:
        connection.close()


def test_an_empty_host_or_allowed_name_is_refused(tmp_path):
    assert "--host is empty" in refused("--host", "", "--db", str(tmp_path / "g.sqlite3"), cwd=tmp_path)
    assert "--host is empty" in refused("--host", " ", "--db", str(tmp_path / "g.sqlite3"), cwd=tmp_path)
    assert "--allow-host is empty" in refused("--allow-host", "", "--db", str(tmp_path / "g.sqlite3"), cwd=tmp_path)


def test_a_port_in_use_and_an_unknown_host_are_one_line(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        message = refused("--port", str(port), "--db", str(tmp_path / "g.sqlite3"), cwd=tmp_path)
        assert f"--port {port}: the port is in use" in message
    assert "--host no-such-host.invalid: unknown host" in refused(
        "--host", "no-such-host.invalid", "--db", str(tmp_path / "g.sqlite3"), cwd=tmp_path)


def test_an_empty_database_file_is_refused(tmp_path):
    (tmp_path / "g.sqlite3").write_bytes(b"")
    message = refused("--port", "0", "--db", str(tmp_path / "g.sqlite3"), cwd=tmp_path)
    assert "empty file (0 bytes)" in message
    assert (tmp_path / "g.sqlite3").stat().st_size == 0


@pytest.mark.parametrize("host,address", [("127.0.0.1", "127.0.0.1"), ("localhost", "127.0.0.1"), ("::1", "::1")])
def test_port_zero_prints_the_port_it_got(tmp_path, host, address):
    if ":" in address:
        try:
            socket.create_server((address, 0), family=socket.AF_INET6).close()
        except OSError:
            pytest.skip("no IPv6 loopback here")
    process = serve("--host", host, "--port", "0", "--db", str(tmp_path / "g.sqlite3"), cwd=tmp_path)
    try:
        url, errors = lines_until_url(process)
        shown = f"[{host}]" if ":" in host else host
        match = re.fullmatch(rf"yamb serve: http://{re.escape(shown)}:(\d+)/ \(games in .*\)", url)
        assert match and errors == [], (url, errors)
        port = int(match.group(1))
        assert port != 0
        assert status(address, port, f"{shown}:{port}") == 200
    finally:
        stop(process)


def test_every_address_is_warned_and_names_are_checked(tmp_path):
    """``--host 0.0.0.0`` and ``--host ::`` (in a namespace with only the loopback): a one-line warning,
    the address printed as a URL names it, IP addresses answered, a domain only when allowed."""
    with loopback_network():
        for host, shown in (("0.0.0.0", "0.0.0.0"), ("::", "[::]")):
            process = serve("--host", host, "--port", "0", "--allow-host", "yamb.example",
                            "--db", str(tmp_path / "g.sqlite3"), cwd=tmp_path)
            try:
                url, errors = lines_until_url(process)
                port = int(re.fullmatch(rf"yamb serve: http://{re.escape(shown)}:(\d+)/ .*", url).group(1))
                assert len(errors) == 1 and errors[0].startswith("yamb serve: warning: listening on ")
                assert "not only this machine" in errors[0]
                assert status("127.0.0.1", port, f"127.0.0.1:{port}") == 200
                assert status("127.0.0.1", port, f"10.1.2.3:{port}") == 200
                assert status("127.0.0.1", port, f"[2001:db8::5]:{port}") == 200
                assert status("127.0.0.1", port, f"yamb.example:{port}") == 200
                assert status("127.0.0.1", port, f"evil.example:{port}") == 421
                assert status("127.0.0.1", port, f"10.1.2.3:{port + 1}") == 421
            finally:
                stop(process)


def test_a_damaged_database_is_named_at_start_up(tmp_path):
    """A database whose index lost a row (a flipped byte found by SQLite's integrity check) is served, with a
    one-line warning that names the damage; its games answer as before or refuse with a reason."""
    import random

    from fastapi.testclient import TestClient

    from yamb_app.web import Settings, create_app
    from yamb_app.web.store import GameStore, NotAGamesDatabase

    whole = tmp_path / "whole.sqlite3"
    with TestClient(create_app(Settings(db=whole))) as client:
        for _ in range(30):
            client.post("/api/games", json={"preset": "yatzy", "seats": [{"name": "a", "bot": "greedy"}]})
    data, rng, damaged = whole.read_bytes(), random.Random(29), tmp_path / "damaged.sqlite3"
    for _ in range(2000):
        flipped = bytearray(data)
        flipped[rng.randrange(4096, len(data))] ^= 1 << rng.randrange(8)
        damaged.write_bytes(bytes(flipped))
        try:
            store = GameStore(damaged)
        except (NotAGamesDatabase, sqlite3.DatabaseError):
            continue  # a copy refused outright is not the case looked for here
        store.close()
        if store.problems:
            break
    else:
        pytest.fail("no flipped byte that SQLite's integrity check finds")
    process = serve("--port", "0", "--db", str(damaged), cwd=tmp_path)
    try:
        _, errors = lines_until_url(process)
        assert len(errors) == 1 and f"--db {damaged} is damaged ({store.problems[0]})" in errors[0], errors
    finally:
        stop(process)


def test_the_socket_is_tcp_so_answers_are_not_delayed():
    """The listening socket names its protocol: asyncio sets TCP_NODELAY only on a socket whose protocol is
    TCP, and without it each answer waited for the client's delayed ACK (~40 ms a request)."""
    from yamb_app.commands.serve import bind

    sock = bind("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()
