"""The batch kernels over both cores: each listed game on one thread, the same results.

Games never read one another, so a batch cut into contiguous blocks of games, one
block per thread (``numba.prange``), plays exactly the games the one-thread
kernels of :mod:`.kernels` play, bit for bit, whatever the number of threads or
blocks. The engine calls these for large batches when it is given more than one
thread (``Engine(threads=...)``).

An error inside a parallel block cannot cross the threads as the exception it
was, so a block only notes that it failed (``failed[b]``); the engine then puts
every game back from the undo copy it made before the call and replays the call
with the one-thread kernel, which raises the error itself and undoes it again.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ...actions import NUM_ACTIONS
from ...cards import NUM_KINDS
from .kernels import decide, play_forced, refresh_mask, reset_games
from .legal import legal_row
from .observe import observe_row


@njit(cache=True)
def block_bounds(n, blocks, b):
    """``(first, end)`` of block ``b`` of ``n`` items cut into ``blocks`` contiguous blocks."""
    return b * n // blocks, (b + 1) * n // blocks


@njit(cache=True)
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


@njit(cache=True)
def _apply_block(rules, s, games, actions, rewards, new_masks, first, end):
    kinds = np.empty(NUM_KINDS, np.bool_)
    for i in range(first, end):
        g = games[i]
        if not s.done[g]:
            decide(rules, s, g, actions[i], rewards[g])
            play_forced(rules, s, g, rewards[g])
        refresh_mask(rules, s, g, new_masks, kinds)


@njit(cache=True)
def _apply_guarded(rules, s, games, actions, rewards, new_masks, first, end, failed, b):
    try:
        _apply_block(rules, s, games, actions, rewards, new_masks, first, end)
    except Exception:  # noqa: BLE001 - reported through failed, replayed on one thread
        failed[b] = True


@njit(cache=True, parallel=True)
def step_parallel(rules, s, games, actions, rewards, masks, new_masks, blocks, failed):
    """:func:`.kernels.step_games` over ``blocks`` blocks of games: -1, or the position
    of the first illegal action (then nothing changed). The caller has saved the whole
    state; ``failed[b]`` says that block ``b`` met an error."""
    bad = first_illegal(rules, s, games, actions, masks)
    if bad >= 0:
        return bad
    for b in prange(blocks):
        first, end = block_bounds(games.size, blocks, b)
        _apply_guarded(rules, s, games, actions, rewards, new_masks, first, end, failed, b)
    return -1


@njit(cache=True)
def _reset_guarded(rules, s, games, keys, new_masks, first, end, failed, b):
    try:
        reset_games(rules, s, games[first:end], keys[first:end], new_masks)
    except Exception:  # noqa: BLE001 - reported through failed, replayed on one thread
        failed[b] = True


@njit(cache=True, parallel=True)
def reset_parallel(rules, s, games, keys, new_masks, blocks, failed):
    """:func:`.kernels.reset_games` over ``blocks`` blocks of games."""
    for b in prange(blocks):
        first, end = block_bounds(games.size, blocks, b)
        _reset_guarded(rules, s, games, keys, new_masks, first, end, failed, b)


@njit(cache=True, parallel=True)
def observe_parallel(rules, s, games, players, out, blocks):
    """:func:`.kernels.observe_games` over ``blocks`` blocks of games."""
    for b in prange(blocks):
        first, end = block_bounds(games.size, blocks, b)
        for i in range(first, end):
            observe_row(rules, s, games[i], players[i], out[i])


@njit(cache=True, parallel=True)
def legal_parallel(rules, s, games, out, blocks):
    """:func:`.kernels.legal_masks` over ``blocks`` blocks of games."""
    for b in prange(blocks):
        first, end = block_bounds(games.size, blocks, b)
        kinds = np.empty(NUM_KINDS, np.bool_)
        for i in range(first, end):
            legal_row(rules, s, games[i], out[i], kinds)
