"""Packed observations: empty and finished selections work on both backends, and
``unpack`` refuses values no packed row can hold, naming the field."""

from __future__ import annotations

import numpy as np
import pytest

from uno_env import Engine, Rules
from uno_env.engine.observe import OBS_SIZE
from uno_env.engine.packed import packed_size, packed_views, unpack
from uno_env.engine.packed_rows import observe_packed

BACKENDS = ("numpy", "numba")
TEN_OPEN = Rules.preset("official", num_players=10, zero_open=True, max_turns=3000)


def finished(backend: str, games: int = 3) -> Engine:
    """An engine whose games have all ended, played by random legal actions."""
    engine = Engine(TEN_OPEN, num_games=games, seed=5, backend=backend)
    rng = np.random.default_rng(5)
    while not engine.state.done.all():
        masks = engine.legal_action_mask()
        engine.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0
                              for m in masks]))
    return engine


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_games_give_no_rows(backend: str) -> None:
    engine = Engine(TEN_OPEN, num_games=3, seed=0, backend=backend)
    rows = observe_packed(engine, games=np.array([], np.int64))
    assert rows.shape == (0, packed_size(TEN_OPEN))
    assert unpack(rows, TEN_OPEN).shape == (0, OBS_SIZE)


@pytest.mark.parametrize("backend", BACKENDS)
def test_finished_games_pack_and_unpack_to_their_observation(backend: str) -> None:
    engine = finished(backend)
    live = np.flatnonzero(~engine.state.done)
    assert live.size == 0
    assert observe_packed(engine, games=live).shape == (0, packed_size(TEN_OPEN))
    every = np.arange(engine.num_games)
    np.testing.assert_array_equal(unpack(observe_packed(engine, games=every), TEN_OPEN),
                                  engine.observe(games=every))


FOUR = Rules.preset("official", num_players=4)


@pytest.mark.parametrize(("field", "value"), [
    ("top", -1), ("top", 200), ("color", 4), ("color", -1), ("phase", 99),
    ("acting_seat", 4), ("drawn", 500), ("drawn", -2), ("direction", 0), ("direction", 2),
    ("uno_called", 2), ("uno_exposed", 4), ("hand", 99), ("discards", -1),
    ("hand_sizes", 5000), ("seats_present", 3), ("drew_on", 16), ("last_played", 300),
    ("last_named", 4), ("wd4_after_draw", -1), ("scores_low", -1), ("draw_pile", -3),
])
def test_unpack_refuses_an_impossible_value_by_field(field: str, value: int) -> None:
    rows = observe_packed(Engine(FOUR, num_games=2, seed=1))
    unpack(rows, FOUR)   # the real rows are fine
    rows[1, packed_views(FOUR)[field].start] = value
    with pytest.raises(ValueError, match=rf"row 1: {field} {value} is impossible"):
        unpack(rows, FOUR)
