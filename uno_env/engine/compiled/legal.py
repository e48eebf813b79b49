"""Legal actions of one game (twin of ``engine/legal.py``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...actions import (
    CATCH,
    CHALLENGE,
    COLOR_BASE,
    DOBON,
    DRAW,
    PASS,
    PLAY_WILD_BASE,
    TARGET_BASE,
    UNO,
)
from ...cards import (
    IS_NUMBER,
    IS_WILD,
    KIND_COLOR,
    KIND_SYMBOL,
    NUM_COLORED_KINDS,
    NUM_COLORED_SYMBOLS,
    NUM_COLORS,
    NUM_KINDS,
    POINTS_HOUSE,
    SYM_REVERSE,
    SYM_SKIP,
)
from ..codes import (
    DrawRule,
    FinishOnAction,
    MultiPlay,
    StackDraw2OnDraw4,
    StackSkip,
    Wd4Restriction,
)
from ..legal import (
    COLOR_SETS,
    DISCARD_ALL,
    IS_D2,
    IS_D4,
    IS_DISCARD_ALL,
    IS_DOBON_BLOCKED,
    IS_REVERSE,
    IS_SKIP,
    WD4,
    WILD,
)
from ..state import (
    AFTER_DRAW,
    CHOOSE_COLOR,
    CHOOSE_TARGET,
    FORCED_PLAY,
    MULTI,
    REACT,
    RESPOND,
    TURN,
)


@njit(cache=True)
def wd4_permitted(rules, hand, matching, color):
    """Whether the restriction allows laying a Wild Draw Four from ``hand`` (``matching``:
    the kinds that match the pile)."""
    if rules.wd4_restriction == Wd4Restriction.NONE:
        return True
    if rules.wd4_restriction == Wd4Restriction.COLOR:
        for k in range(color * NUM_COLORED_SYMBOLS, (color + 1) * NUM_COLORED_SYMBOLS):
            if hand[k] > 0:
                return False
        return True
    for k in range(NUM_KINDS):  # noqa: SIM110 (a loop compiles; a generator does not)
        if k != WD4 and hand[k] > 0 and matching[k]:
            return False   # another matching card is playable
    return True


@njit(cache=True)
def playable(rules, hand, top, color, out):
    """Kinds of ``hand`` that may be laid on ``top`` (bluffs masked when not allowed).

    Here and below, the struct fields a loop reads are bound to locals first:
    compiled code reloads a field after every write that might alias it.
    """
    matches = rules.matches[color, top]
    for k in range(NUM_KINDS):
        out[k] = (hand[k] > 0) & matches[k]
    if out[WD4] and not rules.wd4_bluff and rules.wd4_restriction != Wd4Restriction.NONE:
        out[WD4] = wd4_permitted(rules, hand, rules.matches[color, top], color)


@njit(cache=True)
def response_kinds(rules, hand, top, color, chain_first, chain_last, out):
    """Kinds of ``hand`` that may answer a pending draw penalty (see
    ``legal.response_kinds``)."""
    last = max(chain_last, 0)
    top_symbol = KIND_SYMBOL[top]
    family = chain_first if chain_first >= 0 else NUM_KINDS
    respond = rules.respond[last]
    same_family = rules.same_family[family]
    no_mixing = rules.stack_no_mixing
    d2_on_d4 = rules.stack_draw2_on_draw4 == StackDraw2OnDraw4.MATCHING_COLOR and not no_mixing
    any_d2_on_d4 = rules.stack_draw2_on_draw4 == StackDraw2OnDraw4.ANY and not no_mixing
    matching = not rules.stack_by_value
    matches = rules.matches[color, top]
    on_reverse = rules.stack_reverse
    on_skip = rules.stack_skip != StackSkip.NONE
    wild_cancels = rules.stack_wild_cancels
    for k in range(NUM_KINDS):
        ok = respond[k] and chain_last >= 0
        own_color = KIND_COLOR[k] == color
        if d2_on_d4:
            ok = ok or (IS_D2[k] and own_color and IS_D4[last])
        if no_mixing:
            ok = ok and same_family[k]
        if matching:
            ok = ok and (matches[k] or (any_d2_on_d4 and IS_D2[k] and IS_D4[last]))
        if on_reverse:
            ok = ok or (IS_REVERSE[k] and (own_color or top_symbol == SYM_REVERSE))
        if on_skip:
            ok = ok or (IS_SKIP[k] and (own_color or top_symbol == SYM_SKIP))
        if wild_cancels and k == WILD:
            ok = True
        out[k] = ok and hand[k] > 0


@njit(cache=True)
def can_answer(rules, hand, size, top, color, chain_first, chain_last):
    """Whether a penalty may be answered with a card from ``hand``."""
    answers = np.empty(NUM_KINDS, np.bool_)
    response_kinds(rules, hand, top, color, chain_first, chain_last, answers)
    finish_allowed(rules, answers, size)
    return answers.any()


@njit(cache=True)
def dobon_eligible(hand, size, top):
    """Whether ``hand`` may declare Dobon on ``top``."""
    total = 0
    unblocked = False
    for k in range(NUM_KINDS):
        total += hand[k] * POINTS_HOUSE[k]
        if hand[k] > 0 and not IS_DOBON_BLOCKED[k]:
            unblocked = True
    return total == POINTS_HOUSE[top] and size >= 2 and unblocked


@njit(cache=True)
def could_reach_one(rules, hand, size, kinds, follow, any_play):
    """Whether a play this turn could leave exactly one card (see ``legal.could_reach_one``)."""
    return _could_reach(rules, hand, size, kinds, follow, any_play, 1)


@njit(cache=True)
def could_go_out(rules, hand, size, kinds, follow, any_play):
    """Whether a play this turn could leave no card (see ``legal.could_go_out``)."""
    if rules.single_card_finish:
        return size == 1 and any_play
    return _could_reach(rules, hand, size, kinds, follow, any_play, 0)


@njit(cache=True)
def _could_reach(rules, hand, size, kinds, follow, any_play, left):
    """Whether a play this turn could leave exactly ``left`` cards."""
    if not rules.has_discard_all:
        return _plain_reach(rules, hand, size, kinds, follow, any_play, left)
    plain = kinds & ~IS_DISCARD_ALL
    after = -2 if follow >= 0 and IS_DISCARD_ALL[follow] else follow
    return (_plain_reach(rules, hand, size, plain, after, plain.any(), left)
            or discard_all_reach(rules, hand, size, kinds, follow, left))


@njit(cache=True)
def discard_all_reach(rules, hand, size, kinds, follow, left):
    """Whether laying Discard Alls this turn could leave exactly ``left`` cards (see
    ``legal.discard_all_reach``)."""
    going = follow >= 0 and IS_DISCARD_ALL[follow]
    grouped = rules.compat[DISCARD_ALL[0], DISCARD_ALL[1]]
    if going and not grouped:
        return False
    color_count = np.zeros(NUM_COLORS, np.int64)
    for c in range(NUM_COLORS):
        for k in range(c * NUM_COLORED_SYMBOLS, (c + 1) * NUM_COLORED_SYMBOLS):
            color_count[c] += hand[k]
    for row in range(COLOR_SETS.shape[0]):
        colors = COLOR_SETS[row]
        if not grouped and colors.sum() != 1:
            continue
        ok = going
        removed = 0
        for c in range(NUM_COLORS):
            if colors[c]:
                ok = ok or kinds[DISCARD_ALL[c]]
                if hand[DISCARD_ALL[c]] == 0:
                    ok = False
                    break
                removed += color_count[c]
        if ok and size - removed == left:
            return True
    return False


@njit(cache=True)
def _plain_reach(rules, hand, size, kinds, follow, any_play, left):
    """:func:`_could_reach` for cards that take no other card along (``follow`` -2:
    the play goes on with cards this does not count)."""
    if size == left + 1:
        return any_play
    if rules.multi_play == MultiPlay.NONE or size <= left + 1 or not any_play:
        return False
    groups = rules.group
    counts = np.zeros(NUM_KINDS, np.int64)   # cards per group (groups number fewer than K)
    for k in range(NUM_KINDS):
        if groups[k] >= 0:
            counts[groups[k]] += hand[k]
    need = size - left
    if follow != -1:
        group = groups[follow] if follow >= 0 else -1
        return group >= 0 and counts[group] >= need
    most = 0
    for k in range(NUM_KINDS):
        if kinds[k]:
            layable = counts[groups[k]] if groups[k] >= 0 else 1
            most = max(most, layable)
    return most >= need


@njit(cache=True)
def finish_allowed(rules, kinds, size):
    """Drop the last cards ``finish_on_action`` forbids going out on."""
    if rules.finish_on_action != FinishOnAction.ALLOWED and size == 1:
        for k in range(NUM_KINDS):
            kinds[k] = kinds[k] and IS_NUMBER[k]


@njit(cache=True)
def may_finish_on(rules, kind, size):
    """Whether ``finish_on_action`` lets a hand of ``size`` cards lay ``kind`` (one card at
    a time, as :func:`finish_allowed` judges a whole row)."""
    return rules.finish_on_action == FinishOnAction.ALLOWED or size != 1 or IS_NUMBER[kind]


@njit(cache=True)
def legal_row(rules, s, g, mask, kinds):
    """Fill ``mask`` (``bool[A]``) with the legal actions of game ``g``'s acting player.

    ``kinds`` (``bool[K]``) is scratch space for the playable kinds, allocated once
    by the caller for a whole batch rather than once per game.
    """
    mask[:] = False
    if s.done[g]:
        return
    player = s.current[g]
    hand = s.hands[g, player]
    size = s.hand_size[g, player]
    phase = s.phase[g]
    top = np.int64(s.top[g])
    color = np.int64(s.color[g])
    kinds[:] = False
    if phase in (TURN, AFTER_DRAW):
        playable(rules, hand, top, color, kinds)
        if phase == AFTER_DRAW and not rules.play_any_after_draw:
            drawn = s.drawn[g]
            keep = kinds[drawn]
            kinds[:] = False
            kinds[drawn] = keep
    elif phase == FORCED_PLAY:
        matches = rules.matches[s.prev_color[g], s.prev_top[g]]
        hidden = s.hidden[g]
        for k in range(NUM_KINDS):
            kinds[k] = matches[k] and hidden[k] and k != WD4 and hand[k] > 0
    elif phase == RESPOND:
        if rules.skip_answers_skip and s.pending[g] == 0:   # a Skip to answer, with a Skip
            for k in range(NUM_KINDS):
                kinds[k] = IS_SKIP[k] and hand[k] > 0
        elif rules.can_stack:
            response_kinds(rules, hand, top, color, s.chain_first[g], s.chain_last[g], kinds)
    elif phase == MULTI:
        compat = rules.compat[top]
        for k in range(NUM_KINDS):
            kinds[k] = compat[k] and hand[k] > 0
    elif phase == REACT and rules.jump_in:
        kinds[top] = hand[top] > 0 and not IS_WILD[top]
    finish_allowed(rules, kinds, size)
    any_play = False
    for k in range(NUM_COLORED_KINDS):
        mask[k] = kinds[k]
        any_play |= kinds[k]
    for k in range(NUM_COLORED_KINDS, NUM_KINDS):
        if kinds[k]:
            any_play = True
            base = PLAY_WILD_BASE + NUM_COLORS * (k - NUM_COLORED_KINDS)
            for c in range(NUM_COLORS):
                mask[base + c] = True
    skipped = rules.skip_answers_skip and phase == RESPOND and s.pending[g] == 0
    mask[DRAW] = ((phase == TURN and (rules.draw_when_playable or not any_play))
                  or (phase == RESPOND and not skipped)
                  or (phase == AFTER_DRAW and rules.draw_keep_going))
    must_play = rules.draw_rule == DrawRule.UNTIL_PLAYABLE_MUST_PLAY
    mask[PASS] = (phase in (MULTI, REACT) or phase == AFTER_DRAW and not must_play
                  or skipped)
    if rules.challenge:
        mask[CHALLENGE] = phase == RESPOND and s.attacker[g] >= 0
    if phase == CHOOSE_COLOR:
        for c in range(NUM_COLORS):
            mask[COLOR_BASE + c] = True
    p = rules.num_players
    if phase == CHOOSE_TARGET:
        active = s.active[g]
        for k in range(1, p):
            mask[TARGET_BASE + k - 1] = active[(player + k) % p]
    if phase == REACT and rules.dobon:
        mask[DOBON] = dobon_eligible(hand, size, top)
    if rules.uno_penalty > 0:
        follow = top if (phase == MULTI and rules.multi_play != MultiPlay.NONE) else -1
        reach = could_reach_one(rules, hand, size, kinds, follow, any_play)
        if rules.declare_on_finish:   # the call also declares going out
            reach = reach or could_go_out(rules, hand, size, kinds, follow, any_play)
        mask[UNO] = not s.uno_called[g] and reach
        offender = s.uno_offender[g]
        if offender >= 0:
            mask[CATCH] = offender != player and s.hand_size[g, offender] == 1
