"""Where a generation's games are played: the ``toolbox.map`` of each backend.

Every backend maps ``play_task`` over the same tasks (one chunk of the
population per worker, see ``evolution.algorithms.play``) and returns the
outcomes in order; the dice come from counter-based streams, so the results
do not depend on the backend, the number of workers, nor on which worker
plays which task.

``processes`` (the default)
    ``--workers 1``: the builtin ``map`` in this process; more: a pool of
    spawned worker processes on this machine, which end with the run's
    process however it ends (``evolution.processes``); Ctrl-C stops them at once.
``ray``
    A pool of long-lived Ray actors, one CPU each, ``--workers`` of them. An
    actor compiles the numba kernels and builds the tables once, then plays
    task after task. Each task (its genomes and cell values) is put into
    Ray's object store once per generation; an actor gets it from there and
    sends back only the outcome (scores and cell sums). An actor lost with
    its process or its node: its task is played again by another actor (the
    same task, so the same result), and a new actor is started in its place
    wherever the cluster has a free CPU. Without ``--ray-address`` a local
    Ray instance is started for the run (``--workers`` CPUs, no dashboard, a
    small object store) and shut down at its end; with one, the run joins
    that cluster and leaves it running.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import random
import signal
import socket
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

from evolution.config import ConfigError, EvolveConfig
from evolution.evaluate import init_worker
from evolution.processes import QUIET_SPAWN, end_with_parent

CLUSTER_EXTRA = 'pip install -e ".[cluster]"'
OBJECT_STORE_BYTES = 128 * 2**20  # a local Ray's object store: a generation's tasks take well under 1 MB
CONNECT_SECONDS = 5.0  # how long a cluster's address gets to accept a connection
START_SECONDS = 600.0  # how long a generation waits for a worker when none is alive

Map = Callable[[Callable, Iterable], list]
log = logging.getLogger(__name__)


@contextmanager
def backend_map(config: EvolveConfig) -> Iterator[Map]:
    """The map function of ``config``'s backend, for as long as the run needs it."""
    if config.backend == "ray":
        with ray_session(config.workers, config.ray_address) as ray:
            with keep_random_states():
                pool = ActorPool(ray, config.workers, config.threads)
            try:
                yield pool.map
            finally:
                pool.close()
    elif config.workers > 1:
        before = set(multiprocessing.active_children())
        with ProcessPoolExecutor(config.workers, mp_context=QUIET_SPAWN, initializer=start_worker,
                                 initargs=(os.getpid(), config.threads)) as pool:
            try:
                yield lambda function, items: list(pool.map(function, items))
            except BaseException:  # Ctrl-C or an error: stop the generation's tasks now, not after them
                for process in set(multiprocessing.active_children()) - before:  # the pool's workers
                    process.terminate()
                raise
    else:
        yield lambda function, items: list(map(function, items))


def start_worker(parent: int, threads: int) -> None:
    """A pool worker: it ends with the run's process, whatever ended that, and leaves Ctrl-C (which a
    terminal sends to every process of its group) to it: started with SIGINT blocked, it ignores it.
    When the pool lets it go, it ends at once (``exit_now``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    atexit.register(exit_now)  # first registered, so it runs last: the other exit functions still run
    end_with_parent(parent)
    init_worker(threads)


def exit_now() -> None:
    """End a pool worker without the interpreter's teardown: torch's and numba's modules take 1 to 2 s
    of CPU to tear down (4 s a worker on a busy machine, which the pool's shutdown waits for), and a
    worker has nothing left to save (its results are sent, its output flushed)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


@contextmanager
def keep_random_states() -> Iterator[None]:
    """Restore Python's global random state after Ray's calls: the run's selection (DEAP) draws
    from it, and Ray's start-up draws from it too."""
    state = random.getstate()
    try:
        yield
    finally:
        random.setstate(state)


def import_ray() -> Any:
    """The ``ray`` module, or a ``ConfigError`` naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(f"--backend ray needs Ray, which is not installed: {CLUSTER_EXTRA}") from None
    return ray


def check_reachable(address: str) -> None:
    """A ``ConfigError`` unless ``address`` (``HOST:PORT``, ``ray://HOST:PORT``; not ``auto``) accepts a connection."""
    if address == "auto":
        return
    host, _, port = address.split("://")[-1].rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(f"ray_address {address!r} is not HOST:PORT (the head node's GCS address, e.g. 10.0.0.1:6379)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS).close()
    except OSError as error:
        raise ConfigError(f"cannot reach the Ray cluster at {address}: {error.strerror or error}") from None


@contextmanager
def ray_session(workers: int, address: str) -> Iterator[Any]:
    """Ray, joined to the cluster at ``address``, or to a local instance of ``workers`` CPUs started
    (and at the end shut down) here."""
    ray = import_ray()
    if address:
        check_reachable(address)
        options = dict(address=address)
    else:
        options = dict(num_cpus=workers, include_dashboard=False, object_store_memory=OBJECT_STORE_BYTES)
    try:
        with keep_random_states():
            ray.init(**options, log_to_driver=False, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError, ray.exceptions.RayError) as error:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise ConfigError(f"cannot start or join {where}: {str(error).splitlines()[0]}") from None
    try:
        yield ray
    finally:
        with keep_random_states():
            ray.shutdown()


class Player:
    """A Ray actor: a long-lived process that plays tasks (numba kernels compiled, tables built, once)."""

    def __init__(self, threads: int) -> None:
        init_worker(threads)

    def ready(self) -> bool:
        return True

    def run(self, function: Callable, item: object) -> object:
        return function(item)


class ActorPool:
    """``workers`` Player actors; ``map`` hands each item to the next free actor and plays an item
    again on another actor when its actor (process or node) is lost."""

    def __init__(self, ray: Any, workers: int, threads: int) -> None:
        self.ray = ray
        self.threads = threads
        self.actor_class = ray.remote(num_cpus=1, max_restarts=0)(Player)
        self.idle: list = []
        self.starting: dict = {}  # the ``ready`` call of an actor not yet placed -> the actor
        self.lost = 0  # actors lost so far
        self.failure = ""  # why the last actor that failed to start did
        for _ in range(workers):
            self._start_actor()

    def _start_actor(self) -> None:
        actor = self.actor_class.remote(self.threads)
        self.starting[actor.ready.remote()] = actor

    def _started(self, ref: Any) -> None:
        """An actor answered (or failed) its ``ready`` call."""
        actor = self.starting.pop(ref)
        try:
            self.ray.get(ref)
        except self.ray.exceptions.RayActorError as error:  # not replaced: it would fail again
            self.failure = f"a Ray worker did not start: {str(error).splitlines()[0]}"
            return
        self.idle.append(actor)

    def map(self, function: Callable, items: Iterable) -> list:
        """``[function(item) for item in items]``, played by the actors."""
        with keep_random_states():
            return self._map(function, items)

    def _map(self, function: Callable, items: Iterable) -> list:
        ray = self.ray
        refs = [ray.put(item) for item in items]  # each item goes into the object store once
        results: list = [None] * len(refs)
        todo, running = deque(range(len(refs))), {}
        idle_since = time.monotonic()
        while todo or running:
            while todo and self.idle:
                actor, index = self.idle.pop(), todo.popleft()
                running[actor.run.remote(function, refs[index])] = (index, actor)
            if not running and (not self.starting or time.monotonic() - idle_since > START_SECONDS):
                raise ConfigError(self.failure or f"no Ray worker could start in {START_SECONDS:.0f} s: "
                                  "the cluster has no free CPU for one")
            done, _ = ray.wait([*running, *self.starting], num_returns=1, timeout=10.0)
            for ref in done:
                if ref in self.starting:
                    self._started(ref)
                    continue
                index, actor = running.pop(ref)
                try:
                    results[index] = ray.get(ref)
                except (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError) as error:
                    self.lost += 1
                    log.warning("lost a Ray worker (%s); its task runs again on another worker",
                                type(error).__name__)
                    ray.kill(actor)
                    todo.appendleft(index)
                    self._start_actor()  # placed wherever the cluster has a free CPU
                    continue
                self.idle.append(actor)
                idle_since = time.monotonic()
        return results

    def close(self) -> None:
        """Stop the actors (a joined cluster keeps running)."""
        with keep_random_states():
            self._kill_all()

    def _kill_all(self) -> None:
        for actor in [*self.idle, *self.starting.values()]:
            self.ray.kill(actor)
        self.idle, self.starting = [], {}
