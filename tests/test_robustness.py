"""Robustness of the engine: option ranges, bounded draws, atomic steps, checked states and
setups, and malformed actions (a fuzz test)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenario import (
    assert_census,
    assert_same_state,
    damage_hand,
    eager_actions,
    make,
    random_actions,
    snapshot,
)

from uno_env import NUM_ACTIONS, Engine, Rules
from uno_env.cards import DECKS, cards_from_counts, counts_from_cards
from uno_env.engine import core
from uno_env.engine import effects as numpy_effects
from uno_env.engine.core import EngineError
from uno_env.engine.playouts import play_random
from uno_env.engine.state import State
from uno_env.rules import INT_RANGES

#: Every test here runs on each backend.
pytestmark = pytest.mark.usefixtures("each_backend")


def rest_of_deck(*used: str) -> list[str]:
    return cards_from_counts(DECKS["classic108"] - counts_from_cards(list(used)))


# --- option ranges -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(INT_RANGES))
def test_every_integer_option_has_a_range_and_rejects_values_outside_it(name):
    low, high = INT_RANGES[name]
    companions = NEEDS.get(name, {})
    for ok in (low, high, np.int64(high)):
        value = getattr(Rules(**{name: ok}, **companions), name)
        assert value == ok and type(value) is int
    for bad in (low - 1, high + 1, 2**63, 2.0, True, "3"):
        with pytest.raises(ValueError, match=name):
            Rules(**{name: bad}, **companions)


#: Options that are valid only beside another option's value.
NEEDS = {"declare_on_finish": {"multi_play": "same_kind"}}


def test_ranges_cover_every_integer_option():
    ints = {f.name for f in dataclasses.fields(Rules) if f.type in ("int", int)}
    assert set(INT_RANGES) == ints


def test_huge_uno_penalty_draws_what_is_left_at_once():
    """The offender draws the pile and the reshuffled discards, then the draw stops."""
    hands = [["G7", "G8"], rest_of_deck("G7", "G8", "G2", "R1", "R2", "R3", "R4")]
    eng = make(hands, top="G2", discard=["R1", "R2", "R3"], pile=["R4"], uno_penalty=1000)
    eng.step_names("play G7")
    eng.step_names("catch")
    assert sorted(eng.hand(0, 0)) == ["G2", "G8", "R1", "R2", "R3", "R4"]
    assert eng.top_card() == "G7"
    assert_census(eng)


def test_huge_challenge_penalty_draws_what_is_left_at_once():
    hands = [["WD4", "R7"], rest_of_deck("WD4", "R7", "G2", "R1", "R2")]
    eng = make(hands, top="G2", discard=["R1", "R2"], challenge_penalty=1000)
    eng.step_names("play WD4:R")
    eng.step_names("challenge")     # innocent: the challenger draws 4 + 1000, i.e. R1 R2 G2
    assert len(eng.hand(0, 1)) == len(hands[1]) + 3
    assert_census(eng)


def test_a_draw_with_every_card_in_hands_changes_nothing():
    """No cards to reshuffle: no new pile, no random number drawn."""
    hands = [["G7", "B1"], rest_of_deck("G7", "B1", "G2")]
    eng = make(hands, top="G2", draw_rule="one_then_pass")
    before = snapshot(eng)
    eng.step_names("draw")
    after = snapshot(eng)
    for name in ("key", "counter", "deck", "deck_pos", "deck_len", "discard", "hands"):
        np.testing.assert_array_equal(before[name], after[name], err_msg=name)
    assert int(eng.current_player[0]) == 1


# --- a failed step changes no game ---------------------------------------------------------------

def broken_batch(games: int = 6, bad: int = 3) -> tuple[Engine, np.ndarray, int]:
    """``games`` games whose legal actions step fine, except game ``bad``, where a waiting
    seat's hand was damaged (a count of -1 with a hand size over ``mercy_limit``) so that
    the elimination check after its decision fails: the games before it have been
    stepped by then."""
    eng = Engine(Rules(num_players=3, mercy_limit=25), games, seed=5)
    actions = random_actions(eng, np.random.default_rng(1))
    damage_hand(eng, bad)
    assert eng.legal_action_mask()[np.arange(games), actions].all()
    return eng, actions, bad


# the compiled undo log: rows saved one by one (6 games), the whole state copied first
# (64 and 300 games; game 130 fails well after the first rows have changed)
@pytest.mark.parametrize(("games", "bad"), [(6, 3), (64, 3), (300, 130)])
def test_an_internal_error_in_one_game_leaves_every_game_as_it_was(games, bad):
    eng, actions, bad = broken_batch(games, bad)
    before = snapshot(eng)
    with pytest.raises(EngineError, match=f"game {bad}") as err:
        eng.step(actions)
    assert err.value.__cause__ is not None
    assert_same_state(before, snapshot(eng))
    np.testing.assert_array_equal(eng.legal_action_mask()[bad], before_mask(eng, bad))


@pytest.mark.parametrize("games", [6, 64])
def test_an_internal_error_in_random_play_leaves_every_game_and_stream_as_it_was(
        games, each_backend):
    if each_backend != "numba":
        pytest.skip("one compiled call plays every game; numpy plays them round by round")
    eng, _, bad = broken_batch(games)
    streams = np.arange(2 * games, dtype=np.uint64).reshape(games, 2)
    before, streams_before = snapshot(eng), streams.copy()
    until = (eng.current_player + 1) % 3    # one decision each: game 3's breaks
    with pytest.raises(EngineError, match=f"game {bad}"):
        play_random(eng, np.arange(games), until, streams)
    assert_same_state(before, snapshot(eng))
    np.testing.assert_array_equal(streams, streams_before)


def before_mask(eng: Engine, g: int) -> np.ndarray:
    return eng._compute_masks(np.array([g]))[0]


def test_the_compiled_row_copy_covers_every_state_field(each_backend):
    if each_backend != "numba":
        pytest.skip("the row copy of the compiled kernels")
    from uno_env.engine.compiled.layout import state_struct
    from uno_env.engine.compiled.rows import copy_block, copy_rows

    src, dst = State.empty(3, 4), State.empty(3, 4)
    rng = np.random.default_rng(0)
    for f in dataclasses.fields(src):
        a = getattr(src, f.name)
        a[...] = rng.integers(0, 2 if a.dtype == bool else 100, a.shape).astype(a.dtype)
    copy_rows(state_struct(src), np.array([2, 0]), state_struct(dst), np.array([0, 1]))
    for f in dataclasses.fields(src):
        np.testing.assert_array_equal(getattr(dst, f.name)[:2], getattr(src, f.name)[[2, 0]],
                                      err_msg=f.name)
    block = State.empty(3, 4)   # rows 0-1 into rows 1-2, as the two-thread step saves
    copy_block(state_struct(src), 0, state_struct(block), 1, 2)
    for f in dataclasses.fields(src):
        np.testing.assert_array_equal(getattr(block, f.name)[1:], getattr(src, f.name)[:2],
                                      err_msg=f.name)


def test_the_other_games_step_on_once_the_broken_game_is_left_out():
    eng, actions, bad = broken_batch()
    games = np.array([g for g in range(6) if g != bad])
    eng.step(actions[games], games=games)
    assert_census_of(eng, games)


def assert_census_of(eng: Engine, games: np.ndarray) -> None:
    np.testing.assert_array_equal(eng.census()[games],
                                  np.broadcast_to(eng.deck_composition(), (games.size, 73)))


def test_an_error_mid_step_is_undone(monkeypatch, each_backend):
    """A failure injected after the cards are laid (numpy reference: inside ``advance``)."""
    if each_backend != "numpy":
        pytest.skip("the numpy functions are patched; the compiled twin is tested above")
    calls = []

    def failing_advance(*args, **kwargs):
        calls.append(1)
        raise RuntimeError("injected")

    eng = Engine(Rules(num_players=4), 8, seed=3)
    rng = np.random.default_rng(2)
    for _ in range(3):
        eng.step(random_actions(eng, rng))
    before = snapshot(eng)
    monkeypatch.setattr(numpy_effects, "advance", failing_advance)
    actions = eager_actions(eng, rng)
    with pytest.raises(EngineError, match="injected"):
        eng.step(actions)
    assert calls
    assert_same_state(before, snapshot(eng))
    monkeypatch.undo()
    eng.step(actions)


# --- assigning a state ---------------------------------------------------------------------------

def test_state_assignment_checks_games_players_deck_and_dtypes():
    eng = Engine(Rules(num_players=3), 4, seed=0)
    eng.state = eng.state.copy()    # a state of the same shape is fine
    with pytest.raises(TypeError, match="State"):
        eng.state = {"hands": 1}
    with pytest.raises(ValueError, match="4 games"):
        eng.state = State.empty(5, 3)
    with pytest.raises(ValueError, match="3 players"):
        eng.state = State.empty(4, 4)
    narrow = dataclasses.replace(State.empty(4, 3), deck=np.zeros((4, 10), np.int16))
    with pytest.raises(ValueError, match="deck"):
        eng.state = narrow
    wrong = dataclasses.replace(State.empty(4, 3), hands=np.zeros((4, 3, 73), np.int64))
    with pytest.raises(ValueError, match="hands.*int8"):
        eng.state = wrong
    bent = dataclasses.replace(State.empty(4, 3), top=np.zeros(5, np.int16))
    with pytest.raises(ValueError, match="top"):
        eng.state = bent
    strided = dataclasses.replace(State.empty(4, 3), discard=np.zeros((73, 4), np.int16).T)
    with pytest.raises(ValueError, match="discard must be a C-contiguous array"):
        eng.state = strided


def test_a_rejected_state_leaves_the_engine_as_it_was():
    eng = Engine(Rules(num_players=3), 4, seed=0)
    before = snapshot(eng)
    with pytest.raises(ValueError):
        eng.state = State.empty(4, 4)
    assert_same_state(before, snapshot(eng))
    eng.step(random_actions(eng, np.random.default_rng(0)))


# --- setups --------------------------------------------------------------------------------------

def test_setup_rejects_an_empty_hand():
    with pytest.raises(ValueError, match=r"hands\[1\] is empty"):
        make([["R1"], [], ["G2"]], top="R5")
    with pytest.raises(ValueError, match=r"hands\[0\] is empty"):
        make([[], []], top="R5")


@pytest.mark.parametrize("dealer", [-1, 3, 10, 1.5, "0", True])
def test_setup_rejects_a_dealer_outside_the_seats(dealer):
    with pytest.raises(ValueError, match="dealer"):
        make([["R1"], ["B2"], ["G2"]], top=None, pile=["R5"], dealer_seat=dealer)


def test_setup_accepts_every_seat_as_dealer():
    for dealer in range(3):
        eng = make([["R1"], ["B2"], ["G2"]], top=None, pile=["R5"], dealer_seat=np.int64(dealer))
        assert int(eng.state.dealer[0]) == dealer


# --- malformed actions (fuzz) --------------------------------------------------------------------

DTYPES = ["int8", "int64", "uint8", "uint64", "float32", "float64", "bool", "complex128",
          "U4", "object"]


def malformed_actions(num_games: int) -> st.SearchStrategy:
    """Action arguments of every kind: wrong shapes, wrong dtypes, ids out of range, junk."""
    ids = st.integers(-2**64, 2**64)
    shapes = st.sampled_from([(num_games,), (), (num_games - 1,), (num_games + 1,),
                              (num_games, 1), (1, num_games), (0,)])
    arrays = st.builds(lambda shape, dtype, seed: _array(shape, dtype, seed), shapes,
                       st.sampled_from(DTYPES), st.integers(0, 2**32 - 1))
    junk = st.one_of(st.none(), st.text(max_size=5), st.floats(), st.dictionaries(
        st.integers(), st.integers(), max_size=2), st.lists(ids, min_size=num_games,
                                                             max_size=num_games),
        st.lists(st.lists(ids, max_size=2), min_size=num_games, max_size=num_games))
    return st.one_of(arrays, junk)


def _array(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    values = np.random.default_rng(seed).integers(-5, NUM_ACTIONS + 5, shape)
    if dtype == "U4":
        return values.astype(str).astype("U4")
    if dtype == "object":
        return values.astype(object)
    return values.astype(dtype)


def names(num_games: int) -> st.SearchStrategy:
    name = st.one_of(st.text(max_size=12), st.sampled_from(
        ["play R5", "play WD4", "play WD4:X", "color:Q", "target:0", "draw ", "PLAY r1",
         "play R1:R", "target:99", "catch"]), st.integers(), st.none())
    return st.one_of(st.lists(name, min_size=0, max_size=num_games + 1), name,
                     st.integers())


FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def _check_rejected_or_legal(eng: Engine, call) -> None:
    before = snapshot(eng)
    saved = eng.state.copy()
    try:
        call()
    except (ValueError, TypeError) as err:
        assert str(err), "an error needs a message"
        assert_same_state(before, snapshot(eng))
    else:   # a well-formed legal input: put the games back for the next example
        eng.state = saved


@FUZZ
@given(data=st.data())
def test_fuzz_step_rejects_malformed_actions_and_changes_nothing(data):
    eng = fuzz_engine()
    actions = data.draw(malformed_actions(eng.num_games))
    _check_rejected_or_legal(eng, lambda: eng.step(actions))


@FUZZ
@given(data=st.data())
def test_fuzz_step_with_games_rejects_malformed_input(data):
    eng = fuzz_engine()
    games = data.draw(st.one_of(st.lists(st.integers(-3, 5), max_size=4), st.none(),
                                st.text(max_size=3)))
    actions = data.draw(malformed_actions(3))
    _check_rejected_or_legal(eng, lambda: eng.step(actions, games=games))


@FUZZ
@given(data=st.data())
def test_fuzz_step_names_rejects_malformed_names(data):
    eng = fuzz_engine()
    given_names = data.draw(names(eng.num_games))
    _check_rejected_or_legal(eng, lambda: eng.step_names(given_names))


_ENGINES: dict[str, Engine] = {}


def fuzz_engine() -> Engine:
    """Two games a few decisions in (one engine per backend, reused by the examples)."""
    backend = core.default_backend()
    if backend not in _ENGINES:
        eng = Engine(Rules(num_players=3), 2, seed=4)
        rng = np.random.default_rng(0)
        for _ in range(4):
            eng.step(random_actions(eng, rng))
        _ENGINES[backend] = eng
    return _ENGINES[backend]
