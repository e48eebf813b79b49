"""The universal card table: every kind of every deck, as data.

Every preset shares this one table, so observations and actions keep the same
layout whatever deck is in play. A *kind* is a card face (``R5``, ``GS``,
``WD4`` ...); hands, piles and discards are counted per kind.

Layout of the kind ids:

* colored kinds: ``color * 16 + symbol`` for the four colors ``R Y G B`` and the
  16 colored symbols ``0-9 S R D2 D4 SE DA`` (ids 0-63);
* wild kinds: ``64 + w`` for ``W WD4 WSH WSF WCU WRD4 WD6 WD10 WCR`` (ids 64-72).
"""

from __future__ import annotations

import numpy as np

COLORS = ("R", "Y", "G", "B")
COLOR_NAMES = ("red", "yellow", "green", "blue")
NUM_COLORS = 4

COLORED_SYMBOLS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
                   "S", "R", "D2", "D4", "SE", "DA")
WILD_SYMBOLS = ("W", "WD4", "WSH", "WSF", "WCU", "WRD4", "WD6", "WD10", "WCR")
NUM_COLORED_SYMBOLS = len(COLORED_SYMBOLS)
NUM_COLORED_KINDS = NUM_COLORS * NUM_COLORED_SYMBOLS
NUM_WILD_KINDS = len(WILD_SYMBOLS)
NUM_KINDS = NUM_COLORED_KINDS + NUM_WILD_KINDS

#: Symbol ids, shared by all colors; wild symbols follow the colored ones.
SYM_SKIP, SYM_REVERSE, SYM_DRAW2, SYM_DRAW4, SYM_SKIP_ALL, SYM_DISCARD_ALL = 10, 11, 12, 13, 14, 15
(SYM_WILD, SYM_WD4, SYM_SWAP, SYM_SHUFFLE, SYM_CUSTOM, SYM_WRD4, SYM_WD6, SYM_WD10,
 SYM_ROULETTE) = range(NUM_COLORED_SYMBOLS, NUM_COLORED_SYMBOLS + NUM_WILD_KINDS)


def _kind_names() -> tuple[str, ...]:
    colored = [c + s for c in COLORS for s in COLORED_SYMBOLS]
    return tuple(colored) + WILD_SYMBOLS


KIND_NAMES: tuple[str, ...] = _kind_names()
KIND_ID: dict[str, int] = {name: i for i, name in enumerate(KIND_NAMES)}

#: Color of each kind, -1 for wilds.
KIND_COLOR = np.array([k // NUM_COLORED_SYMBOLS for k in range(NUM_COLORED_KINDS)]
                      + [-1] * NUM_WILD_KINDS, dtype=np.int8)
#: Symbol of each kind (0-15 colored symbols, 16-24 wild symbols).
KIND_SYMBOL = np.array([k % NUM_COLORED_SYMBOLS for k in range(NUM_COLORED_KINDS)]
                       + list(range(NUM_COLORED_SYMBOLS, NUM_COLORED_SYMBOLS + NUM_WILD_KINDS)),
                       dtype=np.int8)
IS_WILD = KIND_COLOR < 0
IS_NUMBER = KIND_SYMBOL <= 9
#: Face value of number cards, -1 for every other kind.
KIND_NUMBER = np.where(IS_NUMBER, KIND_SYMBOL, -1).astype(np.int8)

_SYMBOL_DRAW = {SYM_DRAW2: 2, SYM_DRAW4: 4, SYM_WD4: 4, SYM_WRD4: 4, SYM_WD6: 6, SYM_WD10: 10}
#: Cards the next player must draw when this kind is played (0 for most).
DRAW_VALUE = np.array([_SYMBOL_DRAW.get(int(s), 0) for s in KIND_SYMBOL], dtype=np.int16)
IS_DRAW_CARD = DRAW_VALUE > 0

_STANDARD_POINTS = {SYM_SKIP: 20, SYM_REVERSE: 20, SYM_DRAW2: 20, SYM_DRAW4: 20, SYM_SKIP_ALL: 20,
                    SYM_DISCARD_ALL: 20, SYM_WILD: 50, SYM_WD4: 50, SYM_SWAP: 40, SYM_SHUFFLE: 40,
                    SYM_CUSTOM: 40, SYM_WRD4: 50, SYM_WD6: 50, SYM_WD10: 50, SYM_ROULETTE: 50}
#: Points of each kind under the standard (instruction sheet) table.
POINTS_STANDARD = np.array([int(s) if s <= 9 else _STANDARD_POINTS[int(s)] for s in KIND_SYMBOL],
                           dtype=np.int16)
#: Points under the house table: numbers face value, colored actions 10, wilds 20.
POINTS_HOUSE = np.where(IS_NUMBER, KIND_SYMBOL, np.where(IS_WILD, 20, 10)).astype(np.int16)
POINTS_TABLES = {"standard": POINTS_STANDARD, "house": POINTS_HOUSE}


def _deck(colored: dict[str, int], wild: dict[str, int]) -> np.ndarray:
    counts = np.zeros(NUM_KINDS, dtype=np.int16)
    for color in COLORS:
        for symbol, n in colored.items():
            counts[KIND_ID[color + symbol]] = n
    for symbol, n in wild.items():
        counts[KIND_ID[symbol]] = n
    return counts


_CLASSIC_COLORED = {"0": 1, **{str(n): 2 for n in range(1, 10)}, "S": 2, "R": 2, "D2": 2}

#: Deck compositions as counts per kind (docs/rules.md section 1).
DECKS: dict[str, np.ndarray] = {
    "classic108": _deck(_CLASSIC_COLORED, {"W": 4, "WD4": 4}),
    "classic112_swap": _deck(_CLASSIC_COLORED, {"W": 4, "WD4": 4, "WSH": 1, "WCU": 3}),
    "classic112_shuffle": _deck(_CLASSIC_COLORED, {"W": 4, "WD4": 4, "WSF": 1, "WCU": 3}),
    "minimalista": _deck(_CLASSIC_COLORED, {"W": 8, "WD4": 4}),
    "no_mercy168": _deck(
        {**{str(n): 2 for n in range(10)}, "S": 3, "R": 3, "D2": 3, "D4": 2, "SE": 2, "DA": 3},
        {"WRD4": 8, "WD6": 4, "WD10": 4, "WCR": 8},
    ),
}
#: The largest deck: the length of every draw-pile array.
MAX_DECK_SIZE = max(int(d.sum()) for d in DECKS.values())


class CardError(ValueError):
    """A card or color string that is not part of the notation."""


def parse_card(text: str) -> int:
    """Return the kind id of a card written in the notation (``R5``, ``YD2``, ``WD4``)."""
    if not isinstance(text, str):
        raise CardError(f"card must be a string like 'R5' or 'WD4', got {text!r}")
    key = text.strip().upper()
    if key not in KIND_ID:
        raise CardError(
            f"unknown card {text!r}: write a color R/Y/G/B followed by 0-9, S, R, D2, D4, SE or DA "
            f"(e.g. 'R5', 'GS', 'YD2'), or a wild: {', '.join(WILD_SYMBOLS)}"
        )
    return KIND_ID[key]


def parse_color(text: str) -> int:
    """Return the color id (0-3) of ``R``, ``Y``, ``G`` or ``B`` (full names accepted)."""
    key = str(text).strip().upper()
    for i, (letter, name) in enumerate(zip(COLORS, COLOR_NAMES, strict=False)):
        if key in (letter, name.upper()):
            return i
    raise CardError(f"unknown color {text!r}: use one of R, Y, G, B")


def card_name(kind: int) -> str:
    """The notation of a kind id."""
    return KIND_NAMES[int(kind)]


def counts_from_cards(cards: list[str] | tuple[str, ...]) -> np.ndarray:
    """Count vector ``int16[NUM_KINDS]`` of a list of card strings."""
    counts = np.zeros(NUM_KINDS, dtype=np.int16)
    for card in cards:
        counts[parse_card(card)] += 1
    return counts


def cards_from_counts(counts: np.ndarray) -> list[str]:
    """Card strings of a count vector, in kind order."""
    return [KIND_NAMES[k] for k in np.flatnonzero(counts) for _ in range(int(counts[k]))]
