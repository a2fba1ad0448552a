"""Scripted sessions of scripts/play.py through stdin."""
import io
from pathlib import Path

from script_loader import load_script

play = load_script("play")


def test_draughts_session_with_illegal_input_moves_and_undo():
    out = io.StringIO()
    stdin = io.StringIO("moves\nc3-d5\nundo\nc3-d4\nundo\nc3-d4\nquit\n")
    play.main(["--game", "draughts", "--agent", "greedy", "--seat", "0"], stdin=stdin, out=out)
    text = out.getvalue()
    assert "legal: a3-b4, c3-b4, c3-d4, e3-d4, e3-f4, g3-f4, g3-h4" in text
    assert "illegal:" in text and "nothing to take back" in text and "taken back" in text
    assert text.count("a  b  c  d  e  f  g  h") >= 4


def test_backgammon_session_plays_a_whole_game_from_stdin():
    """The person always types the first legal play listed; the game reaches its end."""
    out = io.StringIO()

    class Feeder:
        """Answers 'moves', then the first legal play printed."""
        def __init__(self):
            self.want_moves = True

        def readline(self):
            if self.want_moves:
                self.want_moves = False
                return "moves\n"
            self.want_moves = True
            last = out.getvalue().rstrip().splitlines()
            legal = [ln for ln in last if ln.startswith("legal: ")][-1][len("legal: "):]
            return legal.split(", ")[0] + "\n"

    rewards = play.main(["--game", "backgammon", "--agent", "backgammon-greedy", "--seat", "1",
                         "--seed", "2"], stdin=Feeder(), out=out)
    assert "game over" in out.getvalue()
    assert sorted(abs(v) for v in rewards.values())[0] >= 1


def test_checkpoint_paths_load_the_matching_agent():
    """--agent PATH: .npz is a learned evaluation for draughts and a TD net for backgammon;
    .pt/.zip a PPO policy."""
    from boardgym.agents.draughts_agents import AlphaBetaAgent
    from boardgym.agents.backgammon_agents import TDAgent
    ckpt = Path(__file__).resolve().parents[2] / "agents" / "checkpoints"
    cfg = play.Settings(game="draughts", agent=str(ckpt / "draughts-alphabeta.npz"))
    assert isinstance(play._load_agent(cfg), AlphaBetaAgent)
    cfg = play.Settings(game="backgammon", agent=str(ckpt / "backgammon-td.npz"))
    assert isinstance(play._load_agent(cfg), TDAgent)
    out = io.StringIO()
    play.main(["--game", "draughts", "--agent", str(ckpt / "draughts-ppo.pt"), "--seat", "0"],
              stdin=io.StringIO("c3-d4\nquit\n"), out=out)
    assert out.getvalue().count("a  b  c  d  e  f  g  h") >= 2  # the policy replied
