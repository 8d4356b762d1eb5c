"""The numba cache folder follows the source code, so no stale kernel is ever loaded."""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numba.core.config

from yamb import numba_cache


def _tree(root: Path) -> None:
    for package in numba_cache.PACKAGES:
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text(f"# {package}\n")
    (root / "yamb" / "kernels.py").write_text("def f():\n    return 1\n")


def test_any_edit_to_any_package_changes_the_folder(tmp_path: Path) -> None:
    _tree(tmp_path)
    before = numba_cache.source_digest(tmp_path)
    assert numba_cache.source_digest(tmp_path) == before
    (tmp_path / "robo_players" / "__init__.py").write_text("# robo_players, edited\n")
    edited = numba_cache.source_digest(tmp_path)
    assert edited != before
    (tmp_path / "yamb" / "new.py").write_text("")
    assert numba_cache.source_digest(tmp_path) not in (before, edited)


def test_edits_to_the_applications_recompile_nothing(tmp_path: Path) -> None:
    _tree(tmp_path)
    before = numba_cache.source_digest(tmp_path)
    for folder in ("yamb_app", "evolution"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "app.py").write_text("print('edited')\n")
    assert numba_cache.source_digest(tmp_path) == before
    (tmp_path / "yamb" / "webby.py").write_text("")  # a module beside them still counts
    assert numba_cache.source_digest(tmp_path) != before


def test_the_folders_left_out_hold_no_compiled_code() -> None:
    """What the digest leaves out must never hold a numba function (it would be loaded stale)."""
    root = Path(__file__).resolve().parents[2]
    compiled = re.compile(r"\b(njit|jit|vectorize|guvectorize|stencil|cfunc|jitclass)\b")
    left_out = [root / "yamb_app", root / "evolution"]
    files = [path for folder in left_out for path in folder.rglob("*.py")]
    assert len(files) > 20  # the folders are where the digest expects them
    offenders = [str(path.relative_to(root)) for path in files if compiled.search(path.read_text())]
    assert offenders == []


def test_files_outside_the_packages_do_not_count(tmp_path: Path) -> None:
    _tree(tmp_path)
    before = numba_cache.source_digest(tmp_path)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("assert True\n")
    assert numba_cache.source_digest(tmp_path) == before


def test_configure_sets_a_fresh_folder_and_prunes_old_ones(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("NUMBA_CACHE_LOCATOR_CLASSES", "")  # restored after, as numba's settings
    monkeypatch.setattr(numba.core.config, "CACHE_DIR", numba.core.config.CACHE_DIR)
    monkeypatch.setattr(numba.core.config, "CACHE_LOCATOR_CLASSES", numba.core.config.CACHE_LOCATOR_CLASSES)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    root = tmp_path / "yamb" / "numba"
    old, recent = root / "old", root / "recent"
    old.mkdir(parents=True)
    recent.mkdir()
    week_ago = time.time() - numba_cache.KEEP_SECONDS - 60
    os.utime(old, (week_ago, week_ago))
    numba_cache.configure()
    folder = Path(os.environ["NUMBA_CACHE_DIR"])
    assert folder.parent == root and folder.is_dir()
    assert not old.exists() and recent.exists()
    assert numba.core.config.CACHE_DIR == str(folder)  # numba was imported first: told directly


def test_a_folder_chosen_by_the_user_is_kept(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    numba_cache.configure()
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")
    assert not (tmp_path / "xdg").exists()


ROOT = Path(__file__).resolve().parents[2]
COMPILE = ("import json, numpy as np; from yamb.kernels import stream_keys; "
           "stream_keys(np.uint64(7), np.arange(3, dtype=np.uint64)); s = stream_keys.stats; "
           "print(json.dumps([s.cache_path, sum(s.cache_hits.values()), sum(s.cache_misses.values())]))")


def _copy_of_the_sources(where: Path) -> Path:
    for package in numba_cache.PACKAGES:
        shutil.copytree(ROOT / package, where / package, ignore=shutil.ignore_patterns("__pycache__"))
    return where


def _compile_in(tree: Path, xdg: Path, **settings: str) -> tuple[str, int, int]:
    """(cache folder, cache hits, compiles) of a kernel that calls another module's, in a fresh process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CACHE")}
    env.update(PYTHONPATH=str(tree), XDG_CACHE_HOME=str(xdg), **settings)
    child = subprocess.run([sys.executable, "-c", COMPILE], cwd=tree, env=env, capture_output=True, text=True)
    assert child.returncode == 0, child.stderr[-2000:]
    path, hits, misses = json.loads(child.stdout)
    return path, hits, misses


def test_a_copy_of_the_sources_elsewhere_loads_the_kernels_the_first_compiled(tmp_path: Path) -> None:
    """Another clone, worktree or install of the same sources compiles nothing anew."""
    xdg = tmp_path / "xdg"
    first, second = _copy_of_the_sources(tmp_path / "a"), _copy_of_the_sources(tmp_path / "elsewhere" / "b")
    path, hits, misses = _compile_in(first, xdg)
    folder = xdg / "yamb" / "numba" / numba_cache.source_digest(first)
    assert (Path(path), hits, misses) == (folder / "yamb", 0, 1)
    assert _compile_in(second, xdg) == (path, 1, 0)


def test_a_copy_with_other_sources_compiles_its_own(tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    first, edited = _copy_of_the_sources(tmp_path / "a"), _copy_of_the_sources(tmp_path / "b")
    with open(edited / "yamb" / "dice.py", "a") as f:  # not the kernels' module: the kernels would be stale
        f.write("# edited\n")
    path, _, _ = _compile_in(first, xdg)
    other, hits, misses = _compile_in(edited, xdg)
    assert other != path and (hits, misses) == (0, 1)


def test_a_folder_chosen_by_the_user_keeps_numba_s_own_filing(tmp_path: Path) -> None:
    tree = _copy_of_the_sources(tmp_path / "a")
    path, hits, misses = _compile_in(tree, tmp_path / "xdg", NUMBA_CACHE_DIR=str(tmp_path / "mine"))
    assert Path(path).parent == tmp_path / "mine" and Path(path).name.startswith("yamb_") and misses == 1
    assert not (tmp_path / "xdg").exists()


def test_kernels_compiled_for_another_cpu_are_kept_apart(tmp_path: Path) -> None:
    """numba's cache key holds the CPU's name: code generated for another CPU (the same-digits tests'
    ``NUMBA_CPU_NAME=generic``) shares the folder and is never loaded in place of this CPU's, nor the reverse."""
    tree, xdg = _copy_of_the_sources(tmp_path / "a"), tmp_path / "xdg"
    generic = {"NUMBA_CPU_NAME": "generic"}
    assert [_compile_in(tree, xdg, **s)[1:] for s in ({}, generic, {}, generic)] == [(0, 1), (0, 1), (1, 0), (1, 0)]
