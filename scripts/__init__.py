"""Command-line tools, installed as ``boardgym.scripts`` and run as ``boardgym <command>``.

Each module is one tool with a documented settings dataclass and an importable ``main(args)``
(a settings instance, a list of command-line strings, or None for ``sys.argv[1:]``);
``boardgym.scripts.cli`` turns settings into flags and is the ``boardgym`` command itself.
Running a file directly (``python scripts/perft.py --depth 6``) is the same tool.
"""
