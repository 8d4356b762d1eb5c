"""Where numba keeps its compiled kernels: a folder named after the project's source code.

numba's on-disk cache checks only the file of the cached function, so a kernel
that calls an edited function of another module would run its stale compiled
code. Here the cache folder is named after a hash of every source file of the
packages that hold compiled code or the tables it reads: any edit to them
(or an upgrade) starts a fresh folder and nothing stale is ever loaded. Inside
it each kernel is filed by its module's place in the tree (``yamb.numba_locator``),
so every copy of the same sources shares the compiled kernels: another clone or
worktree, or the packages installed from a wheel. The
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
from functools import cache
from pathlib import Path

PACKAGES = ("yamb", "expected_scores", "robo_players")
KEEP_SECONDS = 7 * 24 * 3600
ROOT = Path(__file__).resolve().parent.parent  # the tree holding the packages
# numba's cache locators, ``yamb.numba_locator``'s first (numba imports it when it first caches a kernel)
LOCATORS = ("yamb.numba_locator.TreeLocator,UserProvidedCacheLocator,InTreeCacheLocator,UserWideCacheLocator,"
            "IPythonCacheLocator,ZipCacheLocator")


def source_digest(root: Path) -> str:
    """A short hash of the names and contents of every ``.py`` file of the packages under ``root``."""
    digest = hashlib.blake2b(digest_size=8)
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


@cache
def _tree_digest() -> str:
    return source_digest(ROOT)


def tree_folder() -> Path:
    """This tree's cache folder: ``cache_root()`` / the digest of its sources."""
    return cache_root() / _tree_digest()


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
    """Point numba's cache at this source tree's folder (before any kernel is defined), its kernels
    filed by their place in the tree. A process of the same sources (a child of this one) finds the
    folder already set; a folder chosen by the user is left alone."""
    folder = tree_folder()
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen and chosen != str(folder):
        return
    if not chosen:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            os.utime(folder)
            _prune(folder.parent, folder)
        except OSError:
            return  # an unwritable home: numba's default (next to the sources) still works
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = LOCATORS
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba imported before us: its settings are already read
        config.CACHE_DIR = str(folder)
        config.CACHE_LOCATOR_CLASSES = LOCATORS
