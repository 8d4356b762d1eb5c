"""The web server: the page at ``/``, the runs page at ``/runs`` and the JSON API under ``/api/``.

``create_app(settings)`` builds a FastAPI application around one SQLite store
(``yamb.app.web.store``), the bots (``yamb.app.seats``) and the runs directory
(``yamb.app.web.runs``). Bad input of any kind gets a 4xx JSON answer
``{"detail": "..."}``: 400 with the engine's message for an illegal move or an
impossible table, 404 for an unknown game or run, 409 for a move that is not
the caller's to make, 413 for a body over ``max_body_bytes``, 422 for JSON that
does not fit the models, 429 when ``max_open_games`` are open.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from yamb.app.seats import Bots
from yamb.app.web.games import ConflictError, Games, NotFoundError, TooManyGamesError, run_out
from yamb.app.web.models import ErrorOut, GameOut, HintOut, MoveIn, NewGame, Options, ReviewOut, RunDetail, RunOut, Step
from yamb.app.web.runs import RunList, read_curve
from yamb.app.web.store import GameStore
from yamb.errors import YambError

STATIC = Path(str(files("yamb.app.web") / "static"))
ERRORS = {NotFoundError: 404, ConflictError: 409, TooManyGamesError: 429, YambError: 400}
ERROR_RESPONSES = {code: {"model": ErrorOut} for code in (400, 404, 409, 413, 429)}


def default_db() -> Path:
    """``$XDG_DATA_HOME/yamb/games.sqlite3`` (default ``~/.local/share/yamb/games.sqlite3``)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "yamb" / "games.sqlite3"


@dataclass(frozen=True)
class Settings:
    """What one server holds: its database, the runs it shows and its limits."""

    db: Path
    runs: Path | None = None
    max_open_games: int = 1000
    max_body_bytes: int = 16 * 1024
    idle_seconds: float = 7 * 24 * 3600  # an unfinished game nobody moved in for a week is dropped


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets 413 before the app reads it.

    The body is read here (at most ``limit + 1`` bytes), then handed to the app."""

    def __init__(self, app, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await self._refuse(send)
            return
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, receive, send)  # the client went away: let the app see it
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await self._refuse(send)
                return
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send) -> None:
        response = JSONResponse({"detail": f"request body over {self.limit} bytes"}, status_code=413)
        await send({"type": "http.response.start", "status": 413, "headers": response.raw_headers})
        await send({"type": "http.response.body", "body": response.body})


def create_app(settings: Settings) -> FastAPI:
    """The application of ``settings``; its store is opened now and closed at shutdown.

    The games' work (engine, bots, store) runs on one worker thread, in the
    order the requests came (a queue: fair under load, and the event loop
    stays free to read requests and keep connections)."""
    store = GameStore(settings.db)
    runs = RunList(settings.runs)
    bots = Bots(runs.best_file)
    games = Games(store, bots, settings.max_open_games, settings.idle_seconds)
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="yamb-games")

    async def queued(work, *args):
        """``work(*args)`` on the games' worker thread, after the requests before it."""
        return await asyncio.get_running_loop().run_in_executor(worker, work, *args)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        worker.shutdown()
        store.close()

    app = FastAPI(title="yamb", version="1", description="Play Yamb, Yatzy and Yahtzee against evolved bots.",
                  responses=ERROR_RESPONSES, docs_url="/api/docs", redoc_url=None, lifespan=lifespan)
    app.state.games = games
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)

    for error, status in ERRORS.items():
        def handler(request: Request, exc: YambError, status: int = status) -> JSONResponse:
            return JSONResponse({"detail": str(exc)}, status_code=status)
        app.add_exception_handler(error, handler)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/runs", include_in_schema=False)
    def runs_page() -> FileResponse:
        return FileResponse(STATIC / "runs.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/options", response_model=Options)
    async def options() -> Options:
        """Presets, column kinds, bots and finished runs a new game may use."""
        return await queued(lambda: games.options(runs.runs()))

    @app.post("/api/games", response_model=GameOut, status_code=201)
    async def new_game(new: NewGame) -> GameOut:
        """Start a game; its id in the answer is the only way back to it."""
        return await queued(games.create, new)

    def game_route(method: str, path: str, name: str, work: Callable[[str], object], answer: object,
                   doc: str) -> None:
        """``method`` on ``/api/games/{game_id}`` + ``path`` answers ``work(game_id)``, on the games' thread."""
        async def endpoint(game_id: str) -> object:
            return await queued(work, game_id)

        endpoint.__doc__ = doc
        app.add_api_route(f"/api/games/{{game_id}}{path}", endpoint, methods=[method], name=name, response_model=answer)

    game_route("GET", "", "get_game", games.get, GameOut, "The game as it stands.")
    game_route("GET", "/log", "game_log", games.log, list[Step],
               "Every move of the game, first to last (a game's state carries the last 60).")

    @app.post("/api/games/{game_id}/moves", response_model=GameOut)
    async def move(game_id: str, move: MoveIn) -> GameOut:
        """A person's move: ``roll`` keeping ``keep`` (faces), ``fill`` or ``announce`` a cell."""
        return await queued(games.move, game_id, move)

    game_route("POST", "/bot", "bot_step", games.bot_step, GameOut, "One step (one action) of the bot to move.")
    game_route("GET", "/hint", "hint", games.hint, HintOut,
               "What the game's bot would do in the mover's place, and its value of every open cell.")

    @app.get("/api/games/{game_id}/review", response_model=ReviewOut)
    async def review(game_id: str, coach: str | None = None) -> ReviewOut:
        """Every decision of the game so far valued against the best one: its loss (the expected
        final score of the best decision minus that of the one taken), class and the better
        decision; each player's total and expected final score by turn. ``coach``: ``optimal``
        (exact; the default on Yatzy and Yahtzee) or a search bot (default ``best``)."""
        return await queued(games.review, game_id, coach)

    @app.get("/api/runs", response_model=list[RunOut])
    async def list_runs() -> list[dict]:
        """The run directories under the server's ``--runs``, newest first."""
        return await queued(lambda: [run_out(run) for run in runs.runs()])

    @app.get("/api/runs/{name}", response_model=RunDetail)
    async def run_detail(name: str) -> dict:
        """A run's fitness curve (its logbook so far) and the table its best player plays."""
        def detail() -> dict:
            listed = {run.name: run for run in runs.runs()}
            if name not in listed:
                raise NotFoundError(f"no run {name!r}")
            return {**run_out(listed[name]), "curve": read_curve(runs.directory(name)),
                    "table": runs.best_table(name)}
        return await queued(detail)

    return app
