"""The game archive: every game played or watched, kept in one SQLite file as it goes.

One row per game: the game, where it was played (``source``: web-play, web-watch, play,
evaluate), the two players' names, the settings it was started with (JSON), the seed, every
action taken so far (the env's actions, JSON), what the front end needs to take the game up
again (``extra``, JSON: its move log, undo points), whether it is over, the result
(``RESULTS``), how it ended, the points, the match score where the game belongs to a match and
the record text (PDN, Jellyfish / gnubg match text; none for a backgammon game from a Position
ID). A front end writes the whole row again after each change (``Archive.save``), in one short
transaction, so a killed process loses at most the change it was writing and a failed write is
made good by the next one.

The file: ``$BOARDGYM_ARCHIVE``, else ``$XDG_DATA_HOME/boardgym/archive.sqlite`` (by default
``~/.local/share/boardgym/archive.sqlite``), created with its folder on first use. Write-ahead
logging (WAL) with ``synchronous=NORMAL``: a committed game survives a killed process, readers
never wait for the writer, and several processes (two servers, a server and ``boardgym play``)
write the same file, each waiting up to ``busy_timeout`` seconds for another's transaction.
The schema's version is SQLite's ``user_version``; opening an older file runs the migrations
after its version, each in its own transaction (``MIGRATIONS[k]`` takes version k to k + 1); a
file newer than this code is refused. Every value goes into SQL as a parameter, never as text.

A write that fails (a read-only file or folder, a full disk, a file locked for longer than the
timeout, a file that is not a database) raises ``ArchiveError`` with a sentence saying so;
``Recorder`` keeps one game's row and turns such a failure into a message (``problem``) so that
the game goes on unsaved.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "ArchiveError",
    "Archive",
    "Recorder",
    "RESULTS",
    "SOURCES",
    "SCHEMA_VERSION",
    "default_path",
    "record_name",
    "result_of",
]

#: result of a game: the winner's seat, a draw, a game stopped at a cap, or still going
RESULTS = ("player_0", "player_1", "draw", "stopped", "unfinished")
#: where a game was played
SOURCES = ("web-play", "web-watch", "play", "evaluate")
GAMES = ("draughts", "backgammon")

MIGRATIONS = (
    # 0 -> 1: the games table
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE,
        game TEXT NOT NULL,
        source TEXT NOT NULL,
        player_0 TEXT NOT NULL,
        player_1 TEXT NOT NULL,
        settings TEXT NOT NULL DEFAULT '{}',
        seed INTEGER,
        created REAL NOT NULL,
        updated REAL NOT NULL,
        actions TEXT NOT NULL DEFAULT '[]',
        extra TEXT NOT NULL DEFAULT '{}',
        over INTEGER NOT NULL DEFAULT 0,
        result TEXT NOT NULL DEFAULT 'unfinished',
        how TEXT,
        points REAL,
        score TEXT,
        record TEXT
    );
    CREATE INDEX games_by_created ON games (created);
    CREATE INDEX games_by_game ON games (game, created);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)

_COLUMNS = (
    "id",
    "uid",
    "game",
    "source",
    "player_0",
    "player_1",
    "settings",
    "seed",
    "created",
    "updated",
    "actions",
    "extra",
    "over",
    "result",
    "how",
    "points",
    "score",
    "record",
)
_JSON = ("settings", "actions", "extra", "score")
_SUMMARY = tuple(c for c in _COLUMNS if c not in ("actions", "extra", "record", "settings"))
_UID = re.compile(r"^[0-9a-f]{8,32}$")
MAX_LIST = 1000  # rows one list() call returns at most


class ArchiveError(OSError):
    """The archive cannot be opened, read or written (the message says why)."""


def default_path() -> Path:
    """$BOARDGYM_ARCHIVE, else $XDG_DATA_HOME/boardgym/archive.sqlite (~/.local/share/...)."""
    env = os.environ.get("BOARDGYM_ARCHIVE")
    if env:
        return Path(env).expanduser()
    home = os.path.join(os.path.expanduser("~"), ".local", "share")
    base = os.environ.get("XDG_DATA_HOME") or home
    return Path(base) / "boardgym" / "archive.sqlite"


def _why(e: BaseException, path: Path) -> str:
    """A sentence for a failed SQLite or file operation on the archive at path."""
    text = str(e)
    low = text.lower()
    if "readonly" in low or "read-only" in low or isinstance(e, PermissionError):
        return f"the game archive {path} is read-only ({text}): games are not being saved"
    if "disk is full" in low or "no space" in low or getattr(e, "errno", None) == 28:
        return f"the disk of the game archive {path} is full ({text}): games are not being saved"
    if "locked" in low or "busy" in low:
        return f"the game archive {path} is locked by another program ({text}); try again"
    if "not a database" in low or "malformed" in low:
        return f"{path} is not a boardgym game archive (SQLite says: {text})"
    if "unable to open" in low:
        return f"cannot open the game archive {path} ({text})"
    return f"the game archive {path} failed: {text}"


def _check_choice(value, name, choices):
    if value is not None and value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}")


def _timestamp(value, name):
    """Seconds since the epoch of a date 'YYYY-MM-DD' (midnight, local time), an ISO date-time
    or a number; None stays None."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a date such as 2025-01-31, got bool")
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a date such as 2025-01-31, got {type(value).__name__}")
    try:
        return dt.datetime.fromisoformat(value.strip()).timestamp()
    except ValueError:
        raise ValueError(f"{name} must be a date such as 2025-01-31, got {value!r}") from None


class Archive:
    """The games of one archive file (module docstring); thread-safe (one connection, locked)."""

    def __init__(self, path: str | os.PathLike[str] | None = None, busy_timeout: float = 10.0):
        self.path = Path(default_path() if path is None else path).expanduser()
        if not isinstance(busy_timeout, (int, float)) or not busy_timeout >= 0:
            raise ValueError(f"busy_timeout must be seconds >= 0, got {busy_timeout!r}")
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ArchiveError(_why(e, self.path)) from None
        self.read_only = self.path.exists() and not os.access(self.path, os.W_OK)
        try:
            if self.read_only:
                uri = f"file:{self.path.resolve().as_posix()}?mode=ro"
                self._db = sqlite3.connect(
                    uri, uri=True, timeout=busy_timeout, check_same_thread=False
                )
            else:
                self._db = sqlite3.connect(
                    self.path, timeout=busy_timeout, check_same_thread=False, isolation_level=None
                )
            self._db.isolation_level = None  # transactions are explicit (BEGIN IMMEDIATE)
            self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            if not self.read_only:
                self._db.execute("PRAGMA journal_mode = WAL")
                self._db.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except sqlite3.Error as e:
            raise ArchiveError(_why(e, self.path)) from None

    # -- the schema
    def version(self) -> int:
        """The file's schema version (PRAGMA user_version)."""
        with self._lock:
            return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self):
        version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise ArchiveError(
                f"the game archive {self.path} has schema version {version}, newer than this "
                f"boardgym reads (up to {SCHEMA_VERSION}): upgrade boardgym or choose another --db"
            )
        if version < SCHEMA_VERSION and self.read_only:
            raise ArchiveError(
                f"the game archive {self.path} is read-only and at schema version {version}: "
                f"it needs upgrading to {SCHEMA_VERSION}, which writes to it"
            )
        for k in range(version, SCHEMA_VERSION):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                # a migration's statements run one by one inside the transaction
                # (executescript would commit first)
                for statement in MIGRATIONS[k].split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {k + 1}")
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- writing
    def _write(self, sql, params):
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    cur = self._db.execute(sql, params)
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
                return cur
            except sqlite3.Error as e:
                raise ArchiveError(_why(e, self.path)) from None

    def new_uid(self) -> str:
        """A fresh game id (hex, unguessable)."""
        return secrets.token_hex(8)

    def save(self, uid: str, row: Mapping[str, Any]) -> None:
        """Insert or replace the game uid with row (keys of the games table but id, uid, created;
        the JSON ones as Python values); ArchiveError if it cannot be written."""
        self._check_uid(uid)
        values = self._checked_row(row)
        now = time.time()
        names = list(values)
        placeholders = ", ".join("?" for _ in names)
        updates = ", ".join(f"{n} = excluded.{n}" for n in names)
        sql = (
            f"INSERT INTO games (uid, created, updated, {', '.join(names)}) "
            f"VALUES (?, ?, ?, {placeholders}) "
            f"ON CONFLICT (uid) DO UPDATE SET updated = excluded.updated, {updates}"
        )
        self._write(sql, (uid, now, now, *values.values()))

    def delete(self, uid: str) -> bool:
        """Remove the game uid; whether it was there."""
        self._check_uid(uid)
        return self._write("DELETE FROM games WHERE uid = ?", (uid,)).rowcount > 0

    @staticmethod
    def _check_uid(uid):
        if not isinstance(uid, str) or not _UID.match(uid):
            raise ValueError(f"a game id is 8..32 hex digits, got {uid!r}")

    @staticmethod
    def _checked_row(row):
        if not isinstance(row, Mapping):
            raise TypeError(f"row must be a mapping, got {type(row).__name__}")
        unknown = set(row) - set(_COLUMNS) | set(row) & {"id", "uid", "created", "updated"}
        if unknown:
            raise ValueError(f"row has keys the games table does not take: {sorted(unknown)}")
        for key in ("game", "source", "player_0", "player_1"):
            if not isinstance(row.get(key), str):
                raise ValueError(f"row[{key!r}] must be a string")
        _check_choice(row["game"], "row['game']", GAMES)
        _check_choice(row["source"], "row['source']", SOURCES)
        _check_choice(row.get("result"), "row['result']", RESULTS)
        out = {}
        for key, value in row.items():
            if key in _JSON:
                value = None if value is None and key == "score" else json.dumps(value)
            elif key == "over":
                value = int(bool(value))
            out[key] = value
        return out

    # -- reading
    def _read(self, sql, params=()):
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.Error as e:
                raise ArchiveError(_why(e, self.path)) from None

    def get(self, uid: str) -> dict[str, Any] | None:
        """The game uid as a dict (JSON columns decoded, dates as ISO text), or None."""
        if not isinstance(uid, str) or not _UID.match(uid):
            return None
        rows = self._read(f"SELECT {', '.join(_COLUMNS)} FROM games WHERE uid = ?", (uid,))
        return _decode(_COLUMNS, rows[0]) if rows else None

    def _where(self, game=None, player=None, result=None, since=None, until=None, source=None):
        _check_choice(game, "game", GAMES)
        _check_choice(result, "result", RESULTS)
        _check_choice(source, "source", SOURCES)
        if player is not None and not isinstance(player, str):
            raise TypeError(f"player must be a string, got {type(player).__name__}")
        clauses, params = [], []
        if game is not None:
            clauses.append("game = ?")
            params.append(game)
        if result is not None:
            clauses.append("result = ?")
            params.append(result)
        if source is not None:
            clauses.append("source = ?")
            params.append(source)
        if player:
            pattern = "%" + re.sub(r"([\\%_])", r"\\\1", player.strip()) + "%"
            clauses.append("(player_0 LIKE ? ESCAPE '\\' OR player_1 LIKE ? ESCAPE '\\')")
            params += [pattern, pattern]
        lo, hi = _timestamp(since, "since"), _timestamp(until, "until")
        if hi is not None and isinstance(until, str) and len(until.strip()) == 10:
            hi += 86400  # a date: through its end
        if lo is not None:
            clauses.append("created >= ?")
            params.append(lo)
        if hi is not None:
            clauses.append("created < ?")
            params.append(hi)
        return (" WHERE " + " AND ".join(clauses) if clauses else ""), params

    def list(
        self,
        game: str | None = None,
        player: str | None = None,
        result: str | None = None,
        since: str | float | None = None,
        until: str | float | None = None,
        source: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[dict[str, Any]]:
        """Summaries of the games that match (newest first): every column but actions, extra,
        settings and record, and n_actions (how many actions the game has). player matches
        either name (a part of it, any case); since / until are dates (YYYY-MM-DD, until
        inclusive), ISO times or epoch seconds."""
        for name, value, top in (("limit", limit, MAX_LIST), ("offset", offset, None)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
            if top is not None and value > top:
                raise ValueError(f"{name} must be at most {top}, got {value}")
        where, params = self._where(game, player, result, since, until, source)
        rows = self._read(
            f"SELECT {', '.join(_SUMMARY)}, json_array_length(actions) FROM games{where} "
            "ORDER BY created DESC, id DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [_decode((*_SUMMARY, "n_actions"), r) for r in rows]

    def count(self, **filters: Any) -> int:
        """How many games match filters (those of list)."""
        where, params = self._where(**filters)
        return int(self._read(f"SELECT COUNT(*) FROM games{where}", params)[0][0])

    def records(self, **filters: Any) -> Iterator[dict[str, Any]]:
        """Every matching game with its record text (oldest first), a page at a time."""
        where, params = self._where(**filters)
        cols = (*_SUMMARY, "record")
        last = 0
        while True:
            joined = f"{where} AND id > ?" if where else " WHERE id > ?"
            rows = self._read(
                f"SELECT {', '.join(cols)} FROM games{joined} ORDER BY id LIMIT 200",
                (*params, last),
            )
            if not rows:
                return
            for r in rows:
                yield _decode(cols, r)
            last = rows[-1][0]

    def integrity(self) -> str:
        """SQLite's PRAGMA integrity_check ('ok' for a sound file)."""
        return "; ".join(r[0] for r in self._read("PRAGMA integrity_check"))

    def export(self, folder: str | os.PathLike[str], **filters: Any) -> tuple[list[Path], int]:
        """Write each matching game's record to folder (created) as its own file
        (``record_name``); (the files written, the games without a record)."""
        out = Path(folder).expanduser()
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ArchiveError(f"cannot create the export folder {out}: {e}") from None
        written, missing = [], 0
        for g in self.records(**filters):
            if not g["record"]:
                missing += 1
                continue
            path = out / record_name(g)
            path.write_text(g["record"])
            written.append(path)
        return written, missing


def record_name(game: Mapping[str, Any]) -> str:
    """The file name of a game's record: ``<id>-<player_0>-vs-<player_1>.pdn`` (``.mat`` for
    backgammon), names cut to letters, digits, '.', '_' and '-'."""

    def clean(name):
        return re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).strip("._")[:40] or "player"

    suffix = ".pdn" if game["game"] == "draughts" else ".mat"
    return f"{int(game['id']):06d}-{clean(game['player_0'])}-vs-{clean(game['player_1'])}{suffix}"


def _decode(columns, values):
    out = dict(zip(columns, values))
    for key in _JSON:
        if key in out and out[key] is not None:
            out[key] = json.loads(out[key])
    if "over" in out:
        out["over"] = bool(out["over"])
    for key in ("created", "updated"):
        if key in out:
            out[key] = dt.datetime.fromtimestamp(out[key]).isoformat(timespec="seconds")
    return out


class Recorder:
    """One game's row in an archive, written again on every save; a failing archive becomes
    ``problem`` (a sentence) and the game goes on (the next save tries again)."""

    def __init__(self, archive: Archive | None, uid: str | None = None) -> None:
        self.archive = archive
        self.uid = uid or secrets.token_hex(8)
        self.problem: str | None = None

    def save(self, row: Mapping[str, Any]) -> bool:
        """Write row (Archive.save); whether it was saved."""
        if self.archive is None:
            return False
        try:
            self.archive.save(self.uid, row)
        except ArchiveError as e:
            self.problem = str(e)
            return False
        self.problem = None
        return True


def result_of(winner: int | None, over: bool, stopped: bool = False) -> str:
    """The result column of a game: its winner's seat, draw, stopped (at a cap) or
    unfinished."""
    if not over:
        return "unfinished"
    if winner is None:
        return "stopped" if stopped else "draw"
    return f"player_{winner}"
