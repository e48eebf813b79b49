"""Possible worlds for search: what the player knows is kept, the unseen cards are re-dealt."""

from __future__ import annotations

import numpy as np
import pytest
from scenario import WORLD_CASES, hidden_cards, random_positions, redeal_hidden

from uno_env import Engine, Rules
from uno_env.actions import ACTION_ID
from uno_env.cards import IS_WILD, KIND_COLOR, KIND_ID
from uno_env.engine.search import sample_worlds
from uno_env.engine.state import FORCED_PLAY
from uno_env.engine.worlds import (
    belief_deal,
    drew_on_weights,
    public_state,
    unseen_cards,
)


@pytest.mark.parametrize("weight", [1.0, 0.2])    # uniform deal, belief deal
@pytest.mark.parametrize(("preset", "players"), WORLD_CASES)
def test_worlds_keep_the_observation_and_redeal_exactly_the_unseen_cards(
        preset: str, players: int, weight: float) -> None:
    eng = random_positions(preset, players)
    rng = np.random.default_rng(1)
    for game in np.flatnonzero(~eng.state.done)[:6]:
        seat = int(eng.state.current[game])
        worlds = sample_worlds(eng, game, seat, 12, rng, drew_on_weight=weight)
        seen = eng.observe(players=seat, games=[game])
        np.testing.assert_array_equal(worlds.observe(players=seat), np.repeat(seen, 12, 0))
        np.testing.assert_array_equal(worlds.legal_action_mask(),
                                      np.repeat(eng.legal_action_mask([game]), 12, 0))
        np.testing.assert_array_equal(               # card conservation in every world
            worlds.census(), np.broadcast_to(eng.deck_composition(), worlds.census().shape))
        unseen = hidden_cards(eng, game, seat)
        pub = public_state(eng.rules, eng.state, game, seat)
        np.testing.assert_array_equal(unseen_cards(eng.rules, pub), unseen)
        for w in range(12):
            np.testing.assert_array_equal(hidden_cards(worlds, w, seat), unseen)
            np.testing.assert_array_equal(worlds.state.hand_size[w], eng.state.hand_size[game])
        # the worlds differ: the hidden cards really are dealt at random
        if unseen.sum() > 8:
            assert len({worlds.state.hands[w].tobytes() for w in range(12)}) > 1


@pytest.mark.parametrize("weight", [1.0, 0.2])
def test_worlds_read_only_the_public_game(weight: float) -> None:
    """Re-dealing the opponents' hands and the pile (public facts kept) changes no world."""
    eng = random_positions("official", 4, games=8)
    game = int(np.flatnonzero(~eng.state.done)[0])
    seat = int(eng.state.current[game])
    before = sample_worlds(eng, game, seat, 8, np.random.default_rng(3), weight).state
    hands = eng.state.hands[game].copy()
    redeal_hidden(eng, game, seat, np.random.default_rng(9))
    assert not np.array_equal(hands, eng.state.hands[game])
    after = sample_worlds(eng, game, seat, 8, np.random.default_rng(3), weight).state
    np.testing.assert_array_equal(before.hands, after.hands)
    np.testing.assert_array_equal(before.deck, after.deck)


def test_worlds_do_not_reveal_the_hand_a_retracted_wild_draw_four_was_played_from() -> None:
    """Under retraction the engine keeps the offender's hand of the moment it played the
    Wild Draw Four; the challenger's worlds take it from each world's dealt hand."""
    eng = Engine.from_setup(Rules.preset("official_jp", num_players=3),
                            hands=[["WD4", "G2", "R7"], ["B1", "B2"], ["Y3", "Y4"]], top="G5",
                            current=0)
    eng.step_names("play WD4:R")
    assert eng.state.hidden[0].any()
    pub = public_state(eng.rules, eng.state, 0, 1)
    assert not pub.hidden.any()
    worlds = sample_worlds(eng, 0, 1, 16, np.random.default_rng(4))
    np.testing.assert_array_equal(worlds.state.hidden, worlds.state.hands[:, 0] > 0)
    worlds.step(np.full(16, ACTION_ID["challenge"]))
    forced = worlds.state.phase == FORCED_PLAY
    assert forced.any()
    assert worlds.legal_action_mask()[forced].any(axis=1).all()


@pytest.mark.parametrize("weight", [1.0, 0.2])
def test_worlds_keep_the_cards_a_zero_showed(weight: float) -> None:
    """zero_open: the cards a player showed on a 0 are in its hand in every world; only
    its other cards are dealt at random."""
    rules = Rules(num_players=3, zero_open=True, uno_penalty=0)
    eng = Engine.from_setup(rules, hands=[["R0", "B2", "B7", "G4"], ["R1", "Y2", "Y3"],
                                          ["G1", "G2", "Y9", "B4"]], top="R5", current=0)
    eng.step_names("play R0")
    eng.step_names("draw")          # seat 1 holds no red and no 0: it draws a hidden card
    if eng.phase_name() == "after_draw":
        eng.step_names("pass")
    seat = int(eng.state.current[0])
    shown = eng.state.shown[0].copy()
    assert shown[0].sum() == 3 and shown[1:].sum() == 0
    worlds = sample_worlds(eng, 0, seat, 16, np.random.default_rng(5), drew_on_weight=weight)
    np.testing.assert_array_equal(worlds.state.shown, np.repeat(shown[None], 16, 0))
    assert (worlds.state.hands[:, 0] >= shown[0]).all()
    np.testing.assert_array_equal(worlds.state.hand_size[:, 0], eng.state.hand_size[0, 0])
    np.testing.assert_array_equal(worlds.observe(players=seat),
                                  np.repeat(eng.observe(players=seat, games=[0]), 16, 0))
    np.testing.assert_array_equal(
        worlds.census(), np.broadcast_to(eng.deck_composition(), worlds.census().shape))


def test_worlds_need_the_acting_player_of_a_running_game() -> None:
    eng = Engine(Rules(num_players=3), 2, 0)
    seat = int(eng.state.current[0])
    with pytest.raises(ValueError, match="is not the acting player of game 0"):
        sample_worlds(eng, 0, (seat + 1) % 3, 4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="game must be an integer between 0 and 1, got 5"):
        sample_worlds(eng, 5, seat, 4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="num_worlds must be an integer between 1 and"):
        sample_worlds(eng, 0, seat, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"drew_on_weight must be in \(0, 1\]"):
        sample_worlds(eng, 0, seat, 4, np.random.default_rng(0), drew_on_weight=0.0)


def test_a_player_who_drew_on_a_color_is_dealt_its_cards_and_wilds_less_often() -> None:
    drew_on = np.zeros((3, 4), bool)
    drew_on[1, 0] = True                                  # seat 1 drew on color 0
    weights = drew_on_weights(drew_on, 0.25)
    lacking = (KIND_COLOR == 0) | IS_WILD
    np.testing.assert_array_equal(weights[1], np.where(lacking, 0.25, 1.0))
    np.testing.assert_array_equal(weights[[0, 2]], 1.0)   # seats that drew on nothing
    red, green = KIND_ID["R5"], KIND_ID["G5"]
    assert KIND_COLOR[red] == 0 and KIND_COLOR[green] != 0
    cards = np.repeat([red, green], 20)
    sizes = np.array([0, 10, 5])
    dealt = belief_deal(cards, sizes, weights, 4000, np.random.default_rng(0))
    np.testing.assert_array_equal(np.sort(dealt, axis=1), np.broadcast_to(cards, dealt.shape))
    red_share = (dealt == red).mean(axis=0)
    # one red card against four times as many green ones at equal counts: about a fifth
    assert 0.15 < red_share[:10].mean() < 0.3
    assert red_share[10:].mean() > 0.55                   # the rest holds the reds
    # a tiny weight is close to a ban while the other cards suffice
    banned = belief_deal(cards, sizes, drew_on_weights(drew_on, 1e-9), 200,
                         np.random.default_rng(1))
    assert not (banned[:, :10] == red).any()
