"""``python -m boardgym <command>``: the same as the ``boardgym`` command."""

from boardgym.scripts.cli import console_main

console_main()
