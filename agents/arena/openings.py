"""Openings where draughts matches start: the 150 three-move ballots of Russian draughts and
two fixed tactics suites, data files of this room (``data/``), and ballot matches (each ballot
played twice, each player White once, through the one match harness).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from boardgym.agents.arena import matches
from boardgym.envs import draughts as api
from boardgym.kernels.draughts import game
from boardgym.kernels.draughts.board import MAX_HOPS, MAX_MOVES, ROW_LEN

if TYPE_CHECKING:
    from boardgym.agents.registry import Agent

DATA = Path(__file__).resolve().parent / "data"
BALLOTS_FILE = DATA / "draughts_ballots.tsv"
TACTICS_FILE = DATA / "draughts_tactics.tsv"
#: shots a 5-ply search misses, proved at depth 12 (the file's header says how it was built)
TACTICS_DEEP_FILE = DATA / "draughts_tactics_deep.tsv"


def read_ballots(path: str | os.PathLike[str] = BALLOTS_FILE) -> list[tuple[str, list[str]]]:
    """[(name, [PDN moves])] of a ballot file."""
    out = []
    for ln in Path(path).read_text().splitlines():
        if not ln.strip() or ln.startswith("#"):
            continue
        name, _, moves = ln.partition("\t")
        out.append((name.strip(), moves.split()))
    return out


def legal_rows(state: np.ndarray) -> npt.NDArray[np.int64]:
    """int64 (n, ROW_LEN): the legal move rows of a draughts state."""
    buf = np.empty((MAX_MOVES, ROW_LEN), dtype=np.int64)
    return buf[: game.gen_moves(state, buf)]


def ballot_actions(moves: Iterable[str]) -> list[int]:
    """The env actions (the acting player's frame, hop by hop) of a ballot's PDN moves."""
    s = game.initial_state()
    hops = np.zeros(MAX_HOPS, dtype=np.int64)
    actions = []
    for mv in moves:
        match = [r for r in legal_rows(s) if api.move_to_str(s, r) == mv]
        if len(match) != 1:
            raise ValueError(f"ballot move {mv!r} is not a legal move of {api.to_fen(s)}")
        n = game.route_actions(s, match[0], hops)
        actions.extend(int(a) for a in hops[:n])
        s = game.play_move(s, match[0])
    return actions


def ballot_match(
    agent_a: Agent,
    agent_b: Agent,
    ballots: Sequence[tuple[str, Sequence[str]]],
    max_moves: int | None,
    progress: Callable[[npt.NDArray[np.float64]], object] | None = None,
) -> npt.NDArray[np.float64]:
    """float64 (2 * len(ballots),): A's points, each ballot played with A White then Black.
    progress(points so far) after each ballot's two games."""
    env = matches.make_env("draughts", max_moves)
    points = np.zeros(2 * len(ballots))
    for k, (_, moves) in enumerate(ballots):
        opening = ballot_actions(moves)
        for seat, seats in enumerate(((agent_a, agent_b), (agent_b, agent_a))):
            p0 = matches.play_game(env, seats, k, opening)
            points[2 * k + seat] = p0 if seat == 0 else -p0
        if progress is not None:
            progress(points[: 2 * k + 2])
    return points


def read_tactics(path: str | os.PathLike[str]) -> list[tuple[str, str, str]]:
    """[(FEN, best PDN move, note)] of a tactics file."""
    out = []
    for ln in Path(path).read_text().splitlines():
        if not ln.strip() or ln.startswith("#"):
            continue
        fen, best, *note = ln.split("\t")
        out.append((fen, best, note[0] if note else ""))
    return out
