"""``boardgym hub``: the Hub protocol engine, a scripted session end to end through a subprocess,
and the engine's pieces (levels, errors) in process; the protocol's text is in
tests/envs/test_draughts_hub.py."""

import queue
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from boardgym.envs import draughts as api
from boardgym.envs import draughts_hub
from boardgym.scripts import cli, hub

START = "W" + "b" * 12 + "e" * 8 + "w" * 12


class Session:
    """A `boardgym hub` subprocess spoken to line by line (reads time out instead of hanging)."""

    def __init__(self, *args):
        self.p = subprocess.Popen(
            [sys.executable, "-m", "boardgym.scripts.hub", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for ln in self.p.stdout:
            self.lines.put(ln.rstrip("\n"))
        self.lines.put(None)

    def send(self, text):
        self.p.stdin.write(text + "\n")
        self.p.stdin.flush()

    def until(self, first_word, timeout=60.0):
        """Lines up to and including the first whose command is first_word."""
        got = []
        end = time.monotonic() + timeout
        while True:
            ln = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            assert ln is not None, f"the engine exited; read {got}"
            got.append(ln)
            if ln.split(" ", 1)[0] == first_word:
                return got

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


@pytest.fixture
def session():
    s = Session("--tt-size", "4")
    yield s
    s.close()


def _done_move(lines):
    cmd, args = draughts_hub.parse_line(lines[-1])
    assert cmd == "done"
    return args


def test_scripted_session_end_to_end(session):
    s = session
    s.send("hub")
    head = s.until("wait")
    assert head[0].startswith("id name=boardgym")
    names = [draughts_hub.parse_line(x)[1]["name"] for x in head if x.startswith("param")]
    assert names == list(hub.PARAMS)
    s.send("set-param name=variant value=russian")
    s.send("set-param name=tt-size value=2")
    s.send("set-param name=threads value=2")
    s.send("set-param name=colour value=red")  # an unknown parameter: an error line, no crash
    assert s.until("error")[-1].startswith('error message="unknown parameter')
    s.send("init")
    s.until("ready", timeout=120)
    s.send("ping")
    assert s.until("pong") == ["pong"]
    # a game from the start: moves given, fixed time per move
    s.send(f'pos pos={START} moves="22-18 11-15 18x11"')
    s.send("level move-time=0.2")
    t0 = time.monotonic()
    s.send("go think")
    out = s.until("done")
    dt = time.monotonic() - t0
    args = _done_move(out)
    # the only legal replies recapture on 11
    assert args["move"] in ("7x16x11", "8x15x11") or args["move"].split("x")[2:] == ["11"]
    assert dt < 5.0
    infos = [draughts_hub.parse_line(x)[1] for x in out if x.startswith("info")]
    assert infos and {"depth", "score", "nodes", "time", "nps", "pv"} <= set(infos[-1])
    assert [int(i["depth"]) for i in infos] == list(range(1, len(infos) + 1))
    assert infos[-1]["pv"].split()[0] == args["move"]
    # depth level, then time + increment
    s.send("new-game")
    s.send(f"pos pos={START}")
    s.send("level depth=3")
    s.send("go think")
    args = _done_move(s.until("done"))
    assert args["move"] in {draughts_hub.move_to_hub(r) for r in _rows(api.initial_state())}
    s.send("level time=2 inc=0.05")
    s.send("go think")
    _done_move(s.until("done"))
    # analysis: infinite until stop; ping answered during the search
    s.send("level infinite")
    s.send("go analyze")
    time.sleep(0.3)
    s.send("ping")
    assert "pong" in s.until("pong")
    s.send("stop")
    _done_move(s.until("done"))
    # ponder: no deadline until ponder-hit, then the move-time
    s.send("level move-time=0.1")
    s.send("go ponder")
    time.sleep(0.5)
    assert s.lines.empty() or all(x.startswith("info") for x in list(s.lines.queue))
    s.send("ponder-hit")
    _done_move(s.until("done", timeout=10))
    # bad input: one error line each, the engine goes on
    for bad in (
        "pos pos=Wxyz",
        f'pos pos={START} moves="22-17 22-17"',
        "level move-time=abc",
        "level moves=3",
        "go",
        "frobnicate",
        'pos pos="unclosed',
        "set-param name=depth value=99",
    ):
        s.send(bad)
        if bad == "go":  # the position is still the start position: a search, not an error
            _done_move(s.until("done"))
            continue
        assert s.until("error")[-1].startswith("error message=")
    s.send("ping")
    assert s.until("pong")[-1] == "pong"
    s.send("quit")
    assert s.p.wait(timeout=20) == 0


def test_end_of_input_quits(session):
    session.p.stdin.close()
    assert session.p.wait(timeout=60) == 0


def _rows(state):
    from boardgym.kernels.draughts.board import MAX_MOVES, ROW_LEN
    from boardgym.kernels.draughts.game import gen_moves

    buf = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    return buf[: gen_moves(state, buf)]


# ---------------------------------------------------------------------------- in process
def test_scores_and_levels():
    assert hub.score_text(150) == "1.50"
    assert hub.score_text(-25) == "-0.25"
    assert hub.score_text(hub.WIN - 3) == "99.97"
    assert hub.score_text(-(hub.WIN - 4)) == "-99.96"
    assert hub.budget_of({"move-time": 0.5}) == 0.5
    assert hub.budget_of({"time": 10.0, "moves": 10}) == pytest.approx(1.0)
    assert hub.budget_of({"time": 50.0, "inc": 1.0}) == pytest.approx(50 / 25 + 1)
    assert hub.budget_of({"time": 0.1, "moves": 1}) <= 0.8 * 0.1
    assert hub.budget_of({"depth": 4}) is None
    assert hub.parse_level({"depth": "5"}) == {"depth": 5}
    for bad in (
        {"depth": "x"},
        {"depth": "0"},
        {"moves": "3"},
        {},
        {"speed": "1"},
        {"move-time": "-1"},
        {"move-time": "nan"},
    ):
        with pytest.raises(draughts_hub.HubError):
            hub.parse_level(bad)


def test_engine_in_process_errors_never_raise():
    out = []
    e = hub.HubEngine(hub.Settings(tt_size=1), out.append)
    for text in (
        "",
        "go",
        'pos moves="22-18"',
        "set-param name=variant value=killer",
        "set-param name=tt-size value=0",
        "set-param name=move-time value=x",
        "set-param value=3",
        "set-param name=threads value=0",
        "level",
        "\x00\x01",
        "pos pos=" + "W" + "e" * 32,
        "go",
    ):
        e.handle(text)
        e.wait()
    errors = [x for x in out if x.startswith("error")]
    # all but "", the first "go" and the empty board (a finished game, legal to set up)
    assert len(errors) == 9, out
    assert "game is over" in errors[-1]
    assert any(x.startswith("done") for x in out)  # "go": a search of the start position


def test_settings_check():
    for bad in (["--tt-size", "0"], ["--move-time", "0"], ["--depth", "99"], ["--threads", "0"]):
        with pytest.raises(cli.UsageError):
            hub.main(bad)


def test_moves_numbered_from_a1_in_a_session():
    """move-numbering=a1: the engine reads and writes moves numbered from a1 (a1 = 1, c3 = 10,
    b4 = 13); positions stay standard."""
    out = []
    e = hub.HubEngine(hub.Settings(tt_size=1, move_numbering="a1"), out.append)
    e.handle(f'pos pos={START} moves="10-13 22-18 13x22x18"')  # c3-b4 d6-c5 b4:d6
    assert out == []
    assert api.to_fen(e.state) == api.to_fen(
        api.apply(api.apply(api.apply(api.initial_state(), "c3-b4"), "d6-c5"), "b4:d6")
    )
    e.handle(f'pos pos={START} moves="22-17"')  # standard numbers: b6-a5 for White, illegal
    assert out[-1].startswith('error message="illegal move')
    e.handle("set-param name=move-numbering value=c4")
    assert out[-1].startswith('error message="move-numbering must be b8 or a1')


def test_a_forced_move_banks_its_move_time_until_the_next_game():
    """With a fixed move-time, a forced move's time is banked for the next moves (time_bank);
    new-game empties the bank; a game clock (time=) banks nothing."""
    out = []
    e = hub.HubEngine(hub.Settings(tt_size=1), out.append)
    forced = draughts_hub.position_to_hub("W:W15,28:B4,18")  # one legal move: e5:c3
    for level, banked in (("level move-time=0.2", True), ("level time=10", False)):
        e.handle("new-game")
        e.handle(level)
        e.handle(f"pos pos={forced}")
        e.handle("go think")
        e.wait()
        assert out[-1].startswith("done"), out
        assert (e.agent._bank > 0.15) == banked
    e.handle("new-game")
    assert e.agent._bank == 0.0
