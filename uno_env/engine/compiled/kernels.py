"""Batch entry points of the compiled backend: one compiled loop over the listed games.

Each kernel takes the state and the rules as structs (see ``layout``) and the
indices of the games to work on; the engine's public methods call them through
:class:`.backend.NumbaBackend`. The kernels that play games on by score-table
policies build on these (:mod:`.playouts`, :mod:`.search`, :mod:`.seated`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...actions import NUM_ACTIONS
from ...cards import NUM_KINDS
from ..codes import End
from ..rng import GOLDEN
from ..state import ROUND_END
from .deal import mix64
from .effects import close_last_standing
from .legal import legal_row
from .observe import observe_row
from .rounds import end_round, new_round
from .rows import copy_block, copy_row
from .step import apply_action


# ``decide`` and ``play_forced`` are inlined into the kernels that call them: compiled on
# their own, each would be one more copy of the whole engine to optimise and emit.
@njit(cache=True, inline="always")
def decide(rules, s, g, action, rewards):
    """One decision in game ``g``: apply it, count it, end the round or truncate."""
    apply_action(rules, s, g, action)
    s.turns[g] += 1
    if s.phase[g] == ROUND_END:
        end_round(rules, s, g, rewards)
    if s.turns[g] >= rules.max_turns and not s.done[g]:
        if rules.end == End.LAST_STANDING and s.num_out[g] > 0:   # places won are kept
            close_last_standing(rules, s, g, True)
            end_round(rules, s, g, rewards)
            s.truncated[g] = s.done[g]
        else:
            s.done[g] = True
            s.truncated[g] = True


@njit(cache=True, inline="always")
def play_forced(rules, s, g, rewards):
    """With ``auto_forced``, play every decision that has a single legal action."""
    if not rules.auto_forced:
        return
    mask = np.empty(NUM_ACTIONS, np.bool_)
    kinds = np.empty(NUM_KINDS, np.bool_)
    for _ in range(10 * rules.max_turns):
        legal_row(rules, s, g, mask, kinds)
        if mask.sum() != 1:
            return
        decide(rules, s, g, np.argmax(mask), rewards)


@njit(cache=True, nogil=True)
def legal_masks(rules, s, games, out):
    kinds = np.empty(NUM_KINDS, np.bool_)
    for i in range(games.size):
        legal_row(rules, s, games[i], out[i], kinds)


@njit(cache=True)
def refresh_mask(rules, s, g, masks, kinds):
    """Rewrite row ``g`` of ``masks`` (all games' legal masks), if given (else no rows).

    Called right after a game changes, while its state is still in cache: the
    engine then has every mask ready without another pass over the batch.
    """
    if masks.shape[0] > 0:
        legal_row(rules, s, g, masks[g], kinds)


#: ``log[0]`` of :func:`save` when the caller saved every row already.
WHOLE_SAVED = -1


@njit(cache=True)
def save(s, g, saved, log):
    """Before game ``g`` changes: its row into the next free row of ``saved``, so that an
    error escaping the kernel can be undone. ``log[0]`` counts the rows saved by this
    call and ``log[1 + k]`` is the game of row ``k``; games that do not change (finished,
    or already at the seat to wait for) are not copied. ``log[0] == WHOLE_SAVED`` says
    the caller saved every row already, each into the same row of ``saved`` (cheaper
    for large batches): then ``log[1]`` only notes the game being changed."""
    k = log[0]
    if k < 0:
        log[1] = g
        return
    log[1 + k] = g
    log[0] = k + 1
    copy_row(s, g, saved, k)


@njit(cache=True, nogil=True)
def first_illegal(rules, s, games, actions, masks):
    """The position in ``games`` of the first running game whose action is not legal, or
    -1 (``masks``: the legal masks of all games, or no rows to compute them)."""
    mask = np.empty(NUM_ACTIONS, np.bool_)
    kinds = np.empty(NUM_KINDS, np.bool_)
    for i in range(games.size):
        g = games[i]
        if s.done[g]:
            continue
        a = actions[i]
        if a < 0 or a >= NUM_ACTIONS:
            return i
        if masks.shape[0] > 0:
            if not masks[g, a]:
                return i
        else:
            legal_row(rules, s, g, mask, kinds)
            if not mask[a]:
                return i
    return -1


@njit(cache=True, nogil=True)
def step_games(rules, s, games, actions, rewards, masks, new_masks, saved, log):
    """Check every action first; if all running games' actions are legal, apply them.

    ``masks`` holds the legal masks of all games (row ``g`` for game ``g``) when the
    caller has them, else no rows and the masks are computed. Returns -1, or the position
    in ``games`` of the first illegal action (and then changes nothing). Finished
    games are skipped. ``new_masks``: see :func:`refresh_mask`; ``saved``, ``log``: see
    :func:`save`.
    """
    bad = first_illegal(rules, s, games, actions, masks)
    if bad >= 0:
        return bad
    kinds = np.empty(NUM_KINDS, np.bool_)
    for i in range(games.size):
        g = games[i]
        if not s.done[g]:
            save(s, g, saved, log)
            decide(rules, s, g, actions[i], rewards[g])
            play_forced(rules, s, g, rewards[g])
        refresh_mask(rules, s, g, new_masks, kinds)
    return -1


@njit(cache=True, nogil=True)
def save_and_step_games(rules, s, games, actions, rewards, masks, new_masks, saved, log):
    """:func:`step_games` on a block of consecutive games that first copies their rows
    into the same rows of ``saved``: the parallel step, where each thread saves its own
    block for the undo instead of one thread copying the whole state before the others
    start."""
    if games.size:
        copy_block(s, games[0], saved, games[0], games.size)
    return step_games(rules, s, games, actions, rewards, masks, new_masks, saved, log)


@njit(cache=True)
def play_random_games(rules, s, games, until, streams, rewards, new_masks, saved, log):
    """Uniformly random legal decisions in each listed game until ``until[i]`` is to act.

    ``streams[g] = (key, counter)`` is the game's own random stream for these
    picks (advanced here), kept apart from the game's deal stream.
    """
    mask = np.empty(NUM_ACTIONS, np.bool_)
    kinds = np.empty(NUM_KINDS, np.bool_)
    legal = np.empty(NUM_ACTIONS, np.int64)
    for i in range(games.size):
        g = games[i]
        if not s.done[g] and s.current[g] != until[i]:
            save(s, g, saved, log)
        for _ in range(10 * rules.max_turns):
            if s.done[g] or s.current[g] == until[i]:
                break
            legal_row(rules, s, g, mask, kinds)
            n = 0
            for a in range(NUM_ACTIONS):
                if mask[a]:
                    legal[n] = a
                    n += 1
            streams[g, 1] += np.uint64(1)
            pick = mix64(streams[g, 0] + streams[g, 1] * GOLDEN) % np.uint64(n)
            decide(rules, s, g, legal[np.int64(pick)], rewards[g])
            play_forced(rules, s, g, rewards[g])
        refresh_mask(rules, s, g, new_masks, kinds)


@njit(cache=True, nogil=True)
def reset_games(rules, s, games, keys, new_masks):
    unused = np.zeros(rules.num_players, np.float32)
    kinds = np.empty(NUM_KINDS, np.bool_)
    for i in range(games.size):
        g = games[i]
        s.key[g] = keys[i]
        s.counter[g] = 0
        s.scores[g, :] = 0
        s.round_points[g, :] = 0
        s.rounds_played[g] = 0
        s.done[g] = False
        s.truncated[g] = False
        s.winner[g] = -1
        s.round_winner[g] = -1
        new_round(rules, s, g, True)
        play_forced(rules, s, g, unused)
        refresh_mask(rules, s, g, new_masks, kinds)


@njit(cache=True, nogil=True)
def observe_games(rules, s, games, players, out):
    for i in range(games.size):
        observe_row(rules, s, games[i], players[i], out[i])
