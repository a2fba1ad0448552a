"""Play an agent in the terminal: the board with coordinates, moves typed in the usual notation.

    python scripts/play.py --game draughts --agent draughts-alphabeta-material --seat 0
    python scripts/play.py --game backgammon --agent backgammon-td --seat 1 --seed 7

Draughts moves: ``c3-d4``, ``c3:e5:g3`` (or ``c3xe5``, numeric ``22-17``; a capture may be given by
its start and end when that is unambiguous). Backgammon plays: ``24/18 13/11``, ``bar/22*``,
``6/off``, ``8/5(2)``; the dice are shown and rolled by the env (seeded by ``--seed``).
Commands: ``moves`` lists the legal moves, ``undo`` takes back your last move (and the agent's
reply), ``quit`` ends. Illegal input is answered with the legal options. The agent is any name
``boardgym.agents.load`` knows, or a checkpoint path (``.zip``/``.pt`` MaskablePPO policy, ``.npz``
TD net for backgammon or learned evaluation for the draughts alpha-beta search).
Input is read line by line from standard input, so a session can be scripted.
"""
import argparse
import copy
import sys
from dataclasses import dataclass

import numpy as np


@dataclass
class Settings:
    game: str = "draughts"
    """draughts or backgammon"""
    agent: str = "greedy"
    """agent name for boardgym.agents.load, or a checkpoint path"""
    seat: int = 0
    """your seat: 0 (White / player_0, moves first in draughts) or 1"""
    seed: int = 0
    """seed of the env (backgammon dice) and of the agent"""


def _load_agent(cfg):
    from boardgym.agents import load
    if cfg.agent.endswith((".zip", ".pt")):
        from boardgym.agents.ppo import PPOAgent
        return PPOAgent(cfg.agent)
    if cfg.agent.endswith(".npz"):  # backgammon: a TD net; draughts: a learned evaluation
        if cfg.game == "draughts":
            return load("draughts-alphabeta", weights=cfg.agent)
        from boardgym.agents.backgammon_agents import TDAgent
        return TDAgent(weights=cfg.agent)
    try:
        return load(cfg.agent, game=None if cfg.agent.startswith(("draughts-", "backgammon-"))
                    else cfg.game, seed=cfg.seed)
    except TypeError:
        return load(cfg.agent, game=cfg.game)


class _Draughts:
    def __init__(self, seed):
        from boardgym.envs import draughts as api
        from boardgym.envs import russian_draughts_v0
        from boardgym.kernels.draughts.game import VIEW_ACTION
        self.api, self.view = api, VIEW_ACTION
        self.env = russian_draughts_v0.raw_env()
        self.env.reset(seed=seed)

    def legal(self):
        return self.api.legal_moves(self.env.state)

    def play_text(self, text):
        """Play the person's move; ValueError if it is not legal."""
        from boardgym.kernels.draughts.board import S_SIDE
        state = self.env.state
        side = int(state[S_SIDE])
        for a in self.api.move_to_actions(state, text):  # kernel frame -> the mover's frame
            self.env.step(int(self.view[side, a]))

    def header(self):
        return ""


class _Backgammon:
    def __init__(self, seed):
        from boardgym.envs import backgammon_notation as api
        from boardgym.envs import backgammon_v0
        self.api = api
        self.env = backgammon_v0.raw_env(scoring="gammon")
        self.env.reset(seed=seed)

    def _dice(self):
        return self.env.infos[self.env.agent_selection]["dice"]

    def legal(self):
        from boardgym.kernels.backgammon.movegen import MAX_AFTERSTATES, gen_afterstates
        d1, d2 = self._dice()
        state = self.env.state
        rows = np.zeros((MAX_AFTERSTATES, state.shape[0]), np.int64)
        n = gen_afterstates(state, d1, d2, rows)
        return sorted(self.api.play_to_str(state, d1, d2, rows[k]) for k in range(n))

    def play_text(self, text):
        d1, d2 = self._dice()
        for a in self.api.play_actions(self.env.state, d1, d2, text):  # ValueError if illegal
            self.env.step(a)

    def header(self):
        passes = self.env.infos[self.env.agent_selection]["passes"]
        lost = "".join(f"{who} rolled {d[0]}-{d[1]} and could not move.\n" for who, d in passes)
        return lost


def main(args=None, stdin=None, out=None):
    """Run an interactive game; returns the final rewards dict."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=["draughts", "backgammon"], default=Settings.game)
    p.add_argument("--agent", default=Settings.agent)
    p.add_argument("--seat", type=int, choices=[0, 1], default=Settings.seat)
    p.add_argument("--seed", type=int, default=Settings.seed)
    cfg = Settings(**vars(p.parse_args(args)))
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if out is None else out
    game = (_Draughts if cfg.game == "draughts" else _Backgammon)(cfg.seed)
    agent = _load_agent(cfg)
    me = f"player_{cfg.seat}"
    env = game.env
    history = []

    def say(text):
        print(text, file=out, flush=True)

    while not env.is_over:
        if env.agent_selection != me:
            if hasattr(agent, "act_state"):
                action = agent.act_state(env.state)
            else:
                obs = env.observe(env.agent_selection)
                action = agent.act(obs["observation"], obs["action_mask"])
            env.step(int(action))
            continue
        say(game.header() + env.render_text())
        say(f"your move ({me}); 'moves', 'undo', 'quit':")
        line = stdin.readline()
        if not line:
            say("end of input")
            break
        text = line.strip()
        if text == "quit":
            break
        if text == "moves":
            say("legal: " + ", ".join(game.legal()))
            continue
        if text == "undo":
            if history:
                game.env = env = history.pop()
                say("taken back")
            else:
                say("nothing to take back")
            continue
        before = copy.deepcopy(env)
        try:
            game.play_text(text)
        except ValueError as e:
            game.env = env = before
            say(f"illegal: {e}\nlegal: {', '.join(game.legal())}")
            continue
        history.append(before)
    if env.is_over:
        say(env.render_text())
        say(f"game over: rewards {env.rewards}")
    return dict(env.rewards)


if __name__ == "__main__":
    main()
