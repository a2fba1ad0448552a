"""`boardgym hub` from the installed wheel: a piped Hub session (the README's example) and the
error paths (one line, exit 2)."""

import pytest
from wheel_install import ok, one_line_error

START = "W" + "b" * 12 + "e" * 8 + "w" * 12


def test_hub_piped_session(wheel_cli):
    out = ok(
        wheel_cli.run(
            "hub",
            "--tt-size",
            "2",
            input=(f"hub\ninit\nping\nbogus\npos pos={START}\nlevel depth=2\ngo think\n"),
        )
    )
    lines = out.splitlines()
    assert lines[0].startswith("id name=boardgym") and "wait" in lines and "ready" in lines
    assert "pong" in lines and any(x.startswith('error message="unknown command') for x in lines)
    # end of input stops the search; a "done" line comes first
    assert lines[-1].startswith("done move=")


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--tt-size", "0"], "--tt-size"),
        (["--move-time", "-1"], "--move-time"),
        (["--depth", "99"], "--depth"),
    ],
)
def test_hub_bad_arguments_one_line_exit_2(wheel_cli, args, needle):
    one_line_error(wheel_cli.run("hub", *args, input=""), "boardgym hub: error: ", needle)
