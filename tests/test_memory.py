"""The public-memory views: what every player has seen each opponent do this round.

Scenario tests check each event on both backends; a replay check derives the views
from the public record alone (actions, the color before each, the seats) and finds
them equal to the engine's in random games; two games that differ only in cards
hidden from the observer give the observer the same memory.
"""

from __future__ import annotations

import numpy as np
import pytest
from scenario import random_actions

from uno_env import PRESETS, Engine, Rules
from uno_env.actions import ACTION_COLOR, ACTION_KIND, COLOR_BASE, DRAW, NUM_COLORS, TARGET_BASE
from uno_env.cards import KIND_COLOR, KIND_ID, KIND_SYMBOL, NUM_KINDS, parse_color
from uno_env.engine.observe import (
    NUM_SYMBOLS,
    OTHERS,
    RULES_SIZE,
    SEAT_VIEWS,
    VIEW_SLICES,
    seat_view,
)
from uno_env.engine.state import TURN

MEMORY_VIEWS = ("drew_on", "last_played_color", "last_played_symbol", "last_named",
                "wd4_after_draw")
#: The memory views: the end of the observation, in this order.
MEMORY = slice(VIEW_SLICES["drew_on"].start, VIEW_SLICES["wd4_after_draw"].stop)
#: Columns per seat of each memory view.
WIDTH = {"drew_on": NUM_COLORS, "last_played_color": NUM_COLORS,
         "last_played_symbol": NUM_SYMBOLS, "last_named": NUM_COLORS, "wd4_after_draw": 1}


def memory(eng: Engine, observer: int, game: int = 0) -> dict[str, np.ndarray]:
    """Each memory view of ``game`` seen by ``observer``, one row per seat offset 1..9."""
    obs = eng.observe(players=[observer], games=[game])[0]
    return {name: seat_view(obs, name) for name in MEMORY_VIEWS}


def test_seat_view_splits_a_view_into_seat_rows():
    assert SEAT_VIEWS == {**WIDTH, "shown_hands": NUM_KINDS}   # and zero_open's shown cards
    obs = np.arange(2 * 3 * VIEW_SLICES["wd4_after_draw"].stop, dtype=np.float32).reshape(2, 3, -1)
    rows = seat_view(obs, "last_named")
    assert rows.shape == (2, 3, OTHERS, NUM_COLORS)
    start = VIEW_SLICES["last_named"].start
    assert rows[1, 2, 3].tolist() == obs[1, 2, start + 12:start + 16].tolist()
    with pytest.raises(ValueError, match="hand_sizes.*per-seat views: drew_on"):
        seat_view(obs, "hand_sizes")


def colors(*letters: str) -> list[float]:
    row = [0.0] * NUM_COLORS
    for c in letters:
        row[parse_color(c)] = 1.0
    return row


def symbol(card: str) -> list[float]:
    row = [0.0] * NUM_SYMBOLS
    row[KIND_SYMBOL[KIND_ID[card]]] = 1.0
    return row


def two_player(**options) -> Engine:
    rules = Rules.preset("official", num_players=2, uno_penalty=0, **options)
    return Engine.from_setup(rules, hands=[["R1", "R2", "R9"], ["G5", "WD4", "Y3"]], top="R3",
                             current=0, deck=["Y7", "B8", "B9", "G1", "G2", "Y1"])


def test_memory_views_are_appended_after_the_first_layout():
    assert VIEW_SLICES["rules"].stop == 429 + RULES_SIZE
    assert VIEW_SLICES["drew_on"].start == VIEW_SLICES["rules"].stop
    for name in MEMORY_VIEWS:
        view = VIEW_SLICES[name]
        assert view.stop - view.start == OTHERS * WIDTH[name]


@pytest.mark.usefixtures("each_backend")
def test_draw_then_play_then_wild_draw_four():
    eng = two_player()
    start = memory(eng, 0)
    assert not any(v.any() for v in start.values())
    eng.step_names("play R1")
    seen_by_1 = memory(eng, 1)
    assert seen_by_1["last_played_color"][0].tolist() == colors("R")
    assert seen_by_1["last_played_symbol"][0].tolist() == symbol("R1")
    eng.step_names("draw")                       # Y7: not playable, the turn passes
    seen = memory(eng, 0)
    assert seen["drew_on"][0].tolist() == colors("R")
    assert not seen["last_played_symbol"].any() and not seen["wd4_after_draw"].any()
    assert not memory(eng, 1)["drew_on"].any()   # a seat's own draws are not in its view
    eng.step_names("play R2")
    eng.step_names("play WD4:B")                 # after drawing on red, which it replaces
    seen = memory(eng, 0)
    assert not seen["drew_on"].any()             # forgotten at the play
    assert seen["last_played_symbol"][0].tolist() == symbol("WD4")
    assert not seen["last_played_color"].any()   # a wild has no color of its own
    assert seen["last_named"][0].tolist() == colors("B")
    assert seen["wd4_after_draw"][0].tolist() == [1.0]


@pytest.mark.usefixtures("each_backend")
def test_wild_draw_four_without_a_draw_on_the_color():
    eng = two_player()
    eng.step_names("play R1")
    eng.step_names("play WD4:G")                 # no draw before: nothing to tell
    seen = memory(eng, 0)
    assert seen["wd4_after_draw"][0].tolist() == [0.0]
    assert seen["last_named"][0].tolist() == colors("G")


@pytest.mark.usefixtures("each_backend")
def test_colors_drawn_on_add_up_until_the_next_play():
    rules = Rules.preset("official", num_players=2, uno_penalty=0)
    eng = Engine.from_setup(rules, hands=[["R1", "W", "B2", "G7"], ["G5", "Y3", "Y4"]], top="R3",
                            current=0, deck=["R7", "B8", "B9"])
    eng.step_names("play R1")
    eng.step_names("draw")                       # R7 is playable: keep it
    eng.step_names("pass")
    eng.step_names("play W:B")
    eng.step_names("draw")                       # B8 playable: keep it
    eng.step_names("pass")
    assert memory(eng, 0)["drew_on"][0].tolist() == colors("R", "B")
    assert memory(eng, 1)["last_named"][0].tolist() == colors("B")
    eng.step_names("play B2")
    eng.step_names("play B8")
    assert not memory(eng, 0)["drew_on"].any()


@pytest.mark.usefixtures("each_backend")
def test_a_color_named_for_a_wild_turned_up():
    rules = Rules.preset("official", num_players=3, uno_penalty=0)
    eng = Engine.from_setup(rules, hands=[["R1"], ["G5"], ["Y3"]], top=None, dealer=2,
                            deck=["W"])
    assert eng.phase_name() == "choose_color" and int(eng.current_player[0]) == 0
    eng.step_names("color:G")
    assert memory(eng, 2)["last_named"][0].tolist() == colors("G")   # seat 0 is offset 1
    assert not memory(eng, 2)["last_played_symbol"].any()             # not a card played


@pytest.mark.usefixtures("each_backend")
def test_colors_drawn_on_follow_a_swapped_hand():
    rules = Rules.preset("official", num_players=3, uno_penalty=0, seven_zero=True)
    eng = Engine.from_setup(rules, hands=[["R1", "R7", "G9"], ["G5", "Y3"], ["R5", "B1"]],
                            top="R3", current=0, deck=["Y7", "B8"])
    eng.step_names("play R1")
    eng.step_names("draw")                       # seat 1 draws on red
    eng.step_names("play R5")
    eng.step_names("play R7")
    eng.step_names("target:1")                   # seat 0 takes seat 1's hand
    seen = memory(eng, 2)                        # offsets: 1 -> seat 0, 2 -> seat 1
    assert seen["drew_on"][0].tolist() == colors("R")
    assert not seen["drew_on"][1].any()
    assert seen["last_played_symbol"][0].tolist() == symbol("R7")   # plays stay with the seat
    assert not seen["last_played_symbol"][1].any()


@pytest.mark.usefixtures("each_backend")
def test_memory_is_forgotten_at_a_new_round():
    rules = Rules.preset("official", num_players=2, uno_penalty=0, match=True, rounds=3)
    eng = Engine.from_setup(rules, hands=[["R1", "R2"], ["G5", "WD4", "Y3"]], top="R3",
                            current=0, deck=["Y7", "B8"])
    eng.step_names("play R1")
    eng.step_names("draw")
    assert memory(eng, 0)["drew_on"].any() and memory(eng, 1)["last_played_symbol"].any()
    eng.step_names("play R2")                    # seat 0 goes out: the next round is dealt
    assert int(eng.state.rounds_played[0]) == 1 and not eng.done[0]
    for seat in (0, 1):
        assert not any(v.any() for v in memory(eng, seat).values())


@pytest.mark.usefixtures("each_backend")
def test_games_differing_only_in_hidden_cards_give_the_same_memory():
    """Seat 0's opponents hold other cards and the pile differs; the same public play."""
    rules = Rules.preset("official", num_players=3, uno_penalty=0)
    hidden_a = dict(hands=[["R1", "R2", "W", "B4"], ["G5", "WD4", "Y3"], ["R5", "Y9", "G1"]],
                    deck=["Y7", "B8", "G3", "Y2"])
    hidden_b = dict(hands=[["R1", "R2", "W", "B4"], ["G6", "WD4", "B3"], ["R5", "G9", "Y1"]],
                    deck=["B2", "G8", "Y6", "Y5"])
    script = ["play R1", "draw", "play R5", "play W:R", "play WD4:Y", "draw"]
    engines = [Engine.from_setup(rules, top="R3", current=0, **h) for h in (hidden_a, hidden_b)]
    for name in script:
        for eng in engines:
            eng.step_names(name)
        a, b = (memory(eng, 0) for eng in engines)
        for view in MEMORY_VIEWS:
            np.testing.assert_array_equal(a[view], b[view], err_msg=f"{view} after {name!r}")
    assert memory(engines[0], 0)["wd4_after_draw"][0].tolist() == [1.0]


# --- the views follow from the public record alone -----------------------------------------

class PublicRecord:
    """The memory views rebuilt from what every player sees: the acting seat, its action,
    the color before it, the phase, and whether a color choice is a Roulette's."""

    def __init__(self, num_games: int, num_players: int) -> None:
        self.drew_on = np.zeros((num_games, num_players, NUM_COLORS), bool)
        self.last_played = np.full((num_games, num_players), -1)
        self.last_named = np.full((num_games, num_players), -1)
        self.wd4_after_draw = np.zeros((num_games, num_players), bool)

    def forget(self, g: int) -> None:
        self.drew_on[g] = False
        self.last_played[g] = -1
        self.last_named[g] = -1
        self.wd4_after_draw[g] = False

    def note(self, g: int, seat: int, action: int, color: int, phase: int,
             roulette: bool) -> None:
        kind = int(ACTION_KIND[action])
        if action == DRAW and phase == TURN:
            self.drew_on[g, seat, color] = True
        elif kind >= 0:
            if kind == KIND_ID["WD4"]:
                self.wd4_after_draw[g, seat] = self.drew_on[g, seat, color]
            if KIND_COLOR[kind] < 0:
                self.last_named[g, seat] = ACTION_COLOR[action]
            self.last_played[g, seat] = kind
            self.drew_on[g, seat] = False
        elif COLOR_BASE <= action < TARGET_BASE and not roulette:
            self.last_named[g, seat] = action - COLOR_BASE

    def views(self, g: int, observer: int) -> np.ndarray:
        """The memory views of game ``g`` seen by ``observer``, flat as in the observation."""
        p = self.drew_on.shape[1]
        out = {name: np.zeros((OTHERS, WIDTH[name]), np.float32) for name in MEMORY_VIEWS}
        for o in range(1, p):
            seat = (observer + o) % p
            out["drew_on"][o - 1] = self.drew_on[g, seat]
            out["wd4_after_draw"][o - 1] = self.wd4_after_draw[g, seat]
            kind = self.last_played[g, seat]
            if kind >= 0:
                out["last_played_symbol"][o - 1, KIND_SYMBOL[kind]] = 1
                if KIND_COLOR[kind] >= 0:
                    out["last_played_color"][o - 1, KIND_COLOR[kind]] = 1
            if self.last_named[g, seat] >= 0:
                out["last_named"][o - 1, self.last_named[g, seat]] = 1
        return np.concatenate([out[name].ravel() for name in MEMORY_VIEWS])


#: Presets whose hands never change seats and whose decisions are all taken by players
#: (hand exchanges have their own scenario test), plus match play for new rounds.
REPLAYED = [(name, {}) for name in sorted(PRESETS)
            if not Rules.preset(name).seven_zero and Rules.preset(name).deck == "classic108"
            and not Rules.preset(name).auto_forced]
REPLAYED += [("official", {"match": True, "rounds": 3, "num_players": 3})]


@pytest.mark.parametrize(("preset", "options"), REPLAYED, ids=[p for p, _ in REPLAYED])
def test_views_follow_from_the_public_record(preset, options, rng):
    """On the default backend (the backends' lockstep test covers the other)."""
    rules = Rules.preset(preset, **{"max_turns": 60, **options})
    eng = Engine(rules, num_games=6, seed=3)
    record = PublicRecord(eng.num_games, eng.num_players)
    for _ in range(100):
        s = eng.state
        before = (s.current.copy(), s.color.copy(), s.phase.copy(), s.roulette.copy(),
                  s.rounds_played.copy())
        running = np.flatnonzero(~s.done)
        actions = random_actions(eng, rng)
        eng.step(actions)
        for g in running:
            record.note(g, before[0][g], actions[g], before[1][g], before[2][g], before[3][g])
        for g in np.flatnonzero(eng.state.rounds_played != before[4]):
            if not eng.state.done[g]:
                record.forget(g)
        for observer in range(eng.num_players):
            got = eng.observe(players=observer)[:, MEMORY]
            expected = np.stack([record.views(g, observer) for g in range(eng.num_games)])
            np.testing.assert_array_equal(got, expected, err_msg=f"seen by seat {observer}")
        done = np.flatnonzero(eng.state.done)
        if done.size:
            eng.reset(games=done)
            for g in done:
                record.forget(g)
