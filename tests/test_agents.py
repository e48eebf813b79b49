"""Agents: the batch interface, legality of every action, and strength of the heuristic."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scenario import random_positions, redeal_hidden, valid_player_counts

from uno_agents import (
    AGENTS,
    Agent,
    GreedyAgent,
    RandomAgent,
    RandomPlayAgent,
    choose_actions,
    make_agent,
    parse_agent_spec,
)
from uno_env import Engine, Rules, action_name
from uno_env.actions import CATCH, DOBON, NUM_ACTIONS, UNO


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
                chosen = choose_actions(agent, eng, rows, obs[rows], mask[rows], rng)
                assert chosen.shape == (rows.size,)
                assert mask[rows, chosen].all(), f"{agent!r} chose an illegal action"
                actions[rows] = chosen
        eng.step(actions)       # Engine.step also rejects illegal actions
    assert eng.done.all()
    return eng.winner


#: Agents cheap enough to play whole games in every test (search is tested on positions).
FAST_AGENTS = sorted(name for name, cls in AGENTS.items() if not cls.needs_engine)
#: Specs that keep each agent quick in the tests.
TEST_SPECS = {name: name for name in AGENTS} | {"ismcts": "ismcts:budget=4"}


@pytest.mark.parametrize("name", FAST_AGENTS)
@pytest.mark.parametrize(("preset", "players"), valid_player_counts((2, 3, 4, 6)))
def test_agents_play_only_legal_actions(name: str, preset: str, players: int) -> None:
    agent = make_agent(name)
    rules = Rules.preset(preset, num_players=players, max_turns=300)
    winners = play_batch(rules, [agent] * players, 48, seed=players)
    assert ((winners >= -1) & (winners < players)).all()


@pytest.mark.parametrize(("preset", "players"), valid_player_counts((2, 4, 10)))
def test_every_agent_acts_legally_and_reproducibly_in_random_positions(
        preset: str, players: int) -> None:
    eng = random_positions(preset, players, games=16, seed=players)
    live = np.flatnonzero(~eng.state.done)
    obs, masks = eng.observe(games=live), eng.legal_action_mask(live)
    for name, spec in TEST_SPECS.items():
        agent = make_agent(spec)
        chosen = choose_actions(agent, eng, live, obs, masks, np.random.default_rng(1))
        assert chosen.shape == (live.size,), name
        assert masks[np.arange(live.size), chosen].all(), f"{name} chose an illegal action"
        again = choose_actions(make_agent(spec), eng, live, obs, masks,
                               np.random.default_rng(1))
        np.testing.assert_array_equal(chosen, again, err_msg=name)


@pytest.mark.parametrize("name", FAST_AGENTS)
def test_agents_answer_an_empty_batch(name: str) -> None:
    """A caller with no decision pending for an agent may still call it (zero rows)."""
    eng = Engine(Rules.preset("official", num_players=4), 2, 0)
    obs, masks = eng.observe()[:0], eng.legal_action_mask()[:0]
    chosen = np.asarray(make_agent(name).act(obs, masks, np.random.default_rng(0)))
    assert chosen.shape == (0,)


def test_random_agent_is_uniform_over_legal_actions() -> None:
    masks = np.zeros((20000, NUM_ACTIONS), bool)
    masks[:, [1, 3, 4]] = True
    actions = RandomAgent().act(np.zeros((20000, 3), np.float32), masks,
                                np.random.default_rng(0))
    counts = np.bincount(actions, minlength=6)[:6] / actions.size
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


@pytest.mark.parametrize(("spec", "parameter", "value"), [
    ("greedy:challenge_threshold=inf", "challenge_threshold", "inf"),
    ("greedy:challenge_threshold=2.7", "challenge_threshold", "2.7"),
    ("greedy:challenge_threshold=abc", "challenge_threshold", "abc"),
    ("greedy:challenge_threshold=" + "9" * 5000, "challenge_threshold", "999"),
    ("ismcts:budget=true", "budget", "true"),
    ("ismcts:budget=1e3", "budget", "1e3"),
    ("ismcts:confidence=nan", "confidence", "nan"),
    ("ismcts:confidence=-inf", "confidence", "-inf"),
    ("ismcts:drew_on_weight=heavy", "drew_on_weight", "heavy"),
    ("ismcts:playout=nobody", "playout", "nobody"),
    ("ismcts:budget=0", "budget", "0"),
])
def test_a_spec_value_of_the_wrong_type_names_agent_parameter_and_value(
        spec: str, parameter: str, value: str) -> None:
    with pytest.raises(ValueError) as caught:
        make_agent(spec)
    message = str(caught.value)
    assert spec.split(":")[0] in message and value in message, message
    assert parameter in message or "unknown agent" in message, message
    # an unknown agent lists every family and shipped model; any other error is one short line
    assert len(message) < (800 if "unknown agent" in message else 200)


@pytest.mark.parametrize(("kwargs", "parameter"), [
    (dict(challenge_threshold=2.7), "challenge_threshold"),
    (dict(challenge_threshold=True), "challenge_threshold"),
    (dict(challenge_threshold="4"), "challenge_threshold"),
])
def test_keyword_values_are_held_to_the_parameter_types(kwargs: dict, parameter: str) -> None:
    with pytest.raises(ValueError, match=f"agent 'greedy': parameter '{parameter}'"):
        make_agent("greedy", **kwargs)


def test_spec_values_are_read_as_their_parameter_types() -> None:
    agent = make_agent("ismcts:budget=12,confidence=1,drew_on_weight=0.5,playout=greedy")
    assert (agent.budget, agent.confidence, agent.drew_on_weight) == (12, 1.0, 0.5)
    assert type(agent.budget) is int and type(agent.confidence) is float
    assert make_agent("greedy", challenge_threshold=np.int64(4)).challenge_threshold == 4


@pytest.mark.parametrize("name", ["greedy", "tuned", "defender"])
@pytest.mark.parametrize("columns", [-1, 1])
def test_observation_readers_reject_observations_of_another_width(name: str,
                                                                  columns: int) -> None:
    eng = Engine(Rules(), 3, seed=0)
    obs, masks = eng.observe(), eng.legal_action_mask()
    wrong = np.zeros((3, obs.shape[1] + columns), np.float32)
    wrong[:, :min(obs.shape[1], wrong.shape[1])] = obs[:, :wrong.shape[1]]
    with pytest.raises(ValueError, match=f"observations must have {obs.shape[1]} columns"):
        make_agent(name).act(wrong, masks, np.random.default_rng(0))


@pytest.mark.parametrize("spec", ["ismcts:budget=12", "ismcts:budget=12,drew_on_weight=0.2"])
def test_ismcts_ignores_hidden_cards(spec: str) -> None:
    """Its choices depend on the public game only: other hands and pile order re-dealt,
    the same rng gives the same actions (also when its worlds follow a belief)."""
    eng = random_positions("official", 3, games=12, seed=4)
    live = np.flatnonzero(~eng.state.done)
    assert eng.state.drew_on[live].any()      # some belief to follow
    obs, masks = eng.observe(games=live), eng.legal_action_mask(live)
    agent = make_agent(spec)
    before = choose_actions(agent, eng, live, obs, masks, np.random.default_rng(2))
    hands = eng.state.hands.copy()
    for game in live:
        redeal_hidden(eng, int(game), int(eng.state.current[game]), np.random.default_rng(game))
    assert not np.array_equal(hands, eng.state.hands)
    after = choose_actions(agent, eng, live, eng.observe(games=live), masks,
                           np.random.default_rng(2))
    np.testing.assert_array_equal(before, after)


def test_ismcts_finds_the_winning_draw_two() -> None:
    """Heads-up with Draw Two and a card of its color left: the Draw Two first wins at once
    (the opponent is skipped); the other order lets the opponent out with its last card."""
    eng = Engine.from_setup(Rules(num_players=2), hands=[["R2", "RD2"], ["R7"]], top="R9",
                            current=0)
    eng.step_names("uno")
    agent = make_agent("ismcts:budget=16")
    chosen = choose_actions(agent, eng, np.array([0]), eng.observe(), eng.legal_action_mask(),
                            np.random.default_rng(0))
    assert action_name(chosen[0]) == "play RD2"


def test_ismcts_keeps_the_policy_choice_unless_another_action_clearly_beats_it() -> None:
    """Rows are actions, columns the same worlds; row 1 is the playout policy's choice.
    Against it, row 0 gains 0.67 +- 0.42 (standard error), row 2 gains 1.0 +- 0.45."""
    value = np.array([[1.0, -1.0, 1.0, -1.0, 1.0, 1.0],
                      [-1.0, -1.0, 1.0, -1.0, 1.0, -1.0],
                      [1.0, 1.0, 1.0, -1.0, 1.0, 1.0]])
    assert make_agent("ismcts:confidence=5")._pick(value, 1) == 1
    assert make_agent("ismcts:confidence=2")._pick(value, 1) == 2
    assert make_agent("ismcts:confidence=0")._pick(value, 1) == 2
    assert make_agent("ismcts:confidence=1")._pick(value[:2], 1) == 0
    assert make_agent("ismcts:confidence=2")._pick(value[:2], 1) == 1
    with pytest.raises(ValueError, match="confidence must be a number"):
        make_agent("ismcts:confidence=-1")


@pytest.mark.parametrize(("actions", "worlds", "cap"), [
    ([3, 5, 2], [10, 4, 7], 1000), ([3, 5, 2], [10, 4, 7], 20), ([7], [100], 30),
    ([50, 2], [1, 9], 10), ([4] * 30, [8] * 30, 64)])
def test_playouts_are_batched_under_the_cap(actions: list[int], worlds: list[int],
                                            cap: int) -> None:
    from uno_agents.ismcts import playout_batches

    batches = playout_batches(actions, worlds, cap)
    pieces = [piece for batch in batches for piece in batch]
    assert [i for i, _ in pieces] == sorted(i for i, _ in pieces)        # in decision order
    for i, count in enumerate(worlds):                                     # every world once
        assert sum(n for j, n in pieces if j == i) == count
    for batch in batches:   # within the cap, except a single world too big on its own
        assert sum(actions[i] * n for i, n in batch) <= cap or batch == [(batch[0][0], 1)]
    if sum(a * w for a, w in zip(actions, worlds, strict=True)) <= cap:
        assert batches == [list(enumerate(worlds))]


def test_ismcts_defaults_to_its_prior_choice_and_else_to_its_playout_policy(
        monkeypatch) -> None:
    """The default the search must beat is the ``prior``'s choice when one is named (how
    expert iteration improves on a network), else the playout policy's: with a search
    that never finds a gain, the agent plays that default."""
    from uno_agents.ismcts import IsmctsAgent

    monkeypatch.setattr(IsmctsAgent, "_pick", lambda self, value, default: default)
    eng = random_positions("official", 2, games=40, seed=7)
    live = np.flatnonzero(~eng.state.done)
    obs, masks = eng.observe(games=live), eng.legal_action_mask(live)
    plain = ~masks[:, [UNO, CATCH, DOBON]].any(axis=1)    # decisions the search plays

    def chosen(spec: str) -> np.ndarray:
        actions = choose_actions(make_agent(spec), eng, live, obs, masks,
                                 np.random.default_rng(1))
        return np.asarray(actions)[plain]

    greedy, tuned = chosen("greedy"), chosen("tuned")
    assert (greedy != tuned).any()
    np.testing.assert_array_equal(chosen("ismcts:budget=8,prior=greedy"), greedy)
    np.testing.assert_array_equal(chosen("ismcts:budget=8"), tuned)


def test_ismcts_memory_is_bounded_by_its_playout_cap(monkeypatch) -> None:
    """A call of many decisions at a large budget never simulates more than the cap at once."""
    import uno_agents.ismcts as ismcts

    sizes = []
    played = ismcts.IsmctsAgent._batch_values

    def recording(self, engine, pieces, rng):
        sizes.append(sum(actions.size * worlds for _, actions, worlds in pieces))
        return played(self, engine, pieces, rng)
    monkeypatch.setattr(ismcts.IsmctsAgent, "_batch_values", recording)
    eng = random_positions("official", 3, games=24, seed=1)
    live = np.flatnonzero(~eng.state.done)
    obs, masks = eng.observe(games=live), eng.legal_action_mask(live)
    agent = make_agent("ismcts:budget=64,horizon=2,screen=0")   # every action, every world
    agent.max_playouts = 100
    chosen = choose_actions(agent, eng, live, obs, masks, np.random.default_rng(0))
    assert masks[np.arange(live.size), chosen].all()
    assert sizes and max(sizes) <= 100 and sum(sizes) >= 64 * (masks.sum(axis=1) > 2).sum()


def test_ismcts_screening_keeps_the_default_and_the_actions_that_might_beat_it() -> None:
    """Rows are actions, columns the worlds of a first round; row 1 is the default. Row 0
    loses 1 in every world (dropped), row 2 gains 0.67 +- 0.42 (kept), row 3 loses
    0.33 +- 0.42 (kept with one standard error, dropped with none)."""
    from uno_agents.ismcts import screen

    value = np.array([[-1.0, -1.0, -1.0, -1.0, -1.0, -1.0],
                      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                      [1.0, 1.0, 1.0, -1.0, 1.0, 1.0],
                      [1.0, -1.0, 1.0, -1.0, -1.0, -1.0]]) * 0.5 + 0.5
    np.testing.assert_array_equal(screen(value, 1, 1.0), [False, True, True, True])
    np.testing.assert_array_equal(screen(value, 1, 0.0), [False, True, True, False])
    np.testing.assert_array_equal(screen(value[:1], 0, 0.5), [True])


def test_ismcts_screening_plays_fewer_playouts_and_no_other_action(monkeypatch) -> None:
    """With a first round the search plays fewer playouts than its budget, and where every
    other action is dropped it plays the default; without one (``screen=0``) every legal
    action is played in every world. The compiled and the Python playouts decide alike."""
    import uno_agents.ismcts as ismcts

    played = ismcts.IsmctsAgent._batch_values
    sizes: list[int] = []

    def recording(self, engine, pieces, rng):
        sizes.append(sum(actions.size * worlds for _, actions, worlds in pieces))
        return played(self, engine, pieces, rng)
    monkeypatch.setattr(ismcts.IsmctsAgent, "_batch_values", recording)
    eng = random_positions("official", 2, games=24, seed=3)
    live = np.flatnonzero(~eng.state.done)
    obs, masks = eng.observe(games=live), eng.legal_action_mask(live)
    legal = masks.sum(axis=1)[(masks.sum(axis=1) > 1) & ~masks[:, [UNO, CATCH, DOBON]].any(axis=1)]
    full = (64 // legal * legal).sum()
    chosen = {}
    for spec in ("ismcts:budget=64,screen=0", "ismcts:budget=64"):
        for compiled in (True, False):
            agent = make_agent(spec)
            agent.compiled_playouts = compiled
            sizes.clear()
            chosen[spec, compiled] = choose_actions(agent, eng, live, obs, masks,
                                                    np.random.default_rng(4))
            assert masks[np.arange(live.size), chosen[spec, compiled]].all()
            assert (sum(sizes) == full) if spec.endswith("screen=0") else (sum(sizes) < full)
        np.testing.assert_array_equal(chosen[spec, True], chosen[spec, False])
    with pytest.raises(ValueError, match=r"screen must be a number in \[0, 1\)"):
        make_agent("ismcts:screen=1")


def test_ismcts_needs_the_engine() -> None:
    with pytest.raises(TypeError, match="act_in"):
        make_agent("ismcts").act(np.zeros((1, 3), np.float32),
                                 np.ones((1, NUM_ACTIONS), bool), np.random.default_rng(0))
    with pytest.raises(ValueError, match="budget must be a positive integer"):
        make_agent("ismcts:budget=0")
    with pytest.raises(ValueError, match=r"drew_on_weight must be a number in \(0, 1\]"):
        make_agent("ismcts:drew_on_weight=0")
