"""``yamb serve``: a web page to play the bots and watch evolution runs, and its JSON API.

``create_app(Settings(db=...))`` builds the FastAPI application (``yamb.app.web.app``);
games live in SQLite (``yamb.app.web.store``), the page is plain HTML and
JavaScript in ``yamb/app/web/static`` (no build step, nothing from the network).
"""

from yamb.app.web.app import Settings, create_app, default_db

__all__ = ["Settings", "create_app", "default_db"]
