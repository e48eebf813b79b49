"""Heuristic scores of every action, read from observations: the numpy reference.

The rule-based agents score each action and play the best legal one. Two scorers
live here, for whole batches of observations: the **linear** score of the tuned
heuristics, ``static + weights @ features`` (:func:`linear_scores`), and the
**greedy** score of the careful casual player (:func:`greedy_scores`). Their
compiled twin, :mod:`uno_env.engine.compiled.scoring`, computes the same numbers
from a game's state (the same functions in the same order, the same float64
operations; the tests compare them bit for bit), and the engine plays score-table
policies by it (:mod:`uno_env.engine.playout`): tournaments of these agents, the
search's playouts and its prior.

Everything is read from the named views of
:data:`uno_env.engine.observe.VIEW_SLICES`, all rows at once; no hidden
information is involved. The action facts below (which actions play a card, the
color an action leaves, which plays attack ...) are what the features read.

Linear features are either *static* (depend on the action only, e.g. "plays a
number card") or *dynamic* (depend on the observation too, e.g. "the next player
is about to go out and this card attacks them").

Calling UNO, catching and declaring Dobon are never worse than anything else and
get fixed top scores rather than weights. One static feature depends on the phase: ``draw_value``
(the cards a play makes the next player draw, which the weights save for
attacks) counts nothing for a draw card stacked in answer to a pending penalty,
which passes the penalty on rather than spending an attack.

Features that look one move ahead or at one opponent, with the idea behind each:

* ``follow_up``: after the play the hand still holds a card that can follow it
  (its color, its symbol in another color, or a wild), so the next turn is not a
  draw; ``attack_follow``: the same for a card that takes the next player's turn
  (heads-up any Skip, Reverse or draw card is a second turn in a row).
* ``last_of_color``: the play gives up the hand's last card of a color (fewer
  colors held, fewer colors the hand can follow).
* ``symbol_twins``: cards of the same symbol in other colors stay in the hand
  (0 to 3, scaled): they are the hand's ways to switch color later.
* ``next_named_color``: the color left on the table is the one the next player
  last named for a wild (it likely holds it).
* ``attacks_leader`` (3+ players): a Skip or draw card on a next player who holds
  the fewest cards of the table; ``reverse_dodge`` (3+ players): a Reverse when
  the next player is closer to going out than the previous one (play turns away
  from it); ``skips_to_threat`` (3+ players): a Skip or draw card that hands the
  turn to the player after the next one while that player holds two cards or
  fewer; ``reverse_to_threat`` (3+ players): a Reverse that hands the turn to a
  previous player holding two cards or fewer; ``threat_lacks_color``: the color
  left is one the next player drew on while that player holds two cards or fewer.
* ``symbol_scarce``: the share of the card's symbol nobody has shown yet is small
  (the next player is less likely to follow it by symbol), like ``color_scarce``
  for colors; ``attack_big_hand``: an attack scaled by the hand's size (up to 8
  cards), so attacks can be spent early or saved for the end.
* ``table_lacks_color`` / ``table_named_color``: the share of the opponents that
  drew on the color left (they likely lack it: it is likelier to come back round)
  / that last named it for a wild (they likely hold it).
"""

from __future__ import annotations

import numpy as np

from ..actions import (
    ACTION_COLOR,
    ACTION_KIND,
    ACTION_TARGET,
    CATCH,
    CHALLENGE,
    DOBON,
    DRAW,
    NUM_ACTIONS,
    PASS,
    TARGET_BASE,
    UNO,
)
from ..cards import (
    DECKS,
    DRAW_VALUE,
    IS_NUMBER,
    IS_WILD,
    KIND_COLOR,
    KIND_ID,
    KIND_NUMBER,
    KIND_SYMBOL,
    NUM_COLORED_KINDS,
    NUM_COLORS,
    POINTS_STANDARD,
    SYM_REVERSE,
    SYM_SKIP,
    SYM_SKIP_ALL,
)
from .observe import OTHERS, VIEW_SLICES
from .state import RESPOND

#: Names of the dynamic features (functions of the action and the observation) that
#: a linear policy weighs, in weight order.
DYNAMIC = ("keeps_color", "color_share", "color_scarce", "attacks", "attacks_threat",
           "action_threat", "wild_near_out", "accept_penalty", "challenge_bluff", "target_size",
           "next_lacks_color", "challenge_after_draw", "follow_up", "attack_follow",
           "last_of_color", "symbol_twins", "next_named_color", "attacks_leader",
           "reverse_dodge", "skips_to_threat", "reverse_to_threat", "threat_lacks_color",
           "symbol_scarce", "attack_big_hand", "table_lacks_color", "table_named_color")

KIND = ACTION_KIND.astype(np.int64)
#: Actions that play a card.
PLAY = KIND >= 0
SAFE_KIND = np.maximum(KIND, 0)
#: Color each action leaves on the table (the card's, the chosen one), -1 for none.
RESULT_COLOR = np.where(PLAY & ~IS_WILD[SAFE_KIND], KIND_COLOR[SAFE_KIND],
                        ACTION_COLOR).astype(np.int64)
HAS_COLOR = RESULT_COLOR >= 0
COLOR_IDX = np.maximum(RESULT_COLOR, 0)
#: Plays that take the next player's turn away (or hit them with a penalty).
ATTACK = PLAY & (np.isin(KIND_SYMBOL[SAFE_KIND], (SYM_SKIP, SYM_SKIP_ALL))
                 | (DRAW_VALUE[SAFE_KIND] > 0))
REVERSE = PLAY & (KIND_SYMBOL[SAFE_KIND] == SYM_REVERSE)
ACTION_OR_WILD = PLAY & ~IS_NUMBER[SAFE_KIND]
WILD_PLAY = PLAY & IS_WILD[SAFE_KIND]
COLORED_PLAY = PLAY & ~WILD_PLAY
#: Symbol of each colored play (0 for other actions; masked by ``COLORED_PLAY``).
SYMBOL = np.where(COLORED_PLAY, KIND_SYMBOL[SAFE_KIND], 0).astype(np.int64)
TARGET = np.arange(NUM_ACTIONS) >= TARGET_BASE
#: Offset (into the hand-size view) of each target action's seat, 0 for other actions.
TARGET_SEAT = np.maximum(ACTION_TARGET.astype(np.int64) - 1, 0)
#: Per deck (in ``DECKS`` order), its colored cards of each color / of each symbol.
COLORS_OF_DECKS = np.stack([d[:NUM_COLORED_KINDS].reshape(NUM_COLORS, -1).sum(axis=1)
                            for d in DECKS.values()]).astype(np.float64)
SYMBOLS_OF_DECKS = np.stack([d[:NUM_COLORED_KINDS].reshape(NUM_COLORS, -1).sum(axis=0)
                             for d in DECKS.values()]).astype(np.float64)
#: ``1 - 0.75 ** n`` for hand sizes ``n`` (the chance that an attacker holding ``n`` cards
#: held the color it replaced), computed by numpy as :func:`dynamic_features` computes it.
CHALLENGE_BLUFF = 1.0 - 0.75 ** np.arange(256, dtype=np.float64)

_V = VIEW_SLICES
_WD4 = KIND_ID["WD4"]
_NUM_PLAYERS = _V["rules"].start          # rules view element 0: num_players / 10
#: Colored kinds per color (explicit shapes, so that an empty batch reshapes too).
_PER_COLOR = NUM_COLORED_KINDS // NUM_COLORS
_DECK_FLAGS = slice(_V["rules"].start + 1, _V["rules"].start + 1 + len(DECKS))

#: Names of the static features (functions of the action alone).
STATIC = ("number", "number_value", "colored_action", "wild", "draw_value", "points",
          "draw", "pass", "challenge")
#: All feature names, in weight-vector order.
FEATURES = STATIC + DYNAMIC

def _static_matrix() -> np.ndarray:
    """``float64[A, len(STATIC)]``: the static features of every action."""
    m = np.zeros((NUM_ACTIONS, len(STATIC)))
    number = PLAY & IS_NUMBER[SAFE_KIND]
    m[:, 0] = number
    m[:, 1] = np.where(number, KIND_NUMBER[SAFE_KIND] / 9.0, 0.0)
    m[:, 2] = PLAY & ~IS_NUMBER[SAFE_KIND] & ~IS_WILD[SAFE_KIND]
    m[:, 3] = WILD_PLAY
    m[:, 4] = np.where(PLAY, DRAW_VALUE[SAFE_KIND] / 4.0, 0.0)
    m[:, 5] = np.where(PLAY, POINTS_STANDARD[SAFE_KIND] / 50.0, 0.0)
    m[DRAW, 6] = m[PASS, 7] = m[CHALLENGE, 8] = 1.0
    return m


STATIC_MATRIX = _static_matrix()
_DRAW_VALUE = STATIC.index("draw_value")
#: Fixed scores of the actions that are always right when legal.
FIXED = np.zeros(NUM_ACTIONS)
FIXED[[UNO, CATCH, DOBON]] = (1e4, 2e4, 3e4)


def num_players(obs: np.ndarray) -> np.ndarray:
    """``int64[B]``: the number of seats at each observer's table (from the rules view)."""
    return np.rint(obs[:, _NUM_PLAYERS] * 10).astype(np.int64)


class TableView:
    """The parts of a batch of observations the features need, named."""

    def __init__(self, obs: np.ndarray) -> None:
        b = obs.shape[0]
        self.rows = np.arange(b)
        hand = obs[:, _V["hand"]].astype(np.float64)
        self.hand = hand
        colored = hand[:, :NUM_COLORED_KINDS].reshape(b, NUM_COLORS, _PER_COLOR)
        self.by_color = colored.sum(axis=2)
        self.by_symbol = colored.sum(axis=1)
        self.wilds = hand[:, NUM_COLORED_KINDS:].sum(axis=1)
        self.own_size = obs[:, _V["own_hand_size"].start].astype(np.float64)
        self.color = obs[:, _V["color"]].argmax(axis=1)
        self.phase = obs[:, _V["phase"]].argmax(axis=1)
        self.pending = obs[:, _V["pending_draw"].start].astype(np.float64)
        self.sizes = obs[:, _V["hand_sizes"]].astype(np.float64)
        present = obs[:, _V["seats_present"]] > 0
        self.present = present
        players = num_players(obs)
        offsets = np.arange(present.shape[1])
        first = np.where(present, offsets, 99).min(axis=1)
        last = np.where(present, offsets, -1).max(axis=1)
        clockwise = obs[:, _V["direction"].start] > 0
        #: index into ``sizes`` of the next / previous player still in the round
        self.next = np.clip(np.where(clockwise, first, last), 0, None)
        self.previous = np.clip(np.where(clockwise, last, first), 0, None)
        # the seat after the next one (the next again heads-up)
        second_cw = np.sort(np.where(present, offsets, 99), axis=1)[:, min(1, offsets.size - 1)]
        second_ccw = -np.sort(-np.where(present, offsets, -1), axis=1)[:, min(1, offsets.size - 1)]
        second = np.where(clockwise, second_cw, second_ccw)
        self.after_next = np.where((second >= 0) & (second < 99), second, self.next)
        self.heads_up = (players == 2) | (present.sum(axis=1) == 1)
        self.min_size = np.where(present, self.sizes, 999.0).min(axis=1)
        # cards of each color nobody has shown: the deck's minus discards and own hand
        deck = obs[:, _DECK_FLAGS].argmax(axis=1)
        shown = obs[:, _V["discards"]][:, :NUM_COLORED_KINDS].reshape(b, NUM_COLORS, _PER_COLOR)
        self.unseen = np.maximum(COLORS_OF_DECKS[deck] - shown.sum(2) - self.by_color, 0.0)
        #: per colored symbol, the deck's copies and those nobody has shown
        self.symbol_copies = SYMBOLS_OF_DECKS[deck]
        self.symbol_unseen = np.maximum(self.symbol_copies - shown.sum(1) - self.by_symbol, 0.0)
        #: per seat offset, the colors it drew on since it last played (it likely lacks them)
        self.drew_on = obs[:, _V["drew_on"]].reshape(b, OTHERS, NUM_COLORS) > 0
        self.wd4_after_draw = obs[:, _V["wd4_after_draw"]] > 0
        #: per seat offset, the color it last named for a wild (it likely holds it)
        self.last_named = obs[:, _V["last_named"]].reshape(b, OTHERS, NUM_COLORS) > 0


def dynamic_features(t: TableView, r: np.ndarray, a: np.ndarray) -> list[np.ndarray]:
    """Each feature of :data:`DYNAMIC`, in order, of the (row, action) pairs that ``r``
    and ``a`` index by broadcasting: ``rows[:, None]`` and ``actions[None, :]`` for a
    whole ``[B, A]`` table, or two equal-length index arrays for chosen pairs (the
    legal ones: a decision rarely has more than a handful of the 100-odd actions)."""
    play, has_color, color_idx = PLAY[a], HAS_COLOR[a], COLOR_IDX[a]
    wild_play, colored_play, symbol = WILD_PLAY[a], COLORED_PLAY[a], SYMBOL[a]
    is_attack, is_reverse = ATTACK[a], REVERSE[a]
    heads_up = t.heads_up[r]
    by_color = t.by_color[r, color_idx]
    after = by_color - np.where(play & ~wild_play, 1.0, 0.0)
    left = np.maximum(t.own_size[r] - play, 1.0)
    share = np.where(has_color, after / left, 0.0)
    keeps = np.where(has_color & play, RESULT_COLOR[a] == t.color[r], False)
    total_unseen = np.maximum(t.unseen.sum(axis=1), 1.0)[r]
    scarce = np.where(has_color, 1.0 - NUM_COLORS * t.unseen[r, color_idx] / total_unseen, 0.0)
    next_size = t.sizes[t.rows, t.next][r]
    threat_next = next_size <= 2
    attack = is_attack | (is_reverse & heads_up)
    attacks_threat = attack & threat_next
    action_threat = ACTION_OR_WILD[a] & (t.min_size[r] <= 2)
    wild_near_out = wild_play & (t.own_size[r] <= 3)
    accept = np.where((a == DRAW) & (t.phase[r] == RESPOND) & (t.pending[r] > 0), 1.0, 0.0)
    previous_size = t.sizes[t.rows, t.previous][r]
    # the chance the attacker held the color it replaced
    bluff = np.where(a == CHALLENGE, 1.0 - 0.75 ** previous_size, 0.0)
    target = np.where(TARGET[a], t.sizes[r, TARGET_SEAT[a]] / 10.0, 0.0)
    next_lacks = np.where(has_color, t.drew_on[t.rows, t.next][r, color_idx], False)
    after_draw = np.where(a == CHALLENGE, t.wd4_after_draw[t.rows, t.previous][r], 0.0)
    # cards of the same symbol in other colors: they can follow this card whatever its color
    twins = np.where(colored_play, t.by_symbol[r, symbol] - t.hand[r, SAFE_KIND[a]], 0.0)
    wilds_after = t.wilds[r] - wild_play
    follow = has_color & (after + twins + wilds_after > 0)
    last_of_color = colored_play & (by_color == 1)
    next_named = np.where(has_color, t.last_named[t.rows, t.next][r, color_idx], False)
    several = ~heads_up
    leader = attack & several & (next_size <= t.min_size[r])
    dodge = is_reverse & several & (next_size < previous_size)
    copies = np.maximum(t.symbol_copies[r, symbol], 1.0)
    symbol_scarce = np.where(colored_play, 1.0 - t.symbol_unseen[r, symbol] / copies, 0.0)
    big_hand = attack * (np.minimum(t.own_size, 8.0) / 8.0)[r]
    opponents = np.maximum(t.present.sum(axis=1), 1)[r]
    table_lacks = np.where(has_color, t.drew_on.sum(axis=1)[r, color_idx] / opponents, 0.0)
    table_named = np.where(has_color, t.last_named.sum(axis=1)[r, color_idx] / opponents, 0.0)
    skipped_to = several & (t.sizes[t.rows, t.after_next][r] <= 2)
    to_threat = several & (previous_size <= 2)
    return [keeps, share, scarce, attack, attacks_threat, action_threat, wild_near_out, accept,
            bluff, target, next_lacks, after_draw, follow, attack & follow, last_of_color,
            np.minimum(twins, 3.0) / 3.0, next_named, leader, dodge, is_attack & skipped_to,
            is_reverse & to_threat, next_lacks & threat_next, symbol_scarce, big_hand,
            table_lacks, table_named]


def static_scores(weights: np.ndarray) -> np.ndarray:
    """``float64[A]`` (or ``[B, A]`` for ``[B, F]`` weights): each action's score from the
    static features and the fixed scores, before the observation's part."""
    return weights[..., :len(STATIC)] @ STATIC_MATRIX.T + FIXED


def linear_scores(obs: np.ndarray, weights: np.ndarray,
                  masks: np.ndarray | None = None) -> np.ndarray:
    """``float64[B, A]``: the weighted feature sum of every action (legal or not), or,
    given ``masks``, of the legal actions only (``-inf`` elsewhere; the same numbers
    where legal, much faster).

    ``weights`` is ``float[len(FEATURES)]`` for the whole batch, or ``float[B,
    len(FEATURES)]`` with one weight vector per row (batched tuning).
    """
    w = np.asarray(weights, np.float64)
    if w.shape[-1] != len(FEATURES):
        raise ValueError(f"weights must have {len(FEATURES)} entries ({', '.join(FEATURES)}), "
                         f"got shape {w.shape}")
    ns = len(STATIC)
    table = TableView(obs)
    static = static_scores(w)
    if masks is None:
        r, a = table.rows[:, None], np.arange(NUM_ACTIONS)[None, :]
        per_row = w[:, None, :] if w.ndim == 2 else w
        scores = np.broadcast_to(static, (obs.shape[0], NUM_ACTIONS)).copy()
    else:
        r, a = np.nonzero(masks)
        per_row = w[r] if w.ndim == 2 else w
        scores = static[r, a] if static.ndim == 2 else static[a]
    for i, feature in enumerate(dynamic_features(table, r, a)):
        scores += per_row[..., ns + i] * feature
    # a draw card played in answer to a pending penalty (stacking) passes the penalty on
    # with its own added: it costs none of the draw cards its weight holds back for attacks
    answering = table.phase[r] == RESPOND
    scores -= per_row[..., _DRAW_VALUE] * STATIC_MATRIX[a, _DRAW_VALUE] * answering
    if masks is None:
        return scores
    full = np.full((obs.shape[0], NUM_ACTIONS), -np.inf)
    full[r, a] = scores
    return full


def _greedy_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The greedy score's per-action base score, color of the action (-1: none) and
    weight of that color's cards in hand."""
    base = np.zeros(NUM_ACTIONS, np.float64)
    color = np.full(NUM_ACTIONS, -1, np.int64)
    weight = np.zeros(NUM_ACTIONS, np.float64)
    kind = ACTION_KIND.astype(np.int64)
    play = kind >= 0
    colored = play & ~IS_WILD[np.maximum(kind, 0)]
    wild = play & ~colored
    # colored cards: 100 + points, nudged towards the color held most
    base[colored] = 100.0 + POINTS_STANDARD[kind[colored]]
    color[colored] = KIND_COLOR[kind[colored]]
    weight[colored] = 0.5
    # wilds: far below any colored card; the chosen color follows the hand
    base[wild] = 10.0 + (kind[wild] == _WD4)
    color[wild] = ACTION_COLOR[wild]
    weight[wild] = 2.0
    chooser = (ACTION_COLOR >= 0) & ~play
    base[chooser] = 10.0
    color[chooser] = ACTION_COLOR[chooser]
    weight[chooser] = 2.0
    base[DRAW] = 1.0
    base[PASS] = 0.0
    base[CHALLENGE] = 0.0       # raised per row when a challenge looks good
    base[UNO] = 500.0
    base[CATCH] = 1000.0
    base[DOBON] = 2000.0
    base[TARGET_BASE:] = 50.0   # minus the target's hand size, per row
    return base, color, weight


#: The greedy score of each action on its own, and the weight of its color's cards in hand.
GREEDY_STATIC, _GREEDY_COLOR, GREEDY_COLOR_WEIGHT = _greedy_tables()
#: ``[colors, A]``: the weight each color's count in hand adds to each action's score.
_COLOR_WEIGHT = np.where(_GREEDY_COLOR[None, :] == np.arange(NUM_COLORS)[:, None],
                         GREEDY_COLOR_WEIGHT, 0.0)
#: ``[colored kinds, colors]``: which color each colored kind is (a matrix product with
#: the hand counts the cards of each color far faster than a reshaped sum).
_COLOR_OF_KIND = (KIND_COLOR[:NUM_COLORED_KINDS, None] == np.arange(NUM_COLORS)).astype(np.float32)


def greedy_scores(obs: np.ndarray, threshold: float) -> np.ndarray:
    """``float64[B, A]``: the greedy score of every action (legal or not): a colored card
    100 plus its points, nudged towards the color held most; wilds and color choices far
    below, following the hand's colors; UNO, catch and Dobon on top; a challenge 5 when
    the offender still holds ``threshold`` cards or more (else 0); a target action less
    the target's hand size."""
    b = obs.shape[0]
    by_color = obs[:, _V["hand"].start:_V["hand"].start + NUM_COLORED_KINDS] @ _COLOR_OF_KIND
    scores = by_color.astype(np.float64) @ _COLOR_WEIGHT
    scores += GREEDY_STATIC
    # challenge a Wild Draw Four played by someone still holding many cards
    sizes = obs[:, _V["hand_sizes"]]
    players = obs[:, _V["seats_present"]].sum(axis=1).astype(np.int64) + 1
    clockwise = obs[:, _V["direction"].start] > 0
    offender = np.where(clockwise, players - 1, 1)          # seat offset of the attacker
    offender_size = sizes[np.arange(b), offender - 1]
    scores[:, CHALLENGE] = np.where(offender_size >= threshold, 5.0, 0.0)
    # target the opponent with the fewest cards (absent seats are never legal)
    scores[:, TARGET_BASE:] -= sizes
    return scores


__all__ = ["DYNAMIC", "FEATURES", "GREEDY_STATIC", "GREEDY_COLOR_WEIGHT", "STATIC",
           "TableView", "dynamic_features", "greedy_scores", "linear_scores", "num_players",
           "static_scores"]
