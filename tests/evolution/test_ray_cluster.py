"""A real two-node Ray cluster on 127.0.0.1: a node killed in the middle of a generation loses nothing."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.evolution.test_backends import assert_same_run
from tests.servers import ray_cluster
from yamb_app.cli import main

pytestmark = pytest.mark.slow  # a two-node Ray cluster, one node killed


# two chunks of 4 networks x 600 games: each takes a few seconds on a node
RUN = ["--recipe", "quick", "--generations", "3", "--seed", "4", "--population", "8", "--games", "600",
       "--final-games", "100", "--hidden", "4"]
GENERATION_LINE = re.compile(r"^gen\s+(\d+)/")


def test_a_node_killed_in_the_middle_of_a_generation_changes_nothing(tmp_path: Path) -> None:
    seen: dict[int, float] = {}  # generation -> when its line was printed
    with ray_cluster() as cluster, open(tmp_path / "stderr.txt", "w+") as err:
        command = [sys.executable, "-m", "yamb", "evolve", *RUN, "--backend", "ray", "--workers", "2",
                   "--ray-address", cluster.address, "--out", str(tmp_path / "ray")]
        driver = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True,
                                  env={**cluster.env, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"})
        try:
            for line in driver.stdout:
                if match := GENERATION_LINE.match(line):
                    seen[int(match[1])] = time.monotonic()
                    if len(seen) == 1:
                        time.sleep(0.5)  # generation 2 is under way: its tasks were handed out at once
                        killed_at = time.monotonic()
                        cluster.kill_worker_node()
            assert driver.wait(60) == 0
        finally:
            if driver.poll() is None:
                driver.kill()
                driver.wait()
            err.seek(0)
            errors = err.read()
            print(errors)
    assert seen[1] < killed_at < seen[2]  # the node died during generation 2
    assert "lost a Ray worker" in errors
    assert main(["evolve", *RUN, "--workers", "1", "--out", str(tmp_path / "one")]) == 0
    assert_same_run(tmp_path / "one", tmp_path / "ray")
