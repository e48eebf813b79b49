"""Every headline figure of the README comes from a record: the win rates of its results
paragraph are those of docs/results/headlines.json, of a shipped model's card (whose
headlines other tests tie to their records and model files) or of a training seed in a
seed report, and each is read from a record that names its command, commit, date, machine
and evaluation deals."""

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


def sources() -> dict[str, set[Path]]:
    """Each way a recorded row may be written, with the records it is read from: headline
    rows, cards' headlines and every training seed of the seed reports (``net-*.json``:
    the spreads the README states)."""
    results = ROOT / "docs" / "results"
    found: dict[str, set[Path]] = {}

    def add(rows: list[dict], path: Path) -> None:
        for text in (text for row in rows for text in shown(row)):
            found.setdefault(text, set()).add(path)

    add(json.loads((results / "headlines.json").read_text())["rows"], results / "headlines.json")
    for card in (ROOT / "agents" / "models").glob("*.json"):
        for row in json.loads(card.read_text()).get("headline", []):
            add([row], ROOT / row["record"])
    for report in results.glob("net-*.json"):
        results_of = json.loads(report.read_text()).get("results")
        if isinstance(results_of, dict):
            add([row for opponent in results_of.values() for row in opponent["each"]], report)
    return found


def results_paragraph() -> str:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("The headline numbers are measured again")
    return readme[start:readme.index("recipes are in", start)]


def test_every_win_rate_of_the_readme_results_is_a_recorded_one() -> None:
    figures = FIGURE.findall(results_paragraph())
    assert len(figures) >= 8
    allowed = sources()
    assert [f for f in figures if f not in allowed] == []


def has_provenance(path: Path) -> bool:
    """Whether a record says its command, commit, date, machine and evaluation deals."""
    record = json.loads(path.read_text())
    return (str(record.get("command", "")).startswith("python ") and bool(record.get("commit"))
            and bool(record.get("date")) and bool((record.get("machine") or {}).get("cpu"))
            and (record.get("deals") or {}).get("namespace") == "evaluation")


def test_every_headline_comes_from_a_record_of_its_command_commit_machine_and_deals() -> None:
    for card in (ROOT / "agents" / "models").glob("*.json"):
        for row in json.loads(card.read_text()).get("headline", []):
            assert has_provenance(ROOT / row["record"]), (card.name, row["record"])
    found = sources()
    figures = FIGURE.findall(results_paragraph())
    assert len(figures) >= 8
    for figure in figures:
        assert any(has_provenance(path) for path in found[figure]), figure
