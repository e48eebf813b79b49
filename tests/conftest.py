"""Fixtures of the test suite (the helpers are in ``scenario.py``)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from uno_env.engine.core import BACKENDS

#: The backends this install can run (numba is an optional extra).
AVAILABLE_BACKENDS = [b for b in BACKENDS
                      if b == "numpy" or importlib.util.find_spec(b) is not None]


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


@pytest.fixture(params=AVAILABLE_BACKENDS)
def each_backend(request, monkeypatch) -> str:
    """Runs a test once per available backend: the rule tests check both engines."""
    monkeypatch.setenv("UNO_ENV_BACKEND", request.param)
    return request.param


def random_positions(preset: str, players: int, games: int = 24, seed: int = 7) -> Engine:
    """An engine whose games stand at varied positions reached by random play."""
    eng = Engine(Rules.preset(preset, num_players=players), games, seed)
    rng = np.random.default_rng(seed)
    depth = rng.integers(0, 60, games)
    for step in range(60):
        live = np.flatnonzero(~eng.state.done & (depth > step))
        if not live.size:
            break
        eng.step(random_actions(eng, rng)[live], games=live)
    return eng


def redeal_hidden(engine: Engine, game: int, seat: int, rng: np.random.Generator) -> None:
    """Deal the cards ``seat`` cannot see in ``game`` (the other hands, the draw pile)
    anew, keeping every public fact (hand sizes, pile length)."""
    s = engine.state
    others = [q for q in range(engine.num_players) if q != seat]
    if engine.rules.teams:
        others.remove((seat + 2) % engine.num_players)
    pile = slice(int(s.deck_pos[game]), int(s.deck_len[game]))
    cards = np.concatenate([np.repeat(np.arange(s.hands.shape[2]), s.hands[game, q])
                            for q in others] + [s.deck[game, pile]])
    rng.shuffle(cards)
    sizes = [int(s.hand_size[game, q]) for q in others]
    s.hands[game, others] = 0
    for q, part in zip(others, np.split(cards[:sum(sizes)], np.cumsum(sizes)[:-1]),
                       strict=True):
        np.add.at(s.hands[game, q], part, 1)
    s.deck[game, pile] = cards[sum(sizes):]
    engine.state = s
