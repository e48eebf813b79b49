"""Applying decisions: every game of a group advances to its next decision point.

Each handler takes the indices of the games that made one kind of decision and
moves all of them on at once; a card's effects live in :func:`resolve_play`.
"""

from __future__ import annotations

import numpy as np

from ..actions import ACTION_COLOR, ACTION_KIND, CATCH, CHALLENGE, COLOR_BASE, DRAW, PASS, UNO
from ..cards import (
    DRAW_VALUE,
    IS_WILD,
    KIND_COLOR,
    KIND_ID,
    KIND_SYMBOL,
    NUM_COLORS,
    POINTS_TABLES,
    SYM_REVERSE,
    SYM_SKIP,
)
from ..rules import Rules
from .deal import choose_dealer, deal, draw_cards, draw_one, flip_first_card
from .legal import MATCH, playable, wd4_permitted
from .state import AFTER_DRAW, CHOOSE_COLOR, FORCED_PLAY, RESPOND, ROUND_END, TURN, State

WD4 = KIND_ID["WD4"]


def seat_after(rules: Rules, s: State, games: np.ndarray, player: np.ndarray,
               steps: int | np.ndarray = 1) -> np.ndarray:
    """The seat ``steps`` turns after ``player`` in each game's current direction."""
    return (player + s.direction[games] * steps) % rules.num_players


def start_turn(s: State, games: np.ndarray, player: np.ndarray) -> None:
    """Hand a normal turn to ``player``."""
    s.current[games] = player
    s.phase[games] = TURN
    s.drawn[games] = -1
    s.uno_called[games] = False


def end_turn(rules: Rules, s: State, games: np.ndarray, player: np.ndarray) -> None:
    start_turn(s, games, seat_after(rules, s, games, player))


# --- card effects -----------------------------------------------------------------------------

def resolve_play(rules: Rules, s: State, games: np.ndarray, player: np.ndarray,
                 kind: np.ndarray) -> None:
    """Apply the effects of ``kind``, just laid by ``player``, and pass the turn on.

    Also used for the first card of a round, "as if the dealer had played it".
    """
    symbol = KIND_SYMBOL[kind]
    reverse = symbol == SYM_REVERSE
    if reverse.any():
        s.direction[games[reverse]] *= -1
    skips = 1 + (symbol == SYM_SKIP) + (reverse & (rules.num_players == 2))
    victim = seat_after(rules, s, games, player)
    amount = DRAW_VALUE[kind]
    out = s.hand_size[games, player] == 0
    if out.any():
        i = np.flatnonzero(out & (amount > 0))
        draw_cards(s, games[i], victim[i], amount[i])
        s.round_winner[games[out]] = player[out]
        s.phase[games[out]] = ROUND_END
    challengeable = ~out & (kind == WD4) & rules.challenge
    if challengeable.any():
        i = np.flatnonzero(challengeable)
        s.current[games[i]] = victim[i]
        s.phase[games[i]] = RESPOND
        s.pending[games[i]] = amount[i]
        s.drawn[games[i]] = -1
        s.uno_called[games[i]] = False
    forced = ~out & ~challengeable & (amount > 0)
    if forced.any():
        i = np.flatnonzero(forced)
        draw_cards(s, games[i], victim[i], amount[i])
    rest = ~out & ~challengeable
    skips = skips + forced
    if rest.all():
        start_turn(s, games, seat_after(rules, s, games, player, skips))
    elif rest.any():
        g = games[rest]
        start_turn(s, g, seat_after(rules, s, g, player[rest], skips[rest]))


def play_cards(rules: Rules, s: State, games: np.ndarray, player: np.ndarray,
               kind: np.ndarray, chosen: np.ndarray) -> None:
    """``player`` lays ``kind`` (wilds as color ``chosen``)."""
    is_wd4 = kind == WD4
    if rules.challenge and is_wd4.any():
        i = np.flatnonzero(is_wd4)
        g, p = games[i], player[i]
        hands = s.hands[g, p]
        color = s.color[g].astype(np.int64)
        matching = MATCH[color, s.top[g]] & (hands > 0)
        s.wd4_guilty[g] = ~wd4_permitted(rules, hands, matching, color)
        s.prev_top[g] = s.top[g]
        s.prev_color[g] = s.color[g]
        s.attacker[g] = p
    s.hands[games, player, kind] -= 1
    s.hand_size[games, player] -= 1
    s.discard[games, kind] += 1
    s.top[games] = kind
    s.color[games] = np.where(IS_WILD[kind], chosen, KIND_COLOR[kind])
    if rules.uno_penalty > 0:
        uncalled = (s.hand_size[games, player] == 1) & ~s.uno_called[games]
        s.uno_offender[games[uncalled]] = player[uncalled]
    resolve_play(rules, s, games, player, kind)


# --- decisions --------------------------------------------------------------------------------

def draw_voluntary(rules: Rules, s: State, games: np.ndarray, player: np.ndarray) -> None:
    """A turn's draw under the ``draw_rule`` option."""
    until = rules.draw_rule.startswith("until_playable")
    kind = draw_one(s, games, player)
    found = _drawn_playable(rules, s, games, player, kind)
    if until:
        looking = np.flatnonzero(~found & (kind >= 0))
        while looking.size:
            k = draw_one(s, games[looking], player[looking])
            kind[looking] = k
            hit = _drawn_playable(rules, s, games[looking], player[looking], k)
            found[looking] = hit
            looking = looking[~hit & (k >= 0)]
    if rules.draw_rule == "one_then_pass":
        may_play = np.zeros(games.size, bool)
    elif rules.play_any_after_draw:
        hands = s.hands[games, player]
        may_play = playable(rules, hands, s.top[games], s.color[games].astype(np.int64)).any(1)
    else:
        may_play = found
    keep = np.flatnonzero(may_play)
    s.phase[games[keep]] = AFTER_DRAW
    s.drawn[games[keep]] = kind[keep]
    stop = np.flatnonzero(~may_play)
    if stop.size:
        end_turn(rules, s, games[stop], player[stop])


def _drawn_playable(rules: Rules, s: State, games: np.ndarray, player: np.ndarray,
                    kind: np.ndarray) -> np.ndarray:
    ok = np.zeros(games.size, bool)
    got = np.flatnonzero(kind >= 0)
    if got.size:
        g = games[got]
        legal = playable(rules, s.hands[g, player[got]], s.top[g], s.color[g].astype(np.int64))
        ok[got] = legal[np.arange(got.size), kind[got]]
    return ok


def accept_penalty(rules: Rules, s: State, games: np.ndarray, player: np.ndarray) -> None:
    draw_cards(s, games, player, s.pending[games])
    s.pending[games] = 0
    s.attacker[games] = -1
    end_turn(rules, s, games, player)


def challenge(rules: Rules, s: State, games: np.ndarray, player: np.ndarray) -> None:
    """The acting player challenges the Wild Draw Four just played on them."""
    guilty = s.wd4_guilty[games]
    attacker = s.attacker[games]
    pending = s.pending[games]
    s.pending[games] = 0
    s.attacker[games] = -1
    innocent = np.flatnonzero(~guilty)
    if innocent.size:
        g, p = games[innocent], player[innocent]
        draw_cards(s, g, p, pending[innocent] + rules.challenge_penalty)
        end_turn(rules, s, g, p)
    caught = np.flatnonzero(guilty)
    if not caught.size:
        return
    g, a = games[caught], attacker[caught]
    if rules.challenge_guilty == "offender_draws":
        draw_cards(s, g, a, pending[caught])
        start_turn(s, g, player[caught])
        return
    # retract: the card goes back, the offender draws and must play a hidden legal card
    s.hands[g, a, WD4] += 1
    s.hand_size[g, a] += 1
    s.discard[g, WD4] -= 1
    s.top[g] = s.prev_top[g]
    s.color[g] = s.prev_color[g]
    s.hidden[g] = s.hands[g, a] > 0
    draw_cards(s, g, a, pending[caught])
    start_turn(s, g, a)
    s.phase[g] = FORCED_PLAY


def catch(rules: Rules, s: State, games: np.ndarray) -> None:
    """The offender who did not call UNO draws the penalty; the catcher then acts as normal."""
    offender = s.uno_offender[games]
    draw_cards(s, games, offender, rules.uno_penalty)
    s.uno_offender[games] = -1


def apply_actions(rules: Rules, s: State, games: np.ndarray, actions: np.ndarray) -> None:
    """Apply one legal decision in each listed game."""
    player = s.current[games]
    offender = s.uno_offender[games]
    close = (offender >= 0) & (actions != CATCH) & (offender != player)
    if close.any():
        s.uno_offender[games[close]] = -1
    phase = s.phase[games]
    kind = ACTION_KIND[actions]

    def group(sel: np.ndarray, handler, *args) -> None:
        i = np.flatnonzero(sel)
        if i.size:
            handler(rules, s, games[i], *(a[i] for a in args))

    plays = kind >= 0
    if plays.any():
        i = np.flatnonzero(plays)
        if (phase[i] == FORCED_PLAY).any():
            s.hidden[games[i]] = False
        play_cards(rules, s, games[i], player[i], kind[i].astype(np.int64),
                   ACTION_COLOR[actions[i]].astype(np.int8))
    draws = actions == DRAW
    group(draws & (phase == TURN), draw_voluntary, player)
    group(draws & (phase == RESPOND), accept_penalty, player)
    group(actions == PASS, end_turn, player)
    group(actions == CHALLENGE, challenge, player)
    group(actions == CATCH, catch)
    uno = np.flatnonzero(actions == UNO)
    s.uno_called[games[uno]] = True
    colors = np.flatnonzero((actions >= COLOR_BASE) & (actions < COLOR_BASE + NUM_COLORS))
    if colors.size:
        s.color[games[colors]] = actions[colors] - COLOR_BASE
        s.phase[games[colors]] = TURN
    hand_size = s.hand_size[games, np.maximum(s.uno_offender[games], 0)]
    s.uno_offender[games[hand_size != 1]] = -1


# --- rounds -----------------------------------------------------------------------------------

def new_round(rules: Rules, s: State, games: np.ndarray, first_round: np.ndarray) -> None:
    """Choose the dealer, deal, and open the round."""
    choose_dealer(rules, s, games, first_round)
    deal(rules, s, games)
    clear_round(s, games)
    open_round(rules, s, games)


def clear_round(s: State, games: np.ndarray) -> None:
    """Reset the per-round fields (not the cards) of the listed games."""
    s.direction[games] = 1
    s.pending[games] = 0
    s.uno_offender[games] = -1
    s.attacker[games] = -1
    s.hidden[games] = False
    s.turns[games] = 0
    s.round_winner[games] = -1


def open_round(rules: Rules, s: State, games: np.ndarray) -> None:
    """Flip the first card and apply it as if the player before the starter had played it."""
    flip_first_card(rules, s, games)
    top = s.top[games].astype(np.int64)
    wild = IS_WILD[top]
    s.color[games] = np.where(wild, 0, KIND_COLOR[top])
    dealer = s.dealer[games]
    virtual = dealer if rules.first_player == "left_of_dealer" else (dealer - 1) % rules.num_players
    resolve_play(rules, s, games, virtual, top)
    s.phase[games[wild]] = CHOOSE_COLOR
    # The official sheet: a Reverse turned up lets the dealer start, counter-clockwise.
    reverse = np.flatnonzero(KIND_SYMBOL[top] == SYM_REVERSE)
    start_turn(s, games[reverse], virtual[reverse])


def score_rounds(rules: Rules, s: State, games: np.ndarray) -> np.ndarray:
    """Points of the round just won in each listed game, ``int[n, P]``."""
    n = games.size
    ar = np.arange(n)
    winner = s.round_winner[games]
    if rules.scoring == "card_count":
        left = s.hand_size[games].astype(np.int32)
    else:
        table = POINTS_TABLES[rules.points].astype(np.int32)
        left = (s.hands[games].astype(np.int32) * table).sum(-1)
    points = np.zeros((n, rules.num_players), np.int32)
    if rules.scoring == "zero_sum":
        points -= left
    if rules.scoring != "none":
        points[ar, winner] = left.sum(1)
    return points


def end_rounds(rules: Rules, s: State, games: np.ndarray, rewards: np.ndarray) -> None:
    """Score the rounds that ended, then end each episode or deal the next round of a match."""
    points = score_rounds(rules, s, games)
    s.round_points[games] = points
    s.scores[games] += points
    s.rounds_played[games] += 1
    if rules.reward == "points":
        rewards[games] += points
    if rules.match:
        over = s.scores[games].max(1) >= rules.target_score
        if rules.rounds:
            over |= s.rounds_played[games] >= rules.rounds
    else:
        over = np.ones(games.size, bool)
    done = games[over]
    if done.size:
        s.done[done] = True
        s.winner[done] = s.scores[done].argmax(1) if rules.match else s.round_winner[done]
        if rules.reward == "win":
            p = rules.num_players
            rewards[done] = -1.0 / (p - 1)
            rewards[done, s.winner[done]] = 1.0
    more = games[~over]
    if more.size:
        new_round(rules, s, more, np.zeros(more.size, bool))
