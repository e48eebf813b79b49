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
