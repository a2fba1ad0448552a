"""Scripted players of a ``boardgym play`` backgammon session (its stdin), reading its output."""


class UndoSaveFeeder:
    """Doubles at the first chance, takes every double, rolls otherwise, plays the first legal
    play; at its plays-th move prompt it plays, takes the play back ('undo'), saves to path and
    quits. ``last_prompt`` is the move prompt it saved at."""

    def __init__(self, out, path, plays=3):
        self.out, self.path, self.plays = out, path, plays
        self.doubled = False
        self.script = []  # lines to send next
        self.moves_seen = 0
        self.last_prompt = None
        self.asked = False  # 'moves' was the last answer

    def readline(self):
        if self.script:
            return self.script.pop(0)
        lines = self.out.getvalue().rstrip().splitlines()
        prompt = [ln for ln in lines if ln.endswith(("?", ":"))][-1]
        if "'roll' or 'double'" in prompt:
            answer, self.doubled = ("roll" if self.doubled else "double"), True
            return answer + "\n"
        if "'take' or 'drop'" in prompt:
            return "take\n"
        if self.asked:  # the answer to 'moves' is in: play the first legal play
            self.asked = False
            legal = [ln for ln in lines if ln.startswith("legal: ")][-1]
            play = legal[len("legal: ") :].split(", ")[0]
            self.moves_seen += 1
            if self.moves_seen == self.plays:
                self.last_prompt = prompt
                self.script = ["undo\n", f"save {self.path}\n", "quit\n"]
            return play + "\n"
        self.asked = True
        return "moves\n"


class MatchFeeder:
    """Plays a ``boardgym play --match`` session: rolls (or, with double, doubles at the first
    chance of each game), takes every double, plays the first legal play (greedy: the one the
    backgammon-greedy agent would choose, read from the board's Position ID). With path, at its
    plays-th move prompt of game save_game it plays, takes the play back ('undo'), saves to
    path and quits; ``shown`` is the board text at that prompt (before the play)."""

    def __init__(self, out, path=None, save_game=2, plays=2, double=False, greedy=False):
        self.out, self.path, self.save_game, self.plays = out, path, save_game, plays
        self.double, self.greedy = double, greedy
        self.doubled_in = set()  # games in which it doubled
        self.script = []
        self.moves_in = {}  # game -> plays made in it
        self.asked = False
        self.shown = None

    def _game(self, lines):
        ids = [ln for ln in lines if ln.startswith(" Match ID ")]
        return int(ids[-1].split("; game ")[1].split(":")[0]) if ids else 1

    def readline(self):
        if self.script:
            return self.script.pop(0)
        lines = self.out.getvalue().rstrip().splitlines()
        prompt = [ln for ln in lines if ln.endswith(("?", ":"))][-1]
        game = self._game(lines)
        if "'roll' or 'double'" in prompt:
            if self.double and game not in self.doubled_in:
                self.doubled_in.add(game)
                return "double\n"
            return "roll\n"
        if "'take' or 'drop'" in prompt:
            return "take\n"
        if self.asked:
            self.asked = False
            legal = [ln for ln in lines if ln.startswith("legal: ")][-1]
            plays = legal[len("legal: ") :].split(", ")
            play = self._best(lines, prompt, plays) if self.greedy else plays[0]
            self.moves_in[game] = self.moves_in.get(game, 0) + 1
            if self.path is not None and game == self.save_game:
                if self.moves_in[game] == self.plays:
                    start = max(k for k, ln in enumerate(lines) if ln.startswith("  13 14 15"))
                    self.shown = "\n".join(lines[start:])
                    self.script = ["undo\n", f"save {self.path}\n", "quit\n"]
            return play + "\n"
        self.asked = True
        return "moves\n"

    def _best(self, lines, prompt, plays):
        """The play among plays the greedy agent prefers, from the last board's Position ID."""
        import numpy as np

        from boardgym.agents.backgammon.agents import GreedyAgent
        from boardgym.envs import backgammon_notation as bg

        pid = [ln for ln in lines if "Position ID " in ln][-1].split("Position ID ")[1].split()[0]
        d1, d2 = (int(d) for d in prompt.split("you rolled ")[1].split(":")[0].split("-"))
        state = bg.position_from_id(pid)
        rows = np.array([bg.parse_play(state, d1, d2, p) for p in plays])
        return plays[int(np.argmax(GreedyAgent().scores(rows)))]
