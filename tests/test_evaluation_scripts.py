"""The scripts behind the published headlines: the reference heuristic of every preset and
the shipped agents' headlines, each on the deals of its purpose, with its provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inline import run_inline

from uno_env.deals import purpose_of


def test_the_reference_heuristic_is_chosen_on_selection_deals_and_reported_on_evaluation(
        tmp_path: Path) -> None:
    out = tmp_path / "ref.json"
    done = run_inline("reference_heuristics.py", "--presets", "official,teams",
                      "--select-deals", "6", "--deals", "5", "--out", str(out))
    assert done.returncode == 0, done.stderr
    record = json.loads(out.read_text())
    assert record["command"].startswith("python experiments/reference_heuristics.py")
    assert {"commit", "machine", "date"} <= set(record)
    # teams is played at 4 players only
    assert [(c["preset"], c["players"]) for c in record["cells"]] == [
        ("official", 2), ("official", 4), ("teams", 4)]
    for cell in record["cells"]:
        chosen = cell["selection"]["stats"]
        assert cell["reference"] == max(chosen, key=lambda a: chosen[a]["win_rate"])
        assert purpose_of(cell["selection"]["first_deal"]) == "selection"
        assert purpose_of(cell["evaluation"]["first_deal"]) == "evaluation"
        # heads-up every ordered pair; at 4 the four in each rotation; in teams every
        # pair of heuristics as two teams, in each rotation
        seatings = {"official": {2: 12, 4: 4}, "teams": {4: 6 * 4}}[cell["preset"]][
            cell["players"]]
        assert cell["selection"]["games"] == 6 * seatings
        assert cell["evaluation"]["games"] == 5 * seatings
    assert "head_to_head" in record["cells"][0]["evaluation"]
    assert "| official | 2 |" in done.stdout


def test_headlines_are_measured_on_evaluation_deals_and_say_where(tmp_path: Path) -> None:
    out = tmp_path / "h.json"
    done = run_inline("headlines.py", "--rows", "tuned", "--deals", "4", "--out", str(out))
    assert done.returncode == 0, done.stderr
    record = json.loads(out.read_text())
    assert record["deals"]["namespace"] == "evaluation" and record["deals"]["count"] == 4
    assert record["deals"]["first"] == 1_000_000 + 2**24          # stream 1
    assert [(r["agent"], r["opponent"], r["players"]) for r in record["rows"]] == [
        ("tuned", "random_play", 2), ("tuned", "random_play", 4), ("tuned", "random_play", 6)]
    assert [r["games"] for r in record["rows"]] == [8, 16, 24]


@pytest.mark.parametrize("script,args,message", [
    ("reference_heuristics.py", ["--presets", "chess"], "unknown preset 'chess'"),
    ("reference_heuristics.py", ["--heuristics", "tuned"], "at least two agents"),
    ("headlines.py", ["--rows", "nobody"], "--rows names no agent"),
    ("headlines.py", ["--deals", "0"], "--deals"),
])
def test_bad_settings_are_refused_in_one_line(script: str, args: list[str],
                                              message: str) -> None:
    done = run_inline(script, *args)
    assert done.returncode == 2 and message in done.stderr and done.stdout == ""
