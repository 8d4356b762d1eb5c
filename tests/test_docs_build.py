"""The documentation builds with MkDocs in strict mode: a broken link or anchor, a page missing from the nav or a
docstring mkdocstrings cannot render fails it. The API pages are made from the packages at build time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "mkdocs.yml").is_file())


@pytest.mark.slow
def test_the_docs_build_strictly(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "WARNING" not in done.stderr, done.stderr[-4000:]
    for page in ("index.html", "guide/start/index.html", "lab/index.html", "reference/api/yamb/index.html"):
        assert (site / page).is_file(), page
    api = (site / "reference/api/yamb/index.html").read_text()
    assert "yamb.game" in api and "Game" in api  # a module's docstrings, rendered
