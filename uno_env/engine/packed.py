"""The packed observation: the same facts as the observation, as a few small integers.

The documented observation (:mod:`.observe`) is 1,516 float32 a row, mostly zeros:
one-hot indicators, per-kind counts, padding to ten seats. Writing 4096 such rows
(25 MB) costs more than the step that produced them. The packed observation says
the same in ``int16``: counts as counts, each one-hot as the index it marks, each
seat's drew-on colors as a bit set, and only the seats the rules have. For 4
players under the official rules it is 183 numbers (366 bytes) a row.

:func:`unpack` turns packed rows into the documented float32 layout, exactly
(bit for bit what :meth:`Engine.observe` returns), so a learner can hold or ship
the packed rows and build the float view where it needs it, e.g. in the policy.
The layout of a packed row depends on the rules (the player count, team play and
``zero_open``): :func:`packed_views` lists it.

Match scores can exceed ``int16``: each is split into ``score >> 15`` and
``score & 32767`` (exact for scores of up to a billion in magnitude).
"""

from __future__ import annotations

import functools

import numpy as np

from ..cards import DECKS, KIND_COLOR, KIND_SYMBOL, NUM_COLORS, NUM_KINDS
from ..rules import Rules
from .observe import NUM_SYMBOLS, OBS_SIZE, VIEW_SLICES, rules_vector
from .state import NUM_PHASES, State

#: The packed rows' integer type.
PACKED_DTYPE = np.int16
#: Bits of the low part of a split score.
SCORE_SHIFT = 15

#: The one-number views, in order, each with what it holds.
SCALARS: tuple[tuple[str, str], ...] = (
    ("top", "kind of the top discard"),
    ("color", "current color (0-3)"),
    ("phase", "decision phase of the acting player"),
    ("pending_draw", "cards the acting player must draw unless answered"),
    ("direction", "+1 clockwise, -1 counter-clockwise"),
    ("acting_seat", "seat offset of the acting player (0 = observer)"),
    ("drawn", "kind the observer just drew and is deciding on, else -1"),
    ("uno_called", "1 if the observer is acting and has called UNO this turn"),
    ("uno_exposed", "seat offset of the seat that may be caught (0: none)"),
    ("own_hand_size", "cards held by the observer"),
    ("draw_pile", "cards left in the draw pile"),
)
#: The per-seat views (one number per seat at offsets 1..P-1), in order.
SEAT_NUMBERS: tuple[tuple[str, str], ...] = (
    ("hand_sizes", "cards held"),
    ("seats_present", "1 if the seat is in the game"),
    ("drew_on", "the colors it drew on, as bits (bit c: color c)"),
    ("last_played", "kind of the last card it played, -1 if none"),
    ("last_named", "color it last named for a wild, -1 if none"),
    ("wd4_after_draw", "1 if its last Wild Draw Four replaced a color it had drawn on"),
)


def view_sizes(rules: Rules) -> dict[str, int]:
    """Every view a packed row can have, in order, with its size under ``rules`` (0 for
    ``partner_hand`` without team play and ``shown_hands`` without ``zero_open``)."""
    others = rules.num_players - 1
    return {"hand": NUM_KINDS, "discards": NUM_KINDS,
            **{name: 1 for name, _ in SCALARS},
            **{name: others for name, _ in SEAT_NUMBERS},
            "scores_high": rules.num_players, "scores_low": rules.num_players,
            "partner_hand": NUM_KINDS if rules.teams else 0,
            "shown_hands": others * NUM_KINDS if rules.zero_open else 0}


def packed_views(rules: Rules) -> dict[str, slice]:
    """The views of a packed row under ``rules``, in order: ``hand`` and ``discards``
    (counts by kind), the :data:`SCALARS`, the :data:`SEAT_NUMBERS` (``P - 1`` each),
    ``scores_high`` and ``scores_low`` (``P`` each, observer first), then
    ``partner_hand`` under team play and ``shown_hands`` (``(P - 1) * K``) under
    ``zero_open``."""
    views, start = {}, 0
    for name, size in view_sizes(rules).items():
        if size:
            views[name] = slice(start, start + size)
            start += size
    return views


def packed_size(rules: Rules) -> int:
    """Numbers in a packed row under ``rules``."""
    return list(packed_views(rules).values())[-1].stop


def pack(rules: Rules, s: State, players: np.ndarray) -> np.ndarray:
    """``int16[G, packed_size(rules)]``: each game of ``s`` seen by ``players[g]`` (the
    numpy reference; the compiled twin is ``compiled/packed.py``)."""
    n, p = s.num_games, rules.num_players
    v = packed_views(rules)
    out = np.empty((n, packed_size(rules)), PACKED_DTYPE)
    rows = np.arange(n)[:, None]
    seats = (players[:, None] + np.arange(1, p)[None, :]) % p
    all_seats = (players[:, None] + np.arange(p)[None, :]) % p
    acting = s.current == players
    out[:, v["hand"]] = s.hands[np.arange(n), players]
    out[:, v["discards"]] = s.discard
    rel = (s.uno_offender - players) % p
    scalars = {
        "top": s.top, "color": s.color, "phase": np.minimum(s.phase, NUM_PHASES - 1),
        "pending_draw": s.pending, "direction": s.direction,
        "acting_seat": (s.current - players) % p,
        "drawn": np.where(acting, s.drawn, -1), "uno_called": s.uno_called & acting,
        "uno_exposed": np.where(s.uno_offender >= 0, rel, 0),
        "own_hand_size": s.hand_size[np.arange(n), players],
        "draw_pile": s.deck_len - s.deck_pos,
    }
    for name, value in scalars.items():
        out[:, v[name].start] = value
    bits = (s.drew_on[rows, seats] << np.arange(NUM_COLORS)).sum(axis=-1)
    per_seat = {"hand_sizes": s.hand_size[rows, seats], "seats_present": s.active[rows, seats],
                "drew_on": bits, "last_played": s.last_played[rows, seats],
                "last_named": s.last_named[rows, seats],
                "wd4_after_draw": s.wd4_after_draw[rows, seats]}
    for name, value in per_seat.items():
        out[:, v[name]] = value
    scores = s.scores[rows, all_seats].astype(np.int64)
    out[:, v["scores_high"]] = scores >> SCORE_SHIFT
    out[:, v["scores_low"]] = scores & ((1 << SCORE_SHIFT) - 1)
    if rules.teams:
        out[:, v["partner_hand"]] = s.hands[np.arange(n), (players + 2) % p]
    if rules.zero_open:
        out[:, v["shown_hands"]] = s.shown[rows, seats].reshape(n, (p - 1) * NUM_KINDS)
    return out


def unpack(packed: np.ndarray, rules: Rules) -> np.ndarray:
    """``float32[G, OBS_SIZE]``: packed rows (from
    :func:`uno_env.engine.packed_rows.observe_packed` under ``rules``) in the documented
    observation layout, equal to what :meth:`Engine.observe` returns for the same games
    and players. A value no packed row under ``rules`` can hold (a kind, color, phase or
    seat out of range, a count beyond the deck) raises ``ValueError`` naming its view
    (:func:`check_fields`)."""
    packed = np.asarray(packed)
    size = packed_size(rules)
    if packed.ndim != 2 or packed.shape[1] != size or packed.dtype.kind not in "iu":
        raise ValueError(f"packed observations under these rules are integer rows of {size} "
                         f"numbers, got {packed.dtype} of shape {packed.shape}")
    n, p = packed.shape[0], rules.num_players
    pv, ov = packed_views(rules), VIEW_SLICES
    x = packed.astype(np.int64)
    check_fields(x, rules)
    col = {name: x[:, view.start] for name, view in pv.items() if view.stop - view.start == 1}
    out = np.zeros((n, OBS_SIZE), np.float32)
    out[:, ov["rules"]] = rules_vector(rules)
    out[:, ov["hand"]] = x[:, pv["hand"]]
    out[:, ov["discards"]] = x[:, pv["discards"]]
    rows = np.arange(n)
    for name in ("top", "color", "phase", "acting_seat"):
        out[rows, ov[name].start + col[name]] = 1.0
    for name in ("pending_draw", "direction", "uno_called", "own_hand_size", "draw_pile"):
        out[:, ov[name].start] = col[name]
    _one_hot(out, rows, ov["drawn"].start + col["drawn"], col["drawn"] >= 0)
    exposed = col["uno_exposed"]
    _one_hot(out, rows, ov["uno_exposed"].start + exposed - 1, exposed > 0)
    m = p - 1
    for name in ("hand_sizes", "seats_present", "wd4_after_draw"):
        out[:, ov[name].start:ov[name].start + m] = x[:, pv[name]]
    bits = x[:, pv["drew_on"], None] >> np.arange(NUM_COLORS)
    start = ov["drew_on"].start
    out[:, start:start + m * NUM_COLORS] = (bits & 1).reshape(n, m * NUM_COLORS)
    seat_rows, offsets = np.divmod(np.arange(n * m), m)
    last = x[:, pv["last_played"]].ravel()
    played = last >= 0
    kind = np.where(played, last, 0)
    _one_hot(out, seat_rows, ov["last_played_symbol"].start + offsets * NUM_SYMBOLS
             + KIND_SYMBOL[kind], played)
    color = KIND_COLOR[kind]
    _one_hot(out, seat_rows, ov["last_played_color"].start + offsets * NUM_COLORS + color,
             played & (color >= 0))
    named = x[:, pv["last_named"]].ravel()
    _one_hot(out, seat_rows, ov["last_named"].start + offsets * NUM_COLORS + named, named >= 0)
    scores = (x[:, pv["scores_high"]] << SCORE_SHIFT) + x[:, pv["scores_low"]]
    out[:, ov["scores"].start:ov["scores"].start + p] = scores / 100.0
    if rules.teams:
        out[:, ov["partner_hand"]] = x[:, pv["partner_hand"]]
    if rules.zero_open:
        start = ov["shown_hands"].start
        out[:, start:start + m * NUM_KINDS] = x[:, pv["shown_hands"]]
    return out


def field_bounds(rules: Rules) -> dict[str, tuple[np.ndarray | int, np.ndarray | int]]:
    """``(lowest, highest)`` of every view of a packed row under ``rules`` (per column
    for the counts by kind: at most the copies of each kind in the deck): the values a
    game under these rules can produce."""
    p, copies = rules.num_players, DECKS[rules.deck].astype(np.int64)
    cards = int(copies.sum())
    per_kind = (0, copies)
    bounds: dict[str, tuple[np.ndarray | int, np.ndarray | int]] = {
        "hand": per_kind, "discards": per_kind,
        "top": (0, NUM_KINDS - 1), "color": (0, NUM_COLORS - 1), "phase": (0, NUM_PHASES - 1),
        "pending_draw": (0, np.iinfo(PACKED_DTYPE).max), "direction": (-1, 1),
        "acting_seat": (0, p - 1),
        "drawn": (-1, NUM_KINDS - 1), "uno_called": (0, 1), "uno_exposed": (0, p - 1),
        "own_hand_size": (0, cards), "draw_pile": (0, cards),
        "hand_sizes": (0, cards), "seats_present": (0, 1),
        "drew_on": (0, (1 << NUM_COLORS) - 1), "last_played": (-1, NUM_KINDS - 1),
        "last_named": (-1, NUM_COLORS - 1), "wd4_after_draw": (0, 1),
        "scores_high": (np.iinfo(PACKED_DTYPE).min, np.iinfo(PACKED_DTYPE).max),
        "scores_low": (0, (1 << SCORE_SHIFT) - 1),
        "partner_hand": per_kind, "shown_hands": (0, np.tile(copies, p - 1))}
    return bounds


@functools.lru_cache(maxsize=64)
def _bound_rows(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """``(lowest, highest)`` of every column of a packed row under ``rules``."""
    low = np.empty(packed_size(rules), np.int64)
    high = np.empty_like(low)
    bounds = field_bounds(rules)
    for name, view in packed_views(rules).items():
        low[view], high[view] = bounds[name]
    return low, high


def check_fields(rows: np.ndarray, rules: Rules) -> None:
    """Raise ``ValueError`` naming the view (and row) of the first value of packed
    ``rows`` that no game under ``rules`` produces (:func:`field_bounds`; ``direction``
    is -1 or 1)."""
    low, high = _bound_rows(rules)
    bad = (rows < low) | (rows > high)
    direction = packed_views(rules)["direction"].start
    bad[:, direction] |= rows[:, direction] == 0
    if not bad.any():
        return
    row, column = (int(i[0]) for i in np.nonzero(bad))
    name = next(n for n, v in packed_views(rules).items() if v.start <= column < v.stop)
    allowed = "-1 or 1" if name == "direction" else f"{low[column]}..{high[column]}"
    raise ValueError(f"packed observation row {row}: {name} {int(rows[row, column])} is "
                     f"impossible under these rules (it lies in {allowed})")


def _one_hot(out: np.ndarray, rows: np.ndarray, columns: np.ndarray, where: np.ndarray) -> None:
    """Set ``out[rows[i], columns[i]] = 1`` where ``where[i]``."""
    out[rows[where], columns[where]] = 1.0
