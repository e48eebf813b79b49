"""Saving and restoring one game's row of the state, so a failed call can be undone.

The compiled kernels save each game's row just before changing it (the row is
then in cache and the copy costs a few dozen nanoseconds); if an unexpected error
escapes, the engine writes the saved rows back, so a call changes every game or
none.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def _rows(src, frm, dst, to, n):
    """Rows ``frm .. frm + n - 1`` of the array ``src`` into rows ``to ..`` of ``dst``, as one
    flat run of elements (rows of a C-ordered array are contiguous): a plain loop over
    two flat views compiles to a block copy, about ten times faster than assigning
    slices of every axis."""
    if n == 1:   # one game (the row by row undo log): indexing is cheaper than views
        dst[to] = src[frm]
        return
    width = src.size // src.shape[0] if src.shape[0] else 0
    run = src.reshape(-1)[frm * width:(frm + n) * width]
    into = dst.reshape(-1)[to * width:(to + n) * width]
    for i in range(run.size):
        into[i] = run[i]


@njit(cache=True)
def copy_block(src, frm, dst, to, n):
    """Rows ``frm .. frm + n - 1`` of the state ``src`` into rows ``to .. to + n - 1`` of
    ``dst`` (every field of State)."""
    _rows(src.hands, frm, dst.hands, to, n)
    _rows(src.hand_size, frm, dst.hand_size, to, n)
    _rows(src.deck, frm, dst.deck, to, n)
    _rows(src.deck_pos, frm, dst.deck_pos, to, n)
    _rows(src.deck_len, frm, dst.deck_len, to, n)
    _rows(src.discard, frm, dst.discard, to, n)
    _rows(src.top, frm, dst.top, to, n)
    _rows(src.color, frm, dst.color, to, n)
    _rows(src.current, frm, dst.current, to, n)
    _rows(src.direction, frm, dst.direction, to, n)
    _rows(src.phase, frm, dst.phase, to, n)
    _rows(src.pending, frm, dst.pending, to, n)
    _rows(src.drawn, frm, dst.drawn, to, n)
    _rows(src.uno_called, frm, dst.uno_called, to, n)
    _rows(src.uno_offender, frm, dst.uno_offender, to, n)
    _rows(src.attacker, frm, dst.attacker, to, n)
    _rows(src.wd4_guilty, frm, dst.wd4_guilty, to, n)
    _rows(src.prev_top, frm, dst.prev_top, to, n)
    _rows(src.prev_color, frm, dst.prev_color, to, n)
    _rows(src.wd4_count, frm, dst.wd4_count, to, n)
    _rows(src.hidden, frm, dst.hidden, to, n)
    _rows(src.dealer, frm, dst.dealer, to, n)
    _rows(src.active, frm, dst.active, to, n)
    _rows(src.place, frm, dst.place, to, n)
    _rows(src.num_out, frm, dst.num_out, to, n)
    _rows(src.num_eliminated, frm, dst.num_eliminated, to, n)
    _rows(src.turn_draw, frm, dst.turn_draw, to, n)
    _rows(src.turn_reverse, frm, dst.turn_reverse, to, n)
    _rows(src.turn_skip, frm, dst.turn_skip, to, n)
    _rows(src.targeted, frm, dst.targeted, to, n)
    _rows(src.chain_first, frm, dst.chain_first, to, n)
    _rows(src.chain_last, frm, dst.chain_last, to, n)
    _rows(src.react_from, frm, dst.react_from, to, n)
    _rows(src.top_player, frm, dst.top_player, to, n)
    _rows(src.fed, frm, dst.fed, to, n)
    _rows(src.dobon_loser, frm, dst.dobon_loser, to, n)
    _rows(src.roulette, frm, dst.roulette, to, n)
    _rows(src.turns, frm, dst.turns, to, n)
    _rows(src.key, frm, dst.key, to, n)
    _rows(src.counter, frm, dst.counter, to, n)
    _rows(src.done, frm, dst.done, to, n)
    _rows(src.truncated, frm, dst.truncated, to, n)
    _rows(src.winner, frm, dst.winner, to, n)
    _rows(src.round_winner, frm, dst.round_winner, to, n)
    _rows(src.round_points, frm, dst.round_points, to, n)
    _rows(src.scores, frm, dst.scores, to, n)
    _rows(src.rounds_played, frm, dst.rounds_played, to, n)
    _rows(src.drew_on, frm, dst.drew_on, to, n)
    _rows(src.last_played, frm, dst.last_played, to, n)
    _rows(src.last_named, frm, dst.last_named, to, n)
    _rows(src.wd4_after_draw, frm, dst.wd4_after_draw, to, n)
    _rows(src.shown, frm, dst.shown, to, n)


@njit(cache=True)
def copy_row(src, frm, dst, to):
    """Row ``frm`` of the state ``src`` into row ``to`` of ``dst`` (every field of State)."""
    copy_block(src, frm, dst, to, 1)


@njit(cache=True)
def copy_rows(src, frm, dst, to):
    """Rows ``frm[i]`` of ``src`` into rows ``to[i]`` of ``dst``."""
    for i in range(frm.size):
        copy_row(src, frm[i], dst, to[i])
