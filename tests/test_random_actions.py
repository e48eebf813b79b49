"""The random-choice helper shared by the random agent, the simulation and the benchmarks."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import AVAILABLE_BACKENDS

from uno_env import Engine, Rules, random_actions
from uno_env.random_actions import random_legal_actions


def test_random_legal_actions_are_legal_and_uniform() -> None:
    rng = np.random.default_rng(0)
    mask = np.zeros((3, 10), bool)
    mask[0, [2, 5, 9]] = True
    mask[1, 7] = True               # a single legal action
    picks = np.stack([random_legal_actions(mask, rng) for _ in range(3000)])
    assert set(np.unique(picks[:, 0])) == {2, 5, 9}
    assert (picks[:, 1] == 7).all()
    assert (picks[:, 2] == 0).all()  # no legal action: a harmless 0
    share = np.bincount(picks[:, 0], minlength=10)[[2, 5, 9]] / picks.shape[0]
    assert np.allclose(share, 1 / 3, atol=0.04)


def test_random_legal_actions_on_an_engine() -> None:
    eng = Engine(Rules(), 64, seed=3)
    rng = np.random.default_rng(3)
    for _ in range(50):
        mask = eng.legal_action_mask()
        actions = random_legal_actions(mask, rng)
        running = ~eng.done
        assert mask[np.flatnonzero(running), actions[running]].all()
        eng.step(actions)


@pytest.mark.skipif("numba" not in AVAILABLE_BACKENDS, reason="the compiled backend")
@pytest.mark.parametrize("rows", [17, 300, 4096])
def test_the_compiled_pick_is_the_numpy_pick(rows, monkeypatch) -> None:
    mask = np.random.default_rng(rows).random((rows, 119)) < 0.05
    mask[::5] = False        # rows with no legal action
    mask[1::7, -1] = True    # the last action legal
    compiled = random_legal_actions(mask, np.random.default_rng(9))
    assert random_actions._compiled_pick() is not None
    monkeypatch.setattr(random_actions, "_compiled_pick", lambda: None)
    np.testing.assert_array_equal(compiled, random_legal_actions(mask, np.random.default_rng(9)))
