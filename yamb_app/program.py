"""The ``yamb`` program's entry: a stop while it starts is one line, whatever it is importing.

Importing the command line (numba, numpy, the engine) takes a second or more. A SIGTERM or Ctrl-C in that
time would end the program with a signal's exit status and no word, or with a traceback from the middle of an
import; here it ends with one line and the exit code of a stop (143, 130), nothing yet being written. The
command line's own handling (``yamb_app.cli.main``) takes over once it is imported.
"""

from __future__ import annotations

import os
import signal
import sys

# the words and codes of ``yamb_app.cli.stopping.stopped``, written out here: that module is under the package
# whose import this guards
SAID = {signal.SIGTERM: ("stopped (SIGTERM)", 143), signal.SIGINT: ("interrupted", 130)}


def _stop_while_starting(signum: int, _frame: object) -> None:
    how, code = SAID[signal.Signals(signum)]
    os.write(2, f"yamb: {how} while starting\n".encode())
    os._exit(code)  # in the middle of an import: nothing to finish, nothing written yet


def main() -> int:
    """Run the ``yamb`` command line with the arguments of this process."""
    previous = {signum: signal.signal(signum, _stop_while_starting) for signum in SAID}
    from yamb_app.cli import main as command_line

    for signum, handler in previous.items():
        signal.signal(signum, handler)
    return command_line(sys.argv[1:])
