"""The packed observation (docs/observation.md, "Packed observation"): the same facts
as the observation in a few int16 numbers, unpacked exactly into the documented layout."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import AVAILABLE_BACKENDS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenario import random_actions, random_positions, valid_player_counts

from uno_env import Engine, Rules
from uno_env.engine.packed import PACKED_DTYPE, pack, packed_size, packed_views, unpack
from uno_env.engine.packed_rows import observe_packed

CASES = valid_player_counts((2, 4, 10))


def observe_both(eng: Engine, players: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    return eng.observe(players), observe_packed(eng, players)


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_unpacking_gives_the_observation_exactly(preset, players, each_backend):
    eng = random_positions(preset, players)
    rng = np.random.default_rng(players)
    for _ in range(40):   # acting players, then the seat after each
        for seats in (None, (eng.state.current + 1) % players):
            obs, packed = observe_both(eng, seats)
            assert packed.dtype == PACKED_DTYPE
            assert packed.shape == (eng.num_games, packed_size(eng.rules))
            np.testing.assert_array_equal(unpack(packed, eng.rules), obs)
        eng.step(random_actions(eng, rng))
        ended = np.flatnonzero(eng.state.done)
        if ended.size:
            eng.reset(games=ended)


@pytest.mark.parametrize(("preset", "players"), [("computer", 3), ("no_mercy", 4),
                                                 ("teams", 4), ("federation", 10)])
def test_shown_hands_and_partner_hands_unpack_too(preset, players):
    rules = Rules.preset(preset, num_players=players, zero_open=True)
    assert "shown_hands" in packed_views(rules)
    eng = Engine(rules, 32, seed=1)
    rng = np.random.default_rng(1)
    shown = False
    for _ in range(150):
        np.testing.assert_array_equal(unpack(observe_packed(eng), rules), eng.observe())
        shown |= bool(eng.state.shown.any())
        eng.step(random_actions(eng, rng))
        ended = np.flatnonzero(eng.state.done)
        if ended.size:
            eng.reset(games=ended)
    assert shown   # a 0 was played with cards still held: the view was exercised


@pytest.mark.skipif("numba" not in AVAILABLE_BACKENDS, reason="the compiled backend")
@pytest.mark.parametrize(("preset", "players"), valid_player_counts((3, 4)))
def test_both_backends_pack_the_same_numbers(preset, players):
    eng = random_positions(preset, players, games=32, seed=players)
    seats = (eng.state.current + 2) % players
    compiled = Engine(eng.rules, eng.num_games, backend="numba")
    compiled.state = eng.state
    for who in (None, seats):
        np.testing.assert_array_equal(observe_packed(compiled, who),
                                      pack(eng.rules, eng.state, eng.state.current
                                           if who is None else who))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scores=st.lists(st.integers(-10**7, 10**7), min_size=4, max_size=4))
def test_match_scores_of_any_size_survive_packing(scores):
    rules = Rules.preset("official", num_players=4, target_score=10**6)
    eng = Engine(rules, 2, seed=0)
    s = eng.state
    s.scores[:] = scores
    eng.state = s
    packed = observe_packed(eng)
    assert packed.dtype == np.int16
    np.testing.assert_array_equal(unpack(packed, rules), eng.observe())


def test_the_official_four_player_row_is_small():
    rules = Rules.preset("official", num_players=4)
    assert packed_size(rules) == 183           # against 1,516 float32 in the observation
    views = list(packed_views(rules).values())
    assert views[0].start == 0
    assert all(a.stop == b.start for a, b in zip(views, views[1:], strict=False))


def test_games_and_players_select_rows_as_observe_does():
    eng = random_positions("official", 4, games=12)
    games = np.array([7, 2, 5])
    np.testing.assert_array_equal(unpack(observe_packed(eng, 1, games=games), eng.rules),
                                  eng.observe(1, games=games))
    for bad in (4, [0, 1]):
        with pytest.raises(ValueError, match="players must be") as packed_error:
            observe_packed(eng, bad)
        with pytest.raises(ValueError, match="players must be") as error:
            eng.observe(bad)
        assert str(packed_error.value) == str(error.value)


@pytest.mark.parametrize("bad", [np.zeros((3, 10), np.int16), np.zeros((3, 183), np.float32),
                                 np.zeros(183, np.int16)])
def test_unpack_names_what_is_wrong(bad):
    with pytest.raises(ValueError, match="integer rows of 183 numbers"):
        unpack(bad, Rules.preset("official", num_players=4))
