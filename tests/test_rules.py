"""Rule options, validation and presets (docs/rules.md sections 3 and 4)."""

from __future__ import annotations

import dataclasses

import pytest

from uno_env import PRESETS, Engine, Rules

#: docs/rules.md section 4, transcribed: how each preset differs from ``official``.
PRESET_TABLE = {
    "official": {},
    "official_jp": dict(wd4_restriction="playable", challenge_guilty="retract",
                        scoring="zero_sum", rounds=5, target_score=0),
    "federation": dict(
        first_card="bury_non_number", first_player="dealer", dealer="previous_winner",
        draw_rule="until_playable_may_play", draw_keep_going=True,
        play_any_after_draw=True, multi_play="same_number", multi_effects_add=True,
        stack_draw2_on_draw2=True, stack_draw4_on_draw2=True, stack_draw4_on_draw4=True,
        stack_draw2_on_draw4="matching_color", challenge_guilty="retract",
        finish_on_action="forbidden_draw1", scoring="zero_sum", feed_penalty=20),
    "draw_return": dict(
        stack_draw2_on_draw2=True, stack_draw4_on_draw4=True, stack_no_mixing=True,
        stack_reverse=True, stack_skip="skip_next", wd4_restriction="none", challenge=False,
        multi_play="identical", multi_effects_add=True, uno_to_finish=True,
        scoring="zero_sum"),
    "house_dobon": dict(
        dobon=True, multi_skip="each", points="house", scoring="zero_sum",
        draw_rule="one_then_pass", stack_draw2_on_draw2=True, stack_draw4_on_draw4=True,
        stack_wild_cancels=True, wd4_restriction="none", challenge=False,
        multi_play="same_kind", multi_effects_add=True, finish_on_action="forbidden_draw1"),
    "computer": dict(stack_draw2_on_draw2=True, stack_draw4_on_draw4=True,
                     challenge_on_stack=True, jump_in=True, seven_zero=True),
    "last_standing": dict(end="last_standing", scoring="rank"),
    "no_mercy": dict(
        deck="no_mercy168", stack_by_value=True, seven_zero=True,
        draw_rule="until_playable_must_play", first_card="redraw_non_number", challenge=False,
        mercy_limit=25),
    "teams": dict(teams=True, num_players=4),
}

#: Every option of docs/rules.md section 3 with its base-game default.
DEFAULTS = dict(
    num_players=4, deck="classic108",
    first_card="official", first_player="left_of_dealer", dealer="random",
    draw_rule="one_may_play", draw_when_playable=True, play_any_after_draw=False,
    draw_keep_going=False,
    wd4_restriction="color", wd4_bluff=True, challenge=True, challenge_guilty="offender_draws",
    challenge_penalty=2,
    stack_draw2_on_draw2=False, stack_draw4_on_draw2=False, stack_draw4_on_draw4=False,
    stack_draw2_on_draw4="never", stack_no_mixing=False, stack_reverse=False, stack_skip="none",
    stack_wild_cancels=False, stack_by_value=False, challenge_on_stack=False,
    multi_play="none", multi_effects_add=False, multi_skip="consecutive", uno_to_finish=False,
    finish_on_action="allowed", uno_penalty=2, single_card_finish=False,
    declare_on_finish=0,
    seven_zero=False, zero_open=False, jump_in=False, skip_answers_skip=False, dobon=False,
    mercy_limit=0,
    roulette_color="player",
    end="first_out", scoring="winner_takes_sum", points="standard",
    draw_return_winner="zero_sum", draw_return_winner_points=-20, feed_penalty=0,
    match=False, target_score=500, rounds=0, max_turns=1000, teams=False,
)

#: A valid non-default value (with what it needs) for each variant option.
NON_DEFAULT = {
    "stack_draw2_on_draw2": dict(stack_draw2_on_draw2=True),
    "stack_draw4_on_draw2": dict(stack_draw4_on_draw2=True),
    "stack_draw4_on_draw4": dict(stack_draw4_on_draw4=True),
    "stack_draw2_on_draw4": dict(stack_draw2_on_draw4="any"),
    "stack_no_mixing": dict(stack_no_mixing=True),
    "stack_reverse": dict(stack_reverse=True),
    "stack_skip": dict(stack_skip="pass_on"),
    "stack_wild_cancels": dict(stack_wild_cancels=True),
    "stack_by_value": dict(stack_by_value=True),
    "challenge_on_stack": dict(challenge_on_stack=True),
    "multi_play": dict(multi_play="identical"),
    "multi_effects_add": dict(multi_play="same_kind", multi_effects_add=True),
    "multi_skip": dict(multi_skip="each"),
    "uno_to_finish": dict(multi_play="identical", uno_to_finish=True),
    "roulette_color": dict(deck="no_mercy168", challenge=False, roulette_color="victim"),
    "finish_on_action": dict(finish_on_action="forbidden_draw2"),
    "seven_zero": dict(seven_zero=True),
    "zero_open": dict(zero_open=True),
    "jump_in": dict(jump_in=True),
    "skip_answers_skip": dict(skip_answers_skip=True),
    "dobon": dict(dobon=True),
    "mercy_limit": dict(mercy_limit=25),
    "end": dict(end="last_standing"),
    "feed_penalty": dict(feed_penalty=20),
    "single_card_finish": dict(multi_play="same_kind", single_card_finish=True),
    "declare_on_finish": dict(multi_play="same_kind", declare_on_finish=2),
    "draw_keep_going": dict(draw_rule="until_playable_may_play", draw_keep_going=True),
    "draw_return_winner": dict(scoring="zero_sum", draw_return_winner="fixed",
                               draw_return_winner_points=-50),
    "teams": dict(teams=True),
}


def test_defaults_are_the_base_game():
    r = Rules()
    for name, value in DEFAULTS.items():
        assert getattr(r, name) == value, name
    assert r.auto_forced is False
    assert r.reward == "win"


def test_every_option_of_the_rules_exists():
    names = {f.name for f in dataclasses.fields(Rules)}
    assert set(DEFAULTS) <= names


def test_rules_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Rules().challenge = False


def test_every_preset_is_declared():
    assert set(PRESETS) == set(PRESET_TABLE)


@pytest.mark.parametrize("name", sorted(PRESET_TABLE))
def test_preset_differs_from_official_exactly_as_listed(name):
    listed = PRESET_TABLE[name]
    rules = Rules.preset(name)
    for option, value in listed.items():
        assert getattr(rules, option) == value, option
    expected = {k: v for k, v in listed.items() if v != DEFAULTS[k] and k != "num_players"}
    assert rules.differences() == expected


def test_official_preset_is_the_default():
    assert Rules.preset("official") == Rules()


def test_preset_overrides():
    r = Rules.preset("official_jp", num_players=3, scoring="none", match=True)
    assert (r.num_players, r.scoring, r.match) == (3, "none", True)
    assert (r.wd4_restriction, r.challenge_guilty, r.rounds) == ("playable", "retract", 5)
    assert r.target_score == 0


def test_replace_validates():
    r = Rules().replace(num_players=2)
    assert r.num_players == 2
    with pytest.raises(ValueError, match="num_players"):
        Rules().replace(num_players=11)
    with pytest.raises(ValueError, match="bogus"):
        Rules().replace(bogus=1)


def test_unknown_preset_names_it():
    with pytest.raises(ValueError, match="'officail'"):
        Rules.preset("officail")


def test_unknown_option_in_preset_names_it():
    with pytest.raises(ValueError, match="stack_everything"):
        Rules.preset("official", stack_everything=True)


def test_unknown_option_in_constructor_names_it():
    with pytest.raises((TypeError, ValueError), match="stack_everything"):
        Rules(stack_everything=True)


@pytest.mark.parametrize(("overrides", "option"), [
    (dict(num_players=11), "num_players"),
    (dict(num_players=1), "num_players"),
    (dict(num_players=0), "num_players"),
    (dict(deck="classic100"), "deck"),
    (dict(first_card="random"), "first_card"),
    (dict(first_player="right_of_dealer"), "first_player"),
    (dict(dealer="youngest"), "dealer"),
    (dict(draw_rule="two_then_pass"), "draw_rule"),
    (dict(draw_when_playable=1), "draw_when_playable"),
    (dict(play_any_after_draw="yes"), "play_any_after_draw"),
    (dict(wd4_restriction="never"), "wd4_restriction"),
    (dict(wd4_bluff=None), "wd4_bluff"),
    (dict(challenge=0), "challenge"),
    (dict(challenge_guilty="forgive"), "challenge_guilty"),
    (dict(challenge_penalty=-1), "challenge_penalty"),
    (dict(challenge_penalty=2.5), "challenge_penalty"),
    (dict(uno_penalty=-2), "uno_penalty"),
    (dict(uno_penalty=True), "uno_penalty"),
    (dict(declare_on_finish=-1), "declare_on_finish"),
    (dict(scoring="most_points"), "scoring"),
    (dict(points="fancy"), "points"),
    (dict(match="true"), "match"),
    (dict(target_score=-500), "target_score"),
    (dict(rounds=-1), "rounds"),
    (dict(max_turns=0), "max_turns"),
    (dict(auto_forced=1), "auto_forced"),
    (dict(reward="money"), "reward"),
    (dict(end="never"), "end"),
    (dict(multi_play="all"), "multi_play"),
    (dict(stack_skip="maybe"), "stack_skip"),
    (dict(draw_return_winner="all"), "draw_return_winner"),
    (dict(draw_return_winner_points=20), "draw_return_winner_points"),
])
def test_invalid_value_names_the_option(overrides, option):
    with pytest.raises(ValueError, match=option):
        Rules(**overrides)
    with pytest.raises(ValueError, match=option):
        Rules.preset("official", **overrides)


@pytest.mark.parametrize(("overrides", "option"), [
    (dict(challenge=True, wd4_restriction="none"), "challenge"),
    (dict(challenge=True, wd4_bluff=False), "challenge"),
    (dict(scoring="rank"), "scoring"),
    (dict(reward="rank"), "reward"),
    (dict(teams=True, num_players=3), "teams"),
    (dict(multi_effects_add=True), "multi_effects_add"),
    (dict(challenge=False, challenge_on_stack=True), "challenge_on_stack"),
    (dict(draw_return_winner="zero"), "draw_return_winner"),
    (dict(draw_keep_going=True), "draw_keep_going"),
    (dict(single_card_finish=True), "single_card_finish"),
    (dict(declare_on_finish=2), "declare_on_finish"),
])
def test_invalid_combination_names_the_option(overrides, option):
    with pytest.raises(ValueError, match=option):
        Rules(**overrides)


#: Option sets under which no seat's match score ever reaches a target (the Draw返し
#: winner scoring 0 or a non-negative fixed amount, no target, no points at all).
ENDLESS = [
    dict(scoring="zero_sum", draw_return_winner="zero"),
    dict(scoring="zero_sum", draw_return_winner="fixed", draw_return_winner_points=0),
    dict(target_score=0),
    dict(scoring="none"),
]


@pytest.mark.parametrize("options", ENDLESS)
def test_a_match_that_can_never_end_is_refused(options):
    with pytest.raises(ValueError, match="match=True") as err:
        Rules(match=True, **options)
    assert "rounds limit" in str(err.value)
    for name, value in options.items():
        assert f"{name}={value!r}" in str(err.value)


@pytest.mark.parametrize("options", ENDLESS)
def test_an_endless_scoring_builds_with_a_rounds_limit_or_as_one_round(options):
    assert Rules(match=True, rounds=5, **options).rounds == 5
    assert Rules(**options).match is False


@pytest.mark.parametrize("options", [
    dict(scoring="zero_sum", draw_return_winner="fixed", draw_return_winner_points=-20),
    dict(scoring="zero_sum", draw_return_winner="zero", feed_penalty=20),
    dict(scoring="zero_sum"),
])
def test_a_match_some_seat_can_win_needs_no_rounds_limit(options):
    assert Rules(match=True, **options).rounds == 0


@pytest.mark.parametrize("options", [
    dict(challenge=False, wd4_restriction="none"),
    dict(challenge=False, wd4_bluff=False),
    dict(num_players=2),
    dict(num_players=10),
    dict(uno_penalty=0, challenge_penalty=0, rounds=5, match=True),
    dict(target_score=0, rounds=5, match=True),
])
def test_valid_combinations_build(options):
    rules = Rules(**options)
    assert {name: getattr(rules, name) for name in options} == options
    assert Engine(rules, 2, seed=0).legal_action_mask().any(axis=1).all()


@pytest.mark.parametrize("preset", sorted(PRESET_TABLE))
@pytest.mark.parametrize("players", [2, 10])
def test_presets_build_for_any_player_count(preset, players):
    if preset == "teams":
        assert Rules.preset(preset).num_players == 4
        return
    assert Rules.preset(preset, num_players=players).num_players == players


@pytest.mark.parametrize("option", sorted(NON_DEFAULT))
def test_every_variant_option_plays(option):
    rules = Rules(**NON_DEFAULT[option])
    eng = Engine(rules, 2, seed=0)
    assert eng.legal_action_mask()[~eng.done].any(axis=1).all()
    assert (eng.census() == eng.deck_composition()).all()


@pytest.mark.parametrize("deck", ["classic112_swap", "classic112_shuffle", "no_mercy168"])
def test_every_variant_deck_plays(deck):
    eng = Engine(Rules(deck=deck), 2, seed=0)
    assert (eng.census() == eng.deck_composition()).all()


@pytest.mark.parametrize("preset", ["official", "official_jp"])
def test_issue_presets_build_an_engine(preset):
    eng = Engine(Rules.preset(preset, num_players=3), 2, seed=0)
    assert eng.legal_action_mask().shape == (2, eng.num_actions)


def test_minimalista_deck_plays():
    eng = Engine(Rules(deck="minimalista"), 3, seed=1)
    assert (eng.census() == eng.deck_composition()).all()
    assert eng.deck_composition().sum() == 112


def test_describe_marks_differences():
    text = Rules.preset("official_jp").describe()
    assert "official_jp" in text
    line = next(x for x in text.splitlines() if "challenge_guilty" in x)
    assert line.lstrip().startswith("*")
    line = next(x for x in text.splitlines() if " uno_penalty" in x)
    assert not line.lstrip().startswith("*")
