"""Compiled playout policies pick exactly what the agents pick (playouts.play_policy)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from scenario import assert_same_state, random_positions, snapshot

from uno_agents import make_agent
from uno_agents.base import choose_in_parts, masked_argmax
from uno_agents.features import DYNAMIC
from uno_agents.random_play import RANDOM_PLAY_TIERS, RandomPlayAgent
from uno_env import PRESETS, Engine, Rules
from uno_env.engine import playout
from uno_env.engine.playouts import play_policy

pytest.importorskip("numba")

POLICIES = ("greedy", "tuned", "defender", "greedy:challenge_threshold=5", "random_play")
CASES = [(preset, 4 if preset == "teams" else players)
         for preset in sorted(PRESETS) for players in (2, 4, 10)
         if preset != "teams" or players == 4]


class StreamRandomPlay(RandomPlayAgent):
    """random_play with its uniform numbers from the games' playout streams, as the
    compiled playouts draw them."""

    def __init__(self, streams: np.ndarray) -> None:
        self.streams = streams

    def act_in(self, engine, games, observations, masks, rng):
        rows = self.streams[games]
        noise = playout.stream_noise(rows)
        self.streams[games] = rows
        return masked_argmax(RANDOM_PLAY_TIERS + 0.5 * noise, masks)


def agent_steps(engine: Engine, own, others, seats: np.ndarray) -> np.ndarray:
    """One decision in every running game of ``engine`` by the agents (``own`` in the
    seats ``seats``, ``others`` elsewhere), as a Python playout loop makes it; the
    rewards."""
    live = np.flatnonzero(~engine.state.done)
    obs, masks = engine.observe(games=live), engine.legal_action_mask(live)
    mine = engine.state.current[live] == seats[live]
    actions = choose_in_parts([(own, mine), (others, ~mine)], engine, live, obs, masks,
                              np.random.default_rng(0))
    return engine.step(actions, games=live)[0]


def test_the_dynamic_features_are_the_kernel_s():
    assert DYNAMIC == playout.DYNAMIC


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_compiled_playouts_make_the_agents_decisions(preset, players):
    rules = Rules.preset(preset, num_players=players, max_turns=300)
    games = 24
    for k, spec in enumerate(POLICIES):
        other_spec = POLICIES[(k + 1) % len(POLICIES)] if k % 2 else spec
        own, others = make_agent(spec), make_agent(other_spec)
        tables = own.playout_policy(players), others.playout_policy(players)
        streams = np.zeros((games, 2), np.uint64)
        streams[:, 0] = np.arange(games, dtype=np.uint64) * np.uint64(7919) + np.uint64(k)
        twin_streams = streams.copy()
        own, others = (StreamRandomPlay(twin_streams) if a.name == "random_play" else a
                       for a in (own, others))
        compiled = Engine(rules, games, seed=1000 * players + k, backend="numba")
        stepped = copy.deepcopy(compiled)
        seats = np.arange(games) % players
        for _ in range(12):          # decision by decision: the same action each time
            play_policy(compiled, np.arange(games), seats, *tables, horizon=1, streams=streams)
            agent_steps(stepped, own, others, seats)
            assert_same_state(snapshot(compiled), snapshot(stepped))
        rewards = play_policy(compiled, np.arange(games), seats, *tables,     # to the end
                              streams=streams)
        total = np.zeros_like(rewards)
        while not stepped.state.done.all():
            total += agent_steps(stepped, own, others, seats)
        assert compiled.state.done.all()
        assert_same_state(snapshot(compiled), snapshot(stepped))
        np.testing.assert_array_equal(rewards, total)
        np.testing.assert_array_equal(streams, twin_streams)


def test_play_policy_sums_the_rewards_and_keeps_the_masks():
    rules = Rules.preset("official", num_players=3)
    engine = Engine(rules, 8, seed=3, backend="numba")
    tuned = make_agent("tuned").playout_policy(3)
    rewards = play_policy(engine, np.arange(8), np.zeros(8, np.int64), tuned)
    assert engine.state.done.all()
    np.testing.assert_allclose(rewards.sum(axis=1), 0.0, atol=1e-5)
    assert (np.abs(rewards).sum(axis=1) > 0).all()
    fresh = Engine(rules, 8, seed=3, backend="numba")
    fresh.state = engine.state
    np.testing.assert_array_equal(engine.legal_action_mask(), fresh.legal_action_mask())


def test_play_policy_checks_its_input():
    engine = Engine(Rules(), 4, seed=0, backend="numba")
    greedy = make_agent("greedy").playout_policy(4)
    with pytest.raises(ValueError):
        play_policy(engine, [0, 1], [0], greedy)
    with pytest.raises(ValueError):
        play_policy(engine, [0, 0], [0, 0], greedy)
    with pytest.raises(ValueError, match="streams"):
        play_policy(engine, [0], [0], make_agent("random_play").playout_policy(4))
    with pytest.raises(NotImplementedError):
        play_policy(Engine(Rules(), 2, seed=0, backend="numpy"), [0], [0], greedy)


@pytest.mark.parametrize(("preset", "players", "spec"), [
    ("official", 2, "ismcts:budget=48"), ("official", 4, "ismcts:budget=32,playout=greedy"),
    ("no_mercy", 3, "ismcts:budget=24,horizon=0,opponent=defender")])
def test_search_values_are_those_of_the_python_playouts(preset, players, spec):
    """ismcts values its actions by the compiled playouts exactly as by the agents' loop."""
    eng = random_positions(preset, players, games=16, seed=players)
    live = np.flatnonzero(~eng.state.done)
    masks = eng.legal_action_mask(live)
    agent = make_agent(spec)
    compiled = agent.action_values(eng, live, masks, np.random.default_rng(1))
    agent.compiled_playouts = False
    stepped = agent.action_values(eng, live, masks, np.random.default_rng(1))
    for a, b in zip(compiled, stepped, strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_search_against_random_play_plays_it_compiled_and_reproducibly():
    """With random_play in the playouts the numbers differ from the Python loop's (the
    same rule): values are reproducible from the rng, and close to the loop's."""
    eng = random_positions("official", 2, games=8, seed=5)
    live = np.flatnonzero(~eng.state.done)
    masks = eng.legal_action_mask(live)
    agent = make_agent("ismcts:budget=400,horizon=0,opponent=random_play")
    first, again = (agent.action_values(eng, live, masks, np.random.default_rng(3))
                    for _ in range(2))
    agent.compiled_playouts = False
    stepped = agent.action_values(eng, live, masks, np.random.default_rng(3))
    for a, b, c in zip(first, again, stepped, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.shape == c.shape and np.abs(a).max() <= 1.0
    gap = np.mean([a.mean() - c.mean() for a, c in zip(first, stepped, strict=True)])
    assert abs(gap) < 0.1
