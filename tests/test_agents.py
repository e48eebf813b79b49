"""Agents: the batch interface, legality of every action, and strength of the heuristic."""

from __future__ import annotations

import re

import numpy as np
import pytest

from agents import (
    AGENTS,
    Agent,
    GreedyAgent,
    RandomAgent,
    RandomPlayAgent,
    make_agent,
    parse_agent_spec,
)
from uno_env import PRESETS, Engine, Rules, action_name


def play_batch(rules: Rules, seats: list[Agent], num_games: int, seed: int) -> np.ndarray:
    """Play ``num_games`` games to the end with one agent per seat; returns the winners."""
    eng = Engine(rules, num_games, seed)
    rng = np.random.default_rng(seed)
    for _ in range(rules.max_turns + 1):
        if eng.done.all():
            break
        current = eng.current_player
        obs, mask = eng.observe(), eng.legal_action_mask()
        actions = np.zeros(num_games, np.int64)
        for seat, agent in enumerate(seats):
            rows = np.flatnonzero((current == seat) & ~eng.done)
            if rows.size:
                chosen = agent.act(obs[rows], mask[rows], rng)
                assert chosen.shape == (rows.size,)
                assert mask[rows, chosen].all(), f"{agent!r} chose an illegal action"
                actions[rows] = chosen
        eng.step(actions)       # Engine.step also rejects illegal actions
    assert eng.done.all()
    return eng.winner


def valid_player_counts(counts: tuple[int, ...]) -> list[tuple[str, int]]:
    """``(preset, players)`` for every preset and each of ``counts`` its rules allow
    (team play needs 4 players)."""
    pairs = []
    for preset in sorted(PRESETS):
        for players in counts:
            try:
                Rules.preset(preset, num_players=players)
            except ValueError:
                continue
            pairs.append((preset, players))
    return pairs


@pytest.mark.parametrize("name", sorted(AGENTS))
@pytest.mark.parametrize(("preset", "players"), valid_player_counts((2, 3, 4, 6)))
def test_agents_play_only_legal_actions(name: str, preset: str, players: int) -> None:
    agent = make_agent(name)
    rules = Rules.preset(preset, num_players=players, max_turns=300)
    winners = play_batch(rules, [agent] * players, 48, seed=players)
    assert ((winners >= -1) & (winners < players)).all()


def test_random_agent_is_uniform_over_legal_actions() -> None:
    masks = np.zeros((20000, 6), bool)
    masks[:, [1, 3, 4]] = True
    actions = RandomAgent().act(np.zeros((20000, 3), np.float32), masks,
                                np.random.default_rng(0))
    counts = np.bincount(actions, minlength=6) / actions.size
    assert counts[[0, 2, 5]].sum() == 0
    np.testing.assert_allclose(counts[[1, 3, 4]], 1 / 3, atol=0.02)


def greedy_choice(eng: Engine) -> str:
    chosen = GreedyAgent().act(eng.observe(), eng.legal_action_mask(), np.random.default_rng(0))
    return action_name(chosen[0])


def test_greedy_calls_uno_then_sheds_high_points() -> None:
    eng = Engine.from_setup(Rules(num_players=2), hands=[["R9", "R1"], ["G3", "B5"]],
                            top="R5", current=0)
    assert greedy_choice(eng) == "uno"
    eng.step_names("uno")
    assert greedy_choice(eng) == "play R9"


def test_greedy_catches_a_missed_uno() -> None:
    eng = Engine.from_setup(Rules(num_players=2), hands=[["R9", "R1"], ["G3", "B5"]],
                            top="R5", current=0)
    eng.step_names("play R9")           # no UNO call
    assert "catch" in eng.legal_action_names(0)
    assert greedy_choice(eng) == "catch"


def test_greedy_keeps_wilds_and_names_its_main_color() -> None:
    eng = Engine.from_setup(Rules(num_players=2),
                            hands=[["W", "R2", "B7", "B8", "B9"], ["G3", "B5"]],
                            top="R5", current=0)
    assert greedy_choice(eng) == "play R2"
    eng = Engine.from_setup(Rules(num_players=2),
                            hands=[["W", "Y2", "B7", "B8", "B9"], ["G3", "B5"]],
                            top="R5", current=0)
    assert greedy_choice(eng) == "play W:B"


def test_greedy_beats_random_by_a_clear_margin() -> None:
    """Heads-up and at a four-player table, seated everywhere in turn."""
    greedy, rand = GreedyAgent(), RandomAgent()
    two = play_batch(Rules(num_players=2), [greedy, rand], 500, seed=1)
    two_swapped = play_batch(Rules(num_players=2), [rand, greedy], 500, seed=2)
    heads_up = ((two == 0).sum() + (two_swapped == 1).sum()) / 1000
    assert heads_up > 0.8, heads_up
    four = play_batch(Rules(num_players=4), [greedy, rand, rand, rand], 1000, seed=3)
    assert (four == 0).mean() > 0.5, (four == 0).mean()     # chance: 0.25


def choice_of(agent: Agent, eng: Engine, seed: int = 0) -> str:
    chosen = agent.act(eng.observe(), eng.legal_action_mask(), np.random.default_rng(seed))
    return action_name(chosen[0])


def test_random_play_calls_uno_and_catches_first() -> None:
    eng = Engine.from_setup(Rules(num_players=2), hands=[["R9", "R1"], ["G3", "B5", "B6"]],
                            top="R5", current=0)
    assert all(choice_of(RandomPlayAgent(), eng, s) == "uno" for s in range(20))
    eng.step_names("uno")
    assert {choice_of(RandomPlayAgent(), eng, s) for s in range(40)} == {"play R9", "play R1"}
    eng = Engine.from_setup(Rules(num_players=2), hands=[["R9", "R1"], ["G3", "B5", "G6"]],
                            top="R5", current=0)
    eng.step_names("play R9")           # no UNO call: the opponent catches it
    assert all(choice_of(RandomPlayAgent(), eng, s) == "catch" for s in range(20))


def test_random_play_draws_only_without_a_play_and_plays_the_drawn_card() -> None:
    eng = Engine.from_setup(Rules(num_players=2), hands=[["G1", "B2", "R7"], ["G3", "B5"]],
                            top="Y5", current=0, deck=["Y8"])
    assert "draw" in eng.legal_action_names()
    assert all(choice_of(RandomPlayAgent(), eng, s) == "draw" for s in range(20))
    eng.step_names("draw")
    assert eng.legal_action_names() == ["play Y8", "pass"]
    assert all(choice_of(RandomPlayAgent(), eng, s) == "play Y8" for s in range(20))


def test_random_play_accepts_a_penalty_rather_than_challenging() -> None:
    eng = Engine.from_setup(Rules(num_players=2), hands=[["WD4", "R1", "R2"], ["G3", "B5"]],
                            top="R5", current=0)
    eng.step_names("play WD4:B")
    assert set(eng.legal_action_names()) == {"draw", "challenge"}
    assert all(choice_of(RandomPlayAgent(), eng, s) == "draw" for s in range(20))


def test_random_play_beats_uniform_random_play() -> None:
    smart, rand = RandomPlayAgent(), RandomAgent()
    two = play_batch(Rules(num_players=2), [smart, rand], 300, seed=5)
    two_swapped = play_batch(Rules(num_players=2), [rand, smart], 300, seed=5)
    assert ((two == 0).sum() + (two_swapped == 1).sum()) / 600 > 0.6


def test_agent_specs_pass_typed_parameters() -> None:
    assert parse_agent_spec("greedy") == ("greedy", {})
    assert parse_agent_spec(" x:a=3, b=0.5,c=true,d=hi ") == (
        "x", {"a": 3, "b": 0.5, "c": True, "d": "hi"})
    agent = make_agent("greedy:challenge_threshold=5")
    assert isinstance(agent, GreedyAgent) and agent.challenge_threshold == 5
    assert make_agent("greedy", challenge_threshold=2).challenge_threshold == 2


@pytest.mark.parametrize(("spec", "message"), [
    ("nobody", "unknown agent 'nobody'"),
    ("greedy:depth=3", "agent 'greedy' has no parameter 'depth'; parameters: "
                       "challenge_threshold"),
    ("random:seed=1", "agent 'random' has no parameter 'seed'; parameters: none"),
    ("greedy:challenge_threshold", "parameter 'challenge_threshold' is not key=value"),
    ("greedy:=4", "parameter '=4' is not key=value"),
])
def test_bad_agent_specs_are_named(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        make_agent(spec)
