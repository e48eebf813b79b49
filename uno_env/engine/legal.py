"""Legal actions: which cards match, and the action mask of every decision phase."""

from __future__ import annotations

import numpy as np

from ..actions import (
    CATCH,
    CHALLENGE,
    COLOR_BASE,
    DRAW,
    NUM_ACTIONS,
    NUM_PLAY_ACTIONS,
    PASS,
    UNO,
)
from ..cards import (
    IS_WILD,
    KIND_COLOR,
    KIND_ID,
    KIND_SYMBOL,
    NUM_COLORED_KINDS,
    NUM_COLORED_SYMBOLS,
    NUM_COLORS,
    NUM_KINDS,
)
from ..rules import Rules
from .state import AFTER_DRAW, CHOOSE_COLOR, FORCED_PLAY, RESPOND, TURN, State

WD4 = KIND_ID["WD4"]


def _match_table() -> np.ndarray:
    """``MATCH[color, top, kind]``: may ``kind`` be laid on ``top`` when ``color`` is current."""
    color_ok = KIND_COLOR[None, :] == np.arange(NUM_COLORS)[:, None]            # [C, K]
    symbol_ok = (KIND_SYMBOL[:, None] == KIND_SYMBOL[None, :]) & ~IS_WILD[:, None]  # [top, K]
    return color_ok[:, None, :] | symbol_ok[None, :, :] | IS_WILD[None, None, :]


MATCH = _match_table()


def holds_color(hands: np.ndarray, color: np.ndarray) -> np.ndarray:
    """Whether each hand ``int[n, K]`` holds a colored card of ``color[n]``."""
    by_color = hands[:, :NUM_COLORED_KINDS].reshape(-1, NUM_COLORS, NUM_COLORED_SYMBOLS)
    return (by_color[np.arange(hands.shape[0]), color] > 0).any(axis=1)


def wd4_permitted(rules: Rules, hands: np.ndarray, matching: np.ndarray, color: np.ndarray
                  ) -> np.ndarray:
    """Whether the restriction allows a Wild Draw Four (``matching``: kinds held that match)."""
    if rules.wd4_restriction == "none":
        return np.ones(hands.shape[0], bool)
    if rules.wd4_restriction == "color":
        return ~holds_color(hands, color)
    other = matching.copy()
    other[:, WD4] = False
    return ~other.any(axis=1)


def playable(rules: Rules, hands: np.ndarray, top: np.ndarray, color: np.ndarray) -> np.ndarray:
    """Kinds each hand may lay on its pile, ``bool[n, K]`` (masking bluffs when not allowed)."""
    ok = MATCH[color, top] & (hands > 0)
    if not rules.wd4_bluff:
        has = ok[:, WD4]
        if has.any():
            idx = np.flatnonzero(has)
            ok[idx, WD4] = wd4_permitted(rules, hands[idx], ok[idx], color[idx].astype(np.int64))
    return ok


def legal_mask(rules: Rules, s: State) -> np.ndarray:
    """``bool[G, A]``: the legal actions of the acting player of every game (none when over)."""
    g = s.num_games
    ar = np.arange(g)
    player = s.current
    hands = s.hands.reshape(g * s.num_players, -1).take(ar * s.num_players + player, axis=0)
    phase = s.phase
    kinds = playable(rules, hands, s.top, s.color.astype(np.int64))
    mask = np.zeros((g, NUM_ACTIONS), bool)

    after = phase == AFTER_DRAW
    if after.any() and not rules.play_any_after_draw:
        only_drawn = np.zeros((g, NUM_KINDS), bool)
        idx = np.flatnonzero(after)
        only_drawn[idx, s.drawn[idx]] = True
        kinds &= ~after[:, None] | only_drawn
    forced = phase == FORCED_PLAY
    if forced.any():
        idx = np.flatnonzero(forced)
        kinds[idx] = MATCH[s.prev_color[idx], s.prev_top[idx]] & s.hidden[idx]
        kinds[idx, WD4] = False
    plays_allowed = (phase == TURN) | after | forced
    kinds &= plays_allowed[:, None]
    mask[:, :NUM_COLORED_KINDS] = kinds[:, :NUM_COLORED_KINDS]
    wild_plays = mask[:, NUM_COLORED_KINDS:NUM_PLAY_ACTIONS].reshape(g, -1, NUM_COLORS)
    wild_plays[...] = kinds[:, NUM_COLORED_KINDS:, None]
    any_play = kinds.any(axis=1)

    turn = phase == TURN
    mask[:, DRAW] = turn & (rules.draw_when_playable | ~any_play)
    mask[:, DRAW] |= phase == RESPOND
    if rules.draw_rule != "until_playable_must_play":
        mask[:, PASS] = after
    if rules.challenge:
        mask[:, CHALLENGE] = (phase == RESPOND) & (s.top == WD4) & (s.attacker >= 0)
    mask[:, COLOR_BASE:COLOR_BASE + NUM_COLORS] = (phase == CHOOSE_COLOR)[:, None]
    if rules.uno_penalty > 0:
        two = s.hand_size[ar, player] == 2
        mask[:, UNO] = two & any_play & ~s.uno_called
        off = s.uno_offender
        catchable = off >= 0
        if catchable.any():
            size = s.hand_size[ar, np.maximum(off, 0)]
            mask[:, CATCH] = catchable & (off != player) & (size == 1)
    mask[s.done] = False
    return mask
