"""The web server: the page at ``/``, the runs page at ``/runs`` and the JSON API under ``/api/``.

``create_app(settings)`` builds a FastAPI application around one SQLite store
(``yamb_app.web.store``), the bots (``yamb_app.seats``) and the runs directory
(``yamb_app.web.runs``), behind the guards of ``yamb_app.web.guards``. Bad
input of any kind gets a 4xx JSON answer ``{"detail": "..."}``: 400 with the
engine's message for an illegal move or an impossible table (or a body that is
not strict JSON), 404 for an unknown game or run, 409 for a move that is not
the caller's to make or was meant for another state of the game, 403 for a
change sent by a page of another site, 413 for a
body over ``max_body_bytes``, 415 for a body not sent as JSON, 421 for a Host the server does not answer for,
422 for JSON that does not fit the models, 429 when ``max_open_games`` are
open or the client has ``max_open_per_client`` open. A store that cannot be used answers 507 (full), 503 or 500 (damaged)
with the reason, printed once on the server's standard error too.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles

from yamb.errors import YambError
from yamb_app.seats import Bots
from yamb_app.web.games import ConflictError, Games, NotFoundError, TooManyGamesError, run_out
from yamb_app.web.guards import BodyCheck, HostCheck, OriginCheck, SecurityHeaders, client_key
from yamb_app.web.models import (
    MAX_PLAYERS,
    BotsOut,
    BotStep,
    ErrorOut,
    GameOut,
    HintOut,
    MoveIn,
    NewGame,
    Options,
    ReviewOut,
    RunDetail,
    RunOut,
    Step,
)
from yamb_app.web.runs import RunList, read_logbook
from yamb_app.web.store import GameStore, StoreError

STATIC = Path(str(files("yamb_app.web") / "static"))
ERRORS = {NotFoundError: 404, ConflictError: 409, TooManyGamesError: 429, YambError: 400}
ERROR_RESPONSES = {code: {"model": ErrorOut} for code in (400, 403, 404, 409, 413, 421, 429, 500, 503, 507)}
# Swagger UI at /api/docs: its script and style from the fastapi-offline package (nothing from the network),
# started by a script file of ours (the content-security policy allows no inline script)
SWAGGER_ASSETS = Path(str(files("fastapi_offline") / "static"))
SWAGGER_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>yamb · API</title>
<link rel="stylesheet" href="/api/docs/static/swagger-ui.css">
<link rel="icon" href="/api/docs/static/favicon.png">
<script src="/api/docs/static/swagger-ui-bundle.js" defer></script>
<script src="/api/docs/start.js" defer></script>
</head>
<body><div id="swagger-ui"></div></body>
</html>
"""
SWAGGER_START = """SwaggerUIBundle({url: "/openapi.json", dom_id: "#swagger-ui", layout: "BaseLayout", deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset]});
"""


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
    max_open_per_client: int = 50  # unfinished games one client (an IPv4 address, an IPv6 /64) may hold
    max_body_bytes: int = 16 * 1024
    idle_seconds: float = 7 * 24 * 3600  # an unfinished game nobody moved in for a week is dropped
    unplayed_seconds: float = 3600  # a game nobody made a move in, an hour after it was made
    # the Host names answered (``HostCheck``): ``name:port`` or ``name`` (any port); None answers any Host
    # (an app the caller serves itself, as the tests' client does; ``yamb serve`` always names them)
    hosts: frozenset[str] | None = None
    port: int = 0  # the server's port, for ``ip_literals``
    ip_literals: bool = False  # also answer any IP address as Host on ``port`` (a server bound to every address)


class Reporter:
    """Prints a store's failure on standard error in one line, once until the next different one."""

    def __init__(self) -> None:
        self.last = ""

    def __call__(self, message: str) -> None:
        if message != self.last:
            self.last = message
            print(f"yamb serve: {message}", file=sys.stderr, flush=True)


def create_app(settings: Settings) -> FastAPI:
    """The application of ``settings``; its store is opened now and closed at shutdown.

    The games' work (engine, bots, store) runs on one worker thread, in the
    order the requests came (a queue: fair under load, and the event loop
    stays free to read requests and keep connections). What a new game's
    table needs first (its bots built, its exact solution solved: up to a
    minute the first time) is made before, on a thread of its own, so the
    other games play on meanwhile."""
    store = GameStore(settings.db)
    runs = RunList(settings.runs)
    bots = Bots(runs.best_file)
    games = Games(store, bots, settings.max_open_games, settings.idle_seconds,
                  max_per_client=settings.max_open_per_client, unplayed_seconds=settings.unplayed_seconds)
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="yamb-games")
    builder = ThreadPoolExecutor(max_workers=2, thread_name_prefix="yamb-tables")

    async def queued(work, *args):
        """``work(*args)`` on the games' worker thread, after the requests before it."""
        return await asyncio.get_running_loop().run_in_executor(worker, work, *args)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        builder.shutdown(cancel_futures=True)
        worker.shutdown()
        store.close()

    app = FastAPI(title="yamb", version="1", description="Play Yamb, Yatzy and Yahtzee against evolved bots.",
                  responses=ERROR_RESPONSES, docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.games = games
    app.add_middleware(BodyCheck, limit=settings.max_body_bytes)
    app.add_middleware(OriginCheck)
    if settings.hosts is not None:
        app.add_middleware(HostCheck, names=settings.hosts, port=settings.port, ip_literals=settings.ip_literals)
    app.add_middleware(SecurityHeaders)

    for error, status in ERRORS.items():
        def handler(request: Request, exc: YambError, status: int = status) -> JSONResponse:
            return JSONResponse({"detail": str(exc)}, status_code=status)
        app.add_exception_handler(error, handler)

    report = Reporter()

    def store_failed(request: Request, exc: StoreError) -> JSONResponse:
        report(str(exc))
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)
    app.add_exception_handler(StoreError, store_failed)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/runs", include_in_schema=False)
    def runs_page() -> FileResponse:
        return FileResponse(STATIC / "runs.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.mount("/api/docs/static", StaticFiles(directory=SWAGGER_ASSETS), name="docs")

    @app.get("/api/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return HTMLResponse(SWAGGER_PAGE)

    @app.get("/api/docs/start.js", include_in_schema=False)
    def docs_start() -> PlainTextResponse:
        return PlainTextResponse(SWAGGER_START, media_type="text/javascript")

    @app.get("/api/options", response_model=Options)
    async def options() -> Options:
        """Presets, column kinds, bots and finished runs a new game may use."""
        return await queued(lambda: games.options(runs.runs()))

    @app.get("/api/bots", response_model=BotsOut)
    async def table_bots(preset: str = Query("yamb", max_length=20), dice: int | None = Query(None, ge=1, le=10),
                         joker: str | None = Query(None, max_length=20),
                         columns: str | None = Query(None, max_length=240, description="column kinds, comma-separated"),
                         players: int = Query(1, ge=1, le=MAX_PLAYERS)) -> BotsOut:
        """The registered bots the table takes (a game's ``preset``, ``dice``, ``joker``, ``columns`` and
        ``players``), the strongest first; 400 with the reason for a table that cannot be made."""
        kinds = None if columns is None else [c.strip() for c in columns.split(",") if c.strip()]
        return await queued(games.table_bots, preset, dice, joker, kinds, players)

    @app.post("/api/games", response_model=GameOut, status_code=201)
    async def new_game(new: NewGame, request: Request) -> GameOut:
        """Start a game; its id in the answer is the only way back to it."""
        await asyncio.get_running_loop().run_in_executor(builder, games.prepare, new)
        return await queued(games.create, new, client_key(request.client.host if request.client else ""))

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

    @app.post("/api/games/{game_id}/bot", response_model=GameOut)
    async def bot_step(game_id: str, step: BotStep | None = None) -> GameOut:
        """One step (one action) of the bot to move; with ``{"moves": N}``, only from the state after N moves."""
        return await queued(games.bot_step, game_id, None if step is None else step.moves)

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
            table, problem = runs.best_table(name)
            run = run_out(listed[name])
            if problem:
                run["problem"] = "; ".join(p for p in (run["problem"], problem) if p)
            return {**run, "curve": read_logbook(runs.directory(name)).curve, "table": table}
        return await queued(detail)

    return app
