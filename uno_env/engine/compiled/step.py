"""Applying one decision in one game (twin of ``engine/step.py``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...actions import ACTION_COLOR, ACTION_KIND, ACTION_TARGET, COLOR_BASE
from ...cards import IS_NUMBER, NUM_KINDS
from ..legal import WD4
from ..state import AFTER_DRAW, FORCED_PLAY, MULTI, REACT, RESPOND, TURN
from ..step import ACCEPT_CODE, CLOSES_CATCH, DECISION_CODE
from .deal import draw_cards, draw_one, draw_until
from .effects import (
    advance,
    dobon,
    eliminate,
    end_turn,
    finish_laying,
    fold_turn,
    lay,
    offer_reaction,
    reset_chain,
    roulette_draw,
    start_turn,
    swap_hands,
    take_penalty,
)
from .layout import (
    DRAW_ONE_THEN_PASS,
    DRAW_UNTIL_MAY,
    DRAW_UNTIL_MUST,
    FINISH_ALLOWED,
    FINISH_DRAW1,
    GUILTY_OFFENDER_DRAWS,
    WD4_ANY,
)
from .legal import playable


@njit(cache=True)
def draw_voluntary(s, r, g, player):
    """A turn's draw under the ``draw_rule`` option."""
    s.drew_on[g, player, s.color[g]] = True
    hand = s.hands[g, player]
    top = np.int64(s.top[g])
    color = np.int64(s.color[g])
    if r.finish_on_action != FINISH_ALLOWED and stuck_on_action(s, r, g, player):
        draw_cards(s, g, player, 1 if r.finish_on_action == FINISH_DRAW1 else 2)
        end_turn(s, r, g, player)
        return
    exact = r.wd4_bluff or r.wd4_restriction == WD4_ANY
    until = r.draw_rule == DRAW_UNTIL_MAY or r.draw_rule == DRAW_UNTIL_MUST
    if until and exact:
        kind = draw_until(s, g, player, r.matches[color, top])
        found = kind >= 0
    else:
        kind = draw_one(s, g, player)
        found = drawn_playable(s, r, g, player, kind)
        while until and not found and kind >= 0:
            kind = draw_one(s, g, player)
            found = drawn_playable(s, r, g, player, kind)
    if r.draw_rule == DRAW_ONE_THEN_PASS:
        may_play = False
    elif r.play_any_after_draw:
        kinds = np.empty(NUM_KINDS, np.bool_)
        playable(r, hand, top, color, kinds)
        may_play = kinds.any()
    else:
        may_play = found
    if may_play:
        s.phase[g] = AFTER_DRAW
        s.drawn[g] = kind
    else:
        end_turn(s, r, g, player)


@njit(cache=True)
def stuck_on_action(s, r, g, player):
    """The player's last card is a matching action or wild card they may not finish on."""
    if s.hand_size[g, player] != 1:
        return False
    last = np.argmax(s.hands[g, player])
    return not IS_NUMBER[last] and r.matches[s.color[g], s.top[g], last]


@njit(cache=True)
def drawn_playable(s, r, g, player, kind):
    """Whether the drawn card (-1: none) may be played at once."""
    if kind < 0:
        return False
    color = np.int64(s.color[g])
    top = np.int64(s.top[g])
    ok = r.matches[color, top, kind]
    if ok and kind == WD4 and not r.wd4_bluff and r.wd4_restriction != WD4_ANY:
        kinds = np.empty(NUM_KINDS, np.bool_)
        playable(r, s.hands[g, player], top, color, kinds)
        ok = kinds[WD4]
    if r.finish_on_action != FINISH_ALLOWED:
        ok = ok and (IS_NUMBER[kind] or s.hand_size[g, player] != 1)
    return ok


@njit(cache=True)
def challenge(s, r, g, player):
    """The acting player challenges the Wild Draw Four just played on them."""
    guilty = s.wd4_guilty[g]
    attacker = s.attacker[g]
    pending = np.int64(s.pending[g])
    reset_chain(s, g)
    if not guilty:
        draw_cards(s, g, player, pending + r.challenge_penalty)
        end_turn(s, r, g, player)
    elif r.challenge_guilty == GUILTY_OFFENDER_DRAWS or not retractable(s, g):
        draw_cards(s, g, attacker, pending)
        start_turn(s, g, player)
    else:  # retract: the card goes back, the offender draws and must play a hidden legal card
        s.hands[g, attacker, WD4] += 1
        s.hand_size[g, attacker] += 1
        s.discard[g, WD4] -= 1
        s.top[g] = s.prev_top[g]
        s.color[g] = s.prev_color[g]
        for k in range(NUM_KINDS):
            s.hidden[g, k] = s.hands[g, attacker, k] > 0
        draw_cards(s, g, attacker, pending)
        start_turn(s, g, attacker)
        s.phase[g] = FORCED_PLAY


@njit(cache=True)
def retractable(s, g):
    """Whether the top card the challenged Wild Draw Four covered still lies under it."""
    prev = np.int64(s.prev_top[g])
    return s.discard[g, prev] > (1 if prev == WD4 else 0)


@njit(cache=True)
def pass_turn(s, r, g, player):
    """``pass``: keep the drawn card, end a multi-play, or decline a reaction."""
    phase = s.phase[g]
    if phase == AFTER_DRAW:
        end_turn(s, r, g, player)
    elif phase == MULTI:
        finish_laying(s, r, g, player)
    elif phase == REACT:
        laid_by = s.react_from[g]
        if not offer_reaction(s, r, g, laid_by, player):
            advance(s, r, g, laid_by, False)


@njit(cache=True)
def apply_action(s, r, g, action):
    """Apply one legal decision in game ``g`` (``step.apply_actions`` for one game)."""
    player = s.current[g]
    code = DECISION_CODE[action]
    if CLOSES_CATCH[code]:   # a card played or taken from the pile closes the catch window
        s.uno_offender[g] = -1
    if code == 1 and s.phase[g] == RESPOND:
        code = ACCEPT_CODE
    if code == 0:       # play a card
        if s.phase[g] == REACT:
            fold_turn(s, r, g)
        s.hidden[g, :] = False
        lay(s, r, g, player, np.int64(ACTION_KIND[action]), ACTION_COLOR[action])
    elif code == 1:
        draw_voluntary(s, r, g, player)
    elif code == ACCEPT_CODE:
        take_penalty(s, r, g, player)
    elif code == 3:
        pass_turn(s, r, g, player)
    elif code == 4:
        challenge(s, r, g, player)
    elif code == 5:     # catch: the offender draws, the catcher then acts as normal
        draw_cards(s, g, s.uno_offender[g], r.uno_penalty)
        s.uno_offender[g] = -1
    elif code == 6:
        dobon(s, g, player)
    elif code == 7:     # choose a color
        color = action - COLOR_BASE
        if s.roulette[g]:
            roulette_draw(s, r, g, player, color)
        else:
            s.color[g] = color
            s.last_named[g, player] = color
            s.phase[g] = TURN
    elif code == 8:     # choose the seat to swap hands with
        target = (player + ACTION_TARGET[action]) % r.num_players
        swap_hands(s, g, player, target)
        s.targeted[g] = True
        advance(s, r, g, player, False)
    else:               # call UNO
        s.uno_called[g] = True
    if r.mercy_limit:
        eliminate(s, r, g)
    if s.hand_size[g, max(s.uno_offender[g], 0)] != 1:
        s.uno_offender[g] = -1
