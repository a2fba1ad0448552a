"""Print the rules boardgym implements: the whole document, one game's part, or one clause.

    boardgym rules
    boardgym rules backgammon
    boardgym rules G.2
    boardgym rules --game draughts --list

The text is the rules document shipped in the package (``boardgym/RULES.md``); the kernels'
docstrings and the tests cite its clause numbers.
"""

import dataclasses
from typing import Literal

from boardgym import rules
from boardgym.scripts import cli


@dataclasses.dataclass
class Settings:
    """What part of the rules to print."""

    part: str | None = dataclasses.field(default=None, metadata={"positional": True})
    """a game (draughts, backgammon) or a clause number (25.2, G.2): as --game or --clause"""
    game: Literal["all", "draughts", "backgammon"] = "all"
    """the game whose rules to print"""
    clause: str | None = None
    """print only this clause (a number such as 25.2 or B.5)"""
    list: bool = False
    """list the clause numbers (of --game) instead of the text"""

    def check(self):
        named = "--clause: "
        if self.part is not None:
            cli.require(
                self.game == "all" and self.clause is None,
                "give the game or clause once: as PART or as --game / --clause",
            )
            if self.part in rules.GAMES:
                self.game = self.part
            else:
                self.clause, named = self.part, f"{self.part!r} is neither a game nor a clause: "
            self.part = None
        if self.clause is not None:
            try:
                rules.clause(self.clause)
            except ValueError as e:
                raise cli.UsageError(f"{named}{e}") from None


def main(args=None):
    """Print the chosen part of the rules; return the text printed."""
    cfg = cli.settings(Settings, args, prog="boardgym rules", description=__doc__)
    if cfg.clause is not None:
        out = rules.clause(cfg.clause)
    elif cfg.list:
        out = " ".join(rules.clauses(None if cfg.game == "all" else cfg.game)) + "\n"
    elif cfg.game == "all":
        out = rules.text()
    else:
        out = rules.game_text(cfg.game)
    print(out, end="")
    return out


if __name__ == "__main__":
    cli.script_main(main)
