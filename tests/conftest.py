"""Shared helpers of the test suite."""

from __future__ import annotations

import dataclasses
import importlib.util

import numpy as np
import pytest

from uno_env import Engine, Rules
from uno_env.actions import NUM_PLAY_ACTIONS
from uno_env.engine.core import BACKENDS

#: The backends this install can run (numba is an optional extra).
AVAILABLE_BACKENDS = [b for b in BACKENDS
                      if b == "numpy" or importlib.util.find_spec(b) is not None]


def setup(preset: str = "official", hands=(), **kwargs) -> Engine:
    """A one-game engine in a given position under a preset with ``len(hands)`` players."""
    overrides = kwargs.pop("rules", {})
    rules = Rules.preset(preset, num_players=len(hands), **overrides)
    return Engine.from_setup(rules, hands=[list(h) for h in hands], **kwargs)


def snapshot(engine: Engine) -> dict[str, np.ndarray]:
    """A copy of every array of the engine state."""
    return {f.name: getattr(engine.state, f.name).copy()
            for f in dataclasses.fields(engine.state)}


def assert_same_state(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=f"state field {name} differs")


def random_actions(engine: Engine, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per running game (0 for finished games)."""
    mask = engine.legal_action_mask()
    noise = np.where(mask, rng.random(mask.shape), -1.0)
    return np.where(mask.any(axis=1), noise.argmax(axis=1), 0).astype(np.int64)


def eager_actions(engine: Engine, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per game, a card play whenever one is legal (short rounds)."""
    mask = engine.legal_action_mask()
    plays = mask.copy()
    plays[:, NUM_PLAY_ACTIONS:] = False
    choice = np.where(plays.any(axis=1, keepdims=True), plays, mask)
    noise = np.where(choice, rng.random(mask.shape), -1.0)
    return np.where(mask.any(axis=1), noise.argmax(axis=1), 0).astype(np.int64)


def assert_census(engine: Engine) -> None:
    expected = np.broadcast_to(engine.deck_composition(), (engine.num_games,
                                                            engine.deck_composition().size))
    np.testing.assert_array_equal(engine.census(), expected)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


@pytest.fixture(params=AVAILABLE_BACKENDS)
def each_backend(request, monkeypatch) -> str:
    """Runs a test once per available backend: the rule tests check both engines."""
    monkeypatch.setenv("UNO_ENV_BACKEND", request.param)
    return request.param
