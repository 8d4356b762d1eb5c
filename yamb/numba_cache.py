"""Where numba keeps its compiled kernels: a folder named after the project's source code.

numba's on-disk cache checks only the file of the cached function, so a kernel
that calls an edited function of another module would run its stale compiled
code. Here the cache folder is named after a hash of every source file of the
packages that hold compiled code or the tables it reads: any edit to them
(or an upgrade) starts a fresh folder and nothing stale is ever loaded. The
applications (``yamb_app``: the CLI, the terminal game, the web app) and
``evolution`` hold none, so editing them recompiles nothing (a test keeps them
free of compiled code). Folders unused for a week are removed. A ``NUMBA_CACHE_DIR`` set by
the user is left alone.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

PACKAGES = ("yamb", "expected_scores", "robo_players")
KEEP_SECONDS = 7 * 24 * 3600


def source_digest(root: Path) -> str:
    """A short hash of the names and contents of every ``.py`` file of the packages under ``root``."""
    digest = hashlib.blake2b(digest_size=8)
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/yamb/numba`` (default ``~/.cache/yamb/numba``)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "yamb" / "numba"


def _prune(root: Path, keep: Path) -> None:
    """Remove the cache folders under ``root``, other than ``keep``, unused for a week."""
    now = time.time()
    for folder in root.iterdir():
        try:
            if folder != keep and now - folder.stat().st_mtime > KEEP_SECONDS:
                shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue


def configure() -> None:
    """Point numba's cache at this source tree's folder (before any kernel is defined)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    root = cache_root()
    folder = root / source_digest(Path(__file__).resolve().parent.parent)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
        _prune(root, folder)
    except OSError:
        return  # an unwritable home: numba's default (next to the sources) still works
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba imported before us: its settings are already read
        config.CACHE_DIR = str(folder)
