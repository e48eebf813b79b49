"""The search's worlds in compiled code: dealt like sample_worlds, played like play_policy."""

from __future__ import annotations

import numpy as np
import pytest
from scenario import WORLD_CASES, hidden_cards, random_positions

from uno_env import Engine, Rules
from uno_env.cards import IS_WILD, KIND_COLOR
from uno_env.engine.search import deal_worlds, world_values

pytest.importorskip("numba")

@pytest.mark.parametrize("weight", [1.0, 0.2])    # uniform deal, belief deal
@pytest.mark.parametrize(("preset", "players"), WORLD_CASES)
def test_compiled_worlds_keep_the_observation_and_redeal_exactly_the_unseen_cards(
        preset: str, players: int, weight: float) -> None:
    eng = random_positions(preset, players)
    games = np.flatnonzero(~eng.state.done)[:6]
    counts, repeats = np.full(games.size, 12), np.arange(games.size) % 3 + 1
    before = eng.state.copy()
    state = deal_worlds(eng, games, counts, np.random.default_rng(1), repeats, weight)
    for f in before.__dataclass_fields__:      # the real games do not change
        np.testing.assert_array_equal(getattr(before, f), getattr(eng.state, f))
    worlds = Engine(eng.rules, state.num_games, 0, "numba")
    worlds.state = state
    row = 0
    for game, n, r in zip(games, counts, repeats, strict=True):
        seat = int(eng.state.current[game])
        rows = np.arange(row, row + n * r)
        seen = eng.observe(players=seat, games=[game])
        np.testing.assert_array_equal(worlds.observe(players=seat, games=rows),
                                      np.repeat(seen, rows.size, 0))
        np.testing.assert_array_equal(worlds.legal_action_mask(rows),
                                      np.repeat(eng.legal_action_mask([game]), rows.size, 0))
        unseen = hidden_cards(eng, game, seat)
        for w in rows:
            np.testing.assert_array_equal(hidden_cards(worlds, w, seat), unseen)
            np.testing.assert_array_equal(worlds.state.hand_size[w], eng.state.hand_size[game])
        for t in range(1, r):         # each repeat is a copy of the same worlds
            np.testing.assert_array_equal(state.hands[row + t * n:row + (t + 1) * n],
                                          state.hands[row:row + n])
            np.testing.assert_array_equal(state.deck[row + t * n:row + (t + 1) * n],
                                          state.deck[row:row + n])
        if unseen.sum() > 8:
            assert len({state.hands[w].tobytes() for w in rows[:n]}) > 1
        row += n * r
    np.testing.assert_array_equal(
        worlds.census(), np.broadcast_to(eng.deck_composition(), worlds.census().shape))


def test_compiled_worlds_are_reproducible_and_follow_the_belief() -> None:
    """The same rng gives the same worlds; a seat that drew on a color gets fewer cards of
    it and fewer wilds under drew_on_weight < 1 than under the uniform deal."""
    eng = random_positions("official", 2, games=32, seed=4)
    live = np.flatnonzero(~eng.state.done)
    drew = [g for g in live if eng.state.drew_on[g, 1 - eng.state.current[g]].any()
            and eng.state.hand_size[g, 1 - eng.state.current[g]] >= 3]
    assert drew
    g = int(drew[0])
    seat, other = int(eng.state.current[g]), 1 - int(eng.state.current[g])
    colors = np.flatnonzero(eng.state.drew_on[g, other])
    a = deal_worlds(eng, [g], [2000], np.random.default_rng(7))
    b = deal_worlds(eng, [g], [2000], np.random.default_rng(7))
    np.testing.assert_array_equal(a.hands, b.hands)
    np.testing.assert_array_equal(a.deck, b.deck)
    belief = deal_worlds(eng, [g], [2000], np.random.default_rng(7), drew_on_weight=0.05)
    lacking = np.isin(KIND_COLOR, colors) | IS_WILD
    uniform_share = a.hands[:, other][:, lacking].sum() / a.hands[:, other].sum()
    belief_share = belief.hands[:, other][:, lacking].sum() / belief.hands[:, other].sum()
    assert belief_share < 0.5 * uniform_share
    assert seat != other


def test_world_values_check_their_input() -> None:
    from uno_agents import make_agent
    eng = Engine(Rules(num_players=2), 2, seed=0, backend="numba")
    tuned = make_agent("tuned").playout_policy(2)
    legal = np.flatnonzero(eng.legal_action_mask()[0])
    illegal = np.flatnonzero(~eng.legal_action_mask()[0])[:1]
    rng = np.random.default_rng(0)
    values = world_values(eng, [0], [legal], [8], tuned, horizon=4, rng=rng)
    assert values[0].shape == (legal.size, 8) and np.abs(values[0]).max() <= 1.0
    with pytest.raises(ValueError, match="legal"):
        world_values(eng, [0], [illegal], [8], tuned, rng=rng)
    with pytest.raises(ValueError, match="worlds"):
        world_values(eng, [0], [legal], [0], tuned, rng=rng)
    with pytest.raises(TypeError, match="rng"):
        world_values(eng, [0], [legal], [2], tuned, rng=None)
    with pytest.raises(NotImplementedError):
        world_values(Engine(Rules(num_players=2), 1, 0, "numpy"), [0], [legal], [2], tuned,
                     rng=rng)


@pytest.mark.parametrize(("preset", "players", "spec"), [
    ("official", 2, "ismcts:horizon=10"), ("no_mercy", 3, "ismcts:horizon=0,opponent=random_play")])
def test_search_values_are_world_values_without_the_checks(preset, players, spec) -> None:
    """The search's unchecked call gives search.world_values' values from the same numbers."""
    from uno_agents import make_agent
    from uno_env.engine.search import search_values

    eng = random_positions(preset, players, games=12, seed=2)
    games = np.flatnonzero(~eng.state.done)
    masks = eng.legal_action_mask(games)
    actions = [np.flatnonzero(row) for row in masks]
    worlds = np.arange(games.size, dtype=np.int64) % 4 + 2
    agent = make_agent(spec)
    policies = agent._compiled_policies(eng)
    checked = world_values(eng, games, actions, worlds, *policies, horizon=agent.horizon,
                           rng=np.random.default_rng(5), drew_on_weight=0.5)
    unchecked = search_values(eng, games, actions, worlds, *policies, agent.horizon,
                              np.random.default_rng(5), 0.5)
    for a, b, n, legal in zip(checked, unchecked, worlds, actions, strict=True):
        assert b.shape == (legal.size, n)
        np.testing.assert_array_equal(a, b)
