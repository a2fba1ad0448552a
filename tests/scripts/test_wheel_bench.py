"""`boardgym bench` from the installed wheel (no checkout on the path), with tiny budgets."""

import pytest


def _one_line_error(r, needle):
    lines = r.stderr.strip().splitlines()
    return (
        r.returncode == 2
        and len(lines) == 1
        and needle in lines[0]
        and lines[0].startswith("boardgym bench: error:")
        and "Traceback" not in r.stderr
    )


def test_bench_help(wheel_cli):
    r = wheel_cli.run("bench", "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: boardgym bench")
    assert all(t in r.stdout for t in ("movegen", "envs", "search", "rllib", "coldstart", "all"))
    assert "(default: all)" in r.stdout and "--full" in r.stdout
    r = wheel_cli.run("bench", "movegen", "--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: boardgym bench movegen")
    assert "--start-depth INT" in r.stdout and "(default: 9)" in r.stdout


def test_bench_movegen_draughts_from_the_wheel(wheel_cli):
    """The draughts positions ship with the wheel; peers (py-draughts) are listed."""
    r = wheel_cli.run(
        "bench",
        "movegen",
        "--game",
        "draughts",
        "--start-depth",
        "4",
        "--mid-depth",
        "3",
        "--ref-start-depth",
        "3",
        "--ref-mid-depth",
        "2",
        "--n-mid",
        "2",
        "--n-gen",
        "10",
        "--gen-reps",
        "1",
        "--ref-reps",
        "1",
    )
    assert r.returncode == 0, r.stderr
    assert "[movegen] peers installed:" in r.stdout
    assert "boardgym d4" in r.stdout and "1,469 leaves" in r.stdout and "boardgym d3 x2" in r.stdout
    assert "positions/s" in r.stdout


def test_bench_search_from_the_wheel(wheel_cli):
    r = wheel_cli.run("bench", "search", "--depth", "2", "--positions", "2")
    assert r.returncode == 0, r.stderr
    assert "[search] peers: none" in r.stdout and "M nodes/s" in r.stdout
    assert r.stderr == ""  # no progress bar when stderr is not a terminal


def test_bench_bad_arguments_one_line_exit_2(wheel_cli):
    for args, needle in (
        (["nope"], "nope"),
        (["all", "--bogus"], "--bogus"),
        (["movegen", "--n-gen", "900"], "--n-gen"),
        (["envs", "--seconds", "-1"], "--seconds"),
        (["search", "--depth", "x"], "--depth"),
        (["rllib", "--game", "chess"], "--game"),
    ):
        r = wheel_cli.run("bench", *args)
        assert _one_line_error(r, needle), (args, r.stdout, r.stderr)


def test_bench_rllib_without_ray_says_how_to_install(wheel_cli):
    r = wheel_cli.python_code("import importlib.util as u; print(u.find_spec('ray') is None)")
    if r.stdout.strip() != "True":
        pytest.skip("Ray is installed here: tests/rllib measures it")
    r = wheel_cli.run("bench", "rllib")
    assert r.returncode == 0, r.stderr
    assert 'pip install "boardgym[ray]"' in r.stdout and "Traceback" not in r.stderr
