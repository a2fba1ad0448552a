"""Board layout and numbering (boardgym/RULES.md "Board and start", "Notation")."""

from boardgym.kernels.draughts.board import (
    BB_SQUARES,
    DIR_OFFSETS,
    GHOST_TO_SQ32,
    N_BITS,
    SQ32_NAMES,
    SQ32_TO_GHOST,
    STEP,
    pdn_to_sq32,
    sq32_to_pdn,
)


def test_ghost_layout_offsets():
    """Every dark square's diagonal neighbours are at +4, +5, -5, -4; off-board steps hit ghosts."""
    ghosts = [g for g in range(N_BITS) if GHOST_TO_SQ32[g] < 0]
    assert ghosts == [4, 13, 22, 31]
    assert int(BB_SQUARES).bit_count() == 32
    for s in range(32):
        g = SQ32_TO_GHOST[s]
        name = SQ32_NAMES[s]
        f, r = "abcdefgh".index(name[0]), int(name[1]) - 1
        assert g == (9 * r + f) // 2
        for d, (dr, df) in enumerate([(1, -1), (1, 1), (-1, -1), (-1, 1)]):
            on_board = 0 <= r + dr < 8 and 0 <= f + df < 8
            n = g + DIR_OFFSETS[d]
            if on_board:
                assert STEP[d, g] == n and SQ32_NAMES[GHOST_TO_SQ32[n]] == "abcdefgh"[f + df] + str(
                    r + dr + 1
                )
            else:
                assert STEP[d, g] == -1
                assert not (0 <= n < N_BITS) or GHOST_TO_SQ32[n] < 0  # a shift lands off the board
        # 180-degree rotation is bit i -> 35 - i.
        assert SQ32_NAMES[GHOST_TO_SQ32[35 - g]] == "abcdefgh"[7 - f] + str(8 - r)


def test_numbering():
    """sq32 a1=0, c1=1, ..., h8=31; PDN 1=b8, 4=h8, 5=a7, 29=a1, 32=g1."""
    assert SQ32_NAMES[:5] == ["a1", "c1", "e1", "g1", "b2"] and SQ32_NAMES[31] == "h8"
    pdn = {1: "b8", 4: "h8", 5: "a7", 29: "a1", 32: "g1", 21: "a3", 12: "h6"}
    for n, name in pdn.items():
        assert SQ32_NAMES[pdn_to_sq32(n)] == name
    assert all(sq32_to_pdn(pdn_to_sq32(n)) == n for n in range(1, 33))
