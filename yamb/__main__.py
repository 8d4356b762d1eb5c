"""``python -m yamb`` runs the installed ``yamb`` program: the console script this project registers,
which lives in the applications' package (``yamb_app``) above every layer; the core names no module of it."""

import sys
from importlib.metadata import entry_points

programs = entry_points(group="console_scripts", name="yamb")
if not programs:
    sys.exit("python -m yamb: the yamb program is not installed (pip install -e .)")
sys.exit(next(iter(programs)).load()())
