"""What the web board's page draws: a position as JSON, and the frames of a replayed record."""

import numpy as np

from boardgym.envs import backgammon_render, draughts_render, records
from boardgym.kernels.draughts.board import GHOST_TO_SQ32, S_CAP_JUMPED, S_CAP_SQ, S_SIDE

_MATCH_FRAME_KEYS = ("caption", "game", "score", "match_length", "score_after")


def draughts_board(state, last_move=None):
    """The page's draughts board: piece codes per sq32 (0 empty, 1/2 White man/king, 3/4 Black),
    the side to move, the capturing piece, the pieces already jumped and the route of the last
    move (last_move, its PDN text; sq32 squares, start first; [] for none)."""
    cap = int(state[S_CAP_SQ])
    jumped = ((int(state[S_CAP_JUMPED]) >> draughts_render.SQ32_TO_GHOST) & 1).astype(bool)
    return {
        "pieces": draughts_render.piece_codes(state).tolist(),
        "side": int(state[S_SIDE]),
        "capturing": -1 if cap < 0 else int(GHOST_TO_SQ32[cap]),
        "jumped": np.flatnonzero(jumped).tolist(),
        "last_move": draughts_render.move_squares(last_move),
    }


def backgammon_board(state, perspective, last_move=None):
    """The page's backgammon board (backgammon_render.absolute_view as JSON) with the last play
    (last_move, the env's turn record) as {player, moves: [[from, to], ...]} in the board's
    numbering (25 = bar, 0 = off; player -1 and no moves for none)."""
    v = backgammon_render.absolute_view(state, perspective)
    player, moves = backgammon_render.move_points(last_move, perspective)
    return {
        "x": v["x"].tolist(),
        "o": v["o"].tolist(),
        "bar": list(v["bar"]),
        "off": list(v["off"]),
        "pips": list(v["pips"]),
        "turn": v["turn"],
        "dice": v["dice"],
        "cube": list(v["cube"]),
        "perspective": v["perspective"],
        "last_move": {"player": player, "moves": [[a, b] for a, b, _ in moves]},
    }


def replay_frames(text):
    """(game, frames, match) of a PDN file or a match file: every position with the move that led
    to it, marked on its board ([{board, caption}]; a match file's frames also with game, score,
    match_length); match describes the games (None for a single PDN game); ValueError naming
    what is wrong."""
    game, frames, match = records.record_frames(text)
    if game == "draughts":
        return (
            game,
            [
                {"board": draughts_board(f["state"], f.get("last_move")), "caption": f["caption"]}
                for f in frames
            ],
            match,
        )
    out = []
    for f in frames:
        board = backgammon_board(f["state"], 0, f.get("last_move"))
        board.update({k: f[k] for k in ("dice", "offered", "turn") if k in f})
        out.append({"board": board, **{k: f[k] for k in _MATCH_FRAME_KEYS if k in f}})
    return game, out, match
