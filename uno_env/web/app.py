"""The HTTP API and the static page of ``uno-env serve`` (FastAPI, the ``web`` extra).

Every error is a JSON object ``{"error": "..."}`` that says what was wrong, with
status 400 (a malformed request or a bad value), 404 (an unknown game or record) or 409
(an action the game cannot take now); a refused request changes nothing.

==========================================  =============================================
``GET /api/options``                        presets, player counts, agent suggestions
``POST /api/games``                         start a game: preset, players, seat, agents
``GET /api/games/{id}``                     the game as the person sees it
``POST /api/games/{id}/actions``            the person's action (an id or a name)
``POST /api/games/{id}/advance``            one move of the agent to act
``POST /api/games/{id}/record``             save the game as a record
``DELETE /api/games/{id}``                  close the game
``GET /api/records``                        the records of the records folder
``GET /api/records/{name}?viewer=``         a record replayed, frame by frame
==========================================  =============================================
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS
from .games import GameError, Games, UnknownGame
from .store import RecordStore, UnknownRecord

STATIC = Path(__file__).resolve().parent / "static"
#: Agents the page offers (any spec the agents' factory takes can be typed).
SUGGESTED_AGENTS = ("greedy", "tuned", "defender", "random_play", "random",
                    "ismcts:budget=32", "ppo:official-2p")
#: Seconds between two agent moves on the page, unless the person changes it.
DEFAULT_DELAY = 0.6


class NewGame(BaseModel):
    """A game to start: the person in ``seat`` (None: watch the agents), ``agents`` one
    spec per other seat or one for all."""

    model_config = ConfigDict(extra="forbid")
    preset: str = "official"
    players: int = Field(2, ge=MIN_PLAYERS, le=MAX_PLAYERS)
    seat: int | None = 0
    agents: list[str] = Field(default_factory=lambda: ["greedy"], min_length=1,
                              max_length=MAX_PLAYERS)
    seed: int | None = Field(None, ge=0, lt=2**62)


class Action(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: StrictInt | StrictStr


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _validation_message(err: RequestValidationError) -> str:
    """The first problem of a malformed request, naming the field."""
    parts = []
    for e in err.errors()[:3]:
        where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
        parts.append(f"{where or 'request'}: {e.get('msg', 'invalid')}")
    return "malformed request: " + "; ".join(parts)


def create_app(records: str | Path) -> FastAPI:
    """The app serving the page, the games and the records folder ``records``."""
    app = FastAPI(title="uno-env", docs_url=None, redoc_url=None, openapi_url=None)
    games = Games()
    store = RecordStore(records)
    app.state.games, app.state.store = games, store

    @app.exception_handler(RequestValidationError)
    async def malformed(request: Request, err: RequestValidationError) -> JSONResponse:
        return _error(400, _validation_message(err))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> JSONResponse:
        return _error(err.status_code, f"{request.method} {request.url.path}: {err.detail}")

    @app.exception_handler(UnknownGame)
    @app.exception_handler(UnknownRecord)
    async def unknown(request: Request, err: LookupError) -> JSONResponse:
        return _error(404, str(err.args[0]))

    @app.exception_handler(GameError)
    async def refused(request: Request, err: GameError) -> JSONResponse:
        return _error(409, str(err))

    @app.exception_handler(ValueError)
    async def bad_value(request: Request, err: ValueError) -> JSONResponse:
        return _error(400, str(err))

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/options")
    def options() -> dict[str, Any]:
        return {"presets": list(PRESETS), "min_players": MIN_PLAYERS,
                "max_players": MAX_PLAYERS, "agents": list(SUGGESTED_AGENTS),
                "delay": DEFAULT_DELAY}

    @app.post("/api/games")
    def new_game(body: NewGame) -> dict[str, Any]:
        game = games.start(body.preset, body.players, body.seat, body.agents, body.seed)
        return game.view()

    @app.get("/api/games/{game_id}")
    def show(game_id: str) -> dict[str, Any]:
        return games.get(game_id).view()

    @app.post("/api/games/{game_id}/actions")
    def act(game_id: str, body: Action) -> dict[str, Any]:
        return games.get(game_id).act(body.action)

    @app.post("/api/games/{game_id}/advance")
    def advance(game_id: str) -> dict[str, Any]:
        return games.get(game_id).advance()

    @app.post("/api/games/{game_id}/record")
    def save(game_id: str) -> dict[str, Any]:
        game = games.get(game_id)
        with game.lock:
            record = game.record()
        return {"name": store.save(record, f"game-{game.preset}-{record.rules.num_players}p")}

    @app.delete("/api/games/{game_id}")
    def close(game_id: str) -> dict[str, Any]:
        games.close(game_id)
        return {"closed": game_id}

    @app.get("/api/records")
    def records_list() -> dict[str, Any]:
        return {"records": store.summaries()}

    @app.get("/api/records/{name}")
    def record(name: str, viewer: int | None = None) -> dict[str, Any]:
        return store.frames(name, viewer)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
