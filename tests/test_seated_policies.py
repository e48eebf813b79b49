"""Whole games with a score-table policy in every seat (playouts.play_policies), and the
tournaments of such agents that are played by it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scenario import assert_same_state, damage_hand, random_actions, snapshot

from uno_agents import make_agent
from uno_agents.greedy import GreedyAgent
from uno_env import Engine, Rules
from uno_env.agent_registry import choose_in_parts
from uno_env.engine.core import EngineError
from uno_env.engine.playouts import play_policies
from uno_env.evaluation.tournament import tournament

pytest.importorskip("numba")

AGENTS = ("greedy", "tuned", "defender", "greedy:challenge_threshold=5")
CASES = [("official", 2), ("official", 4), ("no_mercy", 3), ("house_dobon", 5),
         ("last_standing", 4), ("teams", 4)]


def seating(games: int, players: int) -> np.ndarray:
    """``int[games, players]``: a different mix of the agents in every game."""
    return (np.arange(games)[:, None] + 3 * np.arange(players)[None, :]) % len(AGENTS)


def step_agents(engine: Engine, agents: list, seated: np.ndarray) -> np.ndarray:
    """The games played to their end by the agents' ``act``, one step at a time; each
    seat's decisions."""
    decisions = np.zeros((engine.num_games, engine.num_players), np.int64)
    rng = np.random.default_rng(0)
    while not engine.state.done.all():
        live = np.flatnonzero(~engine.state.done)
        seat = engine.state.current[live]
        who = seated[live, seat]
        actions = choose_in_parts([(agent, who == k) for k, agent in enumerate(agents)],
                                  engine, live, engine.observe(games=live),
                                  engine.legal_action_mask(live), rng)
        decisions[live, seat] += 1
        engine.step(actions, games=live)
    return decisions


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_play_policies_makes_the_agents_decisions_to_the_end(preset, players):
    rules = Rules.preset(preset, num_players=players, max_turns=400)
    games = 40
    agents = [make_agent(spec) for spec in AGENTS]
    seated = seating(games, players)
    stepped = Engine(rules, games, seed=11, backend="numba")
    expected = step_agents(stepped, agents, seated)
    played = Engine(rules, games, seed=11, backend="numba")
    _, decisions = play_policies(played, np.arange(games),
                                 [a.playout_policy(players) for a in agents], seated)
    np.testing.assert_array_equal(decisions, expected)
    assert_same_state(snapshot(stepped), snapshot(played))
    np.testing.assert_array_equal(played.legal_action_mask(), stepped.legal_action_mask())


def test_a_horizon_plays_that_many_decisions_of_the_listed_games_only():
    rules = Rules.preset("official", num_players=4)
    agents = [make_agent(spec) for spec in AGENTS]
    policies = [a.playout_policy(4) for a in agents]
    seated = seating(10, 4)
    engine = Engine(rules, 10, seed=2, backend="numba")
    stepped = Engine(rules, 10, seed=2, backend="numba")
    listed = np.array([1, 4, 7])
    before = snapshot(engine)
    _, decisions = play_policies(engine, listed, policies, seated[listed], horizon=1)
    assert decisions.sum() == 3 and decisions[listed].sum(axis=1).tolist() == [1, 1, 1]
    rest = np.setdiff1d(np.arange(10), listed)
    for name, value in snapshot(engine).items():
        np.testing.assert_array_equal(value[rest], before[name][rest], err_msg=name)
    who = seated[listed, stepped.state.current[listed]]
    actions = choose_in_parts([(a, who == k) for k, a in enumerate(agents)], stepped, listed,
                              stepped.observe(games=listed), stepped.legal_action_mask(listed),
                              np.random.default_rng(0))
    stepped.step(actions, games=listed)
    assert_same_state(snapshot(stepped), snapshot(engine))


class SteppedGreedy(GreedyAgent):
    """Greedy through its ``act`` (a subclass that overrides it is never played inside
    the engine)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def act(self, observations, masks, rng):
        self.calls += 1
        return super().act(observations, masks, rng)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_tournament_of_table_agents_plays_the_games_of_their_act(threads):
    rules = Rules.preset("official", num_players=4)
    compiled = tournament(["greedy", "tuned", "defender", "greedy"], rules, 600, seed=3,
                          batch=300, threads=threads)
    stepped_agent = SteppedGreedy()
    stepped = tournament([stepped_agent, "tuned", "defender", "greedy"], rules, 600, seed=3,
                         batch=300)
    assert stepped_agent.calls > 0
    for f in dataclasses.fields(compiled.records):
        np.testing.assert_array_equal(getattr(compiled.records, f.name),
                                      getattr(stepped.records, f.name), err_msg=f.name)
    np.testing.assert_array_equal(compiled.clock.decisions, stepped.clock.decisions)
    assert (compiled.clock.seconds > 0).all()
    by_act = tournament(["greedy", "tuned", "defender", "greedy"], rules, 600, seed=3,
                        batch=300, tables=False)
    for f in dataclasses.fields(compiled.records):
        np.testing.assert_array_equal(getattr(compiled.records, f.name),
                                      getattr(by_act.records, f.name), err_msg=f.name)


def test_play_policies_refuses_what_it_cannot_play():
    rules = Rules.preset("official", num_players=2)
    greedy = make_agent("greedy").playout_policy(2)
    seated = np.zeros((3, 2), np.int64)
    with pytest.raises(NotImplementedError, match="numba"):
        play_policies(Engine(rules, 3, backend="numpy"), [0, 1, 2], [greedy], seated)
    engine = Engine(rules, 3, backend="numba")
    with pytest.raises(ValueError, match="random"):
        play_policies(engine, [0, 1, 2], [make_agent("random_play").playout_policy(2)], seated)
    with pytest.raises(ValueError, match="a policy per seat"):
        play_policies(engine, [0, 1], [greedy], seated)
    with pytest.raises(ValueError, match="index the 1 policies"):
        play_policies(engine, [0, 1, 2], [greedy], seated + 1)


@pytest.mark.parametrize("threads", [1, 2])
def test_an_error_in_one_game_leaves_every_game_as_it_was(threads):
    """A damaged game (scenario.damage_hand) among 300: the call raises the
    engine's error naming it and no game has changed."""
    engine = Engine(Rules(num_players=3, mercy_limit=25), 300, seed=5, backend="numba",
                    threads=threads)
    engine.step(random_actions(engine, np.random.default_rng(1)))
    bad = 280
    damage_hand(engine, bad)
    before = snapshot(engine)
    policies = [make_agent("greedy").playout_policy(3)]
    with pytest.raises(EngineError, match=f"game {bad}"):
        play_policies(engine, np.arange(300), policies, np.zeros((300, 3), np.int64))
    assert_same_state(before, snapshot(engine))
