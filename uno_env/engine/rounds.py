"""Rounds: the deal and the first card, scoring, and what follows the end of a round."""

from __future__ import annotations

import numpy as np

from ..cards import (
    IS_WILD,
    KIND_COLOR,
    KIND_SYMBOL,
    POINTS_TABLES,
    SYM_REVERSE,
)
from .codes import DrawReturnWinner, FirstPlayer, Reward, RuleCodes, Scoring, option_value
from .deal import choose_dealer, deal, flip_first_card
from .effects import advance, clear_tally, reset_chain, seat_after, start_turn, tally
from .state import CHOOSE_COLOR, State, where


def new_round(rules: RuleCodes, s: State, games: np.ndarray, first_round: np.ndarray) -> None:
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
    s.uno_called[games] = False
    s.attacker[games] = -1
    s.wd4_guilty[games] = False
    s.prev_top[games] = 0
    s.prev_color[games] = 0
    s.wd4_count[games] = 0
    s.hidden[games] = False
    s.turns[games] = 0
    s.round_winner[games] = -1
    s.active[games] = True
    s.place[games] = -1
    s.num_out[games] = 0
    s.num_eliminated[games] = 0
    clear_tally(s, games)
    s.targeted[games] = False
    s.chain_first[games] = -1
    s.chain_last[games] = -1
    s.react_from[games] = -1
    s.top_player[games] = -1
    s.fed[games] = -1
    s.dobon_loser[games] = -1
    s.roulette[games] = False
    s.drawn[games] = -1
    s.drew_on[games] = False
    s.last_played[games] = -1
    s.last_named[games] = -1
    s.wd4_after_draw[games] = False
    s.shown[games] = 0


def open_round(rules: RuleCodes, s: State, games: np.ndarray) -> None:
    """Flip the first card and apply it as if the player before the starter had played it.

    A wild turned up (other than a Wild Draw Four, which is returned) lets the
    starter choose the color; a Reverse lets the dealer start counter-clockwise.
    """
    flip_first_card(rules, s, games)
    top = s.top[games].astype(np.int64)
    wild = IS_WILD[top]
    s.color[games] = np.where(wild, 0, KIND_COLOR[top])
    dealer = s.dealer[games]
    left = rules.first_player == FirstPlayer.LEFT_OF_DEALER
    virtual = dealer if left else (dealer - 1) % rules.num_players
    acts = where(~wild)   # a wild turned up has no effect but the color choice
    tally(rules, s, games[acts], top[acts], np.ones(acts.size, bool))
    advance(rules, s, games, virtual, first_card=True)
    w = where(wild)
    if w.size:
        start_turn(s, games[w], seat_after(rules, s, games[w], virtual[w]))
        s.phase[games[w]] = CHOOSE_COLOR
    reverse = where(KIND_SYMBOL[top] == SYM_REVERSE)
    start_turn(s, games[reverse], virtual[reverse])


def score_round(rules: RuleCodes, s: State, games: np.ndarray) -> np.ndarray:
    """Points of the round just ended in each listed game, ``int[n, P]``."""
    n, p = games.size, rules.num_players
    ar = np.arange(n)
    winner = s.round_winner[games]
    points = np.zeros((n, p), np.int32)
    if rules.scoring == Scoring.NONE:
        return points
    if rules.scoring == Scoring.RANK:   # seats sharing places share their points (rounded down)
        place, ties = s.place[games], shared_places(s.place[games])
        return ((2 * (p - 1 - place) - (ties - 1)) // 2).astype(np.int32)
    if rules.scoring == Scoring.CARD_COUNT:
        left = s.hand_size[games].astype(np.int32)
    else:
        table = POINTS_TABLES[option_value("points", rules.points)].astype(np.int32)
        left = (s.hands[games].astype(np.int32) * table).sum(-1)
    left[ar, winner] = 0
    if rules.teams:
        left[ar, (winner + 2) % p] = 0
    loser = s.dobon_loser[games]
    doubled = where(loser >= 0)
    left[doubled, loser[doubled]] *= 2
    points[ar, winner] = winner_points(rules, left.sum(1))
    if rules.scoring == Scoring.ZERO_SUM:
        points -= left
    if rules.feed_penalty:
        fed = s.fed[games]
        pay = where((fed >= 0) & (fed != winner) & (s.dobon_loser[games] < 0))
        points[pay, fed[pay]] -= rules.feed_penalty
        points[pay, winner[pay]] += rules.feed_penalty
    return points


def winner_points(rules: RuleCodes, losers: np.ndarray) -> np.ndarray:
    """What the winner scores when the others hold ``losers`` points: all of them, except
    under ``scoring="zero_sum"`` with another ``draw_return_winner`` (0, or minus
    ``draw_return_winner_points``)."""
    if rules.scoring != Scoring.ZERO_SUM or rules.draw_return_winner == DrawReturnWinner.ZERO_SUM:
        return losers
    if rules.draw_return_winner == DrawReturnWinner.ZERO:
        return np.zeros_like(losers)
    return np.full_like(losers, -rules.draw_return_winner_points)


def shared_places(place: np.ndarray) -> np.ndarray:
    """``int[n, P]``: how many seats hold each seat's place (more than one after a round
    cut by ``max_turns``, where the players still in share the remaining places)."""
    return (place[:, :, None] == place[:, None, :]).sum(axis=2)


def episode_rewards(rules: RuleCodes, s: State, games: np.ndarray) -> np.ndarray:
    """``float32[n, P]`` rewards when episodes end (``reward`` option "win" or "rank")."""
    p = rules.num_players
    winner = s.winner[games]
    if rules.reward == Reward.RANK:   # seats sharing places share their rewards
        place = s.place[games] + (shared_places(s.place[games]) - 1) / 2.0
        return (1.0 - 2.0 * place / (p - 1)).astype(np.float32)
    if rules.teams:
        team = (np.arange(p)[None, :] % 2) == (winner[:, None] % 2)
        return np.where(team, 1.0, -1.0).astype(np.float32)
    out = np.full((games.size, p), -1.0 / (p - 1), np.float32)
    out[np.arange(games.size), winner] = 1.0
    return out


def end_round(rules: RuleCodes, s: State, games: np.ndarray, rewards: np.ndarray) -> None:
    """Score the rounds that ended, then end each episode or deal the next round of a match.

    A draw still pending (a round ended by Dobon or by the last elimination) is void.
    """
    reset_chain(s, games)
    clear_tally(s, games)
    points = score_round(rules, s, games)
    s.round_points[games] = points
    s.scores[games] += points
    s.rounds_played[games] += 1
    if rules.reward == Reward.POINTS:
        rewards[games] += points
    if rules.match:   # target_score 0: no points target, the rounds limit ends the match
        over = (s.scores[games].max(1) >= rules.target_score) & (rules.target_score > 0)
        if rules.rounds:
            over |= s.rounds_played[games] >= rules.rounds
    else:
        over = np.ones(games.size, bool)
    done = games[over]
    if done.size:
        s.done[done] = True
        s.winner[done] = s.scores[done].argmax(1) if rules.match else s.round_winner[done]
        if rules.reward != Reward.POINTS:
            rewards[done] += episode_rewards(rules, s, done)
    more = games[~over]
    if more.size:
        new_round(rules, s, more, np.zeros(more.size, bool))
