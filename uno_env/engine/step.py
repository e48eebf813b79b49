"""Applying decisions: each group of games that made the same kind of decision moves on at once.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ..actions import ACTION_COLOR, ACTION_KIND, ACTION_TARGET, COLOR_BASE
from ..cards import IS_NUMBER, KIND_ID
from .codes import (
    CLOSES_CATCH,
    DECISION_OF_ACTION,
    ChallengeGuilty,
    Decision,
    DrawRule,
    FinishOnAction,
    RuleCodes,
    Wd4Restriction,
)
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
from .legal import MATCH, playable
from .state import AFTER_DRAW, FORCED_PLAY, MULTI, REACT, RESPOND, TURN, State, where

WD4 = KIND_ID["WD4"]


def draw_voluntary(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray) -> None:
    """A turn's draw under the ``draw_rule`` option."""
    s.drew_on[games, player, s.color[games]] = True
    if rules.finish_on_action != FinishOnAction.ALLOWED:
        stuck = stuck_on_action(s, games, player)
        if stuck.any():  # may not finish on an action card: draw instead, turn over
            i = where(stuck)
            one = rules.finish_on_action == FinishOnAction.FORBIDDEN_DRAW1
            draw_cards(s, games[i], player[i], 1 if one else 2)
            end_turn(rules, s, games[i], player[i])
            games, player = games[~stuck], player[~stuck]
    exact = rules.wd4_bluff or rules.wd4_restriction == Wd4Restriction.NONE
    until = rules.draw_rule in (DrawRule.UNTIL_PLAYABLE_MAY_PLAY, DrawRule.UNTIL_PLAYABLE_MUST_PLAY)
    if until and exact:
        wanted = MATCH[s.color[games].astype(np.int64), s.top[games]]
        kind = draw_until(s, games, player, wanted)
        found = cast(np.ndarray, kind >= 0)
    else:
        kind = draw_one(s, games, player)
        found = drawn_playable(rules, s, games, player, kind)
    if until and not exact:
        # whether a drawn Wild Draw Four may be played depends on the hand: card by card
        looking = where(~found & (kind >= 0))
        while looking.size:
            k = draw_one(s, games[looking], player[looking])
            kind[looking] = k
            hit = drawn_playable(rules, s, games[looking], player[looking], k)
            found[looking] = hit
            looking = looking[~hit & (k >= 0)]
    if rules.draw_rule == DrawRule.ONE_THEN_PASS:
        may_play = np.zeros(games.size, bool)
    elif rules.play_any_after_draw:
        hands = s.hands[games, player]
        may_play = cast(np.ndarray, playable(rules, hands, s.top[games],
                                             s.color[games].astype(np.int64)).any(1))
    else:
        may_play = found
    keep = where(may_play)
    s.phase[games[keep]] = AFTER_DRAW
    s.drawn[games[keep]] = kind[keep]
    stop = where(~may_play)
    if stop.size:
        end_turn(rules, s, games[stop], player[stop])


def stuck_on_action(s: State, games: np.ndarray, player: np.ndarray) -> np.ndarray:
    """The player's last card is a matching action or wild card they may not finish on."""
    hands = s.hands[games, player]
    last = hands.argmax(axis=1)
    matches = MATCH[s.color[games].astype(np.int64), s.top[games], last]
    return (s.hand_size[games, player] == 1) & ~IS_NUMBER[last] & matches


def drawn_playable(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray,
                    kind: np.ndarray) -> np.ndarray:
    """Whether each drawn card (-1: none) may be played at once."""
    ok = (kind >= 0) & MATCH[s.color[games], s.top[games], np.maximum(kind, 0)]
    if not rules.wd4_bluff and rules.wd4_restriction != Wd4Restriction.NONE:
        check = where(ok & (kind == WD4))
        if check.size:
            g, p = games[check], player[check]
            legal = playable(rules, s.hands[g, p], s.top[g], s.color[g].astype(np.int64))
            ok[check] = legal[:, WD4]
    if rules.finish_on_action != FinishOnAction.ALLOWED:
        ok &= IS_NUMBER[np.maximum(kind, 0)] | (s.hand_size[games, player] != 1)
    return ok


def challenge(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray) -> None:
    """The acting player challenges the Wild Draw Four just played on them."""
    guilty = s.wd4_guilty[games]
    attacker = s.attacker[games]
    pending = s.pending[games].astype(np.int64)
    reset_chain(s, games)
    innocent = where(~guilty)
    if innocent.size:
        g, p = games[innocent], player[innocent]
        draw_cards(s, g, p, pending[innocent] + rules.challenge_penalty)
        end_turn(rules, s, g, p)
    caught = where(guilty)
    if not caught.size:
        return
    g, a, owed = games[caught], attacker[caught], pending[caught]
    retract = (retractable(s, g) if rules.challenge_guilty == ChallengeGuilty.RETRACT
               else np.zeros(g.size, bool))
    keep = where(~retract)
    if keep.size:   # the offender draws the penalty, the challenger takes a normal turn
        draw_cards(s, g[keep], a[keep], owed[keep])
        start_turn(s, g[keep], player[caught][keep])
    back = where(retract)
    if not back.size:
        return
    # retract: the cards go back (every Wild Draw Four laid together), the offender draws
    # and must play a hidden legal card
    g, a, owed = g[back], a[back], owed[back]
    laid = s.wd4_count[g]
    s.hands[g, a, WD4] += laid.astype(s.hands.dtype)
    s.hand_size[g, a] += laid
    s.discard[g, WD4] -= laid
    s.top[g] = s.prev_top[g]
    s.color[g] = s.prev_color[g]
    draw_cards(s, g, a, owed)   # ``hidden`` holds the cards held when the card was played
    start_turn(s, g, a)
    s.phase[g] = FORCED_PLAY


def retractable(s: State, games: np.ndarray) -> np.ndarray:
    """Whether the top card the challenged Wild Draw Fours covered still lies under them.

    A reshuffle since the play (a catch's draw) takes it into the draw pile; the
    Wild Draw Fours are then the only discards and cannot be taken back.
    """
    prev = s.prev_top[games].astype(np.int64)
    return s.discard[games, prev] > np.where(prev == WD4, s.wd4_count[games], 0)


def play(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray, actions: np.ndarray
         ) -> None:
    """Lay a card: a normal play, an answer to a penalty, a multi-play card or a jump-in."""
    jump = where(s.phase[games] == REACT)
    if jump.size:
        fold_turn(rules, s, games[jump])
    s.hidden[games[s.phase[games] != MULTI]] = False   # kept through a play of several
    lay(rules, s, games, player, ACTION_KIND[actions].astype(np.int64),
        ACTION_COLOR[actions].astype(np.int8))


def pass_turn(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray) -> None:
    """``pass``: keep the drawn card, end a multi-play, decline a reaction, or accept a
    Skip that could be answered (``skip_answers_skip``: the turn is lost)."""
    phase = s.phase[games]
    for code, handler in ((AFTER_DRAW, end_turn), (MULTI, finish_laying),
                          (REACT, _decline_reaction), (RESPOND, end_turn)):
        i = where(phase == code)
        if i.size:
            handler(rules, s, games[i], player[i])


def _decline_reaction(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray) -> None:
    laid_by = s.react_from[games]
    offered = offer_reaction(rules, s, games, laid_by, player)
    rest = where(~offered)
    if rest.size:
        advance(rules, s, games[rest], laid_by[rest])


def catch(rules: RuleCodes, s: State, games: np.ndarray) -> None:
    """The offender who did not call UNO draws the penalty; the catcher then acts as normal."""
    offender = s.uno_offender[games]
    draw_cards(s, games, offender, rules.uno_penalty)
    s.uno_offender[games] = -1


def choose_color(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray,
                 actions: np.ndarray) -> None:
    color = (actions - COLOR_BASE).astype(np.int8)
    spin = s.roulette[games]
    if spin.any():
        i = where(spin)
        roulette_draw(rules, s, games[i], player[i], color[i])
    i = where(~spin)
    s.color[games[i]] = color[i]
    s.last_named[games[i], player[i]] = color[i]
    s.phase[games[i]] = TURN


def choose_target(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray,
                  actions: np.ndarray) -> None:
    target = (player + ACTION_TARGET[actions]) % rules.num_players
    swap_hands(s, games, player, target)
    s.targeted[games] = True
    advance(rules, s, games, player)


def call_uno(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray) -> None:
    s.uno_called[games] = True


#: The function that applies each decision (the compiled ``apply_action`` branches alike).
HANDLERS = {
    Decision.PLAY: lambda r, s, g, p, a: play(r, s, g, p, a),
    Decision.DRAW: lambda r, s, g, p, a: draw_voluntary(r, s, g, p),
    Decision.ACCEPT: lambda r, s, g, p, a: take_penalty(r, s, g, p),
    Decision.PASS: lambda r, s, g, p, a: pass_turn(r, s, g, p),
    Decision.CHALLENGE: lambda r, s, g, p, a: challenge(r, s, g, p),
    Decision.CATCH: lambda r, s, g, p, a: catch(r, s, g),
    Decision.DOBON: lambda r, s, g, p, a: dobon(r, s, g, p),
    Decision.CHOOSE_COLOR: lambda r, s, g, p, a: choose_color(r, s, g, p, a),
    Decision.CHOOSE_TARGET: lambda r, s, g, p, a: choose_target(r, s, g, p, a),
    Decision.CALL_UNO: lambda r, s, g, p, a: call_uno(r, s, g, p),
}


def apply_actions(rules: RuleCodes, s: State, games: np.ndarray, actions: np.ndarray) -> None:
    """Apply one legal decision in each listed game, one handler per kind of decision."""
    player = s.current[games]
    decision = DECISION_OF_ACTION[actions]
    close = (s.uno_offender[games] >= 0) & CLOSES_CATCH[decision]
    if close.any():   # a card played or taken from the pile closes the catch window
        s.uno_offender[games[close]] = -1
    decision[(decision == Decision.DRAW) & (s.phase[games] == RESPOND)] = Decision.ACCEPT
    present = np.bincount(decision, minlength=len(Decision)).nonzero()[0]
    for d in present:
        if present.size == 1:
            HANDLERS[Decision(int(d))](rules, s, games, player, actions)
        else:
            i = where(decision == d)
            HANDLERS[Decision(int(d))](rules, s, games[i], player[i], actions[i])
    if rules.mercy_limit:
        eliminate(rules, s, games)
    hand_size = s.hand_size[games, np.maximum(s.uno_offender[games], 0)]
    s.uno_offender[games[hand_size != 1]] = -1
