"""``python -m yamb`` runs the command-line program."""

import sys

from yamb.cli import main

sys.exit(main())
