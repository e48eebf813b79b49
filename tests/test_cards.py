"""The universal card table (docs/rules.md section 1)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from uno_env.cards import (
    COLORS,
    DECKS,
    DRAW_VALUE,
    KIND_NAMES,
    NUM_KINDS,
    POINTS_HOUSE,
    POINTS_STANDARD,
    CardError,
    card_name,
    cards_from_counts,
    counts_from_cards,
    parse_card,
    parse_color,
)

NUMBERS = [str(n) for n in range(10)]


def count(deck: str, card: str) -> int:
    return int(DECKS[deck][parse_card(card)])


@pytest.mark.parametrize(("deck", "size"), [
    ("classic108", 108), ("classic112_swap", 112), ("classic112_shuffle", 112),
    ("minimalista", 112), ("no_mercy168", 168),
])
def test_deck_sizes(deck, size):
    assert int(DECKS[deck].sum()) == size


def test_every_deck_of_rules_is_declared():
    assert set(DECKS) == {"classic108", "classic112_swap", "classic112_shuffle", "minimalista",
                          "no_mercy168"}


@pytest.mark.parametrize("color", COLORS)
def test_classic108_counts_per_color(color):
    assert count("classic108", color + "0") == 1
    for n in range(1, 10):
        assert count("classic108", f"{color}{n}") == 2
    for symbol in ("S", "R", "D2"):
        assert count("classic108", color + symbol) == 2
    for symbol in ("D4", "SE", "DA"):
        assert count("classic108", color + symbol) == 0


def test_classic108_wilds():
    assert count("classic108", "W") == 4
    assert count("classic108", "WD4") == 4
    for wild in ("WSH", "WSF", "WCU", "WRD4", "WD6", "WD10", "WCR"):
        assert count("classic108", wild) == 0


def test_classic112_swap_is_classic_plus_swap_and_customizable():
    extra = DECKS["classic112_swap"] - DECKS["classic108"]
    assert cards_from_counts(extra) == ["WSH", "WCU", "WCU", "WCU"]


def test_classic112_shuffle_is_classic_plus_shuffle_and_customizable():
    extra = DECKS["classic112_shuffle"] - DECKS["classic108"]
    assert cards_from_counts(extra) == ["WSF", "WCU", "WCU", "WCU"]


def test_minimalista_is_classic_plus_four_wilds():
    extra = DECKS["minimalista"] - DECKS["classic108"]
    assert cards_from_counts(extra) == ["W"] * 4


@pytest.mark.parametrize("color", COLORS)
def test_no_mercy_counts_per_color(color):
    for n in NUMBERS:
        assert count("no_mercy168", color + n) == 2
    expected = {"S": 3, "R": 3, "D2": 3, "D4": 2, "SE": 2, "DA": 3}
    for symbol, n in expected.items():
        assert count("no_mercy168", color + symbol) == n


def test_no_mercy_wilds():
    assert {w: count("no_mercy168", w) for w in ("W", "WD4", "WRD4", "WD6", "WD10", "WCR")} == \
        {"W": 0, "WD4": 0, "WRD4": 8, "WD6": 4, "WD10": 4, "WCR": 8}


def test_decks_are_non_negative_and_cover_one_table():
    for counts in DECKS.values():
        assert counts.shape == (NUM_KINDS,)
        assert (counts >= 0).all()


@pytest.mark.parametrize(("card", "points"), [
    *[(f"{c}{n}", n) for c in COLORS for n in range(10)],
    ("RS", 20), ("YR", 20), ("GD2", 20), ("BD4", 20), ("RSE", 20), ("YDA", 20),
    ("W", 50), ("WD4", 50), ("WSH", 40), ("WSF", 40), ("WCU", 40),
    ("WRD4", 50), ("WD6", 50), ("WD10", 50), ("WCR", 50),
])
def test_standard_points(card, points):
    assert POINTS_STANDARD[parse_card(card)] == points


@pytest.mark.parametrize(("card", "points"), [
    *[(f"{c}{n}", n) for c in COLORS for n in range(10)],
    ("RS", 10), ("YR", 10), ("GD2", 10), ("BD4", 10), ("RSE", 10), ("YDA", 10),
    ("W", 20), ("WD4", 20), ("WSH", 20), ("WSF", 20), ("WCU", 20),
    ("WRD4", 20), ("WD6", 20), ("WD10", 20), ("WCR", 20),
])
def test_house_points(card, points):
    assert POINTS_HOUSE[parse_card(card)] == points


def test_draw_values():
    expected = {"D2": 2, "D4": 4}
    for color in COLORS:
        for symbol in (*NUMBERS, "S", "R", "D2", "D4", "SE", "DA"):
            assert DRAW_VALUE[parse_card(color + symbol)] == expected.get(symbol, 0), symbol
    wild = {"W": 0, "WD4": 4, "WSH": 0, "WSF": 0, "WCU": 0, "WRD4": 4, "WD6": 6, "WD10": 10,
            "WCR": 0}
    for name, value in wild.items():
        assert DRAW_VALUE[parse_card(name)] == value, name


def test_kind_names_unique():
    assert len(set(KIND_NAMES)) == len(KIND_NAMES) == NUM_KINDS


@pytest.mark.parametrize("kind", range(NUM_KINDS))
def test_notation_round_trip(kind):
    name = card_name(kind)
    assert parse_card(name) == kind
    assert parse_card(name.lower()) == kind
    assert parse_card(f" {name} ") == kind


@pytest.mark.parametrize("card", ["R5", "GS", "BR", "YD2", "W", "WD4", "RD4", "RSE", "RDA",
                                  "WSH", "WSF", "WRD4", "WD6", "WD10", "WCR"])
def test_notation_examples_of_the_issue(card):
    assert KIND_NAMES[parse_card(card)] == card


@pytest.mark.parametrize("text", ["", "R", "R10", "X5", "5R", "WD5", "RW", "RWD4", "GD3",
                                  "W D4", "WILD", "R-5"])
def test_malformed_card_raises_card_error_naming_it(text):
    with pytest.raises(CardError, match=re.escape(repr(text))):
        parse_card(text)


@pytest.mark.parametrize("value", [None, 5, 3.0, ["R5"]])
def test_non_string_card_raises_card_error(value):
    with pytest.raises(CardError, match="card"):
        parse_card(value)


def test_card_error_is_a_value_error():
    assert issubclass(CardError, ValueError)


def test_parse_color():
    assert [parse_color(c) for c in ("R", "Y", "G", "B")] == [0, 1, 2, 3]
    assert parse_color("green") == 2
    with pytest.raises(CardError, match="'P'"):
        parse_color("P")


def test_counts_round_trip():
    cards = ["R5", "R5", "WD4", "GS", "B0"]
    counts = counts_from_cards(cards)
    assert counts.sum() == 5
    assert sorted(cards_from_counts(counts)) == sorted(cards)
    np.testing.assert_array_equal(counts_from_cards(cards_from_counts(DECKS["classic108"])),
                                  DECKS["classic108"])
