"""The observation: one flat float32 vector per player, egocentric, with named views.

Seats are listed clockwise starting with the seat after the observer
(``seat offset`` 1, 2, ...), padded to the ten-player maximum, so one layout
serves every player count. Nothing hidden from the observer enters the vector.

Besides the position, the observation carries what the table has seen each
opponent do this round (the *public memory* views, kept by the engine from public
events only): the colors it drew on since it last played, its last card, the
color it last named, and whether its last Wild Draw Four followed a draw on the
color it replaced. Under ``zero_open`` it also carries the cards each opponent showed
on playing a 0 that are still in its hand (the ``shown_hands`` view).
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from ..cards import (
    DECKS,
    KIND_COLOR,
    KIND_SYMBOL,
    MAX_DECK_SIZE,
    NUM_COLORED_SYMBOLS,
    NUM_COLORS,
    NUM_KINDS,
    NUM_WILD_KINDS,
)
from ..rules import CHOICES, MAX_PLAYERS, Rules
from .state import NUM_PHASES, State, where

OTHERS = MAX_PLAYERS - 1
#: Card symbols: the colored ones (0-9 S R D2 D4 SE DA), then the wilds (see ``cards``).
NUM_SYMBOLS = NUM_COLORED_SYMBOLS + NUM_WILD_KINDS
#: Version of the layout: 1 appended the public-memory views to the 505 numbers of 0;
#: 2 added rule options to the ``rules`` view; 3 appended ``shown_hands`` and the
#: ``zero_open`` option (docs/observation.md has the history).
OBSERVATION_VERSION = 3

#: Scale of each numeric rule option in the ``rules`` view.
_INT_SCALE = {"num_players": 10, "challenge_penalty": 4, "uno_penalty": 4, "mercy_limit": 25,
              "feed_penalty": 20, "target_score": 500, "rounds": 5, "max_turns": 1000,
              "draw_return_winner_points": -20, "declare_on_finish": 2}


def rules_vector(rules: Rules) -> np.ndarray:
    """The rule options as numbers: booleans 0/1, choices one-hot, integers scaled."""
    values: list[float] = []
    for f in fields(rules):
        v = getattr(rules, f.name)
        if f.name in CHOICES:
            values += [float(v == c) for c in CHOICES[f.name]]
        elif isinstance(v, bool):
            values.append(float(v))
        else:
            values.append(v / _INT_SCALE.get(f.name, 1))
    return np.asarray(values, np.float32)


RULES_SIZE = rules_vector(Rules()).size

#: (name, size, description) of every view, in order.
VIEWS: tuple[tuple[str, int, str], ...] = (
    ("hand", NUM_KINDS, "cards of each kind in the observer's hand"),
    ("top", NUM_KINDS, "one-hot kind of the top discard"),
    ("color", NUM_COLORS, "one-hot current color (R, Y, G, B)"),
    ("phase", NUM_PHASES, "one-hot decision phase of the acting player"),
    ("pending_draw", 1, "cards the acting player must draw unless answered"),
    ("direction", 1, "+1 clockwise, -1 counter-clockwise"),
    ("acting_seat", MAX_PLAYERS, "one-hot seat offset of the acting player (0 = observer)"),
    ("drawn", NUM_KINDS, "one-hot kind the observer just drew, if they are deciding on it"),
    ("uno_called", 1, "1 if the observer has called UNO this turn"),
    ("hand_sizes", OTHERS, "cards held by the seats at offsets 1..9 (0 where no seat)"),
    ("seats_present", OTHERS, "1 for the seats at offsets 1..9 that are in the game"),
    ("uno_exposed", OTHERS, "1 for the seat that may be caught not having called UNO"),
    ("own_hand_size", 1, "cards held by the observer"),
    ("discards", NUM_KINDS, "cards of each kind in the discard pile (played since the "
                            "last reshuffle, top included)"),
    ("draw_pile", 1, "cards left in the draw pile"),
    ("scores", MAX_PLAYERS, "match scores / 100, observer first then offsets 1..9"),
    ("partner_hand", NUM_KINDS, "the partner's hand in team play (zeros otherwise)"),
    ("rules", RULES_SIZE, "the rule options as numbers (see rules_vector)"),
    # public memory of this round, per seat at offsets 1..9 (row k - 1: offset k)
    ("drew_on", OTHERS * NUM_COLORS, "per seat, the colors that were current when its hand "
                                     "drew voluntarily since a card was last played from it"),
    ("last_played_color", OTHERS * NUM_COLORS, "per seat, one-hot color of the last card it "
                                               "played (zeros for a wild)"),
    ("last_played_symbol", OTHERS * NUM_SYMBOLS, "per seat, one-hot symbol of the last card it "
                                                 "played"),
    ("last_named", OTHERS * NUM_COLORS, "per seat, one-hot color it last named for a wild"),
    ("wd4_after_draw", OTHERS, "per seat, 1 if its last Wild Draw Four replaced a color it had "
                               "drawn on"),
    ("shown_hands", OTHERS * NUM_KINDS, "per seat, the cards of each kind it showed on playing "
                                        "a 0 (zero_open) and still holds"),
)


def _slices() -> dict[str, slice]:
    out, start = {}, 0
    for name, size, _ in VIEWS:
        out[name] = slice(start, start + size)
        start += size
    return out


VIEW_SLICES: dict[str, slice] = _slices()
OBS_SIZE = sum(size for _, size, _ in VIEWS)
#: The views with one row per opponent seat (offsets 1..9), and the columns of a row.
SEAT_VIEWS: dict[str, int] = {"drew_on": NUM_COLORS, "last_played_color": NUM_COLORS,
                              "last_played_symbol": NUM_SYMBOLS, "last_named": NUM_COLORS,
                              "wd4_after_draw": 1, "shown_hands": NUM_KINDS}


def seat_view(obs: np.ndarray, name: str) -> np.ndarray:
    """A per-seat view of observations ``obs[..., OBS_SIZE]`` as ``[..., 9, columns]``:
    row ``k - 1`` is the seat ``k`` places clockwise (e.g. ``seat_view(obs, "drew_on")``
    gives ``[..., 9, 4]``, the colors each opponent drew on)."""
    if name not in SEAT_VIEWS:
        raise ValueError(f"{name!r} is not a per-seat view; per-seat views: "
                         f"{', '.join(SEAT_VIEWS)}")
    return obs[..., VIEW_SLICES[name]].reshape(*obs.shape[:-1], OTHERS, SEAT_VIEWS[name])


#: The largest number of copies of one kind in any deck (bounds the per-kind counts).
_MAX_KIND_COUNT = max(int(d.max()) for d in DECKS.values())
#: A generous finite bound for match scores (/ 100) and the scaled rule options: within
#: the option ranges of ``rules.INT_RANGES`` a score stays below 10**7 in magnitude.
_WIDE = 1.0e5
#: Upper bound of each view that is not a 0/1 indicator.
_VIEW_HIGH: dict[str, float] = {
    "hand": _MAX_KIND_COUNT, "discards": _MAX_KIND_COUNT, "partner_hand": _MAX_KIND_COUNT,
    "pending_draw": 2 * MAX_DECK_SIZE, "hand_sizes": MAX_DECK_SIZE,
    "own_hand_size": MAX_DECK_SIZE, "draw_pile": MAX_DECK_SIZE, "scores": _WIDE,
    "shown_hands": _MAX_KIND_COUNT,
    "rules": _WIDE,
}
_VIEW_LOW: dict[str, float] = {"direction": -1.0, "scores": -_WIDE}


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` float32 bounds of every observation entry, the same for every rule
    set: indicators in [0, 1], card counts up to the largest deck, direction in
    [-1, 1], scores and rule options in a wide finite range (finite bounds keep the
    ecosystem's checkers quiet)."""
    low = np.zeros(OBS_SIZE, np.float32)
    high = np.ones(OBS_SIZE, np.float32)
    for name, view in VIEW_SLICES.items():
        low[view] = _VIEW_LOW.get(name, 0.0)
        high[view] = _VIEW_HIGH.get(name, 1.0)
    return low, high


class Observer:
    """Builds observations for one rule set (the constant parts are computed once)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        p = rules.num_players
        self.rules_vec = rules_vector(rules)
        self.offsets = np.arange(1, p)                  # seat offsets that exist
        self.hot_offsets = np.array([VIEW_SLICES[n].start for n in ("top", "color", "phase")])
        #: The views that never change (the rules), copied into every row.
        self.constant = np.zeros(OBS_SIZE, np.float32)
        self.constant[VIEW_SLICES["rules"]] = self.rules_vec

    def observe(self, s: State, players: np.ndarray) -> np.ndarray:
        """``float32[G, OBS_SIZE]``: each game seen by ``players[g]``."""
        n = s.num_games
        out = np.empty((n, OBS_SIZE), np.float32)
        p = self.rules.num_players
        ar = np.arange(n)
        v = VIEW_SLICES
        out[...] = self.constant
        out[:, v["hand"]] = s.hands.reshape(n * p, -1).take(ar * p + players, axis=0)
        hot = np.stack([s.top, s.color, np.minimum(s.phase, NUM_PHASES - 1)],
                       axis=1)
        out[ar[:, None], hot + self.hot_offsets] = 1.0
        out[:, v["pending_draw"].start] = s.pending
        out[:, v["direction"].start] = s.direction
        current = s.current
        out[ar, v["acting_seat"].start + (current - players) % p] = 1.0
        drawn = s.drawn
        acting = (current == players) & (drawn >= 0)
        if acting.any():
            i = where(acting)
            out[i, v["drawn"].start + drawn[i].astype(np.int64)] = 1.0
        out[:, v["uno_called"].start] = s.uno_called & (current == players)
        seats = (players[:, None] + self.offsets[None, :]) % p
        hs, sp = v["hand_sizes"].start, v["seats_present"].start
        out[:, hs:hs + p - 1] = s.hand_size[ar[:, None], seats]
        out[:, sp:sp + p - 1] = s.active[ar[:, None], seats]
        offender = s.uno_offender
        exposed = offender >= 0
        if exposed.any():
            i = where(exposed)
            rel = (offender[i] - players[i]) % p
            ok = rel > 0
            out[i[ok], v["uno_exposed"].start + rel[ok] - 1] = 1.0
        out[:, v["own_hand_size"].start] = s.hand_size[ar, players]
        out[:, v["discards"]] = s.discard
        out[:, v["draw_pile"].start] = s.deck_len - s.deck_pos
        sc = v["scores"].start
        all_seats = (players[:, None] + np.arange(p)[None, :]) % p
        out[:, sc:sc + p] = s.scores[ar[:, None], all_seats] / 100.0
        if self.rules.teams:
            out[:, v["partner_hand"]] = s.hands[ar, (players + 2) % p]
        self._memory(s, out, ar[:, None], seats)
        if self.rules.zero_open:
            start = v["shown_hands"].start
            out[:, start:start + (p - 1) * NUM_KINDS] = s.shown[ar[:, None], seats].reshape(n, -1)
        return out

    @staticmethod
    def _memory(s: State, out: np.ndarray, rows: np.ndarray, seats: np.ndarray) -> None:
        """The public-memory views of the seats ``seats[n, P - 1]`` (offsets 1..P-1)."""
        v = VIEW_SLICES
        n, m = seats.shape
        start = v["drew_on"].start
        out[:, start:start + m * NUM_COLORS] = s.drew_on[rows, seats].reshape(n, -1)
        start = v["wd4_after_draw"].start
        out[:, start:start + m] = s.wd4_after_draw[rows, seats]
        last = s.last_played[rows, seats]
        i, o = (last >= 0).nonzero()
        kind = last[i, o]
        out[i, v["last_played_symbol"].start + o * NUM_SYMBOLS + KIND_SYMBOL[kind]] = 1.0
        color = KIND_COLOR[kind]
        c = where(color >= 0)
        out[i[c], v["last_played_color"].start + o[c] * NUM_COLORS + color[c]] = 1.0
        named = s.last_named[rows, seats]
        i, o = (named >= 0).nonzero()
        out[i, v["last_named"].start + o * NUM_COLORS + named[i, o]] = 1.0
