"""Batched backgammon: N games (or matches) in one ``(N, STATE_LEN)`` array, stepped by parallel
kernels.

Same protocol as the draughts batch (boardgym.kernels.draughts.batch): outputs ``obs``
float32[N, O], ``masks`` int8[N, A], ``current`` int64[N] (player to act), ``rewards``
float32[N, 2], ``done`` int8[N, 2] (terminated, truncated); the perspective player is the one to
act (two-player mode, ``OPP_NONE``) or the learner's seat ``seats[i]`` against an in-kernel
opponent (``OPP_RANDOM`` / ``OPP_GREEDY`` of kernels/players.py, played by opponents.py).

The kernels take three tuples:
- ``games = (states, seats, rngs, rolls, offered, matches)``: per game, ``rngs[i]`` its
  SplitMix64 dice stream (the random opponent draws its moves from it too, so game i of a batch
  seeded S plays like the single env seeded S + i), ``rolls[i]`` the rolls of the game in play
  (for ``max_turns`` truncation), ``offered[i]`` 1 while a double awaits take/drop,
  ``matches[i]`` its match state (int64[MATCH_LEN], match.py; length 0 in money play);
- ``outs = (obs, masks, current, rewards, done, last)``: ``last`` int64[N, LAST_LEN] holds the
  game's latest roll and the one before it (two records R_* in turn, ``last[i, LATEST]`` the
  slot of the latest: player, dice, in play, its checker moves (from, to, hit) in the mover's
  numbering), from which the single env's ``last_move()`` follows (the latest roll once it has a
  move or is over, else the one before; none at the start of a game), for pictures; int64[N, 0]
  records nothing, at no cost;
- ``play = (opponent, max_turns, scoring, cube, match_length, match_reward)`` (int64): scoring
  game.SCORING_SINGLE / SCORING_GAMMON; cube 0/1 (A = N_ACTIONS_CUBE, cube actions in the masks
  where cube.py allows them); match_length 0 (money play: one episode is one game) or N (one
  episode is one match to N points: each finished game is credited by match_award and the next
  one starts in the same call, its cube limit from set_cube_limit; O = OBS_LEN + MATCH_OBS_LEN);
  match_reward ``REWARD_MATCH`` (+1 / -1 at the end of the match) or ``REWARD_POINTS`` (each
  game's credited points as it ends).
The in-kernel opponents answer cube decisions as the agents' "cubeless" cube policy does: they
never double and take every double (drawing nothing from the stream).

Every rule and every turn goes through the game core (game.py): step_masked, cube_step_inplace,
finish_turn_inplace, start, legal_mask, result, dropped_result, and match.py's match_init,
match_award, set_cube_limit (the in-place forms: positions are stepped in their rows, and the
mask that tells whether the mover's play goes on is the mask handed out).
``batch_step_autoreset`` is ``batch_step`` then ``batch_reset`` of the finished games (or
matches) in one call (the vector envs' same-step autoreset), keeping their last observation,
reward and end flags.
"""

import numpy as np
from numba import njit, prange

from boardgym.kernels.backgammon.board import TURN
from boardgym.kernels.backgammon.codec import N_ACTIONS, mask_work
from boardgym.kernels.backgammon.game import (
    ACTION_ROLL,
    ACTION_TAKE,
    CUBE_DECISION,
    GAME_OVER,
    ROLLED,
    cube_step_inplace,
    dice_of,
    dropped_result,
    finish_turn_inplace,
    is_truncation,
    legal_mask,
    move_of_action,
    result,
    start,
    step_masked,
)
from boardgym.kernels.backgammon.match import (
    match_award,
    match_init,
    match_over,
    set_cube_limit,
)
from boardgym.kernels.backgammon.observe import OBS_LEN, encode_match_obs, encode_obs
from boardgym.kernels.backgammon.opponents import greedy_play, greedy_turn, random_turn_inplace
from boardgym.kernels.players import OPP_GREEDY, OPP_NONE

REWARD_MATCH = 0  # +1 / -1 to the match winner at the end of the match
REWARD_POINTS = 1  # each game's credited points (+ winner, - loser) as the game ends

# a game's row of ``last``: which slot holds the latest roll (the other: the one before), then
# the two slots, each a roll's record
R_PLAYER = 0  # who rolled (-1: no roll)
R_D1, R_D2 = 1, 2  # the dice
R_IN_PLAY = 3  # 1 while its play goes on
R_N = 4  # checker moves made
R_MOVES = 5  # (from, to, hit) of each, the mover's numbering (25 the bar, 0 off)
R_LEN = R_MOVES + 3 * 4
LATEST = 0  # 0 or 1: the slot of the latest roll
SLOTS = 1  # slot k starts at SLOTS + k * R_LEN
LAST_LEN = SLOTS + 2 * R_LEN
MAX_PASSES = 64  # lost rolls kept per call (as many as the single env keeps)


@njit(cache=True)
def _scratch(outs):
    """(passes, stk): the lost-roll buffer (MAX_PASSES kept when outs records last moves, else
    none) and the mask search's scratch of a block of games (one block per thread and call)."""
    n = MAX_PASSES if outs[5].shape[1] > 0 else 0
    return np.empty((n, 3), dtype=np.int64), np.empty(15, dtype=np.int64)


@njit(cache=True, inline="always")
def _push_roll(last, player, d1, d2, in_play):
    """A new roll becomes the latest (the latest so far the one before)."""
    slot = 1 - last[LATEST]
    last[LATEST] = slot
    at = SLOTS + slot * R_LEN
    last[at + R_PLAYER] = player
    last[at + R_D1] = d1
    last[at + R_D2] = d2
    last[at + R_IN_PLAY] = in_play
    last[at + R_N] = 0


@njit(cache=True, inline="always")
def _note_move(last, s, a):
    """Checker action a of the roll in play, before it is made on s."""
    if last.shape[0] == 0:
        return
    at = SLOTS + last[LATEST] * R_LEN
    n = last[at + R_N]
    if last[at + R_PLAYER] >= 0 and last[at + R_IN_PLAY] != 0 and n < 4:
        fr, to, _, hit = move_of_action(s, a)
        last[at + R_MOVES + 3 * n] = fr
        last[at + R_MOVES + 3 * n + 1] = to
        last[at + R_MOVES + 3 * n + 2] = hit
        last[at + R_N] = n + 1


@njit(cache=True, inline="always")
def _note_turns(last, s, status, lost, passes):
    """After a turn ended (or a cube action): the latest roll is over, then the lost rolls
    (passes[:lost], each (player, d1, d2)) and the roll that began, if one did (status ROLLED)."""
    if last.shape[0] == 0:
        return
    last[SLOTS + last[LATEST] * R_LEN + R_IN_PLAY] = 0
    for p in range(min(lost, passes.shape[0])):
        _push_roll(last, passes[p, 0], passes[p, 1], passes[p, 2], 0)
    if status == ROLLED:
        hi, lo = dice_of(s)
        _push_roll(last, s[TURN], hi, lo, 1)


@njit(cache=True, inline="always")
def _clear_last(last):
    """A new game: no roll yet."""
    if last.shape[0] > 0:
        last[SLOTS + R_PLAYER] = -1
        last[SLOTS + R_LEN + R_PLAYER] = -1


@njit(cache=True, inline="always")
def _actor(s, offered):
    """The player to act: the one on roll, or its opponent while a double is offered."""
    return s[TURN] ^ offered


@njit(cache=True)
def _opponent_plays(s, status, i, games, play, scratch, passes, stk, last):
    """The in-kernel opponent acts on s while it is to act -> the status after it; scratch:
    int8[N_ACTIONS]. Cube decisions: it rolls (never doubles) and takes. Its rolls and plays
    are noted in last (game i's row)."""
    _, seats, rngs, rolls, offered, _ = games
    opponent, max_turns, _, cube, _, _ = play
    seat = seats[i]
    # the opponent's checker moves, worked out only when last records them (random_turn_inplace
    # fills no more rows than moves has)
    moves = np.empty((4 if last.shape[0] > 0 else 0, 3), dtype=np.int64)
    while True:
        if status == ROLLED and s[TURN] != seat:
            made = 0
            if opponent == OPP_GREEDY and last.shape[0] == 0:
                s[:] = greedy_turn(s)
            elif opponent == OPP_GREEDY:  # the same play, with its route
                after, made = greedy_play(s, moves)
                s[:] = after
            else:
                made = random_turn_inplace(s, rngs[i : i + 1], np.int64(0), scratch, stk, moves)
            at = SLOTS + last[LATEST] * R_LEN if last.shape[0] > 0 else -1
            if at >= 0 and last[at + R_PLAYER] >= 0 and last[at + R_IN_PLAY] != 0:
                for m in range(min(made, 4)):
                    for f in range(3):
                        last[at + R_MOVES + 3 * m + f] = moves[m, f]
                last[at + R_N] = min(made, 4)
            status, rolls[i], lost = finish_turn_inplace(
                s, rngs[i : i + 1], rolls[i], max_turns, cube != 0, passes
            )
            _note_turns(last, s, status, lost, passes)
        elif status == CUBE_DECISION and _actor(s, offered[i]) != seat:
            answer = ACTION_TAKE if offered[i] != 0 else ACTION_ROLL
            status, offered[i], rolls[i], lost = cube_step_inplace(
                s, answer, rngs[i : i + 1], rolls[i], max_turns, passes
            )
            _note_turns(last, s, status, lost, passes)
        else:
            return status


@njit(cache=True, inline="always")
def _new_game(s, i, games, play, passes, last):
    """Start the next game of game i in its row s (the opening roll from its stream; the cube
    limit of its match; its rolls from the first in last) -> status."""
    _, _, rngs, rolls, offered, matches = games
    _, max_turns, _, _, _, _ = play
    st, status, rolls[i], lost = start(rngs[i : i + 1], max_turns, passes)
    s[:] = st
    set_cube_limit(s, matches[i])
    offered[i] = 0
    _clear_last(last)
    _note_turns(last, s, status, lost, passes)
    return status


@njit(cache=True, inline="always")
def _finish(s, status, k, dropped, i, games, play, outs, passes, stk):
    """Let the in-kernel opponent act (on s itself), credit a finished game to the match and
    start the next one while the match goes on, then fill game i's outputs; k > 0 says masks[i]
    already holds the mask of s (a play going on); dropped: the last action dropped a double."""
    _, seats, _, _, offered, matches = games
    opponent, _, scoring, cube, length, match_reward = play
    obs, masks, current, rewards, done, last = outs
    r0 = 0.0  # player 0's reward at this step
    over = False
    while True:
        if (
            not dropped
            and opponent != OPP_NONE
            and (status == ROLLED or status == CUBE_DECISION)
            and _actor(s, offered[i]) != seats[i]
        ):
            status = _opponent_plays(
                s, status, i, games, play, masks[i, :N_ACTIONS], passes, stk, last[i]
            )
            k = 0
        if dropped:
            winner, _, pts = dropped_result(s)
        else:
            winner, _, pts = result(s, scoring)
        if winner < 0:
            break
        if length == 0:
            r0 = pts if winner == 0 else -pts
            over = True
            break
        credit = match_award(matches[i], winner, pts)
        if match_reward == REWARD_POINTS:
            r0 += credit if winner == 0 else -credit
        if match_over(matches[i]):
            if match_reward == REWARD_MATCH:
                r0 = 1.0 if winner == 0 else -1.0
            over = True
            break
        status = _new_game(s, i, games, play, passes, last[i])
        dropped = False
        k = 0
    rewards[i, 0] = r0
    rewards[i, 1] = -r0
    trunc = not over and is_truncation(status)
    done[i, 0] = over
    done[i, 1] = trunc
    side = _actor(s, offered[i])
    view = side if opponent == OPP_NONE else seats[i]
    encode_obs(s, view, obs[i])
    if cube != 0:
        obs[i, OBS_LEN - 1] = offered[i]
    if length > 0:
        encode_match_obs(matches[i], view, obs[i], OBS_LEN)
    if k > 0:
        pass  # masks[i] is already the mask of s
    elif over or trunc or (opponent != OPP_NONE and side != seats[i]):
        masks[i, :] = 0
    elif cube != 0:
        legal_mask(s, True, offered[i] != 0, masks[i])
    else:
        mask_work(s, masks[i], stk)  # _fill_mask on the row itself
    current[i] = side


@njit(cache=True, inline="always")
def _fill_mask(s, finished, seat, offered, opponent, cube, mask):
    """The mask of a game: the legal actions while it goes on and its perspective player is to
    act (the one to act, or the learner's seat against an in-kernel opponent), else all zero."""
    if finished or (opponent != OPP_NONE and _actor(s, offered) != seat):
        mask[:] = 0
    else:
        legal_mask(s, cube, offered != 0, mask)


@njit(cache=True)
def snapshot_mask_error(states, done, seats, offered, opponent, cube, masks):
    """First game whose mask differs from what its (validated) state, done flags, offered flag
    and seat give (-1 if none): a restored snapshot must be one the kernels could have written."""
    want = np.empty(masks.shape[1], dtype=np.int8)
    for i in range(states.shape[0]):
        _fill_mask(
            states[i],
            done[i, 0] != 0 or done[i, 1] != 0,
            seats[i],
            offered[i],
            opponent,
            cube,
            want,
        )
        for a in range(masks.shape[1]):
            if want[a] != masks[i, a]:
                return i
    return -1


@njit(cache=True, inline="always")
def _step_game(i, a, games, play, outs, passes, stk):
    """Play action a in game i and continue it until its perspective player must act or it (its
    match) ends."""
    states, _, rngs, rolls, offered, _ = games
    _, max_turns, _, cube, _, _ = play
    masks, last = outs[1], outs[5][i]
    s = states[i]
    dropped = False
    k = 0
    if a >= N_ACTIONS:
        status, offered[i], rolls[i], lost = cube_step_inplace(
            s, a, rngs[i : i + 1], rolls[i], max_turns, passes
        )
        dropped = status == GAME_OVER
        _note_turns(last, s, status, lost, passes)
    else:
        _note_move(last, s, a)
        status, rolls[i], lost, k = step_masked(
            s, a, rngs[i : i + 1], rolls[i], max_turns, cube != 0, passes, masks[i, :N_ACTIONS], stk
        )
        if k == 0:  # the play is over
            _note_turns(last, s, status, lost, passes)
    _finish(s, status, k, dropped, i, games, play, outs, passes, stk)


@njit(cache=True, inline="always")
def _start_game(i, alternate, games, play, outs, passes, stk):
    """Start game i afresh: a new match at 0-0 (match length 0 in money play), its first game's
    opening roll from its stream; with alternate the learner changes seat."""
    states, seats, _, _, _, matches = games
    length = play[4]
    if alternate:
        seats[i] = 1 - seats[i]
    match_init(length, 0, 0, 0, matches[i])
    s = states[i]
    status = _new_game(s, i, games, play, passes, outs[5][i])
    _finish(s, status, 0, False, i, games, play, outs, passes, stk)


@njit(cache=True)
def _step_block(lo, hi, actions, games, play, outs):
    passes, stk = _scratch(outs)
    for i in range(lo, hi):
        if actions[i] < 0:
            continue
        _step_game(i, actions[i], games, play, outs, passes, stk)


@njit(cache=True)
def _reset_block(lo, hi, which, alternate, games, play, outs):
    passes, stk = _scratch(outs)
    for i in range(lo, hi):
        if which[i] == 0:
            continue
        _start_game(i, alternate, games, play, outs, passes, stk)


@njit(cache=True)
def _autoreset_block(
    lo, hi, actions, alternate, games, play, outs, seat_rewards, seat_done, final, final_matches
):
    passes, stk = _scratch(outs)
    seats = games[1]
    obs, _, _, rewards, done, _ = outs
    for i in range(lo, hi):
        _step_game(i, actions[i], games, play, outs, passes, stk)
        seat_rewards[i] = rewards[i, seats[i]]
        seat_done[i, 0] = done[i, 0]
        seat_done[i, 1] = done[i, 1]
        if done[i, 0] == 0 and done[i, 1] == 0:
            continue
        final[i, :] = obs[i, :]
        final_matches[i, :] = games[5][i, :]
        _start_game(i, alternate, games, play, outs, passes, stk)


# Serial and parallel builds of the same block functions, both cached (the parallel ones take the
# block count from the caller); see draughts/batch.py. The prange bodies call the block
# functions rather than inline them: inlined, the parfor build wrote wrong ``current`` entries.
@njit(cache=True)
def batch_step_serial(actions, games, play, outs):
    """Apply actions[i] (legal actions of the player to act; -1 skips game i) and continue each
    game until its perspective player must act or it ends; fill the outputs."""
    _step_block(0, games[0].shape[0], actions, games, play, outs)


@njit(parallel=True, cache=True)
def batch_step(actions, games, play, outs, blocks):
    """batch_step_serial with one block of games per thread."""
    n = games[0].shape[0]
    blocks = max(1, min(n, blocks))
    for b in prange(blocks):
        _step_block(b * n // blocks, (b + 1) * n // blocks, actions, games, play, outs)


@njit(cache=True)
def batch_reset_serial(which, alternate, games, play, outs):
    """Start new games (matches) where which[i] != 0 (opening roll from each game's stream)."""
    _reset_block(0, games[0].shape[0], which, alternate, games, play, outs)


@njit(parallel=True, cache=True)
def batch_reset(which, alternate, games, play, outs, blocks):
    """batch_reset_serial with one block of games per thread."""
    n = games[0].shape[0]
    blocks = max(1, min(n, blocks))
    for b in prange(blocks):
        _reset_block(b * n // blocks, (b + 1) * n // blocks, which, alternate, games, play, outs)


@njit(cache=True)
def batch_step_autoreset_serial(
    actions, alternate, games, play, outs, seat_rewards, seat_done, final, final_matches
):
    """batch_step for every game, then, in the same call, batch_reset of each game (match) that
    ended, after keeping the reward of the player in seats[i] (seat_rewards float32[N]), the
    end (seat_done int8[N, 2]: terminated, truncated) and, for the finished ones, the last
    observation (final float32[N, O]) and match state (final_matches int64[N, MATCH_LEN]). The
    outputs and streams end as batch_step then batch_reset of the finished games leave them."""
    _autoreset_block(
        0,
        games[0].shape[0],
        actions,
        alternate,
        games,
        play,
        outs,
        seat_rewards,
        seat_done,
        final,
        final_matches,
    )


@njit(parallel=True, cache=True)
def batch_step_autoreset(
    actions, alternate, games, play, outs, seat_rewards, seat_done, final, final_matches, blocks
):
    """batch_step_autoreset_serial with one block of games per thread."""
    n = games[0].shape[0]
    blocks = max(1, min(n, blocks))
    for b in prange(blocks):
        _autoreset_block(
            b * n // blocks,
            (b + 1) * n // blocks,
            actions,
            alternate,
            games,
            play,
            outs,
            seat_rewards,
            seat_done,
            final,
            final_matches,
        )
