"""Every headline figure of the README comes from a record: the win rates of its results
paragraph are those of docs/results/headlines.json, of a shipped model's card (whose
headlines other tests tie to their records and model files) or of a training seed in a
seed report."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIGURE = re.compile(r"\d+\.\d%(?: \[\d+\.\d, \d+\.\d\])?")


def shown(row: dict) -> set[str]:
    """How a measured row may be written: its rate, alone or with its interval."""
    rate = f"{100 * row['win_rate']:.1f}%"
    return {rate, f"{rate} [{100 * row['low']:.1f}, {100 * row['high']:.1f}]"}


def recorded() -> set[str]:
    """Headline rows, cards' headlines and every training seed of the seed reports
    (``net-*.json``: the spreads the README states)."""
    results = ROOT / "docs" / "results"
    rows = json.loads((results / "headlines.json").read_text())["rows"]
    for card in (ROOT / "agents" / "models").glob("*.json"):
        rows += json.loads(card.read_text()).get("headline", [])
    for report in results.glob("net-*.json"):
        results_of = json.loads(report.read_text()).get("results")
        if isinstance(results_of, dict):
            rows += [row for opponent in results_of.values() for row in opponent["each"]]
    return {text for row in rows for text in shown(row)}


def results_paragraph() -> str:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("The headline numbers are measured again")
    return readme[start:readme.index("recipes are in", start)]


def test_every_win_rate_of_the_readme_results_is_a_recorded_one() -> None:
    figures = FIGURE.findall(results_paragraph())
    assert len(figures) >= 8
    allowed = recorded()
    assert [f for f in figures if f not in allowed] == []
