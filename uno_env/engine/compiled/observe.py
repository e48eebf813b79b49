"""The observation of one game by one player (twin of ``engine/observe.py``)."""

from __future__ import annotations

from numba import njit

from ...cards import KIND_COLOR, KIND_SYMBOL, NUM_COLORS, NUM_KINDS
from ..observe import NUM_SYMBOLS, VIEW_SLICES
from ..state import NUM_PHASES

_HAND = VIEW_SLICES["hand"].start
_TOP = VIEW_SLICES["top"].start
_COLOR = VIEW_SLICES["color"].start
_PHASE = VIEW_SLICES["phase"].start
_PENDING = VIEW_SLICES["pending_draw"].start
_DIRECTION = VIEW_SLICES["direction"].start
_ACTING = VIEW_SLICES["acting_seat"].start
_DRAWN = VIEW_SLICES["drawn"].start
_UNO_CALLED = VIEW_SLICES["uno_called"].start
_HAND_SIZES = VIEW_SLICES["hand_sizes"].start
_PRESENT = VIEW_SLICES["seats_present"].start
_EXPOSED = VIEW_SLICES["uno_exposed"].start
_OWN_SIZE = VIEW_SLICES["own_hand_size"].start
_DISCARDS = VIEW_SLICES["discards"].start
_DRAW_PILE = VIEW_SLICES["draw_pile"].start
_SCORES = VIEW_SLICES["scores"].start
_PARTNER = VIEW_SLICES["partner_hand"].start
_RULES = VIEW_SLICES["rules"].start
_DREW_ON = VIEW_SLICES["drew_on"].start
_LAST_COLOR = VIEW_SLICES["last_played_color"].start
_LAST_SYMBOL = VIEW_SLICES["last_played_symbol"].start
_LAST_NAMED = VIEW_SLICES["last_named"].start
_WD4_AFTER_DRAW = VIEW_SLICES["wd4_after_draw"].start
_SHOWN = VIEW_SLICES["shown_hands"].start
assert NUM_COLORS == 4


@njit(cache=True)
def observe_row(rules, s, g, player, out):
    """Write game ``g`` as seen by ``player`` into ``out`` (``float32[OBS_SIZE]``).

    Reads each array of the state once into a local: compiled code must otherwise
    reload a struct's field after every write to ``out`` (they might alias).
    """
    p = rules.num_players
    rules_vec = rules.rules_vec
    hand = s.hands[g, player]
    discard = s.discard[g]
    hand_size = s.hand_size[g]
    active = s.active[g]
    scores = s.scores[g]
    out[:] = 0.0
    for i in range(rules_vec.size):
        out[_RULES + i] = rules_vec[i]
    for k in range(NUM_KINDS):
        out[_HAND + k] = hand[k]
        out[_DISCARDS + k] = discard[k]
    out[_TOP + s.top[g]] = 1.0
    out[_COLOR + s.color[g]] = 1.0
    out[_PHASE + min(s.phase[g], NUM_PHASES - 1)] = 1.0
    out[_PENDING] = s.pending[g]
    out[_DIRECTION] = s.direction[g]
    current = s.current[g]
    out[_ACTING + (current - player) % p] = 1.0
    if current == player:
        drawn = s.drawn[g]
        if drawn >= 0:
            out[_DRAWN + drawn] = 1.0
        out[_UNO_CALLED] = s.uno_called[g]
    for o in range(1, p):
        seat = (player + o) % p
        out[_HAND_SIZES + o - 1] = hand_size[seat]
        out[_PRESENT + o - 1] = active[seat]
    offender = s.uno_offender[g]
    if offender >= 0:
        rel = (offender - player) % p
        if rel > 0:
            out[_EXPOSED + rel - 1] = 1.0
    out[_OWN_SIZE] = hand_size[player]
    out[_DRAW_PILE] = s.deck_len[g] - s.deck_pos[g]
    for o in range(p):
        out[_SCORES + o] = scores[(player + o) % p] / 100.0
    if rules.teams:
        partner = s.hands[g, (player + 2) % p]
        for k in range(NUM_KINDS):
            out[_PARTNER + k] = partner[k]
    observe_memory(rules, s, g, player, out)


@njit(cache=True)
def observe_memory(rules, s, g, player, out):
    """The public-memory views of the seats at offsets 1..P-1 (see ``Observer._memory``)."""
    drew_on = s.drew_on[g]
    last_played = s.last_played[g]
    last_named = s.last_named[g]
    wd4_after_draw = s.wd4_after_draw[g]
    p = rules.num_players
    for o in range(1, p):
        seat = (player + o) % p
        for c in range(NUM_COLORS):
            out[_DREW_ON + (o - 1) * NUM_COLORS + c] = drew_on[seat, c]
        out[_WD4_AFTER_DRAW + o - 1] = wd4_after_draw[seat]
        kind = last_played[seat]
        if kind >= 0:
            out[_LAST_SYMBOL + (o - 1) * NUM_SYMBOLS + KIND_SYMBOL[kind]] = 1.0
            if KIND_COLOR[kind] >= 0:
                out[_LAST_COLOR + (o - 1) * NUM_COLORS + KIND_COLOR[kind]] = 1.0
        named = last_named[seat]
        if named >= 0:
            out[_LAST_NAMED + (o - 1) * NUM_COLORS + named] = 1.0
    if rules.zero_open:
        shown = s.shown[g]
        for o in range(1, p):
            seat = (player + o) % p
            for k in range(NUM_KINDS):
                out[_SHOWN + (o - 1) * NUM_KINDS + k] = shown[seat, k]
