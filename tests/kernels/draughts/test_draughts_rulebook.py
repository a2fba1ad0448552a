"""Rulebook: one test per clause of RULES.md (M.1-M.3, 25.1-25.7); FEN -> exact legal set."""
import pytest

from boardgym.envs.draughts import legal_moves

# The worked-examples table of shared/RULES.md, verbatim.
RULES_TABLE = [
    ("25.2 men capture backwards", "W:W15,28:B4,18", ["e5:c3"]),
    ("25.2 free choice, no majority", "W:W22,28:B4,11,17,18", ["c3:a5", "c3:e5:g7"]),
    ("25.3/25.4 king must land where the capture continues", "W:WK29:B5,19,22",
     ["a1:e5:g3", "a1:e5:h2"]),
    ("25.2/25.4 Turkish strike: jumped pieces block", "B:W15,17,21,K23,25,26,30:BK32",
     ["g1:d4:a1", "g1:d4:f6", "g1:d4:g7", "g1:d4:h8"]),
    ("25.5 crowned mid-capture, continues as king", "W:W9,21:B4,6,11", ["b6:d8:g5", "b6:d8:h4"]),
    ("25.5 the same for Black", "B:W25,26,28:B5,23", ["e3:c1:a3"]),
    ("25.6 quiet promotion, no capture that move", "W:W6:B4", ["c7-b8", "c7-d8"]),
]


@pytest.mark.parametrize("clause,fen,expected", RULES_TABLE, ids=[r[0] for r in RULES_TABLE])
def test_rules_md_worked_examples(clause, fen, expected):
    """Each row of the RULES.md worked-examples table gives exactly its legal set."""
    assert legal_moves(fen) == sorted(expected)
