"""numba's cache locator for this project's kernels: filed by their module's place in the tree.

numba files a cached kernel under a hash of its source file's absolute path, so
a copy of the same sources elsewhere (another clone or worktree, the packages
installed from a wheel) compiles everything anew. In this tree's cache folder
(``yamb.numba_cache``: named after the digest of every source file, so the
files in it are always of these sources) ``TreeLocator`` files a kernel of
``robo_players/search/turn.py`` under ``robo_players/search`` instead. numba
imports this module when it first caches a kernel (``NUMBA_CACHE_LOCATOR_CLASSES``).
"""

from __future__ import annotations

import os
from pathlib import Path

from numba.core import config
from numba.core.caching import UserProvidedCacheLocator

from yamb.numba_cache import PACKAGES, ROOT, tree_folder


class TreeLocator(UserProvidedCacheLocator):
    """The user's-folder locator with the subfolder named after the module's place in the tree; it
    declines (numba's own locators follow) outside this tree's cache folder or its packages."""

    def __init__(self, py_func: object, py_file: str, place: tuple[str, ...]) -> None:
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(config.CACHE_DIR, *place)

    @classmethod
    def from_function(cls, py_func: object, py_file: str) -> TreeLocator | None:
        if config.CACHE_DIR != str(tree_folder()):
            return None
        folder = Path(py_file).resolve().parent
        if not folder.is_relative_to(ROOT) or folder.relative_to(ROOT).parts[:1] not in [(p,) for p in PACKAGES]:
            return None
        self = cls(py_func, py_file, folder.relative_to(ROOT).parts)
        try:
            self.ensure_cache_path()
        except OSError:
            return None
        return self
