"""``python -m yamb`` runs the command-line program."""

import sys

from yamb.app.cli import main

sys.exit(main())
