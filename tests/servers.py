"""Real servers for the tests, on 127.0.0.1 only, started here and stopped by the pids started here.

``loopback_network``: a network namespace whose only interface is the
loopback, entered by the test for as long as Ray runs. Ray turns
``127.0.0.1`` into the machine's own address (its raylet and GCS listen on
every interface), so its tests run where no other address exists.
``ray_cluster``: a head node and a second node, each ``ray start ... --block``
in its own session with one CPU, its own ports and its own temporary
directory. ``postgres_server``: a PostgreSQL cluster made by ``initdb`` in a
temporary directory owned by the ``postgres`` user (the server refuses to
run as root), on a free port, its unix socket in that directory.
"""

from __future__ import annotations

import ctypes
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.programs import require_binary

START_SECONDS = 600.0  # a deadline against a hang, not a measure: servers start slowly on a loaded machine
OBJECT_STORE_BYTES = 100 * 2**20


CLONE_NEWNET = 0x40000000


def _setns(path: str) -> None:
    """Move this thread (and the processes it starts from now on) into the network namespace at ``path``."""
    fd = os.open(path, os.O_RDONLY)
    try:
        if ctypes.CDLL(None, use_errno=True).setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {path}: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)


@contextmanager
def loopback_network() -> Iterator[None]:
    """Run the block (and every process it starts) in a new network namespace with only ``lo`` up;
    skipped without ``ip`` or the right to make one, failed instead under ``YAMB_REQUIRE_SERVERS=1``."""
    ip = require_binary("ip")
    name = f"yamb-test-{os.getpid()}-{secrets.token_hex(3)}"
    made = subprocess.run([ip, "netns", "add", name], capture_output=True, text=True)
    if made.returncode != 0:
        import pytest

        message = f"cannot make a network namespace for Ray (root and iproute2 needed): {made.stderr.strip()}"
        if os.environ.get("YAMB_REQUIRE_SERVERS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    home = os.open(f"/proc/{os.getpid()}/task/{threading.get_native_id()}/ns/net", os.O_RDONLY)
    try:
        subprocess.run([ip, "-n", name, "link", "set", "lo", "up"], check=True, capture_output=True)
        _setns(f"/var/run/netns/{name}")
        try:
            yield
        finally:
            if ctypes.CDLL(None, use_errno=True).setns(home, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "cannot return to the test's network namespace")
    finally:
        os.close(home)
        subprocess.run([ip, "netns", "delete", name], capture_output=True)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (now)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(count: int) -> int:
    """The first of ``count`` consecutive free ports."""
    while True:
        base = free_port()
        if base + count < 65536 and all(_is_free(base + i) for i in range(count)):
            return base


def _is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def descendants(pid: int) -> list[int]:
    """Every living process below ``pid`` (children, their children, ...), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent = int(stat[stat.rindex(")") + 2:].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_tree(process: subprocess.Popen, sig: int = signal.SIGKILL) -> list[int]:
    """Send ``sig`` to ``process`` and every process below it (gathered first: orphans move away);
    returns the pids signalled."""
    pids = [process.pid, *descendants(process.pid)]
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        pass
    return pids


def wait_for(check, what: str, seconds: float = START_SECONDS, log: Path | None = None,
             process: subprocess.Popen | None = None) -> None:
    """Poll ``check`` until it is true; a timeout, or ``process`` ending first, names ``what`` and
    quotes the end of ``log``."""
    deadline = time.monotonic() + seconds
    while not check():
        ended = process is not None and process.poll() is not None
        if ended or time.monotonic() > deadline:
            tail = "".join(log.read_text(errors="replace").splitlines(True)[-15:]) if log and log.exists() else ""
            what += f" ended (exit code {process.returncode})" if ended else f" did not come up in {seconds:.0f} s"
            raise TimeoutError(what + (f"; its log ends:\n{tail}" if tail else ""))
        time.sleep(0.5)


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


@dataclass
class RayCluster:
    """A running two-node cluster: ``address`` to join, ``env`` for its drivers (the auth token)."""

    address: str
    env: dict[str, str]
    head: subprocess.Popen
    worker: subprocess.Popen
    logs: Path
    killed: list[int] = field(default_factory=list)

    def kill_worker_node(self) -> list[int]:
        """Kill the second node outright: its ``ray start``, raylet, and every worker process on it."""
        self.killed = kill_tree(self.worker)
        return self.killed


def _ray_node(ray: str, args: list[str], env: dict, temp_dir: Path, log: Path) -> subprocess.Popen:
    ports = free_ports(24)
    named = ["--node-manager-port", "--object-manager-port", "--dashboard-agent-listen-port",
             "--dashboard-agent-grpc-port", "--runtime-env-agent-port", "--metrics-export-port"]
    command = [ray, "start", *args, "--num-cpus", "1", "--node-ip-address", "127.0.0.1",
               "--temp-dir", str(temp_dir), "--object-store-memory", str(OBJECT_STORE_BYTES),
               "--disable-usage-stats", "--block",
               "--min-worker-port", str(ports + len(named)), "--max-worker-port", str(ports + 23)]
    for i, flag in enumerate(named):
        command += [flag, str(ports + i)]
    with open(log, "w") as out:
        return subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


@contextmanager
def ray_cluster() -> Iterator[RayCluster]:
    """A head node and a second node on 127.0.0.1, one CPU each; stopped (by pid) at the end."""
    ray = require_binary("ray")
    root = Path(tempfile.mkdtemp(prefix="yr"))  # short: Ray's unix sockets live below it
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
           # a lost node is noticed in about 3 s (health checks every second, 3 missed)
           "RAY_health_check_period_ms": "1000", "RAY_health_check_timeout_ms": "1000",
           "RAY_health_check_failure_threshold": "3", "RAY_USAGE_STATS_ENABLED": "0"}
    port = free_port()
    address = f"127.0.0.1:{port}"
    with ExitStack() as stack:
        stack.enter_context(loopback_network())
        stack.callback(shutil.rmtree, root, ignore_errors=True)
        head = _ray_node(ray, ["--head", "--port", str(port), "--include-dashboard=false"],
                         env, root / "head", root / "head.log")
        stack.callback(kill_tree, head)
        wait_for(lambda: _listening(port), f"the Ray head at {address}", log=root / "head.log", process=head)
        worker = _ray_node(ray, ["--address", address], env, root / "node2", root / "node2.log")
        stack.callback(kill_tree, worker)
        cluster = RayCluster(address, env, head, worker, root)
        wait_for(lambda: _nodes_alive(ray, address, env) == 2, "the second Ray node", log=root / "node2.log",
                 process=worker)
        yield cluster


def _nodes_alive(ray: str, address: str, env: dict) -> int:
    """How many nodes of the cluster at ``address`` are alive (``ray status``)."""
    done = subprocess.run([ray, "status", "--address", address], capture_output=True, text=True, env=env, timeout=60)
    active = done.stdout.split("Active:")[-1].split("Pending:")[0]
    return sum(1 for line in active.splitlines() if line.strip().startswith("1 node_"))


def postgres_binary(name: str) -> str:
    """A PostgreSQL server program (Debian keeps them in /usr/lib/postgresql/N/bin)."""
    found = shutil.which(name) or next(iter(sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True)),
                                       None)
    return str(found) if found else require_binary(name)


@contextmanager
def postgres_server() -> Iterator[str]:
    """A PostgreSQL server on 127.0.0.1 and a free port, run by ``postgres`` in a temporary directory it
    owns (its unix socket there too); yields the SQLAlchemy URL of its ``postgres`` database."""
    initdb, server = postgres_binary("initdb"), postgres_binary("postgres")
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    root = Path(tempfile.mkdtemp(prefix="yp"))
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, root, ignore_errors=True)
        if as_postgres:
            shutil.chown(root, "postgres", "postgres")
        data = root / "data"
        subprocess.run([*as_postgres, initdb, "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync",
                        "-E", "UTF8", "--locale", "C"], check=True, capture_output=True, timeout=120)
        port = free_port()
        with open(root / "server.log", "w") as log:
            process = subprocess.Popen(
                [*as_postgres, server, "-D", str(data), "-p", str(port), "-k", str(root),
                 "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=50"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        stack.callback(_stop_postgres, process)
        url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
        wait_for(lambda: _accepts(port), f"PostgreSQL on port {port} (log {root / 'server.log'})")
        yield url


def _accepts(port: int) -> bool:
    import psycopg

    try:
        psycopg.connect(f"host=127.0.0.1 port={port} user=postgres dbname=postgres", connect_timeout=2).close()
    except psycopg.OperationalError:
        return False
    return True


def _stop_postgres(process: subprocess.Popen) -> None:
    """A fast shutdown (SIGINT to the postmaster, the child of ``runuser``), then SIGKILL to what is left."""
    children = descendants(process.pid)
    postmaster = children[0] if process.args[0] == "runuser" and children else process.pid
    try:
        os.kill(postmaster, signal.SIGINT)
        process.wait(30)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    kill_tree(process)
