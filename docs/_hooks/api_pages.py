"""MkDocs hook: the API reference's pages, made at build time from the source tree.

One page per top-level package that ``pyproject.toml`` installs
(``[tool.setuptools.packages.find] include``), each with one section per
module found below it (``::: module``, rendered by mkdocstrings from the
docstrings). The pages go under the nav's Reference section, as its last
entry, "API". A module that moves needs no edit here or in the pages.
"""

from __future__ import annotations

import fnmatch
import logging
import tomllib
from pathlib import Path

from mkdocs.structure.files import File

log = logging.getLogger("mkdocs.hooks.api_pages")

API_DIR = "reference/api"
SECTION, TITLE = "Reference", "API"


def packages(root: Path) -> list[str]:
    """The top-level packages the project installs, in the order of the include patterns."""
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    found = sorted(p.name for p in root.iterdir() if (p / "__init__.py").is_file())
    return list(dict.fromkeys(name for pattern in patterns for name in found if fnmatch.fnmatch(name, pattern)))


def modules(root: Path, package: str) -> tuple[list[str], list[str]]:
    """Every module of ``package`` (itself first, then its modules and sub-packages, depth first, sorted), and the
    folders below it that hold modules but no ``__init__.py`` (mkdocstrings cannot collect their modules)."""
    names, folders = [], set()
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if any(part.startswith("_") for part in parts[:-1]) or not all(part.isidentifier() for part in parts):
            continue
        missing = [root.joinpath(*parts[:i]) for i in range(1, len(parts))
                   if not root.joinpath(*parts[:i], "__init__.py").is_file()]
        if missing:
            folders.add(missing[0].relative_to(root).as_posix())
        elif parts[-1] == "__init__":
            names.append(".".join(parts[:-1]))
        elif not parts[-1].startswith("_"):
            names.append(".".join(parts))
    return sorted(names, key=lambda name: name.split(".")), sorted(folders)


def page(root: Path, package: str) -> str:
    """The page of one package: a title, then each module's docstring and members."""
    lines = [f"# `{package}`", "", f"Generated from the docstrings of every module under `{package}/`.", ""]
    for name in modules(root, package)[0]:
        lines += [f"::: {name}", ""]
    return "\n".join(lines)


def _root(config) -> Path:
    return Path(config["config_file_path"]).resolve().parent


def on_config(config):
    """Add the API pages to the nav, under the Reference section."""
    entries = [{name: f"{API_DIR}/{name}.md"} for name in packages(_root(config))]
    for item in config["nav"] or []:
        if isinstance(item, dict) and SECTION in item:
            item[SECTION].append({TITLE: entries})
            break
    else:
        raise ValueError(f"mkdocs.yml's nav has no {SECTION!r} section for the API pages")
    return config


def on_files(files, config):
    """Add the generated pages to the documentation's files."""
    root = _root(config)
    for name in packages(root):
        for folder in modules(root, name)[1]:
            log.warning(f"{folder}/ holds modules but no __init__.py: the API pages leave them out (add one, with "
                        "a docstring saying what the folder holds)")
        files.append(File.generated(config, f"{API_DIR}/{name}.md", content=page(root, name)))
    return files
