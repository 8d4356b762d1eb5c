"""The numba cache folder follows the source code, so no stale kernel is ever loaded."""

import os
import re
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
    monkeypatch.setattr(numba.core.config, "CACHE_DIR", numba.core.config.CACHE_DIR)  # restored after
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
