"""Going out, the end of a round, scoring, matches and rewards (docs/rules.md 3.7,
3.9, 3.10 and section 6, "Leaving the round, end and scoring", "Rewards").
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
import scenario
from scenario import cur, eager_actions, same

from uno_env import Engine, Rules

#: These scenarios study other rules: the UNO call is automatic (no ``uno``/``catch`` decisions).
make = partial(scenario.make, uno_penalty=0)

#: Every test here runs on each backend.
pytestmark = pytest.mark.usefixtures("each_backend")

PILE = ["G1", "G2", "G3", "G4", "G6", "G7", "G8", "G9", "Y7", "Y8", "Y9", "B9"]


# --- finish_on_action ---------------------------------------------------------------------------

@pytest.mark.parametrize("last", ["RS", "RD2", "RR"])
def test_finish_on_action_allowed_action_card_may_win(last):
    eng = make([[last], ["Y1", "Y2"], ["G1", "G2"]], pile=PILE)
    assert f"play {last}" in eng.legal_action_names()
    _, terminated, _ = eng.step_names(f"play {last}")
    assert terminated[0]
    assert int(eng.winner[0]) == 0


def test_finish_on_action_allowed_wild_may_win():
    eng = make([["W"], ["Y1", "Y2"], ["G1", "G2"]])
    _, terminated, _ = eng.step_names("play W:G")
    assert terminated[0]
    assert int(eng.winner[0]) == 0


@pytest.mark.parametrize("option,n", [("forbidden_draw1", 1), ("forbidden_draw2", 2)])
@pytest.mark.parametrize("last", ["RS", "RD2", "W"])
def test_finish_on_action_forbidden_last_action_card_draws_instead(option, n, last):
    eng = make([[last], ["Y1", "Y2"], ["G1", "G2"]], pile=PILE, finish_on_action=option)
    assert eng.legal_action_names() == ["draw"]
    eng.step_names("draw")
    assert same(eng.hand(0, 0), [last] + PILE[:n])
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"
    assert not eng.done[0]


@pytest.mark.parametrize("option", ["forbidden_draw1", "forbidden_draw2"])
def test_finish_on_action_forbidden_number_card_may_win(option):
    eng = make([["R5"], ["Y1", "Y2"], ["G1", "G2"]], finish_on_action=option)
    _, terminated, _ = eng.step_names("play R5")
    assert terminated[0]
    assert int(eng.winner[0]) == 0


def test_finish_on_action_forbidden_unplayable_last_card_draws_normally():
    eng = make([["BS"], ["Y1", "Y2"], ["G1", "G2"]], pile=["R9"],
               finish_on_action="forbidden_draw2")
    eng.step_names("draw")
    assert same(eng.hand(0, 0), ["BS", "R9"])
    assert eng.phase_name() == "after_draw"
    assert "play R9" in eng.legal_action_names()


def test_finish_on_action_forbidden_multi_card_play_of_numbers_may_win():
    eng = make([["R5", "B5"], ["Y1", "Y2"], ["G1", "G2"]], finish_on_action="forbidden_draw1",
               multi_play="same_number")
    eng.step_names("play R5")
    assert "play B5" in eng.legal_action_names()
    _, terminated, _ = eng.step_names("play B5")
    assert terminated[0]
    assert int(eng.winner[0]) == 0


def test_finish_on_action_forbidden_multi_card_play_may_not_end_on_an_action():
    eng = make([["RS", "BS"], ["Y1", "Y2"], ["G1", "G2"]], finish_on_action="forbidden_draw1",
               multi_play="same_kind")
    eng.step_names("play RS")
    assert "play BS" not in eng.legal_action_names()


# --- last_standing ------------------------------------------------------------------------------

LAST = [["R1"], ["R2"], ["G9", "G8"]]


def test_last_standing_players_leave_as_they_go_out_and_play_goes_on():
    eng = make(LAST, end="last_standing")
    _, terminated, _ = eng.step_names("play R1")
    assert not terminated[0]
    s = eng.state
    assert s.place[0].tolist() == [0, -1, -1]
    assert s.active[0].tolist() == [False, True, True]
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"


def test_last_standing_finishing_order_and_rank_scoring():
    eng = make(LAST, end="last_standing", scoring="rank")
    eng.step_names("play R1")
    _, terminated, _ = eng.step_names("play R2")
    assert terminated[0]
    assert eng.state.place[0].tolist() == [0, 1, 2]
    assert int(eng.winner[0]) == 0
    assert eng.round_points[0].tolist() == [2, 1, 0]


def test_last_standing_reward_rank():
    eng = make(LAST, end="last_standing", scoring="rank", reward="rank")
    r1, _, _ = eng.step_names("play R1")
    assert not r1.any()
    rewards, _, _ = eng.step_names("play R2")
    assert rewards[0].tolist() == [1.0, 0.0, -1.0]


def test_last_standing_skips_players_who_are_out():
    hands = [["R1"], ["Y1", "Y2"], ["Y5", "G8"], ["Y6", "G2"]]
    eng = make(hands, end="last_standing")
    eng.step_names("play R1")
    eng.step_names("play Y1")
    eng.step_names("play Y5")
    assert cur(eng) == 3
    eng.step_names("play Y6")
    assert cur(eng) == 1
    assert eng.phase_name() == "turn"


def test_last_standing_going_out_on_a_draw_card_target_draws_next_plays():
    hands = [["RD2"], ["Y1", "Y2"], ["G1", "G2"]]
    eng = make(hands, pile=PILE, end="last_standing")
    eng.step_names("play RD2")
    assert same(eng.hand(0, 1), ["Y1", "Y2", "G1", "G2"])
    assert cur(eng) == 2
    assert int(eng.state.place[0, 0]) == 0


def test_last_standing_with_mercy_elimination_gets_the_last_place():
    nine = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9"]
    hands = [["RD2", "R1"], nine, ["R4", "G8"]]
    eng = make(hands, pile=PILE, end="last_standing", scoring="rank", mercy_limit=10)
    eng.step_names("play RD2")
    assert int(eng.state.place[0, 1]) == 2
    eng.step_names("play R4")
    _, terminated, _ = eng.step_names("play R1")
    assert terminated[0]
    assert eng.state.place[0].tolist() == [0, 2, 1]
    assert eng.round_points[0].tolist() == [2, 0, 1]


# --- scoring and points tables ------------------------------------------------------------------

SCORED = [["R1"], ["RS", "W", "B7"], ["WD4", "Y2"]]


@pytest.mark.parametrize("scoring,points,expected", [
    ("winner_takes_sum", "standard", [129, 0, 0]),
    ("winner_takes_sum", "house", [59, 0, 0]),
    ("zero_sum", "standard", [129, -77, -52]),
    ("zero_sum", "house", [59, -37, -22]),
    ("card_count", "standard", [5, 0, 0]),
    ("card_count", "house", [5, 0, 0]),
    ("none", "standard", [0, 0, 0]),
])
def test_scoring_tables_single_round(scoring, points, expected):
    eng = make(SCORED, scoring=scoring, points=points)
    _, terminated, _ = eng.step_names("play R1")
    assert terminated[0]
    assert int(eng.winner[0]) == 0
    assert eng.round_points[0].tolist() == expected
    assert eng.scores[0].tolist() == expected


@pytest.mark.parametrize("deck,cards,value", [
    ("classic112_swap", ["WSH", "WCU"], 80),
    ("classic112_shuffle", ["WSF"], 40),
    ("no_mercy168", ["RD4", "BSE", "GDA"], 60),
    ("no_mercy168", ["WRD4", "WD6", "WD10", "WCR"], 200),
])
def test_points_standard_special_cards(deck, cards, value):
    eng = make([["R1"], cards, ["Y2"]], deck=deck, challenge=False)
    eng.step_names("play R1")
    assert eng.round_points[0].tolist() == [value + 2, 0, 0]


def test_points_house_every_wild_twenty_colored_actions_ten():
    eng = make([["R1"], ["RD4", "BSE", "GDA", "YS"], ["WRD4", "WD10", "Y2"]],
               deck="no_mercy168", challenge=False, points="house")
    eng.step_names("play R1")
    assert eng.round_points[0].tolist() == [40 + 42, 0, 0]


def test_reward_points_gives_the_round_points():
    eng = make(SCORED, scoring="zero_sum", reward="points")
    rewards, _, _ = eng.step_names("play R1")
    assert rewards[0].tolist() == [129, -77, -52]


def test_reward_win_winner_plus_one_others_share_minus_one():
    eng = make(SCORED)
    rewards, _, _ = eng.step_names("play R1")
    np.testing.assert_allclose(rewards[0], [1.0, -0.5, -0.5])


# --- feed_penalty -------------------------------------------------------------------------------

FEED = [["R5", "B1", "B2"], ["R7"], ["Y1", "Y2"]]


def test_feed_penalty_player_whose_card_the_winner_answered_pays():
    eng = make(FEED, feed_penalty=20)
    eng.step_names("play R5")
    _, terminated, _ = eng.step_names("play R7")
    assert terminated[0]
    assert eng.round_points[0].tolist() == [-20, 3 + 3 + 20, 0]


def test_feed_penalty_zero_sum():
    eng = make(FEED, feed_penalty=20, scoring="zero_sum")
    eng.step_names("play R5")
    eng.step_names("play R7")
    assert eng.round_points[0].tolist() == [-3 - 20, 6 + 20, -3]


def test_feed_penalty_not_paid_on_the_first_card_of_the_deal():
    eng = make([["R7"], ["Y1", "Y2"], ["G1"]], feed_penalty=20)
    eng.step_names("play R7")
    assert eng.round_points[0].tolist() == [4, 0, 0]


def test_feed_penalty_paid_by_the_last_card_of_a_stack_answered():
    hands = [["RD2", "B1", "B2"], ["BD2"], ["Y1", "Y2"]]
    eng = make(hands, pile=PILE, feed_penalty=20, stack_draw2_on_draw2=True)
    eng.step_names("play RD2")
    eng.step_names("play BD2")
    # Player 2 draws the total of four first (G1 G2 G3 G4 = 10).
    assert eng.round_points[0].tolist() == [-20, 3 + 3 + 10 + 20, 0]


def test_feed_penalty_not_paid_after_a_dobon():
    hands = [["R5", "B7", "Y1"], ["Y3", "Y4"], ["R2", "B3"]]
    eng = make(hands, dobon=True, points="house", feed_penalty=20)
    eng.step_names("play R5")
    eng.step_names("dobon")
    assert eng.round_points[0].tolist() == [0, 0, 2 * 13 + 7]


# --- teams --------------------------------------------------------------------------------------

TEAM_HANDS = [["R5", "B1"], ["Y1", "Y2"], ["R7"], ["G1", "G9"]]


def test_teams_scoring_partner_hand_does_not_count():
    eng = make(TEAM_HANDS, teams=True, current=2)
    eng.step_names("play R7")
    assert eng.round_points[0].tolist() == [0, 0, 3 + 10, 0]


def test_teams_zero_sum_scoring_and_team_rewards():
    eng = make(TEAM_HANDS, teams=True, current=2, scoring="zero_sum")
    rewards, _, _ = eng.step_names("play R7")
    assert eng.round_points[0].tolist() == [0, -3, 13, -10]
    assert rewards[0].tolist() == [1.0, -1.0, 1.0, -1.0]


# --- matches ------------------------------------------------------------------------------------

def test_match_ends_when_a_score_reaches_the_target():
    eng = make(SCORED, match=True, target_score=100)
    rewards, terminated, _ = eng.step_names("play R1")
    assert terminated[0]
    assert int(eng.winner[0]) == 0
    assert eng.scores[0].tolist() == [129, 0, 0]
    np.testing.assert_allclose(rewards[0], [1.0, -0.5, -0.5])


def test_match_below_the_target_deals_a_new_round_keeping_the_scores():
    eng = make(SCORED, match=True, target_score=500, dealer="previous_winner")
    rewards, terminated, _ = eng.step_names("play R1")
    assert not terminated[0]
    assert not rewards.any()
    assert eng.round_points[0].tolist() == [129, 0, 0]
    assert eng.scores[0].tolist() == [129, 0, 0]
    assert int(eng.state.rounds_played[0]) == 1
    assert int(eng.state.dealer[0]) == 0
    assert int(eng.winner[0]) == -1
    assert eng.hand_sizes[0].sum() >= 21


def test_match_dealer_rotates():
    eng = make(SCORED, match=True, dealer="rotate", current=0)
    dealer = int(eng.state.dealer[0])
    eng.step_names("play R1")
    assert int(eng.state.dealer[0]) == (dealer + 1) % 3


@pytest.mark.parametrize("scoring,points", [("winner_takes_sum", "standard"),
                                            ("zero_sum", "house"), ("card_count", "standard"),
                                            ("none", "standard")])
def test_match_rounds_limit_scores_add_up(scoring, points):
    rules = Rules(num_players=3, match=True, rounds=2, scoring=scoring, points=points,
                  max_turns=400)
    eng = Engine(rules, 4, seed=7)
    rng = np.random.default_rng(7)
    totals = np.zeros((4, 3), np.int64)
    played = eng.state.rounds_played.copy()
    for _ in range(2000):
        if eng.done.all():
            break
        eng.step(eager_actions(eng, rng))
        new = eng.state.rounds_played != played
        totals[new] += eng.round_points[new]
        played = eng.state.rounds_played.copy()
    assert eng.done.all()
    ended = eng.terminated
    assert ended.any()
    assert (eng.state.rounds_played[ended] == 2).all()
    np.testing.assert_array_equal(eng.scores[ended], totals[ended])
    for g in np.flatnonzero(ended):
        assert int(eng.winner[g]) == int(np.argmax(eng.scores[g]))


def test_last_standing_winner_takes_sum_first_out_scores_the_last_hand():
    eng = make(LAST, end="last_standing")
    eng.step_names("play R1")
    _, terminated, _ = eng.step_names("play R2")
    assert terminated[0]
    assert int(eng.winner[0]) == 0
    assert eng.round_points[0].tolist() == [17, 0, 0]


# --- draw_return scoring ------------------------------------------------------------------------

@pytest.mark.parametrize(("winner", "fixed", "expected"), [
    ("zero_sum", -20, [19, -12, -7]),
    ("zero", -20, [0, -12, -7]),
    ("fixed", -20, [20, -12, -7]),
    ("fixed", -50, [50, -12, -7]),
])
def test_draw_return_losers_are_charged_their_own_hands_and_the_winner_per_option(
        winner, fixed, expected):
    # The draw-return page: card points as usual, lower is better; the winner scores 0,
    # a fixed minus (-20 or -50), or minus the losers' total. round_points has the
    # opposite sign (higher is better).
    eng = make([["R1"], ["R5", "B7"], ["Y3", "Y4"]], top="R3", preset="draw_return",
               draw_return_winner=winner, draw_return_winner_points=fixed)
    _, terminated, _ = eng.step_names("play R1")
    assert terminated[0]
    assert eng.round_points[0].tolist() == expected


def test_draw_return_is_not_winner_takes_sum():
    rules = Rules.preset("draw_return")
    assert (rules.scoring, rules.draw_return_winner) == ("zero_sum", "zero_sum")
