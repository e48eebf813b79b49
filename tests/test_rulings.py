"""Rulings on points a close reading of the sources settled (docs/rules.md, "Decisions"):
jump-in cancels the jumped card, the Wild Reverse Draw Four with two players, who
chooses the Wild Color Roulette's color, the UNO catch window, going out on several
cards, effects adding up in ``draw_return``, rounds ending with no pending draw,
places kept through truncation, team results, the Federation's Wild Draw Four and
drawing, the Japanese match of five rounds, No Mercy ending on the first player out,
and a multi-card play that ends by itself.
"""

from __future__ import annotations

import numpy as np
import pytest
from scenario import assert_census, cur, eager_actions, make, same, size

from uno_env import PRESETS, Engine, Rules
from uno_env.actions import NUM_PLAY_ACTIONS
from uno_env.engine.observe import VIEW_SLICES

#: Every test here runs on each backend.
pytestmark = pytest.mark.usefixtures("each_backend")

PILE = ["G1", "G2", "G3", "G4", "G6", "G7", "G8", "G9", "Y7", "Y8", "Y9", "B9"]
MERCY = dict(deck="no_mercy168", challenge=False)
NO_CALL = dict(uno_penalty=0)


def direction(eng: Engine) -> int:
    return int(eng.state.direction[0])


# --- jump-in cancels the card it jumps on --------------------------------------------------------

def test_jump_in_reverse_on_reverse_flips_once_from_the_jumper():
    hands = [["RR", "B1", "B2"], ["Y1", "Y2"], ["G1", "G2"], ["RR", "G3", "G4"]]
    eng = make(hands, top="R3", preset="computer", **NO_CALL)
    eng.step_names("play RR")
    assert (cur(eng), eng.phase_name()) == (3, "react")
    eng.step_names("play RR")
    assert direction(eng) == -1
    assert (cur(eng), eng.phase_name()) == (2, "turn")


def test_jump_in_skip_on_skip_skips_the_player_after_the_jumper_once():
    hands = [["RS", "B1", "B2"], ["Y1", "Y2"], ["RS", "G1", "G2"], ["G3", "G4"]]
    eng = make(hands, jump_in=True)
    eng.step_names("play RS")
    eng.step_names("play RS")
    assert (cur(eng), eng.phase_name()) == (0, "turn")
    assert direction(eng) == 1


def test_jump_in_draw_two_without_stacking_the_next_player_draws_two():
    hands = [["RD2", "B1", "B2"], ["Y1", "Y2"], ["RD2", "G1", "G2"], ["G3", "G4"]]
    eng = make(hands, pile=PILE, jump_in=True)
    eng.step_names("play RD2")
    eng.step_names("play RD2")
    assert same(eng.hand(0, 3), ["G3", "G4"] + PILE[:2])
    assert same(eng.hand(0, 1), ["Y1", "Y2"])
    assert (cur(eng), eng.phase_name()) == (0, "turn")
    assert eng.pending_draw[0] == 0


def test_jump_in_draw_two_with_stacking_the_draws_add_up():
    hands = [["RD2", "B1", "B2"], ["Y1", "Y2"], ["RD2", "G1", "G2"], ["G3", "G4"]]
    eng = make(hands, pile=PILE, jump_in=True, stack_draw2_on_draw2=True)
    eng.step_names("play RD2")
    eng.step_names("play RD2")
    assert same(eng.hand(0, 3), ["G3", "G4"] + PILE[:4])
    assert (cur(eng), eng.phase_name()) == (0, "turn")


# --- Wild Reverse Draw Four with two players -----------------------------------------------------

def test_wild_reverse_draw_four_with_two_players_hits_its_own_player():
    eng = make([["WRD4", "R1", "R2"], ["Y1", "Y2"]], top="R3", pile=PILE,
               preset="no_mercy", **NO_CALL)
    eng.step_names("play WRD4:G")
    assert same(eng.hand(0, 0), ["R1", "R2"] + PILE[:4])
    assert size(eng, 1) == 2
    assert (cur(eng), eng.phase_name()) == (1, "turn")
    assert eng.current_color() == "G"
    assert eng.pending_draw[0] == 0


def test_wild_reverse_draw_four_with_two_players_left_in_last_standing():
    hands = [["R5"], ["WRD4", "Y1", "Y2"], ["G1", "G2"]]
    eng = make(hands, pile=PILE, end="last_standing", **MERCY)
    eng.step_names("play R5")            # player 0 goes out: two players are left
    assert cur(eng) == 1
    eng.step_names("play WRD4:B")
    assert same(eng.hand(0, 1), ["Y1", "Y2"] + PILE[:4])
    assert same(eng.hand(0, 2), ["G1", "G2"])
    assert (cur(eng), eng.phase_name()) == (2, "turn")


def test_wild_reverse_draw_four_answering_with_two_players_sends_the_stack_back():
    hands = [["RD2", "R1", "R2"], ["WRD4", "Y1", "Y2"]]
    eng = make(hands, pile=PILE, stack_by_value=True, **MERCY)
    eng.step_names("play RD2")
    eng.step_names("play WRD4:B")
    assert same(eng.hand(0, 0), ["R1", "R2"] + PILE[:6])
    assert (cur(eng), eng.phase_name()) == (1, "turn")


# --- Wild Color Roulette -------------------------------------------------------------------------

ROULETTE = dict(hands=[["WCR", "R1", "R2"], ["Y1"], ["G1", "G2"]],
                pile=["R4", "Y2", "WD6", "B3", "B4"])


def test_wild_color_roulette_the_player_chooses_the_color_by_default():
    assert Rules().roulette_color == "player"
    eng = make(ROULETTE["hands"], pile=ROULETTE["pile"], **MERCY)
    eng.step_names("play WCR:B")
    assert same(eng.hand(0, 1), ["Y1", "R4", "Y2", "WD6", "B3"])
    assert (cur(eng), eng.phase_name()) == (2, "turn")
    assert eng.current_color() == "B"


def test_wild_color_roulette_victim_option_the_next_player_chooses():
    eng = make(ROULETTE["hands"], pile=ROULETTE["pile"], roulette_color="victim", **MERCY)
    eng.step_names("play WCR:R")
    assert (cur(eng), eng.phase_name()) == (1, "choose_color")
    eng.step_names("color:B")
    assert same(eng.hand(0, 1), ["Y1", "R4", "Y2", "WD6", "B3"])
    assert (cur(eng), eng.phase_name()) == (2, "turn")
    assert eng.current_color() == "R"


def test_roulette_color_rejects_other_values():
    with pytest.raises(ValueError, match="roulette_color"):
        Rules(roulette_color="dealer")


# --- the UNO catch window -----------------------------------------------------------------------

def test_victim_of_a_draw_two_may_catch_before_drawing_even_without_an_answer():
    eng = make([["RD2", "R1"], ["Y1", "Y2"], ["G1", "G2"]], pile=PILE, uno_penalty=2)
    eng.step_names("play RD2")           # no UNO call: player 0 holds one card
    assert (cur(eng), eng.phase_name()) == (1, "respond")
    assert set(eng.legal_action_names()) == {"draw", "catch"}
    eng.step_names("catch")
    assert same(eng.hand(0, 0), ["R1"] + PILE[:2])
    assert eng.legal_action_names() == ["draw"]
    eng.step_names("draw")
    assert same(eng.hand(0, 1), ["Y1", "Y2"] + PILE[2:4])
    assert cur(eng) == 2


def test_once_the_victim_has_drawn_the_window_is_closed():
    eng = make([["RD2", "R1"], ["Y1", "Y2"], ["G1", "G2"]], pile=PILE, uno_penalty=2)
    eng.step_names("play RD2")
    eng.step_names("draw")
    assert cur(eng) == 2
    assert "catch" not in eng.legal_action_names()


def test_a_declined_jump_in_does_not_close_the_window():
    hands = [["R5", "B1"], ["Y1", "Y2"], ["R5", "G1"], ["G3", "G4"]]
    eng = make(hands, jump_in=True, uno_penalty=2)
    eng.step_names("play R5")            # no call; player 2 may jump in
    assert (cur(eng), eng.phase_name()) == (2, "react")
    eng.step_names("pass")
    assert (cur(eng), eng.phase_name()) == (1, "turn")
    assert "catch" in eng.legal_action_names()


def test_the_window_closes_when_the_next_card_is_played():
    eng = make([["R5", "B1"], ["R6", "Y2", "Y3"], ["G1", "G2"]], uno_penalty=2)
    eng.step_names("play R5")
    assert "catch" in eng.legal_action_names()
    eng.step_names("play R6")
    assert cur(eng) == 2
    assert "catch" not in eng.legal_action_names()


def test_the_window_stays_open_through_an_uno_call_of_another_player():
    eng = make([["R5", "B1"], ["R6", "Y2"], ["G1", "G2"]], uno_penalty=2)
    eng.step_names("play R5")
    eng.step_names("uno")                # player 1 calls before their own play
    assert "catch" in eng.legal_action_names()


# --- going out on several cards needs the call ---------------------------------------------------

def test_uno_to_finish_without_the_call_only_one_card_is_laid():
    assert Rules.preset("draw_return").uno_to_finish
    eng = make([["R5", "R5"], ["Y1", "Y2"], ["G1", "G2"]], top="R3", preset="draw_return")
    eng.step_names("play R5")            # one card left, no call: the play ends here
    assert (cur(eng), eng.phase_name()) == (1, "turn")
    assert eng.hand(0, 0) == ["R5"]


def test_uno_to_finish_with_the_call_a_multi_card_play_may_empty_the_hand():
    eng = make([["R5", "R5"], ["Y1", "Y2"], ["G1", "G2"]], top="R3", preset="draw_return")
    assert "uno" in eng.legal_action_names()   # a group would leave no card: legal
    eng.step_names("uno")
    eng.step_names("play R5")
    assert eng.phase_name() == "multi"
    _, terminated, _ = eng.step_names("play R5")
    assert terminated[0]
    assert int(eng.winner[0]) == 0


def test_uno_to_finish_off_a_multi_card_play_may_empty_the_hand_without_the_call():
    eng = make([["R5", "R5"], ["Y1", "Y2"], ["G1", "G2"]], top="R3",
               preset="draw_return", uno_to_finish=False)
    eng.step_names("play R5")
    assert eng.phase_name() == "multi"
    _, terminated, _ = eng.step_names("play R5")
    assert terminated[0]


# --- draw_return: laid together, draw effects add ------------------------------------------------

def test_draw_return_two_draw_twos_laid_together_make_four():
    assert Rules.preset("draw_return").multi_effects_add
    hands = [["RD2", "RD2", "B1", "B2"], ["Y1", "Y2"], ["G1", "G2"]]
    eng = make(hands, top="R3", pile=PILE, preset="draw_return", **NO_CALL)
    eng.step_names("play RD2")
    eng.step_names("play RD2")
    assert same(eng.hand(0, 1), ["Y1", "Y2"] + PILE[:4])
    assert cur(eng) == 2


def test_draw_return_an_identical_pair_answering_a_draw_two_adds_four():
    hands = [["GD2", "B1", "B2"], ["RD2", "RD2", "Y1"], ["G1", "G2"]]
    eng = make(hands, top="G3", pile=PILE, preset="draw_return", **NO_CALL)
    eng.step_names("play GD2")
    assert (cur(eng), eng.phase_name()) == (1, "respond")
    eng.step_names("play RD2")
    eng.step_names("play RD2")
    assert same(eng.hand(0, 2), ["G1", "G2"] + PILE[:6])
    assert cur(eng) == 0


# --- a round ends with no pending draw ------------------------------------------------------------

def test_a_round_ended_by_dobon_leaves_no_pending_draw():
    hands = [["RD2", "B1", "B2"], ["GD2", "Y1", "Y2"], ["G4", "G6"], ["B3", "B5"]]
    eng = make(hands, top="R3", pile=PILE, preset="house_dobon", **NO_CALL)
    eng.step_names("play RD2")
    assert (cur(eng), eng.phase_name()) == (2, "react")
    eng.step_names("pass")               # player 2 declines the first chance
    assert (cur(eng), eng.phase_name(), int(eng.pending_draw[0])) == (1, "respond", 2)
    eng.step_names("play GD2")
    assert (cur(eng), eng.phase_name()) == (2, "react")
    _, terminated, _ = eng.step_names("dobon")
    assert terminated[0]
    assert eng.pending_draw[0] == 0
    assert eng.observe(players=0)[0, VIEW_SLICES["pending_draw"]].tolist() == [0.0]
    assert int(eng.state.turn_draw[0]) == 0


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_no_round_ends_with_a_pending_draw(preset):
    eng = Engine(Rules.preset(preset, num_players=4 if preset == "teams" else 3,
                              max_turns=120), 8, seed=5)
    rng = np.random.default_rng(5)
    ended = 0
    for _ in range(120):
        eng.step(eager_actions(eng, rng))
        over = eng.terminated
        assert not eng.pending_draw[over].any()
        ended += int(over.sum())
        eng.reset(games=np.flatnonzero(eng.done))
    assert ended > 0


# --- places are kept through truncation -----------------------------------------------------------

def cut_after_going_out(**options) -> tuple[Engine, np.ndarray]:
    """Player 0 goes out first, then the round is cut by max_turns (3 decisions)."""
    hands = [["R5"], ["Y1", "Y2", "Y3"], ["G1", "G2", "G3"]]
    eng = make(hands, pile=PILE, end="last_standing", max_turns=3, **options)
    total = np.zeros(3, np.float32)
    for name in ("play R5", "draw", "draw"):
        rewards, _, truncated = eng.step_names(name)
        total += rewards[0]
    assert truncated[0] and eng.done[0]
    return eng, total


def test_truncated_last_standing_the_first_out_keeps_the_win():
    eng, total = cut_after_going_out()
    assert total.tolist() == [1.0, -0.5, -0.5]
    assert int(eng.winner[0]) == 0


def test_truncated_last_standing_players_still_in_share_the_remaining_places():
    eng, total = cut_after_going_out(scoring="rank", reward="rank")
    assert total.tolist() == [1.0, -0.5, -0.5]
    assert eng.state.place[0].tolist() == [0, 1, 1]
    assert eng.round_points[0].tolist() == [2, 0, 0]   # places 1 and 2 share 1 point


def test_truncated_last_standing_without_anyone_out_gives_nothing():
    hands = [["R5", "R6"], ["Y1", "Y2", "Y3"], ["G1", "G2", "G3"]]
    eng = make(hands, pile=PILE, end="last_standing", max_turns=2)
    total = sum(eng.step_names("draw")[0][0] for _ in range(2))
    assert eng.truncated[0]
    assert total.tolist() == [0.0, 0.0, 0.0]


# --- team results are visible ---------------------------------------------------------------------

def test_side_won_counts_the_partner_in_team_play():
    teams, solo = Rules.preset("teams"), Rules()
    assert [bool(teams.side_won(2, seat)) for seat in range(4)] == [True, False, True, False]
    assert [bool(solo.side_won(2, seat)) for seat in range(4)] == [False, False, True, False]
    assert not teams.side_won(-1, 0)
    np.testing.assert_array_equal(teams.side_won(np.array([1, 0, -1]), np.array([3, 3, 1])),
                                  [True, False, False])


def eager(mask, rng) -> int:
    """A random legal action, a card play whenever one is legal (short games)."""
    legal = np.flatnonzero(mask)
    plays = legal[legal < NUM_PLAY_ACTIONS]
    return int(rng.choice(plays if plays.size else legal))


def play_out(step, mask_of, rng, limit=3000):
    """Eager legal actions until ``step`` reports the end; returns its last result."""
    for _ in range(limit):
        result = step(eager(mask_of(), rng))
        if result is not None:
            return result
    raise AssertionError("the episode did not end")


def test_team_results_in_the_pettingzoo_infos():
    from uno_env import raw_env

    aec = raw_env("teams", 4)
    aec.reset(seed=3)
    rng = np.random.default_rng(3)

    def step(action):
        aec.step(action)
        done = any(aec.terminations.values()) or any(aec.truncations.values())
        return aec.infos if done else None

    infos = play_out(step, lambda: aec.observe(aec.agent_selection)["action_mask"], rng)
    winner = int(infos["player_0"]["winner"].split("_")[1])
    assert [infos[f"player_{p}"]["team_won"] for p in range(4)] == [
        p % 2 == winner % 2 for p in range(4)]


def test_team_results_in_the_gymnasium_and_vector_infos():
    from uno_env.envs.gym_env import UnoEnv
    from uno_env.envs.vector import UnoVecEnv, UnoVectorEnv

    env = UnoEnv(preset="teams", learner_seat=1)
    env.reset(seed=4)
    rng = np.random.default_rng(4)

    def step(action):
        _, _, terminated, truncated, info = env.step(action)
        return info if terminated or truncated else None

    info = play_out(step, env.action_masks, rng)
    assert info["team_won"] == (info["winner"] % 2 == 1)
    assert info["learner_won"] == (info["winner"] == 1)

    venv = UnoVecEnv(num_envs=2, preset="teams", learner_seat=0, seed=5)
    venv.reset()
    vector = UnoVectorEnv(num_envs=2, preset="teams", learner_seat=0, seed=5)
    vector.reset()
    for _ in range(3000):
        actions = np.array([eager(m, rng) for m in venv.action_masks()])
        _, _, dones, infos = venv.step(actions)
        _, _, terminated, truncated, vinfos = vector.step(actions)   # the same games
        if dones.any():
            g = int(np.flatnonzero(dones)[0])
            assert infos[g]["team_won"] == (infos[g]["winner"] % 2 == 0)
            final = vinfos["final_info"]
            assert final["team_won"][g] == infos[g]["team_won"]
            return
    raise AssertionError("no episode ended")


# --- the Federation keeps the base rules' Wild Draw Four ------------------------------------------

FED_PILE = ["B7", "B8", "B9", "Y9", "Y8", "Y7", "B6", "Y6", "B5", "Y5"]


def test_federation_guilty_bluff_is_retracted_and_a_hidden_card_played():
    # The base rules the Federation transcribes: a caught offender takes the Wild Draw
    # Four back with 4 cards and must play a matching card other than it.
    hands = [["WD4", "G2", "R7"], ["B1", "B2"], ["Y3", "Y4"]]
    eng = make(hands, top="G5", pile=FED_PILE, preset="federation")
    eng.step_names("play WD4:R")
    assert (cur(eng), eng.phase_name()) == (1, "respond")
    assert "challenge" in eng.legal_action_names()
    eng.step_names("challenge")
    assert (cur(eng), eng.phase_name()) == (0, "forced_play")
    assert same(eng.hand(0, 0), ["WD4", "G2", "R7"] + FED_PILE[:4])
    assert (eng.top_card(), eng.current_color()) == ("G5", "G")
    assert eng.legal_action_names() == ["play G2"]
    eng.step_names("play G2")
    assert (eng.top_card(), cur(eng), eng.phase_name()) == ("G2", 1, "turn")
    assert same(eng.hand(0, 1), ["B1", "B2"])


def test_federation_innocent_challenger_draws_six_and_loses_the_turn():
    hands = [["WD4", "R7"], ["B1", "B2"], ["Y3", "Y4"]]
    eng = make(hands, top="G5", pile=FED_PILE, preset="federation")
    eng.step_names("play WD4:R")
    eng.step_names("challenge")
    assert same(eng.hand(0, 1), ["B1", "B2"] + FED_PILE[:6])
    assert (cur(eng), eng.phase_name(), eng.current_color()) == (2, "turn", "R")


def test_federation_wild_draw_four_answering_a_draw_is_never_challengeable():
    # "この時にWild Draw Fourカードが出された場合でもチャレンジができない"
    hands = [["RD2", "R1", "R2"], ["WD4", "B1", "B2"], ["GD2", "Y3", "Y4"]]
    eng = make(hands, top="R3", pile=FED_PILE, preset="federation")
    eng.step_names("play RD2")
    assert (cur(eng), eng.phase_name()) == (1, "respond")
    assert "challenge" not in eng.legal_action_names()
    eng.step_names("play WD4:G")
    assert (cur(eng), eng.phase_name(), int(eng.pending_draw[0])) == (2, "respond", 6)
    assert set(eng.legal_action_names()) == {"play GD2", "draw"}


def test_federation_wild_draw_fours_laid_together_are_all_retracted():
    hands = [["WD4", "WD4", "G2", "R7"], ["B1", "B2"], ["Y3", "Y4"]]
    eng = make(hands, top="G5", pile=FED_PILE, preset="federation")
    eng.step_names("play WD4:R")
    assert eng.phase_name() == "multi"
    eng.step_names("play WD4:B")         # no third one: the play ends by itself
    assert (cur(eng), eng.phase_name(), int(eng.pending_draw[0])) == (1, "respond", 8)
    eng.step_names("challenge")
    assert same(eng.hand(0, 0), ["WD4", "WD4", "G2", "R7"] + FED_PILE[:8])
    assert eng.legal_action_names() == ["play G2"]
    eng.step_names("play G2")
    assert (eng.top_card(), cur(eng)) == ("G2", 1)
    assert_census(eng)


# --- the Federation draws until a playable card, and may draw on ----------------------------------

def test_federation_draws_until_playable_then_may_draw_on_or_play_any_card():
    # "出せるカードが出るまで山札から何枚でも取る (場に出せるカードが出ても山札から
    # 取り続けても問題はない)"; then any card held before may be played.
    eng = make([["G1", "B2"], ["B3", "B4"], ["Y4", "Y5"]], top="G5",
               pile=["Y3", "G7", "R5", "G8"], preset="federation")
    assert "draw" in eng.legal_action_names()   # drawing with a playable card in hand
    eng.step_names("draw")
    assert same(eng.hand(0, 0), ["G1", "B2", "Y3", "G7"])
    assert set(eng.legal_action_names()) == {"play G1", "play G7", "draw", "pass"}
    eng.step_names("draw")                        # draws on to the next playable card
    assert same(eng.hand(0, 0), ["G1", "B2", "Y3", "G7", "R5"])
    assert set(eng.legal_action_names()) == {"play G1", "play G7", "play R5", "draw", "pass"}
    eng.step_names("play G1")
    assert (eng.top_card(), cur(eng)) == ("G1", 1)


# --- the Japanese match counts rounds -----------------------------------------------------------

def test_official_jp_match_goes_on_past_500_points_to_its_fifth_round():
    # "日本ルールは回数制 (説明書では5ラウンド)": no points target.
    hands = [["G1"], ["WD4"] * 4 + ["W"] * 4,
             ["RS", "RS", "RR", "RR", "RD2", "RD2", "YS", "YS", "YR", "YR"]]
    eng = make(hands, top="G5", preset="official_jp", match=True)
    _, terminated, _ = eng.step_names("play G1")
    assert eng.scores[0].tolist() == [600, -400, -200]
    assert not terminated[0]
    assert int(eng.state.rounds_played[0]) == 1
    rng = np.random.default_rng(3)
    while not eng.done[0]:
        eng.step(eager_actions(eng, rng))
    assert int(eng.state.rounds_played[0]) == 5


# --- No Mercy ends on the first player out ------------------------------------------------------

#: 23 cards without a draw card: two more reach No Mercy's mercy limit of 25.
BIG_HAND = [f"{c}{n}" for c in "BY" for n in range(10) for _ in range(2)][:23]
GREEN_PILE = ["G1", "G2", "G3", "G4"]


def test_no_mercy_round_ends_when_a_player_goes_out_after_an_elimination():
    hands = [["RD2", "R1", "R2"], BIG_HAND, ["R7"]]
    eng = make(hands, top="R5", pile=GREEN_PILE, preset="no_mercy", **NO_CALL)
    eng.step_names("play RD2")           # player 1 draws 2, reaches 25 cards and is out
    assert not eng.state.active[0, 1] and eng.hand(0, 1) == []
    assert (cur(eng), eng.phase_name(), bool(eng.done[0])) == (2, "turn", False)
    _, terminated, _ = eng.step_names("play R7")   # the first out ends the round
    assert terminated[0]
    assert int(eng.winner[0]) == 2
    assert same(eng.hand(0, 0), ["R1", "R2"])
    assert eng.round_points[0].tolist() == [0, 0, 3]   # scored as the official rules


def test_no_mercy_the_only_player_left_wins():
    eng = make([["RD2", "R1", "R2"], BIG_HAND], top="R5", pile=GREEN_PILE,
               preset="no_mercy", **NO_CALL)
    _, terminated, _ = eng.step_names("play RD2")
    assert terminated[0]
    assert int(eng.winner[0]) == 0
    assert_census(eng)


# --- a multi-card play ends by itself -----------------------------------------------------------

def test_federation_play_ends_by_itself_when_the_only_follower_would_finish_on_an_action():
    # RD2 GD2: after RD2 the GD2 may not be the last card (finish_on_action), so nothing
    # may be added and the player is not asked to pass.
    eng = make([["RD2", "GD2"], ["B1", "B2"], ["Y3", "Y4"]], top="R3", pile=PILE,
               preset="federation")
    eng.step_names("uno")
    eng.step_names("play RD2")
    assert same(eng.hand(0, 0), ["GD2"])
    assert same(eng.hand(0, 1), ["B1", "B2"] + PILE[:2])   # no answer: drawn at once
    assert (cur(eng), eng.phase_name()) == (2, "turn")


def test_federation_play_goes_on_while_a_card_may_follow():
    eng = make([["RD2", "GD2", "B1"], ["B2", "B3"], ["Y3", "Y4"]], top="R3", pile=PILE,
               preset="federation")
    eng.step_names("play RD2")
    assert (cur(eng), eng.phase_name()) == (0, "multi")
    assert set(eng.legal_action_names()) == {"play GD2", "pass", "uno"}
