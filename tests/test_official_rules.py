"""The base game (docs/rules.md section 2), its options, and the worked examples of section 5.

Every test builds a position with ``Engine.from_setup`` and checks what a player
or referee would observe: hands, top card, color, the player to act, the phase,
the legal actions, rewards, points and scores.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scenario import assert_census, eager_actions, make, random_actions

from uno_env import Engine, Rules
from uno_env.cards import DECKS, cards_from_counts, counts_from_cards

#: Every test here runs on each backend.
pytestmark = pytest.mark.usefixtures("each_backend")

COLORS = ["color:R", "color:Y", "color:G", "color:B"]


def wd4_plays(color_only: str | None = None) -> list[str]:
    return [f"play WD4:{c}" for c in "RYGB" if color_only in (None, c)]


def rest_of_deck(*used: list[str] | str) -> list[str]:
    """Every card of the classic deck not listed in ``used``."""
    cards: list[str] = []
    for u in used:
        cards += [u] if isinstance(u, str) else list(u)
    rest = DECKS["classic108"] - counts_from_cards(cards)
    assert (rest >= 0).all()
    return cards_from_counts(rest)


def same_cards(a: list[str], b: list[str]) -> bool:
    return Counter(a) == Counter(b)


def current(eng: Engine) -> int:
    return int(eng.current_player[0])


def direction(eng: Engine) -> int:
    return int(eng.state.direction[0])


# --- docs/rules.md section 5: worked examples ---------------------------------------------------

def test_example1_guilty_bluff_challenged_offender_draws_four():
    eng = make([["WD4", "G2", "R7"], ["B1", "B2"], ["Y3", "Y4"]], top="G5",
               pile=["B7", "B8", "B9", "Y9", "R1"])
    eng.step_names("play WD4:R")
    assert eng.phase_name() == "respond"
    assert current(eng) == 1
    assert set(eng.legal_action_names()) == {"draw", "challenge"}
    eng.step_names("challenge")
    assert same_cards(eng.hand(0, 0), ["G2", "R7", "B7", "B8", "B9", "Y9"])
    assert len(eng.hand(0, 0)) == 6
    assert eng.top_card() == "WD4"
    assert eng.current_color() == "R"
    assert current(eng) == 1
    assert eng.phase_name() == "turn"
    assert same_cards(eng.hand(0, 1), ["B1", "B2"])
    assert eng.pending_draw[0] == 0
    assert "draw" in eng.legal_action_names()
    assert "challenge" not in eng.legal_action_names()


def test_example2_innocent_challenger_draws_six_and_loses_turn():
    eng = make([["WD4", "R7"], ["B1", "B2"], ["Y3", "Y4"]], top="G5",
               pile=["B7", "B8", "B9", "Y9", "R1", "R2", "R3"])
    eng.step_names("uno")
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert same_cards(eng.hand(0, 1), ["B1", "B2", "B7", "B8", "B9", "Y9", "R1", "R2"])
    assert eng.hand(0, 0) == ["R7"]
    assert current(eng) == 2
    assert eng.phase_name() == "turn"
    assert eng.top_card() == "WD4"
    assert eng.current_color() == "R"


def test_example3_official_jp_guilty_wd4_is_retracted_and_hidden_card_forced():
    eng = make([["WD4", "G2", "R7"], ["B1", "B2"], ["Y3", "Y4"]], preset="official_jp", top="G5",
               pile=["B7", "B8", "B9", "Y9", "R1"])
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert same_cards(eng.hand(0, 0), ["WD4", "G2", "R7", "B7", "B8", "B9", "Y9"])
    assert eng.top_card() == "G5"
    assert eng.current_color() == "G"
    assert current(eng) == 0
    assert eng.legal_action_names() == ["play G2"]
    eng.step_names("play G2")
    assert eng.top_card() == "G2"
    assert eng.current_color() == "G"
    assert current(eng) == 1
    assert eng.phase_name() == "turn"
    assert same_cards(eng.hand(0, 0), ["WD4", "R7", "B7", "B8", "B9", "Y9"])
    assert same_cards(eng.hand(0, 1), ["B1", "B2"])


def test_retract_replays_a_card_held_when_the_wd4_was_played_not_one_drawn_since():
    # The offender played down to one card without the call and was caught: the G7
    # drawn as the penalty was not in the hand that played the Wild Draw Four.
    eng = make([["WD4", "G2"], ["B1", "B2"], ["Y3", "Y4"]], preset="official_jp", top="G5",
               pile=["G7", "R9", "B7", "B8", "B9", "Y9", "R1"])
    eng.step_names("play WD4:R")
    eng.step_names("catch")
    assert same_cards(eng.hand(0, 0), ["G2", "G7", "R9"])
    eng.step_names("challenge")
    assert eng.phase_name() == "forced_play"
    assert eng.legal_action_names() == ["play G2"]
    eng.step_names("play G2")
    assert same_cards(eng.hand(0, 0), ["WD4", "G7", "R9", "B7", "B8", "B9", "Y9"])
    assert current(eng) == 1


def test_example3_forced_card_acts_as_the_offenders_play():
    """The retracted offender's forced card keeps its effect (here a Skip)."""
    eng = make([["WD4", "GS", "R7"], ["B1", "B2"], ["Y3", "Y4"]], preset="official_jp", top="G5",
               pile=["B7", "B8", "B9", "Y9", "R1"])
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert eng.legal_action_names() == ["play GS"]
    eng.step_names("play GS")
    assert current(eng) == 2


def test_example4_two_player_reverse_acts_as_skip():
    eng = make([["RR", "R3", "B4"], ["R1", "R2"]], top="R5")
    eng.step_names("play RR")
    assert current(eng) == 0
    assert eng.phase_name() == "turn"
    assert eng.top_card() == "RR"
    eng.step_names("play R3")
    assert current(eng) == 1


def test_example5_first_card_draw_two_dealer_zero_four_players():
    hands = [["B1"], ["B2"], ["B3"], ["B4"]]
    eng = make(hands, top=None, pile=["RD2", "Y7", "Y8", "G1"], dealer_seat=0)
    assert eng.top_card() == "RD2"
    assert same_cards(eng.hand(0, 1), ["B2", "Y7", "Y8"])
    assert current(eng) == 2
    assert eng.phase_name() == "turn"
    for p in (0, 2, 3):
        assert len(eng.hand(0, p)) == 1


@pytest.mark.parametrize("preset", ["official", "official_jp"])
@pytest.mark.parametrize("players", [2, 3, 4, 7, 10])
def test_example7_card_conservation_every_step(preset, players):
    eng = Engine(Rules.preset(preset, num_players=players), 8, seed=players)
    rng = np.random.default_rng(players)
    for _ in range(300):
        assert_census(eng)
        if eng.done.all():
            break
        eng.step(random_actions(eng, rng))
    assert_census(eng)


# --- 2.1 the deal -----------------------------------------------------------------------------

@pytest.mark.parametrize("players", range(2, 11))
def test_deal_seven_cards_each(players):
    eng = Engine(Rules(num_players=players), 16, seed=3)
    for g in range(16):
        sizes = [len(eng.hand(g, p)) for p in range(players)]
        top = eng.top_card(g)
        # The first card may make the player left of the dealer draw 2.
        extra = 2 if top.endswith("D2") else 0
        victim = (int(eng.state.dealer[g]) + 1) % players
        assert sizes == [7 + (extra if p == victim else 0) for p in range(players)]
        assert eng.hand_sizes[g].tolist() == sizes
    assert_census(eng)


def test_dealer_is_a_uniform_random_seat():
    eng = Engine(Rules(num_players=4), 4000, seed=11)
    freq = np.bincount(eng.state.dealer, minlength=4) / 4000
    assert (np.abs(freq - 0.25) < 0.04).all(), freq


def test_number_first_card_player_left_of_dealer_starts():
    eng = Engine(Rules(num_players=5), 400, seed=5)
    number = np.array([eng.top_card(g)[1:].isdigit() for g in range(400)])
    assert number.any()
    np.testing.assert_array_equal(eng.current_player[number], (eng.state.dealer[number] + 1) % 5)


# --- 2.2 the first card -----------------------------------------------------------------------

FOUR = [["B1", "Y1"], ["B2", "Y2"], ["B3", "Y3"], ["B4", "Y4"]]


def test_first_card_number_left_of_dealer_starts():
    eng = make(FOUR, top=None, pile=["G5"], dealer_seat=1)
    assert eng.top_card() == "G5"
    assert eng.current_color() == "G"
    assert current(eng) == 2
    assert eng.phase_name() == "turn"
    assert direction(eng) == 1


def test_first_card_wild_left_of_dealer_chooses_color_then_plays():
    eng = make(FOUR, top=None, pile=["W"], dealer_seat=3)
    assert eng.top_card() == "W"
    assert current(eng) == 0
    assert eng.phase_name() == "choose_color"
    assert eng.legal_action_names() == COLORS
    eng.step_names("color:B")
    assert eng.current_color() == "B"
    assert current(eng) == 0
    assert eng.phase_name() == "turn"
    assert "play B1" in eng.legal_action_names()
    eng.step_names("play B1")
    assert current(eng) == 1


def test_first_card_reverse_dealer_starts_counter_clockwise():
    eng = make(FOUR, top=None, pile=["RR", "Y9"], dealer_seat=1)
    assert current(eng) == 1
    assert direction(eng) == -1
    eng.step_names("draw")  # Y9 does not match: the turn ends
    assert current(eng) == 0


def test_first_card_skip_skips_left_of_dealer():
    eng = make(FOUR, top=None, pile=["YS"], dealer_seat=1)
    assert current(eng) == 3
    assert eng.current_color() == "Y"
    assert direction(eng) == 1


def test_first_card_draw_two_wraps_around_the_table():
    eng = make(FOUR, top=None, pile=["GD2", "R8", "R9"], dealer_seat=2)
    assert same_cards(eng.hand(0, 3), ["B4", "Y4", "R8", "R9"])
    assert current(eng) == 0


def test_first_card_wild_draw_four_is_returned_and_another_flipped():
    eng = make(FOUR, top=None, pile=["WD4", "WD4", "WD4", "WD4"], dealer_seat=0)
    assert eng.top_card() != "WD4"
    assert eng.state.discard[0].sum() == 1
    assert [len(eng.hand(0, p)) for p in range(4)] in ([2, 2, 2, 2], [2, 4, 2, 2])
    assert_census(eng)


# --- 2.3 a turn: play one card or draw ----------------------------------------------------------

def test_player_may_play_a_card_matching_color_or_symbol_or_any_wild():
    eng = make([["G1", "R5", "B9", "W", "YS"], ["B1"], ["B2"]], top="G5")
    assert set(eng.legal_action_names()) == {"play G1", "play R5", "draw",
                                             *[f"play W:{c}" for c in "RYGB"]}


def test_symbol_matches_symbol():
    eng = make([["RS", "BD2", "GR"], ["B1"], ["B2"]], top="YS")
    assert set(eng.legal_action_names()) == {"play RS", "draw"}


def test_draw_then_play_the_drawn_card():
    eng = make([["R1", "B2"], ["B3"], ["B4"]], top="G5", pile=["G7"])
    eng.step_names("draw")
    assert eng.phase_name() == "after_draw"
    assert current(eng) == 0
    assert set(eng.legal_action_names()) == {"play G7", "pass"}
    eng.step_names("play G7")
    assert eng.top_card() == "G7"
    assert same_cards(eng.hand(0, 0), ["R1", "B2"])
    assert current(eng) == 1


def test_after_draw_only_the_drawn_card_may_be_played():
    eng = make([["G1", "B2", "B3"], ["B4"], ["B5"]], top="G5", pile=["G7"])
    eng.step_names("draw")
    assert set(eng.legal_action_names()) == {"play G7", "pass"}


def test_after_draw_pass_keeps_the_card_and_ends_the_turn():
    eng = make([["R1", "B2"], ["B3"], ["B4"]], top="G5", pile=["G7"])
    eng.step_names("draw")
    eng.step_names("pass")
    assert current(eng) == 1
    assert same_cards(eng.hand(0, 0), ["R1", "B2", "G7"])
    assert eng.top_card() == "G5"


def test_drawn_card_not_playable_ends_the_turn():
    eng = make([["R1", "B2"], ["B3"], ["B4"]], top="G5", pile=["Y9"])
    eng.step_names("draw")
    assert current(eng) == 1
    assert eng.phase_name() == "turn"
    assert same_cards(eng.hand(0, 0), ["R1", "B2", "Y9"])


def test_drawn_wild_may_be_played_with_a_color():
    eng = make([["R1", "B2"], ["B3"], ["B4"]], top="G5", pile=["W"])
    eng.step_names("draw")
    assert set(eng.legal_action_names()) == {*[f"play W:{c}" for c in "RYGB"], "pass"}
    eng.step_names("play W:Y")
    assert eng.current_color() == "Y"


def test_may_draw_while_holding_a_playable_card():
    eng = make([["G1", "B2"], ["B3"], ["B4"]], top="G5", pile=["R9"])
    assert "draw" in eng.legal_action_names()
    eng.step_names("draw")
    assert current(eng) == 1
    assert same_cards(eng.hand(0, 0), ["G1", "B2", "R9"])


def test_only_one_card_per_turn():
    eng = make([["G1", "G2", "G3"], ["B3"], ["B4"]], top="G5")
    eng.step_names("play G1")
    assert current(eng) == 1
    assert same_cards(eng.hand(0, 0), ["G2", "G3"])


# --- 2.4 effects --------------------------------------------------------------------------------

def test_wild_chosen_color_becomes_current():
    eng = make([["W", "B2", "B3"], ["Y3", "G4"], ["B4"]], top="G5")
    eng.step_names("play W:Y")
    assert eng.top_card() == "W"
    assert eng.current_color() == "Y"
    assert current(eng) == 1
    assert set(eng.legal_action_names()) == {"play Y3", "draw", "uno"}


def test_skip_next_player_loses_turn():
    eng = make([["GS", "B2", "B3"], ["B3"], ["B4"], ["B5"]], top="G5")
    eng.step_names("play GS")
    assert current(eng) == 2


def test_reverse_flips_direction():
    eng = make([["GR", "B2", "B3"], ["B6"], ["B4"], ["G8", "B5"]], top="G5")
    eng.step_names("play GR")
    assert current(eng) == 3
    assert direction(eng) == -1
    eng.step_names("play G8")
    assert current(eng) == 2


def test_two_player_skip_and_draw_two_play_again():
    eng = make([["GS", "GD2", "G3", "B4"], ["R1", "R2"]], top="G5", pile=["Y1", "Y2"])
    eng.step_names("play GS")
    assert current(eng) == 0
    eng.step_names("play GD2")
    assert current(eng) == 0
    assert same_cards(eng.hand(0, 1), ["R1", "R2", "Y1", "Y2"])


@pytest.mark.parametrize(("first", "starter"), [("RR", 0), ("RS", 0), ("RD2", 0), ("R5", 1)])
def test_two_player_first_card(first, starter):
    eng = make([["B1", "B2"], ["B3", "B4"]], top=None, pile=[first, "Y1", "Y2"], dealer_seat=0)
    assert current(eng) == starter
    assert len(eng.hand(0, 1)) == (4 if first == "RD2" else 2)


def test_draw_two_next_player_draws_two_and_loses_turn():
    eng = make([["GD2", "B2", "B3"], ["B6"], ["B4"], ["B5"]], top="G5", pile=["R8", "R9", "Y1"])
    eng.step_names("play GD2")
    assert same_cards(eng.hand(0, 1), ["B6", "R8", "R9"])
    assert current(eng) == 2
    assert eng.phase_name() == "turn"


def test_wild_draw_four_accepted_next_draws_four_and_loses_turn():
    eng = make([["WD4", "R7", "R8"], ["B1"], ["Y3"]], top="G5", pile=["B7", "B8", "B9", "Y9", "R1"])
    eng.step_names("play WD4:B")
    eng.step_names("draw")
    assert same_cards(eng.hand(0, 1), ["B1", "B7", "B8", "B9", "Y9"])
    assert current(eng) == 2
    assert eng.current_color() == "B"
    assert eng.phase_name() == "turn"


def test_no_card_can_be_played_while_a_penalty_is_pending():
    eng = make([["WD4", "R7", "R8"], ["B1", "W", "WD4"], ["Y3"]], top="G5")
    eng.step_names("play WD4:B")
    assert set(eng.legal_action_names()) == {"draw", "challenge"}
    assert eng.pending_draw[0] == 4


# --- 2.5 / 2.6 Wild Draw Four restriction, bluff and challenge --------------------------------

def test_bluff_is_legal_by_default():
    eng = make([["WD4", "G2"], ["B1"], ["Y3"]], top="G5")
    assert set(wd4_plays()) <= set(eng.legal_action_names())


def test_challenge_checks_the_color_before_the_wd4():
    """Holding only cards of the chosen color is innocent; the previous color decides."""
    eng = make([["WD4", "R7", "R8"], ["B1"], ["Y3"]], top="G5",
               pile=["B7", "B8", "B9", "Y9", "R1", "R2"])
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert len(eng.hand(0, 1)) == 7
    assert current(eng) == 2


def test_challenge_checks_the_color_chosen_by_a_wild_on_top():
    eng = make([["WD4", "B7", "R8"], ["B1"], ["Y3"]], top="W", color="B",
               pile=["G7", "G8", "G9", "Y9"])
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert same_cards(eng.hand(0, 0), ["B7", "R8", "G7", "G8", "G9", "Y9"])
    assert current(eng) == 1


def test_restriction_color_ignores_cards_matching_by_number():
    eng = make([["WD4", "R5", "B1"], ["B2"], ["Y3"]], top="G5",
               pile=["B7", "B8", "B9", "Y9", "R1", "R2"])
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert len(eng.hand(0, 1)) == 7  # innocent: the challenger draws 6
    assert len(eng.hand(0, 0)) == 2


def test_restriction_playable_counts_cards_matching_by_number():
    eng = make([["WD4", "R5", "B1"], ["B2"], ["Y3"]], top="G5",
               pile=["B7", "B8", "B9", "Y9", "R1", "R2"], wd4_restriction="playable")
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert same_cards(eng.hand(0, 0), ["R5", "B1", "B7", "B8", "B9", "Y9"])
    assert current(eng) == 1


def test_restriction_playable_counts_a_plain_wild():
    eng = make([["WD4", "W", "B1"], ["B2"], ["Y3"]], top="G5",
               pile=["B7", "B8", "B9", "Y9", "R1", "R2"], wd4_restriction="playable")
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert len(eng.hand(0, 0)) == 6


def test_restriction_playable_innocent_when_nothing_else_is_playable():
    eng = make([["WD4", "R7", "B1"], ["B2"], ["Y3"]], top="G5",
               pile=["B7", "B8", "B9", "Y9", "R1", "R2"], wd4_restriction="playable")
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert len(eng.hand(0, 1)) == 7
    assert current(eng) == 2


def test_restriction_none_wd4_always_legal_even_without_bluffing():
    eng = make([["WD4", "G2"], ["B1"], ["Y3"]], top="G5", wd4_restriction="none", challenge=False,
               wd4_bluff=False)
    assert set(wd4_plays()) <= set(eng.legal_action_names())


def test_wd4_bluff_false_masks_illegal_wd4_under_color_restriction():
    rules = dict(challenge=False, wd4_bluff=False)
    eng = make([["WD4", "G2"], ["B1"], ["Y3"]], top="G5", **rules)
    assert set(eng.legal_action_names()) == {"play G2", "draw", "uno"}
    eng = make([["WD4", "R5"], ["B1"], ["Y3"]], top="G5", **rules)
    assert set(eng.legal_action_names()) == {*wd4_plays(), "play R5", "draw", "uno"}


def test_wd4_bluff_false_masks_illegal_wd4_under_playable_restriction():
    rules = dict(challenge=False, wd4_bluff=False, wd4_restriction="playable")
    eng = make([["WD4", "R5"], ["B1"], ["Y3"]], top="G5", **rules)
    assert set(eng.legal_action_names()) == {"play R5", "draw", "uno"}
    eng = make([["WD4", "R7"], ["B1"], ["Y3"]], top="G5", **rules)
    assert set(eng.legal_action_names()) == {*wd4_plays(), "draw", "uno"}


def test_wd4_bluff_false_checks_a_drawn_wd4():
    rules = dict(challenge=False, wd4_bluff=False)
    eng = make([["G2", "B3"], ["B1"], ["Y3"]], top="G5", pile=["WD4"], **rules)
    eng.step_names("draw")
    assert current(eng) == 1  # the drawn WD4 may not be played: the turn ends
    assert same_cards(eng.hand(0, 0), ["G2", "B3", "WD4"])


def test_challenge_false_wd4_penalty_applied_at_once():
    eng = make([["WD4", "R7", "R8"], ["B1"], ["Y3"]], top="G5", pile=["B7", "B8", "B9", "Y9", "R1"],
               challenge=False)
    eng.step_names("play WD4:Y")
    assert same_cards(eng.hand(0, 1), ["B1", "B7", "B8", "B9", "Y9"])
    assert current(eng) == 2
    assert eng.phase_name() == "turn"
    assert "challenge" not in eng.legal_action_names()


@pytest.mark.parametrize("penalty", [0, 2, 3])
def test_challenge_penalty_innocent_challenger_draws_four_plus_penalty(penalty):
    eng = make([["WD4", "R7", "R8"], ["B1"], ["Y3"]], top="G5", challenge_penalty=penalty)
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert len(eng.hand(0, 1)) == 1 + 4 + penalty
    assert current(eng) == 2


def test_challenge_penalty_does_not_apply_to_guilty_offender():
    eng = make([["WD4", "G7", "R8"], ["B1"], ["Y3"]], top="G5", challenge_penalty=3)
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert len(eng.hand(0, 0)) == 2 + 4
    assert len(eng.hand(0, 1)) == 1


def test_challenge_guilty_retract_under_color_restriction():
    eng = make([["WD4", "G7", "B8"], ["B1"], ["Y3"]], top="G5", pile=["R1", "R2", "G3", "Y4"],
               challenge_guilty="retract")
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert eng.phase_name() == "forced_play"
    # Only the hidden legal card, not the newly drawn G3.
    assert eng.legal_action_names() == ["play G7"]
    eng.step_names("play G7")
    assert same_cards(eng.hand(0, 0), ["WD4", "B8", "R1", "R2", "G3", "Y4"])
    assert current(eng) == 1
    assert_census(eng)


def test_retract_after_a_reshuffle_took_the_previous_top_the_offender_draws_instead():
    """A catch's draw reshuffled the covered G2 into the pile: nothing to return to, so
    the guilty offender draws the four and the challenger takes a normal turn."""
    hands = [["WD4", "G7"], rest_of_deck("WD4", "G7", "G2", "R1", "R2", "R3")]
    eng = make(hands, preset="official_jp", top="G2", discard=["R1", "R2", "R3"])
    eng.step_names("play WD4:R")
    eng.step_names("catch")          # G2 R1 R2 R3 are reshuffled; the offender draws two
    assert len(eng.hand(0, 0)) == 3
    eng.step_names("challenge")      # two cards left to draw: the pile runs dry
    assert len(eng.hand(0, 0)) == 5
    assert same_cards(eng.hand(0, 0), ["G7", "G2", "R1", "R2", "R3"])
    assert eng.top_card() == "WD4"
    assert eng.current_color() == "R"
    assert current(eng) == 1
    assert eng.phase_name() == "turn"
    assert_census(eng)
    eng.step_names("draw")           # nothing left to draw: the reshuffle finds no cards
    assert_census(eng)


def test_retract_without_a_reshuffle_still_returns_the_wild_draw_four():
    hands = [["WD4", "G7"], rest_of_deck("WD4", "G7", "G2", "R1", "R2", "R3", "R4", "R5",
                                          "R6", "R7")]
    eng = make(hands, preset="official_jp", top="G2", discard=["R1", "R2", "R3"],
               pile=["R4", "R5", "R6", "R7"])
    eng.step_names("play WD4:R")
    eng.step_names("catch")
    eng.step_names("challenge")
    assert eng.phase_name() == "forced_play"
    assert eng.top_card() == "G2"
    assert "WD4" in eng.hand(0, 0)
    assert_census(eng)


def test_two_player_innocent_challenge_attacker_plays_again():
    eng = make([["WD4", "R7", "R8"], ["B1", "B2"]], top="G5")
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert len(eng.hand(0, 1)) == 2 + 6
    assert current(eng) == 0


def test_two_player_guilty_challenge_challenger_takes_a_turn():
    eng = make([["WD4", "G7", "R8"], ["B1", "B2"]], top="G5")
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert len(eng.hand(0, 0)) == 2 + 4
    assert current(eng) == 1
    assert eng.current_color() == "R"


def test_retract_forced_card_matching_by_number_sets_its_color():
    eng = make([["WD4", "R5", "B8"], ["B1"], ["Y3"]], preset="official_jp", top="G5",
               pile=["Y1", "Y2", "G3", "G4"])
    eng.step_names("play WD4:B")
    eng.step_names("challenge")
    assert eng.legal_action_names() == ["play R5"]
    eng.step_names("play R5")
    assert eng.top_card() == "R5"
    assert eng.current_color() == "R"
    assert current(eng) == 1


def test_retract_innocent_under_playable_restriction_challenger_draws_six():
    eng = make([["WD4", "R7", "B8"], ["B1"], ["Y3"]], preset="official_jp", top="G5")
    eng.step_names("play WD4:B")
    eng.step_names("challenge")
    assert len(eng.hand(0, 1)) == 7
    assert eng.top_card() == "WD4"
    assert eng.current_color() == "B"
    assert current(eng) == 2


def test_challenge_only_after_a_wild_draw_four():
    eng = make([["GD2", "R7", "R8"], ["B1"], ["Y3"]], top="G5")
    eng.step_names("play GD2")
    assert "challenge" not in eng.legal_action_names()


# --- 2.7 UNO call and catch -------------------------------------------------------------------

def test_uno_legal_with_two_cards_and_a_playable_one():
    eng = make([["G1", "B2"], ["B1"], ["Y3"]], top="G5")
    assert "uno" in eng.legal_action_names()


@pytest.mark.parametrize("hand", [["G1", "B2", "B3"], ["B2", "B3"], ["G1"]])
def test_uno_not_legal_without_a_play_down_to_one_card(hand):
    eng = make([hand, ["B1"], ["Y3"]], top="G5")
    assert "uno" not in eng.legal_action_names()


def test_uno_legal_before_a_discard_all_that_leaves_one_card():
    eng = make([["RDA", "R1", "G3"], ["B1", "B2"], ["Y3", "Y4"]], top="R5", preset="no_mercy")
    assert set(eng.legal_action_names()) == {"draw", "play R1", "play RDA", "uno"}
    eng.step_names("uno")
    eng.step_names("play RDA")
    assert eng.hand(0, 0) == ["G3"]
    assert "catch" not in eng.legal_action_names()


@pytest.mark.parametrize("hand", [["RDA", "R1", "R2"], ["RDA", "G3", "G4", "R1"]])
def test_uno_not_legal_when_a_discard_all_leaves_none_or_several(hand):
    eng = make([hand, ["B1", "B2"], ["Y3", "Y4"]], top="R5", preset="no_mercy")
    assert "uno" not in eng.legal_action_names()


def test_uno_legal_before_discard_alls_laid_together_that_leave_one_card():
    eng = make([["RDA", "GDA", "G1", "R2", "B3"], ["B1", "B2"], ["Y3", "Y4"]], top="R5",
               preset="no_mercy", multi_play="same_kind")
    assert "uno" in eng.legal_action_names()
    eng.step_names("play RDA")
    assert eng.phase_name() == "multi"
    assert set(eng.legal_action_names()) == {"play GDA", "pass", "uno"}


def test_uno_legal_after_drawing_a_playable_second_card():
    eng = make([["B2"], ["B1"], ["Y3"]], top="G5", pile=["G7"])
    eng.step_names("draw")
    assert set(eng.legal_action_names()) == {"play G7", "pass", "uno"}


def test_uno_called_once_then_play_cannot_be_caught():
    eng = make([["G1", "B2"], ["B1", "B4"], ["Y3"]], top="G5")
    eng.step_names("uno")
    assert current(eng) == 0
    assert "uno" not in eng.legal_action_names()
    assert "play G1" in eng.legal_action_names()
    eng.step_names("play G1")
    assert current(eng) == 1
    assert "catch" not in eng.legal_action_names()


def test_catch_uncalled_uno_offender_draws_two_and_catcher_acts():
    eng = make([["G1", "B2"], ["B1", "B4"], ["Y3"]], top="G5", pile=["R8", "R9", "Y1"])
    eng.step_names("play G1")
    assert current(eng) == 1
    assert "catch" in eng.legal_action_names()
    eng.step_names("catch")
    assert same_cards(eng.hand(0, 0), ["B2", "R8", "R9"])
    assert current(eng) == 1
    assert eng.phase_name() == "turn"
    assert "catch" not in eng.legal_action_names()
    assert "draw" in eng.legal_action_names()


def test_catch_only_before_the_next_player_does_anything_else():
    eng = make([["G1", "B2"], ["G4", "B4", "B5"], ["Y3", "Y4"]], top="G5")
    eng.step_names("play G1")
    eng.step_names("play G4")
    assert current(eng) == 2
    assert "catch" not in eng.legal_action_names()
    assert eng.hand(0, 0) == ["B2"]


def test_catch_available_to_the_next_player_to_act_after_a_skip():
    eng = make([["GS", "B2"], ["G4", "B4"], ["Y3", "Y4"]], top="G5")
    eng.step_names("play GS")
    assert current(eng) == 2
    assert "catch" in eng.legal_action_names()


def test_catch_available_while_responding_to_a_wild_draw_four():
    eng = make([["WD4", "B2"], ["G4", "B4"], ["Y3", "Y4"]], top="G5")
    eng.step_names("play WD4:B")
    assert set(eng.legal_action_names()) == {"draw", "challenge", "catch"}


def test_catch_not_offered_after_the_offender_drew_back_up():
    eng = make([["GS", "B2"], ["G4", "B4"]], top="G5", pile=["Y9"])
    eng.step_names("play GS")  # two players: the offender acts again
    assert current(eng) == 0
    assert "catch" not in eng.legal_action_names()
    eng.step_names("draw")
    assert current(eng) == 1
    assert "catch" not in eng.legal_action_names()


def test_catch_then_catcher_may_still_challenge():
    eng = make([["WD4", "G2"], ["B1", "B4"], ["Y3"]], top="G5",
               pile=["R1", "R2", "R3", "R4", "R5", "R6"])
    eng.step_names("play WD4:B")
    eng.step_names("catch")
    assert len(eng.hand(0, 0)) == 3
    assert set(eng.legal_action_names()) == {"draw", "challenge"}
    eng.step_names("challenge")
    assert len(eng.hand(0, 0)) == 7  # guilty: held G2
    assert current(eng) == 1


def test_going_out_needs_no_call():
    eng = make([["G1"], ["G4", "B4"], ["Y3", "Y4"]], top="G5")
    eng.step_names("play G1")
    assert bool(eng.terminated[0])
    assert int(eng.winner[0]) == 0


@pytest.mark.parametrize("penalty", [1, 4])
def test_uno_penalty_sets_cards_drawn_when_caught(penalty):
    eng = make([["G1", "B2"], ["B1", "B4"], ["Y3"]], top="G5", uno_penalty=penalty)
    eng.step_names("play G1")
    eng.step_names("catch")
    assert len(eng.hand(0, 0)) == 1 + penalty


def test_uno_penalty_zero_call_is_automatic():
    eng = make([["G1", "B2"], ["B1", "B4"], ["Y3"]], top="G5", uno_penalty=0)
    assert "uno" not in eng.legal_action_names()
    eng.step_names("play G1")
    assert current(eng) == 1
    assert "catch" not in eng.legal_action_names()
    assert eng.hand(0, 0) == ["B2"]


# --- 2.8 reshuffle and short draws ----------------------------------------------------------

def test_empty_deck_reshuffles_discards_except_the_top():
    hands = [["R1", "B2"], ["B3"], ["Y3"]]
    discard = rest_of_deck(*hands, "G5")
    eng = make(hands, top="G5", pile=[], discard=discard)
    assert eng.state.deck_len[0] - eng.state.deck_pos[0] == 0
    eng.step_names("draw")
    assert len(eng.hand(0, 0)) == 3
    assert eng.top_card() == "G5"
    assert eng.state.discard[0].sum() == 1
    assert eng.state.deck_len[0] - eng.state.deck_pos[0] == 108 - 4 - 1 - 1
    assert_census(eng)


def test_short_draw_when_every_card_is_in_hands_never_crashes():
    hands = [["GD2", "G1", "G2"], rest_of_deck(["GD2", "G1", "G2", "Y3", "G5"]), ["Y3"]]
    eng = make(hands, top="G5", pile=[])
    before = len(eng.hand(0, 1))
    eng.step_names("play GD2")
    # Only G5 could be reshuffled: one card drawn instead of two; the game goes on.
    assert len(eng.hand(0, 1)) == before + 1
    assert current(eng) == 2
    assert eng.phase_name() == "turn"
    assert_census(eng)
    eng.step_names("draw")  # nothing left to draw at all
    assert eng.hand(0, 2) == ["Y3"]
    assert current(eng) == 0
    assert_census(eng)


# --- 2.9 end of round -------------------------------------------------------------------------

def test_round_ends_at_once_when_a_player_goes_out():
    eng = make([["G1"], ["G4", "B4"], ["Y3", "Y4"]], top="G5")
    rewards, terminated, truncated = eng.step_names("play G1")
    assert terminated.tolist() == [True]
    assert truncated.tolist() == [False]
    assert int(eng.winner[0]) == 0
    assert eng.phase_name() == "over"
    assert eng.legal_action_names() == []
    assert eng.hand(0, 0) == []


def test_pending_draw_two_of_the_winners_last_card_is_drawn_before_scoring():
    eng = make([["GD2"], ["B1"], ["Y3"]], top="G5", pile=["R9", "B9"])
    eng.step_names("play GD2")
    assert bool(eng.terminated[0])
    assert same_cards(eng.hand(0, 1), ["B1", "R9", "B9"])
    assert eng.round_points[0].tolist() == [1 + 9 + 9 + 3, 0, 0]


def test_pending_wild_draw_four_of_the_winners_last_card_is_drawn_before_scoring():
    eng = make([["WD4"], ["B1"], ["Y3"]], top="G5", pile=["R9", "B9", "RS", "W"])
    eng.step_names("play WD4:G")
    assert bool(eng.terminated[0])
    assert same_cards(eng.hand(0, 1), ["B1", "R9", "B9", "RS", "W"])
    assert eng.round_points[0].tolist() == [1 + 9 + 9 + 20 + 50 + 3, 0, 0]


def test_finished_game_ignores_actions():
    eng = make([["G1"], ["G4", "B4"], ["Y3", "Y4"]], top="G5")
    eng.step_names("play G1")
    hands = [eng.hand(0, p) for p in range(3)]
    rewards, terminated, _ = eng.step(np.array([0]))
    assert rewards.tolist() == [[0, 0, 0]]
    assert terminated.tolist() == [True]
    assert [eng.hand(0, p) for p in range(3)] == hands


# --- 2.10 and options: scoring, points, rewards ------------------------------------------------

SCORED = [["G1"], ["R5", "WD4", "GS"], ["B0", "Y9"]]


def finish(scoring: str = "winner_takes_sum", **rules) -> Engine:
    eng = make(SCORED, top="G5", scoring=scoring, **rules)
    eng.last = eng.step_names("play G1")
    return eng


def test_scoring_winner_takes_sum():
    eng = finish()
    assert eng.round_points[0].tolist() == [84, 0, 0]
    assert eng.scores[0].tolist() == [84, 0, 0]


def test_scoring_zero_sum():
    eng = finish("zero_sum")
    assert eng.round_points[0].tolist() == [84, -75, -9]


def test_scoring_card_count():
    eng = finish("card_count")
    assert eng.round_points[0].tolist() == [5, 0, 0]


def test_scoring_none():
    eng = finish("none")
    assert eng.round_points[0].tolist() == [0, 0, 0]
    assert int(eng.winner[0]) == 0


def test_points_house():
    eng = finish(points="house")
    assert eng.round_points[0].tolist() == [5 + 20 + 10 + 0 + 9, 0, 0]


def test_points_house_zero_sum():
    eng = finish("zero_sum", points="house")
    assert eng.round_points[0].tolist() == [44, -35, -9]


def test_reward_win():
    rewards, terminated, _ = finish().last
    np.testing.assert_allclose(rewards, [[1.0, -0.5, -0.5]])
    assert terminated.tolist() == [True]


def test_reward_win_two_players():
    eng = make([["G1"], ["R5"]], top="G5", current=0)
    rewards, _, _ = eng.step_names("play G1")
    np.testing.assert_allclose(rewards, [[1.0, -1.0]])


def test_reward_win_zero_sum_over_players():
    eng = make([["B1"], ["G1"], ["R5"], ["R6"], ["R7"]], top="G5", current=1)
    rewards, _, _ = eng.step_names("play G1")
    np.testing.assert_allclose(rewards, [[-0.25, 1.0, -0.25, -0.25, -0.25]])
    assert abs(rewards.sum()) < 1e-6


def test_reward_points_winner_takes_sum():
    rewards, _, _ = finish(reward="points").last
    np.testing.assert_allclose(rewards, [[84, 0, 0]])


def test_reward_points_zero_sum():
    rewards, _, _ = finish("zero_sum", reward="points").last
    np.testing.assert_allclose(rewards, [[84, -75, -9]])


def test_no_reward_before_the_end():
    eng = make([["G1", "G2"], ["G3", "B2"], ["B3"]], top="G5")
    rewards, terminated, truncated = eng.step_names("uno")
    assert not rewards.any()
    assert not terminated.any() and not truncated.any()


# --- options: first card, first player, dealer --------------------------------------------------

def test_first_card_bury_non_number_flips_until_a_number_without_effects():
    eng = make(FOUR, top=None, pile=["RS", "W", "GD2", "G5"], dealer_seat=1,
               first_card="bury_non_number")
    assert eng.top_card() == "G5"
    assert eng.current_color() == "G"
    assert same_cards(cards_from_counts(eng.state.discard[0]), ["RS", "W", "GD2", "G5"])
    assert current(eng) == 2
    assert eng.phase_name() == "turn"
    assert [len(eng.hand(0, p)) for p in range(4)] == [2, 2, 2, 2]
    assert_census(eng)


def test_first_card_redraw_non_number_returns_it_to_the_deck():
    eng = make(FOUR, top=None, pile=["RS", "W", "GD2"], dealer_seat=1,
               first_card="redraw_non_number")
    top = eng.top_card()
    assert top[1:].isdigit()
    assert eng.state.discard[0].sum() == 1
    assert current(eng) == 2
    assert [len(eng.hand(0, p)) for p in range(4)] == [2, 2, 2, 2]
    assert_census(eng)


def test_first_card_official_lets_non_number_stand():
    eng = make(FOUR, top=None, pile=["RS"], dealer_seat=1)
    assert eng.top_card() == "RS"


@pytest.mark.parametrize("rule", ["bury_non_number", "redraw_non_number"])
def test_first_card_options_always_show_a_number_in_random_deals(rule):
    eng = Engine(Rules(first_card=rule), 200, seed=2)
    assert all(eng.top_card(g)[1:].isdigit() for g in range(200))
    assert (eng.phase == 0).all()
    np.testing.assert_array_equal(eng.current_player, (eng.state.dealer + 1) % 4)
    assert_census(eng)


def test_first_player_dealer_plays_first():
    eng = make(FOUR, top=None, pile=["G5"], dealer_seat=2, first_player="dealer")
    assert current(eng) == 2


def test_first_player_dealer_chooses_color_of_a_first_wild():
    eng = make(FOUR, top=None, pile=["W"], dealer_seat=2, first_player="dealer")
    assert current(eng) == 2
    assert eng.phase_name() == "choose_color"


def test_first_player_dealer_skip_skips_the_dealer():
    eng = make(FOUR, top=None, pile=["GS"], dealer_seat=2, first_player="dealer")
    assert current(eng) == 3


def test_first_player_dealer_in_random_deals():
    eng = Engine(Rules(first_player="dealer", first_card="bury_non_number"), 100, seed=4)
    np.testing.assert_array_equal(eng.current_player, eng.state.dealer)


def play_match_rounds(rules: Rules, games: int, seed: int, max_steps: int = 20000):
    """Random play; returns per game the list of (dealer, previous round's points) by round."""
    eng = Engine(rules, games, seed=seed)
    rng = np.random.default_rng(seed)
    history = [[(int(eng.state.dealer[g]), None)] for g in range(games)]
    played = eng.state.rounds_played.copy()
    for _ in range(max_steps):
        if eng.done.all():
            break
        eng.step(eager_actions(eng, rng))
        for g in np.flatnonzero(eng.state.rounds_played != played):
            if not eng.done[g]:
                history[g].append((int(eng.state.dealer[g]), eng.round_points[g].copy()))
        played = eng.state.rounds_played.copy()
    return eng, history


MATCH = dict(match=True, target_score=10**6, rounds=4, scoring="card_count", max_turns=5000)


def test_dealer_rotate_in_match_play():
    eng, history = play_match_rounds(Rules(num_players=3, dealer="rotate", **MATCH), 6, 21)
    rounds = 0
    for h in history:
        for (before, _), (after, _) in zip(h, h[1:], strict=False):
            assert after == (before + 1) % 3
            rounds += 1
    assert rounds >= 6


def test_dealer_previous_winner_in_match_play():
    eng, history = play_match_rounds(Rules(num_players=3, dealer="previous_winner", **MATCH),
                                     6, 22)
    rounds = 0
    for h in history:
        for dealer, points in h[1:]:
            assert dealer == int(np.argmax(points))
            assert points.max() > 0
            rounds += 1
    assert rounds >= 6


def test_dealer_random_in_match_play():
    eng, history = play_match_rounds(Rules(num_players=3, dealer="random", **MATCH), 40, 23)
    later = [d for h in history for d, _ in h[1:]]
    rotated = [after == (before + 1) % 3 for h in history
               for (before, _), (after, _) in zip(h, h[1:], strict=False)]
    assert set(later) == {0, 1, 2}
    assert not all(rotated)


# --- options: drawing ---------------------------------------------------------------------------

def test_draw_rule_one_then_pass_turn_ends_even_if_playable():
    eng = make([["R1", "B2"], ["B3"], ["B4"]], top="G5", pile=["G7"], draw_rule="one_then_pass")
    eng.step_names("draw")
    assert current(eng) == 1
    assert same_cards(eng.hand(0, 0), ["R1", "B2", "G7"])
    assert eng.top_card() == "G5"


def test_draw_rule_until_playable_may_play():
    eng = make([["R1", "B2"], ["B3"], ["B4"]], top="G5", pile=["Y1", "R2", "G7", "G8"],
               draw_rule="until_playable_may_play")
    eng.step_names("draw")
    assert same_cards(eng.hand(0, 0), ["R1", "B2", "Y1", "R2", "G7"])
    assert eng.phase_name() == "after_draw"
    assert set(eng.legal_action_names()) == {"play G7", "pass"}
    eng.step_names("pass")
    assert current(eng) == 1


def test_draw_rule_until_playable_must_play():
    eng = make([["R1", "B2"], ["B3"], ["B4"]], top="G5", pile=["Y1", "R2", "G7", "G8"],
               draw_rule="until_playable_must_play")
    eng.step_names("draw")
    assert eng.legal_action_names() == ["play G7"]
    eng.step_names("play G7")
    assert eng.top_card() == "G7"
    assert current(eng) == 1


def test_draw_rule_until_playable_stops_when_nothing_is_left():
    hands = [["R1", "B2"], rest_of_deck(["R1", "B2", "B4", "G5", "Y1", "R2"]), ["B4"]]
    eng = make(hands, top="G5", pile=["Y1", "R2"], draw_rule="until_playable_must_play")
    eng.step_names("draw")
    assert same_cards(eng.hand(0, 0), ["R1", "B2", "Y1", "R2"])
    assert current(eng) == 1
    assert_census(eng)


@pytest.mark.parametrize("draw_rule", ["until_playable_may_play", "until_playable_must_play"])
def test_draw_keep_going_draws_on_after_a_playable_card_shows(draw_rule):
    # A drawing-rule page: drawing on from the pile after a playable card shows is fine.
    eng = make([["R1", "B2"], ["B3"], ["B4"]], top="G5", pile=["Y1", "G7", "R5", "G8"],
               draw_rule=draw_rule, draw_keep_going=True)
    eng.step_names("draw")
    assert eng.phase_name() == "after_draw"
    expected = {"play G7", "draw"} | ({"pass"} if draw_rule.endswith("may_play") else set())
    assert set(eng.legal_action_names()) == expected
    eng.step_names("draw")            # draws on to the next playable card, R5
    assert same_cards(eng.hand(0, 0), ["R1", "B2", "Y1", "G7", "R5"])
    assert eng.phase_name() == "after_draw"
    assert "play R5" in eng.legal_action_names()
    assert "play G7" not in eng.legal_action_names()
    eng.step_names("play R5")
    assert eng.top_card() == "R5"
    assert current(eng) == 1


def test_draw_keep_going_off_no_draw_after_a_playable_card():
    eng = make([["R1", "B2"], ["B3"], ["B4"]], top="G5", pile=["Y1", "G7", "R5", "G8"],
               draw_rule="until_playable_may_play")
    eng.step_names("draw")
    assert "draw" not in eng.legal_action_names()


def test_draw_when_playable_false():
    rules = dict(draw_when_playable=False)
    eng = make([["G1", "B2"], ["B3"], ["B4"]], top="G5", **rules)
    assert set(eng.legal_action_names()) == {"play G1", "uno"}
    eng = make([["R1", "B2"], ["B3"], ["B4"]], top="G5", **rules)
    assert eng.legal_action_names() == ["draw"]


def test_play_any_after_draw():
    eng = make([["G1", "B2"], ["B3"], ["B4"]], top="G5", pile=["R9"], play_any_after_draw=True)
    eng.step_names("draw")
    assert eng.phase_name() == "after_draw"
    assert set(eng.legal_action_names()) == {"play G1", "pass"}
    eng.step_names("play G1")
    assert same_cards(eng.hand(0, 0), ["B2", "R9"])
    assert current(eng) == 1


def test_play_any_after_draw_nothing_playable_ends_the_turn():
    eng = make([["R1", "B2"], ["B3"], ["B4"]], top="G5", pile=["Y9"], play_any_after_draw=True)
    eng.step_names("draw")
    assert current(eng) == 1


# --- options: match play, max_turns, auto_forced ------------------------------------------------

def test_match_round_end_deals_a_new_round_and_carries_scores():
    eng = finish(match=True)
    rewards, terminated, truncated = eng.last
    assert terminated.tolist() == [False] and truncated.tolist() == [False]
    assert not rewards.any()
    assert int(eng.winner[0]) == -1
    assert eng.round_points[0].tolist() == [84, 0, 0]
    assert eng.scores[0].tolist() == [84, 0, 0]
    assert int(eng.state.rounds_played[0]) == 1
    assert eng.legal_action_mask()[0].any()
    sizes = eng.hand_sizes[0].tolist()
    assert sorted(sizes) in ([7, 7, 7], [7, 7, 9])
    assert_census(eng)


def test_reward_points_every_round_of_a_match():
    rewards, terminated, _ = finish(match=True, reward="points").last
    assert terminated.tolist() == [False]
    np.testing.assert_allclose(rewards, [[84, 0, 0]])


def test_match_ends_at_target_score():
    eng = finish(match=True, target_score=84)
    rewards, terminated, _ = eng.last
    assert terminated.tolist() == [True]
    assert int(eng.winner[0]) == 0
    np.testing.assert_allclose(rewards, [[1.0, -0.5, -0.5]])


def test_match_ends_after_rounds():
    eng = finish(match=True, rounds=1)
    assert eng.terminated.tolist() == [True]
    assert int(eng.winner[0]) == 0


def test_match_winner_is_the_best_score():
    eng, history = play_match_rounds(
        Rules(num_players=3, match=True, rounds=3, target_score=10**6, max_turns=5000), 8, 31)
    finished = eng.terminated
    assert finished.any()
    for g in np.flatnonzero(finished):
        assert int(eng.state.rounds_played[g]) == 3
        assert int(eng.winner[g]) == int(np.argmax(eng.scores[g]))


def test_official_jp_match_lasts_five_rounds():
    eng, _ = play_match_rounds(Rules.preset("official_jp", num_players=3, match=True,
                                            max_turns=5000), 4, 32)
    for g in np.flatnonzero(eng.terminated):
        assert int(eng.state.rounds_played[g]) == 5
    assert eng.terminated.any()


def test_match_false_episode_is_one_round():
    eng = finish()
    assert int(eng.state.rounds_played[0]) == 1
    assert eng.terminated.tolist() == [True]


def test_round_points_hold_the_last_round_in_match_play():
    eng, history = play_match_rounds(Rules(num_players=3, **MATCH), 4, 33)
    for g, h in enumerate(history):
        totals = sum((p for _, p in h[1:]), np.zeros(3, np.int64))
        last = eng.round_points[g]
        if eng.done[g]:  # the final round is not in the history
            totals = totals + last
        else:
            np.testing.assert_array_equal(h[-1][1], last)
        np.testing.assert_array_equal(eng.scores[g], totals)


def test_max_turns_truncates():
    eng = make([["G1", "G2", "G3"], ["G4", "G6", "G7"], ["G8", "G9", "B1"]], top="G5", max_turns=3)
    for _ in range(2):
        rewards, terminated, truncated = eng.step_names(eng.legal_action_names()[0])
        assert not truncated.any()
    rewards, terminated, truncated = eng.step_names(eng.legal_action_names()[0])
    assert truncated.tolist() == [True]
    assert terminated.tolist() == [False]
    assert not rewards.any()
    assert eng.legal_action_names() == []
    assert int(eng.winner[0]) == -1


def test_max_turns_truncates_random_games():
    eng = Engine(Rules(max_turns=20), 16, seed=8)
    rng = np.random.default_rng(8)
    for _ in range(20):
        eng.step(random_actions(eng, rng))
    assert eng.done.all()
    assert eng.truncated.any()
    assert not (eng.truncated & eng.terminated).any()
    assert (eng.winner[eng.truncated] == -1).all()
    assert (eng.state.turns <= 20).all()
    assert not eng.legal_action_mask().any()


def test_auto_forced_plays_single_option_decisions():
    hands = [["G1", "R2", "R3"], ["B3"], ["B4", "G9"]]
    eng = make(hands, top="G5", pile=["R9"], auto_forced=True)
    eng.step_names("play G1")
    # Player 1's only option (draw) was taken, the drawn R9 does not match: player 2 acts.
    assert same_cards(eng.hand(0, 1), ["B3", "R9"])
    assert current(eng) == 2


def test_without_auto_forced_single_option_is_a_decision():
    hands = [["G1", "R2", "R3"], ["B3"], ["B4", "G9"]]
    eng = make(hands, top="G5", pile=["R9"])
    eng.step_names("play G1")
    assert current(eng) == 1
    assert eng.legal_action_names() == ["draw"]


def test_auto_forced_keeps_real_choices():
    hands = [["G1", "R2", "R3"], ["B3", "G2"], ["B4", "G9"]]
    eng = make(hands, top="G5", auto_forced=True)
    eng.step_names("play G1")
    assert current(eng) == 1


def test_auto_forced_random_games_never_wait_on_single_option():
    eng = Engine(Rules(auto_forced=True, num_players=3), 16, seed=9)
    rng = np.random.default_rng(9)
    for _ in range(100):
        mask = eng.legal_action_mask()
        running = ~eng.done
        assert (mask[running].sum(1) >= 2).all()
        eng.step(random_actions(eng, rng))


def test_auto_forced_applies_to_a_setup_position():
    eng = make([["B2", "B3", "B4"], ["G1", "R1"], ["Y1"]], top="G5", pile=["R9"], auto_forced=True)
    assert current(eng) == 1
    assert "R9" in eng.hand(0, 0)
