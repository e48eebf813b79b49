"""Named codes shared by the numpy engine and its compiled twin.

Inside the engine, the value of every choice option (``Rules.first_card``,
``Rules.scoring``, ...) is a small integer: its position in
:data:`uno_env.rules.CHOICES`. Both backends spell those values with the
``IntEnum`` classes below (``rules.scoring == Scoring.ZERO_SUM``), so a numpy
module and its compiled twin read the same: the numpy functions take the
:class:`RuleCodes` of the rules, the compiled ones the rules struct of
``compiled/layout.py``, both holding these codes. :class:`Decision` names the
kinds of decision an action id makes, which both backends dispatch on.
"""

from __future__ import annotations

import functools
from dataclasses import fields
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from ..actions import (
    CATCH,
    CHALLENGE,
    COLOR_BASE,
    DOBON,
    DRAW,
    NUM_ACTIONS,
    NUM_COLORS,
    PASS,
    TARGET_BASE,
    UNO,
)
from ..rules import CHOICES, Rules


class OptionCode(IntEnum):
    """The codes of one choice option; comparing one with a string is an error.

    ``rules.scoring == "zero_sum"`` on codes would quietly be False: it raises
    instead, naming the member to compare with.
    """

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            raise TypeError(f"compare {type(self).__name__} codes with "
                            f"{type(self).__name__}.{other.upper()}, not the string {other!r}")
        return int(self) == other

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = IntEnum.__hash__


class Deck(OptionCode):
    CLASSIC108 = 0
    CLASSIC112_SWAP = 1
    CLASSIC112_SHUFFLE = 2
    MINIMALISTA = 3
    NO_MERCY168 = 4


class FirstCard(OptionCode):
    OFFICIAL = 0
    BURY_NON_NUMBER = 1
    REDRAW_NON_NUMBER = 2


class FirstPlayer(OptionCode):
    LEFT_OF_DEALER = 0
    DEALER = 1


class Dealer(OptionCode):
    RANDOM = 0
    PREVIOUS_WINNER = 1
    ROTATE = 2


class DrawRule(OptionCode):
    ONE_MAY_PLAY = 0
    ONE_THEN_PASS = 1
    UNTIL_PLAYABLE_MAY_PLAY = 2
    UNTIL_PLAYABLE_MUST_PLAY = 3


class Wd4Restriction(OptionCode):
    COLOR = 0
    PLAYABLE = 1
    NONE = 2


class ChallengeGuilty(OptionCode):
    OFFENDER_DRAWS = 0
    RETRACT = 1


class StackDraw2OnDraw4(OptionCode):
    NEVER = 0
    MATCHING_COLOR = 1
    ANY = 2


class StackSkip(OptionCode):
    NONE = 0
    SKIP_NEXT = 1
    PASS_ON = 2


class MultiPlay(OptionCode):
    NONE = 0
    SAME_NUMBER = 1
    IDENTICAL = 2
    SAME_KIND = 3


class MultiSkip(OptionCode):
    CONSECUTIVE = 0
    EACH = 1


class RouletteColor(OptionCode):
    PLAYER = 0
    VICTIM = 1


class FinishOnAction(OptionCode):
    ALLOWED = 0
    FORBIDDEN_DRAW1 = 1
    FORBIDDEN_DRAW2 = 2


class End(OptionCode):
    FIRST_OUT = 0
    LAST_STANDING = 1


class Scoring(OptionCode):
    WINNER_TAKES_SUM = 0
    ZERO_SUM = 1
    CARD_COUNT = 2
    RANK = 3
    NONE = 4


class Points(OptionCode):
    STANDARD = 0
    HOUSE = 1


class DrawReturnWinner(OptionCode):
    ZERO_SUM = 0
    ZERO = 1
    FIXED = 2


class Reward(OptionCode):
    WIN = 0
    POINTS = 1
    RANK = 2


#: The codes of every choice option (a test checks them against ``CHOICES``).
OPTION_CODES: dict[str, type[OptionCode]] = {
    "deck": Deck, "first_card": FirstCard, "first_player": FirstPlayer, "dealer": Dealer,
    "draw_rule": DrawRule, "wd4_restriction": Wd4Restriction,
    "challenge_guilty": ChallengeGuilty, "stack_draw2_on_draw4": StackDraw2OnDraw4,
    "stack_skip": StackSkip, "multi_play": MultiPlay, "multi_skip": MultiSkip,
    "roulette_color": RouletteColor, "finish_on_action": FinishOnAction, "end": End,
    "scoring": Scoring, "points": Points, "draw_return_winner": DrawReturnWinner,
    "reward": Reward,
}


def option_code(option: str, value: str) -> OptionCode:
    """The code of a choice option's value (``option_code("scoring", "rank") is Scoring.RANK``)."""
    return OPTION_CODES[option][value.upper()]


def option_value(option: str, code: int) -> str:
    """The value of a choice option with the given code (``"rank"`` for ``Scoring.RANK``)."""
    return CHOICES[option][code]


class RuleCodes(NamedTuple):
    """Every option of :class:`~uno_env.rules.Rules`, choice options as their codes.

    The fields are those of ``Rules`` in the same order (a test checks them).
    """

    num_players: int
    deck: Deck
    first_card: FirstCard
    first_player: FirstPlayer
    dealer: Dealer
    draw_rule: DrawRule
    draw_when_playable: bool
    play_any_after_draw: bool
    draw_keep_going: bool
    wd4_restriction: Wd4Restriction
    wd4_bluff: bool
    challenge: bool
    challenge_guilty: ChallengeGuilty
    challenge_penalty: int
    stack_draw2_on_draw2: bool
    stack_draw4_on_draw2: bool
    stack_draw4_on_draw4: bool
    stack_draw2_on_draw4: StackDraw2OnDraw4
    stack_no_mixing: bool
    stack_reverse: bool
    stack_skip: StackSkip
    stack_wild_cancels: bool
    stack_by_value: bool
    challenge_on_stack: bool
    multi_play: MultiPlay
    multi_effects_add: bool
    multi_skip: MultiSkip
    uno_to_finish: bool
    finish_on_action: FinishOnAction
    uno_penalty: int
    single_card_finish: bool
    declare_on_finish: int
    seven_zero: bool
    zero_open: bool
    jump_in: bool
    skip_answers_skip: bool
    dobon: bool
    mercy_limit: int
    roulette_color: RouletteColor
    end: End
    scoring: Scoring
    points: Points
    draw_return_winner: DrawReturnWinner
    draw_return_winner_points: int
    feed_penalty: int
    match: bool
    target_score: int
    rounds: int
    max_turns: int
    teams: bool
    auto_forced: bool
    reward: Reward


@functools.lru_cache(maxsize=256)
def rule_codes(rules: Rules) -> RuleCodes:
    """The options of ``rules`` as the numpy engine reads them (one object per rule set)."""
    return RuleCodes._make(option_code(f.name, getattr(rules, f.name)) if f.name in OPTION_CODES
                           else getattr(rules, f.name) for f in fields(Rules))


class Decision(IntEnum):
    """What an action does in the engine: each backend has one function per decision."""

    PLAY = 0            # play (lay) a card: ``play``
    DRAW = 1            # draw on a turn: ``draw_voluntary``
    ACCEPT = 2          # "draw" facing a penalty: ``take_penalty``
    PASS = 3            # ``pass_turn``
    CHALLENGE = 4       # ``challenge``
    CATCH = 5           # ``catch``
    DOBON = 6           # ``dobon``
    CHOOSE_COLOR = 7    # ``choose_color``
    CHOOSE_TARGET = 8   # ``choose_target``
    CALL_UNO = 9        # ``call_uno``


def _decision_of_action() -> np.ndarray:
    decision = np.full(NUM_ACTIONS, Decision.PLAY, np.int64)
    decision[DRAW], decision[PASS] = Decision.DRAW, Decision.PASS
    decision[CHALLENGE], decision[CATCH] = Decision.CHALLENGE, Decision.CATCH
    decision[DOBON], decision[UNO] = Decision.DOBON, Decision.CALL_UNO
    decision[COLOR_BASE:COLOR_BASE + NUM_COLORS] = Decision.CHOOSE_COLOR
    decision[TARGET_BASE:] = Decision.CHOOSE_TARGET
    return decision


#: The decision each action id makes (``draw`` counts as ``DRAW``; facing a penalty it
#: is ``ACCEPT``, which the step decides from the phase).
DECISION_OF_ACTION = _decision_of_action()

#: The decisions that play a card or take one from the pile (indexed by decision): they
#: close the window in which a missing UNO call may be caught.
CLOSES_CATCH = np.isin(np.arange(len(Decision)), (Decision.PLAY, Decision.DRAW,
                                                  Decision.ACCEPT, Decision.CHALLENGE))
