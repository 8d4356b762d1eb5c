"""``yamb serve``: a web page to play the bots and watch evolution runs, and its JSON API.

``create_app(Settings(db=...))`` builds the FastAPI application (``yamb_app.web.app``);
games live in SQLite (``yamb_app.web.store``), the page is plain HTML and
JavaScript in ``yamb_app/web/static`` (no build step, nothing from the network).
"""

from yamb_app.web.app import Settings, create_app, default_db

__all__ = ["Settings", "create_app", "default_db"]
