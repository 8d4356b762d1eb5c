"""The applications over the library: the ``yamb`` command line (``cli``), the terminal game
(``terminal``) and the web app (``web``), with what the terminal and the web share (``seats``,
``moves``, ``sheet``).

Nothing outside this package imports it (``yamb.__main__``, the program's entry, aside); the
contracts in ``pyproject.toml`` (``[tool.importlinter]``) check it.
"""
