"""The game core (kernels/draughts/game.py): the acting player's frame, whole moves with their
routes, outcome and rewards with truncation, the observation decoder, the content check."""

from pathlib import Path

import numpy as np
import pytest

from boardgym.kernels.draughts import game
from boardgym.kernels.draughts.board import (
    HIST_LEN,
    M_CAPTURED,
    MAX_HOPS,
    MAX_MOVES,
    ROW_LEN,
    S_CAP_SQ,
    S_HIST,
    S_HIST_N,
    S_PLY,
    S_SIDE,
    STATE_LEN,
)
from boardgym.kernels.draughts.codec import apply_action, legal_action_mask
from boardgym.kernels.draughts.observe import OBS_LEN, decode_obs, encode_obs
from boardgym.kernels.draughts.opponents import material, recapture_move
from boardgym.kernels.draughts.outcome import BLACK_WON, ONGOING, WHITE_WON
from boardgym.kernels.rng import seed_rngs

DATA = Path(__file__).resolve().parents[2] / "data" / "draughts_oracle_positions.tsv"


@pytest.fixture(scope="module")
def chain_positions():
    """Oracle-file positions with long chains, king multi-captures or Turkish strikes."""
    from boardgym.envs.draughts import from_fen

    out = []
    for line in DATA.read_text().splitlines():
        fen, tags = line.split("\t")[:2]
        if {"long", "kingmulti", "turkish"} & set(tags.split(",")) and len(out) < 300:
            out.append(from_fen(fen))
    return out


def _walk_hops(positions):
    """The positions plus every mid-chain state reached hop by hop from them (depth first)."""
    out, mask = [], np.zeros(game.N_ACTIONS, np.int8)

    def walk(s):
        out.append(s)
        legal_action_mask(s, mask)
        for a in np.flatnonzero(mask):
            t = apply_action(s, np.int64(a))
            if t[S_CAP_SQ] >= 0:
                walk(t)

    for s in positions:
        walk(s)
    return out


def test_initial_state_and_rules():
    s = game.initial_state()
    assert s.shape == (STATE_LEN,) and s.dtype == np.int64
    assert game.state_error(s) == game.ERR_NONE and s[S_SIDE] == 0
    assert game.initial_state(3)[13] == 3  # the draw-rule mask (S_RULES)


def test_mover_frame_mask_and_step_are_the_kernel_frame_turned_for_black(
    playout_positions, chain_positions
):
    """legal_mask/step in the acting player's frame == the kernel frame through view_action."""
    kernel, mover = np.zeros(1024, np.int8), np.zeros(1024, np.int8)
    for s in _walk_hops(playout_positions + chain_positions):
        side = int(s[S_SIDE])
        n = legal_action_mask(s, kernel)
        assert game.legal_mask(s, mover) == n
        np.testing.assert_array_equal(mover, kernel[game.VIEW_ACTION[side]])
        for a in np.flatnonzero(mover)[:3]:
            ka = game.view_action(side, a)
            assert ka == (a if side == 0 else 1023 - a)
            np.testing.assert_array_equal(game.step(s, np.int64(a)), apply_action(s, np.int64(ka)))


def test_square_and_action_encodings():
    for f in range(32):
        for t in range(32):
            a = game.square_action(f, t)
            assert game.action_squares(a) == (f, t)
            assert game.view_action(1, a) == game.square_action(31 - f, 31 - t)
            assert game.view_square(1, f) == 31 - f and game.view_square(0, f) == f
    assert game.encode_action(*game.decode_action(9 * 32 + 13)) == 9 * 32 + 13


def test_routes_of_every_move_replay_to_the_move(playout_positions, chain_positions):
    """route_actions played by step reach play_move's position; move_route gives the squares."""
    rows = np.zeros((MAX_MOVES, ROW_LEN), np.int64)
    hops = np.zeros(MAX_HOPS, np.int64)
    route = np.zeros(game.ROUTE_LEN, np.int64)
    mask = np.zeros(1024, np.int8)
    checked = mid = 0
    for s in _walk_hops(playout_positions + chain_positions):
        n = game.gen_moves(s, rows)
        for r in rows[:n]:
            k = game.route_actions(s, r, hops)
            assert game.move_route(s, r, route) == k + 1
            t = s
            for a in hops[:k]:
                assert game.legal_mask(t, mask) > 0 and mask[a]
                t = game.step(t, a)
            np.testing.assert_array_equal(t, game.play_move(s, r))
            assert game.hop_route(s, hops[:k], route) == k + 1
            checked += 1
        mid += s[S_CAP_SQ] >= 0
    assert checked > 1000 and mid > 100


def test_is_capture_marks_compulsory_captures(playout_positions, chain_positions):
    rows = np.zeros((MAX_MOVES, ROW_LEN), np.int64)
    for s in _walk_hops(playout_positions + chain_positions):
        n = game.gen_moves(s, rows)
        if n:
            assert game.is_capture(s) == (rows[0, M_CAPTURED] != 0)


def test_result_truncation_and_zero_sum_rewards(playout_positions):
    s = game.initial_state()
    assert game.result(s, 0) == (ONGOING, False)
    s = s.copy()
    s[S_PLY] = 40
    assert game.result(s, 40) == (ONGOING, True) and game.result(s, 41) == (ONGOING, False)
    assert game.result(s, 0) == (ONGOING, False)  # 0: no cap
    for s in _walk_hops(playout_positions):
        code, trunc = game.result(s, 1)
        if s[S_CAP_SQ] >= 0:
            assert (code, trunc) == (ONGOING, False)  # a chain in progress is never cut
        assert game.reward(code, 0) == -game.reward(code, 1)
    assert (game.reward(WHITE_WON, 0), game.reward(BLACK_WON, 0)) == (1.0, -1.0)
    assert game.reward(ONGOING, 1) == 0.0


def test_observation_decoder_inverts_the_encoder(playout_positions, chain_positions):
    """decode_obs(encode_obs(s, side to move)) is s seen by the mover (White in its own frame)."""
    obs, back = np.zeros(OBS_LEN, np.float32), np.zeros(OBS_LEN, np.float32)
    for s in _walk_hops(playout_positions + chain_positions):
        side = int(s[S_SIDE])
        encode_obs(s, side, 0, obs)
        d, code = decode_obs(obs, 31)
        assert code == 0 and game.state_error(d) == game.ERR_NONE and d[S_SIDE] == 0
        encode_obs(d, 0, 0, back)
        np.testing.assert_array_equal(back[:192], obs[:192])  # pieces and chain planes
        kernel, mover = np.zeros(1024, np.int8), np.zeros(1024, np.int8)
        game.legal_mask(s, mover)
        legal_action_mask(d, kernel)
        np.testing.assert_array_equal(kernel, mover)


def test_state_error_accepts_every_position_of_play(playout_positions, chain_positions):
    states = _walk_hops(playout_positions + chain_positions)
    assert all(game.state_error(s) == game.ERR_NONE for s in states)
    assert game.batch_error(np.stack(states)) == (-1, game.ERR_NONE)


def test_state_error_never_crashes_on_random_vectors():
    """The content check is safe on any int64 vector: garbage is refused, never indexed."""
    rng = np.random.default_rng(1)
    base = game.initial_state()
    extremes = np.array([-(2**63), -(2**31), -1, 0, 1, 35, 36, 63, 64, 2**31, 2**62, 2**63 - 1])
    for _ in range(3000):
        s = base.copy()
        idx = rng.integers(0, STATE_LEN, int(rng.integers(1, 6)))
        s[idx] = (
            rng.choice(extremes, idx.size)
            if rng.random() < 0.5
            else rng.integers(-(2**63), 2**63 - 1, idx.size, dtype=np.int64, endpoint=True)
        )
        code = game.state_error(s)
        assert 0 <= code < len(game.STATE_ERRORS)
    assert all(
        game.state_error(rng.integers(-(2**63), 2**63 - 1, STATE_LEN, dtype=np.int64)) != 0
        for _ in range(200)
    )


def test_history_ring_must_end_in_the_position_hash():
    s = game.initial_state().copy()
    s[S_HIST_N] = 5
    assert game.state_error(s) == game.ERR_HISTORY
    s[S_HIST + 4 % HIST_LEN] = s[S_HIST]
    assert game.state_error(s) == game.ERR_NONE


def test_recapture_player_avoids_the_move_that_loses_a_man():
    """The recapture player (OPP_GREEDY): of c3-b4, c3-d4, g3-f4, g3-h4 against a Black man on
    e5, the two that let e5 capture lose a man; it plays one of the other two."""
    from boardgym.envs.draughts import apply, from_fen

    s = from_fen("W:Wc3,g3:Be5")
    rngs = seed_rngs(0, 1)
    seen = set()
    for _ in range(30):
        t = recapture_move(s, rngs, 0)
        assert not game.is_capture(t) and material(t, 0) == material(s, 0) == 1
        seen.update(m for m in ("c3-b4", "g3-h4") if np.array_equal(t, apply(s, m)))
    assert seen == {"c3-b4", "g3-h4"}  # ties broken at random


def test_recapture_player_takes_the_bigger_capture():
    from boardgym.envs.draughts import from_fen

    s = from_fen("W:Wc3,g3:Bd4,f4,d6")  # c3:e5:c7 takes two, g3:e5 or c3:e5 one
    t = recapture_move(s, seed_rngs(0, 1), 0)
    assert material(t, 0) - material(s, 0) == 2


def _live_words(s):
    """The indices of the words of position s the game reads: its fields and the live part of
    its history (the last min(S_HIST_N, HIST_LEN) entries)."""
    from boardgym.kernels.draughts.board import HIST_LEN, S_HIST, S_HIST_N

    n = int(s[S_HIST_N])
    return list(range(S_HIST)) + [S_HIST + k % HIST_LEN for k in range(max(0, n - HIST_LEN), n)]


def test_apply_move_live_into_gives_every_word_the_game_reads(playout_positions, chain_positions):
    """The search's child (move.apply_move_live_into) is apply_move's position in every word the
    game reads (fields, hash, counters, live history), whatever its row held before, and so are
    the moves after it; the parent and the row's neighbours are untouched. Two kings shuttling
    (out of each other's way) for three times the history's ring are among the positions (a
    history that wraps round)."""
    from boardgym.envs.draughts import apply, from_fen
    from boardgym.kernels.draughts.board import HIST_LEN, S_HIST_N
    from boardgym.kernels.draughts.move import apply_move, apply_move_live_into
    from boardgym.kernels.draughts.outcome import game_status, repetition_count

    rows = np.empty((MAX_MOVES, ROW_LEN), np.int64)
    rng = np.random.default_rng(4)
    shuffle = [from_fen("W:WKa1:BKh6")]
    for k in range(3 * HIST_LEN):
        shuffle.append(apply(shuffle[-1], ("a1-b2", "h6-g5", "b2-a1", "g5-h6")[k % 4]))
    assert shuffle[-1][S_HIST_N] > 2 * HIST_LEN
    out = np.full((3, STATE_LEN), -7, np.int64)
    checked = 0
    for s in playout_positions + chain_positions + shuffle:
        before = s.copy()
        for r in rows[: game.gen_moves(s, rows)].copy():
            out[1] = rng.integers(-(2**62), 2**62, STATE_LEN)  # whatever the row held
            apply_move_live_into(s, r, out[1])
            full = apply_move(s, r)
            words = _live_words(full)
            assert np.array_equal(out[1, words], full[words])
            assert repetition_count(out[1]) == repetition_count(full)
            assert game_status(out[1]) == game_status(full)
            nxt = np.empty((MAX_MOVES, ROW_LEN), np.int64)
            for r2 in nxt[: game.gen_moves(full, nxt)][:2]:
                apply_move_live_into(out[1], r2, out[2])
                after = apply_move(full, r2)
                assert np.array_equal(out[2, _live_words(after)], after[_live_words(after)])
                assert repetition_count(out[2]) == repetition_count(after)
            checked += 1
        assert np.array_equal(s, before)
        assert (out[0] == -7).all()
    assert checked > 1000
