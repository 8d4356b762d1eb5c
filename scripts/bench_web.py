"""Load benchmark of ``yamb serve``: many bot-against-bot games played at once through the API.

Starts a server on 127.0.0.1 and a free port with a fresh database (stopped by
its pid at the end), creates ``--games`` games of two bots, then plays them all
at once, one client per game, each asking ``POST /api/games/{id}/bot`` until
its game is over. Bounded: it stops after ``--seconds`` whatever is left.
Prints moves per second, the p50 and p99 latency of one move, errors (answers
other than 200), dropped connections (asked again), the CPU time of the server
and of this client, and the load average, as JSON.

    python -m scripts.bench_web --games 200 --preset yatzy --bot best
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

from scripts.web_helpers import start_server


class Connection:
    """One keep-alive HTTP/1.1 connection, as plain as can be: the benchmark measures the server, and a
    full HTTP client spends more CPU per request than the server does."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Length: 0\r\n\r\n".encode())
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
        body = await self.reader.readexactly(int(headers["content-length"]))
        return int(lines[0].split()[1]), body

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


async def play(url: str, game_id: str, deadline: float, latencies: list[float], errors: list[str],
               dropped: list[str]) -> bool:
    """Ask for the bots' moves until the game is over (True) or the deadline passes (False)."""
    host, port = url.removeprefix("http://").split(":")
    connection = Connection(host, int(port))
    try:
        while time.monotonic() < deadline:
            start = time.perf_counter()
            try:
                status, body = await connection.post(f"/api/games/{game_id}/bot")
            except (OSError, asyncio.IncompleteReadError) as error:  # dropped: ask again on a new connection
                dropped.append(f"{type(error).__name__}: {error}")
                connection.close()
                continue
            latencies.append(time.perf_counter() - start)
            if status != 200:
                errors.append(f"{status}: {body[:200]!r}")
                return False
            if b'"over":true' in body:
                return True
        return False
    finally:
        connection.close()


async def bench(url: str, games: int, preset: str, bot: str, seconds: float) -> dict:
    async with httpx.AsyncClient(base_url=url, timeout=seconds) as client:
        ids = []
        for g in range(games):
            response = await client.post("/api/games", json={
                "preset": preset, "seed": g, "seats": [{"name": "a", "bot": bot}, {"name": "b", "bot": bot}]})
            response.raise_for_status()
            ids.append(response.json()["id"])
    latencies: list[float] = []
    errors: list[str] = []
    dropped: list[str] = []
    start = time.monotonic()
    finished = await asyncio.gather(*(play(url, i, start + seconds, latencies, errors, dropped) for i in ids))
    wall = time.monotonic() - start
    ms = np.array(latencies) * 1000
    return {
        "games": games, "finished": int(sum(finished)), "moves": len(latencies), "seconds": round(wall, 1),
        "moves_per_second": round(len(latencies) / wall, 1),
        "latency_ms": {"p50": round(float(np.percentile(ms, 50)), 1), "p99": round(float(np.percentile(ms, 99)), 1),
                       "max": round(float(ms.max()), 1)},
        "errors": len(errors), "first_errors": errors[:3],
        "dropped_connections": len(dropped), "first_dropped": dropped[:3],
    }


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games played at once (default 200)")
    parser.add_argument("--preset", default="yatzy", help="preset of every game (default yatzy)")
    parser.add_argument("--bot", default="best", help="the bot in both seats (default best)")
    parser.add_argument("--seconds", type=float, default=300, help="stop after this long (default 300)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        # every game from this one client: its share of the open games is all of them
        server = start_server(Path(tmp) / "bench.sqlite3", args=("--max-open-per-client", str(max(args.games, 1))))
        try:
            server_before = cpu_seconds(server.process.pid)
            client_before = resource.getrusage(resource.RUSAGE_SELF)
            result = asyncio.run(bench(server.url, args.games, args.preset, args.bot, args.seconds))
            client = resource.getrusage(resource.RUSAGE_SELF)
            result["cpu_seconds"] = {
                "server": round(cpu_seconds(server.process.pid) - server_before, 1),
                "client": round(client.ru_utime + client.ru_stime - client_before.ru_utime - client_before.ru_stime, 1)}
        finally:
            server.stop()
    result.update(preset=args.preset, bot=args.bot, command="python -m scripts.bench_web " + " ".join(
        sys.argv[1:] if argv is None else argv), load_average=[round(x, 2) for x in os.getloadavg()])
    print(json.dumps(result, indent=2))
    return 0 if result["errors"] == 0 and result["dropped_connections"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
