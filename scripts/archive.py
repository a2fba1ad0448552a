"""The game archive: list the games kept, or export them as PDN / match files.

    boardgym archive list
    boardgym archive list --game backgammon --player td --result unfinished
    boardgym archive export games/ --game draughts --since 2025-01-01
    boardgym archive export games/ --db other.sqlite

Every game played or watched in the browser (``boardgym serve``), in the terminal (``boardgym
play``) or by ``boardgym evaluate --save`` is kept in the archive (``--db``, else
``$BOARDGYM_ARCHIVE``, else ``~/.local/share/boardgym/archive.sqlite``;
``boardgym.agents.arena.archive``). ``list`` prints the matching games, newest first: id, date,
players, result (of an unfinished match: its score and game), where played, actions.
``export DIR`` writes each matching game's record into DIR (created), one file per game named
``<number>-<player_0>-vs-<player_1>.pdn`` (``.mat`` for backgammon); a backgammon game started
from a Position ID has no match file and is counted as skipped. Filters: ``--game``,
``--player`` (a part of either name, any case), ``--result``, ``--source``, ``--since`` /
``--until`` (dates, YYYY-MM-DD, both inclusive).
"""

import dataclasses
from typing import Literal

from boardgym.agents.arena import archive as archives
from boardgym.scripts import cli


@dataclasses.dataclass
class Settings:
    """What to do with the game archive."""

    action: Literal["list", "export"] = dataclasses.field(metadata={"positional": True})
    """list the games, or export their records to a folder"""
    folder: str | None = dataclasses.field(default=None, metadata={"positional": True})
    """export: the folder to write the records into (created)"""
    db: str | None = None
    """the archive file (none: $BOARDGYM_ARCHIVE, else ~/.local/share/boardgym/archive.sqlite)"""
    game: Literal["draughts", "backgammon"] | None = None
    """only games of this game"""
    player: str | None = None
    """only games with a player whose name contains this (any case)"""
    result: Literal["player_0", "player_1", "draw", "stopped", "unfinished"] | None = None
    """only games with this result"""
    source: Literal["web-play", "web-watch", "play", "evaluate"] | None = None
    """only games played there"""
    since: str | None = None
    """only games started on or after this date (YYYY-MM-DD)"""
    until: str | None = None
    """only games started on or before this date (YYYY-MM-DD)"""
    limit: int = 100
    """list: at most this many games (newest first)"""

    def check(self):
        cli.require(
            self.action == "export" or self.folder is None,
            "a folder is only given to export, not to list",
        )
        cli.require(
            self.action != "export" or self.folder is not None,
            "export needs a folder, e.g. boardgym archive export games/",
        )
        cli.require(
            1 <= self.limit <= archives.MAX_LIST,
            f"--limit must be 1..{archives.MAX_LIST}, got {self.limit}",
        )

    def filters(self):
        keys = ("game", "player", "result", "source", "since", "until")
        return {k: getattr(self, k) for k in keys}


def main(args=None):
    """List or export the archive's games (Settings or a list of command-line strings); the
    games listed or the files written."""
    cfg = cli.settings(Settings, args, prog="boardgym archive", description=__doc__)
    if cfg.db is None and not archives.default_path().exists():
        raise cli.UsageError(f"no game archive yet at {archives.default_path()} (see --db)")
    try:
        store = archives.Archive(cfg.db)
    except archives.ArchiveError as e:
        raise cli.UsageError(str(e)) from None
    with store:
        try:
            if cfg.action == "list":
                games = store.list(**cfg.filters(), limit=cfg.limit)
                total = store.count(**cfg.filters())
            else:
                written, skipped = store.export(cfg.folder, **cfg.filters())
        except ValueError as e:
            raise cli.UsageError(str(e)) from None
    if cfg.action == "list":
        for g in games:
            result = g["result"] if not g["how"] else f"{g['result']} ({g['how']})"
            m = g["score"]  # a backgammon match: its length and score
            if m and not g["over"]:
                result += (
                    f" (match to {m['length']}, {m['score'][0]}-{m['score'][1]}, game {m['game']})"
                )
            print(
                f"{g['uid']}  {g['created'].replace('T', ' ')}  {g['game']:<10}  "
                f"{g['player_0']} - {g['player_1']}  {result}  {g['source']}  "
                f"{g['n_actions']} actions"
            )
        print(f"{len(games)} of {total} games in {store.path}")
        return games
    note = f" ({skipped} without a record skipped)" if skipped else ""
    print(f"wrote {len(written)} records to {cfg.folder}{note}")
    return written


if __name__ == "__main__":
    cli.script_main(main)
