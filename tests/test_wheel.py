"""The wheel holds what the program needs and no more: built from the repository's files, installed into a fresh
virtual environment outside the repository, its ``yamb`` plays the shipped bots as the clone does (with the kernels
the clone compiled) and serves the web app, and it holds no tests, docs, lab data, scripts or earlier bots.

The environment reuses the heavy installed dependencies (``--system-site-packages``: torch, numba, fastapi, ...),
but the project itself comes only from the wheel: ``import yamb`` must resolve into the environment. Only the
``yamb`` command is used, so the test holds whichever modules the packages are made of."""

from __future__ import annotations

import json
import os
import shutil
import signal
import site
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
START_SECONDS = 1800  # the page's kernels may compile first: minutes on a busy machine
PROGRAM = "import sys; from yamb_app.program import main; sys.exit(main())"  # the clone's ``yamb``
RUN_SECONDS = 3600
LEFT_OUT = ("tests/", "docs/", "lab/", "scripts/", "bots/previous", "previous_bots")


def repository_files() -> list[Path]:
    """The files a clone holds (tracked, or new and not ignored), as they are in the working tree."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    return [Path(name) for name in listed if name and (ROOT / name).is_file()]


def outside_env(venv: Path) -> dict[str, str]:
    """The environment of the installed program: no PYTHONPATH into the repository, the venv's bin first."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=RUN_SECONDS)
    assert done.returncode == 0, f"{' '.join(command)}: exit {done.returncode}\n{done.stdout[-2000:]}\n" \
                                 f"{done.stderr[-4000:]}"
    return done.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(url, timeout=START_SECONDS) as response:
        return response.status, response.headers.get("content-type", ""), response.read()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(the wheel, the venv, a working directory outside the repository)."""
    if shutil.which("git") is None:
        pytest.skip("git lists the repository's files")
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    for name in repository_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    wheels = base / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(wheels), str(source)], base,
        dict(os.environ))
    (wheel,) = wheels.glob("yamb_evolution-*.whl")
    venv = base / "venv"
    run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], base, dict(os.environ))
    env = outside_env(venv)
    # run from a virtual environment (CI's .venv), the new one's "system" is the base Python's: the dependencies
    # come from this interpreter's site-packages, listed after the venv's own (their .pth files, such as an
    # editable install's, are not read)
    purelib = run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                  base, env).strip()
    (Path(purelib) / "yamb_test_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    # --ignore-installed: the project may be installed (editable) in the site-packages the venv sees; leave it be
    run([str(venv / "bin" / "python"), "-m", "pip", "install", "--no-deps", "--ignore-installed", "--no-index",
         str(wheel)], base, env)
    work = base / "work"
    work.mkdir()
    return wheel, venv, work


@pytest.mark.slow
def test_the_wheel_holds_the_program_and_no_lab_data(installed: tuple[Path, Path, Path]) -> None:
    wheel, _, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    strays = [n for n in names if any(part in n for part in LEFT_OUT)]
    assert not strays, strays[:20]
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert "yamb" in tops and "robo_players" in tops and "expected_scores" in tops, tops
    assert not {"lab", "docs", "tests", "scripts"} & tops, tops
    assert any(n.endswith(".safetensors") for n in names)  # the shipped bots
    assert any(n.endswith("expected_scores.csv") for n in names)  # the table the search reads
    assert not [n for n in names if n.endswith(("_us.csv", "one_roll_semicolon.csv"))]  # the tables' twins


@pytest.mark.slow
def test_the_installed_program_is_the_wheels(installed: tuple[Path, Path, Path]) -> None:
    _, venv, work = installed
    where = run([str(venv / "bin" / "python"), "-c", "import yamb, robo_players; print(yamb.__file__); "
                 "print(robo_players.__file__)"], work, outside_env(venv))
    for line in where.split():
        assert Path(line).resolve().is_relative_to(venv.resolve()), where
        assert not Path(line).resolve().is_relative_to(ROOT), where


@pytest.mark.slow
@pytest.mark.parametrize("player", ["best", "best-values"])
def test_the_installed_program_plays_the_shipped_bots_as_the_clone_does(installed: tuple[Path, Path, Path],
                                                                         player: str) -> None:
    """The same games as the clone's program, with the kernels the clone compiled: the same sources
    share numba's cache wherever they lie (``yamb.numba_locator``)."""
    _, venv, work = installed
    args = ["simulate", "--preset", "yamb", "--player", player, "--games", "20", "--seed", "1", "--json"]
    clone = json.loads(run([sys.executable, "-c", PROGRAM, *args], ROOT, dict(os.environ)))  # compiles them once
    done = subprocess.run([str(venv / "bin" / "yamb"), *args], cwd=work, env=outside_env(venv), capture_output=True,
                          text=True, timeout=RUN_SECONDS)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "compiling" not in done.stderr, done.stderr[-2000:]
    timings = ("seconds", "compile_seconds", "games_per_second")
    assert {k: v for k, v in json.loads(done.stdout).items() if k not in timings} == \
        {k: v for k, v in clone.items() if k not in timings}


@pytest.mark.slow
def test_the_installed_program_serves_the_page_and_the_api(installed: tuple[Path, Path, Path]) -> None:
    _, venv, work = installed
    port = free_port()
    log = work / "serve.log"
    with open(log, "wb") as out:
        server = subprocess.Popen([str(venv / "bin" / "yamb"), "serve", "--host", "127.0.0.1", "--port", str(port),
                                   "--db", str(work / "games.sqlite3")], cwd=work, env=outside_env(venv),
                                  stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            assert server.poll() is None, f"yamb serve exited with {server.returncode}: {log.read_text()[-3000:]}"
            try:
                status, kind, body = get(url + "/api/options")
                break
            except OSError:
                assert time.monotonic() < deadline, f"yamb serve did not answer: {log.read_text()[-3000:]}"
                time.sleep(0.5)
        assert status == 200 and "json" in kind, (status, kind)
        assert json.loads(body)
        status, kind, body = get(url + "/")
        assert status == 200 and "html" in kind, (status, kind)
        assert b"<html" in body.lower()
    finally:
        if server.poll() is None:
            os.kill(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.kill(server.pid, signal.SIGKILL)
            server.wait(timeout=60)
