"""The public surface of the engine: shapes, dtypes and views (issue 2, item 5 and 6)."""

from __future__ import annotations

import numpy as np
import pytest
from scenario import make, random_actions

from uno_env import NUM_ACTIONS, Engine, Rules, action_id
from uno_env.cards import NUM_KINDS

#: Every test here runs on each backend.
pytestmark = pytest.mark.usefixtures("each_backend")


def test_step_returns_rewards_terminated_truncated():
    eng = Engine(Rules(num_players=3), 5, seed=0)
    rewards, terminated, truncated = eng.step(random_actions(eng, np.random.default_rng(0)))
    assert rewards.shape == (5, 3) and rewards.dtype == np.float32
    assert terminated.shape == (5,) and terminated.dtype == bool
    assert truncated.shape == (5,) and truncated.dtype == bool


def test_views_shapes_and_dtypes():
    eng = Engine(Rules(num_players=4), 3, seed=1)
    mask = eng.legal_action_mask()
    assert mask.shape == (3, NUM_ACTIONS) and mask.dtype == bool
    obs = eng.observe()
    assert obs.shape == (3, eng.obs_size) and obs.dtype == np.float32
    assert eng.observe(players=[0, 1, 2]).shape == (3, eng.obs_size)
    assert eng.census().shape == (3, NUM_KINDS)
    assert eng.current_player.shape == (3,)
    assert np.issubdtype(eng.round_points.dtype, np.integer)
    assert eng.round_points.shape == (3, 4)
    assert (eng.winner == -1).all()
    assert not eng.terminated.any()


def test_views_are_copies():
    eng = Engine(Rules(num_players=3), 2, seed=2)
    eng.current_player[:] = 99
    eng.round_points[:] = 99
    eng.winner[:] = 99
    assert (eng.current_player < 3).all()
    assert (eng.round_points == 0).all()
    assert (eng.winner == -1).all()


def test_scenario_views():
    eng = make([["G1", "WD4"], ["B1"], ["Y3", "R4"]], top="W", color="Y", current=2)
    assert eng.hand(0, 0) == ["G1", "WD4"]
    assert sorted(eng.hand(0, 2)) == ["R4", "Y3"]
    assert eng.top_card(0) == "W"
    assert eng.current_color(0) == "Y"
    assert eng.current_player.tolist() == [2]
    assert eng.legal_action_names(0) == ["play Y3", "draw", "uno"]
    assert eng.pending_draw.tolist() == [0]


def test_setup_deck_order_is_drawn_top_first():
    eng = make([["B1", "B2"], ["B3"], ["Y3"]], top="G5", pile=["R9", "Y8", "Y7"])
    eng.step_names("draw")
    eng.step_names("draw")
    eng.step_names("draw")
    assert "R9" in eng.hand(0, 0)
    assert "Y8" in eng.hand(0, 1)
    assert "Y7" in eng.hand(0, 2)


def test_setup_direction_counter_clockwise():
    eng = make([["G1", "B2"], ["B3"], ["Y3"]], top="G5", direction=-1)
    eng.step_names("play G1")
    assert eng.current_player.tolist() == [2]


def test_setup_discard_pile():
    eng = make([["G1", "B2"], ["B3"], ["Y3"]], top="G5", discard=["R1", "R2"])
    assert eng.state.discard[0].sum() == 3
    assert (eng.census() == eng.deck_composition()).all()


def test_step_names_batch():
    eng, twin = Engine(Rules(num_players=3), 2, seed=5), Engine(Rules(num_players=3), 2, seed=5)
    names = [eng.legal_action_names(g)[-1] for g in range(2)]
    eng.step_names(names)
    twin.step(np.array([action_id(n) for n in names]))
    assert (eng.current_player == twin.current_player).all()
    assert (eng.hand_sizes == twin.hand_sizes).all() and (eng.observe() == twin.observe()).all()
    assert not (eng.hand_sizes == Engine(Rules(num_players=3), 2, seed=5).hand_sizes).all()


def test_reset_all_games_restarts_episodes():
    eng = make([["G1"], ["B1"], ["Y3"]], top="G5")
    eng.step_names("play G1")
    assert eng.terminated.all()
    eng.reset(seed=3)
    assert not eng.done.any()
    assert eng.hand_sizes.sum() >= 21
    assert (eng.winner == -1).all()
    assert (eng.round_points == 0).all()
    assert (eng.census() == eng.deck_composition()).all()


def test_observation_hides_other_hands_and_the_deck_order():
    a = make([["G1", "B2"], ["R3", "R4", "W"], ["Y3"]], top="G5", pile=["R9", "Y8", "Y7"])
    b = make([["G1", "B2"], ["B7", "Y4", "WD4"], ["B3"]], top="G5", pile=["B9", "G8", "R7"])
    for player in (0, None):
        np.testing.assert_array_equal(a.observe(players=player), b.observe(players=player))
    assert not np.array_equal(a.observe(players=1), b.observe(players=1))


def test_observation_shows_own_hand():
    a = make([["G1", "B2"], ["R3"], ["Y3"]], top="G5")
    b = make([["G1", "B3"], ["R3"], ["Y3"]], top="G5")
    assert not np.array_equal(a.observe(players=0), b.observe(players=0))
