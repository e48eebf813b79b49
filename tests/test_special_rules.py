"""Special rules (docs/rules.md 3.8 and section 6, "7-0, special cards", "Reactions:
jump-in and Dobon", "Leaving the round"): 7-0, jump-in, Dobon, the mercy
limit, the No Mercy and swap/shuffle cards, and team play.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
import scenario
from scenario import assert_census, cur, same, size

from uno_env import Engine
from uno_env.cards import counts_from_cards
from uno_env.engine.observe import VIEW_SLICES

#: These scenarios study other rules: the UNO call is automatic (no ``uno``/``catch`` decisions).
make = partial(scenario.make, uno_penalty=0)

#: Every test here runs on each backend.
pytestmark = pytest.mark.usefixtures("each_backend")


def direction(eng: Engine) -> int:
    return int(eng.state.direction[0])


def targets(eng: Engine) -> set[str]:
    return {a for a in eng.legal_action_names() if a.startswith("target:")}


PILE = ["G1", "G2", "G3", "G4", "G6", "G7", "G8", "G9", "Y7", "Y8", "Y9", "B9"]
MERCY = dict(deck="no_mercy168", challenge=False)


# --- 7-0 ----------------------------------------------------------------------------------------

def test_seven_zero_seven_swaps_hands_with_the_chosen_player():
    hands = [["R7", "B1", "B2"], ["Y1"], ["G1", "G2", "G3", "G4"]]
    eng = make(hands, seven_zero=True)
    eng.step_names("play R7")
    assert eng.phase_name() == "choose_target"
    assert cur(eng) == 0
    assert targets(eng) == {"target:1", "target:2"}
    eng.step_names("target:2")
    assert same(eng.hand(0, 0), ["G1", "G2", "G3", "G4"])
    assert same(eng.hand(0, 2), ["B1", "B2"])
    assert eng.hand(0, 1) == ["Y1"]
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"
    assert eng.top_card() == "R7"


def test_seven_zero_target_counts_seats_clockwise_from_the_player():
    hands = [["Y1"], ["R7", "B1", "B2"], ["G1", "G2", "G3", "G4"]]
    eng = make(hands, seven_zero=True, current=1)
    eng.step_names("play R7")
    eng.step_names("target:2")  # two seats clockwise from seat 1: seat 0
    assert eng.hand(0, 1) == ["Y1"]
    assert same(eng.hand(0, 0), ["B1", "B2"])
    assert cur(eng) == 2


def test_seven_zero_off_seven_is_a_plain_number():
    eng = make([["R7", "B1", "B2"], ["Y1"], ["G1", "G2"]])
    eng.step_names("play R7")
    assert eng.phase_name() == "turn"
    assert cur(eng) == 1
    assert same(eng.hand(0, 0), ["B1", "B2"])


@pytest.mark.parametrize("d", [1, -1])
def test_seven_zero_zero_passes_every_hand_in_the_current_direction(d):
    hands = [["R0", "B1", "B2"], ["Y1"], ["G1", "G2", "G3"], ["Y5", "Y6", "Y7", "Y8"]]
    eng = make(hands, seven_zero=True, direction=d)
    eng.step_names("play R0")
    before = [["B1", "B2"], ["Y1"], ["G1", "G2", "G3"], ["Y5", "Y6", "Y7", "Y8"]]
    for p in range(4):
        assert same(eng.hand(0, (p + d) % 4), before[p])
    assert cur(eng) == d % 4
    assert eng.phase_name() == "turn"


def test_seven_zero_going_out_with_a_seven_does_not_swap():
    eng = make([["R7"], ["Y1", "Y2"], ["G1", "G2"]], seven_zero=True)
    _, terminated, _ = eng.step_names("play R7")
    assert terminated[0]
    assert int(eng.winner[0]) == 0
    assert eng.hand(0, 0) == []


@pytest.mark.parametrize("end", ["first_out", "last_standing"])
def test_seven_zero_going_out_with_a_zero_passes_no_hands(end):
    eng = make([["R0"], ["Y1", "Y2"], ["G1", "G2", "G3"]], seven_zero=True, end=end)
    eng.step_names("play R0")
    assert eng.hand(0, 0) == []
    assert same(eng.hand(0, 1), ["Y1", "Y2"])
    assert same(eng.hand(0, 2), ["G1", "G2", "G3"])
    if end == "first_out":
        assert eng.round_points[0].tolist() == [3 + 6, 0, 0]
    else:
        assert cur(eng) == 1 and not eng.done[0]


# --- skip_answers_skip --------------------------------------------------------------------------

SKIP_HANDS = [["RS", "R1", "R2"], ["BS", "B1", "B2"], ["Y1", "Y2"], ["G1", "G2"]]


def test_skip_answers_skip_the_skipped_player_passes_the_skip_on():
    # The Japanese article: laying a card of the same kind pushes its effect on to the
    # next player.
    eng = make(SKIP_HANDS, skip_answers_skip=True)
    eng.step_names("play RS")
    assert cur(eng) == 1
    assert eng.phase_name() == "respond" and eng.pending_draw[0] == 0
    assert set(eng.legal_action_names()) == {"play BS", "pass"}
    eng.step_names("play BS")
    assert cur(eng) == 3                 # player 2, skipped, holds no Skip
    assert eng.phase_name() == "turn"
    assert eng.top_card() == "BS"


def test_skip_answers_skip_declined_the_skipped_player_loses_the_turn():
    eng = make(SKIP_HANDS, skip_answers_skip=True)
    eng.step_names("play RS")
    eng.step_names("pass")
    assert cur(eng) == 2
    assert same(eng.hand(0, 1), ["BS", "B1", "B2"])


def test_skip_answers_skip_goes_back_and_forth_with_two_players():
    eng = make([["RS", "GS", "R1"], ["BS", "B1"]], skip_answers_skip=True)
    eng.step_names("play RS")
    eng.step_names("play BS")
    assert cur(eng) == 0 and eng.phase_name() == "respond"
    assert set(eng.legal_action_names()) == {"play GS", "pass"}
    eng.step_names("play GS")
    assert cur(eng) == 0 and eng.phase_name() == "turn"   # player 1 holds no Skip


def test_skip_answers_skip_off_the_skip_is_not_answered():
    eng = make(SKIP_HANDS)
    eng.step_names("play RS")
    assert cur(eng) == 2 and eng.phase_name() == "turn"


# --- zero_open ----------------------------------------------------------------------------------

def shown(eng: Engine, observer: int, seat: int) -> list[str]:
    """The cards ``observer``'s observation says ``seat`` showed and still holds."""
    from uno_env.cards import card_name
    from uno_env.engine.observe import seat_view

    offset = (seat - observer) % eng.num_players
    row = seat_view(eng.observe(np.array([observer])), "shown_hands")[0, offset - 1]
    return [card_name(k) for k in np.flatnonzero(row) for _ in range(int(row[k]))]


def test_zero_open_a_zero_shows_the_hand_left_to_every_other_player():
    """Source 000: the player of a 0 shows every other player its whole hand at that moment."""
    eng = make([["R0", "R5", "B2", "B7"], ["R1", "R2"], ["Y1", "Y2"]], zero_open=True)
    assert shown(eng, 1, 0) == [] and shown(eng, 2, 0) == []
    eng.step_names("play R0")
    for observer in (1, 2):
        assert same(shown(eng, observer, 0), ["R5", "B2", "B7"])
        assert shown(eng, observer, 3 - observer) == []   # nobody else showed anything
    assert shown(eng, 0, 1) == [] and shown(eng, 0, 2) == []


def test_zero_open_shown_cards_stay_shown_until_they_leave_the_hand():
    eng = make([["R0", "R5", "B2", "B7"], ["R1", "R2", "R4"]], pile=["G7", "G8"],
               zero_open=True)
    eng.step_names("play R0")
    eng.step_names("play R1")
    eng.step_names("draw")                       # G7: drawn, not shown
    if eng.phase_name() == "after_draw":
        eng.step_names("pass")
    eng.step_names("play R2")
    assert same(shown(eng, 1, 0), ["R5", "B2", "B7"])
    eng.step_names("play R5")                    # a shown card leaves
    assert same(eng.hand(0, 0), ["B2", "B7", "G7"])
    assert same(shown(eng, 1, 0), ["B2", "B7"])


def test_zero_open_off_nothing_is_shown():
    eng = make([["R0", "R5", "B2"], ["R1", "R2"]])
    eng.step_names("play R0")
    assert shown(eng, 1, 0) == []


def test_zero_open_with_seven_zero_the_shown_hand_passes_with_the_hand():
    eng = make([["R0", "B1", "B2"], ["Y1"], ["G1", "G2", "G3"]], zero_open=True,
               seven_zero=True)
    eng.step_names("play R0")
    assert same(eng.hand(0, 1), ["B1", "B2"])
    assert same(shown(eng, 2, 1), ["B1", "B2"])   # the table saw those cards go to seat 1
    assert shown(eng, 2, 0) == []


def test_zero_open_multi_card_play_shows_what_the_play_leaves():
    eng = make([["R0", "G0", "B5", "Y5"], ["R1", "R2"]], zero_open=True,
               multi_play="same_number")
    eng.step_names("play R0")
    assert eng.phase_name() == "multi"
    eng.step_names("play G0")
    assert same(shown(eng, 1, 0), ["B5", "Y5"])


def test_zero_open_a_new_round_shows_nothing():
    eng = make([["R0", "R5"], ["R1", "R2", "R4"]], zero_open=True, match=True)
    eng.step_names("play R0")
    assert same(shown(eng, 1, 0), ["R5"])
    eng.step_names("play R1")
    eng.step_names("play R5")                    # seat 0 goes out: the next round starts
    assert int(eng.state.rounds_played[0]) == 1
    assert not eng.state.shown.any()


# --- jump-in ------------------------------------------------------------------------------------

JUMP = [["R5", "B1", "B2"], ["Y1", "Y2"], ["R5", "G1", "G2"], ["G3", "G4"]]


def test_jump_in_offered_out_of_turn_to_the_holder_of_the_identical_card():
    eng = make(JUMP, jump_in=True)
    eng.step_names("play R5")
    assert eng.phase_name() == "react"
    assert cur(eng) == 2
    assert set(eng.legal_action_names()) == {"play R5", "pass"}


def test_jump_in_accepted_play_continues_from_the_jumper():
    eng = make(JUMP, jump_in=True)
    eng.step_names("play R5")
    eng.step_names("play R5")
    assert same(eng.hand(0, 2), ["G1", "G2"])
    assert eng.top_card() == "R5"
    assert cur(eng) == 3
    assert eng.phase_name() == "turn"
    assert same(eng.hand(0, 1), ["Y1", "Y2"])


def test_jump_in_declined_play_goes_on_normally():
    eng = make(JUMP, jump_in=True)
    eng.step_names("play R5")
    eng.step_names("pass")
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"
    assert same(eng.hand(0, 2), ["R5", "G1", "G2"])


def test_jump_in_off_no_offer():
    eng = make(JUMP)
    eng.step_names("play R5")
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"


def test_jump_in_offered_in_turn_order_from_the_player_who_played():
    hands = [["RS", "B1", "B2"], ["Y1", "Y2"], ["RS", "G1", "G2"], ["RS", "G3", "G4"]]
    eng = make(hands, jump_in=True, **MERCY)
    eng.step_names("play RS")
    assert cur(eng) == 2
    eng.step_names("pass")
    assert cur(eng) == 3
    assert eng.phase_name() == "react"
    eng.step_names("pass")
    # Nobody jumped: player 0's Skip skips player 1.
    assert cur(eng) == 2
    assert eng.phase_name() == "turn"


def test_jump_in_jumper_skip_replaces_the_jumped_skip():
    hands = [["RS", "B1", "B2"], ["Y1", "Y2"], ["RS", "G1", "G2"], ["RS", "G3", "G4"]]
    eng = make(hands, jump_in=True, **MERCY)
    eng.step_names("play RS")
    eng.step_names("play RS")
    # Player 3 may jump on player 2's Skip in turn.
    assert cur(eng) == 3
    assert eng.phase_name() == "react"
    eng.step_names("pass")
    assert cur(eng) == 0
    assert eng.phase_name() == "turn"


# --- Dobon --------------------------------------------------------------------------------------

def test_dobon_offered_when_the_hand_totals_the_card_in_house_points():
    hands = [["R5", "B7", "Y1"], ["Y3", "Y4"], ["R2", "B3"]]
    eng = make(hands, dobon=True)
    eng.step_names("play R5")
    assert eng.phase_name() == "react"
    assert cur(eng) == 2
    assert set(eng.legal_action_names()) == {"dobon", "pass"}


def test_dobon_immediate_win_card_back_to_its_player_penalty_doubled():
    hands = [["R5", "B7", "Y1"], ["Y3", "Y4"], ["R2", "B3"]]
    eng = make(hands, dobon=True, points="house")
    eng.step_names("play R5")
    _, terminated, _ = eng.step_names("dobon")
    assert terminated[0]
    assert int(eng.winner[0]) == 2
    assert same(eng.hand(0, 0), ["R5", "B7", "Y1"])
    # Player 0's hand (5 + 7 + 1) counts double; player 1 holds 7.
    assert eng.round_points[0].tolist() == [0, 0, 2 * 13 + 7]
    assert_census(eng)


def test_dobon_doubled_penalty_zero_sum_house_points():
    hands = [["R5", "BS", "W"], ["Y3", "Y4"], ["R2", "B3"]]
    eng = make(hands, dobon=True, points="house", scoring="zero_sum")
    eng.step_names("play R5")
    eng.step_names("dobon")
    # house points: R5 5, BS 10, W 20 -> 35, doubled 70; player 1: 7
    assert eng.round_points[0].tolist() == [-70, -7, 77]


def test_dobon_uses_house_points_whatever_the_scoring_table():
    # A Skip is worth 10 house points (20 standard): R7 + Y3 = 10 may declare on it.
    hands = [["RS", "B7", "Y1"], ["Y4", "Y5"], ["R7", "Y3"]]
    eng = make(hands, dobon=True)
    eng.step_names("play RS")
    assert eng.phase_name() == "react"
    assert cur(eng) == 2
    assert "dobon" in eng.legal_action_names()


def test_dobon_offered_in_turn_order_and_may_be_declined():
    hands = [["R5", "B7", "Y1"], ["Y1", "Y4"], ["R2", "B3"]]
    eng = make(hands, dobon=True)
    eng.step_names("play R5")
    assert cur(eng) == 1
    eng.step_names("pass")
    assert cur(eng) == 2
    assert eng.phase_name() == "react"
    eng.step_names("pass")
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"
    assert eng.top_card() == "R5"
    assert same(eng.hand(0, 0), ["B7", "Y1"])


def test_dobon_not_allowed_with_a_single_card():
    eng = make([["R5", "B7", "Y1"], ["Y3", "Y4"], ["G5"]], dobon=True)
    eng.step_names("play R5")
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"


def test_dobon_not_allowed_with_only_draw_two_reverse_skip_cards():
    eng = make([["W", "B7", "Y1"], ["Y3", "Y4"], ["RS", "BR"]], dobon=True)
    eng.step_names("play W:B")
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"
    eng = make([["W", "B7", "Y1"], ["Y3", "Y4"], ["RS", "B9", "Y1"]], dobon=True)
    eng.step_names("play W:B")
    assert cur(eng) == 2
    assert eng.phase_name() == "react"
    assert "dobon" in eng.legal_action_names()


def test_dobon_on_a_card_that_went_out():
    eng = make([["R5"], ["Y3", "Y4"], ["R2", "B3"]], dobon=True)
    eng.step_names("play R5")
    assert eng.phase_name() == "react"
    eng.step_names("dobon")
    assert int(eng.winner[0]) == 2
    assert eng.hand(0, 0) == ["R5"]
    assert eng.round_points[0].tolist() == [0, 0, 2 * 5 + 7]


DOBON_LAST_STANDING = dict(preset="house_dobon", end="last_standing")


@pytest.mark.parametrize(("options", "rewards", "points"), [
    (dict(reward="rank", scoring="rank"), [-1.0, 1.0, 0.0], [0, 2, 1]),
    (dict(reward="win"), [-0.5, 1.0, -0.5], None),
])
def test_dobon_under_last_standing_gives_every_seat_its_place(options, rewards, points):
    hands = [["G5", "R1", "R7"], ["G2", "B3"], ["Y9", "Y8", "B1"]]
    eng = make(hands, top="G1", **DOBON_LAST_STANDING, **options)
    eng.step_names("play G5")
    got, terminated, _ = eng.step_names("dobon")
    assert terminated[0]
    # The declarer first, the player whose card it answered last, the other between.
    assert eng.state.place[0].tolist() == [2, 0, 1]
    assert int(eng.winner[0]) == 1
    assert got[0].tolist() == rewards
    if points is not None:
        assert eng.round_points[0].tolist() == points


def test_dobon_under_last_standing_the_others_share_the_places_between():
    hands = [["G5", "R1", "R7"], ["G2", "B3"], ["Y9", "Y8", "B1"], ["Y1", "Y2", "B4"]]
    eng = make(hands, top="G1", **DOBON_LAST_STANDING, scoring="rank", reward="rank")
    eng.step_names("play G5")
    got, _, _ = eng.step_names("dobon")
    assert eng.state.place[0].tolist() == [3, 0, 1, 1]
    assert got[0].tolist() == [-1.0, 1.0, 0.0, 0.0]
    assert eng.round_points[0].tolist() == [0, 3, 1, 1]   # places 1 and 2 shared, rounded down


def test_dobon_off_no_offer():
    eng = make([["R5", "B7", "Y1"], ["Y3", "Y4"], ["R2", "B3"]])
    eng.step_names("play R5")
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"


# --- mercy limit --------------------------------------------------------------------------------

NINE = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9"]


def test_mercy_limit_player_reaching_it_is_eliminated_cards_under_the_pile():
    hands = [["RD2", "R1", "R2"], NINE, ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=PILE, mercy_limit=10)
    pile_before = int(eng.state.deck_len[0] - eng.state.deck_pos[0])
    eng.step_names("play RD2")
    s = eng.state
    assert eng.hand(0, 1) == []
    assert not s.active[0, 1]
    assert s.active[0, 0] and s.active[0, 2]
    assert int(s.place[0, 1]) == 2
    # The eleven cards went under the pile: the next draws still come from its top.
    assert int(s.deck_len[0] - s.deck_pos[0]) == pile_before - 2 + 11
    assert_census(eng)
    assert cur(eng) == 2
    assert not eng.done[0]
    # Play goes on without the eliminated player.
    eng.step_names("draw")  # G3 does not match the red Draw Two: the turn ends
    assert same(eng.hand(0, 2), ["Y1", "Y2", "Y3", "G3"])
    assert cur(eng) == 0


def test_mercy_limit_eliminated_player_is_skipped_afterwards():
    hands = [["RD2", "R1", "R2"], NINE, ["R4", "Y2", "Y3"]]
    eng = make(hands, pile=PILE, mercy_limit=10)
    eng.step_names("play RD2")
    eng.step_names("play R4")  # red on the red Draw Two
    assert cur(eng) == 0
    eng.step_names("play R1")
    assert cur(eng) == 2


def test_mercy_limit_last_player_left_wins_the_round():
    hands = [["RD2", "R1", "R2"], NINE]
    eng = make(hands, pile=PILE, mercy_limit=10)
    _, terminated, _ = eng.step_names("play RD2")
    assert terminated[0]
    assert int(eng.winner[0]) == 0
    assert_census(eng)


def test_mercy_limit_off_no_elimination():
    hands = [["RD2", "R1", "R2"], NINE, ["Y1", "Y2", "Y3"]]
    eng = make(hands, pile=PILE)
    eng.step_names("play RD2")
    assert size(eng, 1) == 11
    assert eng.state.active[0].all()


# --- Wild Swap Hands, Wild Shuffle Hands --------------------------------------------------------

def test_wild_swap_hands_player_chooses_a_target_and_swaps():
    hands = [["WSH", "R1", "R2"], ["Y1"], ["G1", "G2", "G3"]]
    eng = make(hands, deck="classic112_swap")
    eng.step_names("play WSH:B")
    assert eng.phase_name() == "choose_target"
    assert targets(eng) == {"target:1", "target:2"}
    eng.step_names("target:1")
    assert eng.hand(0, 0) == ["Y1"]
    assert same(eng.hand(0, 1), ["R1", "R2"])
    assert eng.current_color() == "B"
    assert eng.top_card() == "WSH"
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"


def test_wild_shuffle_hands_deals_all_hands_from_the_players_left():
    hands = [["WSF", "R1", "R2"], ["Y1", "Y2", "Y3"], ["G1", "G2", "G3"]]
    eng = make(hands, deck="classic112_shuffle")
    eng.step_names("play WSF:G")
    # Eight cards dealt one by one from seat 1: seats 1 and 2 get three, seat 0 two.
    assert [size(eng, p) for p in range(3)] == [2, 3, 3]
    pooled = eng.hand(0, 0) + eng.hand(0, 1) + eng.hand(0, 2)
    assert same(pooled, ["R1", "R2", "Y1", "Y2", "Y3", "G1", "G2", "G3"])
    assert eng.current_color() == "G"
    assert cur(eng) == 1
    assert_census(eng)


def test_wild_customizable_plays_as_a_plain_wild():
    eng = make([["WCU", "R1", "R2"], ["Y1"], ["G1", "G2"]], deck="classic112_swap")
    eng.step_names("play WCU:Y")
    assert eng.current_color() == "Y"
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"


# --- No Mercy cards -----------------------------------------------------------------------------

def test_skip_everyone_the_same_player_plays_again():
    eng = make([["RSE", "R1", "R2"], ["Y1"], ["G1", "G2"]], **MERCY)
    eng.step_names("play RSE")
    assert cur(eng) == 0
    assert eng.phase_name() == "turn"
    assert eng.top_card() == "RSE"


def test_discard_all_discards_every_card_of_its_color():
    eng = make([["RDA", "R1", "R9", "B3"], ["Y1"], ["G1", "G2"]], **MERCY)
    before = eng.state.discard[0].copy()
    eng.step_names("play RDA")
    assert eng.hand(0, 0) == ["B3"]
    assert eng.top_card() == "RDA"
    added = eng.state.discard[0] - before
    np.testing.assert_array_equal(added, counts_from_cards(["RDA", "R1", "R9"]))
    assert cur(eng) == 1
    assert_census(eng)


def test_wild_reverse_draw_four_reverses_then_the_new_next_player_draws_four():
    hands = [["WRD4", "R1", "R2"], ["Y1"], ["G1", "G2"], ["B1", "B2"]]
    eng = make(hands, pile=PILE, **MERCY)
    eng.step_names("play WRD4:G")
    assert direction(eng) == -1
    assert same(eng.hand(0, 3), ["B1", "B2"] + PILE[:4])
    assert eng.hand(0, 1) == ["Y1"]
    assert cur(eng) == 2
    assert eng.current_color() == "G"


@pytest.mark.parametrize("card,n", [("WD6", 6), ("WD10", 10)])
def test_wild_draw_six_and_ten_next_player_draws_and_loses_turn(card, n):
    hands = [[card, "R1", "R2"], ["Y1"], ["G1", "G2"]]
    eng = make(hands, pile=PILE, **MERCY)
    eng.step_names(f"play {card}:B")
    assert same(eng.hand(0, 1), ["Y1"] + PILE[:n])
    assert cur(eng) == 2
    assert eng.current_color() == "B"
    assert eng.phase_name() == "turn"


# --- team play ----------------------------------------------------------------------------------

TEAM_HANDS = [["R5", "B1"], ["Y1", "Y2"], ["R7"], ["G1", "G9"]]


def test_teams_partner_hand_in_the_observation():
    eng = make(TEAM_HANDS, teams=True)
    view = VIEW_SLICES["partner_hand"]
    for p in range(4):
        obs = eng.observe(players=p)[0, view]
        np.testing.assert_array_equal(obs, counts_from_cards(TEAM_HANDS[(p + 2) % 4]))


def test_no_teams_partner_hand_view_is_empty():
    eng = make(TEAM_HANDS)
    assert not eng.observe(players=0)[0, VIEW_SLICES["partner_hand"]].any()


def test_teams_a_team_wins_when_either_partner_goes_out():
    eng = make(TEAM_HANDS, teams=True, current=2, top="R3")
    rewards, terminated, _ = eng.step_names("play R7")
    assert terminated[0]
    assert int(eng.winner[0]) == 2
    assert rewards[0].tolist() == [1.0, -1.0, 1.0, -1.0]


def test_jump_in_not_offered_on_a_card_that_went_out():
    eng = make([["R5"], ["Y1", "Y2"], ["R5", "G1"], ["G3"]], jump_in=True)
    _, terminated, _ = eng.step_names("play R5")
    assert terminated[0]
    assert int(eng.winner[0]) == 0


def test_jump_in_jumper_going_out_wins():
    eng = make([["R5", "B1"], ["Y1", "Y2"], ["R5"], ["G3"]], jump_in=True)
    eng.step_names("play R5")
    _, terminated, _ = eng.step_names("play R5")
    assert terminated[0]
    assert int(eng.winner[0]) == 2


def test_seven_zero_target_only_players_still_in():
    eng = make([["R1"], ["R7", "B1", "B2"], ["Y1", "Y2"]], seven_zero=True,
               end="last_standing")
    eng.step_names("play R1")
    eng.step_names("play R7")
    assert targets(eng) == {"target:1"}


def test_seven_zero_zero_passes_hands_among_players_still_in():
    hands = [["R1"], ["R0", "B1", "B2"], ["Y1", "Y2", "Y3"], ["G1", "G2", "G3", "G4"]]
    eng = make(hands, seven_zero=True, end="last_standing")
    eng.step_names("play R1")
    eng.step_names("play R0")
    assert eng.hand(0, 0) == []
    assert same(eng.hand(0, 2), ["B1", "B2"])
    assert same(eng.hand(0, 3), ["Y1", "Y2", "Y3"])
    assert same(eng.hand(0, 1), ["G1", "G2", "G3", "G4"])
    assert cur(eng) == 2


def test_wild_shuffle_hands_deals_among_players_still_in():
    hands = [["R1"], ["WSF", "B1", "B2"], ["Y1", "Y2", "Y3"], ["G1", "G2", "G3"]]
    eng = make(hands, deck="classic112_shuffle", end="last_standing")
    eng.step_names("play R1")
    eng.step_names("play WSF:B")
    assert [size(eng, p) for p in range(4)] == [0, 2, 3, 3]
    assert cur(eng) == 2
