"""Bad input raises a clear error and leaves the state untouched."""

from __future__ import annotations

import numpy as np
import pytest
from scenario import assert_same_state, make, snapshot

from uno_env import Engine, IllegalActionError, Rules, action_id, action_name
from uno_env.cards import CardError
from uno_env.engine.search import sample_worlds

#: Every test here runs on each backend.
pytestmark = pytest.mark.usefixtures("each_backend")


@pytest.fixture
def batch() -> Engine:
    eng = Engine(Rules(num_players=3), 4, seed=17)
    rng = np.random.default_rng(0)
    for _ in range(5):  # leave the first position
        mask = eng.legal_action_mask()
        eng.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
    return eng


def legal_actions(eng: Engine) -> np.ndarray:
    return eng.legal_action_mask().argmax(axis=1)


def illegal_action(eng: Engine, g: int) -> int:
    return int(np.flatnonzero(~eng.legal_action_mask()[g])[0])


def test_illegal_action_names_game_and_action(batch):
    before = snapshot(batch)
    actions = legal_actions(batch)
    bad = illegal_action(batch, 2)
    actions[2] = bad
    with pytest.raises(IllegalActionError) as err:
        batch.step(actions)
    message = str(err.value)
    assert "game 2" in message
    assert repr(action_name(bad)) in message
    assert_same_state(before, snapshot(batch))


def test_illegal_action_in_one_game_applies_none(batch):
    before = snapshot(batch)
    actions = legal_actions(batch)
    actions[3] = illegal_action(batch, 3)
    with pytest.raises(IllegalActionError, match="game 3"):
        batch.step(actions)
    assert_same_state(before, snapshot(batch))
    # The legal actions still work afterwards.
    batch.step(legal_actions(batch))


def test_illegal_action_is_a_value_error():
    assert issubclass(IllegalActionError, ValueError)


def test_illegal_action_by_name():
    eng = make([["G1", "B2"], ["B1"], ["Y3"]], top="G5")
    before = snapshot(eng)
    with pytest.raises(IllegalActionError, match=r"game 0.*'play B2'"):
        eng.step_names("play B2")
    with pytest.raises(IllegalActionError, match=r"game 0.*'challenge'"):
        eng.step_names("challenge")
    assert_same_state(before, snapshot(eng))
    eng.step_names("play G1")
    assert eng.top_card() == "G1"


def test_card_not_held_is_illegal():
    eng = make([["G1", "B2"], ["B1"], ["Y3"]], top="G5")
    before = snapshot(eng)
    with pytest.raises(IllegalActionError, match="'play G7'"):
        eng.step_names("play G7")
    assert_same_state(before, snapshot(eng))


@pytest.mark.parametrize("actions", [[0, 0, 0], [0, 0, 0, 0, 0], [[0, 0, 0, 0]], 0])
def test_wrong_shape(batch, actions):
    before = snapshot(batch)
    with pytest.raises(ValueError, match="shape"):
        batch.step(np.asarray(actions))
    assert_same_state(before, snapshot(batch))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, bool, object, str])
def test_non_integer_dtype(batch, dtype):
    """Whole floats and bools too: nothing is rounded or cast (an object array of
    Python ints is integers, so the object case holds a None)."""
    before = snapshot(batch)
    actions = legal_actions(batch).astype(dtype)
    if dtype is object:
        actions[1] = None
    with pytest.raises(TypeError, match="actions must be integers"):
        batch.step(actions)
    assert_same_state(before, snapshot(batch))


@pytest.mark.parametrize("value", [-1, 119, 10**6])
def test_out_of_range_id_names_game_and_id(batch, value):
    before = snapshot(batch)
    actions = legal_actions(batch)
    actions[1] = value
    with pytest.raises(IllegalActionError, match=rf"game 1.*{value}"):
        batch.step(actions)
    assert_same_state(before, snapshot(batch))


def test_unknown_action_name():
    eng = make([["G1", "B2"], ["B1"], ["Y3"]], top="G5")
    before = snapshot(eng)
    with pytest.raises(ValueError, match="'play G99'"):
        eng.step_names("play G99")
    with pytest.raises(ValueError, match="'jump'"):
        eng.step_names("jump")
    with pytest.raises(ValueError):
        eng.step_names(["draw", "draw"])
    assert_same_state(before, snapshot(eng))


@pytest.mark.parametrize("kwargs", [
    dict(hands=[["G1", "X9"], ["B1"], ["Y3"]], top="G5"),
    dict(hands=[["G1"], ["B1"], ["Y3"]], top="G55"),
    dict(hands=[["G1"], ["B1"], ["Y3"]], top="G5", deck=["R1", "Q"]),
    dict(hands=[["G1"], ["B1"], ["Y3"]], top="G5", discard=["WD5"]),
])
def test_unknown_card_in_setup(kwargs):
    with pytest.raises(CardError, match="unknown card"):
        Engine.from_setup(Rules(num_players=3), **kwargs)


@pytest.mark.parametrize(("kwargs", "word"), [
    (dict(hands=[["G1"], ["B1"]], top="G5"), "num_players"),
    (dict(hands=[["R0", "R0"], ["B1"], ["Y3"]], top="G5"), "R0"),
    (dict(hands=[["G1"], ["B1"], ["Y3"]], top="W"), "color"),
    (dict(hands=[["G1"], ["B1"], ["Y3"]], top="G5", color="R"), "color"),
    (dict(hands=[["G1"], ["B1"], ["Y3"]], top="G5", color="P"), "color"),
    (dict(hands=[["G1"], ["B1"], ["Y3"]], top="G5", current=3), "current"),
    (dict(hands=[["G1"], ["B1"], ["Y3"]], top="G5", direction=0), "direction"),
])
def test_bad_setup(kwargs, word):
    with pytest.raises(ValueError, match=word):
        Engine.from_setup(Rules(num_players=3), **kwargs)


@pytest.mark.parametrize("options", [dict(bogus=True), dict(num_players=11), dict(draw_rule="x")])
def test_bad_option(options):
    with pytest.raises(ValueError, match=next(iter(options))):
        Rules.preset("official", **options)


def test_rules_must_be_rules():
    with pytest.raises(TypeError):
        Engine({"num_players": 3}, 1)


@pytest.mark.parametrize(("games", "error"), [(0, ValueError), (-1, ValueError),
                                              (2.5, TypeError), (True, TypeError)])
def test_bad_number_of_games(games, error):
    with pytest.raises(error, match="num_games"):
        Engine(Rules(), games)


def test_bad_reset_games(batch):
    before = snapshot(batch)
    with pytest.raises(ValueError, match="game index 4"):
        batch.reset(games=[4])
    with pytest.raises(ValueError):
        batch.reset(seed=[1, 2])
    assert_same_state(before, snapshot(batch))


def test_observe_bad_player(batch):
    with pytest.raises(ValueError, match="players"):
        batch.observe(players=3)


def test_finished_games_ignore_any_action():
    eng = make([["G1"], ["B1"], ["Y3"]], top="G5")
    eng.step_names("play G1")
    before = snapshot(eng)
    for a in (0, -1, 500):
        rewards, terminated, truncated = eng.step(np.array([a]))
        assert not rewards.any()
        assert terminated.tolist() == [True]
    assert_same_state(before, snapshot(eng))


def test_mask_is_read_only(batch):
    mask = batch.legal_action_mask()
    with pytest.raises(ValueError):
        mask[0, action_id("draw")] = not mask[0, action_id("draw")]


@pytest.mark.parametrize("players", [[0, 1], 1.5, [[0, 1, 2]], 7, -1])
def test_observe_rejects_bad_players_naming_them(players):
    eng = Engine(Rules(num_players=4), 3, seed=0)
    with pytest.raises(ValueError, match="players must be"):
        eng.observe(players)


# --- no silent coercion ------------------------------------------------------------------

DURATION = np.timedelta64(3)


def test_a_numpy_duration_is_not_an_action(batch):
    before = snapshot(batch)
    with pytest.raises(TypeError, match="action"):
        batch.step(np.array([DURATION] * batch.num_games))
    assert_same_state(before, snapshot(batch))


def test_a_numpy_duration_is_not_a_seed_nor_a_number_of_players(batch):
    before = snapshot(batch)
    with pytest.raises(TypeError, match="seed"):
        batch.reset(seed=DURATION)
    assert_same_state(before, snapshot(batch))
    with pytest.raises(TypeError, match="seed"):
        Engine(Rules(), 2, seed=DURATION)
    with pytest.raises(ValueError, match="num_players"):
        Rules(num_players=DURATION)


@pytest.mark.parametrize(("kwargs", "error", "name"), [
    (dict(game=0.9), TypeError, "game"), (dict(game=-1), ValueError, "game"),
    (dict(game=4), ValueError, "game"), (dict(game=True), TypeError, "game"),
    (dict(seat=1.0), TypeError, "seat"), (dict(seat=-1), ValueError, "seat"),
    (dict(num_worlds=2.0), TypeError, "num_worlds"),
    (dict(num_worlds=DURATION), TypeError, "num_worlds"),
    (dict(drew_on_weight="0.5"), TypeError, "drew_on_weight")])
def test_sample_worlds_names_a_bad_argument(batch, kwargs, error, name):
    game = 0
    args = dict(game=game, seat=int(batch.current_player[game]), num_worlds=2,
                drew_on_weight=1.0) | kwargs
    before = snapshot(batch)
    with pytest.raises(error, match=name):
        sample_worlds(batch, rng=np.random.default_rng(0), **args)
    assert_same_state(before, snapshot(batch))


@pytest.mark.parametrize("method", ["top_card", "current_color", "phase_name",
                                    "legal_action_names"])
@pytest.mark.parametrize(("game", "error"), [(-1, ValueError), (4, ValueError),
                                             (0.0, TypeError), (DURATION, TypeError)])
def test_one_game_views_do_not_wrap_negative_indexes(batch, method, game, error):
    with pytest.raises(error, match="game"):
        getattr(batch, method)(game)


@pytest.mark.parametrize(("game", "player", "name"), [(-1, 0, "game"), (0, -1, "player"),
                                                      (0, 3, "player"), (0, 1.0, "player")])
def test_hand_does_not_wrap_negative_indexes(batch, game, player, name):
    with pytest.raises((TypeError, ValueError), match=name):
        batch.hand(game, player)
    assert batch.hand(np.int64(3), np.int8(2)) == batch.hand(3, 2)


def test_a_numpy_duration_is_not_an_action_of_the_pettingzoo_env():
    import uno_env

    env = uno_env.env(preset="official", num_players=2)
    env.reset(seed=1)
    before = snapshot(env.unwrapped.engine)
    with pytest.raises(TypeError, match="action"):
        env.step(DURATION)
    assert_same_state(before, snapshot(env.unwrapped.engine))
