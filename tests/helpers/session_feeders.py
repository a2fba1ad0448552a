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
