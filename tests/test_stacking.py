"""Draw stacking (docs/rules.md 3.5 and section 6, "Draw stacking").

Each test builds a position with ``Engine.from_setup`` under the options it checks
and follows a penalty chain: who may answer with what, where the total goes, who
draws it and who plays next.
"""

from __future__ import annotations

from functools import partial

import pytest
import scenario
from scenario import cur, same, size

#: These scenarios study other rules: the UNO call is automatic (no ``uno``/``catch`` decisions).
make = partial(scenario.make, uno_penalty=0)

#: Every test here runs on each backend.
pytestmark = pytest.mark.usefixtures("each_backend")

WILD_COLORS = "RYGB"


def wild(kind: str) -> set[str]:
    return {f"play {kind}:{c}" for c in WILD_COLORS}


NO_CHALLENGE = dict(challenge=False, wd4_restriction="none")
THREE = [["RD2", "R1", "R2"], ["BD2", "B1", "B2"], ["Y1", "Y2", "Y3"]]
DECK = ["G1", "G2", "G3", "G4", "G6", "G7", "G8", "G9", "Y7", "Y8", "Y9", "B9"]


# --- stack_draw2_on_draw2 -----------------------------------------------------------------------

def test_stack_draw2_on_draw2_answer_offered_and_total_moves_on():
    eng = make(THREE, pile=DECK, stack_draw2_on_draw2=True)
    eng.step_names("play RD2")
    assert eng.phase_name() == "respond"
    assert cur(eng) == 1
    assert eng.pending_draw[0] == 2
    assert set(eng.legal_action_names()) == {"play BD2", "draw"}
    eng.step_names("play BD2")
    # Player 2 holds no answer: draws the whole total at once and loses the turn.
    assert same(eng.hand(0, 2), ["Y1", "Y2", "Y3", "G1", "G2", "G3", "G4"])
    assert eng.top_card() == "BD2"
    assert eng.current_color() == "B"
    assert cur(eng) == 0
    assert eng.phase_name() == "turn"
    assert eng.pending_draw[0] == 0


def test_stack_draw2_on_draw2_declined_answer_draws_the_total():
    eng = make(THREE, pile=DECK, stack_draw2_on_draw2=True)
    eng.step_names("play RD2")
    eng.step_names("draw")
    assert same(eng.hand(0, 1), ["BD2", "B1", "B2", "G1", "G2"])
    assert cur(eng) == 2
    assert eng.phase_name() == "turn"
    assert eng.pending_draw[0] == 0


def test_stack_draw2_on_draw2_off_penalty_drawn_without_a_decision():
    eng = make(THREE, pile=DECK)
    eng.step_names("play RD2")
    assert same(eng.hand(0, 1), ["BD2", "B1", "B2", "G1", "G2"])
    assert cur(eng) == 2
    assert eng.phase_name() == "turn"


# --- stack_draw4_on_draw2 -----------------------------------------------------------------------

def test_stack_draw4_on_draw2_wild_draw_four_answers_a_draw_two():
    hands = [["RD2", "R1", "R2"], ["WD4", "B1", "B2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=DECK, stack_draw4_on_draw2=True, **NO_CHALLENGE)
    eng.step_names("play RD2")
    assert set(eng.legal_action_names()) == wild("WD4") | {"draw"}
    eng.step_names("play WD4:G")
    assert size(eng, 2) == 3 + 6
    assert eng.current_color() == "G"
    assert cur(eng) == 0


def test_stack_draw4_on_draw2_off_wild_draw_four_cannot_answer():
    hands = [["RD2", "R1", "R2"], ["WD4", "BD2", "B2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=DECK, stack_draw2_on_draw2=True, **NO_CHALLENGE)
    eng.step_names("play RD2")
    assert set(eng.legal_action_names()) == {"play BD2", "draw"}


# --- stack_draw4_on_draw4 -----------------------------------------------------------------------

def test_stack_draw4_on_draw4_totals_eight():
    hands = [["WD4", "R1", "R2"], ["WD4", "B1", "B2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=DECK, stack_draw4_on_draw4=True, **NO_CHALLENGE)
    eng.step_names("play WD4:B")
    assert eng.pending_draw[0] == 4
    assert set(eng.legal_action_names()) == wild("WD4") | {"draw"}
    eng.step_names("play WD4:Y")
    assert same(eng.hand(0, 2), ["Y1", "Y2", "Y3"] + DECK[:8])
    assert eng.current_color() == "Y"
    assert cur(eng) == 0
    assert eng.pending_draw[0] == 0


def test_stack_draw4_on_draw4_off_no_answer_to_a_wild_draw_four():
    hands = [["WD4", "R1", "R2"], ["WD4", "BD2", "B2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=DECK, stack_draw2_on_draw2=True, **NO_CHALLENGE)
    eng.step_names("play WD4:B")
    assert size(eng, 1) == 3 + 4
    assert cur(eng) == 2


# --- stack_draw2_on_draw4 -----------------------------------------------------------------------

D2_ON_D4 = [["WD4", "R1", "R2"], ["GD2", "BD2", "B2"], ["Y1", "Y2", "Y3"]]


def test_stack_draw2_on_draw4_never_draw_two_cannot_answer():
    eng = make(D2_ON_D4, pile=DECK, stack_draw2_on_draw4="never", stack_draw2_on_draw2=True,
               **NO_CHALLENGE)
    eng.step_names("play WD4:G")
    # No answer: the four cards are drawn without a decision.
    assert size(eng, 1) == 3 + 4
    assert cur(eng) == 2
    assert eng.phase_name() == "turn"


def test_stack_draw2_on_draw4_matching_color_only_the_chosen_color_answers():
    eng = make(D2_ON_D4, pile=DECK, stack_draw2_on_draw4="matching_color", **NO_CHALLENGE)
    eng.step_names("play WD4:G")
    assert set(eng.legal_action_names()) == {"play GD2", "draw"}
    eng.step_names("play GD2")
    assert size(eng, 2) == 3 + 6
    assert cur(eng) == 0
    assert eng.top_card() == "GD2"


def test_stack_draw2_on_draw4_matching_color_other_color_chosen_no_answer():
    eng = make(D2_ON_D4, pile=DECK, stack_draw2_on_draw4="matching_color", **NO_CHALLENGE)
    eng.step_names("play WD4:Y")
    assert size(eng, 1) == 3 + 4
    assert cur(eng) == 2


def test_stack_draw2_on_draw4_any_every_draw_two_answers():
    eng = make(D2_ON_D4, pile=DECK, stack_draw2_on_draw4="any", **NO_CHALLENGE)
    eng.step_names("play WD4:Y")
    assert set(eng.legal_action_names()) == {"play GD2", "play BD2", "draw"}
    eng.step_names("play BD2")
    assert size(eng, 2) == 3 + 6
    assert eng.current_color() == "B"
    assert cur(eng) == 0


# --- stack_no_mixing ----------------------------------------------------------------------------

MIXED = dict(stack_draw2_on_draw2=True, stack_draw4_on_draw4=True, stack_draw4_on_draw2=True,
             stack_draw2_on_draw4="any", **NO_CHALLENGE)


def test_stack_no_mixing_draw_two_chain_accepts_only_draw_twos():
    hands = [["RD2", "R1", "R2"], ["WD4", "BD2", "B2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=DECK, stack_no_mixing=True, **MIXED)
    eng.step_names("play RD2")
    assert set(eng.legal_action_names()) == {"play BD2", "draw"}


def test_stack_no_mixing_wild_draw_four_chain_accepts_only_wild_draw_fours():
    hands = [["WD4", "R1", "R2"], ["WD4", "BD2", "B2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=DECK, stack_no_mixing=True, **MIXED)
    eng.step_names("play WD4:B")
    assert set(eng.legal_action_names()) == wild("WD4") | {"draw"}


def test_stack_mixing_allowed_without_no_mixing():
    hands = [["RD2", "R1", "R2"], ["WD4", "BD2", "B2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=DECK, **MIXED)
    eng.step_names("play RD2")
    assert set(eng.legal_action_names()) == wild("WD4") | {"play BD2", "draw"}


# --- stack_reverse ------------------------------------------------------------------------------

FOUR = [["RD2", "R1", "R2"], ["RR", "BR", "B2"], ["Y1", "Y2", "Y3"], ["G1", "G2", "G3"]]


def test_stack_reverse_total_unchanged_goes_back_to_the_attacker():
    eng = make(FOUR, pile=DECK, stack_reverse=True)
    eng.step_names("play RD2")
    assert set(eng.legal_action_names()) == {"play RR", "draw"}
    eng.step_names("play RR")
    assert int(eng.state.direction[0]) == -1
    # Player 0 has no answer: draws the unchanged total, then play goes on counter-clockwise.
    assert same(eng.hand(0, 0), ["R1", "R2", "G1", "G2"])
    assert same(eng.hand(0, 1), ["BR", "B2"])
    assert cur(eng) == 3
    assert eng.phase_name() == "turn"
    assert eng.pending_draw[0] == 0


def test_stack_reverse_on_a_reverse_of_another_color():
    hands = [["RD2", "YR", "R2"], ["RR", "B1", "B2"], ["Y1", "Y2", "Y3"], ["G1", "G2", "G3"]]
    eng = make(hands, pile=DECK, stack_reverse=True)
    eng.step_names("play RD2")
    eng.step_names("play RR")
    # Player 0 faces the total again and may send it back with a Reverse on the Reverse.
    assert cur(eng) == 0
    assert eng.phase_name() == "respond"
    assert eng.pending_draw[0] == 2
    assert set(eng.legal_action_names()) == {"play YR", "draw"}
    eng.step_names("play YR")
    assert int(eng.state.direction[0]) == 1
    assert same(eng.hand(0, 1), ["B1", "B2", "G1", "G2"])
    assert cur(eng) == 2
    assert eng.current_color() == "Y"


def test_stack_reverse_of_another_color_is_not_an_answer():
    hands = [["RD2", "R1", "R2"], ["BR", "B1", "B2"], ["Y1", "Y2", "Y3"], ["G1", "G2", "G3"]]
    eng = make(hands, pile=DECK, stack_reverse=True)
    eng.step_names("play RD2")
    assert size(eng, 1) == 3 + 2
    assert cur(eng) == 2


# --- stack_skip ---------------------------------------------------------------------------------

SKIPS = [["RD2", "R1", "R2"], ["RS", "B1", "B2"], ["Y1", "Y2", "Y3"], ["G1", "G2", "G3"]]


def test_stack_skip_none_skip_is_not_an_answer():
    eng = make(SKIPS, pile=DECK)
    eng.step_names("play RD2")
    assert size(eng, 1) == 3 + 2
    assert cur(eng) == 2


def test_stack_skip_skip_next_total_jumps_over_the_next_player():
    eng = make(SKIPS, pile=DECK, stack_skip="skip_next")
    eng.step_names("play RD2")
    assert set(eng.legal_action_names()) == {"play RS", "draw"}
    eng.step_names("play RS")
    assert size(eng, 2) == 3
    assert same(eng.hand(0, 3), ["G1", "G2", "G3", "G1", "G2"])
    assert cur(eng) == 0
    assert eng.phase_name() == "turn"
    assert eng.pending_draw[0] == 0


def test_stack_skip_pass_on_moves_total_to_next_player():
    eng = make(SKIPS, pile=DECK, stack_skip="pass_on")
    eng.step_names("play RD2")
    assert set(eng.legal_action_names()) == {"play RS", "draw"}
    eng.step_names("play RS")
    assert same(eng.hand(0, 2), ["Y1", "Y2", "Y3", "G1", "G2"])
    assert size(eng, 3) == 3
    assert cur(eng) == 3
    assert eng.phase_name() == "turn"


def test_stack_skip_on_a_skip_of_another_color_after_a_skip_answer():
    hands = [["RD2", "R1", "R2"], ["RS", "B1", "B2"], ["BS", "Y2", "Y3"], ["G1", "G2", "G3"]]
    eng = make(hands, pile=DECK, stack_skip="pass_on")
    eng.step_names("play RD2")
    eng.step_names("play RS")
    assert cur(eng) == 2
    assert eng.pending_draw[0] == 2
    assert set(eng.legal_action_names()) == {"play BS", "draw"}
    eng.step_names("play BS")
    assert size(eng, 3) == 5
    assert cur(eng) == 0


# --- stack_wild_cancels -------------------------------------------------------------------------

def test_stack_wild_cancels_plain_wild_ends_the_chain():
    hands = [["RD2", "R1", "R2"], ["W", "B1", "B2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=DECK, stack_wild_cancels=True)
    eng.step_names("play RD2")
    assert set(eng.legal_action_names()) == wild("W") | {"draw"}
    eng.step_names("play W:B")
    assert eng.pending_draw[0] == 0
    assert eng.current_color() == "B"
    assert eng.top_card() == "W"
    assert cur(eng) == 2
    assert eng.phase_name() == "turn"
    assert same(eng.hand(0, 2), ["Y1", "Y2", "Y3"])
    assert same(eng.hand(0, 0), ["R1", "R2"])


def test_stack_wild_cancels_off_wild_is_not_an_answer():
    hands = [["RD2", "R1", "R2"], ["W", "BD2", "B2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=DECK, stack_draw2_on_draw2=True)
    eng.step_names("play RD2")
    assert set(eng.legal_action_names()) == {"play BD2", "draw"}


# --- stack_by_value -----------------------------------------------------------------------------

MERCY = dict(deck="no_mercy168", stack_by_value=True, challenge=False)
MERCY_DECK = ["G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8", "G9", "Y1", "Y2", "Y3", "Y4",
              "Y5", "Y6", "Y7", "Y8", "Y9"]


def test_stack_by_value_equal_or_higher_draw_card_of_any_color_answers():
    hands = [["RD4", "R1", "R2"], ["BD2", "YD4", "WD6", "B3"], ["B4", "B5", "B6"]]
    eng = make(hands, pile=MERCY_DECK, **MERCY)
    eng.step_names("play RD4")
    assert eng.pending_draw[0] == 4
    assert set(eng.legal_action_names()) == {"play YD4", "draw"} | wild("WD6")
    eng.step_names("play WD6:B")
    # Player 2 has no draw card: draws 4 + 6.
    assert same(eng.hand(0, 2), ["B4", "B5", "B6"] + MERCY_DECK[:10])
    assert cur(eng) == 0
    assert eng.current_color() == "B"


def test_stack_by_value_lower_draw_card_is_not_an_answer():
    hands = [["WD10", "R1", "R2"], ["BD2", "YD4", "WD6", "B3"], ["B4", "B5", "B6"]]
    eng = make(hands, pile=MERCY_DECK, **MERCY)
    eng.step_names("play WD10:G")
    assert size(eng, 1) == 4 + 10
    assert cur(eng) == 2


# --- challenge_on_stack -------------------------------------------------------------------------

ON_STACK = dict(stack_draw4_on_draw2=True, challenge_on_stack=True)


def test_challenge_on_stack_guilty_last_wd4_player_draws_the_whole_total():
    # Player 1 answers with a Wild Draw Four while holding red (the color before it).
    hands = [["RD2", "R1", "R2"], ["WD4", "R7", "B2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=DECK, **ON_STACK)
    eng.step_names("play RD2")
    eng.step_names("play WD4:B")
    assert cur(eng) == 2
    assert eng.pending_draw[0] == 6
    assert set(eng.legal_action_names()) == {"draw", "challenge"}
    eng.step_names("challenge")
    assert same(eng.hand(0, 1), ["R7", "B2"] + DECK[:6])
    assert same(eng.hand(0, 2), ["Y1", "Y2", "Y3"])
    assert cur(eng) == 2
    assert eng.phase_name() == "turn"
    assert eng.pending_draw[0] == 0
    assert eng.top_card() == "WD4"
    assert eng.current_color() == "B"


def test_challenge_on_stack_innocent_challenger_draws_total_plus_penalty():
    hands = [["RD2", "R1", "R2"], ["WD4", "B1", "B2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=DECK, **ON_STACK)
    eng.step_names("play RD2")
    eng.step_names("play WD4:B")
    eng.step_names("challenge")
    assert same(eng.hand(0, 2), ["Y1", "Y2", "Y3"] + DECK[:8])
    assert same(eng.hand(0, 1), ["B1", "B2"])
    assert cur(eng) == 0
    assert eng.phase_name() == "turn"


def test_challenge_on_stack_off_a_stacked_wd4_cannot_be_challenged():
    hands = [["RD2", "R1", "R2"], ["WD4", "R7", "B2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=DECK, stack_draw4_on_draw2=True)
    eng.step_names("play RD2")
    eng.step_names("play WD4:B")
    # Nothing to decide for player 2: the six cards are drawn at once.
    assert size(eng, 2) == 3 + 6
    assert cur(eng) == 0


# --- going out with an answering card -----------------------------------------------------------

def test_going_out_with_an_answering_card_target_draws_before_scoring():
    hands = [["RD2", "R1", "R2"], ["BD2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=["G9", "G8", "B7", "B6"], stack_draw2_on_draw2=True)
    eng.step_names("play RD2")
    _, terminated, _ = eng.step_names("play BD2")
    assert terminated[0]
    assert int(eng.winner[0]) == 1
    assert same(eng.hand(0, 2), ["Y1", "Y2", "Y3", "G9", "G8", "B7", "B6"])
    # Winner takes the sum: player 0 holds R1 R2 (3), player 2 holds 6 + 30.
    assert eng.round_points[0].tolist() == [0, 3 + 6 + 30, 0]


@pytest.mark.parametrize("answer,expected", [("skip_next", 3), ("pass_on", 2)])
def test_going_out_with_a_skip_answer_the_new_target_draws(answer, expected):
    hands = [["RD2", "R1", "R2"], ["RS"], ["Y1", "Y2", "Y3"], ["G1", "G2", "G3"]]
    eng = make(hands, pile=["B9", "B8"], stack_skip=answer)
    eng.step_names("play RD2")
    _, terminated, _ = eng.step_names("play RS")
    assert terminated[0]
    assert int(eng.winner[0]) == 1
    assert size(eng, expected) == 5
    assert size(eng, 5 - expected) == 3


def test_stack_reverse_two_players_total_goes_back_to_the_attacker():
    eng = make([["RD2", "R1", "R2"], ["RR", "B1", "B2"]], pile=DECK, stack_reverse=True)
    eng.step_names("play RD2")
    eng.step_names("play RR")
    assert same(eng.hand(0, 0), ["R1", "R2", "G1", "G2"])
    assert same(eng.hand(0, 1), ["B1", "B2"])
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"


def test_stack_and_challenge_both_offered_against_a_wild_draw_four():
    hands = [["WD4", "R1", "R2"], ["WD4", "B5", "Y1"], ["Y2", "Y3"]]
    eng = make(hands, pile=DECK, stack_draw4_on_draw4=True, challenge_on_stack=True)
    eng.step_names("play WD4:B")
    assert set(eng.legal_action_names()) == wild("WD4") | {"draw", "challenge"}


def test_challenge_on_stack_second_wd4_judged_against_the_color_chosen_before_it():
    # Player 1 holds blue, the color chosen with the first Wild Draw Four: guilty.
    hands = [["WD4", "R1", "R2"], ["WD4", "B5", "Y1"], ["Y2", "Y3"]]
    eng = make(hands, pile=DECK, stack_draw4_on_draw4=True, challenge_on_stack=True)
    eng.step_names("play WD4:B")
    eng.step_names("play WD4:G")
    assert set(eng.legal_action_names()) == {"draw", "challenge"}
    eng.step_names("challenge")
    assert same(eng.hand(0, 1), ["B5", "Y1"] + DECK[:8])
    assert cur(eng) == 2
    assert eng.phase_name() == "turn"


def test_stack_answer_forbidden_as_a_last_card_penalty_drawn_at_once():
    hands = [["RD2", "R1", "R2"], ["BD2"], ["Y1", "Y2"]]
    eng = make(hands, pile=DECK, stack_draw2_on_draw2=True, finish_on_action="forbidden_draw1")
    eng.step_names("play RD2")
    # The Draw Two would be an action card as the last card: no answer, so no decision.
    assert same(eng.hand(0, 1), ["BD2", "G1", "G2"])
    assert cur(eng) == 2
    assert eng.phase_name() == "turn"


def test_stack_answers_must_match_the_top_card_after_a_reverse():
    hands = [["RD2", "RD2", "BD2", "R2"], ["RR", "B1", "B2"], ["Y1", "Y2", "Y3"],
             ["G1", "G2", "G3"]]
    eng = make(hands, pile=DECK, stack_reverse=True, stack_draw2_on_draw2=True)
    eng.step_names("play RD2")
    eng.step_names("play RR")
    assert cur(eng) == 0
    # The chain's last draw card is a Draw Two, and the top a red Reverse: a blue Draw
    # Two does not match it, a red one does.
    assert set(eng.legal_action_names()) == {"play RD2", "draw"}
    eng.step_names("play RD2")
    assert same(eng.hand(0, 3), ["G1", "G2", "G3"] + DECK[:4])
    assert cur(eng) == 2


def test_draw_return_answers_follow_basic_matching_against_the_top_card():
    # The draw-return page: on a red Reverse that sent a Draw Two back, a green (or
    # blue) Draw Two does not answer; a red card of an answering kind or any Reverse does.
    hands = [["RD2", "GD2", "BR", "RS", "B5"], ["RR", "Y1", "Y2"], ["Y3", "Y4"]]
    eng = make(hands, pile=DECK, preset="draw_return")
    eng.step_names("play RD2")
    eng.step_names("play RR")
    assert cur(eng) == 0
    assert eng.pending_draw[0] == 2
    assert set(eng.legal_action_names()) == {"play BR", "play RS", "draw"}


def test_stack_draw2_on_draw4_any_is_not_bound_by_the_chosen_color():
    hands = [["WD4", "R1", "R2"], ["BD2", "B1", "B2"], ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=DECK, **NO_CHALLENGE, stack_draw2_on_draw4="any")
    eng.step_names("play WD4:G")
    assert set(eng.legal_action_names()) == {"play BD2", "draw"}
