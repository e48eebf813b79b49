"""The evaluation module: one interval method, duplicate deals for every agent kind,
ratings with bootstrap intervals, and no second interval anywhere else."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from uno_agents import make_agent
from uno_env import Rules
from uno_env.evaluation import (
    bradley_terry,
    count_interval,
    deal_wins,
    head_to_head,
    mean_interval,
    play_rotated,
    rate_interval,
    versus_base,
)
from uno_env.evaluation.ratings import heads_up, resample_deals

ROOT = Path(__file__).resolve().parent.parent
OFFICIAL2 = Rules.preset("official", num_players=2)


def test_intervals_are_normal_over_units_and_rates_stay_in_bounds() -> None:
    r = mean_interval(np.array([0.0, 1.0] * 50))
    assert r["mean"] == 0.5 and math.isclose(r["high"] - 0.5, 0.5 - r["low"])
    assert math.isclose(r["high"] - r["low"], 2 * 1.959963984540054 * 0.5025 / 10, rel_tol=1e-3)
    rate, low, high = rate_interval(np.array([1.0, 1.0, 1.0, 0.5]))
    assert low < rate <= high == 1.0
    assert count_interval(0, 10)[1] == 0.0 and all(math.isnan(x) for x in count_interval(0, 0))
    assert count_interval(7, 10)[1:] == rate_interval(np.r_[np.ones(7), np.zeros(3)])[1:]


def test_bradley_terry_recovers_known_strengths() -> None:
    strength = np.array([0.0, 100.0, 300.0])           # Elo points
    gap = strength[:, None] - strength[None, :]
    wins = 100_000 / (1 + 10 ** (-gap / 400))
    np.fill_diagonal(wins, 0)
    rating = bradley_terry(wins)
    np.testing.assert_allclose(rating, strength - strength.mean(), atol=0.5)


def test_heads_up_intervals_cover_the_rating_and_pair_differences() -> None:
    rng = np.random.default_rng(0)
    deal_wins_ = rng.integers(0, 3, size=(200, 3, 3))
    deal_wins_[:, 2, :] += 1                        # the third wins more
    for d in range(3):
        deal_wins_[:, d, d] = 0
    ratings = heads_up(["a", "b", "c"], deal_wins_, rounds=100)
    low, high = ratings.interval()
    assert (low <= ratings.value).all() and (ratings.value <= high).all()
    assert ratings.difference(2, 0)["low"] > 0
    assert resample_deals(10, 3).shape == (3, 10)


def test_duplicate_deals_give_twins_half_the_wins() -> None:
    wins = deal_wins(make_agent("greedy"), make_agent("greedy"), OFFICIAL2, 40)
    assert wins.shape == (40,) and wins.mean() == 0.5
    r = versus_base(wins, wins, 2)
    assert r["difference"]["mean"] == 0 and r["games"] == 80


@pytest.mark.parametrize("spec", ["ismcts:budget=4", "random_play", "tuned"])
def test_every_agent_kind_is_evaluated_on_duplicate_deals(spec: str) -> None:
    r = head_to_head(make_agent(spec), make_agent("random"), OFFICIAL2, 6, seed=3)
    assert r["deals"] == 6 and r["games"] == 12 and 0 <= r["low"] <= r["win_rate"] <= r["high"]


def test_play_rotated_seats_every_agent_everywhere_on_the_same_deals() -> None:
    rules = Rules.preset("official", num_players=3)
    lineup = [make_agent("greedy")] * 3
    winners = play_rotated(rules, lineup, 5 + np.arange(20))
    assert winners.shape == (60,)
    # identical agents on the same deal: the same seat wins under every rotation
    by_rotation = winners.reshape(3, 20)
    seat = (by_rotation + np.arange(3)[:, None]) % 3
    assert (seat == seat[0]).all()


#: What computing an interval looks like: a Wilson interval, a z of 1.96, a binomial
#: standard error, a standard error of a mean, a percentile bootstrap.
INTERVAL_CODE = re.compile(
    r"wilson|1\.9[56]\d*|\bZ95\b|norm\.ppf|sqrt\(\s*\w+\s*\*\s*\(\s*1\s*-|"
    r"std\([^)]*\)\s*/\s*(np\.|math\.)?sqrt|percentile\([^)]*2\.5", re.IGNORECASE)
THE_INTERVALS = ROOT / "uno_env" / "evaluation" / "intervals.py"


def code_files() -> list[Path]:
    """Every module, script and notebook of the project."""
    found = [p for folder in ("uno_env", "agents", "experiments")
             for p in (ROOT / folder).rglob("*.py")]
    return [*found, *(ROOT / "notebooks").glob("*.ipynb")]


def code_of(path: Path) -> str:
    """The code of a module, or of a notebook's code cells."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    return path.read_text()


def test_no_module_but_one_computes_an_interval() -> None:
    offenders = {str(p.relative_to(ROOT)): m.group(0) for p in code_files()
                 if p != THE_INTERVALS and (m := INTERVAL_CODE.search(code_of(p)))}
    assert offenders == {}, "intervals belong in uno_env/evaluation/intervals.py"
    assert INTERVAL_CODE.search(THE_INTERVALS.read_text())      # the pattern does see one
