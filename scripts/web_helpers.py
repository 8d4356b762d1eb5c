"""Real parts for the web tests, the web benchmark and the screenshot script: a ``yamb serve`` process on 127.0.0.1 and a
free port (stopped by its pid), Debian's Chromium driven by Playwright, and a finished run directory."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"]
START_SECONDS = 900  # a cold numba cache compiles the engine's kernels first (minutes on a loaded machine)
STEP_MS = 900_000  # a page step's wait: a first move may compile kernels on a loaded machine; a hang still ends
VIEWPORT = {"width": 1440, "height": 980}  # the browser's window, unless a test sets another


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    process: subprocess.Popen
    url: str

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(self.url + path, timeout=START_SECONDS) as response:
            return json.loads(response.read())

    def post(self, path: str, body: dict | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else b""
        request = urllib.request.Request(self.url + path, data=data, method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=START_SECONDS) as response:
            return json.loads(response.read())

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the server by its pid (``SIGKILL`` for a crash)."""
        if self.process.poll() is None:
            os.kill(self.process.pid, sig)
        self.process.wait(timeout=30)


def start_server(db: Path, runs: Path | None = None, log: Path | None = None, args: tuple[str, ...] = ()) -> Server:
    """``python -m yamb serve`` on 127.0.0.1 and a free port (and ``args``), answering once it returns."""
    port = free_port()
    command = [sys.executable, "-m", "yamb", "serve", "--port", str(port), "--db", str(db), *args]
    if runs is not None:
        command += ["--runs", str(runs)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = open(log, "ab") if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    server = Server(process, f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + START_SECONDS
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"yamb serve exited with {process.returncode}")
        try:
            server.get("/api/options")
            return server
        except OSError:
            if time.monotonic() > deadline:
                server.stop(signal.SIGKILL)
                raise
            time.sleep(0.2)


@contextmanager
def serving(db: Path, runs: Path | None = None, args: tuple[str, ...] = ()):
    server = start_server(db, runs, args=args)
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def chromium(profile: Path, executable: str = "/usr/bin/chromium"):
    """A headless Chromium page with a fresh profile in ``profile``."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=STEP_MS)
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=executable, headless=True, args=CHROMIUM_FLAGS,
            viewport=VIEWPORT)
        # every wait of the page (a navigation, a click, an expectation) as long as a step's: a first game may
        # compile kernels on a loaded machine; a hang still ends
        context.set_default_timeout(STEP_MS)
        context.set_default_navigation_timeout(STEP_MS)
        try:
            yield context.new_page()
        finally:
            context.close()


def make_run(runs: Path, name: str = "yatzy-demo", generations: int = 40) -> Path:
    """A finished run directory: ``config.toml``, a ``logbook.csv`` and the shipped yatzy bot as ``best.pt``.

    The curve is made up (a rising mean); the weights are a real player's, written as ``yamb evolve`` writes them."""
    from evolution.run_files import BEST_FILE, CONFIG_FILE, LOGBOOK_FILE
    from robo_players.neural.bots import BOTS_DIR
    from robo_players.neural.files import load_weights, save_weights

    run = runs / name
    run.mkdir(parents=True)
    (run / CONFIG_FILE).write_text('game = "yatzy"\ncolumns = ["free"]\nplayer = "guided"\nalgorithm = "cma"\n'
                                   f"population = 50\ngenerations = {generations}\n")
    gen = np.arange(generations)
    avg = 238 + 7 * (1 - np.exp(-gen / 12))
    rows = ["gen,evals,avg,std,min,max,expectimax,seconds"]
    rows += [f"{g},50,{a:.3f},{2.5:.3f},{a - 6:.3f},{a + 4 - 2 * np.exp(-g / 8):.3f},{238.6:.3f},1.0"
             for g, a in zip(gen, avg)]
    (run / LOGBOOK_FILE).write_text("\n".join(rows) + "\n")
    save_weights(load_weights(BOTS_DIR / "yatzy-5d-free.safetensors"), run / BEST_FILE)
    return run


def play_my_turns(page, game_id: str, server, turns: int | None = None) -> int:
    """Play the person's turns through the page until the game ends (or ``turns`` are played): keep the
    first two dice and roll once when a roll is allowed, then write the dice in the first green cell.
    The number of turns played."""
    import re

    from playwright.sync_api import expect

    played = 0
    summary = page.get_by_test_id("summary")
    while turns is None or played < turns:
        fill = page.locator("button.fill").first
        announce = page.locator("button.announce").first
        ready = "button.fill, button.announce, [data-testid=summary]:not([hidden])"
        expect(page.locator(ready).first).to_be_visible(timeout=STEP_MS)
        if summary.is_visible():
            break
        state = server.get(f"/api/games/{game_id}")
        if state["can_roll"] and state["roll"] == 1:
            page.get_by_test_id("die-0").click()
            page.get_by_test_id("die-1").click()
            expect(page.get_by_test_id("die-0")).to_have_class(re.compile("kept"))
            page.get_by_test_id("roll").click()
            expect(page.get_by_test_id("roll-counter")).to_contain_text("roll 2 of", timeout=STEP_MS)
            continue
        moves = state["moves"]
        (fill if fill.count() else announce).click()
        page.wait_for_function(f"() => game && game.moves > {moves}", timeout=STEP_MS)
        if fill.count() == 0 and state["must_announce"]:
            continue
        played += 1
    return played
