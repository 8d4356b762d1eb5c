"""The README's Python examples run as doctests, so the README cannot drift from the code."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def python_blocks(text: str) -> list[str]:
    """The bodies of the ```python blocks of a Markdown text."""
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def test_readme_has_a_python_example() -> None:
    assert python_blocks(README.read_text(encoding="utf-8"))


def test_readme_examples_run() -> None:
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for i, block in enumerate(python_blocks(README.read_text(encoding="utf-8"))):
        runner.run(parser.get_doctest(block, {}, f"README.md block {i}", str(README), 0))
    results = runner.summarize(verbose=False)
    assert results.attempted > 0
    assert results.failed == 0
