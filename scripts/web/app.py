"""A board in the browser: play either game against an agent, watch two agents, replay records.

    pip install "boardgym[web]"
    boardgym serve                      # http://127.0.0.1:8000/draughts and /backgammon
    boardgym serve --port 8080 --host 127.0.0.1
    boardgym serve --host 0.0.0.0       # for others on your network: prints a link with a token
    boardgym serve --db games.sqlite    # another game archive

The page draws the board (SVG in the browser, the geometry of envs/draughts_render.py and
envs/backgammon_render.py) from what the server sends. Each game lives on the server, under an
id (one per browser tab, many at once); the page sends only actions, numbered as the envs
number them (each view lists the legal ones): a draughts hop from one square to the next (a
capture chain hop by hop), a backgammon checker moved by one die (from the bar, or off the
board), or a cube decision (``roll``/``double``/``take``/``drop``); the server checks each
against the kernels' legal mask, plays the agent's replies (agents/arena/sessions.py, the same
games as ``boardgym play``) and rolls the dice. Anything illegal or malformed is answered with
HTTP 400 and ``{"error": message}``, which the page shows; the server never fails on bad input.

Agents' settings: ``depth`` (plies), ``time_limit`` (seconds per move) and ``options``, other
keyword options of the agent as ``key=value`` (the syntax of ``boardgym play --agent-option``,
e.g. ``"tt_bits=20, use_tt=false"``); in play at the top level, in watch per agent
(``agent_settings: [{depth, time_limit, options}, {...}]``, over top-level defaults). An option
the agent does not take, or a value out of range, is an error naming the agent.

Backgammon: a click on a checker and a spot plays the move; when two dice take the same checker
to the same spot (bearing off), the page asks which die (or a die is clicked first).
``dice`` sets the first roll of a new game (with or without a Position ID). Undo takes back the
person's turn (its checker moves or its cube action) with the agent's reply.

Match play: ``match`` N (1..64; 0, the default, is money play) makes the game a whole match to N
points with the cube and gammons (the match rules of boardgym/RULES.md; agents/arena/sessions.py's
BackgammonGame, the match of ``boardgym play --match``), from 0-0 or from ``score`` [player_0's,
player_1's] with ``crawford`` true when the first game is the Crawford game (checked by the
env's match state, fields.start_score: a score of N - 1 needs ``crawford``, as a match file
cannot record a post-Crawford start; the match file's first score line is the start score;
the archive keeps both in the settings): the view's ``match`` has the length, the
score (player_0's, player_1's), the number of the game in play, its Crawford and post-Crawford
flags, the winner once the match is over, the gnubg Match ID and how the last game ended. When a
game ends and the match goes on, the next game starts by itself (its opening roll); the move list
says how the game ended and the score, and the page keeps that line under the board. Doubling is
refused where the env's mask refuses it (in the Crawford game, and past a cube of 64). Undo takes
back moves of the game in play only.

Replay: a PDN file of one or more games, or a whole Jellyfish / gnubg match file (``.mat``, every
game, as GNU Backgammon exports it too: a lone entry is placed by the column it starts in): each
position with the move that led to it, the match score before each game, the cube's value and
owner at every step (``Doubles => n`` shown on offer, a take doubles the cube and gives it to the
taker; a drop ends the game), forwards and backwards across games.

API (JSON): ``GET /api/agents``; ``GET /api/start/{game}`` (the start position's board, drawn
before a game begins); ``POST /api/games`` ``{game, mode: play|watch, agent, agents, seat, seed,
fen, position_id, dice, cube, match, score, crawford, depth, time_limit, options,
agent_settings}``;
``GET /api/games/{id}``; ``POST /api/games/{id}/action`` ``{action}`` or ``{cube}``;
``POST /api/games/{id}/step`` (watch: one agent action); ``POST /api/games/{id}/undo``;
``GET /api/games/{id}/record`` (PDN or match file download, from play and watch; a match: the
whole match so far, ``match.mat``);
``POST /api/replay`` ``{text}`` -> ``{game, frames, match}``. The view of a game has ``log``
(moves in notation, an agent's evaluation in brackets where it has one: a search's score and
depth, a net's equity) and ``evaluation`` (the last one). A POST from a page of another site
(its ``Origin`` header) is refused (403): only this server's own page drives its games.

The game archive (agents/arena/archive.py; ``--db``, else ``$BOARDGYM_ARCHIVE``, else
``~/.local/share/boardgym/archive.sqlite``): every game played or watched is written to it after
each change, so a game survives a restart or a killed server (a game not in memory is taken up
again from the archive by its id: the page of a tab finds its game again after a reload). An
archive that cannot be written (read-only, a full disk) is said in the page (``archive`` in the
view) and the game goes on. ``GET /api/archive?game=&player=&result=&source=&since=&until=
&limit=&offset=`` lists the games kept (newest first, ``{games, total}``);
``GET /api/archive/{id}/replay`` gives the frames of one (as ``/api/replay``);
``GET /api/archive/{id}/record`` downloads its PDN or match file. ``boardgym archive export``
writes them all to files.

Strangers: on loopback (the default) nothing is asked. On any other address the server wants a
token (``--token``, else generated and printed in the link, as Jupyter does); the link sets it
as a cookie and every request without it is answered 401 (scripts/web/guard.py). Every answer
carries a Content-Security-Policy allowing only the page's own script, style and connections,
no framing (``frame-ancestors 'none'``, X-Frame-Options) and nosniff; ``/static/`` serves the
page's two files only.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from boardgym.agents.arena import archive as archives
from boardgym.envs import backgammon_notation as bg_api
from boardgym.envs import draughts as dr_api
from boardgym.scripts import cli
from boardgym.scripts.web import fields
from boardgym.scripts.web.boards import backgammon_board, draughts_board, replay_frames
from boardgym.scripts.web.fields import BadRequest
from boardgym.scripts.web.guard import Guard, check_token, is_loopback, new_token
from boardgym.scripts.web.session import MAX_GAMES, Games, Limits
from boardgym.scripts.web.thinking import Pool, release_freed_memory, warm

WEB = Path(__file__).resolve().parent
MAX_BODY = 1 << 20  # bytes of one request (a pasted record)
THREADS = 256  # requests served at once (each in a thread; one waiting for a worker holds one)
STATIC = {"app.js": "text/javascript", "style.css": "text/css"}  # what /static/ serves
START_BOARDS = {  # the page's board of each game's start position (drawn before a game begins)
    "draughts": lambda: draughts_board(dr_api.initial_state()),
    "backgammon": lambda: backgammon_board(bg_api.initial_state(), 0),
}


@dataclass
class Settings:
    """Settings of the local web server."""

    host: str = "127.0.0.1"
    """address to listen on (loopback by default: only this machine can connect)"""
    port: int = 8000
    """TCP port (0: any free port)"""
    max_games: int = MAX_GAMES
    """games kept in memory at once (the least recently used is dropped from memory; it is
    taken up again from the archive when asked for; with an archive, finished games past the 16
    most recent leave memory too)"""
    db: str | None = None
    """the game archive (SQLite) every game is written to as it goes; none: $BOARDGYM_ARCHIVE,
    else ~/.local/share/boardgym/archive.sqlite"""
    archive: bool = True
    """keep an archive (--no-archive: games live in memory only and are lost on a restart)"""
    token: str | None = None
    """the secret every browser and API call must give (the printed link sets it as a
    cookie); none: one is generated when --host is not loopback, else no token is asked"""

    workers: int | None = None
    """processes that play the agents' moves (none: one per core; 0: in the server's own
    process, where a slow agent holds up other requests and no cap is enforced); with workers,
    the quick agents' moves (under 0.02 CPU s a move) are still played in the server's process"""
    max_think: float = 10.0
    """longest time per move a client may ask of an agent (seconds); an agent that has not
    moved after 2 x this + 10 s is stopped (its worker killed) and the request told so"""
    max_depth: int = 64
    """deepest search a client may ask of an agent (plies)"""
    max_client_games: int = 32
    """unfinished games one client address may have on the server at once"""

    def check(self):
        cli.require(0 <= self.port <= 65535, f"--port must be 0..65535, got {self.port}")
        cli.require(
            self.workers is None or self.workers >= 0, f"--workers must be >= 0, got {self.workers}"
        )
        cli.require(
            0 < self.max_think <= 600, f"--max-think must be in (0, 600], got {self.max_think}"
        )
        cli.require(1 <= self.max_depth <= 64, f"--max-depth must be 1..64, got {self.max_depth}")
        cli.require(
            self.max_client_games >= 1,
            f"--max-client-games must be at least 1, got {self.max_client_games}",
        )
        try:
            check_token(self.token)
        except ValueError as e:
            raise cli.UsageError(str(e)) from None
        cli.require(self.max_games >= 1, f"--max-games must be at least 1, got {self.max_games}")


def _short(message, limit=400):
    """message cut to limit characters (an error quoting a huge input stays readable)."""
    return message if len(message) <= limit else message[: limit - 5] + " ...'"


def make_app(
    max_games=MAX_GAMES, archive=None, token=None, pool=None, limits=None, max_client_games=None
):
    """The application: the Starlette routes above (the page's two static files from
    scripts/web) inside guard.Guard; archive: an ``Archive`` the games are written to and taken
    up again from (None: memory only); token: the secret every request must carry (None:
    none); pool: a thinking.Pool for the agents' moves (None: in this process); limits: a
    session.Limits; max_client_games: unfinished games one client address may have (None:
    any)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Route

    games = Games(max_games, archive, pool, limits, max_client_games)

    async def body_of(request: Request):
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise BadRequest(f"request too large ({len(raw)} bytes; at most {MAX_BODY})", 413)
        if not raw:
            return {}
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as e:
            raise BadRequest(f"the request body is not JSON: {e}") from None
        if not isinstance(body, dict):
            raise BadRequest("the request body must be a JSON object")
        return body

    def same_origin(request: Request):
        """A browser's request from another site (its Origin header) is refused: a page on the
        web cannot drive this server's games."""
        origin = request.headers.get("origin")
        if request.method != "GET" and origin is not None:
            host = request.headers.get("host", "")
            if re.sub(r"^[a-z]+://", "", origin.lower()).rstrip("/") != host.lower():
                raise BadRequest(f"requests from another site ({origin}) are refused", 403)

    def endpoint(fn):
        async def handler(request: Request):
            try:
                same_origin(request)
                return await fn(request)
            except BadRequest as e:
                return JSONResponse({"error": _short(str(e))}, status_code=e.status)
            except archives.ArchiveError as e:
                return JSONResponse({"error": _short(str(e))}, status_code=503)
            except (ValueError, TypeError) as e:
                return JSONResponse({"error": _short(str(e))}, status_code=400)
            except Exception as e:  # never let one request take the server down
                return JSONResponse(
                    {"error": _short(f"internal error: {type(e).__name__}: {e}")}, status_code=500
                )

        return handler

    def locked(sid, fn):
        session = games.get(sid)
        with session.lock:
            fn(session)
            return JSONResponse(session.view(sid))

    async def agents(request):
        from boardgym.agents import available

        return JSONResponse({g: available(g) for g in ("draughts", "backgammon")})

    async def start(request):
        name = request.path_params["game"]
        if name not in START_BOARDS:
            raise BadRequest(f"no game {name!r}: draughts or backgammon", 404)
        return JSONResponse({"game": name, "board": START_BOARDS[name]()})

    async def new_game(request):
        body = await body_of(request)
        client = request.client.host if request.client else None
        sid = await run_in_threadpool(games.new, body, client)
        return await run_in_threadpool(locked, sid, lambda s: None)

    async def get_game(request):
        sid = request.path_params["sid"]
        return await run_in_threadpool(locked, sid, lambda s: None)

    async def action(request):
        body = await body_of(request)
        sid = request.path_params["sid"]
        return await run_in_threadpool(locked, sid, lambda s: s.act(body))

    async def step(request):
        sid = request.path_params["sid"]
        return await run_in_threadpool(locked, sid, lambda s: s.step())

    async def undo(request):
        sid = request.path_params["sid"]
        return await run_in_threadpool(locked, sid, lambda s: s.undo())

    def download(name, text):
        return Response(
            text,
            media_type="text/plain; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    def record_of(sid):
        session = games.get(sid)
        with session.lock:
            return session.record()

    async def record(request):
        name, text = await run_in_threadpool(record_of, request.path_params["sid"])
        return download(name, text)

    # -- the archive
    def the_archive():
        if archive is None:
            raise BadRequest("this server keeps no archive (it was started with --no-archive)")
        return archive

    def archived(uid):
        row = the_archive().get(uid)
        if row is None:
            raise BadRequest(f"no game {uid!r} in the archive", 404)
        if not row["record"]:
            raise BadRequest(
                "this game has no record (a backgammon game from a Position ID: a match file "
                "starts from the standard position)"
            )
        return row

    def archive_list(query):
        filters = {}
        for key in ("game", "player", "result", "since", "until", "source"):
            value = query.get(key, "").strip()
            if len(value) > 200:
                raise BadRequest(f"{key!r} is too long (at most 200 characters)")
            filters[key] = value or None
        numbers = {}
        for key, default in (("limit", 50), ("offset", 0)):
            text = query.get(key, "").strip() or str(default)
            if not text.isdigit() or len(text) > 9:
                raise BadRequest(f"{key!r} must be a whole number, got {text[:20]!r}")
            numbers[key] = int(text)
        store = the_archive()
        rows = store.list(**filters, **numbers)
        return {"games": rows, "total": store.count(**filters)}

    async def archive_games(request):
        return JSONResponse(await run_in_threadpool(archive_list, request.query_params))

    def archive_frames(uid):
        row = archived(uid)
        game, frames, match = replay_frames(row["record"])
        return {"game": game, "frames": frames, "match": match, "uid": uid}

    async def archive_replay(request):
        return JSONResponse(await run_in_threadpool(archive_frames, request.path_params["uid"]))

    async def archive_record(request):
        row = await run_in_threadpool(archived, request.path_params["uid"])
        return download(archives.record_name(row), row["record"])

    async def replay(request):
        body = await body_of(request)
        text = fields.get(body, "text", str)
        if not text or not text.strip():
            raise BadRequest("paste or upload a PDN game or a match file first")
        try:
            game, frames, match = await run_in_threadpool(replay_frames, text)
        except (ValueError, TypeError) as e:
            raise BadRequest(f"cannot read this record: {e}") from None
        return JSONResponse({"game": game, "frames": frames, "match": match})

    def page(request):
        return FileResponse(WEB / "index.html")

    def static(request):
        name = request.path_params["name"]
        if name not in STATIC:  # the page's own files only: nothing else of the folder
            return JSONResponse({"error": f"no such page: {request.url.path}"}, status_code=404)
        return FileResponse(WEB / name, media_type=STATIC[name])

    routes = [
        Route("/", page),
        Route("/draughts", page),
        Route("/backgammon", page),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/api/agents", endpoint(agents)),
        Route("/api/start/{game}", endpoint(start)),
        Route("/api/games", endpoint(new_game), methods=["POST"]),
        Route("/api/games/{sid}", endpoint(get_game)),
        Route("/api/games/{sid}/action", endpoint(action), methods=["POST"]),
        Route("/api/games/{sid}/step", endpoint(step), methods=["POST"]),
        Route("/api/games/{sid}/undo", endpoint(undo), methods=["POST"]),
        Route("/api/games/{sid}/record", endpoint(record)),
        Route("/api/replay", endpoint(replay), methods=["POST"]),
        Route("/api/archive", endpoint(archive_games)),
        Route("/api/archive/{uid}/replay", endpoint(archive_replay)),
        Route("/api/archive/{uid}/record", endpoint(archive_record)),
        Route("/static/{name:path}", static),
    ]

    async def not_found(request, exc):
        return JSONResponse(
            {"error": f"no such page: {request.url.path}"},
            status_code=getattr(exc, "status_code", 404),
        )

    @contextlib.asynccontextmanager
    async def lifespan(app):
        # anyio's default of 40 threads: 40 requests waiting for an agent worker made every
        # other request (a quick agent's move, a page) wait for a thread
        import anyio.to_thread

        anyio.to_thread.current_default_thread_limiter().total_tokens = THREADS
        yield
        if pool is not None:  # at shutdown (SIGTERM too): the workers go at once, not after us
            pool.close()

    app = Starlette(
        routes=routes, exception_handlers={404: not_found, 405: not_found}, lifespan=lifespan
    )
    return Guard(app, token)


def main(args=None):
    """Serve the web board (Settings or a list of command-line strings) until interrupted."""
    cfg = cli.settings(Settings, args, prog="boardgym serve", description=__doc__)
    release_freed_memory()
    try:
        import uvicorn
    except ImportError:
        raise cli.UsageError('the web board needs its extra: pip install "boardgym[web]"') from None
    store = None
    if cfg.archive:
        try:
            store = archives.Archive(cfg.db)
        except archives.ArchiveError as e:
            print(f"boardgym serve: {e}; games are kept in memory only", file=sys.stderr)
        else:
            note = " (read-only: games are not saved)" if store.read_only else ""
            print(f"boardgym serve: game archive {store.path}{note}", flush=True)
    token = cfg.token
    if token is None and not is_loopback(cfg.host):
        token = new_token()
    pool = None
    if cfg.workers != 0:
        pool = Pool(cfg.workers, cap=2 * cfg.max_think + 10)
        print(f"boardgym serve: {pool.size} agent workers starting", flush=True)
    warm()  # this process loads the agents too (it checks each new game's settings)
    if pool is not None and not pool.ready(600):
        print("boardgym serve: the agent workers are slow to start; serving anyway", flush=True)
    limits = Limits(max_depth=cfg.max_depth, max_think=cfg.max_think)
    app = make_app(cfg.max_games, store, token, pool, limits, cfg.max_client_games)
    port = cfg.port
    if port == 0:  # a free port, named before the server starts
        with socket.socket() as s:
            s.bind((cfg.host, 0))
            port = s.getsockname()[1]
    shown = socket.gethostname() if cfg.host in ("0.0.0.0", "::") else cfg.host
    ask = f"?token={token}" if token else ""
    if not is_loopback(cfg.host):
        print(
            f"boardgym serve: listening on {cfg.host}: anyone on the network who has the link "
            "(with its token) can play; keep it to the people you mean",
            flush=True,
        )
    print(
        f"boardgym serve: http://{shown}:{port}/draughts{ask}  and  /backgammon{ask} "
        "(Ctrl-C stops)",
        flush=True,
    )
    try:
        uvicorn.run(app, host=cfg.host, port=port, log_level="warning")
    finally:
        if pool is not None:
            pool.close()
    return app


if __name__ == "__main__":
    cli.script_main(main)
