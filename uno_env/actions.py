"""The one action table, fixed for every preset and every player count (2-10).

Layout (``NUM_ACTIONS`` = 119):

=========  ==========================================================
ids        meaning
=========  ==========================================================
0-63       ``play <kind>`` for every colored kind (id = kind id)
64-99      ``play <wild>:<color>``: wild kind ``64 + w`` as color ``c``
           has id ``64 + 4 * w + c``
100        ``draw`` (draw a card; in a penalty: accept and draw it)
101        ``pass`` (keep the drawn card, end a multi-play, decline)
102        ``challenge`` (challenge a Wild Draw Four)
103        ``uno`` (call UNO before playing down to one card)
104        ``catch`` (catch a player who did not call UNO)
105        ``dobon`` (declare Dobon)
106-109    ``color:R``, ``color:Y``, ``color:G``, ``color:B``
110-118    ``target:k``: the player k seats clockwise from the actor
=========  ==========================================================
"""

from __future__ import annotations

import numpy as np

from .cards import (
    COLORS,
    KIND_NAMES,
    NUM_COLORED_KINDS,
    NUM_COLORS,
    NUM_KINDS,
    NUM_WILD_KINDS,
    CardError,
    parse_card,
    parse_color,
)
from .rules import MAX_PLAYERS

PLAY_WILD_BASE = NUM_COLORED_KINDS
NUM_PLAY_ACTIONS = NUM_COLORED_KINDS + NUM_WILD_KINDS * NUM_COLORS
DRAW = NUM_PLAY_ACTIONS
PASS = DRAW + 1
CHALLENGE = DRAW + 2
UNO = DRAW + 3
CATCH = DRAW + 4
DOBON = DRAW + 5
COLOR_BASE = DRAW + 6
TARGET_BASE = COLOR_BASE + NUM_COLORS
NUM_TARGETS = MAX_PLAYERS - 1
NUM_ACTIONS = TARGET_BASE + NUM_TARGETS


def _names() -> tuple[str, ...]:
    names = [f"play {KIND_NAMES[k]}" for k in range(NUM_COLORED_KINDS)]
    names += [f"play {KIND_NAMES[NUM_COLORED_KINDS + w]}:{c}"
              for w in range(NUM_WILD_KINDS) for c in COLORS]
    names += ["draw", "pass", "challenge", "uno", "catch", "dobon"]
    names += [f"color:{c}" for c in COLORS]
    names += [f"target:{k}" for k in range(1, NUM_TARGETS + 1)]
    return tuple(names)


ACTION_NAMES: tuple[str, ...] = _names()
ACTION_ID: dict[str, int] = {name: i for i, name in enumerate(ACTION_NAMES)}
assert len(ACTION_NAMES) == NUM_ACTIONS

#: Kind played by each play action (-1 for other actions).
ACTION_KIND = np.full(NUM_ACTIONS, -1, dtype=np.int16)
ACTION_KIND[:NUM_COLORED_KINDS] = np.arange(NUM_COLORED_KINDS)
ACTION_KIND[PLAY_WILD_BASE:NUM_PLAY_ACTIONS] = np.repeat(
    np.arange(NUM_COLORED_KINDS, NUM_KINDS), NUM_COLORS)
#: Color chosen by each wild play or ``color:`` action (-1 otherwise).
ACTION_COLOR = np.full(NUM_ACTIONS, -1, dtype=np.int8)
ACTION_COLOR[PLAY_WILD_BASE:NUM_PLAY_ACTIONS] = np.tile(np.arange(NUM_COLORS), NUM_WILD_KINDS)
ACTION_COLOR[COLOR_BASE:TARGET_BASE] = np.arange(NUM_COLORS)
#: Seat offset of each ``target:`` action (0 otherwise).
ACTION_TARGET = np.zeros(NUM_ACTIONS, dtype=np.int8)
ACTION_TARGET[TARGET_BASE:] = np.arange(1, NUM_TARGETS + 1)
IS_PLAY = ACTION_KIND >= 0


def play_action(kind: int, color: int | None = None) -> int:
    """Id of playing ``kind`` (a wild needs the chosen ``color``)."""
    if kind < NUM_COLORED_KINDS:
        return int(kind)
    if color is None:
        raise ValueError(f"playing {KIND_NAMES[kind]} needs a color")
    return PLAY_WILD_BASE + NUM_COLORS * (kind - NUM_COLORED_KINDS) + int(color)


def action_id(name: str) -> int:
    """The id of an action name such as ``"play R5"``, ``"play WD4:R"`` or ``"draw"``."""
    if not isinstance(name, str):
        raise ValueError(f"action name must be a string, got {name!r}")
    key = " ".join(name.strip().split())
    if key in ACTION_ID:
        return ACTION_ID[key]
    lowered = key.lower()
    if lowered in ACTION_ID:
        return ACTION_ID[lowered]
    if lowered.startswith("play "):
        card, colon, color = key[5:].partition(":")
        try:
            kind = parse_card(card)
            if colon and kind < NUM_COLORED_KINDS:
                raise ValueError(f"{KIND_NAMES[kind]} is a colored card: no color to choose")
            return play_action(kind, parse_color(color) if colon else None)
        except (CardError, ValueError) as err:
            raise ValueError(f"unknown action {name!r}: {err}") from None
    if lowered.startswith("color:"):
        try:
            return COLOR_BASE + parse_color(key[6:])
        except CardError as err:
            raise ValueError(f"unknown action {name!r}: {err}") from None
    raise ValueError(f"unknown action {name!r}; actions look like 'play R5', 'play WD4:R', "
                     f"'draw', 'pass', 'challenge', 'uno', 'catch', 'dobon', 'color:G', "
                     f"'target:1'")


def action_name(action: int) -> str:
    """The name of an action id."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action id {action} is out of range 0-{NUM_ACTIONS - 1}")
    return ACTION_NAMES[a]
