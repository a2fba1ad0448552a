"""`boardgym perft` from the installed wheel (no checkout on the path)."""


def test_wheel_is_what_runs(wheel_cli):
    r = wheel_cli.python_code("import boardgym, boardgym.scripts.cli as c; print(c.__file__)")
    assert r.returncode == 0, r.stderr
    assert "/venv/lib/" in r.stdout and "site-packages/boardgym/scripts/cli.py" in r.stdout


def test_perft_depth_6_prints_37986(wheel_cli):
    r = wheel_cli.run("perft", "--depth", "6")
    assert r.returncode == 0, r.stderr
    assert "nodes  37986" in r.stdout


def test_perft_from_a_fen(wheel_cli):
    r = wheel_cli.run("perft", "--depth", "5", "--fen", "W:W21,22:B1,K30")
    assert r.returncode == 0, r.stderr
    assert "nodes  1332" in r.stdout


def test_perft_bad_arguments_one_line_exit_2(wheel_cli):
    for args, needle in (
        (["--threads", "-4"], "--threads"),
        (["--depth", "x"], "--depth"),
        (["--fen", "nonsense"], "--fen"),
        (["--bogus"], "--bogus"),
    ):
        r = wheel_cli.run("perft", *args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0] and "Traceback" not in r.stderr, (
            args,
            r.stderr,
        )


def test_help_and_unknown_command(wheel_cli):
    r = wheel_cli.run("perft", "--help")
    assert r.returncode == 0 and "--depth" in r.stdout and "(default: 6)" in r.stdout
    r = wheel_cli.run("no-such-command")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    r = wheel_cli.run("--version")
    assert r.returncode == 0 and r.stdout.startswith("boardgym ")
