"""Rounds of one game: deal and first card, scoring, the end of a round or episode
(twin of ``engine/rounds.py``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...cards import IS_WILD, KIND_COLOR, KIND_SYMBOL, SYM_REVERSE
from ..codes import DrawReturnWinner, FirstPlayer, Reward, Scoring
from ..state import CHOOSE_COLOR
from .deal import choose_dealer, deal, flip_first_card
from .effects import advance, clear_tally, reset_chain, seat_after, start_turn, tally


@njit(cache=True)
def new_round(rules, s, g, first_round):
    """Choose the dealer, deal, and open the round."""
    choose_dealer(rules, s, g, first_round)
    deal(rules, s, g)
    clear_round(s, g)
    open_round(rules, s, g)


@njit(cache=True)
def clear_round(s, g):
    """Reset the per-round fields (not the cards)."""
    s.direction[g] = 1
    s.pending[g] = 0
    s.uno_offender[g] = -1
    s.uno_called[g] = False
    s.attacker[g] = -1
    s.wd4_guilty[g] = False
    s.prev_top[g] = 0
    s.prev_color[g] = 0
    s.wd4_count[g] = 0
    s.hidden[g, :] = False
    s.turns[g] = 0
    s.round_winner[g] = -1
    s.active[g, :] = True
    s.place[g, :] = -1
    s.num_out[g] = 0
    s.num_eliminated[g] = 0
    clear_tally(s, g)
    s.targeted[g] = False
    s.chain_first[g] = -1
    s.chain_last[g] = -1
    s.react_from[g] = -1
    s.top_player[g] = -1
    s.fed[g] = -1
    s.dobon_loser[g] = -1
    s.roulette[g] = False
    s.drawn[g] = -1
    s.drew_on[g, :, :] = False
    s.last_played[g, :] = -1
    s.last_named[g, :] = -1
    s.wd4_after_draw[g, :] = False
    s.shown[g, :, :] = 0


@njit(cache=True)
def open_round(rules, s, g):
    """Flip the first card and apply it as if the player before the starter had played it."""
    flip_first_card(rules, s, g)
    top = np.int64(s.top[g])
    wild = IS_WILD[top]
    s.color[g] = 0 if wild else KIND_COLOR[top]
    dealer = s.dealer[g]
    left = rules.first_player == FirstPlayer.LEFT_OF_DEALER
    virtual = dealer if left else (dealer - 1) % rules.num_players
    if not wild:
        tally(rules, s, g, top, True)
    advance(rules, s, g, virtual, True)
    if wild:
        start_turn(s, g, seat_after(rules, s, g, virtual, 1))
        s.phase[g] = CHOOSE_COLOR
    if KIND_SYMBOL[top] == SYM_REVERSE:
        start_turn(s, g, virtual)


@njit(cache=True)
def score_round(rules, s, g, points):
    """Write the points of the round just ended into ``points[P]``."""
    p = rules.num_players
    points[:] = 0
    if rules.scoring == Scoring.NONE:
        return
    if rules.scoring == Scoring.RANK:   # seats sharing places share their points (rounded down)
        ties = shared_places(s.place[g])
        for seat in range(p):
            points[seat] = (2 * (p - 1 - s.place[g, seat]) - (ties[seat] - 1)) // 2
        return
    winner = s.round_winner[g]
    left = np.zeros(p, np.int64)
    values = rules.point_values
    for seat in range(p):
        if rules.scoring == Scoring.CARD_COUNT:
            left[seat] = s.hand_size[g, seat]
        else:
            hand = s.hands[g, seat]
            for k in range(values.size):
                left[seat] += hand[k] * values[k]
    left[winner] = 0
    if rules.teams:
        left[(winner + 2) % p] = 0
    loser = s.dobon_loser[g]
    if loser >= 0:
        left[loser] *= 2
    if rules.scoring == Scoring.ZERO_SUM:
        for seat in range(p):
            points[seat] = -left[seat]
    points[winner] = winner_points(rules, left.sum())
    fed = s.fed[g]
    if rules.feed_penalty and fed >= 0 and fed != winner and loser < 0:
        points[fed] -= rules.feed_penalty
        points[winner] += rules.feed_penalty


@njit(cache=True)
def winner_points(rules, losers):
    """What the winner scores when the others hold ``losers`` points (see
    ``rounds.winner_points``)."""
    if rules.scoring != Scoring.ZERO_SUM or rules.draw_return_winner == DrawReturnWinner.ZERO_SUM:
        return losers
    if rules.draw_return_winner == DrawReturnWinner.ZERO:
        return 0
    return -rules.draw_return_winner_points


@njit(cache=True)
def shared_places(place):
    """``int[P]``: how many seats hold each seat's place (see ``rounds.shared_places``)."""
    ties = np.zeros(place.size, np.int64)
    for seat in range(place.size):
        for other in range(place.size):
            ties[seat] += place[other] == place[seat]
    return ties


@njit(cache=True)
def episode_rewards(rules, s, g, rewards):
    """Add the episode's rewards (``reward`` option "win" or "rank") to ``rewards[P]``."""
    p = rules.num_players
    winner = s.winner[g]
    ties = shared_places(s.place[g])
    for seat in range(p):
        if rules.reward == Reward.RANK:   # seats sharing places share their rewards
            place = s.place[g, seat] + (ties[seat] - 1) / 2.0
            value = 1.0 - 2.0 * place / (p - 1)
        elif rules.teams:
            value = 1.0 if seat % 2 == winner % 2 else -1.0
        else:
            value = 1.0 if seat == winner else -1.0 / (p - 1)
        rewards[seat] += np.float32(value)


@njit(cache=True)
def end_round(rules, s, g, rewards):
    """Score the round that ended, then end the episode or deal the next round of a match
    (a draw still pending is void)."""
    reset_chain(s, g)
    clear_tally(s, g)
    p = rules.num_players
    points = np.zeros(p, np.int64)
    score_round(rules, s, g, points)
    for seat in range(p):
        s.round_points[g, seat] = points[seat]
        s.scores[g, seat] += points[seat]
    s.rounds_played[g] += 1
    if rules.reward == Reward.POINTS:
        for seat in range(p):
            rewards[seat] += points[seat]
    over = True
    if rules.match:   # target_score 0: no points target, the rounds limit ends the match
        over = rules.target_score > 0 and s.scores[g].max() >= rules.target_score
        if rules.rounds:
            over = over or s.rounds_played[g] >= rules.rounds
    if over:
        s.done[g] = True
        s.winner[g] = np.argmax(s.scores[g]) if rules.match else s.round_winner[g]
        if rules.reward != Reward.POINTS:
            episode_rewards(rules, s, g, rewards)
    else:
        new_round(rules, s, g, False)
