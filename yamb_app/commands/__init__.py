"""The ``yamb`` program's subcommands, one module each (``yamb_app.cli`` builds the parser from them).

Each defines ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``; heavy imports
happen inside ``run`` so that the program starts fast.
"""
