"""The search's work is bounded: every numeric parameter has limits named in its error,
and a search nested in itself is refused in one line."""

from __future__ import annotations

import pytest

from uno_agents import make_agent
from uno_agents.ismcts import MAX_BUDGET, MAX_CONFIDENCE, MAX_HORIZON
from uno_env.cli import main


@pytest.mark.parametrize(("spec", "message"), [
    ("ismcts:budget=1000000000", "budget must be a positive integer at most 65,536"),
    (f"ismcts:budget={MAX_BUDGET + 1}", "budget must be a positive integer at most 65,536"),
    ("ismcts:budget=0", "budget must be a positive integer at most 65,536"),
    ("ismcts:horizon=99999999", "horizon must be a non-negative integer at most 10,000"),
    ("ismcts:horizon=-1", "horizon must be a non-negative integer at most 10,000"),
    ("ismcts:confidence=1e300", "confidence must be a number >= 0 and at most 100"),
    ("ismcts:screen=1", r"screen must be a number in \[0, 1\)"),
    ("ismcts:drew_on_weight=0", r"drew_on_weight must be a number in \(0, 1\]"),
])
def test_numeric_parameters_beyond_their_bounds_are_refused(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_the_bounds_themselves_are_accepted() -> None:
    agent = make_agent(f"ismcts:budget={MAX_BUDGET},horizon={MAX_HORIZON},"
                       f"confidence={MAX_CONFIDENCE}")
    assert agent.budget == MAX_BUDGET


@pytest.mark.parametrize("spec", [
    "ismcts:prior=" * 5000 + "greedy",
    "ismcts:playout=ismcts",
    "ismcts:opponent=ismcts:budget=4",
])
def test_a_search_nested_in_a_search_is_one_value_error(spec: str) -> None:
    with pytest.raises(ValueError, match="is itself a search") as err:
        make_agent(spec)
    assert "\n" not in str(err.value) and len(str(err.value)) < 300


def test_the_tournament_refuses_an_absurd_budget_before_playing(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["tournament", "--agents", "ismcts:budget=1000000000,greedy", "--games", "2",
              "--no-progress"])
    assert "budget must be a positive integer at most 65,536" in str(exc.value)
    assert "\n" not in str(exc.value)


def test_the_tournament_refuses_a_nested_search_in_one_line(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["tournament", "--agents", "ismcts:prior=" * 2000 + "greedy", "greedy",
              "--games", "2", "--no-progress"])
    assert "is itself a search" in str(exc.value) and "\n" not in str(exc.value)


def _search_peak(decisions: int) -> int:
    """Peak bytes Python allocates while ismcts searches ``decisions`` decisions at a
    budget of 4,096 with room for 4,096 playouts at once."""
    import tracemalloc

    import numpy as np
    from scenario import random_positions

    from uno_agents import choose_actions

    engine = random_positions("official", 2, games=3 * decisions, seed=3)
    masks = engine.legal_action_mask()
    live = np.flatnonzero(~engine.state.done & (masks.sum(axis=1) > 2))[:decisions]
    assert live.size == decisions
    agent = make_agent("ismcts:budget=4096,screen=0")
    agent.max_playouts = 4096
    observations, masks = engine.observe(games=live), masks[live]
    choose_actions(agent, engine, live, observations, masks,
                   np.random.default_rng(0))   # compile, and fill the caches, first
    tracemalloc.start()
    try:
        choose_actions(agent, engine, live, observations, masks, np.random.default_rng(0))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_max_playouts_bounds_the_values_held_whatever_the_decisions() -> None:
    # without the bound each decision keeps its 4,096 values (32 KB) until all are
    # searched: 48 more decisions would hold 1.5 MB more
    assert _search_peak(56) - _search_peak(8) < 512 * 1024
