"""The search's work is bounded: every numeric parameter has limits named in its error,
and a search nested in itself is refused in one line."""

from __future__ import annotations

import pytest

from uno_agents import make_agent
from uno_agents.ismcts import MAX_BUDGET, MAX_CONFIDENCE, MAX_HORIZON
from uno_env.cli import main


@pytest.mark.parametrize(("spec", "message"), [
    ("ismcts:budget=1000000000", "budget must be an integer from 1 to 65,536"),
    (f"ismcts:budget={MAX_BUDGET + 1}", "budget must be an integer from 1 to 65,536"),
    ("ismcts:budget=0", "budget must be an integer from 1 to 65,536"),
    ("ismcts:horizon=99999999", "horizon must be an integer from 0 to 10,000"),
    ("ismcts:horizon=-1", "horizon must be an integer from 0 to 10,000"),
    ("ismcts:confidence=1e300", "confidence must be a number from 0 to 100"),
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
    assert "budget must be an integer from 1 to 65,536" in str(exc.value)
    assert "\n" not in str(exc.value)


def test_the_tournament_refuses_a_nested_search_in_one_line(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["tournament", "--agents", "ismcts:prior=" * 2000 + "greedy", "greedy",
              "--games", "2", "--no-progress"])
    assert "is itself a search" in str(exc.value) and "\n" not in str(exc.value)
