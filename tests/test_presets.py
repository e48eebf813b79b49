"""Every preset (docs/rules.md section 4) and every deck (section 1) plays end to end; the worked
example 6 of section 5; invalid option combinations are refused by name.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest
from scenario import eager_actions, random_actions

from uno_env import PRESETS, Engine, Rules
from uno_env.cards import DECKS


def same(a, b) -> bool:
    return Counter(a) == Counter(b)


# --- docs/rules.md section 5, example 6 ---------------------------------------------------------

def test_example6_draw_return_reverse_sends_the_stack_back():
    rules = Rules.preset("draw_return", num_players=3, uno_penalty=0)
    hands = [["RD2", "B1", "B2"], ["RD2", "Y1", "Y2"], ["RR", "G1", "G2"]]
    eng = Engine.from_setup(rules, hands=hands, top="R5",
                            deck=["B7", "B8", "B9", "Y9", "G9"])
    eng.step_names("play RD2")
    assert int(eng.current_player[0]) == 1
    assert eng.phase_name() == "respond"
    assert "play RD2" in eng.legal_action_names()
    eng.step_names("play RD2")
    assert int(eng.current_player[0]) == 2
    assert eng.pending_draw[0] == 4
    assert "play RR" in eng.legal_action_names()
    eng.step_names("play RR")
    assert int(eng.state.direction[0]) == -1
    assert same(eng.hand(0, 1), ["Y1", "Y2", "B7", "B8", "B9", "Y9"])
    assert same(eng.hand(0, 0), ["B1", "B2"])
    assert same(eng.hand(0, 2), ["G1", "G2"])
    assert eng.pending_draw[0] == 0
    # Player 1 lost the turn; counter-clockwise, player 0 plays next.
    assert int(eng.current_player[0]) == 0
    assert eng.phase_name() == "turn"


# --- every preset, every player count -----------------------------------------------------------

def preset_cases():
    for name in PRESETS:
        counts = [4] if PRESETS[name].get("teams") else range(2, 11)
        for players in counts:
            yield pytest.param(name, players, id=f"{name}-{players}")


def check_running(eng: Engine) -> None:
    census = eng.census()
    np.testing.assert_array_equal(census, np.broadcast_to(eng.deck_composition(),
                                                          census.shape))
    mask = eng.legal_action_mask()
    running = ~eng.done
    assert mask[running].any(axis=1).all(), "a running game has no legal action"
    assert not mask[~running].any()


def play_to_the_end(eng: Engine, rng: np.random.Generator, limit: int) -> None:
    policy = eager_actions
    check_running(eng)
    for step in range(limit):
        if eng.done.all():
            return
        policy = eager_actions if step % 3 else random_actions
        eng.step(policy(eng, rng))
        check_running(eng)
    assert eng.done.all(), "a game neither ended nor was truncated"


@pytest.mark.parametrize("name,players", list(preset_cases()))
def test_preset_plays_to_the_end_with_random_legal_play(name, players):
    max_turns = 100
    rules = Rules.preset(name, num_players=players, max_turns=max_turns)
    eng = Engine(rules, 3, seed=100 + players)
    play_to_the_end(eng, np.random.default_rng(players), max_turns + 1)
    assert (eng.state.turns <= max_turns).all()
    for g in np.flatnonzero(eng.terminated):
        w = int(eng.winner[g])
        assert 0 <= w < players
    for g in np.flatnonzero(eng.truncated):   # last_standing keeps the first out's win
        w = int(eng.winner[g])
        assert w == -1 or (rules.end == "last_standing" and eng.state.place[g, w] == 0)


@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_rounds_terminate_under_random_play(name):
    players = 4
    rules = Rules.preset(name, num_players=players, max_turns=600)
    eng = Engine(rules, 6, seed=11)
    rng = np.random.default_rng(11)
    for _ in range(601):
        if eng.done.all():
            break
        eng.step(eager_actions(eng, rng))
    assert eng.done.all()
    assert eng.terminated.any(), f"no {name} round reached its end"
    for g in np.flatnonzero(eng.terminated):
        w = int(eng.winner[g])
        if rules.end == "last_standing":
            assert sorted(eng.state.place[g].tolist()) == list(range(players))
            assert int(eng.state.place[g, w]) == 0
        elif rules.dobon and eng.state.dobon_loser[g] >= 0:
            assert eng.hand_sizes[g, int(eng.state.dobon_loser[g])] >= 1
        elif rules.mercy_limit == 0:
            assert eng.hand_sizes[g, w] == 0


@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_batch_game_equals_the_single_game(name):
    rules = Rules.preset(name, num_players=4, max_turns=80)
    batch = Engine(rules, 3, seed=[5, 6, 7])
    single = Engine(rules, 1, seed=[6])
    rng = np.random.default_rng(6)
    for _ in range(80):
        if batch.done[1]:
            break
        actions = eager_actions(batch, rng)
        np.testing.assert_array_equal(batch.legal_action_mask()[1], single.legal_action_mask()[0])
        batch.step(actions)
        single.step(actions[1:2])
        for f in dataclasses.fields(batch.state):
            np.testing.assert_array_equal(getattr(batch.state, f.name)[1],
                                          getattr(single.state, f.name)[0], err_msg=f.name)


@pytest.mark.parametrize("deck", list(DECKS))
@pytest.mark.parametrize("players", [2, 5, 10])
def test_every_deck_plays_with_random_legal_play(deck, players):
    rules = Rules(num_players=players, deck=deck, max_turns=150,
                  challenge=deck != "no_mercy168")
    eng = Engine(rules, 3, seed=players)
    assert int(eng.deck_composition().sum()) == int(DECKS[deck].sum())
    play_to_the_end(eng, np.random.default_rng(players), 151)


def test_deck_sizes_of_rules_section_one():
    sizes = {name: int(d.sum()) for name, d in DECKS.items()}
    assert sizes == {"classic108": 108, "classic112_swap": 112, "classic112_shuffle": 112,
                     "minimalista": 112, "no_mercy168": 168}


# --- invalid combinations -----------------------------------------------------------------------

@pytest.mark.parametrize("options,names", [
    (dict(challenge=True, wd4_restriction="none"), ["challenge", "wd4_restriction"]),
    (dict(challenge=True, wd4_bluff=False), ["challenge", "wd4_bluff"]),
    (dict(challenge=False, challenge_on_stack=True), ["challenge_on_stack"]),
    (dict(scoring="rank"), ["scoring", "end"]),
    (dict(reward="rank"), ["reward", "end"]),
    (dict(teams=True, num_players=3), ["teams", "num_players"]),
    (dict(teams=True, end="last_standing"), ["teams", "last_standing"]),
    (dict(multi_effects_add=True), ["multi_effects_add", "multi_play"]),
    (dict(match=True, scoring="none"), ["match", "scoring", "rounds"]),
    (dict(num_players=11), ["num_players"]),
    (dict(num_players=1), ["num_players"]),
    (dict(max_turns=0), ["max_turns"]),
    (dict(target_score=-1), ["target_score"]),
    (dict(match=True, target_score=0), ["match", "target_score", "rounds"]),
    (dict(match=True, scoring="zero_sum", draw_return_winner="zero"),
     ["match", "draw_return_winner", "rounds"]),
    (dict(match=True, scoring="zero_sum", draw_return_winner="fixed",
          draw_return_winner_points=0), ["match", "draw_return_winner_points", "rounds"]),
    (dict(mercy_limit=-1), ["mercy_limit"]),
    (dict(feed_penalty=-5), ["feed_penalty"]),
    (dict(stack_skip="bounce"), ["stack_skip"]),
    (dict(stack_draw2_on_draw4="sometimes"), ["stack_draw2_on_draw4"]),
    (dict(multi_play="all"), ["multi_play"]),
    (dict(deck="classic100"), ["deck"]),
    (dict(stack_reverse="yes"), ["stack_reverse"]),
])
def test_invalid_option_combination_raises_value_error_naming_the_options(options, names):
    with pytest.raises(ValueError) as err:
        Rules(**options)
    for name in names:
        assert name in str(err.value)


def test_preset_with_an_invalid_override_raises():
    with pytest.raises(ValueError, match="teams"):
        Rules.preset("teams", num_players=3)
    with pytest.raises(ValueError, match="end"):
        Rules.preset("last_standing", end="first_out")
    with pytest.raises(ValueError, match="no_such_option"):
        Rules.preset("official", no_such_option=1)


@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_options_are_those_of_rules_section_four(name):
    rules = Rules.preset(name)
    for option, value in PRESETS[name].items():
        assert getattr(rules, option) == value
    assert rules.preset_name() == name
