"""What laying cards does in one game (twin of ``engine/effects.py``, same three stages:
lay and tally, UNO check and reactions, advance)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...cards import (
    DRAW_VALUE,
    IS_DRAW_CARD,
    IS_NUMBER,
    IS_WILD,
    KIND_COLOR,
    KIND_NUMBER,
    KIND_SYMBOL,
    NUM_COLORED_SYMBOLS,
    NUM_COLORS,
    NUM_KINDS,
    SYM_DISCARD_ALL,
    SYM_SKIP_ALL,
)
from ..codes import (
    ChallengeGuilty,
    End,
    FinishOnAction,
    MultiPlay,
    MultiSkip,
    RouletteColor,
    StackSkip,
)
from ..effects import (
    IS_REVERSE_EFFECT,
    IS_SKIP,
    ROULETTE,
    SHUFFLE,
    SWAP,
    WD4,
    WILD,
)
from ..legal import COLOR_OF
from ..state import CHOOSE_COLOR, CHOOSE_TARGET, MULTI, REACT, RESPOND, ROUND_END, TURN
from .deal import draw_cards, draw_until, shuffle_order, write_shuffled
from .legal import can_answer, dobon_eligible, finish_allowed, may_finish_on, wd4_permitted

# --- seats ------------------------------------------------------------------------------------


@njit(cache=True)
def seat_toward(rules, s, g, player, steps, d):
    """The seat ``steps`` turns after ``player`` in direction ``d``, skipping players who
    have left the round."""
    p = rules.num_players
    if s.num_out[g] + s.num_eliminated[g] == 0:
        return (player + d * steps) % p
    at = player
    active = s.active[g]
    for _ in range(steps):
        nxt = (at + d) % p
        for o in range(1, p + 1):
            cand = (at + d * o) % p
            if active[cand]:
                nxt = cand
                break
        at = nxt
    return at


@njit(cache=True)
def seat_after(rules, s, g, player, steps):
    return seat_toward(rules, s, g, player, steps, s.direction[g])


@njit(cache=True)
def active_count(rules, s, g):
    return rules.num_players - s.num_out[g] - s.num_eliminated[g]


@njit(cache=True)
def start_turn(s, g, player):
    s.current[g] = player
    s.phase[g] = TURN
    s.drawn[g] = -1
    s.uno_called[g] = False


@njit(cache=True)
def end_turn(rules, s, g, player):
    start_turn(s, g, seat_after(rules, s, g, player, 1))


@njit(cache=True)
def reset_chain(s, g):
    s.pending[g] = 0
    s.chain_first[g] = -1
    s.chain_last[g] = -1
    s.attacker[g] = -1


@njit(cache=True)
def clear_tally(s, g):
    s.turn_draw[g] = 0
    s.turn_reverse[g] = 0
    s.turn_skip[g] = 0


# --- stage 1: laying cards --------------------------------------------------------------------

@njit(cache=True)
def lay(rules, s, g, player, kind, chosen):
    """``player`` lays ``kind`` (a wild as color ``chosen``) and the play goes on."""
    phase = s.phase[g]
    first = phase != MULTI
    if rules.challenge:
        note_wd4(rules, s, g, player, kind, first)
    if first:
        s.fed[g] = s.top_player[g]
    remember_play(s, g, player, kind, chosen)
    s.hands[g, player, kind] -= 1
    s.hand_size[g, player] -= 1
    s.discard[g, kind] += 1
    if rules.zero_open:
        show(s, g, player, kind)
    s.top[g] = kind
    s.top_player[g] = player
    s.color[g] = chosen if IS_WILD[kind] else KIND_COLOR[kind]
    if rules.has_discard_all and KIND_SYMBOL[kind] == SYM_DISCARD_ALL:
        discard_color(s, g, player, KIND_COLOR[kind])
    tally(rules, s, g, kind, first)
    if rules.multi_play == MultiPlay.NONE:
        finish_laying(rules, s, g, player)
        return
    more = False
    size = s.hand_size[g, player]
    # going out on several cards needs the UNO call under uno_to_finish
    # (single_card_finish: it is never allowed)
    keep_last = (rules.uno_to_finish and rules.uno_penalty > 0 and size == 1
                       and not s.uno_called[g])
    if rules.single_card_finish and size == 1:
        keep_last = True
    if phase != REACT and size > 0 and not keep_last:
        # the play ends by itself when no card may follow (a last card the player may
        # not go out on included): ``pass`` is never the only choice
        compat = rules.compat[kind]
        hand = s.hands[g, player]
        for k in range(NUM_KINDS):
            if compat[k] and hand[k] > 0 and may_finish_on(rules, k, size):
                more = True
                break
    if more:
        s.phase[g] = MULTI
    else:
        finish_laying(rules, s, g, player)


@njit(cache=True)
def tally(rules, s, g, kind, first):
    """Add the effect of ``kind`` to the turn's tally, and to the draw chain."""
    skip = IS_SKIP[kind] or (IS_REVERSE_EFFECT[kind] and active_count(rules, s, g) == 2
                             and s.pending[g] == 0)
    if first:
        s.targeted[g] = False
    if rules.multi_effects_add:
        if first:
            clear_tally(s, g)
        s.turn_draw[g] += DRAW_VALUE[kind]
        s.turn_reverse[g] += IS_REVERSE_EFFECT[kind]
        s.turn_skip[g] += skip
    else:
        s.turn_draw[g] = DRAW_VALUE[kind]
        s.turn_reverse[g] = IS_REVERSE_EFFECT[kind]
        s.turn_skip[g] = skip
    if IS_DRAW_CARD[kind]:
        if s.chain_first[g] < 0:
            s.chain_first[g] = kind
        s.chain_last[g] = kind


@njit(cache=True)
def note_wd4(rules, s, g, player, kind, first):
    """Remember whether a Wild Draw Four broke its restriction, for a challenge."""
    s.attacker[g] = -1
    if kind != WD4:
        return
    if first:
        color = np.int64(s.color[g])
        top = np.int64(s.top[g])
        s.wd4_guilty[g] = not wd4_permitted(rules, s.hands[g, player], rules.matches[color, top],
                                            color)
        s.prev_top[g] = top
        s.prev_color[g] = color
        s.wd4_count[g] = 0
        if rules.challenge_guilty == ChallengeGuilty.RETRACT:   # what a retraction may replay
            for k in range(NUM_KINDS):
                s.hidden[g, k] = s.hands[g, player, k] > 0
    s.wd4_count[g] += 1   # Wild Draw Fours laid together: a retraction gives them all back
    if s.pending[g] == 0 or rules.challenge_on_stack:
        s.attacker[g] = player


@njit(cache=True)
def remember_play(s, g, player, kind, chosen):
    """What the table remembers of a play (see ``effects.remember_play``)."""
    s.last_played[g, player] = kind
    if IS_WILD[kind]:
        s.last_named[g, player] = chosen
    if kind == WD4:
        s.wd4_after_draw[g, player] = s.drew_on[g, player, s.color[g]]
    s.drew_on[g, player, :] = False


@njit(cache=True)
def show(s, g, player, kind):
    """``zero_open``: a card laid leaves what the table was shown (see ``effects.show``)."""
    if s.shown[g, player, kind] > 0:
        s.shown[g, player, kind] -= 1
    if KIND_NUMBER[kind] == 0:
        for k in range(NUM_KINDS):
            s.shown[g, player, k] = s.hands[g, player, k]


@njit(cache=True)
def discard_color(s, g, player, color):
    """Discard All: every card of ``color`` in the hand goes to the discard pile."""
    for k in range(color * NUM_COLORED_SYMBOLS, (color + 1) * NUM_COLORED_SYMBOLS):
        held = s.hands[g, player, k]
        s.discard[g, k] += held
        s.hands[g, player, k] = 0
        s.shown[g, player, k] = 0
        s.hand_size[g, player] -= held


# --- stage 2: the UNO call and reactions ------------------------------------------------------

@njit(cache=True)
def finish_laying(rules, s, g, player):
    """The turn's cards are down: check the UNO call (and the declaration of going out),
    offer reactions, then advance."""
    if (rules.declare_on_finish and rules.uno_penalty > 0 and s.hand_size[g, player] == 0
            and not s.uno_called[g]):   # the player draws the penalty and stays in the round
        draw_cards(s, g, player, rules.declare_on_finish)
    if rules.uno_penalty > 0 and s.hand_size[g, player] == 1 and not s.uno_called[g]:
        s.uno_offender[g] = player
    s.uno_called[g] = False
    if (rules.jump_in or rules.dobon) and offer_reaction(rules, s, g, player, player):
        return
    advance(rules, s, g, player, False)


@njit(cache=True)
def offer_reaction(rules, s, g, laid_by, after):
    """Offer a reaction to the next eligible seat after ``after`` (before ``laid_by``);
    returns whether one is offered."""
    p = rules.num_players
    d = s.direction[g]
    dist = ((laid_by - after) * d) % p
    if dist == 0:
        dist = p
    top = np.int64(s.top[g])
    hands = s.hands[g]
    sizes = s.hand_size[g]
    active = s.active[g]
    jump_in = rules.jump_in
    finish_any = rules.finish_on_action == FinishOnAction.ALLOWED
    for k in range(1, dist):
        seat = (after + d * k) % p
        if seat == laid_by or not active[seat]:
            continue
        ok = False
        if jump_in:
            ok = hands[seat, top] > 0 and not IS_WILD[top] and sizes[laid_by] > 0
            if not finish_any:
                ok = ok and (sizes[seat] != 1 or IS_NUMBER[top])
        if rules.dobon:
            ok = ok or dobon_eligible(hands[seat], sizes[seat], top)
        if ok:
            s.current[g] = seat
            s.phase[g] = REACT
            s.react_from[g] = laid_by
            s.uno_called[g] = False
            s.drawn[g] = -1
            return True
    return False


@njit(cache=True)
def fold_turn(rules, s, g):
    """A jump-in takes over the turn: the jumped card's effect is cancelled, its draws stay
    only where the rules let that card be stacked on itself (see ``effects.fold_turn``)."""
    top = s.top[g]
    if rules.respond[top, top]:
        s.pending[g] += s.turn_draw[g]
    clear_tally(s, g)


@njit(cache=True)
def dobon(rules, s, g, player):
    """``player`` declares Dobon: they win; the card goes back to the one who laid it."""
    loser = s.react_from[g]
    top = s.top[g]
    s.discard[g, top] -= 1
    s.hands[g, loser, top] += 1
    s.hand_size[g, loser] += 1
    s.dobon_loser[g] = loser
    s.round_winner[g] = player
    s.phase[g] = ROUND_END
    if rules.end == End.LAST_STANDING:
        place_dobon(rules, s, g, player, loser)


@njit(cache=True)
def place_dobon(rules, s, g, winner, loser):
    """Places after a Dobon under ``last_standing`` (see ``effects.place_dobon``)."""
    first = s.num_out[g]
    s.place[g, winner] = first
    s.place[g, loser] = rules.num_players - 1 - s.num_eliminated[g]
    s.active[g, winner] = False
    s.active[g, loser] = False
    s.num_out[g] += 2
    for seat in range(rules.num_players):
        if s.active[g, seat]:
            s.place[g, seat] = first + 1
            s.num_out[g] += 1
            s.active[g, seat] = False
    s.round_winner[g] = np.argmin(s.place[g])


# --- stage 3: the turn's effects --------------------------------------------------------------

@njit(cache=True)
def advance(rules, s, g, player, first_card):
    """Apply the turn's tally for the cards ``player`` laid, and move to the next decision."""
    top = np.int64(s.top[g])
    out = s.hand_size[g, player] == 0
    if not first_card and (rules.seven_zero or rules.in_deck[SWAP]):
        wants = not s.targeted[g] and not out and (
            top == SWAP or (rules.seven_zero and KIND_NUMBER[top] == 7))
        if wants:
            s.current[g] = player
            s.phase[g] = CHOOSE_TARGET
            return
    if s.turn_reverse[g] % 2 == 1:
        s.direction[g] *= -1
    if not first_card and rules.seven_zero and not out and KIND_NUMBER[top] == 0:
        rotate_hands(rules, s, g)
    if not first_card and rules.in_deck[SHUFFLE] and not out and top == SHUFFLE:
        shuffle_hands(rules, s, g, player)
    k = np.int64(s.turn_skip[g])
    offset = 1 if k == 0 else 2 * k if rules.multi_skip == MultiSkip.EACH else k + 1
    responding = s.pending[g] > 0
    if rules.stack_skip == StackSkip.PASS_ON and responding and IS_SKIP[top]:
        offset = 1
    if rules.has_skip_all and KIND_SYMBOL[top] == SYM_SKIP_ALL:
        offset = 0
    total = np.int64(s.pending[g]) + s.turn_draw[g]
    if rules.stack_wild_cancels and responding and top == WILD:
        total = 0
    clear_tally(s, g)
    if out:
        went_out(rules, s, g, player, offset, total)
        return
    # an answer's penalty never lands on its player; a fresh one may (a Wild Reverse Draw
    # Four with two players): they draw it at once and the turn passes
    target = next_seat(rules, s, g, player, offset, total if responding else 0)
    if total > 0 and target == player:
        s.pending[g] = total
        take_penalty(rules, s, g, player)
    elif top == ROULETTE and rules.in_deck[ROULETTE]:
        start_turn(s, g, target)
        if rules.roulette_color == RouletteColor.PLAYER:
            roulette_draw(rules, s, g, target, s.color[g])
        else:
            s.phase[g] = CHOOSE_COLOR
            s.roulette[g] = True
    elif total > 0:
        impose(rules, s, g, target, total)
    else:
        reset_chain(s, g)
        start_turn(s, g, target)
        if rules.skip_answers_skip:
            offer_skip_answer(rules, s, g, player, top, offset)


@njit(cache=True)
def offer_skip_answer(rules, s, g, player, top, offset):
    """``skip_answers_skip``: the player a single Skip skips may answer it (see
    ``effects.offer_skip_answer``)."""
    if not IS_SKIP[top] or offset != 2:
        return
    victim = seat_after(rules, s, g, player, 1)
    skips = np.zeros(NUM_KINDS, np.bool_)
    for k in range(NUM_KINDS):
        skips[k] = IS_SKIP[k] and s.hands[g, victim, k] > 0
    finish_allowed(rules, skips, s.hand_size[g, victim])
    if skips.any():
        start_turn(s, g, victim)
        s.phase[g] = RESPOND


@njit(cache=True)
def next_seat(rules, s, g, player, offset, total):
    """The seat ``offset`` turns on; a penalty never comes back to the player who laid it."""
    seat = seat_after(rules, s, g, player, offset)
    if total > 0 and seat == player:
        seat = seat_after(rules, s, g, player, 1)
    return seat


@njit(cache=True)
def impose(rules, s, g, victim, total):
    """``victim`` faces a draw penalty: a decision if they can answer it, else drawn at once."""
    start_turn(s, g, victim)
    s.phase[g] = RESPOND
    s.pending[g] = total
    can = s.attacker[g] >= 0 or catchable_by(s, g, victim)
    if not can and rules.can_stack:
        can = can_answer(rules, s.hands[g, victim], s.hand_size[g, victim], np.int64(s.top[g]),
                         np.int64(s.color[g]), s.chain_first[g], s.chain_last[g])
    if not can:
        take_penalty(rules, s, g, victim)


@njit(cache=True)
def catchable_by(s, g, player):
    """Whether ``player`` may catch someone who did not call UNO (the window is open)."""
    offender = s.uno_offender[g]
    return offender >= 0 and offender != player and s.hand_size[g, offender] == 1


@njit(cache=True)
def take_penalty(rules, s, g, victim):
    """The victim draws the whole pending total and loses the turn."""
    draw_cards(s, g, victim, s.pending[g])
    reset_chain(s, g)
    end_turn(rules, s, g, victim)


@njit(cache=True)
def went_out(rules, s, g, player, offset, total):
    """``player`` has no cards left: the target of the last card still draws its penalty."""
    target = next_seat(rules, s, g, player, offset, total)
    if total > 0:
        draw_cards(s, g, target, total)
    reset_chain(s, g)
    if rules.end == End.FIRST_OUT:
        s.round_winner[g] = player
        s.phase[g] = ROUND_END
        return
    s.place[g, player] = s.num_out[g]
    s.num_out[g] += 1
    s.active[g, player] = False
    if active_count(rules, s, g) <= 1:
        close_last_standing(rules, s, g, False)
        return
    nxt = target
    if total > 0 or not s.active[g, nxt]:
        nxt = seat_after(rules, s, g, nxt, 1)
    start_turn(s, g, nxt)


@njit(cache=True)
def close_last_standing(rules, s, g, shared):
    """Give the players still in the round the next places (the same one when ``shared``:
    see ``effects.close_last_standing``), and end it."""
    first = s.num_out[g]
    for seat in range(rules.num_players):
        if s.active[g, seat]:
            s.place[g, seat] = first if shared else s.num_out[g]
            s.num_out[g] += 1
            s.active[g, seat] = False
    s.round_winner[g] = np.argmin(s.place[g])
    s.phase[g] = ROUND_END


# --- specials ---------------------------------------------------------------------------------

@njit(cache=True)
def swap_hands(s, g, a, b):
    """Seats ``a`` and ``b`` exchange hands (the colors drawn on go with the hands)."""
    for k in range(NUM_KINDS):
        held = s.hands[g, a, k]
        s.hands[g, a, k] = s.hands[g, b, k]
        s.hands[g, b, k] = held
        held = s.shown[g, a, k]
        s.shown[g, a, k] = s.shown[g, b, k]
        s.shown[g, b, k] = held
    for c in range(NUM_COLORS):
        drew = s.drew_on[g, a, c]
        s.drew_on[g, a, c] = s.drew_on[g, b, c]
        s.drew_on[g, b, c] = drew
    size = s.hand_size[g, a]
    s.hand_size[g, a] = s.hand_size[g, b]
    s.hand_size[g, b] = size


@njit(cache=True)
def rotate_hands(rules, s, g):
    """Every hand passes to the next player in the current direction."""
    hands = s.hands[g].copy()
    sizes = s.hand_size[g].copy()
    drew_on = s.drew_on[g].copy()
    shown = s.shown[g].copy()
    for seat in range(rules.num_players):
        if s.active[g, seat]:
            to = seat_after(rules, s, g, seat, 1)
            for k in range(NUM_KINDS):
                s.hands[g, to, k] = hands[seat, k]
                s.shown[g, to, k] = shown[seat, k]
            s.hand_size[g, to] = sizes[seat]
            for c in range(NUM_COLORS):
                s.drew_on[g, to, c] = drew_on[seat, c]


@njit(cache=True)
def shuffle_hands(rules, s, g, player):
    """Wild Shuffle Hands: gather every hand, shuffle, deal one by one from the player's left."""
    p = rules.num_players
    total = 0
    for seat in range(p):
        total += s.hand_size[g, seat]
    order = shuffle_order(s, g, total)
    by_kind = np.empty(total, np.int64)
    i = 0
    for k in range(NUM_KINDS):
        for seat in range(p):
            for _ in range(s.hands[g, seat, k]):
                by_kind[i] = k
                i += 1
    live = active_count(rules, s, g)
    seats = np.empty(p, np.int64)   # clockwise order of the players still in
    seat = player
    for i in range(p):
        seat = seat_toward(rules, s, g, seat, 1, 1)
        seats[i] = seat
    s.hands[g] = 0
    s.drew_on[g] = False
    s.shown[g] = 0
    for i in range(total):
        s.hands[g, seats[i % live], by_kind[order[i]]] += 1
    for seat in range(p):
        s.hand_size[g, seat] = s.hands[g, seat].sum()


@njit(cache=True)
def roulette_draw(rules, s, g, player, color):
    """Wild Color Roulette: turn cards over until one of ``color`` shows; keep them all."""
    draw_until(s, g, player, COLOR_OF[color])
    s.uno_offender[g] = -1   # a card taken from the pile closes the catch window
    s.roulette[g] = False
    end_turn(rules, s, g, player)


@njit(cache=True)
def eliminate(rules, s, g):
    """Mercy rule: players holding ``mercy_limit`` or more cards leave the round; their cards
    go under the draw pile, in random order."""
    p = rules.num_players
    active = s.active[g]
    sizes = s.hand_size[g]
    limit = rules.mercy_limit
    hit = 0
    for seat in range(p):   # checked after every decision: no allocation unless someone is out
        hit += active[seat] and sizes[seat] >= limit
    if hit:
        over = np.zeros(p, np.bool_)
        for seat in range(p):
            over[seat] = active[seat] and sizes[seat] >= limit
        compact_pile(s, g)
        counts = np.zeros(NUM_KINDS, np.int64)
        for seat in range(p):
            if over[seat]:
                for k in range(NUM_KINDS):
                    counts[k] += s.hands[g, seat, k]
        write_shuffled(s, g, counts, np.int64(s.deck_len[g]))
        rank = 0
        for seat in range(p):
            if over[seat]:
                s.hands[g, seat] = 0
                s.shown[g, seat] = 0
                s.hand_size[g, seat] = 0
                s.active[g, seat] = False
                s.place[g, seat] = p - 1 - s.num_eliminated[g] - rank
                rank += 1
        s.num_eliminated[g] += hit
        seat = s.current[g]
        if over[seat] and s.phase[g] != ROUND_END:
            reset_chain(s, g)
            end_turn(rules, s, g, seat)
    if active_count(rules, s, g) <= 1 and s.phase[g] != ROUND_END:
        if rules.end == End.LAST_STANDING:
            close_last_standing(rules, s, g, False)
        else:
            s.round_winner[g] = np.argmax(s.active[g])
            s.phase[g] = ROUND_END


@njit(cache=True)
def compact_pile(s, g):
    """Move the pile's remaining cards to the front of its array."""
    pos = s.deck_pos[g]
    n = s.deck_len[g] - pos
    for i in range(n):
        s.deck[g, i] = s.deck[g, pos + i]
    s.deck[g, n:] = 0
    s.deck_pos[g] = 0
    s.deck_len[g] = n
