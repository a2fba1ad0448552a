"""Every `boardgym` command from the installed wheel (no checkout on the path): its help, and
`boardgym rules` printing the rules document the wheel ships."""

from boardgym.scripts.cli import COMMANDS


def test_every_command_has_help_from_the_wheel(wheel_cli):
    for name in COMMANDS:
        r = wheel_cli.run(name, "--help")
        assert r.returncode == 0, (name, r.stderr)
        assert r.stdout.startswith(f"usage: boardgym {name}"), (name, r.stdout[:200])
        assert "Traceback" not in r.stderr, (name, r.stderr)


def test_rules_from_the_wheel(wheel_cli):
    r = wheel_cli.run("rules", "--clause", "25.2")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("- **25.2**") and "Turkish strike" in r.stdout
    r = wheel_cli.run("rules", "--game", "backgammon", "--list")
    assert r.returncode == 0, r.stderr
    assert "B.5" in r.stdout.split() and "25.2" not in r.stdout.split()
    r = wheel_cli.run("rules", "--clause", "Z.9")
    assert r.returncode == 2 and "no clause 'Z.9'" in r.stderr and "Traceback" not in r.stderr
