"""Saving and restoring one game's row of the state, so a failed call can be undone.

The compiled kernels save each game's row just before changing it (the row is
then in cache and the copy costs a few dozen nanoseconds); if an unexpected error
escapes, the engine writes the saved rows back, so a call changes every game or
none.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def copy_row(src, frm, dst, to):
    """Row ``frm`` of the state ``src`` into row ``to`` of ``dst`` (every field of State)."""
    dst.hands[to, :, :] = src.hands[frm, :, :]
    dst.hand_size[to, :] = src.hand_size[frm, :]
    dst.deck[to, :] = src.deck[frm, :]
    dst.deck_pos[to] = src.deck_pos[frm]
    dst.deck_len[to] = src.deck_len[frm]
    dst.discard[to, :] = src.discard[frm, :]
    dst.top[to] = src.top[frm]
    dst.color[to] = src.color[frm]
    dst.current[to] = src.current[frm]
    dst.direction[to] = src.direction[frm]
    dst.phase[to] = src.phase[frm]
    dst.pending[to] = src.pending[frm]
    dst.drawn[to] = src.drawn[frm]
    dst.uno_called[to] = src.uno_called[frm]
    dst.uno_offender[to] = src.uno_offender[frm]
    dst.attacker[to] = src.attacker[frm]
    dst.wd4_guilty[to] = src.wd4_guilty[frm]
    dst.prev_top[to] = src.prev_top[frm]
    dst.prev_color[to] = src.prev_color[frm]
    dst.hidden[to, :] = src.hidden[frm, :]
    dst.dealer[to] = src.dealer[frm]
    dst.active[to, :] = src.active[frm, :]
    dst.place[to, :] = src.place[frm, :]
    dst.num_out[to] = src.num_out[frm]
    dst.num_eliminated[to] = src.num_eliminated[frm]
    dst.turn_draw[to] = src.turn_draw[frm]
    dst.turn_reverse[to] = src.turn_reverse[frm]
    dst.turn_skip[to] = src.turn_skip[frm]
    dst.targeted[to] = src.targeted[frm]
    dst.chain_first[to] = src.chain_first[frm]
    dst.chain_last[to] = src.chain_last[frm]
    dst.react_from[to] = src.react_from[frm]
    dst.top_player[to] = src.top_player[frm]
    dst.fed[to] = src.fed[frm]
    dst.dobon_loser[to] = src.dobon_loser[frm]
    dst.roulette[to] = src.roulette[frm]
    dst.turns[to] = src.turns[frm]
    dst.key[to] = src.key[frm]
    dst.counter[to] = src.counter[frm]
    dst.done[to] = src.done[frm]
    dst.truncated[to] = src.truncated[frm]
    dst.winner[to] = src.winner[frm]
    dst.round_winner[to] = src.round_winner[frm]
    dst.round_points[to, :] = src.round_points[frm, :]
    dst.scores[to, :] = src.scores[frm, :]
    dst.rounds_played[to] = src.rounds_played[frm]
    dst.drew_on[to, :, :] = src.drew_on[frm, :, :]
    dst.last_played[to, :] = src.last_played[frm, :]
    dst.last_named[to, :] = src.last_named[frm, :]
    dst.wd4_after_draw[to, :] = src.wd4_after_draw[frm, :]
    dst.shown[to, :, :] = src.shown[frm, :, :]


@njit(cache=True)
def copy_rows(src, frm, dst, to):
    """Rows ``frm[i]`` of ``src`` into rows ``to[i]`` of ``dst``."""
    for i in range(frm.size):
        copy_row(src, frm[i], dst, to[i])
