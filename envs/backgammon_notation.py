"""Backgammon notation and the validated boundary: Position ID, Match ID, play text, state checks.

This module re-exports the three modules the notation is split into, as gnubg splits
positionid.c and matchid.c: ``backgammon_checks`` (the checks of states, batches, dice and
options), ``backgammon_ids`` (gnubg's board form, the Position ID and the Match ID) and
``backgammon_plays`` (the legal plays of a roll and their gnubg-style text). Their docstrings
describe the state checks, both IDs and the play notation. Every public function checks its
input before a kernel sees it and raises ``TypeError`` for a wrong type or ``ValueError`` for a
wrong value, naming the problem.
"""

from boardgym.envs.backgammon_checks import (
    MAX_TURNS,  # noqa: F401 (public: the largest turn cap)
    check_batch,
    check_dice,
    check_match,
    check_match_length,
    check_max_turns,
    check_play_options,
    check_playable,
    check_scoring,
    check_state,
    new_match,
    parse_dice,
    recordable_start,
)
from boardgym.envs.backgammon_ids import (
    board_from_state,
    initial_state,
    match_id,
    parse_match_id,
    position_from_id,
    position_id,
    position_ids,
    state_from_board,
)
from boardgym.envs.backgammon_plays import (
    legal_afterstates,
    legal_plays,
    parse_play,
    play_actions,
    play_to_str,
)
from boardgym.envs.checks import is_int

__all__ = [
    "initial_state",
    "is_int",
    "check_state",
    "check_playable",
    "check_batch",
    "check_dice",
    "parse_dice",
    "check_scoring",
    "check_max_turns",
    "check_match_length",
    "check_play_options",
    "new_match",
    "recordable_start",
    "check_match",
    "state_from_board",
    "board_from_state",
    "position_id",
    "position_from_id",
    "position_ids",
    "legal_plays",
    "legal_afterstates",
    "play_to_str",
    "parse_play",
    "play_actions",
    "match_id",
    "parse_match_id",
]
