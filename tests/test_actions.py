"""The fixed action table."""

from __future__ import annotations

import pytest

from uno_env import ACTION_NAMES, NUM_ACTIONS, action_id, action_name
from uno_env.cards import COLORS, KIND_NAMES, WILD_SYMBOLS


def test_action_count_and_uniqueness():
    assert NUM_ACTIONS == 119
    assert len(ACTION_NAMES) == NUM_ACTIONS
    assert len(set(ACTION_NAMES)) == NUM_ACTIONS


@pytest.mark.parametrize("action", range(NUM_ACTIONS))
def test_id_name_round_trip(action):
    name = action_name(action)
    assert name == ACTION_NAMES[action]
    assert action_id(name) == action


@pytest.mark.parametrize("name", ["play R5", "play WD4:R", "draw", "pass", "challenge", "uno",
                                  "catch", "dobon", "color:G", "target:3", "play GS", "play BR",
                                  "play YD2", "play W:B", "play WD10:Y", "target:1", "target:9"])
def test_examples_are_actions(name):
    assert name in ACTION_NAMES
    assert action_name(action_id(name)) == name


def test_every_colored_kind_is_a_play_and_every_wild_is_folded_with_each_color():
    names = set(ACTION_NAMES)
    for kind in KIND_NAMES:
        if kind in WILD_SYMBOLS:
            assert f"play {kind}" not in names
            for c in COLORS:
                assert f"play {kind}:{c}" in names
        else:
            assert f"play {kind}" in names


def test_color_and_target_actions():
    assert [action_name(action_id(f"color:{c}")) for c in COLORS] == [f"color:{c}" for c in COLORS]
    targets = [n for n in ACTION_NAMES if n.startswith("target:")]
    assert targets == [f"target:{k}" for k in range(1, 10)]


def test_lenient_spelling():
    assert action_id("  play   r5 ") == action_id("play R5")
    assert action_id("play wd4:r") == action_id("play WD4:R")
    assert action_id("DRAW") == action_id("draw")
    assert action_id("color:green") == action_id("color:G")


@pytest.mark.parametrize("name", ["play X5", "play R10", "play W", "play WD4", "play WD4:P",
                                  "jump", "", "color:P", "target:0", "target:10", "drawtwo",
                                  "play"])
def test_unknown_name_raises_naming_it(name):
    with pytest.raises(ValueError, match="unknown action") as err:
        action_id(name)
    assert repr(name) in str(err.value)


@pytest.mark.parametrize("name", ["play R5:G", "play R5:"])
def test_color_suffix_on_colored_card_is_unknown(name):
    with pytest.raises(ValueError, match="unknown action"):
        action_id(name)


@pytest.mark.parametrize("value", [None, 5, ["draw"]])
def test_non_string_name_raises(value):
    with pytest.raises(ValueError):
        action_id(value)


@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, 1000])
def test_out_of_range_id_raises(action):
    with pytest.raises(ValueError, match=str(action)):
        action_name(action)
