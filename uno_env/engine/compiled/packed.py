"""The packed observation of one game by one player (twin of ``engine/packed.py``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...cards import NUM_COLORS, NUM_KINDS
from ...rules import Rules
from ..packed import SCALARS, SCORE_SHIFT, SEAT_NUMBERS, view_sizes
from ..state import NUM_PHASES


def packed_starts(rules: Rules) -> np.ndarray:
    """``int64[len(view_sizes(rules))]``: where each view a packed row can have starts
    under ``rules``, in the order of :func:`~uno_env.engine.packed.view_sizes` (a view the
    rules do not have is empty: it starts where the next one does)."""
    starts = np.cumsum([0, *view_sizes(rules).values()])[:-1]
    return starts.astype(np.int64)


_SCALAR0 = 2                      # index in packed_starts of the first scalar view
_SEAT0 = _SCALAR0 + len(SCALARS)  # ... of the first per-seat view
_SCORES = _SEAT0 + len(SEAT_NUMBERS)
_LOW_MASK = (1 << SCORE_SHIFT) - 1


@njit(cache=True)
def _copy(src, dst):
    """``dst[:] = src`` for two 1-D views of one length (a plain loop over views compiles
    to vector code; indexing the rows with offsets does not)."""
    for k in range(dst.size):
        dst[k] = src[k]


@njit(cache=True, nogil=True)
def pack_games(rules, s, games, players, starts, out):
    """Row ``i`` of ``out``: game ``games[i]`` as seen by ``players[i]``.

    Every array of the state is read from the struct once, before the loop: a field
    read inside it costs a reference-count update each time, more than the copying.
    """
    p = rules.num_players
    teams, zero_open = rules.teams, rules.zero_open
    hands, discard, top, color, phase = s.hands, s.discard, s.top, s.color, s.phase
    pending, direction, current_seat, drawn = s.pending, s.direction, s.current, s.drawn
    uno_called, uno_offender, hand_size = s.uno_called, s.uno_offender, s.hand_size
    deck_len, deck_pos, active, drew_on = s.deck_len, s.deck_pos, s.active, s.drew_on
    last_played, last_named, wd4 = s.last_played, s.last_named, s.wd4_after_draw
    scores, shown = s.scores, s.shown
    h, d, c = starts[0], starts[1], starts[_SCALAR0]
    seat0, score0 = starts[_SEAT0], starts[_SCORES]
    m = p - 1
    for i in range(games.size):
        g, player, row = games[i], players[i], out[i]
        _copy(hands[g, player], row[h:h + NUM_KINDS])
        _copy(discard[g], row[d:d + NUM_KINDS])
        current = current_seat[g]
        acting = current == player
        offender = uno_offender[g]
        row[c] = top[g]
        row[c + 1] = color[g]
        row[c + 2] = min(phase[g], NUM_PHASES - 1)
        row[c + 3] = pending[g]
        row[c + 4] = direction[g]
        row[c + 5] = (current - player) % p
        row[c + 6] = drawn[g] if acting else -1
        row[c + 7] = 1 if acting and uno_called[g] else 0
        row[c + 8] = (offender - player) % p if offender >= 0 else 0
        row[c + 9] = hand_size[g, player]
        row[c + 10] = deck_len[g] - deck_pos[g]
        seat = player
        for o in range(1, p):
            seat = seat + 1 if seat + 1 < p else 0   # (player + o) % p
            on = drew_on[g, seat]
            bits = 0
            for col in range(NUM_COLORS):
                bits |= np.int64(on[col]) << col
            at = seat0 + o - 1
            row[at] = hand_size[g, seat]
            row[at + m] = active[g, seat]
            row[at + 2 * m] = bits
            row[at + 3 * m] = last_played[g, seat]
            row[at + 4 * m] = last_named[g, seat]
            row[at + 5 * m] = wd4[g, seat]
        seat = player
        for o in range(p):
            score = np.int64(scores[g, seat])
            row[score0 + o] = score >> SCORE_SHIFT
            row[score0 + p + o] = score & _LOW_MASK
            seat = seat + 1 if seat + 1 < p else 0
        if teams:
            start = starts[_SCORES + 2]
            _copy(hands[g, (player + 2) % p], row[start:start + NUM_KINDS])
        if zero_open:
            start = starts[_SCORES + 3]
            for o in range(1, p):
                at = start + (o - 1) * NUM_KINDS
                _copy(shown[g, (player + o) % p], row[at:at + NUM_KINDS])
