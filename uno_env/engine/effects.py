"""What happens when cards are laid: the turn's effects, penalties, reactions and specials.

A turn's play goes through three stages, each vectorised over the games at it:

1. :func:`lay` puts one card on the pile and adds its effect to the turn's tally
   (``turn_draw``, ``turn_reverse``, ``turn_skip``); a multi-card play repeats it.
2. :func:`finish_laying` checks the UNO call and opens the reaction window (jump-in,
   Dobon) for the other players.
3. :func:`advance` applies the tally once: target choice (7, Wild Swap Hands), hand
   rotation and shuffles, direction, skips, and the draw penalty, which
   :func:`impose` hands to its victim as a decision when it can be answered.
"""

from __future__ import annotations

import numpy as np

from ..cards import (
    DRAW_VALUE,
    IS_DRAW_CARD,
    IS_NUMBER,
    IS_WILD,
    KIND_COLOR,
    KIND_ID,
    KIND_NUMBER,
    KIND_SYMBOL,
    NUM_COLORED_SYMBOLS,
    NUM_KINDS,
    SYM_DISCARD_ALL,
    SYM_REVERSE,
    SYM_SKIP,
    SYM_SKIP_ALL,
    SYM_WRD4,
)
from .codes import (
    ChallengeGuilty,
    End,
    FinishOnAction,
    MultiPlay,
    MultiSkip,
    RouletteColor,
    RuleCodes,
    StackSkip,
)
from .deal import add_to_hands, draw_cards, draw_until, write_shuffled
from .legal import (
    COLOR_OF,
    MATCH,
    dobon_eligible,
    finish_allowed,
    response_kinds,
    tables,
    wd4_permitted,
)
from .rng import shuffle_order
from .state import CHOOSE_COLOR, CHOOSE_TARGET, MULTI, REACT, RESPOND, ROUND_END, TURN, State, where

WD4 = KIND_ID["WD4"]
WILD = KIND_ID["W"]
SWAP = KIND_ID["WSH"]
SHUFFLE = KIND_ID["WSF"]
ROULETTE = KIND_ID["WCR"]
IS_REVERSE_EFFECT = (KIND_SYMBOL == SYM_REVERSE) | (KIND_SYMBOL == SYM_WRD4)
IS_SKIP = KIND_SYMBOL == SYM_SKIP


# --- seats ------------------------------------------------------------------------------------

def seat_after(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray,
               steps: int | np.ndarray = 1) -> np.ndarray:
    """The seat ``steps`` turns after ``player`` in each game's direction, skipping the
    players who have left the round."""
    p = rules.num_players
    d = s.direction[games]
    seat = (player + d * steps) % p
    gone = where((s.num_out[games] + s.num_eliminated[games]) > 0)
    if not gone.size:
        return seat
    left = np.broadcast_to(np.asarray(steps, np.int64), games.shape)[gone]
    g, d, at = games[gone], d[gone], np.array(player, np.int64)[gone]
    offsets = np.arange(1, p + 1)
    for i in range(int(left.max(initial=0))):
        sel = where(left > i)
        cand = (at[sel, None] + d[sel, None] * offsets[None, :]) % p
        ok = s.active[g[sel, None], cand]
        at[sel] = cand[np.arange(sel.size), ok.argmax(axis=1)]
    seat[gone] = np.where(left > 0, at, seat[gone])
    return seat


def active_count(rules: RuleCodes, s: State, games: np.ndarray) -> np.ndarray:
    return rules.num_players - s.num_out[games] - s.num_eliminated[games]


def start_turn(s: State, games: np.ndarray, player: np.ndarray) -> None:
    """Hand a normal turn to ``player``."""
    s.current[games] = player
    s.phase[games] = TURN
    s.drawn[games] = -1
    s.uno_called[games] = False


def end_turn(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray) -> None:
    start_turn(s, games, seat_after(rules, s, games, player))


def reset_chain(s: State, games: np.ndarray) -> None:
    s.pending[games] = 0
    s.chain_first[games] = -1
    s.chain_last[games] = -1
    s.attacker[games] = -1


def clear_tally(s: State, games: np.ndarray) -> None:
    s.turn_draw[games] = 0
    s.turn_reverse[games] = 0
    s.turn_skip[games] = 0


# --- stage 1: laying cards --------------------------------------------------------------------

def lay(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray, kind: np.ndarray,
        chosen: np.ndarray) -> None:
    """``player`` lays ``kind`` (wilds as color ``chosen``) and the play goes on."""
    phase = s.phase[games]
    first = phase != MULTI
    if rules.challenge:
        note_wd4(rules, s, games, player, kind, first)
    s.fed[games] = np.where(first, s.top_player[games], s.fed[games])
    remember_play(s, games, player, kind, chosen)
    s.hands[games, player, kind] -= 1
    s.hand_size[games, player] -= 1
    s.discard[games, kind] += 1
    if rules.zero_open:
        show(s, games, player, kind)
    s.top[games] = kind
    s.top_player[games] = player
    s.color[games] = np.where(IS_WILD[kind], chosen, KIND_COLOR[kind])
    if tables(rules).has_discard_all:
        discard_all = KIND_SYMBOL[kind] == SYM_DISCARD_ALL
        if discard_all.any():
            discard_color(s, games[discard_all], player[discard_all],
                           KIND_COLOR[kind[discard_all]])
    tally(rules, s, games, kind, first)
    if rules.multi_play == MultiPlay.NONE:
        finish_laying(rules, s, games, player)
        return
    hands = s.hands[games, player]
    size = s.hand_size[games, player]
    # the play ends by itself when no card may follow (a last card the player may not go
    # out on included): ``pass`` is never the only choice
    following = finish_allowed(rules, tables(rules).compat[kind] & (hands > 0), size)
    more = (phase != REACT) & (size > 0) & following.any(axis=1)
    if rules.uno_to_finish and rules.uno_penalty > 0:   # going out on several cards needs
        more &= (size != 1) | s.uno_called[games]      # the UNO call
    if rules.single_card_finish:   # or is not allowed at all
        more &= size != 1
    s.phase[games[more]] = MULTI
    done = where(~more)
    if done.size:
        finish_laying(rules, s, games[done], player[done])


def tally(rules: RuleCodes, s: State, games: np.ndarray, kind: np.ndarray,
          first: np.ndarray) -> None:
    """Add the effect of ``kind`` to the turn's tally (``first``: the turn's first card),
    and to the draw chain if it is a draw card."""
    # With two players a Reverse (Wild Reverse Draw Four too) acts as a Skip, except as an
    # answer: the stack goes back.
    skip = IS_SKIP[kind]
    reverse = IS_REVERSE_EFFECT[kind]
    if reverse.any():
        skip = skip | (reverse & (active_count(rules, s, games) == 2) & (s.pending[games] == 0))
    s.targeted[games[first]] = False
    if rules.multi_effects_add:  # the tally adds up over the cards of the turn
        clear_tally(s, games[first])
        s.turn_draw[games] += DRAW_VALUE[kind]
        s.turn_reverse[games] += IS_REVERSE_EFFECT[kind]
        s.turn_skip[games] += skip
    else:  # only the last card laid counts
        s.turn_draw[games] = DRAW_VALUE[kind]
        s.turn_reverse[games] = IS_REVERSE_EFFECT[kind]
        s.turn_skip[games] = skip
    draws = where(IS_DRAW_CARD[kind])
    if draws.size:
        g = games[draws]
        s.chain_first[g] = np.where(s.chain_first[g] < 0, kind[draws], s.chain_first[g])
        s.chain_last[g] = kind[draws]


def note_wd4(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray, kind: np.ndarray,
              first: np.ndarray) -> None:
    """Remember whether a Wild Draw Four broke its restriction, for a challenge."""
    s.attacker[games] = -1
    is_wd4 = where(kind == WD4)
    if not is_wd4.size:
        return
    g, p = games[is_wd4], player[is_wd4]
    fresh = first[is_wd4]
    hands = s.hands[g, p]
    color = s.color[g].astype(np.int64)
    matching = MATCH[color, s.top[g]] & (hands > 0)
    guilty = ~wd4_permitted(rules, hands, matching, color)
    s.wd4_guilty[g] = np.where(fresh, guilty, s.wd4_guilty[g])
    s.prev_top[g] = np.where(fresh, s.top[g], s.prev_top[g])
    s.prev_color[g] = np.where(fresh, s.color[g], s.prev_color[g])
    s.wd4_count[g] = np.where(fresh, 1, s.wd4_count[g] + 1)
    if rules.challenge_guilty == ChallengeGuilty.RETRACT:   # what a retraction may replay
        s.hidden[g[fresh]] = hands[fresh] > 0
    open_chain = s.pending[g] == 0
    s.attacker[g] = np.where(open_chain | rules.challenge_on_stack, p, -1)


def remember_play(s: State, games: np.ndarray, player: np.ndarray, kind: np.ndarray,
                  chosen: np.ndarray) -> None:
    """What the table remembers of a play (before it changes the color): the card, the
    color named for a wild, whether a Wild Draw Four replaced a color the player had
    drawn on; the colors drawn on are then forgotten (see ``observe.py``)."""
    s.last_played[games, player] = kind
    s.last_named[games, player] = np.where(IS_WILD[kind], chosen, s.last_named[games, player])
    wd4 = where(kind == WD4)
    if wd4.size:
        g, p = games[wd4], player[wd4]
        s.wd4_after_draw[g, p] = s.drew_on[g, p, s.color[g]]
    s.drew_on[games, player] = False


def show(s: State, games: np.ndarray, player: np.ndarray, kind: np.ndarray) -> None:
    """``zero_open``: a card laid leaves what the table was shown of the hand (one shown
    card of its kind, if any); a 0 then shows the hand that is left."""
    shown = s.shown[games, player, kind]
    s.shown[games, player, kind] = np.maximum(shown - 1, 0)
    zero = where(KIND_NUMBER[kind] == 0)
    if zero.size:
        g, p = games[zero], player[zero]
        s.shown[g, p] = s.hands[g, p]


def discard_color(s: State, games: np.ndarray, player: np.ndarray, color: np.ndarray) -> None:
    """Discard All: every card of ``color`` in the hand goes to the discard pile."""
    cols = color[:, None] * NUM_COLORED_SYMBOLS + np.arange(NUM_COLORED_SYMBOLS)[None, :]
    rows = games[:, None]
    held = s.hands[rows, player[:, None], cols].astype(np.int16)
    s.discard[rows, cols] += held
    s.hands[rows, player[:, None], cols] = 0
    s.shown[rows, player[:, None], cols] = 0
    s.hand_size[games, player] -= held.sum(axis=1)


# --- stage 2: the UNO call and reactions ------------------------------------------------------

def finish_laying(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray) -> None:
    """The turn's cards are down: check the UNO call (and under ``declare_on_finish`` the
    declaration of going out), offer reactions, then advance."""
    if rules.declare_on_finish and rules.uno_penalty > 0:
        undeclared = where((s.hand_size[games, player] == 0) & ~s.uno_called[games])
        if undeclared.size:   # the player draws the penalty and stays in the round
            draw_cards(s, games[undeclared], player[undeclared], rules.declare_on_finish)
    if rules.uno_penalty > 0:
        uncalled = (s.hand_size[games, player] == 1) & ~s.uno_called[games]
        s.uno_offender[games[uncalled]] = player[uncalled]
    s.uno_called[games] = False
    if rules.jump_in or rules.dobon:
        waiting = offer_reaction(rules, s, games, player, player)
        games, player = games[~waiting], player[~waiting]
    if games.size:
        advance(rules, s, games, player)


def offer_reaction(rules: RuleCodes, s: State, games: np.ndarray, laid_by: np.ndarray,
                   after: np.ndarray) -> np.ndarray:
    """Offer a reaction to the next eligible seat after ``after`` (before ``laid_by``).

    Returns, per game, whether a reaction is now offered.
    """
    p = s.num_players
    d = s.direction[games]
    k = np.arange(1, p)
    cand = (after[:, None] + d[:, None] * k[None, :]) % p
    dist = (laid_by - after) * d % p
    dist = np.where(dist == 0, p, dist)
    top = s.top[games].astype(np.int64)
    hands = s.hands[games]
    sizes = s.hand_size[games]
    seats = np.zeros((games.size, p), bool)
    if rules.jump_in:
        holds = hands[np.arange(games.size), :, top] > 0
        ok = holds & ~IS_WILD[top][:, None] & (s.hand_size[games, laid_by] > 0)[:, None]
        if rules.finish_on_action != FinishOnAction.ALLOWED:
            ok &= (sizes != 1) | IS_NUMBER[top][:, None]
        seats |= ok
    if rules.dobon:
        seats |= dobon_eligible(hands, sizes, top)
    seats &= s.active[games]
    seats[np.arange(games.size), laid_by] = False
    eligible = (k[None, :] < dist[:, None]) & seats[np.arange(games.size)[:, None], cand]
    offered = eligible.any(axis=1)
    i = where(offered)
    if i.size:
        g = games[i]
        s.current[g] = cand[i, eligible[i].argmax(axis=1)]
        s.phase[g] = REACT
        s.react_from[g] = laid_by[i]
        s.uno_called[g] = False
        s.drawn[g] = -1
    return offered


def fold_turn(rules: RuleCodes, s: State, games: np.ndarray) -> None:
    """A jump-in takes over the turn: the jumped card's effect is cancelled and a new tally
    starts for the jumper. Its draws stay (the jumper's add to them) only where the rules
    let that card be stacked on itself."""
    top = s.top[games].astype(np.int64)
    stacks = tables(rules).respond[top, top]
    s.pending[games] += np.where(stacks, s.turn_draw[games], 0).astype(s.pending.dtype)
    clear_tally(s, games)


def dobon(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray) -> None:
    """``player`` declares Dobon: they win; the card goes back to the one who laid it."""
    loser = s.react_from[games]
    top = s.top[games].astype(np.int64)
    s.discard[games, top] -= 1
    s.hands[games, loser, top] += 1
    s.hand_size[games, loser] += 1
    s.dobon_loser[games] = loser
    s.round_winner[games] = player
    s.phase[games] = ROUND_END
    if rules.end == End.LAST_STANDING:
        place_dobon(rules, s, games, player, loser)


def place_dobon(rules: RuleCodes, s: State, games: np.ndarray, winner: np.ndarray,
                loser: np.ndarray) -> None:
    """Under ``last_standing`` a Dobon ends the round: its declarer takes the best free
    place, the player whose card it answered the worst, and the players still in share
    the places between (they all hold the first of them, as after a cut round). The
    round's winner stays the first out, if someone went out before."""
    first = s.num_out[games]
    s.place[games, winner] = first
    s.place[games, loser] = rules.num_players - 1 - s.num_eliminated[games]
    s.active[games, winner] = False
    s.active[games, loser] = False
    left = s.active[games]
    s.place[games] = np.where(left, (first + 1)[:, None], s.place[games])
    s.num_out[games] += 2 + left.sum(axis=1)
    s.active[games] = False
    s.round_winner[games] = s.place[games].argmin(axis=1)


# --- stage 3: the turn's effects --------------------------------------------------------------

def advance(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray,
            first_card: bool = False) -> None:
    """Apply the turn's tally for the cards ``player`` laid, and move to the next decision."""
    top = s.top[games].astype(np.int64)
    out = s.hand_size[games, player] == 0
    deck = tables(rules).in_deck
    if not first_card and (rules.seven_zero or deck[SWAP]):
        wants = ~s.targeted[games] & ~out & (
            (top == SWAP) | (rules.seven_zero & (KIND_NUMBER[top] == 7)))
        if wants.any():
            i = where(wants)
            s.current[games[i]] = player[i]
            s.phase[games[i]] = CHOOSE_TARGET
            keep = ~wants
            games, player, top, out = games[keep], player[keep], top[keep], out[keep]
            if not games.size:
                return
    flip = games[s.turn_reverse[games] % 2 == 1]
    s.direction[flip] *= -1
    if not first_card and rules.seven_zero:
        rotate = ~out & (KIND_NUMBER[top] == 0)
        if rotate.any():
            rotate_hands(rules, s, games[rotate])
    if not first_card and deck[SHUFFLE]:
        shuffle = ~out & (top == SHUFFLE)
        if shuffle.any():
            shuffle_hands(rules, s, games[shuffle], player[shuffle])
    k = s.turn_skip[games].astype(np.int64)
    offset = np.where(k == 0, 1, 2 * k if rules.multi_skip == MultiSkip.EACH else k + 1)
    responding = s.pending[games] > 0
    if rules.stack_skip == StackSkip.PASS_ON:
        offset = np.where(responding & IS_SKIP[top], 1, offset)
    if tables(rules).has_skip_all:
        offset = np.where(KIND_SYMBOL[top] == SYM_SKIP_ALL, 0, offset)
    total = s.pending[games] + s.turn_draw[games]
    if rules.stack_wild_cancels:
        total = np.where(responding & (top == WILD), 0, total)
    clear_tally(s, games)
    if out.any():
        i = where(out)
        went_out(rules, s, games[i], player[i], offset[i], total[i])
        keep = ~out
        games, player, top, offset, total, responding = (
            a[keep] for a in (games, player, top, offset, total, responding))
    # an answer's penalty never lands on its player; a fresh one may (a Wild Reverse Draw
    # Four with two players): they draw it at once and the turn passes
    target = next_seat(rules, s, games, player, offset, np.where(responding, total, 0))
    own = (total > 0) & (target == player)
    if own.any():
        i = where(own)
        s.pending[games[i]] = total[i]
        take_penalty(rules, s, games[i], player[i])
    roulette = (top == ROULETTE) & deck[ROULETTE]
    if roulette.any():
        i = where(roulette)
        start_turn(s, games[i], target[i])
        if rules.roulette_color == RouletteColor.PLAYER:
            roulette_draw(rules, s, games[i], target[i], s.color[games[i]])
        else:
            s.phase[games[i]] = CHOOSE_COLOR
            s.roulette[games[i]] = True
    penalty = ~roulette & ~own & (total > 0)
    if penalty.any():
        i = where(penalty)
        impose(rules, s, games[i], target[i], total[i])
    plain = where(~roulette & ~own & (total <= 0))
    if plain.size:
        reset_chain(s, games[plain])
        start_turn(s, games[plain], target[plain])
        if rules.skip_answers_skip:
            offer_skip_answer(rules, s, games[plain], player[plain], top[plain], offset[plain])


def offer_skip_answer(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray,
                      top: np.ndarray, offset: np.ndarray) -> None:
    """``skip_answers_skip``: the player a single Skip skips, if it holds a Skip, decides
    first (``respond`` with nothing to draw): answer with a Skip, which passes the skip
    on to the next player, or ``pass`` and lose the turn."""
    skipped = where(IS_SKIP[top] & (offset == 2))
    if not skipped.size:
        return
    g = games[skipped]
    victim = seat_after(rules, s, g, player[skipped])
    skips = (s.hands[g, victim] > 0) & IS_SKIP[None, :]
    held = finish_allowed(rules, skips, s.hand_size[g, victim]).any(axis=1)
    g, victim = g[held], victim[held]
    start_turn(s, g, victim)
    s.phase[g] = RESPOND


def next_seat(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray,
              offset: np.ndarray, total: np.ndarray) -> np.ndarray:
    """The seat ``offset`` turns on; a penalty never comes back to the player who laid it
    (with two players a Skip answer would): it goes to the next player instead."""
    seat = seat_after(rules, s, games, player, offset)
    back = (total > 0) & (seat == player)
    if back.any():
        seat[back] = seat_after(rules, s, games[back], player[back])
    return seat


def impose(rules: RuleCodes, s: State, games: np.ndarray, victim: np.ndarray,
           total: np.ndarray) -> None:
    """``victim`` faces a draw penalty: a decision if they can answer it, else drawn at once."""
    start_turn(s, games, victim)
    s.phase[games] = RESPOND
    s.pending[games] = total
    can = (s.attacker[games] >= 0) | catchable_by(s, games, victim)
    if tables(rules).can_stack:
        hands = s.hands[games, victim]
        answers = response_kinds(rules, hands, s.top[games].astype(np.int64),
                                 s.color[games].astype(np.int64), s.chain_first[games],
                                 s.chain_last[games])
        can |= finish_allowed(rules, answers, s.hand_size[games, victim]).any(axis=1)
    if not can.all():
        i = where(~can)
        take_penalty(rules, s, games[i], victim[i])


def catchable_by(s: State, games: np.ndarray, player: np.ndarray) -> np.ndarray:
    """Whether ``player`` may catch someone who did not call UNO (the window is open)."""
    offender = s.uno_offender[games]
    held = s.hand_size[games, np.maximum(offender, 0)]
    return (offender >= 0) & (offender != player) & (held == 1)


def take_penalty(rules: RuleCodes, s: State, games: np.ndarray, victim: np.ndarray) -> None:
    """The victim draws the whole pending total and loses the turn."""
    draw_cards(s, games, victim, s.pending[games])
    reset_chain(s, games)
    end_turn(rules, s, games, victim)


def went_out(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray,
              offset: np.ndarray, total: np.ndarray) -> None:
    """``player`` has no cards left: the target of the last card still draws its penalty."""
    target = next_seat(rules, s, games, player, offset, total)
    hit = where(total > 0)
    if hit.size:
        draw_cards(s, games[hit], target[hit], total[hit])
    reset_chain(s, games)
    if rules.end == End.FIRST_OUT:
        s.round_winner[games] = player
        s.phase[games] = ROUND_END
        return
    s.place[games, player] = s.num_out[games]
    s.num_out[games] += 1
    s.active[games, player] = False
    over = active_count(rules, s, games) <= 1
    if over.any():
        close_last_standing(rules, s, games[over])
    more = where(~over)
    if more.size:
        g, nxt = games[more], target[more]
        after = (total[more] > 0) | ~s.active[g, nxt]
        nxt = np.where(after, seat_after(rules, s, g, nxt), nxt)
        start_turn(s, g, nxt)


def close_last_standing(rules: RuleCodes, s: State, games: np.ndarray, shared: bool = False
                        ) -> None:
    """Give the players still in the round the next places, and end it.

    ``shared``: the round was cut by ``max_turns``; the players still in share the
    remaining places (they all get the first of them; the scores average them).
    """
    first = s.num_out[games].copy()
    for seat in range(rules.num_players):
        i = where(s.active[games, seat])
        left = games[i]
        s.place[left, seat] = first[i] if shared else s.num_out[left]
        s.num_out[left] += 1
        s.active[left, seat] = False
    s.round_winner[games] = s.place[games].argmin(axis=1)
    s.phase[games] = ROUND_END


# --- specials ---------------------------------------------------------------------------------

def swap_hands(s: State, games: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """Seats ``a`` and ``b`` exchange hands (the colors drawn on go with the hands)."""
    ha, hb = s.hands[games, a].copy(), s.hands[games, b].copy()
    s.hands[games, a], s.hands[games, b] = hb, ha
    sa, sb = s.hand_size[games, a].copy(), s.hand_size[games, b].copy()
    s.hand_size[games, a], s.hand_size[games, b] = sb, sa
    da, db = s.drew_on[games, a].copy(), s.drew_on[games, b].copy()
    s.drew_on[games, a], s.drew_on[games, b] = db, da
    wa, wb = s.shown[games, a].copy(), s.shown[games, b].copy()
    s.shown[games, a], s.shown[games, b] = wb, wa


def rotate_hands(rules: RuleCodes, s: State, games: np.ndarray) -> None:
    """Every hand passes to the next player in the current direction."""
    hands, sizes = s.hands[games].copy(), s.hand_size[games].copy()
    drew_on, shown = s.drew_on[games].copy(), s.shown[games].copy()
    for seat in range(rules.num_players):
        live = where(s.active[games, seat])
        g = games[live]
        to = seat_after(rules, s, g, np.full(g.size, seat))
        s.hands[g, to] = hands[live, seat]
        s.hand_size[g, to] = sizes[live, seat]
        s.drew_on[g, to] = drew_on[live, seat]
        s.shown[g, to] = shown[live, seat]


def shuffle_hands(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray
                  ) -> None:
    """Wild Shuffle Hands: gather every hand, shuffle, deal one by one from the player's left."""
    n, p = games.size, rules.num_players
    pooled = s.hands[games].sum(axis=1, dtype=np.int64)
    totals = pooled.sum(axis=1)
    width = int(totals.max(initial=1))
    order = shuffle_order(s.key[games], s.counter[games], totals, width)
    s.counter[games] += np.uint64(1)
    cards = np.repeat(np.tile(np.arange(NUM_KINDS), n), pooled.ravel())
    row = np.repeat(np.arange(n), totals)
    col = np.arange(row.size) - np.repeat(np.cumsum(totals) - totals, totals)
    ordered = np.full((n, width), -1, np.int64)
    ordered[row, col] = cards
    dealt = np.take_along_axis(ordered, order, axis=1)
    seats = np.zeros((n, p), np.int64)   # clockwise order of the players still in
    seat = player.copy()
    saved = s.direction[games].copy()
    s.direction[games] = 1
    live = active_count(rules, s, games)
    for i in range(p):
        seat = seat_after(rules, s, games, seat)
        seats[:, i] = seat
    s.direction[games] = saved
    to = seats[row, col % live[row]]
    s.hands[games] = 0
    s.drew_on[games] = False
    s.shown[games] = 0
    add_to_hands(s, games[row], to, dealt[row, col])
    s.hand_size[games] = s.hands[games].sum(axis=2)


def roulette_draw(rules: RuleCodes, s: State, games: np.ndarray, player: np.ndarray,
                  color: np.ndarray) -> None:
    """Wild Color Roulette: turn cards over until one of ``color`` shows; keep them all."""
    draw_until(s, games, player, COLOR_OF[color.astype(np.int64)])
    s.uno_offender[games] = -1   # a card taken from the pile closes the catch window
    s.roulette[games] = False
    end_turn(rules, s, games, player)


def eliminate(rules: RuleCodes, s: State, games: np.ndarray) -> None:
    """Mercy rule: players holding ``mercy_limit`` or more cards leave the round; their cards
    go under the draw pile, in random order."""
    over = s.active[games] & (s.hand_size[games] >= rules.mercy_limit)
    hit = over.any(axis=1)
    if hit.any():
        g, out = games[hit], over[hit]
        compact_pile(s, g)
        counts = (s.hands[g] * out[:, :, None]).sum(axis=1, dtype=np.int64)
        write_shuffled(s, g, counts, s.deck_len[g].astype(np.int64))
        s.hands[g] *= ~out[:, :, None]
        s.shown[g] *= ~out[:, :, None]
        s.hand_size[g] *= ~out
        s.active[g] &= ~out
        rank = np.cumsum(out, axis=1) - 1
        places = s.num_players - 1 - s.num_eliminated[g][:, None] - rank
        s.place[g] = np.where(out, places, s.place[g])
        s.num_eliminated[g] += out.sum(axis=1)
        seat = s.current[g]
        moved = out[np.arange(g.size), seat] & (s.phase[g] != ROUND_END)
        if moved.any():
            reset_chain(s, g[moved])
            end_turn(rules, s, g[moved], seat[moved])
    over = games[(active_count(rules, s, games) <= 1) & (s.phase[games] != ROUND_END)]
    if over.size:
        if rules.end == End.LAST_STANDING:
            close_last_standing(rules, s, over)
        else:
            s.round_winner[over] = s.active[over].argmax(axis=1)
            s.phase[over] = ROUND_END


def compact_pile(s: State, games: np.ndarray) -> None:
    """Move each pile's remaining cards to the front of its array."""
    width = s.deck.shape[1]
    cols = np.arange(width)
    n = s.deck_len[games] - s.deck_pos[games]
    src = np.minimum(s.deck_pos[games, None] + cols[None, :], width - 1)
    moved = s.deck[games[:, None], src]
    s.deck[games] = np.where(cols[None, :] < n[:, None], moved, 0)
    s.deck_pos[games] = 0
    s.deck_len[games] = n

