"""Applying one decision in one game (twin of ``engine/step.py``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...actions import ACTION_COLOR, ACTION_KIND, ACTION_TARGET, COLOR_BASE
from ...cards import IS_NUMBER, NUM_KINDS
from ..codes import (
    CLOSES_CATCH,
    DECISION_OF_ACTION,
    ChallengeGuilty,
    Decision,
    DrawRule,
    FinishOnAction,
    Wd4Restriction,
)
from ..legal import MATCH, WD4
from ..state import AFTER_DRAW, FORCED_PLAY, MULTI, REACT, RESPOND, TURN
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
from .legal import playable


@njit(cache=True)
def draw_voluntary(rules, s, g, player):
    """A turn's draw under the ``draw_rule`` option."""
    s.drew_on[g, player, s.color[g]] = True
    hand = s.hands[g, player]
    top = np.int64(s.top[g])
    color = np.int64(s.color[g])
    if rules.finish_on_action != FinishOnAction.ALLOWED and stuck_on_action(s, g, player):
        one = rules.finish_on_action == FinishOnAction.FORBIDDEN_DRAW1
        draw_cards(s, g, player, 1 if one else 2)
        end_turn(rules, s, g, player)
        return
    exact = rules.wd4_bluff or rules.wd4_restriction == Wd4Restriction.NONE
    until = (rules.draw_rule == DrawRule.UNTIL_PLAYABLE_MAY_PLAY
             or rules.draw_rule == DrawRule.UNTIL_PLAYABLE_MUST_PLAY)
    if until and exact:
        kind = draw_until(s, g, player, rules.matches[color, top])
        found = kind >= 0
    else:
        kind = draw_one(s, g, player)
        found = drawn_playable(rules, s, g, player, kind)
        while until and not found and kind >= 0:
            kind = draw_one(s, g, player)
            found = drawn_playable(rules, s, g, player, kind)
    if rules.draw_rule == DrawRule.ONE_THEN_PASS:
        may_play = False
    elif rules.play_any_after_draw:
        kinds = np.empty(NUM_KINDS, np.bool_)
        playable(rules, hand, top, color, kinds)
        may_play = kinds.any()
    else:
        may_play = found
    if may_play:
        s.phase[g] = AFTER_DRAW
        s.drawn[g] = kind
    else:
        end_turn(rules, s, g, player)


@njit(cache=True)
def stuck_on_action(s, g, player):
    """The player's last card is a matching action or wild card they may not finish on."""
    if s.hand_size[g, player] != 1:
        return False
    last = np.argmax(s.hands[g, player])
    return not IS_NUMBER[last] and MATCH[s.color[g], s.top[g], last]


@njit(cache=True)
def drawn_playable(rules, s, g, player, kind):
    """Whether the drawn card (-1: none) may be played at once."""
    if kind < 0:
        return False
    color = np.int64(s.color[g])
    top = np.int64(s.top[g])
    ok = rules.matches[color, top, kind]
    if ok and kind == WD4 and not rules.wd4_bluff and rules.wd4_restriction != Wd4Restriction.NONE:
        kinds = np.empty(NUM_KINDS, np.bool_)
        playable(rules, s.hands[g, player], top, color, kinds)
        ok = kinds[WD4]
    if rules.finish_on_action != FinishOnAction.ALLOWED:
        ok = ok and (IS_NUMBER[kind] or s.hand_size[g, player] != 1)
    return ok


@njit(cache=True)
def challenge(rules, s, g, player):
    """The acting player challenges the Wild Draw Four just played on them."""
    guilty = s.wd4_guilty[g]
    attacker = s.attacker[g]
    pending = np.int64(s.pending[g])
    reset_chain(s, g)
    if not guilty:
        draw_cards(s, g, player, pending + rules.challenge_penalty)
        end_turn(rules, s, g, player)
    elif rules.challenge_guilty == ChallengeGuilty.OFFENDER_DRAWS or not retractable(s, g):
        draw_cards(s, g, attacker, pending)
        start_turn(s, g, player)
    else:  # retract: the cards go back, the offender draws and must play a hidden legal card
        laid = s.wd4_count[g]
        s.hands[g, attacker, WD4] += laid
        s.hand_size[g, attacker] += laid
        s.discard[g, WD4] -= laid
        s.top[g] = s.prev_top[g]
        s.color[g] = s.prev_color[g]
        draw_cards(s, g, attacker, pending)   # ``hidden`` holds the cards held at the play
        start_turn(s, g, attacker)
        s.phase[g] = FORCED_PLAY


@njit(cache=True)
def retractable(s, g):
    """Whether the top card the challenged Wild Draw Fours covered still lies under them."""
    prev = np.int64(s.prev_top[g])
    return s.discard[g, prev] > (s.wd4_count[g] if prev == WD4 else 0)


@njit(cache=True)
def play(rules, s, g, player, action):
    """Lay a card: a normal play, an answer to a penalty, a multi-play card or a jump-in."""
    if s.phase[g] == REACT:
        fold_turn(rules, s, g)
    if s.phase[g] != MULTI:   # kept through a play of several cards
        s.hidden[g, :] = False
    lay(rules, s, g, player, np.int64(ACTION_KIND[action]), ACTION_COLOR[action])


@njit(cache=True)
def pass_turn(rules, s, g, player):
    """``pass``: keep the drawn card, end a multi-play, decline a reaction, or accept a
    Skip that could be answered."""
    phase = s.phase[g]
    if phase == AFTER_DRAW:
        end_turn(rules, s, g, player)
    elif phase == MULTI:
        finish_laying(rules, s, g, player)
    elif phase == REACT:
        laid_by = s.react_from[g]
        if not offer_reaction(rules, s, g, laid_by, player):
            advance(rules, s, g, laid_by, False)
    elif phase == RESPOND:   # a Skip not answered: the turn is lost
        end_turn(rules, s, g, player)


@njit(cache=True)
def catch(rules, s, g):
    """The offender who did not call UNO draws the penalty; the catcher then acts as normal."""
    draw_cards(s, g, s.uno_offender[g], rules.uno_penalty)
    s.uno_offender[g] = -1


@njit(cache=True)
def choose_color(rules, s, g, player, action):
    color = action - COLOR_BASE
    if s.roulette[g]:
        roulette_draw(rules, s, g, player, color)
    else:
        s.color[g] = color
        s.last_named[g, player] = color
        s.phase[g] = TURN


@njit(cache=True)
def choose_target(rules, s, g, player, action):
    target = (player + ACTION_TARGET[action]) % rules.num_players
    swap_hands(s, g, player, target)
    s.targeted[g] = True
    advance(rules, s, g, player, False)


@njit(cache=True)
def call_uno(rules, s, g, player):
    s.uno_called[g] = True


@njit(cache=True)
def apply_action(rules, s, g, action):
    """Apply one legal decision in game ``g`` (``step.apply_actions`` for one game)."""
    player = s.current[g]
    decision = DECISION_OF_ACTION[action]
    if CLOSES_CATCH[decision]:   # a card played or taken from the pile closes the catch window
        s.uno_offender[g] = -1
    if decision == Decision.DRAW and s.phase[g] == RESPOND:
        decision = Decision.ACCEPT
    if decision == Decision.PLAY:
        play(rules, s, g, player, action)
    elif decision == Decision.DRAW:
        draw_voluntary(rules, s, g, player)
    elif decision == Decision.ACCEPT:
        take_penalty(rules, s, g, player)
    elif decision == Decision.PASS:
        pass_turn(rules, s, g, player)
    elif decision == Decision.CHALLENGE:
        challenge(rules, s, g, player)
    elif decision == Decision.CATCH:
        catch(rules, s, g)
    elif decision == Decision.DOBON:
        dobon(rules, s, g, player)
    elif decision == Decision.CHOOSE_COLOR:
        choose_color(rules, s, g, player, action)
    elif decision == Decision.CHOOSE_TARGET:
        choose_target(rules, s, g, player, action)
    else:
        call_uno(rules, s, g, player)
    if rules.mercy_limit:
        eliminate(rules, s, g)
    if s.hand_size[g, max(s.uno_offender[g], 0)] != 1:
        s.uno_offender[g] = -1
