"""``python -m yamb_app`` runs the ``yamb`` command-line program."""

import sys

from yamb_app.program import main

sys.exit(main())
