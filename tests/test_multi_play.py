"""Playing several cards in one turn (docs/rules.md 3.6 and section 6, "Several cards at
once").

A multi-card play is a sequence of decisions: the first card follows the normal
rules, each further compatible card is another ``play``, and ``pass`` ends it.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
import scenario
from scenario import cur, same, size

from uno_env import Engine, Rules
from uno_env.engine.codes import rule_codes
from uno_env.engine.legal import legal_mask

#: These scenarios study other rules: the UNO call is automatic (no ``uno``/``catch`` decisions).
make = partial(scenario.make, uno_penalty=0)

#: Every test here runs on each backend.
pytestmark = pytest.mark.usefixtures("each_backend")


def direction(eng: Engine) -> int:
    return int(eng.state.direction[0])


PILE = ["G1", "G2", "G3", "G4", "G6", "G7", "G8", "G9", "Y7", "Y8", "Y9", "B9"]
OTHERS = [["Y1", "Y2", "Y3"], ["G1", "G2", "G3"], ["B1", "B2", "B3"]]


# --- same_number --------------------------------------------------------------------------------

def test_multi_play_same_number_first_card_must_be_legal():
    eng = make([["B5", "G5", "Y1"], *OTHERS], multi_play="same_number")
    assert set(eng.legal_action_names()) == {"draw"}
    eng = make([["R5", "B5", "G5", "Y1"], *OTHERS], multi_play="same_number")
    assert set(eng.legal_action_names()) == {"play R5", "draw"}


def test_multi_play_same_number_sequence_of_decisions_last_card_is_the_top():
    eng = make([["R5", "B5", "G5", "Y1"], *OTHERS], multi_play="same_number")
    eng.step_names("play R5")
    assert eng.phase_name() == "multi"
    assert cur(eng) == 0
    assert set(eng.legal_action_names()) == {"play B5", "play G5", "pass"}
    eng.step_names("play G5")
    assert eng.phase_name() == "multi"
    assert set(eng.legal_action_names()) == {"play B5", "pass"}
    eng.step_names("pass")
    assert eng.top_card() == "G5"
    assert eng.current_color() == "G"
    assert same(eng.hand(0, 0), ["B5", "Y1"])
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"


def test_multi_play_same_number_groups_draw_twos_and_adds_them():
    eng = make([["RD2", "BD2", "GD2", "Y1"], *OTHERS], pile=PILE, multi_play="same_number",
               multi_effects_add=True)
    eng.step_names("play RD2")
    assert set(eng.legal_action_names()) == {"play BD2", "play GD2", "pass"}
    eng.step_names("play BD2")
    eng.step_names("play GD2")
    assert eng.top_card() == "GD2"
    assert same(eng.hand(0, 1), ["Y1", "Y2", "Y3"] + PILE[:6])
    assert cur(eng) == 2


def test_multi_play_same_number_groups_wild_draw_fours():
    eng = make([["WD4", "WD4", "R1", "Y1"], *OTHERS], pile=PILE, multi_play="same_number",
               multi_effects_add=True, challenge=False, wd4_restriction="none")
    eng.step_names("play WD4:B")
    assert set(eng.legal_action_names()) == {f"play WD4:{c}" for c in "RYGB"} | {"pass"}
    eng.step_names("play WD4:G")
    assert eng.current_color() == "G"
    assert size(eng, 1) == 3 + 8
    assert cur(eng) == 2


def test_multi_play_same_number_plain_wilds_grouped_only_without_scoring():
    eng = make([["W", "W", "R1", "Y1"], *OTHERS], multi_play="same_number")
    eng.step_names("play W:B")
    assert eng.phase_name() == "turn"
    assert cur(eng) == 1
    eng = make([["W", "W", "R1", "Y1"], *OTHERS], multi_play="same_number", scoring="none")
    eng.step_names("play W:B")
    assert eng.phase_name() == "multi"
    assert {f"play W:{c}" for c in "RYGB"} <= set(eng.legal_action_names())


def test_multi_play_same_number_does_not_group_skips():
    eng = make([["RS", "BS", "Y1"], *OTHERS], multi_play="same_number")
    eng.step_names("play RS")
    assert eng.phase_name() == "turn"
    assert cur(eng) == 2


# --- identical ----------------------------------------------------------------------------------

def test_multi_play_identical_needs_same_color_and_kind():
    eng = make([["R5", "R5", "B5", "Y1"], *OTHERS], multi_play="identical")
    eng.step_names("play R5")
    assert set(eng.legal_action_names()) == {"play R5", "pass"}
    eng.step_names("play R5")
    assert eng.phase_name() == "turn"  # nothing left to add: the play ends by itself
    assert same(eng.hand(0, 0), ["B5", "Y1"])
    assert cur(eng) == 1


def test_multi_play_identical_action_cards():
    eng = make([["RS", "RS", "BS", "Y1"], *OTHERS], multi_play="identical")
    eng.step_names("play RS")
    assert set(eng.legal_action_names()) == {"play RS", "pass"}


def test_multi_play_identical_declines_with_pass():
    eng = make([["R5", "R5", "Y1"], *OTHERS], multi_play="identical")
    eng.step_names("play R5")
    eng.step_names("pass")
    assert same(eng.hand(0, 0), ["R5", "Y1"])
    assert cur(eng) == 1


# --- same_kind ----------------------------------------------------------------------------------

def test_multi_play_same_kind_same_symbol_any_colors():
    eng = make([["RS", "BS", "YS", "R5"], *OTHERS], multi_play="same_kind")
    assert "play BS" not in eng.legal_action_names()
    eng.step_names("play RS")
    assert set(eng.legal_action_names()) == {"play BS", "play YS", "pass"}
    eng.step_names("play YS")
    eng.step_names("pass")
    assert eng.top_card() == "YS"
    assert eng.current_color() == "Y"


@pytest.mark.parametrize("preset", ["official", "house_dobon"])
def test_multi_play_same_kind_lays_two_plain_wilds_together_whatever_the_scoring(preset):
    eng = make([["W", "W", "R1", "Y1"], *OTHERS], preset=preset, multi_play="same_kind")
    eng.step_names("play W:B")
    assert eng.phase_name() == "multi"
    assert set(eng.legal_action_names()) == {f"play W:{c}" for c in "RYGB"} | {"pass"}
    eng.step_names("play W:G")
    assert eng.current_color() == "G"
    assert same(eng.hand(0, 0), ["R1", "Y1"])
    assert cur(eng) == 1


@pytest.mark.parametrize("mode", ["same_kind", "identical"])
def test_single_card_finish_a_play_of_several_cards_stops_at_the_last_card(mode):
    # The Japanese article: going out may be limited to a single card.
    if mode == "same_kind":
        eng = make([["R5", "B5", "G5"], *OTHERS], multi_play=mode, single_card_finish=True)
        eng.step_names("play R5")
        assert eng.phase_name() == "multi"
        eng.step_names("play B5")
        assert eng.hand(0, 0) == ["G5"]   # the last card is not laid with the others
        assert cur(eng) == 1 and eng.phase_name() == "turn"
    eng = make([["R5", "R5"], *OTHERS], multi_play=mode, single_card_finish=True)
    eng.step_names("play R5")
    assert eng.hand(0, 0) == ["R5"] and cur(eng) == 1


def test_single_card_finish_going_out_with_one_card_ends_the_round():
    eng = make([["R5"], *OTHERS], multi_play="same_kind", single_card_finish=True)
    _, terminated, _ = eng.step_names("play R5")
    assert terminated[0] and int(eng.winner[0]) == 0


def test_single_card_finish_off_several_cards_may_go_out():
    eng = make([["R5", "R5"], *OTHERS], multi_play="same_kind")
    eng.step_names("play R5")
    assert eng.phase_name() == "multi"
    _, terminated, _ = eng.step_names("play R5")
    assert terminated[0]


DECLARE = dict(multi_play="same_kind", declare_on_finish=2, uno_penalty=2)


def test_declare_on_finish_going_out_undeclared_draws_the_penalty_and_plays_on():
    # The Japanese article: where going out must be declared, a player who forgets
    # takes two cards from the pile.
    eng = make([["R5", "B5"], *OTHERS], pile=PILE, **DECLARE)
    assert "uno" in eng.legal_action_names()
    eng.step_names("play R5")
    _, terminated, _ = eng.step_names("play B5")
    assert not terminated[0]
    assert same(eng.hand(0, 0), PILE[:2])
    assert eng.top_card() == "B5"
    assert cur(eng) == 1 and eng.phase_name() == "turn"


def test_declare_on_finish_a_declared_play_goes_out():
    eng = make([["R5", "B5"], *OTHERS], pile=PILE, **DECLARE)
    eng.step_names("uno")
    eng.step_names("play R5")
    _, terminated, _ = eng.step_names("play B5")
    assert terminated[0] and int(eng.winner[0]) == 0


def test_declare_on_finish_covers_a_single_last_card():
    eng = make([["R5"], *OTHERS], pile=PILE, **DECLARE)
    assert set(eng.legal_action_names()) == {"play R5", "uno", "draw"}
    _, terminated, _ = eng.step_names("play R5")
    assert not terminated[0]
    assert same(eng.hand(0, 0), PILE[:2])
    eng = make([["R5"], *OTHERS], pile=PILE, **DECLARE)
    eng.step_names("uno")
    _, terminated, _ = eng.step_names("play R5")
    assert terminated[0]


def test_declare_on_finish_off_going_out_needs_no_declaration():
    eng = make([["R5"], *OTHERS], pile=PILE, multi_play="same_kind", uno_penalty=2)
    assert "uno" not in eng.legal_action_names()
    _, terminated, _ = eng.step_names("play R5")
    assert terminated[0]


def test_multi_play_none_one_card_per_turn():
    eng = make([["R5", "B5", "Y1"], *OTHERS])
    eng.step_names("play R5")
    assert eng.phase_name() == "turn"
    assert cur(eng) == 1


# --- multi_effects_add --------------------------------------------------------------------------

@pytest.mark.parametrize("k", [2, 3])
def test_multi_effects_add_k_draw_twos_make_2k(k):
    cards = ["RD2", "BD2", "GD2"][:k]
    eng = make([[*cards, "Y1"], *OTHERS], pile=PILE, multi_play="same_kind",
               multi_effects_add=True)
    for c in cards:
        eng.step_names(f"play {c}")
    assert size(eng, 1) == 3 + 2 * k
    assert cur(eng) == 2


def test_multi_effects_off_only_the_last_card_acts():
    eng = make([["RD2", "BD2", "Y1"], *OTHERS], pile=PILE, multi_play="same_kind")
    eng.step_names("play RD2")
    eng.step_names("play BD2")
    assert size(eng, 1) == 3 + 2
    assert cur(eng) == 2


def test_multi_effects_add_even_reverses_keep_direction():
    eng = make([["RR", "BR", "Y1"], *OTHERS], multi_play="same_kind", multi_effects_add=True)
    eng.step_names("play RR")
    eng.step_names("play BR")
    assert direction(eng) == 1
    assert cur(eng) == 1


def test_multi_effects_add_odd_reverses_flip_direction():
    eng = make([["RR", "BR", "GR", "Y1"], *OTHERS], multi_play="same_kind",
               multi_effects_add=True)
    for c in ("RR", "BR", "GR"):
        eng.step_names(f"play {c}")
    assert direction(eng) == -1
    assert cur(eng) == 3


def test_multi_effects_off_two_reverses_flip_once():
    eng = make([["RR", "BR", "Y1"], *OTHERS], multi_play="same_kind")
    eng.step_names("play RR")
    eng.step_names("play BR")
    assert direction(eng) == -1
    assert cur(eng) == 3


def test_multi_skip_each_two_skips_among_four_come_back_to_the_player():
    eng = make([["RS", "BS", "Y1"], *OTHERS], multi_play="same_kind", multi_effects_add=True,
               multi_skip="each")
    eng.step_names("play RS")
    eng.step_names("play BS")
    assert cur(eng) == 0
    assert eng.phase_name() == "turn"


def test_multi_skip_consecutive_two_skips_skip_the_next_two_players():
    eng = make([["RS", "BS", "Y1"], *OTHERS], multi_play="same_kind", multi_effects_add=True,
               multi_skip="consecutive")
    eng.step_names("play RS")
    eng.step_names("play BS")
    assert cur(eng) == 3
    assert eng.phase_name() == "turn"


def test_multi_effects_off_two_skips_skip_one_player():
    eng = make([["RS", "BS", "Y1"], *OTHERS], multi_play="same_kind")
    eng.step_names("play RS")
    eng.step_names("play BS")
    assert cur(eng) == 2


# --- the UNO call -------------------------------------------------------------------------------

def test_multi_play_uno_call_legal_when_the_largest_group_leaves_one_card():
    eng = make([["R5", "B5", "Y1"], *OTHERS], multi_play="same_number", uno_penalty=2)
    assert "uno" in eng.legal_action_names()
    eng = make([["R5", "B5", "Y1", "Y2"], *OTHERS], multi_play="same_number", uno_penalty=2)
    assert "uno" not in eng.legal_action_names()


def test_multi_play_uncalled_down_to_one_card_can_be_caught():
    eng = make([["R5", "B5", "Y1"], *OTHERS], pile=PILE, multi_play="same_number",
               uno_penalty=2)
    eng.step_names("play R5")
    # After one card the hand still holds two: nobody can catch yet.
    assert "catch" not in eng.legal_action_names()
    eng.step_names("play B5")
    assert cur(eng) == 1
    assert "catch" in eng.legal_action_names()
    eng.step_names("catch")
    assert same(eng.hand(0, 0), ["Y1", "G1", "G2"])


def test_multi_play_called_uno_covers_the_whole_play():
    eng = make([["R5", "B5", "Y1"], *OTHERS], multi_play="same_number", uno_penalty=2)
    eng.step_names("uno")
    assert "uno" not in eng.legal_action_names()
    eng.step_names("play R5")
    eng.step_names("play B5")
    assert cur(eng) == 1
    assert "catch" not in eng.legal_action_names()


# --- 7-0 with multi-play ------------------------------------------------------------------------

def test_multi_play_seven_zero_sevens_swap_once_for_the_last_card():
    hands = [["R7", "B7", "Y1", "Y2"], ["G1", "G2"], ["B1", "B2", "B3"]]
    eng = make(hands, multi_play="same_number", seven_zero=True)
    eng.step_names("play R7")
    assert eng.phase_name() == "multi"
    eng.step_names("play B7")
    assert eng.phase_name() == "choose_target"
    assert cur(eng) == 0
    eng.step_names("target:2")
    assert same(eng.hand(0, 0), ["B1", "B2", "B3"])
    assert same(eng.hand(0, 2), ["Y1", "Y2"])
    assert same(eng.hand(0, 1), ["G1", "G2"])
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"


def test_multi_play_seven_zero_zeros_pass_hands_once():
    hands = [["R0", "B0", "Y1", "Y2"], ["G1", "G2"], ["B1", "B2", "B3"]]
    eng = make(hands, multi_play="same_number", seven_zero=True,
               multi_effects_add=True)
    eng.step_names("play R0")
    eng.step_names("play B0")
    # Every hand moved one seat on, once.
    assert same(eng.hand(0, 1), ["Y1", "Y2"])
    assert same(eng.hand(0, 2), ["G1", "G2"])
    assert same(eng.hand(0, 0), ["B1", "B2", "B3"])
    assert cur(eng) == 1


def test_multi_play_after_a_voluntary_draw_the_drawn_card_starts_the_play():
    eng = make([["B5", "Y1"], *OTHERS], pile=["R5"], multi_play="same_number")
    eng.step_names("draw")
    assert set(eng.legal_action_names()) == {"play R5", "pass"}
    eng.step_names("play R5")
    assert set(eng.legal_action_names()) == {"play B5", "pass"}
    eng.step_names("play B5")
    assert eng.top_card() == "B5"
    assert eng.hand(0, 0) == ["Y1"]
    assert cur(eng) == 1


def test_multi_play_answering_a_penalty_with_several_draw_twos():
    hands = [["RD2", "R1", "R2"], ["BD2", "GD2", "B1"], ["Y1", "Y2"]]
    eng = make(hands, pile=PILE, stack_draw2_on_draw2=True, multi_play="same_number",
               multi_effects_add=True)
    eng.step_names("play RD2")
    eng.step_names("play BD2")
    assert eng.phase_name() == "multi"
    assert set(eng.legal_action_names()) == {"play GD2", "pass"}
    eng.step_names("play GD2")
    assert same(eng.hand(0, 2), ["Y1", "Y2"] + PILE[:6])
    assert cur(eng) == 0


def test_multi_play_a_jump_in_is_a_single_card():
    hands = [["R5", "B1"], ["Y1", "Y2"], ["R5", "B5", "G1"], ["G3"]]
    eng = make(hands, multi_play="same_number", jump_in=True)
    eng.step_names("play R5")
    eng.step_names("play R5")
    assert eng.phase_name() == "turn"
    assert cur(eng) == 3
    assert same(eng.hand(0, 2), ["B5", "G1"])


def test_multi_play_uno_call_legal_when_answering_with_a_group_leaves_one_card():
    hands = [["RD2", "R1", "R2"], ["BD2", "GD2", "Y1"], ["Y2", "Y3"]]
    eng = make(hands, stack_draw2_on_draw2=True, multi_play="same_number",
               multi_effects_add=True, uno_penalty=2)
    eng.step_names("play RD2")
    assert eng.phase_name() == "respond"
    # Answering with both Draw Twos leaves Y1 alone: the call must be possible first.
    assert "uno" in eng.legal_action_names()


def test_multi_play_uno_call_does_not_depend_on_the_other_games_of_the_batch():
    rules = Rules(num_players=3, multi_play="same_number", stack_draw2_on_draw2=True)
    turn = Engine.from_setup(rules, hands=[["R5", "B5", "Y1"], ["Y2"], ["Y3"]], top="R3")
    assert "uno" in turn.legal_action_names()
    waiting = Engine.from_setup(rules, hands=[["RD2", "R1", "R2"], ["BD2", "Y4", "Y5"],
                                              ["Y6", "Y7"]], top="R3")
    waiting.step_names("play RD2")
    assert waiting.phase_name() == "respond"
    batch = Engine(rules, 2, seed=0)
    batch.state.put(np.array([0]), turn.state)
    batch.state.put(np.array([1]), waiting.state)
    mask = legal_mask(rule_codes(rules), batch.state)
    np.testing.assert_array_equal(mask[0], turn.legal_action_mask()[0])
    np.testing.assert_array_equal(mask[1], waiting.legal_action_mask()[0])


@pytest.mark.parametrize("third,guilty", [("R1", True), ("Y1", False)])
def test_multi_play_two_wild_draw_fours_challenged_as_one_play(third, guilty):
    eng = make([["WD4", "WD4", third], ["B1", "B2"], ["Y2", "Y3"]], pile=PILE,
               multi_play="same_number", multi_effects_add=True)
    eng.step_names("play WD4:B")
    eng.step_names("play WD4:G")
    assert cur(eng) == 1
    assert eng.pending_draw[0] == 8
    assert set(eng.legal_action_names()) == {"draw", "challenge"}
    eng.step_names("challenge")
    if guilty:  # judged against red, current before the play: the offender draws the total
        assert [size(eng, p) for p in range(3)] == [1 + 8, 2, 2]
        assert cur(eng) == 1
    else:
        assert [size(eng, p) for p in range(3)] == [1, 2 + 8 + 2, 2]
        assert cur(eng) == 2
    assert eng.current_color() == "G"
