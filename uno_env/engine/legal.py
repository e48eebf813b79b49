"""Legal actions: which cards match, answer a penalty or follow in a multi-play, and the
action mask of every decision phase."""

from __future__ import annotations

from typing import cast

import numpy as np

from ..actions import (
    CATCH,
    CHALLENGE,
    COLOR_BASE,
    DOBON,
    DRAW,
    NUM_ACTIONS,
    NUM_PLAY_ACTIONS,
    NUM_TARGETS,
    PASS,
    TARGET_BASE,
    UNO,
)
from ..cards import (
    DECKS,
    DRAW_VALUE,
    IS_DRAW_CARD,
    IS_NUMBER,
    IS_WILD,
    KIND_COLOR,
    KIND_ID,
    KIND_SYMBOL,
    NUM_COLORED_KINDS,
    NUM_COLORED_SYMBOLS,
    NUM_COLORS,
    NUM_KINDS,
    POINTS_HOUSE,
    SYM_DISCARD_ALL,
    SYM_DRAW2,
    SYM_REVERSE,
    SYM_SKIP,
    SYM_SKIP_ALL,
)
from .codes import (
    DrawRule,
    FinishOnAction,
    MultiPlay,
    RuleCodes,
    Scoring,
    StackDraw2OnDraw4,
    StackSkip,
    Wd4Restriction,
    option_value,
)
from .state import (
    AFTER_DRAW,
    CHOOSE_COLOR,
    CHOOSE_TARGET,
    FORCED_PLAY,
    MULTI,
    REACT,
    RESPOND,
    TURN,
    State,
    where,
)

WD4 = KIND_ID["WD4"]
WILD = KIND_ID["W"]
IS_D2 = KIND_SYMBOL == SYM_DRAW2
IS_D4 = DRAW_VALUE == 4
IS_REVERSE = KIND_SYMBOL == SYM_REVERSE
IS_SKIP = KIND_SYMBOL == SYM_SKIP
IS_DISCARD_ALL = KIND_SYMBOL == SYM_DISCARD_ALL
#: The Discard All of each color, and every subset of the colors as 0/1 rows.
DISCARD_ALL = np.flatnonzero(IS_DISCARD_ALL)
COLOR_SETS = ((np.arange(1, 1 << NUM_COLORS)[:, None] >> np.arange(NUM_COLORS)) & 1).astype(
    np.int64)
#: Cards that do not block Dobon (a hand of only these may not declare it).
IS_DOBON_BLOCKED = IS_D2 | IS_REVERSE | IS_SKIP


def _match_table() -> np.ndarray:
    """``MATCH[color, top, kind]``: may ``kind`` be laid on ``top`` when ``color`` is current."""
    color_ok = KIND_COLOR[None, :] == np.arange(NUM_COLORS)[:, None]            # [C, K]
    symbol_ok = (KIND_SYMBOL[:, None] == KIND_SYMBOL[None, :]) & ~IS_WILD[:, None]  # [top, K]
    return color_ok[:, None, :] | symbol_ok[None, :, :] | IS_WILD[None, None, :]


MATCH = _match_table()
#: ``COLOR_OF[color, kind]``: the kind is a colored card of that color.
COLOR_OF = KIND_COLOR[None, :] == np.arange(NUM_COLORS)[:, None]


class Tables:
    """Lookup tables that depend on the rules, built once per rule set."""

    def __init__(self, rules: RuleCodes) -> None:
        self.rules = rules
        #: Kinds the rules' deck holds (effects of absent kinds are never checked).
        self.in_deck = DECKS[option_value("deck", rules.deck)] > 0
        self.has_discard_all = bool(self.in_deck[KIND_SYMBOL == SYM_DISCARD_ALL].any())
        self.has_skip_all = bool(self.in_deck[KIND_SYMBOL == SYM_SKIP_ALL].any())
        #: Whether any option lets a player answer a draw penalty with a card.
        self.can_stack = bool(
            rules.stack_draw2_on_draw2 or rules.stack_draw4_on_draw2
            or rules.stack_draw4_on_draw4 or rules.stack_draw2_on_draw4 != StackDraw2OnDraw4.NEVER
            or rules.stack_reverse or rules.stack_skip != StackSkip.NONE
            or rules.stack_wild_cancels or rules.stack_by_value)
        self.compat = _compat_table(rules)
        self.respond = _respond_table(rules)
        family = np.select([IS_D2, IS_D4, DRAW_VALUE == 6, DRAW_VALUE == 10], [0, 1, 2, 3], -1)
        #: ``SAME_FAMILY[first, kind]`` for stack_no_mixing (row -1: no chain).
        self.same_family = np.vstack([family[None, :] == family[:, None],
                                      np.ones((1, NUM_KINDS), bool)])
        self.wd4_family = IS_D4
        # Multi-play compatibility is an equivalence: kinds fall into groups.
        grouped = self.compat.any(axis=1)
        first = np.where(grouped, self.compat.argmax(axis=1), -1)
        labels = np.unique(first[grouped])
        self.group = np.where(grouped, np.searchsorted(labels, first), -1)
        self.group_onehot = (self.group[:, None] == np.arange(labels.size)[None, :]).astype(
            np.float32)


def _compat_table(rules: RuleCodes) -> np.ndarray:
    """``COMPAT[a, b]``: may ``b`` follow ``a`` within one multi-card play."""
    mode = rules.multi_play
    if mode == MultiPlay.NONE:
        return np.zeros((NUM_KINDS, NUM_KINDS), bool)
    same_symbol = KIND_SYMBOL[:, None] == KIND_SYMBOL[None, :]
    if mode == MultiPlay.IDENTICAL:
        ok = np.eye(NUM_KINDS, dtype=bool) & ~IS_WILD[:, None]
    elif mode == MultiPlay.SAME_NUMBER:
        grouped = IS_NUMBER | IS_D2 | (np.arange(NUM_KINDS) == WD4) | (
            np.arange(NUM_KINDS) == WILD)
        ok = same_symbol & grouped[:, None] & grouped[None, :]
        if rules.scoring != Scoring.NONE:   # plain Wilds group only without points
            ok[WILD, :] = ok[:, WILD] = False
    else:  # same_kind: every kind with its own, two plain Wilds included
        ok = same_symbol.copy()
    return ok


def _respond_table(rules: RuleCodes) -> np.ndarray:
    """``RESPOND[last, kind]``: may draw card ``kind`` answer a chain whose last card is ``last``
    (the color-dependent answers are added in :func:`response_kinds`)."""
    last, kind = np.meshgrid(np.arange(NUM_KINDS), np.arange(NUM_KINDS), indexing="ij")
    if rules.stack_by_value:
        return IS_DRAW_CARD[kind] & (DRAW_VALUE[kind] >= DRAW_VALUE[last]) & IS_DRAW_CARD[last]
    ok = np.zeros((NUM_KINDS, NUM_KINDS), bool)
    d2_last, d4_last = IS_D2[last], IS_D4[last]
    wd4 = kind == WD4
    if rules.stack_draw2_on_draw2:
        ok |= IS_D2[kind] & d2_last
    if rules.stack_draw4_on_draw2 and not rules.stack_no_mixing:
        ok |= wd4 & d2_last
    if rules.stack_draw4_on_draw4:
        ok |= wd4 & d4_last
    if rules.stack_draw2_on_draw4 == StackDraw2OnDraw4.ANY and not rules.stack_no_mixing:
        ok |= IS_D2[kind] & d4_last
    return ok


_TABLES: dict[int, Tables] = {}


def tables(rules: RuleCodes) -> Tables:
    """The tables of ``rules``, built once per rule object (looked up by identity: hashing
    every option at each call would cost more than the lookup saves)."""
    found = _TABLES.get(id(rules))
    if found is None or found.rules is not rules:
        if len(_TABLES) > 256:
            _TABLES.clear()
        found = _TABLES[id(rules)] = Tables(rules)
    return found


def holds_color(hands: np.ndarray, color: np.ndarray) -> np.ndarray:
    """Whether each hand ``int[n, K]`` holds a colored card of ``color[n]``."""
    by_color = hands[:, :NUM_COLORED_KINDS].reshape(-1, NUM_COLORS, NUM_COLORED_SYMBOLS)
    return (by_color[np.arange(hands.shape[0]), color] > 0).any(axis=1)


def wd4_permitted(rules: RuleCodes, hands: np.ndarray, matching: np.ndarray, color: np.ndarray
                  ) -> np.ndarray:
    """Whether the restriction allows a Wild Draw Four (``matching``: kinds held that match)."""
    if rules.wd4_restriction == Wd4Restriction.NONE:
        return np.ones(hands.shape[0], bool)
    if rules.wd4_restriction == Wd4Restriction.COLOR:
        return ~holds_color(hands, color)
    other = matching.copy()
    other[:, WD4] = False
    return cast(np.ndarray, ~other.any(axis=1))


def playable(rules: RuleCodes, hands: np.ndarray, top: np.ndarray, color: np.ndarray) -> np.ndarray:
    """Kinds each hand may lay on its pile, ``bool[n, K]`` (masking bluffs when not allowed)."""
    ok = MATCH[color, top] & (hands > 0)
    if not rules.wd4_bluff and rules.wd4_restriction != Wd4Restriction.NONE:
        has = ok[:, WD4]
        if has.any():
            idx = where(has)
            ok[idx, WD4] = wd4_permitted(rules, hands[idx], ok[idx], color[idx].astype(np.int64))
    return ok


def response_kinds(rules: RuleCodes, hands: np.ndarray, top: np.ndarray, color: np.ndarray,
                   chain_first: np.ndarray, chain_last: np.ndarray) -> np.ndarray:
    """Kinds that may answer a pending draw penalty, ``bool[n, K]``.

    A draw card answers by the chain's last draw card (and its first, under
    ``stack_no_mixing``) and must also match the top card as any play would, by color
    or kind (the top is another card once a Reverse or Skip answer moved the chain);
    only ``stack_by_value`` and ``stack_draw2_on_draw4="any"`` take answers whatever
    their color.
    """
    t = tables(rules)
    last = np.maximum(chain_last, 0)
    ok = t.respond[last] & (chain_last >= 0)[:, None]
    if rules.stack_draw2_on_draw4 == StackDraw2OnDraw4.MATCHING_COLOR and not rules.stack_no_mixing:
        ok |= IS_D2[None, :] & COLOR_OF[color] & t.wd4_family[last][:, None]
    if rules.stack_no_mixing:
        ok &= t.same_family[chain_first]
    if not rules.stack_by_value:
        matching = MATCH[color, top]
        if rules.stack_draw2_on_draw4 == StackDraw2OnDraw4.ANY and not rules.stack_no_mixing:
            matching = matching | (IS_D2[None, :] & t.wd4_family[last][:, None])
        ok &= matching
    top_symbol = KIND_SYMBOL[top]
    if rules.stack_reverse:
        ok |= IS_REVERSE[None, :] & (COLOR_OF[color] | (top_symbol == SYM_REVERSE)[:, None])
    if rules.stack_skip != StackSkip.NONE:
        ok |= IS_SKIP[None, :] & (COLOR_OF[color] | (top_symbol == SYM_SKIP)[:, None])
    if rules.stack_wild_cancels:
        ok[:, WILD] = True
    return ok & (hands > 0)


def dobon_eligible(hands: np.ndarray, sizes: np.ndarray, top: np.ndarray) -> np.ndarray:
    """``bool[n, P]``: seats whose hand may declare Dobon on ``top``."""
    totals = hands.astype(np.int32) @ POINTS_HOUSE.astype(np.int32)
    only_blocked = ((hands > 0) & ~IS_DOBON_BLOCKED).sum(-1) == 0
    return (totals == POINTS_HOUSE[top][:, None]) & (sizes >= 2) & ~only_blocked


def could_reach_one(rules: RuleCodes, hands: np.ndarray, sizes: np.ndarray, kinds: np.ndarray,
                    follow: np.ndarray | None, any_play: np.ndarray) -> np.ndarray:
    """Whether a play this turn could leave exactly one card (the UNO call is then legal).

    ``kinds``: the legal plays (``any_play``: any of them); ``follow``: per game, the
    kind just laid in a multi-card play (-1 where the play has not started). A
    Discard All takes the other cards of its color along (:func:`discard_all_reach`).
    """
    return _could_reach(rules, hands, sizes, kinds, follow, any_play, 1)


def could_go_out(rules: RuleCodes, hands: np.ndarray, sizes: np.ndarray, kinds: np.ndarray,
                 follow: np.ndarray | None, any_play: np.ndarray) -> np.ndarray:
    """Whether a play this turn could leave no card (the call then declares going out,
    under ``declare_on_finish``); arguments as for :func:`could_reach_one`."""
    if rules.single_card_finish:   # only a single last card goes out
        return (sizes == 1) & any_play
    return _could_reach(rules, hands, sizes, kinds, follow, any_play, 0)


def _could_reach(rules: RuleCodes, hands: np.ndarray, sizes: np.ndarray, kinds: np.ndarray,
                 follow: np.ndarray | None, any_play: np.ndarray, left: int) -> np.ndarray:
    """Whether a play this turn could leave exactly ``left`` cards."""
    if not tables(rules).has_discard_all:
        return _plain_reach(rules, hands, sizes, kinds, follow, any_play, left)
    plain = kinds & ~IS_DISCARD_ALL
    after = None if follow is None else np.where(IS_DISCARD_ALL[np.maximum(follow, 0)], -2,
                                                 follow)
    return (_plain_reach(rules, hands, sizes, plain, after, plain.any(axis=1), left)
            | discard_all_reach(rules, hands, sizes, kinds, follow, left))


def discard_all_reach(rules: RuleCodes, hands: np.ndarray, sizes: np.ndarray,
                      kinds: np.ndarray, follow: np.ndarray | None, left: int) -> np.ndarray:
    """Whether laying Discard Alls this turn could leave exactly ``left`` cards.

    Each Discard All laid takes every card of its color from the hand. The play's
    first one must be legal (``kinds``); where a multi-card play groups Discard Alls
    of several colors, any further held colors may follow (``follow``: a Discard All
    was just laid, and any held colors may follow it).
    """
    color_count = hands[:, :NUM_COLORED_KINDS].reshape(-1, NUM_COLORS, NUM_COLORED_SYMBOLS).sum(
        axis=2, dtype=np.int64)                                           # [n, C]
    held = hands[:, DISCARD_ALL] > 0
    grouped = bool(tables(rules).compat[DISCARD_ALL[0], DISCARD_ALL[1]])
    removed = color_count @ COLOR_SETS.T                                  # [n, sets]
    within = (COLOR_SETS[None, :, :] <= held[:, None, :]).all(axis=2)     # colors all held
    size = COLOR_SETS.sum(axis=1)
    going = np.zeros(sizes.shape, bool) if follow is None else IS_DISCARD_ALL[
        np.maximum(follow, 0)] & (follow >= 0)
    starts = (COLOR_SETS[None, :, :] & kinds[:, DISCARD_ALL][:, None, :]).any(axis=2)
    ok = within & np.where(going[:, None], True, starts)
    if not grouped:
        ok &= (size == 1)[None, :] & ~going[:, None]
    return (ok & (sizes[:, None] - removed == left)).any(axis=1)


def _plain_reach(rules: RuleCodes, hands: np.ndarray, sizes: np.ndarray, kinds: np.ndarray,
                 follow: np.ndarray | None, any_play: np.ndarray, left: int) -> np.ndarray:
    """:func:`_could_reach` for plays of cards that take no other card along
    (``follow`` -2: the play goes on with cards this does not count)."""
    reach = (sizes == left + 1) & any_play
    if rules.multi_play == MultiPlay.NONE:
        return reach
    t = tables(rules)
    cand = where((sizes > left + 1) & any_play)
    if not cand.size:
        return reach
    counts = hands[cand].astype(np.float32) @ t.group_onehot      # cards per group
    group = t.group
    need = sizes[cand] - float(left)
    if follow is not None:
        after = follow[cand]
        going = after != -1
        g_after = np.where(after >= 0, group[np.maximum(after, 0)], -1)
        following = counts[np.arange(cand.size), np.maximum(g_after, 0)] * (g_after >= 0)
        reach[cand[going]] = following[going] >= need[going]
        cand, counts, need = cand[~going], counts[~going], need[~going]
    maybe = counts.max(axis=1, initial=0.0) >= need     # a large enough group is held
    cand, counts, need = cand[maybe], counts[maybe], need[maybe]
    if cand.size:
        layable = np.where(group >= 0, counts[:, np.maximum(group, 0)], 1.0)
        most = np.where(kinds[cand], layable, 0.0).max(axis=1)
        reach[cand] = most >= need
    return reach


def finish_allowed(rules: RuleCodes, kinds: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``kinds`` without the last cards ``finish_on_action`` forbids going out on."""
    if rules.finish_on_action == FinishOnAction.ALLOWED:
        return kinds
    return kinds & (IS_NUMBER[None, :] | (sizes != 1)[:, None])


def legal_mask(rules: RuleCodes, s: State) -> np.ndarray:
    """``bool[G, A]``: the legal actions of the acting player of every game (none when over)."""
    g = s.num_games
    p = s.num_players
    ar = np.arange(g)
    player = s.current
    flat = ar * p + player
    hands = s.hands.reshape(g * p, -1).take(flat, axis=0)
    sizes = s.hand_size.reshape(-1).take(flat)
    phase = s.phase
    top = s.top.astype(np.int64)
    color = s.color.astype(np.int64)
    kinds = playable(rules, hands, top, color)
    kinds &= (phase == TURN)[:, None] | (phase == AFTER_DRAW)[:, None]
    mask = np.zeros((g, NUM_ACTIONS), bool)

    after = where(phase == AFTER_DRAW)
    if after.size and not rules.play_any_after_draw:
        drawn = kinds[after, s.drawn[after]]
        kinds[after] = False
        kinds[after, s.drawn[after]] = drawn
    special = where(phase >= RESPOND)
    follow = None
    if special.size:
        ph = phase[special]
        for code, fill in ((FORCED_PLAY, _forced), (RESPOND, _responses), (MULTI, _multi),
                           (REACT, _jumps)):
            sel = special[ph == code]
            if sel.size:
                kinds[sel] = fill(rules, s, sel, hands[sel])
        if rules.multi_play != MultiPlay.NONE:
            follow = np.where(phase == MULTI, top, -1)
    kinds = finish_allowed(rules, kinds, sizes)
    mask[:, :NUM_COLORED_KINDS] = kinds[:, :NUM_COLORED_KINDS]
    mask[:, NUM_COLORED_KINDS:NUM_PLAY_ACTIONS] = np.repeat(kinds[:, NUM_COLORED_KINDS:],
                                                            NUM_COLORS, axis=1)
    any_play = cast(np.ndarray, kinds.any(axis=1))

    turn = phase == TURN
    mask[:, DRAW] = (turn & (rules.draw_when_playable | ~any_play)) | (phase == RESPOND)
    if rules.draw_keep_going:   # draw on after a playable card showed
        mask[:, DRAW] |= phase == AFTER_DRAW
    mask[:, PASS] = (phase == MULTI) | (phase == REACT)
    if rules.skip_answers_skip:   # a skip, not a draw, to accept
        skipped = (phase == RESPOND) & (s.pending == 0)
        mask[:, DRAW] &= ~skipped
        mask[:, PASS] |= skipped
    if rules.draw_rule != DrawRule.UNTIL_PLAYABLE_MUST_PLAY:
        mask[:, PASS] |= phase == AFTER_DRAW
    if rules.challenge:
        mask[:, CHALLENGE] = (phase == RESPOND) & (s.attacker >= 0)
    mask[:, COLOR_BASE:COLOR_BASE + NUM_COLORS] = (phase == CHOOSE_COLOR)[:, None]
    if special.size:
        _targets_and_dobon(rules, s, mask, special, phase[special])
    if rules.uno_penalty > 0:
        reach = could_reach_one(rules, hands, sizes, kinds, follow, any_play)
        if rules.declare_on_finish:   # the call also declares going out
            reach |= could_go_out(rules, hands, sizes, kinds, follow, any_play)
        mask[:, UNO] = ~s.uno_called & reach
        off = s.uno_offender
        catchable = off >= 0
        if catchable.any():
            size = s.hand_size[ar, np.maximum(off, 0)]
            mask[:, CATCH] = catchable & (off != player) & (size == 1)
    mask[s.done] = False
    return mask


def _forced(rules: RuleCodes, s: State, games: np.ndarray, hands: np.ndarray) -> np.ndarray:
    kinds = MATCH[s.prev_color[games].astype(np.int64), s.prev_top[games]] & s.hidden[games]
    kinds[:, WD4] = False
    return kinds & (hands > 0)


def _responses(rules: RuleCodes, s: State, games: np.ndarray, hands: np.ndarray) -> np.ndarray:
    if not tables(rules).can_stack:
        kinds = np.zeros(hands.shape, bool)
    else:
        kinds = response_kinds(rules, hands, s.top[games].astype(np.int64),
                               s.color[games].astype(np.int64), s.chain_first[games],
                               s.chain_last[games])
    if rules.skip_answers_skip:   # nothing to draw: a Skip to answer, with a Skip
        skipped = s.pending[games] == 0
        kinds[skipped] = IS_SKIP[None, :] & (hands[skipped] > 0)
    return kinds


def _multi(rules: RuleCodes, s: State, games: np.ndarray, hands: np.ndarray) -> np.ndarray:
    return tables(rules).compat[s.top[games]] & (hands > 0)


def _jumps(rules: RuleCodes, s: State, games: np.ndarray, hands: np.ndarray) -> np.ndarray:
    kinds = np.zeros(hands.shape, bool)
    if rules.jump_in:
        top = s.top[games].astype(np.int64)
        rows = np.arange(games.size)
        kinds[rows, top] = (hands[rows, top] > 0) & ~IS_WILD[top]
    return kinds


def _targets_and_dobon(rules: RuleCodes, s: State, mask: np.ndarray, games: np.ndarray,
                       phase: np.ndarray) -> None:
    p = s.num_players
    sel = games[phase == CHOOSE_TARGET]
    if sel.size:
        seats = (s.current[sel, None] + np.arange(1, p)[None, :]) % p
        mask[sel[:, None], TARGET_BASE + np.arange(p - 1)[None, :]] = s.active[sel[:, None], seats]
    assert p - 1 <= NUM_TARGETS
    sel = games[phase == REACT]
    if sel.size and rules.dobon:
        player = s.current[sel]
        ok = dobon_eligible(s.hands[sel, player][:, None, :], s.hand_size[sel, player][:, None],
                            s.top[sel].astype(np.int64))
        mask[sel, DOBON] = ok[:, 0]
